//! The filter pipeline of one block: six slots applied in increasing order when compressing
//! and in decreasing order when decompressing (README_CHUNK_FORMAT.rst, `filter_codes`).

use super::header::{BITSHUFFLE, DELTA, MAX_FILTERS, NOFILTER, SHUFFLE, TRUNC_PREC};
use super::workers::SPARE_BUFS;
use crate::error::{Error, Result};
use crate::filters::{self, registry};
use crate::scratch::ScratchBuf;

/// Which buffer currently holds the block's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// The caller's input block (read-only).
    Input,
    /// The first scratch buffer.
    A,
    /// The second scratch buffer.
    B,
}

fn other(s: Slot) -> Slot {
    if s == Slot::A {
        Slot::B
    } else {
        Slot::A
    }
}

/// Scratch space for one worker: two block-sized buffers the pipeline ping-pongs between.
///
/// A buffer is only allocated when something first writes into it: a single filter
/// (shuffle before a codec, the common case) never touches `b`, an unfiltered block neither,
/// and an allocation nobody touches still costs resident memory when glibc serves it from
/// reused heap (its `calloc` then clears it).
#[derive(Default)]
pub struct Buffers {
    /// First ping-pong buffer.
    a: ScratchBuf,
    /// Second ping-pong buffer.
    b: ScratchBuf,
    /// The largest block size asked for by [`ensure`](Self::ensure).
    want: usize,
    /// Where the block starts in `a` (below [`PAGE`], a multiple of 64): set by
    /// [`place_a`](Self::place_a) for a decoder's output, 0 otherwise. Every view of `a`
    /// starts there, so the pipeline never sees it.
    shift: usize,
}

/// The span of addresses whose low bits the processor compares to tell whether a load
/// depends on an earlier store (4 KiB on x86 and ARM cores alike).
const PAGE: usize = 4096;

/// How far, modulo [`PAGE`], a decoder's output is best placed after its input (see
/// [`Buffers::place_a`]).
const DECODE_LEAD: usize = 1024;

impl Buffers {
    /// Bytes the two buffers hold.
    #[inline]
    pub fn held(&self) -> usize {
        self.a.len() + self.b.len()
    }

    /// Make both buffers able to hold `n` bytes (each allocated when first written).
    pub fn ensure(&mut self, n: usize) {
        self.want = self.want.max(n);
    }

    /// Before the first write into empty buffers: take the block buffers a call left in
    /// [`SPARE_BUFS`] (see [`Workers::park`](super::workers::Workers::park)) instead of
    /// writing fresh pages. Done here rather than at the start of every call, so that a call
    /// that needs no buffer (an unfiltered block goes straight to its destination) does not
    /// touch the shared slots: their locks cost small calls about a sixth of their time.
    fn adopt_spare(&mut self, n: usize) {
        if self.held() == 0 && self.want.max(n) > 0 {
            if let Some(spare) = SPARE_BUFS.take_kept() {
                let want = self.want.max(spare.want);
                *self = spare;
                self.want = want;
            }
        }
    }

    /// Place the block in `a` so that it starts about [`DECODE_LEAD`] bytes past `input`
    /// modulo [`PAGE`], for a decoder that writes it from the stream at `input` (read only
    /// for its address). A decoder reads its stream and writes its output at about the same
    /// pace when the stream barely compresses (the rainfall grid's LZ4HC streams, 18,427
    /// bytes for 18,636): if the output then runs a little ahead of the input or a little
    /// behind it modulo 4 KiB, loads wait on unrelated stores. Measured with liblz4's
    /// `LZ4_decompress_safe` on that stream (AMD Zen 4, 2026-12-07): 1,054-1,110 ns with the
    /// output 0-16 bytes ahead or 16-128 bytes behind, 955-970 ns at 512-2,048 bytes ahead.
    /// Where a buffer happened to lie decided it before; the reference's still does.
    pub fn place_a(&mut self, input: *const u8) {
        self.adopt_spare(0);
        // Room for any shift, so that no later growth moves the buffer.
        self.a.grow_to(self.want + PAGE);
        let base = self.a.as_ptr() as usize;
        let lead = (input as usize).wrapping_add(DECODE_LEAD).wrapping_sub(base) % PAGE;
        self.shift = lead.next_multiple_of(64) % PAGE;
    }

    /// The first `n` bytes of buffer `a` for writing.
    pub fn a_mut(&mut self, n: usize) -> &mut [u8] {
        self.adopt_spare(n);
        self.a.grow_to(self.want.max(n) + self.shift);
        &mut self.a[self.shift..self.shift + n]
    }

    /// The first `n` bytes of both buffers for writing.
    pub fn both_mut(&mut self, n: usize) -> (&mut [u8], &mut [u8]) {
        self.adopt_spare(n);
        self.a.grow_to(self.want.max(n) + self.shift);
        self.b.grow_to(self.want.max(n));
        (&mut self.a[self.shift..self.shift + n], &mut self.b[..n])
    }

    /// (source, destination) views for a step reading `from` and writing `to`.
    fn pair<'a>(&'a mut self, input: &'a [u8], from: Slot, to: Slot, n: usize) -> (&'a [u8], &'a mut [u8]) {
        self.adopt_spare(n);
        let k = self.shift;
        match to {
            Slot::A => self.a.grow_to(self.want.max(n) + k),
            Slot::B => self.b.grow_to(self.want.max(n)),
            Slot::Input => {}
        }
        match (from, to) {
            (Slot::Input, Slot::A) => (&input[..n], &mut self.a[k..k + n]),
            (Slot::Input, Slot::B) => (&input[..n], &mut self.b[..n]),
            (Slot::A, Slot::B) => (&self.a[k..k + n], &mut self.b[..n]),
            (Slot::B, Slot::A) => (&self.b[..n], &mut self.a[k..k + n]),
            _ => unreachable!("pipeline never writes into its input"),
        }
    }

    /// The first `n` bytes of the buffer `s` (the input itself for [`Slot::Input`]).
    pub fn get<'a>(&'a self, input: &'a [u8], s: Slot, n: usize) -> &'a [u8] {
        match s {
            Slot::Input => &input[..n],
            Slot::A => &self.a[self.shift..self.shift + n],
            Slot::B => &self.b[..n],
        }
    }

    /// The first `n` bytes of scratch buffer `s`, writable. Panics for [`Slot::Input`].
    pub fn get_mut(&mut self, s: Slot, n: usize) -> &mut [u8] {
        self.adopt_spare(n);
        match s {
            Slot::A => self.a.grow_to(self.want.max(n) + self.shift),
            Slot::B => self.b.grow_to(self.want.max(n)),
            Slot::Input => {}
        }
        match s {
            Slot::A => &mut self.a[self.shift..self.shift + n],
            Slot::B => &mut self.b[..n],
            Slot::Input => unreachable!("the input is read-only"),
        }
    }
}

/// Everything a pipeline step needs to know besides the data.
pub struct PipelineParams<'a> {
    /// Filter id of each slot ([`NOFILTER`] for an empty one).
    pub filters: &'a [u8; MAX_FILTERS],
    /// Meta byte of each slot's filter.
    pub filters_meta: &'a [u8; MAX_FILTERS],
    /// Bytes per item, what shuffle and delta work by.
    pub typesize: usize,
    /// Chunk format version (old bitshuffle chunks need a compatibility path).
    pub format_version: u8,
    /// Passed to user filters.
    pub call: &'a registry::FilterCallContext,
}

/// Byte-shuffle's meta is the number of byte streams (0 means one per byte of the type),
/// as in c-blosc2 3.x.
pub fn shuffle_streams(typesize: usize, meta: u8) -> usize {
    if meta == 0 {
        typesize
    } else {
        meta as usize
    }
}

/// Whether the compressing pipeline does anything at all.
pub fn forward_is_noop(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().all(|&f| f == NOFILTER)
}

/// Whether the decompressing pipeline does anything (trunc_prec needs no undoing).
pub fn backward_is_noop(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().all(|&f| f == NOFILTER || f == TRUNC_PREC)
}

/// Run the filters over `block_in` (which starts at byte `offset` of the chunk's data; `dref`
/// is the chunk's first block, delta's reference). Returns where the filtered block is.
pub fn forward(
    p: &PipelineParams<'_>,
    dref: &[u8],
    offset: usize,
    block_in: &[u8],
    n: usize,
    start: Slot,
    bufs: &mut Buffers,
) -> Result<Slot> {
    let mut cur = start;
    for i in 0..MAX_FILTERS {
        let f = p.filters[i];
        if f == NOFILTER {
            continue;
        }
        let meta = p.filters_meta[i];
        let to = other(cur);
        let (src, dst) = bufs.pair(block_in, cur, to, n);
        match f {
            SHUFFLE => filters::shuffle(shuffle_streams(p.typesize, meta), src, dst),
            BITSHUFFLE => {
                filters::bitshuffle(p.typesize, src, dst).map_err(|_| Error::FilterPipeline)?
            }
            // The first block is its own reference: it is delta-coded against the data as the
            // earlier filters left it (what its decoder sees); later blocks use the chunk's
            // original first block.
            DELTA => filters::delta_encode(if offset == 0 { src } else { dref }, offset, src, dst, p.typesize),
            TRUNC_PREC => filters::trunc_prec(meta as i8, p.typesize, src, dst)
                .map_err(|_| Error::FilterPipeline)?,
            id if id <= 31 => return Err(Error::FilterPipeline),
            id => {
                let uf = registry::find(id).ok_or(Error::FilterPipeline)?;
                if uf.forward(src, dst, meta, p.call) != 0 {
                    return Err(Error::FilterPipeline);
                }
            }
        }
        cur = to;
    }
    Ok(cur)
}

/// Undo the filters over a decoded block held in `start` (A or B). `dref` is the chunk's
/// fully decoded first block, `None` while decoding that block itself.
pub fn backward(
    p: &PipelineParams<'_>,
    offset: usize,
    n: usize,
    start: Slot,
    bufs: &mut Buffers,
    dref: Option<&[u8]>,
) -> Result<Slot> {
    let mut cur = start;
    for i in (0..MAX_FILTERS).rev() {
        let f = p.filters[i];
        if f == NOFILTER || f == TRUNC_PREC {
            continue;
        }
        let meta = p.filters_meta[i];
        if f == DELTA {
            // In place: delta decodes against the chunk's first block.
            let data = bufs.get_mut(cur, n);
            filters::delta_decode(dref.unwrap_or(&[]), offset, data, p.typesize);
            continue;
        }
        let to = other(cur);
        let (src, dst) = bufs.pair(&[], cur, to, n);
        match f {
            SHUFFLE => filters::unshuffle(shuffle_streams(p.typesize, meta), src, dst),
            BITSHUFFLE => filters::bitunshuffle(p.typesize, src, dst, p.format_version)
                .map_err(|_| Error::FilterPipeline)?,
            id if id <= 31 => return Err(Error::FilterPipeline),
            id => {
                let uf = registry::find(id).ok_or(Error::FilterPipeline)?;
                let rc = uf.backward(src, dst, meta, p.call);
                if rc != 0 {
                    return Err(Error::from_code(rc).unwrap_or(Error::FilterPipeline));
                }
            }
        }
        cur = to;
    }
    Ok(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A placed block starts [`DECODE_LEAD`] to 63 bytes more past its input modulo a page,
    /// on a 64-byte boundary of the buffer, and every view of `a` (and the bytes written
    /// through one) follows it.
    #[test]
    fn placed_block_leads_its_input() {
        let input = vec![0u8; 3 * PAGE];
        for at in [0, 1, 60, 1000, 3000, 4095, 5000] {
            let mut bufs = Buffers::default();
            bufs.ensure(1000);
            let p = input[at..].as_ptr();
            bufs.place_a(p);
            let base = bufs.a.as_ptr() as usize;
            let a = bufs.a_mut(1000);
            let lead = (a.as_ptr() as usize).wrapping_sub(p as usize) % PAGE;
            assert!((DECODE_LEAD..DECODE_LEAD + 64).contains(&lead), "input at {at}: lead {lead}");
            assert_eq!((a.as_ptr() as usize - base) % 64, 0);
            a.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
            let seen: Vec<u8> = bufs.get(&[], Slot::A, 1000).to_vec();
            assert!(seen.iter().enumerate().all(|(i, &b)| b == i as u8));
            assert_eq!(bufs.get_mut(Slot::A, 1000)[999], (999 % 256) as u8);
            let (a2, b2) = bufs.both_mut(1000);
            assert_eq!((a2[5], b2.len()), (5, 1000));
            let (src, dst) = bufs.pair(&[], Slot::A, Slot::B, 1000);
            dst.copy_from_slice(src);
            assert_eq!(bufs.get(&[], Slot::B, 1000)[200], 200);
        }
    }
}
