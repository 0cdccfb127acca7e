//! A frame's index chunk rebuilt from the one made before it, recompressing only the blocks
//! whose entries changed.
//!
//! Every change of a frame writes its whole index again, compressed (as the reference does),
//! and at 10^6 chunks compressing 8 MB of entries was most of an update's time. The frame
//! must stay byte-identical to one whose index was compressed whole, so the index cannot
//! change format; but its blocks are compressed independently of each other (no delta
//! filter, no dictionary, one stream per block), so a block whose entries did not change
//! compresses to the same bytes as before, wherever it lands in the chunk. That holds when
//! the compressor gave the block the same room both times: a codec may give up on a stream
//! for want of room, and the compressor offers a block less than its worst case only near
//! the end of the chunk's buffer. Hence the condition, checked on the chunk kept, on the
//! chunk of the changed blocks and on the result: every block had at least its worst case
//! of room ([`Layout`]'s `roomy`), which any index that compresses by more than one block's
//! worth meets. Anything else (a small index, an index that barely compresses, a result
//! that would be a special chunk) is compressed whole, as before.

use std::ops::Range;

use crate::chunk::compress::Compressor;
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD, MIN_BUFFERSIZE};
use crate::chunk::Special;
use crate::error::Result;

use super::entries::Written;

const HLEN: usize = EXTENDED_HEADER_LENGTH;

/// The most bytes one block of a never-split chunk takes: its data stored raw, its stream's
/// size, and a run's token (the compressor's bound).
fn block_bound(blocksize: usize) -> usize {
    blocksize + 5
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// The blocks of a compressed, never-split chunk with a 32-byte header.
struct Layout<'a> {
    chunk: &'a [u8],
    blocksize: usize,
    nblocks: usize,
}

impl<'a> Layout<'a> {
    /// `chunk` read as blocks stored one after the other in order, each of one stream: `None`
    /// for anything else (memcpyed, special, split, with a dictionary or variable blocks).
    fn read(chunk: &'a [u8]) -> Option<Layout<'a>> {
        let h = ChunkHeader::read(chunk).ok()?;
        let (nbytes, blocksize, cbytes) = (h.nbytes as usize, h.blocksize as usize, h.cbytes as usize);
        let plain = h.header_len() == HLEN
            && !h.memcpyed()
            && matches!(h.special(), None | Some(Special::None))
            && !h.use_dict()
            && !h.vlblocks()
            && !h.lazy()
            && h.dont_split();
        if !plain || blocksize == 0 || cbytes != chunk.len() || h.nbytes <= 0 {
            return None;
        }
        let nblocks = nbytes.div_ceil(blocksize);
        let l = Layout { chunk, blocksize, nblocks };
        // Each block starts after the one before (a stream takes at least its 4-byte size).
        let mut at = HLEN + 4 * nblocks;
        for j in 0..nblocks {
            if l.start(j) != at {
                return None;
            }
            at = l.end(j);
            if at < l.start(j) + 4 || at > cbytes {
                return None;
            }
        }
        Some(l)
    }

    /// Where block `j` starts (`j == nblocks`: the chunk's end).
    fn start(&self, j: usize) -> usize {
        if j == self.nblocks {
            return self.chunk.len();
        }
        u32_at(self.chunk, HLEN + 4 * j)
    }

    fn end(&self, j: usize) -> usize {
        if j + 1 == self.nblocks {
            self.chunk.len()
        } else {
            u32_at(self.chunk, HLEN + 4 * (j + 1))
        }
    }

    /// The bytes of blocks `r`.
    fn blocks(&self, r: Range<usize>) -> &'a [u8] {
        &self.chunk[self.start(r.start)..self.start(r.end)]
    }

    /// Whether every block had at least its worst case of room when the chunk was made in a
    /// buffer of `limit` bytes: then each was compressed as it would be anywhere else.
    fn roomy(&self, limit: usize) -> bool {
        self.chunk.len() + block_bound(self.blocksize) <= limit
    }
}

/// Whether `chunk`, just made by the index's compressor from `nbytes` of entries, can be
/// kept for [`rebuild`] to reuse.
pub fn reusable(chunk: &[u8]) -> bool {
    Layout::read(chunk).is_some_and(|l| l.nblocks >= 2 && l.roomy(u32_at(chunk, 4) + MAX_OVERHEAD))
}

/// The index chunk for `raw` (the entries now), made from `kept` by compressing only the
/// blocks its `touched` entries fall in with `compressor` (the index's): byte for byte what
/// compressing `raw` whole with it gives. `None` when that cannot be sure (see the module
/// documentation); the caller then compresses whole.
pub fn rebuild(kept: &Written, raw: &[u8], compressor: &mut Compressor) -> Result<Option<Vec<u8>>> {
    let Some(old) = Layout::read(&kept.chunk) else { return Ok(None) };
    let bs = old.blocksize;
    let nbytes = raw.len();
    let old_nbytes = kept.len * 8;
    if u32_at(&kept.chunk, 4) != old_nbytes || old.nblocks < 2 || nbytes < 2 * bs || !old.roomy(old_nbytes + MAX_OVERHEAD) {
        return Ok(None);
    }
    let resized = old_nbytes != nbytes;
    // The entries' bytes to recompress: from the lowest changed one; to the highest, or to
    // the end when the length changed (every block from the old end on is new).
    let (lo, hi) = match (&kept.touched, resized) {
        (None, false) => return Ok(Some(kept.chunk.clone())),
        (Some(t), false) => (t.start * 8, t.end * 8),
        (t, true) => (t.as_ref().map_or(usize::MAX, |t| t.start * 8).min(old_nbytes.min(nbytes)), nbytes),
    };
    let nblocks = nbytes.div_ceil(bs);
    let mut first = lo / bs;
    let end = hi.div_ceil(bs).min(nblocks);
    if first >= end {
        return Ok(None);
    }
    // A last block too short to compress alone goes with the one before (nbytes >= 2 bs).
    if (end * bs).min(nbytes) - first * bs < MIN_BUFFERSIZE as usize {
        first -= 1;
    }
    let sub = &raw[first * bs..(end * bs).min(nbytes)];
    // Every changed block gets its worst case of room, as in a roomy chunk.
    let sub_blocks = sub.len().div_ceil(bs);
    let room = HLEN + sub_blocks * 4 + sub_blocks * block_bound(bs);
    let made = compressor.compress_to_vec_within(sub, room)?;
    let Some(new) = Layout::read(&made) else { return Ok(None) };
    let same_params = made[..4] == kept.chunk[..4] && made[16..HLEN] == kept.chunk[16..HLEN];
    let tail = if resized { old.nblocks..old.nblocks } else { end..old.nblocks };
    let same_blocks = new.blocksize == bs || (new.nblocks == 1 && sub.len() < bs);
    if !same_params || !same_blocks || new.nblocks != end - first || first + new.nblocks + tail.len() != nblocks {
        return Ok(None);
    }

    let front = old.blocks(0..first);
    let changed = new.blocks(0..new.nblocks);
    let back = old.blocks(tail.clone());
    let data = HLEN + 4 * nblocks;
    let cbytes = data + front.len() + changed.len() + back.len();
    let limit = nbytes + MAX_OVERHEAD;
    // Not roomy: a whole compression might have given the last blocks less room. All streams
    // runs of zeros: it would have been a zeros chunk.
    if cbytes + block_bound(bs) > limit || cbytes == data + 4 * nblocks || cbytes > i32::MAX as usize {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(cbytes);
    out.extend_from_slice(&kept.chunk[..HLEN]);
    out[4..8].copy_from_slice(&(nbytes as u32).to_le_bytes());
    out[12..16].copy_from_slice(&(cbytes as u32).to_le_bytes());
    let starts = (0..first)
        .map(|j| old.start(j) - old.start(0) + data)
        .chain((0..new.nblocks).map(|k| new.start(k) - new.start(0) + data + front.len()))
        .chain(tail.map(|j| old.start(j) - old.start(end) + data + front.len() + changed.len()));
    for s in starts {
        out.extend_from_slice(&(s as u32).to_le_bytes());
    }
    out.extend_from_slice(front);
    out.extend_from_slice(changed);
    out.extend_from_slice(back);
    debug_assert_eq!(out.len(), cbytes);
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::entries::Entries;
    use crate::frame::offsets::{compress_index, index_cparams};
    use crate::test_rng::Rng;

    /// What compressing the entries whole gives.
    fn whole(e: &Entries) -> Vec<u8> {
        Compressor::new(index_cparams()).compress_to_vec(e.as_bytes()).unwrap()
    }

    /// Offsets of chunks of 40-240 bytes laid one after the other, with a special entry now
    /// and then: what a frame's index holds.
    fn frame_like(n: usize, rng: &mut Rng) -> Entries {
        let mut at = 0i64;
        (0..n)
            .map(|_| {
                if rng.below(50) == 0 {
                    return i64::MIN | (1 << 56);
                }
                at += 40 + rng.below(200) as i64;
                at
            })
            .collect()
    }

    /// One step of an edit sequence on `e`, like the frame's changes make.
    fn edit(e: &mut Entries, rng: &mut Rng) {
        let n = e.len();
        match rng.below(8) {
            0 | 1 => {
                e.replace(rng.below(n), rng.next_u64() as i64 >> 20);
            }
            2 | 3 => e.push(rng.next_u64() as i64 >> 24),
            4 => e.insert(rng.below(n + 1), 12345),
            5 => {
                e.remove(rng.below(n));
            }
            6 => {
                e.remove(n - 1);
            }
            _ => {
                let mut undo = Vec::new();
                let at = rng.below(n);
                e.shift_above(e.get(at).unwrap(), 40, at, &mut undo);
                if rng.below(2) == 0 {
                    e.restore(undo);
                }
            }
        }
    }

    /// Every chunk made from the kept one equals the whole compression, over edits of every
    /// kind, lengths crossing block boundaries (a last block of 1-3 entries among them), and
    /// rebuilding does happen.
    #[test]
    fn rebuilt_chunks_equal_whole_compressions() {
        let mut rng = Rng::new(7);
        let mut rebuilt = 0;
        for (len, steps) in [(4097, 300), (2 * 2048 + 1, 40), (20_000, 120), (150_000, 12)] {
            let mut e = frame_like(len, &mut rng);
            compress_index(&mut e).unwrap();
            assert!(e.written().is_some(), "a compressible index of {len} entries is kept");
            for _ in 0..steps {
                edit(&mut e, &mut rng);
                let kept = e.written().cloned();
                let made = compress_index(&mut e).unwrap();
                assert_eq!(made, whole(&e), "{} entries", e.len());
                let mut c = Compressor::new(index_cparams());
                if let Some(k) = kept {
                    if rebuild(&k, e.as_bytes(), &mut c).unwrap().is_some() {
                        rebuilt += 1;
                    }
                }
            }
            // Appends one at a time across a block boundary: last blocks of 1, 2, 3 entries.
            let target = (e.len().max(4096) / 2048 + 1) * 2048 - 8;
            while e.len() < target {
                e.push(rng.next_u64() as i64 >> 30);
            }
            while e.len() > target {
                e.remove(e.len() - 1);
            }
            compress_index(&mut e).unwrap();
            for _ in 0..12 {
                e.push(rng.next_u64() as i64 >> 30);
                let kept = e.written().cloned().unwrap();
                let mut c = Compressor::new(index_cparams());
                let r = rebuild(&kept, e.as_bytes(), &mut c).unwrap().expect("an append is rebuilt");
                assert_eq!(r, whole(&e), "{} entries", e.len());
                compress_index(&mut e).unwrap();
            }
        }
        assert!(rebuilt > 400, "rebuilt {rebuilt} times");
    }

    /// Indexes that barely compress (blocks of random entries among compressible ones), where
    /// a whole compression stores blocks raw or gives the last ones less than their worst
    /// case of room: whatever is rebuilt still equals the whole compression.
    #[test]
    fn barely_compressible_indexes_equal_whole_compressions() {
        let mut rng = Rng::new(3);
        for nblocks in 3..=6usize {
            for random in 0..nblocks {
                let mut e = frame_like(nblocks * 2048 - rng.below(100), &mut rng);
                let mut picked: Vec<usize> = (0..nblocks).collect();
                for _ in 0..random {
                    let b = picked.swap_remove(rng.below(picked.len()));
                    for i in b * 2048..((b + 1) * 2048).min(e.len()) {
                        e.replace(i, rng.next_u64() as i64);
                    }
                }
                compress_index(&mut e).unwrap();
                for _ in 0..30 {
                    let i = rng.below(e.len());
                    let v = if rng.below(2) == 0 { rng.next_u64() as i64 } else { i as i64 * 64 };
                    match rng.below(4) {
                        0 => {
                            e.replace(i, v);
                        }
                        1 if random + 1 == nblocks => {
                            // The last compressible block made random: the chunk no longer
                            // fits, and a whole compression stores it memcpyed.
                            let b = picked[0];
                            for i in b * 2048..((b + 1) * 2048).min(e.len()) {
                                e.replace(i, rng.next_u64() as i64);
                            }
                        }
                        1 => e.push(v),
                        _ => {
                            e.remove(e.len() - 1);
                        }
                    }
                    assert_eq!(compress_index(&mut e).unwrap(), whole(&e), "{nblocks} blocks, {random} random");
                }
            }
        }
    }

    /// An unchanged list gives the kept chunk back; a list whose chunk was not kept, or that
    /// barely compresses, is compressed whole.
    #[test]
    fn unchanged_and_incompressible_indexes() {
        let mut rng = Rng::new(11);
        let mut e = frame_like(10_000, &mut rng);
        let first = compress_index(&mut e).unwrap();
        let kept = e.written().cloned().unwrap();
        assert_eq!(rebuild(&kept, e.as_bytes(), &mut Compressor::new(index_cparams())).unwrap(), Some(first));
        // Random entries barely compress: nothing is kept, every chunk is made whole.
        let mut r: Entries = (0..10_000).map(|_| rng.next_u64() as i64).collect();
        let c = compress_index(&mut r).unwrap();
        assert_eq!(c, whole(&r));
        assert!(r.written().is_none());
        // A kept chunk that is not this list's (its length disagrees) is not reused.
        let mut other = kept.clone();
        other.len += 1;
        assert_eq!(rebuild(&other, e.as_bytes(), &mut Compressor::new(index_cparams())).unwrap(), None);
        // Nor a damaged one.
        let mut bad = kept.clone();
        bad.touched = Some(0..1);
        bad.chunk[HLEN + 4..HLEN + 8].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(rebuild(&bad, e.as_bytes(), &mut Compressor::new(index_cparams())).unwrap(), None);
        // Indexes of one block are always compressed whole.
        let mut s = frame_like(2000, &mut rng);
        compress_index(&mut s).unwrap();
        assert!(s.written().is_none());
    }
}
