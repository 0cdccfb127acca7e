//! The index chunk of a frame (README_CFRAME_FORMAT.rst, "chunks"): one little-endian `i64`
//! per chunk, stored as a regular Blosc chunk right after the data chunks.
//!
//! A non-negative value is the chunk's position counted from the end of the frame header (or,
//! in a sparse frame, the number of its `%08X.chunk` file). A negative value (bit 63 set)
//! means the chunk is not stored: bits 56-58 of the most significant byte say what it holds
//! (1 zeros, 2 NaNs, 4 uninitialised), as in the chunk format's special values.

use crate::chunk::blocksize::NEVER_SPLIT;
use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::chunk::special::write_special;
use crate::chunk::{CompressParams, DecompressParams, Special};
use crate::error::{Error, Result};

use super::entries::Entries;
use super::index_blocks;
use super::packed_index::{PackedIndex, PACK_FROM_ENTRIES};

/// Where the data of one chunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkLocation {
    /// Stored at this offset (cframe) or in this chunk file (sframe).
    Stored(i64),
    /// Not stored: a run of this special value.
    Special(Special),
}

impl ChunkLocation {
    /// Decode one index entry.
    pub fn decode(v: i64) -> Result<ChunkLocation> {
        if v >= 0 {
            return Ok(ChunkLocation::Stored(v));
        }
        let kind = ((v as u64) >> 56) as u8 & 0x7;
        match Special::from_bits(kind) {
            Some(s @ (Special::Zero | Special::Nan | Special::Uninit)) => Ok(ChunkLocation::Special(s)),
            _ => Err(Error::Data),
        }
    }

    /// Encode as an index entry.
    pub fn encode(self) -> i64 {
        match self {
            ChunkLocation::Stored(v) => v,
            ChunkLocation::Special(s) => special_offset(s),
        }
    }
}

/// The index entry for a chunk that is a run of `kind`.
pub fn special_offset(kind: Special) -> i64 {
    ((1u64 << 63) | ((kind.bits() as u64) << 56)) as i64
}

/// If `chunk` is a zeros/NaN/uninit chunk (which frames do not store), its kind.
pub fn storable_special(chunk: &[u8]) -> Option<Special> {
    let h = ChunkHeader::read_min(chunk).ok()?;
    if !ChunkHeader::flags_say_extended(h.flags) || chunk.len() < 32 {
        return None;
    }
    match Special::from_bits((chunk[31] >> 4) & 0x7)? {
        s @ (Special::Zero | Special::Nan | Special::Uninit) => Some(s),
        _ => None,
    }
}

/// The parameters the reference compresses the index with when chunks are appended,
/// inserted, updated, deleted or reordered: BloscLZ level 5 with byte shuffle, 8-byte items,
/// 16 KiB blocks, never split. (The reference uses 4 threads; blocks are then written in
/// completion order once the index exceeds one block, i.e. beyond 2048 chunks, so only
/// smaller indexes can be byte-identical. One thread here keeps the output deterministic.)
pub fn index_cparams() -> CompressParams {
    CompressParams {
        typesize: 8,
        blocksize: 16 * 1024,
        splitmode: NEVER_SPLIT,
        nthreads: 1,
        ..CompressParams::default()
    }
}

/// Indexes of this many bytes (2^17 entries) or more are compressed with several threads.
const PARALLEL_INDEX_BYTES: usize = 1 << 20;

/// The index's compressor for `nbytes` of entries. Large indexes use the machine's cores:
/// this library's threads place blocks in order, so the chunk is the same as with one.
fn index_compressor(nbytes: usize) -> Compressor {
    let mut params = index_cparams();
    if nbytes >= PARALLEL_INDEX_BYTES {
        params.nthreads = parallel_index_threads();
    }
    Compressor::new(params)
}

/// Threads for a large index: the machine's cores, four at most.
fn parallel_index_threads() -> i16 {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) as i16
}

/// Compress an index. The chunk made last from `offsets` is reused for the blocks whose
/// entries did not change since (see [`index_blocks`](super::index_blocks)), and the new
/// one is kept for the next call.
pub fn compress_index(offsets: &mut Entries) -> Result<Vec<u8>> {
    let raw = offsets.as_bytes();
    if raw.len() > i32::MAX as usize - MAX_OVERHEAD {
        return Err(Error::TwoGbLimit);
    }
    if let Some(kept) = offsets.written() {
        let touched = kept.touched.clone().unwrap_or(0..0);
        let mut c = index_compressor(touched.len().saturating_mul(8));
        if let Some(chunk) = index_blocks::rebuild(kept, raw, &mut c)? {
            offsets.set_written(Some(chunk.clone()));
            return Ok(chunk);
        }
    }
    let chunk = index_compressor(raw.len()).compress_to_vec(raw)?;
    offsets.set_written(index_blocks::reusable(&chunk).then(|| chunk.clone()));
    Ok(chunk)
}

/// The compressed length of an index chunk at the start of `buf`, validated.
pub fn index_cbytes(buf: &[u8]) -> Result<usize> {
    let h = ChunkHeader::read_min(buf)?;
    Ok(h.cbytes as usize)
}

/// Decompress an index that must hold exactly `nchunks` entries.
pub fn decompress_index(chunk: &[u8], nchunks: usize) -> Result<Entries> {
    let want = nchunks.checked_mul(8).filter(|&n| n <= i32::MAX as usize).ok_or(Error::Data)?;
    let h = ChunkHeader::read(chunk)?;
    if h.nbytes as usize != want {
        return Err(Error::Data);
    }
    let mut raw = vec![0u8; want];
    // Large indexes (decoded whole by the first change of a frame opened with one) use the
    // machine's cores, as their compression does.
    let mut params = DecompressParams::default();
    if want >= PARALLEL_INDEX_BYTES {
        params.nthreads = parallel_index_threads();
    }
    let mut d = Decompressor::new(params);
    let n = d.decompress(chunk, &mut raw)?;
    if n != want {
        return Err(Error::Data);
    }
    Entries::from_bytes(raw).ok_or(Error::Data)
}

/// The decoded index of a frame: one entry per chunk (see [`ChunkLocation`]).
///
/// A frame filled with one special value (`blosc2_schunk_fill_special`) stores its index
/// as a single repeated-value chunk whatever its number of chunks; it is kept here as that
/// value and a count, so opening or reading such a frame costs nothing per chunk (the
/// reference reads its index lazily). Any edit turns it into a list of entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Index {
    /// `len` times `entry`, stored as the single-value chunk `stored` (kept verbatim).
    Uniform { /** Every entry. */ entry: i64, /** Entries. */ len: usize, /** Index chunk. */ stored: Vec<u8> },
    /// One stored entry per chunk.
    Dense(Entries),
    /// A large index left compressed, decoded block by block as entries are read.
    Packed(PackedIndex),
}

impl Default for Index {
    fn default() -> Self {
        Index::Dense(Entries::default())
    }
}

impl Index {
    /// Number of entries (chunks).
    pub fn len(&self) -> usize {
        match self {
            Index::Uniform { len, .. } => *len,
            Index::Dense(v) => v.len(),
            Index::Packed(p) => p.len(),
        }
    }

    /// Whether the index has no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `n` as stored ([`ChunkLocation::decode`] reads it); `None` past the end.
    pub fn get(&self, n: usize) -> Option<i64> {
        match self {
            Index::Uniform { entry, len, .. } => (n < *len).then_some(*entry),
            Index::Dense(v) => v.get(n),
            Index::Packed(p) => p.get(n),
        }
    }

    /// Every entry, in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = i64> + '_> {
        match self {
            Index::Uniform { entry, len, .. } => Box::new(std::iter::repeat_n(*entry, *len)),
            Index::Dense(v) => Box::new(v.iter()),
            Index::Packed(p) => Box::new(p.iter()),
        }
    }

    /// The distinct entries (one for a uniform index), e.g. to validate them.
    pub fn distinct_hint(&self) -> Box<dyn Iterator<Item = i64> + '_> {
        match self {
            Index::Uniform { entry, len, .. } => Box::new(std::iter::repeat_n(*entry, (*len).min(1))),
            Index::Dense(v) => Box::new(v.iter()),
            Index::Packed(p) => Box::new(p.iter()),
        }
    }

    /// The entries as a list, to edit them.
    pub fn entries_mut(&mut self) -> &mut Entries {
        match self {
            Index::Uniform { entry, len, .. } => *self = Index::Dense(Entries::repeat(*entry, *len)),
            Index::Packed(p) => *self = Index::Dense(p.to_vec()),
            Index::Dense(_) => {}
        }
        match self {
            Index::Dense(v) => v,
            Index::Uniform { .. } | Index::Packed(_) => unreachable!("made dense above"),
        }
    }

    /// A uniform index of `len` times `entry`, stored as a single-value chunk written with
    /// `params` (what the reference writes for special fills).
    pub fn uniform(entry: i64, len: usize, params: &CompressParams) -> Result<Index> {
        let nbytes = index_nbytes(len as i64)?;
        let mut stored = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
        let n = write_special(params, nbytes, Special::Value, Some(&entry.to_le_bytes()), &mut stored)?;
        stored.truncate(n);
        Ok(Index::Uniform { entry, len, stored })
    }

    /// The index chunk to store.
    pub fn compress(&mut self) -> Result<Vec<u8>> {
        match self {
            Index::Uniform { stored, .. } => Ok(stored.clone()),
            Index::Dense(v) => compress_index(v),
            Index::Packed(p) => Ok(p.chunk().to_vec()),
        }
    }
}

/// Decode an index chunk of `nchunks` entries: a repeated-value (or all-zeros) chunk stays
/// one value and a count; anything else is decompressed, but only while the entries are
/// not out of proportion with the chunk's stored size (`max_ratio`), so that a few
/// hostile bytes cannot claim gigabytes of entries. Indexes of many entries are kept
/// compressed (see [`PackedIndex`]); `chunk` is taken so that no copy of it is made.
pub fn decode_index(mut chunk: Vec<u8>, nchunks: usize, max_ratio: usize) -> Result<Index> {
    let want = nchunks.checked_mul(8).filter(|&n| n <= i32::MAX as usize).ok_or(Error::Data)?;
    let h = ChunkHeader::read(&chunk)?;
    // Every writer of frames writes 32-byte chunk headers; a 16-byte one is a damaged index
    // (whose special bits the reference still reads, and then fails on).
    if h.nbytes as usize != want
        || h.header_len() != EXTENDED_HEADER_LENGTH
        || !h.memcpyed_sizes_agree()
        || !plain_index_flags(&h)
    {
        return Err(Error::Data);
    }
    match h.special() {
        Some(Special::Zero) => return Ok(Index::Uniform { entry: 0, len: nchunks, stored: chunk.to_vec() }),
        Some(Special::Value) => {
            // The repeated value is everything after the header (cbytes - 32 bytes; writers
            // use 8). The reference reads an entry as 8 bytes of that value repeated, which
            // fails unless its width divides 8; so does this.
            let width = (h.cbytes as usize).saturating_sub(EXTENDED_HEADER_LENGTH);
            if width == 0 || 8 % width != 0 {
                return Err(Error::Data);
            }
            let value = chunk.get(EXTENDED_HEADER_LENGTH..EXTENDED_HEADER_LENGTH + width).ok_or(Error::ReadBuffer)?;
            let entry = i64::from_le_bytes(std::array::from_fn(|i| value[i % width]));
            return Ok(Index::Uniform { entry, len: nchunks, stored: chunk[..h.cbytes as usize].to_vec() });
        }
        // An "uninitialized" index says nothing of where the chunks are (decoding it writes
        // nothing, so every entry would read as offset 0: every chunk the first one). The
        // reference reads whatever its fresh buffer held and refuses the frame in practice;
        // never written by either library.
        Some(Special::Uninit) => return Err(Error::Data),
        _ => {}
    }
    if want > (h.cbytes as usize).saturating_mul(max_ratio).max(1 << 23) {
        return Err(Error::Data);
    }
    if nchunks >= PACK_FROM_ENTRIES {
        chunk.truncate(h.cbytes.max(0) as usize);
        chunk.shrink_to_fit();
        return PackedIndex::new(chunk, nchunks).map(Index::Packed);
    }
    decompress_index(&chunk, nchunks).map(Index::Dense)
}

/// Whether an index chunk's flags are ones an index can have. Indexes are written with
/// default parameters: never with a dictionary, variable-length blocks, or as a lazy chunk
/// (which only a frame-backed context can read). The reference's decoder refuses such an
/// index when it opens the frame, single-value ones included; so are they here.
fn plain_index_flags(h: &ChunkHeader) -> bool {
    !h.use_dict() && !h.vlblocks() && !(h.lazy() && h.special() == Some(Special::None))
}

/// Read entry `n` of a compressed index without decompressing all of it.
pub fn index_entry(chunk: &[u8], n: usize) -> Result<i64> {
    let h = ChunkHeader::read(chunk)?;
    let start = n.checked_mul(8).ok_or(Error::InvalidIndex)?;
    if start + 8 > h.nbytes as usize {
        return Err(Error::InvalidIndex);
    }
    let mut b = [0u8; 8];
    let mut d = Decompressor::new(DecompressParams::default());
    d.get_bytes(chunk, start, 8, &mut b)?;
    Ok(i64::from_le_bytes(b))
}

/// Offsets byte length for `nchunks` entries, as the reference's `int32` arithmetic allows.
pub fn index_nbytes(nchunks: i64) -> Result<i32> {
    nchunks
        .checked_mul(8)
        .filter(|&n| (0..=i32::MAX as i64 - MAX_OVERHEAD as i64).contains(&n))
        .map(|n| n as i32)
        .ok_or(Error::TwoGbLimit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn special_encodings() {
        assert_eq!(special_offset(Special::Zero) as u64, 0x8100_0000_0000_0000);
        assert_eq!(special_offset(Special::Nan) as u64, 0x8200_0000_0000_0000);
        assert_eq!(special_offset(Special::Uninit) as u64, 0x8400_0000_0000_0000);
        for s in [Special::Zero, Special::Nan, Special::Uninit] {
            assert_eq!(ChunkLocation::decode(special_offset(s)).unwrap(), ChunkLocation::Special(s));
        }
        assert_eq!(ChunkLocation::decode(5).unwrap(), ChunkLocation::Stored(5));
        assert_eq!(ChunkLocation::decode(special_offset(Special::Value)), Err(Error::Data));
    }

    #[test]
    fn index_matches_reference() {
        // What the reference writes for the index of a two-chunk frame (offsets 0 and 0x98).
        let want = hex(
            "05010708100000001000000030000000000000000001000000000000000000000000000000000000\
             9800000000000000",
        );
        let offs: Entries = [0, 0x98].into_iter().collect();
        assert_eq!(compress_index(&mut offs.clone()).unwrap(), want);
        assert_eq!(decompress_index(&want, 2).unwrap(), offs);
        assert_eq!(index_entry(&want, 1).unwrap(), 0x98);
        assert!(decompress_index(&want, 3).is_err());
        assert!(index_entry(&want, 2).is_err());
    }

    #[test]
    fn threads_do_not_change_a_large_index() {
        let offs: Entries = (0..300_000i64).map(|i| i * 97 + (i % 11) * 3).collect();
        let raw = offs.as_bytes();
        let mut one = vec![0u8; raw.len() + MAX_OVERHEAD];
        let n = Compressor::new(index_cparams()).compress(raw, &mut one).unwrap();
        one.truncate(n);
        assert!(raw.len() >= PARALLEL_INDEX_BYTES);
        assert_eq!(compress_index(&mut offs.clone()).unwrap(), one);
    }

    #[test]
    fn an_uninitialized_index_is_refused() {
        // Four entries' worth of an "uninitialized" special chunk: nothing tells where the
        // chunks are (found by the frame differential: we read every chunk as the first).
        let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = write_special(&index_cparams(), 32, Special::Uninit, None, &mut c).unwrap();
        c.truncate(n);
        assert_eq!(decode_index(c.clone(), 4, 1 << 20), Err(Error::Data));
        // The same size of zeros is an index: every chunk at offset 0.
        let mut z = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = write_special(&index_cparams(), 32, Special::Zero, None, &mut z).unwrap();
        z.truncate(n);
        assert_eq!(decode_index(z, 4, 1 << 20).unwrap().get(3), Some(0));
    }

    #[test]
    fn value_indexes_repeat_their_value_as_the_reference_reads_it() {
        // A single-value index is its value repeated; the value's width is cbytes - 32.
        let value_index = |value: &[u8]| {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH + value.len()];
            let mut p = index_cparams();
            p.typesize = value.len() as i32;
            let n = write_special(&p, 32, Special::Value, Some(value), &mut c).unwrap();
            c.truncate(n);
            assert_eq!(c.len(), EXTENDED_HEADER_LENGTH + value.len());
            decode_index(c, 4, 1 << 20)
        };
        assert_eq!(value_index(&0x1234i64.to_le_bytes()).unwrap().get(2), Some(0x1234));
        assert_eq!(value_index(&[0x10, 0, 0, 0]).unwrap().get(3), Some(0x10_0000_0010));
        assert_eq!(value_index(&[7]).unwrap().get(0), Some(0x0707_0707_0707_0707));
        // Widths that do not divide 8 give no entry (the reference fails to read one).
        assert_eq!(value_index(&[0u8; 16]), Err(Error::Data));
    }

    #[test]
    fn an_index_with_a_short_header_is_refused() {
        // A 16-byte-header chunk (flags without both shuffle bits) of 32 bytes, memcpyed.
        let mut c = vec![0u8; 16 + 32];
        c[0] = 2;
        c[1] = 1;
        c[2] = 0x02;
        c[3] = 8;
        c[4..8].copy_from_slice(&32i32.to_le_bytes());
        c[8..12].copy_from_slice(&32i32.to_le_bytes());
        c[12..16].copy_from_slice(&48i32.to_le_bytes());
        assert_eq!(ChunkHeader::read(&c).unwrap().header_len(), 16);
        assert_eq!(decode_index(c, 4, 1 << 20), Err(Error::Data));
    }

    #[test]
    fn big_index_round_trips() {
        let offs: Entries = (0..10_000).map(|i| i * 1234).collect();
        let c = compress_index(&mut offs.clone()).unwrap();
        assert!(c.len() < offs.len() * 8);
        assert_eq!(decompress_index(&c, offs.len()).unwrap(), offs);
        assert_eq!(index_entry(&c, 7777).unwrap(), 7777 * 1234);
    }
}
