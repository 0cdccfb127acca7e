//! A frame as a whole: header, chunk payload, index chunk and trailer, kept on a [`Storage`]
//! (README_CFRAME_FORMAT.rst). A contiguous frame keeps the chunks between the header and the
//! index; a sparse frame (README_SFRAME_FORMAT.rst) keeps only header, index and trailer in
//! `chunks.b2frame` and each chunk in its own file.
//!
//! Mutations follow the reference's layout rules so that the bytes match: a new chunk always
//! goes at the end of the payload (append and insert), deleted chunks leave their bytes in the
//! payload (and in `cbytes`), an updated chunk is rewritten in place with the rest of the
//! payload shifted, and zeros/NaN/uninit chunks are not stored but encoded in the index.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use super::entries::{Undo, UndoStep};
use super::journal;
use super::header::{FrameHeader, FrameType, HEADER_MINLEN, POS_FRAME_LEN};
use super::io::{fs_opener, KeptFile, MemStorage, Opener, RecordingSlice, Storage};
use super::offsets::{self, ChunkLocation, Index};
use super::sframe;
use super::trailer::{FrameTrailer, TRAILER_LEN_OFFSET, TRAILER_MINLEN};
use crate::chunk::decompress::LazyReader;
use crate::chunk::lazy::{needed_span, Prefetched};
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, LAZY, MEMCPYED, VL_BLOCKS};
use crate::chunk::special::write_special;
use crate::chunk::{CompressParams, Special};
use crate::error::{Error, Result};

/// Contiguous or sparse, with what each needs to find its chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// Chunks inside the frame. `path` is the file when the frame is on disk.
    Contiguous { /** The frame file; `None` in memory. */ path: Option<PathBuf> },
    /// Chunks in files of the directory `dir`.
    Sparse { /** The frame's directory. */ dir: PathBuf },
}

/// How many times its stored size an index chunk may decode to. Real indexes compress a few
/// times (hundreds of times for long runs of one special value, and single-value indexes
/// are not decoded at all); a crafted one could otherwise claim gigabytes of entries from a
/// few bytes. Indexes up to 8 MiB decoded are always accepted.
pub const MAX_INDEX_RATIO: usize = 1024;

/// An open frame. The header and trailer are kept parsed; the index is kept decoded.
pub struct Frame {
    store: Box<dyn Storage>,
    /// Where the frame starts in its storage (frames can be appended to other files).
    base: u64,
    kind: FrameKind,
    /// The current header. The owner updates the counters and calls [`Frame::commit`].
    pub header: FrameHeader,
    /// The current trailer (vlmetalayers).
    pub trailer: FrameTrailer,
    offsets: Index,
    /// Bytes of chunk payload between header and index (contiguous frames).
    payload_len: i64,
    /// Whether an index chunk is written (from the first chunk on, even if all are deleted).
    has_index: bool,
    len: i64,
    /// How the frame opens the files it needs besides its store (a sparse frame's chunk
    /// files, the frame file for lazy reads).
    files: Arc<dyn Opener>,
    /// The read handle its lazy reader keeps (made with the first lazy reader), dropped
    /// when this frame finds its file replaced, as the reference revalidates its kept
    /// handle when it reads the frame's header.
    kept: std::sync::OnceLock<Option<Arc<KeptFile>>>,
    /// The read handles kept on a sparse frame's chunk files (see [`SparseKept`]).
    sparse_kept: Arc<SparseKept>,
    /// While set, [`Frame::commit`] writes nothing: a run of appends (a copy) commits once
    /// at its end instead of rewriting (and recompressing) the whole index per chunk.
    deferred: bool,
    /// The writes of a change that goes out through the journal (see [`Frame::journaled`]),
    /// collected while it is computed.
    pending: Option<journal::Change>,
}

/// Everything [`Frame`] keeps parsed, read and validated from untrusted bytes.
struct Parsed {
    header: FrameHeader,
    trailer: FrameTrailer,
    offsets: Index,
    payload_len: i64,
    has_index: bool,
    len: i64,
}

/// Read a frame; a frame file whose header is stale (its writer stopped between the tail
/// and the header of a change, see [`Frame::commit_with_index`]) is read as the tail
/// describes it (see [`recover_stale_header`]). A frame in memory cannot have been left
/// half-written: one that does not parse is refused, as the reference refuses it.
fn parse_frame(store: &mut dyn Storage, base: u64, kind: &FrameKind) -> Result<Parsed> {
    match parse_stored(store, base, kind) {
        Ok(p) if matches!(kind, FrameKind::Contiguous { path: Some(_) }) && store.len()? > base + p.len as u64 => {
            // Bytes past the frame's end: an append may have been cut short while its chunk
            // overwrote the old index, which then parses but lists other offsets. A newer
            // index at the end of the file that lists this frame's chunks and one more is
            // the one to trust (looked for only within the size such an index can have).
            let bound = 8 * (p.offsets.len() as i64 + 1) + 2 * EXTENDED_HEADER_LENGTH as i64;
            match recover_torn_append(store, base, kind, bound) {
                Ok(t) if !same_entries(&t.offsets, &p.offsets) => Ok(t),
                _ => Ok(p),
            }
        }
        Ok(p) => Ok(p),
        Err(e) if matches!(kind, FrameKind::Contiguous { path: None }) => Err(e),
        Err(e) => recover_stale_header(store, base, kind)
            .or_else(|_| recover_torn_append(store, base, kind, TORN_INDEX_WINDOW))
            .map_err(|_| e),
    }
}

/// Whether two indexes list the same entries.
fn same_entries(a: &Index, b: &Index) -> bool {
    a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
}

/// What both recoveries read first from a frame file whose header may be stale: the
/// storage's end (relative to `base`), the header, and the trailer that ends the storage.
struct Ends {
    end: i64,
    header_len: i32,
    header: FrameHeader,
    trailer_pos: i64,
    trailer: FrameTrailer,
}

/// Read [`Ends`], refusing a header of another frame type or with a negative `cbytes`.
fn read_ends(store: &mut dyn Storage, base: u64, want_type: FrameType) -> Result<Ends> {
    let end = i64::try_from(store.len()?.checked_sub(base).ok_or(Error::ReadBuffer)?).map_err(|_| Error::InvalidHeader)?;
    if end < (HEADER_MINLEN + TRAILER_MINLEN) as i64 {
        return Err(Error::ReadBuffer);
    }
    let (header_len, _) = FrameHeader::peek_lengths(&store.read_vec(base, HEADER_MINLEN)?)?;
    if header_len as i64 > end {
        return Err(Error::InvalidHeader);
    }
    let header = FrameHeader::parse(&store.read_vec(base, header_len as usize)?)?;
    if header.frame_type != want_type || header.cbytes < 0 {
        return Err(Error::InvalidHeader);
    }
    let tail = store.read_vec(base + end as u64 - TRAILER_MINLEN as u64, TRAILER_MINLEN)?;
    let trailer_len = FrameTrailer::len_from_end(&tail, end)? as i64;
    let trailer_pos = end - trailer_len;
    let trailer = FrameTrailer::parse(&store.read_vec(base + trailer_pos as u64, trailer_len as usize)?)?;
    Ok(Ends { end, header_len, header, trailer_pos, trailer })
}

/// How many chunks a stale header may miss: an append or an insert adds one.
const RECOVERY_MAX_NEW_CHUNKS: usize = 4;

/// A frame whose writer was stopped after writing the new tail of a change (new chunk, index
/// and trailer; then the storage cut to the new end; for a sparse frame, its index file's
/// index and trailer after the new chunk file) but before writing the header: the header's counters still describe the frame before the change, while the
/// tail is complete. Rebuild the counters from the tail: the trailer ends the storage, the
/// index chunk ends where the trailer starts, and between the payload end the stale header
/// records and the index lie the chunks it does not count (at most
/// [`RECOVERY_MAX_NEW_CHUNKS`]). Everything found is validated as in [`parse_stored`];
/// anything else is an error, so a damaged frame is never read as more than its bytes say.
fn recover_stale_header(store: &mut dyn Storage, base: u64, kind: &FrameKind) -> Result<Parsed> {
    let sparse_dir = match kind {
        FrameKind::Sparse { dir } => Some(dir.clone()),
        FrameKind::Contiguous { .. } => None,
    };
    let want_type = if sparse_dir.is_some() { FrameType::Sparse } else { FrameType::Contiguous };
    let Ends { end, header_len, mut header, trailer_pos, trailer } = read_ends(store, base, want_type)?;
    // A sparse frame's index file has no payload: its index follows the header.
    let stale_payload = if sparse_dir.is_some() { 0 } else { header.cbytes };
    let mut q = (header_len as i64).checked_add(stale_payload).ok_or(Error::InvalidHeader)?;
    for _ in 0..=RECOVERY_MAX_NEW_CHUNKS {
        if q < header_len as i64 || q + EXTENDED_HEADER_LENGTH as i64 > trailer_pos {
            break;
        }
        let head = store.read_vec(base + q as u64, EXTENDED_HEADER_LENGTH)?;
        let h = ChunkHeader::read_min(&head)?;
        let cb = h.cbytes as i64;
        if cb < EXTENDED_HEADER_LENGTH as i64 {
            break;
        }
        if q + cb != trailer_pos {
            q += cb;
            continue;
        }
        // The chunk at q is the index.
        if h.nbytes <= 0 || h.nbytes % 8 != 0 {
            break;
        }
        let nchunks = (h.nbytes / 8) as usize;
        offsets::index_nbytes(nchunks as i64)?;
        let index = store.read_vec(base + q as u64, cb as usize)?;
        let offsets = offsets::decode_index(index, nchunks, MAX_INDEX_RATIO)?;
        let payload_len = q - header_len as i64;
        // A single-value index of a special kind says nothing of its last chunk's size (see
        // below): rejected before walking what can be hundreds of millions of entries.
        if let Index::Uniform { entry, .. } = &offsets {
            if matches!(ChunkLocation::decode(*entry)?, ChunkLocation::Special(_)) {
                return Err(Error::InvalidHeader);
            }
        }
        let mut nbytes = 0i64;
        let mut cbytes = 0i64;
        // Entries repeat (runs of special chunks, or forged indexes pointing every chunk at
        // one place): a repeated entry adds what the previous one added, without a read.
        let mut last: Option<(i64, i64, i64)> = None;
        for n in 0..nchunks {
            let entry = offsets.get(n).ok_or(Error::InvalidHeader)?;
            if let Some((e, nb, cb)) = last {
                if e == entry && n + 1 < nchunks {
                    nbytes = nbytes.checked_add(nb).ok_or(Error::InvalidHeader)?;
                    cbytes = cbytes.checked_add(cb).ok_or(Error::InvalidHeader)?;
                    continue;
                }
            }
            let cbytes_before = cbytes;
            let add = match ChunkLocation::decode(entry)? {
                ChunkLocation::Stored(id) if sparse_dir.is_some() => {
                    let dir = sparse_dir.as_deref().expect("sparse");
                    let ch = sframe::read_chunk_part(&*fs_opener(), dir, id, 0, EXTENDED_HEADER_LENGTH)?;
                    let h = ChunkHeader::read_min(&ch)?;
                    cbytes += h.cbytes as i64;
                    h.nbytes as i64
                }
                ChunkLocation::Stored(off) => {
                    if off < 0 || off > payload_len - EXTENDED_HEADER_LENGTH as i64 {
                        return Err(Error::InvalidHeader);
                    }
                    let ch = store.read_vec(base + header_len as u64 + off as u64, EXTENDED_HEADER_LENGTH)?;
                    ChunkHeader::read_min(&ch)?.nbytes as i64
                }
                // An unstored special chunk has the chunk size (a smaller last one cannot be
                // told from the index alone).
                ChunkLocation::Special(_) if header.chunksize > 0 && n + 1 < nchunks => header.chunksize as i64,
                ChunkLocation::Special(_) => return Err(Error::InvalidHeader),
            };
            nbytes = nbytes.checked_add(add).ok_or(Error::InvalidHeader)?;
            last = Some((entry, add, cbytes - cbytes_before));
        }
        if header.chunksize > 0 {
            let cs = header.chunksize as i64;
            if nbytes / cs + i64::from(nbytes % cs != 0) != nchunks as i64 {
                return Err(Error::InvalidHeader);
            }
        }
        header.cbytes = if sparse_dir.is_some() { cbytes } else { payload_len };
        header.nbytes = nbytes;
        header.frame_len = end;
        return Ok(Parsed { header, trailer, offsets, payload_len, has_index: true, len: end });
    }
    Err(Error::InvalidHeader)
}

/// How far before the trailer [`recover_torn_append`] looks for the index: the index of the
/// largest frame it recovers (2^20 chunks, 8 MiB of entries, as many bytes plus a header
/// when stored uncompressed).
const TORN_INDEX_WINDOW: i64 = (8 << 20) + 64;

/// An append (or insert) cut short in the middle of writing its chunk over the old index
/// and trailer: Linux stops a `write` of several pages between two of them when the writer
/// gets a fatal signal, so the frame holds neither the old tail nor the whole chunk (the
/// frame's header, written last, is the old one; the chunk's header, written after its
/// payload, is still the old index's). The new index and trailer, written first past
/// the old end, are complete: the index lists every old chunk and the new one, whose offset
/// is where the old payload ended. Dropping that entry gives the old index back, checked
/// against the old header's counters, and the frame reads as it was before the change (the
/// next change rewrites its tail). The index is found backwards from the trailer, as the
/// chunk header whose `cbytes` ends there. Contiguous frame files only (a sparse frame's
/// chunks are files of their own).
fn recover_torn_append(store: &mut dyn Storage, base: u64, kind: &FrameKind, window_max: i64) -> Result<Parsed> {
    if !matches!(kind, FrameKind::Contiguous { .. }) {
        return Err(Error::InvalidHeader);
    }
    let Ends { header_len, header, trailer_pos, trailer, .. } = read_ends(store, base, FrameType::Contiguous)?;
    if header.nbytes < 0 {
        return Err(Error::InvalidHeader);
    }
    let old_payload = if header.nbytes == 0 { 0 } else { header.cbytes };
    // The new chunk starts where the old payload ended; the index follows it.
    let chunk_pos = (header_len as i64).checked_add(old_payload).ok_or(Error::InvalidHeader)?;
    let first = (chunk_pos + EXTENDED_HEADER_LENGTH as i64).max(trailer_pos - window_max.min(TORN_INDEX_WINDOW));
    let last = trailer_pos - EXTENDED_HEADER_LENGTH as i64;
    if first > last {
        return Err(Error::InvalidHeader);
    }
    let window = store.read_vec(base + first as u64, (trailer_pos - first) as usize)?;
    let field = |at: usize| i32::from_le_bytes(window[at..at + 4].try_into().expect("4 bytes"));
    for q in (first..=last).rev() {
        let at = (q - first) as usize;
        // A chunk header: nbytes at 4, cbytes at 12.
        let (nb, cb) = (field(at + 4), field(at + 12));
        if cb as i64 != trailer_pos - q || nb < 8 || nb % 8 != 0 {
            continue;
        }
        match torn_append_index(store, base, (&header, header_len, &trailer), old_payload, &window[at..], nb as usize / 8) {
            Ok(p) => return Ok(p),
            Err(_) => continue,
        }
    }
    Err(Error::InvalidHeader)
}

/// [`recover_torn_append`]'s check of one candidate index (`index`, `nchunks` entries): one
/// entry is the new chunk at the old payload's end, the others are the old chunks, inside
/// the old payload and adding up to the old header's `nbytes`.
fn torn_append_index(
    store: &mut dyn Storage,
    base: u64,
    (header, header_len, trailer): (&FrameHeader, i32, &FrameTrailer),
    old_payload: i64,
    index: &[u8],
    nchunks: usize,
) -> Result<Parsed> {
    offsets::index_nbytes(nchunks as i64)?;
    let offsets = offsets::decode_index(index.to_vec(), nchunks, MAX_INDEX_RATIO)?;
    let mut kept = Vec::with_capacity((nchunks - 1) * 8);
    let (mut dropped, mut nbytes) = (0usize, 0i64);
    for n in 0..nchunks {
        let entry = offsets.get(n).ok_or(Error::InvalidHeader)?;
        if entry == old_payload && dropped == 0 {
            dropped = 1;
            continue;
        }
        let add = match ChunkLocation::decode(entry)? {
            ChunkLocation::Stored(off) => {
                if off < 0 || off > old_payload - EXTENDED_HEADER_LENGTH as i64 {
                    return Err(Error::InvalidHeader);
                }
                let ch = store.read_vec(base + header_len as u64 + off as u64, EXTENDED_HEADER_LENGTH)?;
                let h = ChunkHeader::read_min(&ch)?;
                if off + h.cbytes as i64 > old_payload {
                    return Err(Error::InvalidHeader);
                }
                h.nbytes as i64
            }
            // An unstored special chunk has the chunk size (a smaller last one is refused
            // by the sum below).
            ChunkLocation::Special(_) if header.chunksize > 0 => header.chunksize as i64,
            ChunkLocation::Special(_) => return Err(Error::InvalidHeader),
        };
        nbytes = nbytes.checked_add(add).ok_or(Error::InvalidHeader)?;
        kept.extend_from_slice(&entry.to_le_bytes());
    }
    if dropped != 1 || nbytes != header.nbytes {
        return Err(Error::InvalidHeader);
    }
    let entries = super::entries::Entries::from_bytes(kept).ok_or(Error::InvalidHeader)?;
    Ok(Parsed {
        header: header.clone(),
        trailer: trailer.clone(),
        has_index: !entries.is_empty(),
        offsets: Index::Dense(entries),
        payload_len: old_payload,
        len: header.frame_len,
    })
}

fn parse_stored(store: &mut dyn Storage, base: u64, kind: &FrameKind) -> Result<Parsed> {
    let avail = store.len()?.checked_sub(base).ok_or(Error::ReadBuffer)?;
    if avail < (HEADER_MINLEN + TRAILER_MINLEN) as u64 {
        return Err(Error::ReadBuffer);
    }
    let fixed = store.read_vec(base, HEADER_MINLEN)?;
    let (header_len, frame_len) = FrameHeader::peek_lengths(&fixed)?;
    if frame_len as u64 > avail || frame_len < (HEADER_MINLEN + TRAILER_MINLEN) as i64 {
        return Err(Error::InvalidHeader);
    }
    let hbytes = store.read_vec(base, header_len as usize)?;
    let header = FrameHeader::parse(&hbytes)?;
    let want_type = match kind {
        FrameKind::Contiguous { .. } => FrameType::Contiguous,
        FrameKind::Sparse { .. } => FrameType::Sparse,
    };
    if header.frame_type != want_type {
        return Err(Error::FrameType);
    }
    let tail = store.read_vec(base + frame_len as u64 - TRAILER_MINLEN as u64, TRAILER_MINLEN)?;
    let trailer_len = FrameTrailer::len_from_end(&tail, frame_len)? as i64;
    let trailer_pos = frame_len - trailer_len;
    if trailer_pos < header_len as i64 {
        return Err(Error::InvalidHeader);
    }
    let trailer = FrameTrailer::parse(&store.read_vec(base + trailer_pos as u64, trailer_len as usize)?)?;
    let sparse = matches!(kind, FrameKind::Sparse { .. });
    // A frame without chunks (nbytes 0, as the reference counts them) has no payload to
    // read: the reference drops it when the last chunk goes, but leaves the header's cbytes
    // as it was (and reads the trailer right after the header).
    let payload_len = if sparse || header.nbytes == 0 { 0 } else { header.cbytes };
    let index_pos = (header_len as i64).checked_add(payload_len).ok_or(Error::InvalidHeader)?;
    if index_pos > trailer_pos {
        return Err(Error::InvalidHeader);
    }
    let has_index = trailer_pos - index_pos >= EXTENDED_HEADER_LENGTH as i64;
    let index = if has_index {
        store.read_vec(base + index_pos as u64, (trailer_pos - index_pos) as usize)?
    } else {
        Vec::new()
    };
    let nchunks = if header.nbytes > 0 {
        if header.chunksize > 0 {
            let cs = header.chunksize as i64;
            let n = header.nbytes / cs + i64::from(header.nbytes % cs != 0);
            if !has_index {
                return Err(Error::InvalidHeader);
            }
            n
        } else if header.chunksize == 0 {
            if !has_index {
                return Err(Error::InvalidHeader);
            }
            let h = ChunkHeader::read_min(&index)?;
            if h.nbytes % 8 != 0 {
                return Err(Error::InvalidHeader);
            }
            (h.nbytes / 8) as i64
        } else {
            return Err(Error::InvalidHeader);
        }
    } else {
        0
    };
    let offsets = if nchunks > 0 {
        offsets::index_nbytes(nchunks)?;
        let cb = offsets::index_cbytes(&index)?;
        if cb > index.len() {
            return Err(Error::InvalidHeader);
        }
        offsets::decode_index(index, nchunks as usize, MAX_INDEX_RATIO)?
    } else {
        Index::default()
    };
    for o in offsets.distinct_hint() {
        if let ChunkLocation::Stored(off) = ChunkLocation::decode(o)? {
            if !sparse && off > payload_len - EXTENDED_HEADER_LENGTH as i64 {
                return Err(Error::InvalidHeader);
            }
        }
    }
    Ok(Parsed { header, trailer, offsets, payload_len, has_index, len: frame_len })
}

/// A compressed chunk's `(nbytes, cbytes)`, validated.
pub fn chunk_sizes(chunk: &[u8]) -> Result<(i32, i32)> {
    let h = ChunkHeader::read_min(chunk)?;
    if (h.cbytes as usize) > chunk.len() {
        return Err(Error::ReadBuffer);
    }
    Ok((h.nbytes, h.cbytes))
}

impl Frame {
    /// Where the frame starts in its storage (non-zero for frames appended to a file).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Write a new frame with no chunks at `base` of `store`.
    pub fn create(
        store: Box<dyn Storage>,
        base: u64,
        kind: FrameKind,
        mut header: FrameHeader,
        trailer: FrameTrailer,
    ) -> Result<Frame> {
        header.frame_type = match kind {
            FrameKind::Contiguous { .. } => FrameType::Contiguous,
            FrameKind::Sparse { .. } => FrameType::Sparse,
        };
        header.cbytes = 0;
        header.nbytes = 0;
        let mut f = Frame {
            store,
            base,
            kind,
            header,
            trailer,
            offsets: Index::default(),
            payload_len: 0,
            has_index: false,
            len: 0,
            files: fs_opener(),
            kept: Default::default(),
            sparse_kept: Default::default(),
            deferred: false,
            pending: None,
        };
        f.commit()?;
        Ok(f)
    }

    /// Open an existing frame at `base` of `store`, validating everything read.
    pub fn open(mut store: Box<dyn Storage>, base: u64, kind: FrameKind) -> Result<Frame> {
        if !matches!(kind, FrameKind::Contiguous { path: None }) {
            // A change whose writer stopped half-way is finished first.
            journal::recover(&mut *store)?;
        }
        let p = parse_frame(&mut *store, base, &kind)?;
        Ok(Frame::from_parsed(store, base, kind, p))
    }

    /// Open an in-memory frame from borrowed bytes for a caller that reads the chunks from
    /// those bytes itself ([`Frame::chunks_in`]): only what parsing read (header, index,
    /// trailer) is copied into the frame's own storage, the rest of which reads as zeros.
    /// Its pages are never written, so they cost no memory and no page faults: copying a
    /// whole 97 MB frame of 10^6 small chunks took 87 ms on this project's VM, most of it
    /// faulting pages in.
    pub fn open_skeleton(bytes: &[u8]) -> Result<Frame> {
        let kind = FrameKind::Contiguous { path: None };
        let mut rec = RecordingSlice::new(bytes);
        let p = parse_frame(&mut rec, 0, &kind)?;
        // `vec![0; n]` asks for zeroed memory: large sizes come straight from the kernel.
        let mut copy = vec![0u8; bytes.len()];
        for &(start, end) in rec.ranges() {
            copy[start..end].copy_from_slice(&bytes[start..end]);
        }
        Ok(Frame::from_parsed(Box::new(MemStorage::new(copy)), 0, kind, p))
    }

    fn from_parsed(store: Box<dyn Storage>, base: u64, kind: FrameKind, p: Parsed) -> Frame {
        Frame {
            store,
            base,
            kind,
            header: p.header,
            trailer: p.trailer,
            offsets: p.offsets,
            payload_len: p.payload_len,
            has_index: p.has_index,
            len: p.len,
            files: fs_opener(),
            kept: Default::default(),
            sparse_kept: Default::default(),
            deferred: false,
            pending: None,
        }
    }

    /// Open the frame's other files (chunk files, lazy reads) through `files` instead of
    /// `std::fs`.
    pub fn set_opener(&mut self, files: Arc<dyn Opener>) {
        self.files = files;
        self.kept = Default::default();
        self.sparse_kept = Default::default();
    }

    /// Reopen the store when the file at its path was replaced (see
    /// [`Storage::follow_path`]); `true` when it was.
    pub fn follow_path(&mut self) -> bool {
        let replaced = self.store.follow_path();
        if replaced {
            if let Some(Some(k)) = self.kept.get() {
                k.revalidate();
            }
        }
        replaced
    }

    /// Re-read header, trailer and index from the storage, to follow changes another handle
    /// (or process) made. On error the frame keeps its previous state.
    pub fn reload(&mut self) -> Result<()> {
        if !matches!(self.kind, FrameKind::Contiguous { path: None }) {
            // Another writer stopped half-way through a journaled change: finish it if this
            // handle may write (a read-only one then reads what is there, as before).
            let _ = journal::recover(&mut *self.store);
        }
        let p = parse_frame(&mut *self.store, self.base, &self.kind)?;
        self.header = p.header;
        self.trailer = p.trailer;
        self.offsets = p.offsets;
        self.payload_len = p.payload_len;
        self.has_index = p.has_index;
        self.len = p.len;
        Ok(())
    }

    /// The frame length its header records now (a small read): a cheap way to notice that
    /// another handle changed the frame.
    pub fn stored_len(&mut self) -> Result<i64> {
        let fixed = self.store.read_vec(self.base, HEADER_MINLEN)?;
        Ok(FrameHeader::peek_lengths(&fixed)?.1)
    }

    /// Contiguous or sparse, with the path of its file or directory.
    pub fn kind(&self) -> &FrameKind {
        &self.kind
    }

    /// Whether the chunks are files in a directory (a sparse frame).
    pub fn is_sparse(&self) -> bool {
        matches!(self.kind, FrameKind::Sparse { .. })
    }

    /// Length of the whole frame in bytes.
    pub fn len(&self) -> i64 {
        self.len
    }

    /// Whether the frame holds no chunk.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Number of chunks, special (unstored) ones included.
    pub fn nchunks(&self) -> usize {
        self.offsets.len()
    }

    /// The decoded index (entries as stored).
    pub fn offsets(&self) -> &Index {
        &self.offsets
    }

    /// Bytes of chunk payload (contiguous frames; 0 for sparse ones).
    pub fn payload_len(&self) -> i64 {
        self.payload_len
    }

    /// Where the payload starts in the frame's storage.
    pub fn payload_pos(&self) -> u64 {
        self.chunk_pos(0)
    }

    /// The file or buffer the frame (or, if sparse, its `chunks.b2frame`) is read from and
    /// written to.
    pub fn storage(&mut self) -> &mut dyn Storage {
        self.store.as_mut()
    }

    /// Give back the storage (e.g. the `Vec` of an in-memory frame).
    pub fn into_storage(self) -> Box<dyn Storage> {
        self.store
    }

    /// The whole frame as bytes (borrowed for in-memory frames).
    pub fn to_bytes(&mut self) -> Result<Cow<'_, [u8]>> {
        let (base, len) = (self.base as usize, self.len as usize);
        if self.store.as_slice().is_some() {
            let s = self.store.as_slice().expect("in memory");
            return s.get(base..base + len).map(Cow::Borrowed).ok_or(Error::ReadBuffer);
        }
        Ok(Cow::Owned(self.store.read_vec(self.base, len)?))
    }

    /// Where chunk `n` is.
    pub fn location(&self, n: usize) -> Result<ChunkLocation> {
        let o = self.offsets.get(n).ok_or(Error::InvalidIndex)?;
        ChunkLocation::decode(o)
    }

    /// Uncompressed size of chunk `n` when the index alone says it (special chunks): the
    /// chunk size, or the remainder for the last chunk.
    fn special_nbytes(&self, n: usize) -> Result<i32> {
        let cs = self.header.chunksize;
        if cs <= 0 {
            // A variable-size frame has no way to tell the size of an unstored chunk (the
            // reference divides by zero here).
            return Err(Error::FrameSpecial);
        }
        let rem = self.header.nbytes % cs as i64;
        if n + 1 == self.offsets.len() && rem != 0 {
            Ok(rem as i32)
        } else {
            Ok(cs)
        }
    }

    /// Build the 32-byte chunk an unstored special chunk stands for.
    fn special_chunk(&self, n: usize, kind: Special) -> Result<Vec<u8>> {
        let nbytes = self.special_nbytes(n)?;
        let params = CompressParams {
            typesize: self.header.typesize,
            blocksize: self.header.blocksize,
            ..CompressParams::default()
        };
        let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
        let len = write_special(&params, nbytes, kind, None, &mut out)?;
        out.truncate(len);
        Ok(out)
    }

    fn chunk_pos(&self, off: i64) -> u64 {
        self.base + self.header.header_len as u64 + off as u64
    }

    /// The compressed chunk `n` (borrowed when the frame is in memory).
    pub fn chunk(&mut self, n: usize) -> Result<Cow<'_, [u8]>> {
        match self.location(n)? {
            ChunkLocation::Special(kind) => Ok(Cow::Owned(self.special_chunk(n, kind)?)),
            ChunkLocation::Stored(id) if self.is_sparse() => {
                let FrameKind::Sparse { dir } = &self.kind else { unreachable!() };
                let c = sframe::read_chunk(&*self.files, dir, id)?;
                chunk_sizes(&c)?;
                Ok(Cow::Owned(c))
            }
            ChunkLocation::Stored(off) => {
                if self.store.as_slice().is_none() {
                    let pos = self.chunk_pos(off);
                    let head = self.store.read_vec(pos, EXTENDED_HEADER_LENGTH)?;
                    let cb = self.stored_chunk_len(off, &head)?;
                    return Ok(Cow::Owned(self.store.read_vec(pos, cb)?));
                }
                // In memory the chunk is borrowed, its header read in place.
                let s = self.store.as_slice().expect("in memory");
                self.stored_chunk_in(s, off).map(Cow::Borrowed)
            }
        }
    }

    /// The chunks of a contiguous frame whose bytes are `bytes`, in order (this frame's
    /// storage may hold only their header, index and trailer: see
    /// [`Frame::open_skeleton`]). The index is walked once, not looked up per chunk.
    pub fn chunks_in<'b>(&'b self, bytes: &'b [u8]) -> impl Iterator<Item = Result<Cow<'b, [u8]>>> + 'b {
        let mut entries = self.offsets.iter();
        (0..self.nchunks()).map(move |n| {
            // (A packed index block that fails to decode ends the entries early.)
            let entry = entries.next().ok_or(Error::InvalidIndex)?;
            match ChunkLocation::decode(entry)? {
                ChunkLocation::Special(kind) => Ok(Cow::Owned(self.special_chunk(n, kind)?)),
                ChunkLocation::Stored(_) if self.is_sparse() => Err(Error::InvalidParam),
                ChunkLocation::Stored(off) => self.stored_chunk_in(bytes, off).map(Cow::Borrowed),
            }
        })
    }

    /// The stored chunk at payload offset `off` in the frame bytes `bytes`.
    fn stored_chunk_in<'b>(&self, bytes: &'b [u8], off: i64) -> Result<&'b [u8]> {
        let at = usize::try_from(self.chunk_pos(off)).map_err(|_| Error::ReadBuffer)?;
        let head = bytes.get(at..).ok_or(Error::ReadBuffer)?;
        let cb = self.stored_chunk_len(off, head)?;
        head.get(..cb).ok_or(Error::ReadBuffer)
    }

    /// Length of the stored chunk at payload offset `off` whose bytes start `head`, checked
    /// to lie within the payload.
    fn stored_chunk_len(&self, off: i64, head: &[u8]) -> Result<usize> {
        let cb = ChunkHeader::read_min(head)?.cbytes as i64;
        if cb < EXTENDED_HEADER_LENGTH as i64 || off + cb > self.payload_len {
            return Err(Error::InvalidHeader);
        }
        Ok(cb as usize)
    }

    /// Uncompressed size of chunk `n`.
    pub fn chunk_nbytes(&mut self, n: usize) -> Result<i32> {
        match self.location(n)? {
            ChunkLocation::Special(_) => self.special_nbytes(n),
            ChunkLocation::Stored(off) if !self.is_sparse() => {
                let head = self.store.read_vec(self.chunk_pos(off), EXTENDED_HEADER_LENGTH)?;
                Ok(ChunkHeader::read_min(&head)?.nbytes)
            }
            ChunkLocation::Stored(_) => Ok(chunk_sizes(&self.chunk(n)?)?.0),
        }
    }

    /// A "lazy" chunk: header and block starts only, marked lazy, plus a trailer with the
    /// chunk number, its position and each block's compressed size, so that
    /// [`LazyReader`] can fetch blocks on demand (README_CHUNK_FORMAT.rst, lazy chunks).
    /// In-memory frames return the chunk itself; special chunks are returned whole.
    pub fn lazy_chunk(&mut self, n: usize) -> Result<Cow<'_, [u8]>> {
        let loc = self.location(n)?;
        let off = match loc {
            ChunkLocation::Special(_) => return self.chunk(n),
            ChunkLocation::Stored(off) => off,
        };
        if self.store.as_slice().is_some() && !self.is_sparse() {
            return self.chunk(n);
        }
        if self.is_sparse() {
            // A new lazy chunk reads the chunk file now at its path, not one replaced since
            // a handle was kept on it.
            self.sparse_kept.revalidate(off);
        }
        let head = match &self.kind {
            FrameKind::Sparse { dir } => self.sparse_kept.read(&*self.files, dir, off, 0, EXTENDED_HEADER_LENGTH)?,
            FrameKind::Contiguous { .. } => self.store.read_vec(self.chunk_pos(off), EXTENDED_HEADER_LENGTH)?,
        };
        let h = ChunkHeader::read(&head)?;
        let cbytes = h.cbytes as usize;
        if !h.extended || cbytes < EXTENDED_HEADER_LENGTH {
            return Err(Error::InvalidHeader);
        }
        if !self.is_sparse() && off + cbytes as i64 > self.payload_len {
            return Err(Error::InvalidHeader);
        }
        let special = h.special().ok_or(Error::InvalidHeader)?;
        let nblocks = if h.blosc2_flags2 & VL_BLOCKS != 0 {
            h.blocksize as usize
        } else {
            (h.nbytes as usize).div_ceil(h.blocksize as usize)
        };
        let memcpyed = h.flags & MEMCPYED != 0;
        // A memcpyed chunk stores its nbytes right after the header, so its (virtual)
        // block-starts table and trailer, built below from nbytes, stay within a few times
        // cbytes; a header claiming more is damaged (it asked for gigabytes of trailer).
        if special == Special::None && memcpyed && h.nbytes as i64 + EXTENDED_HEADER_LENGTH as i64 != cbytes as i64 {
            return Err(Error::InvalidHeader);
        }
        let read_len = match special {
            Special::None if !memcpyed => EXTENDED_HEADER_LENGTH + 4 * nblocks,
            Special::None => EXTENDED_HEADER_LENGTH,
            // The whole chunk: the value is cbytes - 32 wide (the typesize byte is 1 for
            // values over 255 bytes).
            Special::Value => cbytes,
            _ => return Err(Error::InvalidHeader),
        };
        if read_len > cbytes || nblocks == 0 {
            return Err(Error::InvalidHeader);
        }
        let mut chunk = match &self.kind {
            FrameKind::Sparse { dir } => self.sparse_kept.read(&*self.files, dir, off, 0, read_len)?,
            FrameKind::Contiguous { .. } => self.store.read_vec(self.chunk_pos(off), read_len)?,
        };
        if special == Special::Value {
            return Ok(Cow::Owned(chunk));
        }
        if memcpyed {
            // No block starts are stored; the trailer still goes after a (virtual) bstarts.
            chunk.resize(EXTENDED_HEADER_LENGTH + 4 * nblocks, 0);
        }
        chunk[31] |= LAZY;
        let (nchunk_field, pos_field) =
            if self.is_sparse() { (off as i32, off) } else { (n as i32, self.header.header_len as i64 + off) };
        chunk.extend_from_slice(&nchunk_field.to_le_bytes());
        chunk.extend_from_slice(&pos_field.to_le_bytes());
        let mut csizes = vec![0i32; nblocks];
        if memcpyed {
            let bs = h.blocksize;
            let left = h.nbytes % bs;
            csizes.iter_mut().for_each(|c| *c = bs);
            if left != 0 {
                csizes[nblocks - 1] = left;
            }
        } else {
            // Blocks may be stored out of order (multi-threaded writers): sort the starts.
            let mut starts: Vec<(i32, usize)> = (0..nblocks)
                .map(|j| {
                    let b = &chunk[EXTENDED_HEADER_LENGTH + 4 * j..EXTENDED_HEADER_LENGTH + 4 * j + 4];
                    (i32::from_le_bytes(b.try_into().expect("4 bytes")), j)
                })
                .collect();
            starts.sort();
            for k in 0..nblocks {
                let end = if k + 1 < nblocks { starts[k + 1].0 } else { cbytes as i32 };
                csizes[starts[k].1] = end.wrapping_sub(starts[k].0);
            }
        }
        for c in csizes {
            chunk.extend_from_slice(&c.to_le_bytes());
        }
        Ok(Cow::Owned(chunk))
    }

    /// Read ahead, in one go, the bytes of the lazy chunk `lazy` (from
    /// [`lazy_chunk`](Self::lazy_chunk)) that hold the blocks marked in `needed`, instead of
    /// one read per block while decoding (chunks over `max_nbytes` uncompressed bytes are
    /// left alone). `None` when there is nothing to read ahead or the read fails (the blocks
    /// are then read one by one as usual, and fail as usual).
    pub fn read_ahead(&mut self, lazy: &[u8], needed: &[bool], max_nbytes: usize) -> Option<Prefetched> {
        let (nchunk, chunk_offset, lo, hi) = needed_span(lazy, needed, max_nbytes)?;
        let len = usize::try_from(hi - lo).ok()?;
        let bytes = match &self.kind {
            FrameKind::Contiguous { path: Some(_) } => {
                let pos = lazy_block_position(self.base, chunk_offset, lo).ok()?;
                self.store.read_vec(pos, len).ok()?
            }
            FrameKind::Sparse { dir } => self.sparse_kept.read(&*self.files, dir, nchunk as i64, lo as u64, len).ok()?,
            FrameKind::Contiguous { path: None } => return None,
        };
        Some(Prefetched { nchunk, chunk_offset, start: lo, bytes, fallback: None })
    }

    /// A reader for the blocks of lazy chunks of this frame, when it is on disk.
    pub fn lazy_reader(&self) -> Option<Arc<dyn LazyReader>> {
        match &self.kind {
            FrameKind::Contiguous { path: Some(p) } => {
                let kept = self.kept.get_or_init(|| self.files.kept_reader(p).map(Arc::new)).clone();
                Some(Arc::new(FileLazyReader { path: p.clone(), base: self.base, files: self.files.clone(), kept }))
            }
            FrameKind::Sparse { dir } => Some(Arc::new(SparseLazyReader {
                dir: dir.clone(),
                files: self.files.clone(),
                kept: self.sparse_kept.clone(),
            })),
            FrameKind::Contiguous { path: None } => None,
        }
    }

    fn next_sparse_id(&self) -> i64 {
        self.offsets.iter().filter(|&o| o >= 0).max().map_or(0, |m| m + 1)
    }

    /// Store `chunk` at the end (payload end or a new chunk file) and return its index entry.
    fn store_new(&mut self, chunk: &[u8]) -> Result<i64> {
        if let Some(s) = offsets::storable_special(chunk) {
            return Ok(offsets::special_offset(s));
        }
        let (_, cbytes) = chunk_sizes(chunk)?;
        let chunk = &chunk[..cbytes as usize];
        match &self.kind {
            FrameKind::Sparse { dir } => {
                let id = self.next_sparse_id();
                sframe::write_chunk(&*self.files, dir, id, chunk)?;
                Ok(id)
            }
            FrameKind::Contiguous { .. } => {
                let off = self.payload_len;
                let pos = self.chunk_pos(off);
                self.put(pos, chunk)?;
                self.payload_len += cbytes as i64;
                Ok(off)
            }
        }
    }

    /// Write `data` at `pos` of the store, or collect it for the journal during a
    /// journaled change.
    fn put(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        match &mut self.pending {
            Some(c) => {
                c.writes.push((pos, journal::Segment::Bytes(data.to_vec())));
                Ok(())
            }
            None => self.store.write_at(pos, data),
        }
    }

    /// Move the `len` bytes at `from` to `to` (a stretch of payload shifted), or note the
    /// move for the journal during a journaled change. Either way the bytes go through a
    /// buffer of a fixed size, never whole through memory.
    fn put_moved(&mut self, to: u64, from: u64, len: u64) -> Result<()> {
        // The lengths come from the frame: refuse a stretch past the end before anything
        // is written, as reading it whole did.
        if from.checked_add(len).is_none_or(|end| end > self.store.len().unwrap_or(0)) {
            return Err(if self.store.as_slice().is_some() { Error::ReadBuffer } else { Error::FileRead });
        }
        match &mut self.pending {
            Some(c) => {
                c.writes.push((to, journal::Segment::Moved { from, len }));
                Ok(())
            }
            None => self.store.copy_within(from, to, len, &mut Vec::new()),
        }
    }

    /// Cut the store at `len` (at the end of a journaled change).
    fn cut(&mut self, len: u64) -> Result<()> {
        match &mut self.pending {
            Some(c) => {
                c.final_len = len;
                Ok(())
            }
            None if self.store.len()? != len => self.store.truncate(len),
            None => Ok(()),
        }
    }

    /// Whether changes that overwrite live bytes go through the journal: frame files whose
    /// frame ends the file (the record goes after it; a frame followed by others in its
    /// file is changed in place, as before), and the index files of sparse frames.
    fn journal_applies(&mut self) -> Result<bool> {
        if self.deferred || matches!(self.kind, FrameKind::Contiguous { path: None }) {
            return Ok(false);
        }
        Ok(self.store.len()? == self.base + self.len as u64)
    }

    /// Run the change `f` with its writes collected, then write them through the journal
    /// (see [`journal`]): a writer stopped at any point leaves the old frame or, at the next
    /// open, the new one. When the change fails before anything is written, the frame keeps
    /// its state: `f` records in the list it is given the old value of every index entry it
    /// changes (a whole copy of a large index, taken beforehand, cost as much as compressing
    /// it).
    fn journaled(&mut self, f: impl FnOnce(&mut Frame, &mut Undo) -> Result<()>) -> Result<()> {
        if self.pending.is_some() || !self.journal_applies()? {
            return self.undone_on_error(f);
        }
        let mut undo = Vec::new();
        let saved = (self.header.clone(), self.trailer.clone(), self.payload_len, self.has_index, self.len);
        let old_end = self.store.len()?;
        self.pending = Some(journal::Change { writes: Vec::new(), final_len: old_end });
        let r = f(self, &mut undo);
        let change = self.pending.take().unwrap_or_default();
        let restore = |f: &mut Frame| {
            let (h, t, p, i, l) = saved;
            (f.header, f.trailer, f.payload_len, f.has_index, f.len) = (h, t, p, i, l);
            if !undo.is_empty() {
                f.offsets.entries_mut().restore(undo);
            }
        };
        if let Err(e) = r {
            restore(self);
            return Err(e);
        }
        let at = old_end.max(change.final_len);
        let recorded = match change.write_record(&mut *self.store, at) {
            Ok(r) => r,
            Err(e) => {
                // No record: nothing was changed in place.
                let _ = self.store.truncate(old_end);
                restore(self);
                return Err(e);
            }
        };
        // The record is complete: the frame is the new one from here on (a second try goes
        // on from where the first stopped; the next open finishes the writes if both fail).
        change.apply(&mut *self.store, &recorded).or_else(|_| change.apply(&mut *self.store, &recorded))
    }

    /// Add `chunk` after the last one. The caller updates the header counters first.
    pub fn append(&mut self, chunk: &[u8]) -> Result<()> {
        self.insert(self.offsets.len(), chunk)
    }

    /// Insert `chunk` before chunk `n` (its bytes go at the end of the payload).
    pub fn insert(&mut self, n: usize, chunk: &[u8]) -> Result<()> {
        if n > self.offsets.len() {
            return Err(Error::InvalidIndex);
        }
        offsets::index_nbytes(self.offsets.len() as i64 + 1)?;
        // A stored chunk of a contiguous frame goes out with the new index and trailer (see
        // `commit_with`), so that a writer stopped half-way leaves a frame that still reads.
        let with_tail = !self.deferred && !self.is_sparse() && offsets::storable_special(chunk).is_none();
        if !with_tail {
            let entry = self.store_new(chunk)?;
            self.offsets.entries_mut().insert(n, entry);
            self.has_index = true;
            return self.commit();
        }
        let (_, cbytes) = chunk_sizes(chunk)?;
        let off = self.payload_len;
        self.payload_len += cbytes as i64;
        self.offsets.entries_mut().insert(n, off);
        self.has_index = true;
        let r = self.commit_with(None, Some(&chunk[..cbytes as usize]));
        if r.is_err() {
            // Not stored: the frame keeps describing the chunks it had.
            self.offsets.entries_mut().remove(n);
            self.payload_len -= cbytes as i64;
        }
        r
    }

    /// Replace chunk `n`. In a contiguous frame a stored chunk is rewritten in place and the
    /// payload after it shifted; a sparse frame rewrites the chunk file.
    pub fn update(&mut self, n: usize, chunk: &[u8]) -> Result<()> {
        if self.is_sparse() {
            return self.undone_on_error(|f, undo| f.update_unjournaled(n, chunk, undo));
        }
        // Rewriting in place overwrites bytes a reader needs: through the journal.
        self.journaled(|f, undo| f.update_unjournaled(n, chunk, undo))
    }

    /// Run `f`, which records in the list it is given the old value of each index entry it
    /// changes; when it fails, put those entries back.
    fn undone_on_error(&mut self, f: impl FnOnce(&mut Frame, &mut Undo) -> Result<()>) -> Result<()> {
        let mut undo = Vec::new();
        let r = f(self, &mut undo);
        if r.is_err() && !undo.is_empty() {
            self.offsets.entries_mut().restore(undo);
        }
        r
    }

    /// Set entry `n` to `v`, its old value recorded in `undo`.
    fn set_entry(&mut self, n: usize, v: i64, undo: &mut Undo) {
        let was = self.offsets.entries_mut().replace(n, v);
        undo.push(UndoStep::Entry(n, was));
    }

    fn update_unjournaled(&mut self, n: usize, chunk: &[u8], undo: &mut Undo) -> Result<()> {
        let old = self.location(n)?;
        let special = offsets::storable_special(chunk);
        let (_, cbytes) = chunk_sizes(chunk)?;
        let chunk = &chunk[..cbytes as usize];
        match (&self.kind, old) {
            (FrameKind::Sparse { dir }, old) => {
                let dir = dir.clone();
                let files = self.files.clone();
                if let Some(s) = special {
                    self.set_entry(n, offsets::special_offset(s), undo);
                    self.commit()?;
                    // Committed: the entry stays whatever follows. As in `delete`: the file
                    // goes once the index no longer names it.
                    undo.clear();
                    if let ChunkLocation::Stored(id) = old {
                        sframe::delete_chunk(&dir, id)?;
                    }
                    return Ok(());
                } else {
                    let id = match old {
                        ChunkLocation::Stored(id) => id,
                        ChunkLocation::Special(_) => self.next_sparse_id(),
                    };
                    match old {
                        // An existing chunk file is replaced whole (never left half-written).
                        ChunkLocation::Stored(_) => sframe::replace_chunk(&*files, &dir, id, chunk)?,
                        ChunkLocation::Special(_) => sframe::write_chunk(&*files, &dir, id, chunk)?,
                    }
                    self.set_entry(n, id, undo);
                }
            }
            (FrameKind::Contiguous { .. }, ChunkLocation::Special(_)) => {
                let entry = self.store_new(chunk)?;
                self.set_entry(n, entry, undo);
            }
            (FrameKind::Contiguous { .. }, ChunkLocation::Stored(old_off)) => {
                let old_head = self.store.read_vec(self.chunk_pos(old_off), EXTENDED_HEADER_LENGTH)?;
                let old_cb = ChunkHeader::read_min(&old_head)?.cbytes as i64;
                let new_cb = if special.is_some() { 0 } else { cbytes as i64 };
                let tail_src = old_off + old_cb;
                let tail_len = self.payload_len - tail_src;
                if tail_len < 0 {
                    return Err(Error::InvalidHeader);
                }
                let delta = new_cb - old_cb;
                if delta != 0 && tail_len > 0 {
                    self.put_moved(self.chunk_pos(old_off + new_cb), self.chunk_pos(tail_src), tail_len as u64)?;
                }
                if special.is_none() {
                    self.put(self.chunk_pos(old_off), chunk)?;
                }
                self.offsets.entries_mut().shift_above(old_off, delta, n, undo);
                self.payload_len += delta;
                let entry = match special {
                    Some(s) => offsets::special_offset(s),
                    None => old_off,
                };
                self.set_entry(n, entry, undo);
            }
        }
        self.commit()
    }

    /// Remove chunk `n` from the index. A contiguous frame keeps its bytes in the payload (as
    /// the reference does); a sparse frame removes the chunk file.
    pub fn delete(&mut self, n: usize) -> Result<()> {
        let loc = self.location(n)?;
        let removed = self.offsets.entries_mut().remove(n);
        let saved = (self.payload_len, self.has_index);
        if self.offsets.is_empty() {
            // The last chunk: the frame becomes header and trailer, as the reference writes
            // it then (and reads it: a frame without chunks has its trailer right after the
            // header, and no index).
            if !self.is_sparse() {
                self.payload_len = 0;
            }
            self.has_index = false;
        }
        if let Err(e) = self.commit() {
            (self.payload_len, self.has_index) = saved;
            self.offsets.entries_mut().insert(n, removed);
            return Err(e);
        }
        // The chunk file goes once the index no longer names it (a writer stopped in
        // between leaves an unused file, never an index naming a missing one).
        if let (FrameKind::Sparse { dir }, ChunkLocation::Stored(id)) = (&self.kind, loc) {
            sframe::delete_chunk(dir, id)?;
        }
        Ok(())
    }

    /// Reorder the index: new entry `i` is old entry `order[i]` (a permutation).
    pub fn reorder(&mut self, order: &[usize]) -> Result<()> {
        let n = self.offsets.len();
        if order.len() != n {
            return Err(Error::InvalidParam);
        }
        let mut seen = vec![false; n];
        for &o in order {
            if o >= n || std::mem::replace(&mut seen[o], true) {
                return Err(Error::InvalidParam);
            }
        }
        let old: Vec<i64> = self.offsets.iter().collect();
        self.offsets = Index::Dense(order.iter().map(|&o| old[o]).collect());
        self.commit()
    }

    /// Turn an empty frame into `nchunks` unstored chunks of `kind` with a single-value
    /// index (what `blosc2_schunk_fill_special` writes). The caller sets the header counters.
    pub fn fill_special(&mut self, nchunks: usize, kind: Special, index_params: &CompressParams) -> Result<()> {
        if !self.offsets.is_empty() || self.payload_len != 0 {
            return Err(Error::FrameSpecial);
        }
        self.offsets = Index::uniform(offsets::special_offset(kind), nchunks, index_params)?;
        self.has_index = true;
        self.commit()
    }

    /// Write header, index and trailer for the current state, moving the payload if the
    /// header changed length, and cut the storage at the new frame end.
    pub fn commit(&mut self) -> Result<()> {
        if self.deferred {
            return Ok(());
        }
        self.commit_with_index(None)
    }

    /// Defer commits (`true`) until deferring ends (`false`), which commits. The frame's
    /// bytes are then what committing after every change would have left.
    pub fn defer_commits(&mut self, on: bool) -> Result<()> {
        let was = std::mem::replace(&mut self.deferred, on);
        if was && !on {
            return self.commit();
        }
        Ok(())
    }

    fn commit_with_index(&mut self, index: Option<Vec<u8>>) -> Result<()> {
        self.commit_with(index, None)
    }

    /// Write the frame's current state. `new_chunk`: the bytes of a chunk just added at the
    /// end of the payload (its space already counted in `payload_len`), not written yet.
    ///
    /// The order keeps a frame readable whenever its writer stops (killed, or a failed
    /// write): the tail (new chunk, index, trailer) first, the storage cut to the new end,
    /// and the header last. Until the header is written the frame reads as before the change
    /// when the new chunk is at least as long as the old index and trailer (then the new
    /// index and trailer go beyond the old frame's end first, and the chunk over the old
    /// tail next); otherwise chunk, index and trailer go out in one write. A frame whose
    /// header is then stale reads as its tail describes it (`recover_stale_header`). A
    /// header that changes length (adding a metalayer moves the payload) and the rewrites
    /// of a contiguous update go through the journal instead ([`Frame::journaled`]).
    fn commit_with(&mut self, index: Option<Vec<u8>>, new_chunk: Option<&[u8]>) -> Result<()> {
        let old_hlen = self.header.header_len;
        let old_len = self.len;
        if !self.is_sparse() {
            self.header.cbytes = self.payload_len;
        }
        let mut hbytes = self.header.serialize()?;
        let hlen = self.header.header_len;
        let index = match index {
            Some(i) => i,
            None if self.has_index => self.offsets.compress()?,
            None => Vec::new(),
        };
        let tbytes = self.trailer.serialize()?;
        let len = hlen as i64 + self.payload_len + index.len() as i64 + tbytes.len() as i64;
        self.header.frame_len = len;
        hbytes[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&(len as u64).to_be_bytes());
        let new_cb = new_chunk.map_or(0, |c| c.len() as u64);
        let index_pos = self.base + hlen as u64 + self.payload_len as u64;
        // Only a new chunk whose new tail lies past the old frame's end is safe by write
        // order alone; any other change overwrites bytes the old frame needs (its index and
        // trailer rewritten in place, a header that changes length moving the payload, a
        // short chunk written over the old tail): through the journal.
        let tail_past_end = new_chunk.is_some() && index_pos >= self.base + old_len as u64;
        if old_len > 0 && !tail_past_end && self.pending.is_none() && self.journal_applies()? {
            self.header.header_len = old_hlen;
            return self.journaled(|f, _| f.commit_with(Some(index), new_chunk));
        }
        let end = index_pos + index.len() as u64 + tbytes.len() as u64;
        let mut tail = index;
        tail.extend_from_slice(&tbytes);
        if old_hlen != 0 && old_hlen != hlen {
            // The header changes length: move the payload, then as before (through the
            // journal for frame files, see above).
            let old_payload = (self.payload_len as u64).saturating_sub(new_cb);
            if old_payload > 0 {
                self.put_moved(self.base + hlen as u64, self.base + old_hlen as u64, old_payload)?;
            }
            if let Some(c) = new_chunk {
                self.put(index_pos - new_cb, c)?;
            }
            self.put(index_pos, &tail)?;
        } else if let Some(c) = new_chunk {
            let chunk_pos = index_pos - new_cb;
            if old_len > 0 && index_pos >= self.base + old_len as u64 {
                // The new tail lies past the old frame's end: write it first. Then the chunk
                // over the old tail, its header last: a writer killed inside the payload's
                // write (Linux stops a write of several pages between two of them on a fatal
                // signal) leaves the old index's header where the chunk's goes, and the frame
                // reads as before the change (`recover_torn_append`).
                let h = EXTENDED_HEADER_LENGTH.min(c.len());
                self.put(index_pos, &tail)?;
                self.put(chunk_pos + h as u64, &c[h..])?;
                self.put(chunk_pos, &c[..h])?;
            } else {
                let mut all = Vec::with_capacity(c.len() + tail.len());
                all.extend_from_slice(c);
                all.extend_from_slice(&tail);
                self.put(chunk_pos, &all)?;
            }
        } else {
            self.put(index_pos, &tail)?;
        }
        self.cut(end)?;
        self.put(self.base, &hbytes)?;
        if self.pending.is_none() {
            self.store.sync()?;
        }
        self.len = len;
        debug_assert!(tbytes.len() >= TRAILER_LEN_OFFSET);
        Ok(())
    }
}

/// Fetches lazy-chunk blocks from a contiguous frame file.
struct FileLazyReader {
    path: PathBuf,
    base: u64,
    files: Arc<dyn Opener>,
    /// A handle kept between reads where the backend allows it (the `std::fs` one), as the
    /// reference keeps one read handle per frame; otherwise each read opens the file.
    kept: Option<Arc<KeptFile>>,
}

impl LazyReader for FileLazyReader {
    fn read(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        self.read_into(nchunk, chunk_offset, offset, len, &mut v)?;
        Ok(v)
    }

    fn read_into(&self, _nchunk: i32, chunk_offset: i64, offset: i64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        let pos = lazy_block_position(self.base, chunk_offset, offset)?;
        match &self.kept {
            Some(k) => k.read_into(pos, len, buf),
            None => {
                *buf = self.files.open(&self.path, false)?.read_vec(pos, len)?;
                Ok(())
            }
        }
    }
}

/// Fetches lazy-chunk blocks from the chunk files of a sparse frame.
struct SparseLazyReader {
    dir: PathBuf,
    files: Arc<dyn Opener>,
    kept: Arc<SparseKept>,
}

impl LazyReader for SparseLazyReader {
    fn read(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        self.read_into(nchunk, chunk_offset, offset, len, &mut v)?;
        Ok(v)
    }

    fn read_into(&self, nchunk: i32, _chunk_offset: i64, offset: i64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        if offset < 0 {
            return Err(Error::InvalidHeader);
        }
        // A chunk number that names no chunk file cannot be opened.
        self.kept.read_into(&*self.files, &self.dir, nchunk as i64, offset as u64, len, buf).map_err(|e| match e {
            Error::InvalidIndex => Error::FileOpen,
            e => e,
        })
    }
}

/// Read handles on the chunk files of a sparse frame, kept between the reads of lazy chunks
/// (header, trailer, then one read per block: opening and closing the file for each cost
/// more than the read) for the last [`SPARSE_KEPT`] files read, where the backend allows it
/// (the `std::fs` one; user backends get a stream per read). The frame revalidates a file's
/// handle when it makes a new lazy chunk of it, so a chunk file replaced since (an update)
/// is read from its new content; blocks of a lazy chunk taken before the change keep coming
/// from the file the handle is open on, the one the chunk's trailer describes.
#[derive(Default)]
struct SparseKept(std::sync::Mutex<Vec<(i64, Arc<KeptFile>)>>);

/// How many chunk files a sparse frame keeps open for lazy reads: a decoder reads one chunk
/// at a time, a second serves another thread; more would cost a program that opens many
/// sparse frames its file descriptors (a contiguous frame keeps one).
const SPARSE_KEPT: usize = 2;

impl SparseKept {
    /// The kept handle of chunk file `id` (opened at its first read), or `None` when the
    /// backend keeps none.
    fn handle(&self, files: &dyn Opener, dir: &std::path::Path, id: i64) -> Result<Option<Arc<KeptFile>>> {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = kept.iter().position(|e| e.0 == id) {
            // Most recently used last.
            let e = kept.remove(i);
            let k = e.1.clone();
            kept.push(e);
            return Ok(Some(k));
        }
        let Some(k) = files.kept_reader(&sframe::chunk_path(dir, id)?) else { return Ok(None) };
        let k = Arc::new(k);
        if kept.len() >= SPARSE_KEPT {
            kept.remove(0);
        }
        kept.push((id, k.clone()));
        Ok(Some(k))
    }

    /// Drop the handle on chunk file `id` if the path names another file now.
    fn revalidate(&self, id: i64) {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = kept.iter().find(|e| e.0 == id) {
            e.1.revalidate();
        }
    }

    /// `len` bytes at `offset` of chunk file `id`, as [`sframe::read_chunk_part`] reads them.
    fn read(&self, files: &dyn Opener, dir: &std::path::Path, id: i64, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        self.read_into(files, dir, id, offset, len, &mut v)?;
        Ok(v)
    }

    fn read_into(&self, files: &dyn Opener, dir: &std::path::Path, id: i64, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        match self.handle(files, dir, id)? {
            Some(k) => k.read_into(offset, len, buf),
            None => {
                *buf = sframe::read_chunk_part(files, dir, id, offset, len)?;
                Ok(())
            }
        }
    }
}

/// Where a block of a lazy chunk is in a contiguous frame file that starts at `base`: a
/// negative or overflowing position is a damaged lazy trailer.
pub fn lazy_block_position(base: u64, chunk_offset: i64, offset: i64) -> Result<u64> {
    if chunk_offset < 0 || offset < 0 {
        return Err(Error::InvalidHeader);
    }
    base.checked_add(chunk_offset as u64).and_then(|p| p.checked_add(offset as u64)).ok_or(Error::InvalidHeader)
}
