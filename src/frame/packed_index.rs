//! A large frame index kept as the compressed chunk it was read as, decoded one block at a
//! time when an entry is asked for.
//!
//! Decoding the whole index at open costs 8 bytes per chunk on top of the compressed chunk
//! (16 MiB for a frame of 10^6 chunks whose offsets barely compress); the reference keeps
//! only the compressed chunk and reads one entry per access. Here the last decoded block is
//! kept too, so walking the chunks in order decodes each block once.

use std::sync::Mutex;

use crate::chunk::decompress::Decompressor;
use crate::chunk::header::ChunkHeader;
use crate::chunk::DecompressParams;
use crate::error::{Error, Result};

use super::entries::Entries;
use super::offsets::decompress_index;

/// Indexes with fewer entries than this are decoded at open: small enough not to matter,
/// and cheaper to read.
pub const PACK_FROM_ENTRIES: usize = 1 << 17;

/// An index chunk of `len` entries, checked to decode completely when it was made.
pub struct PackedIndex {
    chunk: Vec<u8>,
    len: usize,
    /// Entries per decoded block.
    per_block: usize,
    cache: Mutex<Cache>,
}

/// The block decoded last, and the decoder kept for the next one.
struct Cache {
    block: Option<usize>,
    entries: Vec<i64>,
    /// The block's bytes as decoded, kept so that each block decoded does not allocate.
    raw: Vec<u8>,
    decoder: Decompressor,
}

impl Cache {
    fn new() -> Cache {
        Cache { block: None, entries: Vec::new(), raw: Vec::new(), decoder: Decompressor::new(DecompressParams::default()) }
    }
}

impl PackedIndex {
    /// Keep `chunk` (an index chunk of exactly `len` entries) after decoding every block of
    /// it once, so that a damaged index is refused here and not at some later access.
    pub fn new(chunk: Vec<u8>, len: usize) -> Result<PackedIndex> {
        let h = ChunkHeader::read(&chunk)?;
        if len.checked_mul(8) != Some(h.nbytes as usize) {
            return Err(Error::Data);
        }
        let bs = (h.blocksize.max(8) as usize) / 8;
        let idx = PackedIndex { chunk, len, per_block: bs, cache: Mutex::new(Cache::new()) };
        let mut cache = Cache::new();
        for b in 0..len.div_ceil(bs) {
            idx.decode(&mut cache, b)?;
        }
        Ok(idx)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The compressed index, as stored in the frame.
    pub fn chunk(&self) -> &[u8] {
        &self.chunk
    }

    /// Entry `n`; `None` past the end.
    pub fn get(&self, n: usize) -> Option<i64> {
        if n >= self.len {
            return None;
        }
        let (b, i) = (n / self.per_block, n % self.per_block);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.block != Some(b) {
            self.decode(&mut cache, b).ok()?;
        }
        cache.entries.get(i).copied()
    }

    /// Every entry in order, decoding each block once with a decoder of its own.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        let mut cache = Cache::new();
        (0..self.len).map_while(move |n| {
            let (b, i) = (n / self.per_block, n % self.per_block);
            if cache.block != Some(b) {
                self.decode(&mut cache, b).ok()?;
            }
            cache.entries.get(i).copied()
        })
    }

    /// Every entry, decoded into a list (to edit them).
    pub fn to_vec(&self) -> Entries {
        // One pass over the whole chunk (it decoded completely when it was made); block by
        // block only if that fails.
        decompress_index(&self.chunk, self.len).unwrap_or_else(|_| self.iter().collect())
    }

    fn decode(&self, cache: &mut Cache, b: usize) -> Result<()> {
        let first = b * self.per_block;
        let count = self.per_block.min(self.len - first);
        // Invalid until the block is decoded whole.
        cache.block = None;
        let Cache { raw, entries, decoder, .. } = &mut *cache;
        raw.resize(count * 8, 0);
        let got = decoder.get_bytes(&self.chunk, first * 8, count * 8, raw)?;
        if got != raw.len() {
            return Err(Error::Data);
        }
        entries.clear();
        entries.extend(raw.chunks_exact(8).map(|e| i64::from_le_bytes(e.try_into().expect("8 bytes"))));
        cache.block = Some(b);
        Ok(())
    }
}

impl Clone for PackedIndex {
    fn clone(&self) -> Self {
        PackedIndex { chunk: self.chunk.clone(), len: self.len, per_block: self.per_block, cache: Mutex::new(Cache::new()) }
    }
}

impl PartialEq for PackedIndex {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.chunk == other.chunk
    }
}

impl Eq for PackedIndex {}

impl std::fmt::Debug for PackedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackedIndex").field("len", &self.len).field("cbytes", &self.chunk.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::offsets::compress_index;

    #[test]
    fn entries_read_as_written_in_any_order() {
        let offs: Entries = (0..20_000i64).map(|i| i * 97 + (i % 5)).collect();
        let p = PackedIndex::new(compress_index(&mut offs.clone()).unwrap(), offs.len()).unwrap();
        assert_eq!(p.len(), offs.len());
        for n in [19_999, 0, 2047, 2048, 10_001, 5] {
            assert_eq!(p.get(n), offs.get(n), "entry {n}");
        }
        assert_eq!(p.get(20_000), None);
        assert_eq!(p.to_vec(), offs);
        assert!(p.iter().eq(offs.iter()));
        assert_eq!(p.clone(), p);
    }

    #[test]
    fn a_damaged_or_mis_sized_index_is_refused() {
        let offs: Entries = (0..5000).map(|i| i * 1_000_003 % 7919).collect();
        let good = compress_index(&mut offs.clone()).unwrap();
        assert!(PackedIndex::new(good.clone(), offs.len() + 1).is_err());
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad.truncate(last);
        assert!(PackedIndex::new(bad, offs.len()).is_err());
    }
}
