//! Where the bytes of a frame live. A frame only needs positioned reads and writes, its
//! length and truncation, so the C layer can plug in stdio, mmap or user I/O callbacks by
//! implementing [`Storage`]; this module provides memory and `std::fs::File` backends.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Positioned byte storage of one frame file (or of the whole in-memory frame).
#[allow(clippy::len_without_is_empty)]
pub trait Storage: Send {
    /// Current length in bytes.
    fn len(&mut self) -> Result<u64>;
    /// Fill `buf` from `pos`; reading past the end is [`Error::FileRead`].
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// Write `data` at `pos`, growing the storage if needed (a gap reads as zeros).
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// Cut (or extend with zeros) to `len` bytes.
    fn truncate(&mut self, len: u64) -> Result<()>;
    /// The whole content when it is in memory, to read chunks without copying.
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
    /// Flush buffered writes.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    /// Follow the path this storage was opened from when the file there was replaced (a new
    /// file renamed over it, say): reopen it and return `true`. The reference reads frames by
    /// path on every access, so a handle always sees the file now at its path. Storages not
    /// tied to a path return `false`.
    fn follow_path(&mut self) -> bool {
        false
    }

    /// Copy `len` bytes from `from` to `to` (ranges that may overlap, as `memmove`), through
    /// `buf` unless the storage has a better way.
    fn copy_within(&mut self, from: u64, to: u64, len: u64, buf: &mut Vec<u8>) -> Result<()> {
        buffered_copy(self, from, to, len, buf)
    }

    /// Read `len` bytes at `pos` into a new vector.
    fn read_vec(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        // Lengths come from untrusted frames: check before allocating. Past the end of a
        // file (cut short under an open handle, say) is a failed file read, as in the
        // reference; past the end of memory a bad buffer.
        if pos.checked_add(len as u64).is_none_or(|end| end > self.len().unwrap_or(0)) {
            return Err(if self.as_slice().is_some() { Error::ReadBuffer } else { Error::FileRead });
        }
        let mut v = vec![0u8; len];
        self.read_at(pos, &mut v)?;
        Ok(v)
    }
}

/// Bytes moved through memory at a time by copies within a storage.
pub const COPY_PIECE: usize = 512 * 1024;

/// Copy `len` bytes of `store` from `from` to `to` through `buf`, a piece at a time, in the
/// order that leaves the right bytes when the two ranges overlap.
pub fn buffered_copy<S: Storage + ?Sized>(store: &mut S, from: u64, to: u64, len: u64, buf: &mut Vec<u8>) -> Result<()> {
    if len == 0 || from == to {
        return Ok(());
    }
    buf.resize(COPY_PIECE.min(len as usize), 0);
    let piece = buf.len() as u64;
    let n = len.div_ceil(piece);
    for k in 0..n {
        // Forward when moving down, backward when moving up.
        let k = if to < from { k } else { n - 1 - k };
        let at = k * piece;
        let b = &mut buf[..(len - at).min(piece) as usize];
        store.read_at(from + at, b)?;
        store.write_at(to + at, b)?;
    }
    Ok(())
}

/// A frame held in a `Vec<u8>` (an in-memory cframe).
#[derive(Debug, Default, Clone)]
pub struct MemStorage {
    /// The frame's bytes; the frame grows and shrinks it as it is written.
    pub data: Vec<u8>,
}

impl MemStorage {
    /// A storage over `data` (empty for a new frame, or an existing cframe).
    pub fn new(data: Vec<u8>) -> MemStorage {
        MemStorage { data }
    }
}

fn to_usize(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::MemoryAlloc)
}

impl Storage for MemStorage {
    fn len(&mut self) -> Result<u64> {
        Ok(self.data.len() as u64)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let start = to_usize(pos)?;
        let end = start.checked_add(buf.len()).ok_or(Error::ReadBuffer)?;
        let src = self.data.get(start..end).ok_or(Error::ReadBuffer)?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let start = to_usize(pos)?;
        let end = start.checked_add(data.len()).ok_or(Error::MemoryAlloc)?;
        if end > self.data.len() {
            self.data.resize(end, 0);
        }
        self.data[start..end].copy_from_slice(data);
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.data.resize(to_usize(len)?, 0);
        Ok(())
    }

    /// One `memmove` within the vector (grown first when the copy ends past it).
    fn copy_within(&mut self, from: u64, to: u64, len: u64, _buf: &mut Vec<u8>) -> Result<()> {
        let (from, to, len) = (to_usize(from)?, to_usize(to)?, to_usize(len)?);
        let src_end = from.checked_add(len).filter(|&e| e <= self.data.len()).ok_or(Error::ReadBuffer)?;
        let dst_end = to.checked_add(len).ok_or(Error::MemoryAlloc)?;
        if dst_end > self.data.len() {
            self.data.resize(dst_end, 0);
        }
        self.data.copy_within(from..src_end, to);
        Ok(())
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(&self.data)
    }
}

/// Read-only storage over borrowed frame bytes that notes the ranges read from it, so that
/// a frame parsed through it can be given a copy of just those (see
/// [`Frame::open_skeleton`](super::cframe::Frame::open_skeleton)).
pub(crate) struct RecordingSlice<'a> {
    bytes: &'a [u8],
    read: Vec<(usize, usize)>,
}

impl<'a> RecordingSlice<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> RecordingSlice<'a> {
        RecordingSlice { bytes, read: Vec::new() }
    }

    /// The `(start, end)` ranges read so far.
    pub(crate) fn ranges(&self) -> &[(usize, usize)] {
        &self.read
    }
}

impl Storage for RecordingSlice<'_> {
    fn len(&mut self) -> Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let start = to_usize(pos)?;
        let end = start.checked_add(buf.len()).ok_or(Error::ReadBuffer)?;
        buf.copy_from_slice(self.bytes.get(start..end).ok_or(Error::ReadBuffer)?);
        self.read.push((start, end));
        Ok(())
    }

    fn write_at(&mut self, _pos: u64, _data: &[u8]) -> Result<()> {
        Err(Error::FileWrite)
    }

    fn truncate(&mut self, _len: u64) -> Result<()> {
        Err(Error::FileWrite)
    }

    fn as_slice(&self) -> Option<&[u8]> {
        Some(self.bytes)
    }
}

/// Reads of more bytes are checked against the file's length before their buffer is
/// allocated (the lengths come from untrusted frames); smaller ones just fail at the end.
const CHECK_ABOVE: usize = 1 << 20;

/// Reads of fewer bytes go into a zeroed buffer with one positioned read (the clearing
/// costs less than the seek the other way needs).
const ZERO_FILL_BELOW: usize = 16 << 10;

/// A frame in a file, through `std::fs::File`. It remembers its path and the identity of the
/// file it opened, to notice a replaced file ([`Storage::follow_path`]).
#[derive(Debug)]
pub struct FileStorage {
    file: File,
    path: PathBuf,
    writable: bool,
    /// The path no longer names a file (removed under this handle): reads still come from
    /// the open file, but writes fail, as the reference reopens the path to write.
    gone: bool,
}

/// Device and inode of a file, which tell two files at one path apart.
fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

impl FileStorage {
    fn with(file: File, path: &Path, writable: bool) -> FileStorage {
        FileStorage { file, path: path.to_path_buf(), writable, gone: false }
    }

    /// Open an existing file for reading, and for writing when `writable`.
    pub fn open(path: &Path, writable: bool) -> Result<FileStorage> {
        let file = OpenOptions::new().read(true).write(writable).open(path).map_err(|_| Error::FileOpen)?;
        Ok(FileStorage::with(file, path, writable))
    }

    /// Create (or truncate) a file.
    pub fn create(path: &Path) -> Result<FileStorage> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|_| Error::FileOpen)?;
        Ok(FileStorage::with(file, path, true))
    }

    /// Open for appending a frame at the end of an existing file (created if missing).
    pub fn open_or_create(path: &Path) -> Result<FileStorage> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|_| Error::FileOpen)?;
        Ok(FileStorage::with(file, path, true))
    }
}

impl Storage for FileStorage {
    fn len(&mut self) -> Result<u64> {
        self.file.metadata().map(|m| m.len()).map_err(|_| Error::FileRead)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        // One positioned read (no seek): frames read many small pieces.
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, pos).map_err(|_| Error::FileRead)
    }

    /// Small reads need no size check first: a read past the end fails by itself. Large
    /// ones are checked against the file's length before their buffer is allocated, as the
    /// lengths come from untrusted frames.
    fn read_vec(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        let end = pos.checked_add(len as u64).ok_or(Error::FileRead)?;
        if len > CHECK_ABOVE && end > self.len()? {
            return Err(Error::FileRead);
        }
        if len < ZERO_FILL_BELOW {
            let mut v = vec![0u8; len];
            self.read_at(pos, &mut v)?;
            return Ok(v);
        }
        // Large reads (whole chunks) go into fresh capacity, which `read_to_end` fills
        // without clearing it first.
        let mut v = Vec::with_capacity(len);
        self.file.seek(SeekFrom::Start(pos)).map_err(|_| Error::FileRead)?;
        (&self.file).take(len as u64).read_to_end(&mut v).map_err(|_| Error::FileRead)?;
        if v.len() != len {
            return Err(Error::FileRead);
        }
        Ok(v)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if self.gone {
            return Err(Error::FileOpen);
        }
        self.file.seek(SeekFrom::Start(pos)).map_err(|_| Error::FileWrite)?;
        self.file.write_all(data).map_err(|_| Error::FileWrite)
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        if self.gone {
            return Err(Error::FileOpen);
        }
        self.file.set_len(len).map_err(|_| Error::FileTruncate)
    }

    /// Ranges that do not overlap are copied within the kernel where it can
    /// (`copy_file_range`: one copy between cached pages, not two through a buffer, which
    /// it refuses for overlapping ranges of one file); anything else through `buf`.
    #[cfg(target_os = "linux")]
    fn copy_within(&mut self, from: u64, to: u64, len: u64, buf: &mut Vec<u8>) -> Result<()> {
        use std::os::fd::AsRawFd;
        if self.gone {
            return Err(Error::FileOpen);
        }
        if from.max(to) - from.min(to) < len {
            return buffered_copy(self, from, to, len, buf);
        }
        let fd = self.file.as_raw_fd();
        let mut done = 0u64;
        while done < len {
            let (mut src, mut dst) = ((from + done) as libc::loff_t, (to + done) as libc::loff_t);
            let want = (len - done).min(1 << 30) as usize;
            // SAFETY: both offsets are valid pointers to locals, and the descriptor is this
            // storage's open file for the duration of the call.
            let n = unsafe { libc::copy_file_range(fd, &mut src, fd, &mut dst, want, 0) };
            if n <= 0 {
                break;
            }
            done += n as u64;
        }
        buffered_copy(self, from + done, to + done, len - done, buf)
    }

    fn sync(&mut self) -> Result<()> {
        self.file.flush().map_err(|_| Error::FileWrite)
    }

    fn follow_path(&mut self) -> bool {
        let now = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) => {
                self.gone = e.kind() == std::io::ErrorKind::NotFound;
                return false;
            }
        };
        self.gone = false;
        let Ok(held) = self.file.metadata() else { return false };
        if file_id(&now) == file_id(&held) {
            return false;
        }
        let reopened = FileStorage::open(&self.path, self.writable).or_else(|_| FileStorage::open(&self.path, false));
        match reopened {
            Ok(f) => {
                *self = f;
                true
            }
            Err(_) => false,
        }
    }
}

/// How a frame opens a file it needs: the frame file itself, or the index and chunk files
/// of a sparse frame. The C layer plugs its I/O backends in here.
///
/// ```
/// use std::path::Path;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use blosc2::chunk::{CompressParams, DecompressParams};
/// use blosc2::frame::io::{fs_opener, Opener, Storage};
/// use blosc2::schunk::{StorageSpec, SuperChunk};
///
/// /// The filesystem, counting the files a frame opens or creates.
/// struct Counting(Arc<AtomicUsize>);
///
/// impl Opener for Counting {
///     fn open(&self, path: &Path, writable: bool) -> blosc2::Result<Box<dyn Storage>> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         fs_opener().open(path, writable)
///     }
///     fn create(&self, path: &Path) -> blosc2::Result<Box<dyn Storage>> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         fs_opener().create(path)
///     }
/// }
///
/// // A sparse frame: a directory with an index file and one file per chunk.
/// let dir = std::env::temp_dir().join(format!("doc-sparse-{}.b2frame", std::process::id()));
/// let _ = std::fs::remove_dir_all(&dir);
/// let spec = StorageSpec { contiguous: false, urlpath: Some(dir.clone()) };
/// let count = Arc::new(AtomicUsize::new(0));
/// let files = Arc::new(Counting(count.clone()));
/// let params = CompressParams::default().with_typesize(4);
/// let mut sc = SuperChunk::new_on(params, DecompressParams::default(), &spec, files.clone())?;
/// let data: Vec<u8> = (0..1000u32).flat_map(|i| i.to_le_bytes()).collect();
/// sc.append_buffer(&data)?;
/// sc.append_buffer(&data)?;
/// drop(sc);
/// assert!(count.load(Ordering::Relaxed) >= 3); // the index and two chunk files
///
/// let mut back = SuperChunk::open_on(&dir, 0, files)?;
/// let mut out = vec![0u8; data.len()];
/// back.decompress_chunk(1, &mut out)?;
/// assert_eq!(out, data);
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), blosc2::Error>(())
/// ```
pub trait Opener: Send + Sync {
    /// Open the existing file at `path`, for writing too when `writable`.
    fn open(&self, path: &Path, writable: bool) -> Result<Box<dyn Storage>>;
    /// Create (or truncate) the file at `path`.
    fn create(&self, path: &Path) -> Result<Box<dyn Storage>>;
    /// Replace the whole content of the existing file at `path` by `data`, so that a writer
    /// stopped half-way leaves the old content or the new one, where the backend can (the
    /// `std::fs` one writes a new file and renames it over the old; by default the file is
    /// rewritten in place).
    fn replace(&self, path: &Path, data: &[u8]) -> Result<()> {
        let mut f = self.create(path).map_err(|_| Error::FileWrite)?;
        f.write_at(0, data)?;
        f.sync()
    }
    /// A reader for many small reads of the file at `path` that keeps its handle between
    /// them, where the backend allows it. User backends get a stream per read, as their
    /// contract says, so by default there is none.
    fn kept_reader(&self, _path: &Path) -> Option<KeptFile> {
        None
    }
}

/// A read-only handle to the file at a path, kept between reads (lazy chunks fetch their
/// blocks one read at a time; an open and close for each costs more than the read). The
/// frame calls [`revalidate`](Self::revalidate) when it finds its file replaced, so reads
/// after that come from the new file; until then (a lazy chunk taken before the change)
/// they come from the file the handle is open on, as with the reference's kept handle.
#[derive(Debug)]
pub struct KeptFile {
    path: PathBuf,
    kept: std::sync::Mutex<Option<std::sync::Arc<(File, (u64, u64))>>>,
}

impl KeptFile {
    /// A handle for `path`; the file is only opened at the first read.
    pub fn new(path: &Path) -> KeptFile {
        KeptFile { path: path.to_path_buf(), kept: std::sync::Mutex::new(None) }
    }

    /// Drop the kept handle when the path names another file now (one `stat`). A file
    /// removed from its path is still read through the handle, as the reference reads
    /// through the handle it keeps (and as an open file stays readable).
    pub fn revalidate(&self) {
        let Ok(now) = std::fs::metadata(&self.path).map(|m| file_id(&m)) else { return };
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.as_ref().is_some_and(|k| k.1 != now) {
            *kept = None;
        }
    }

    /// The kept handle, opening the path when there is none.
    fn current(&self) -> Result<std::sync::Arc<(File, (u64, u64))>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kept.as_ref() {
            return Ok(k.clone());
        }
        let file = File::open(&self.path).map_err(|_| Error::FileOpen)?;
        let id = file.metadata().map(|m| file_id(&m)).map_err(|_| Error::FileOpen)?;
        let k = std::sync::Arc::new((file, id));
        *kept = Some(k.clone());
        Ok(k)
    }

    /// Read `len` bytes at `pos` into `buf` (positioned, so reads from several threads do
    /// not wait for each other); past the end of the file is a failed read. `buf` keeps its
    /// allocation: bytes it held already are overwritten, not cleared first.
    pub fn read_into(&self, pos: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let k = self.current()?;
        let end = pos.checked_add(len as u64).ok_or(Error::FileRead)?;
        if len > CHECK_ABOVE && end > k.0.metadata().map_err(|_| Error::FileRead)?.len() {
            return Err(Error::FileRead);
        }
        if buf.len() >= len {
            buf.truncate(len);
        } else {
            buf.resize(len, 0);
        }
        k.0.read_exact_at(buf, pos).map_err(|_| Error::FileRead)
    }
}

/// Files through `std::fs`.
#[derive(Debug, Default, Clone, Copy)]
pub struct FsOpener;

impl Opener for FsOpener {
    fn open(&self, path: &Path, writable: bool) -> Result<Box<dyn Storage>> {
        Ok(Box::new(FileStorage::open(path, writable)?))
    }

    fn create(&self, path: &Path) -> Result<Box<dyn Storage>> {
        Ok(Box::new(FileStorage::create(path)?))
    }

    fn kept_reader(&self, path: &Path) -> Option<KeptFile> {
        Some(KeptFile::new(path))
    }

    fn replace(&self, path: &Path, data: &[u8]) -> Result<()> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".new");
        let tmp = std::path::PathBuf::from(tmp);
        let written = (|| {
            let mut f = FileStorage::create(&tmp).map_err(|_| Error::FileWrite)?;
            f.write_at(0, data)?;
            f.sync()?;
            std::fs::rename(&tmp, path).map_err(|_| Error::FileWrite)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }
}

/// The `std::fs` opener, shared.
pub fn fs_opener() -> std::sync::Arc<dyn Opener> {
    std::sync::Arc::new(FsOpener)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(s: &mut dyn Storage) {
        s.write_at(0, b"hello").unwrap();
        s.write_at(7, b"xy").unwrap();
        assert_eq!(s.len().unwrap(), 9);
        assert_eq!(s.read_vec(0, 9).unwrap(), b"hello\0\0xy");
        assert!(s.read_vec(5, 10).is_err());
        s.truncate(3).unwrap();
        assert_eq!(s.len().unwrap(), 3);
        assert_eq!(s.read_vec(0, 3).unwrap(), b"hel");
    }

    #[test]
    fn file_storage_follows_a_replaced_file() {
        let dir = std::env::temp_dir().join(format!("b2io-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        std::fs::write(&p, b"old").unwrap();
        let mut s = FileStorage::open(&p, false).unwrap();
        assert!(!s.follow_path());
        let q = dir.join("g.bin");
        std::fs::write(&q, b"newer").unwrap();
        std::fs::rename(&q, &p).unwrap();
        assert_eq!(s.read_vec(0, 3).unwrap(), b"old");
        assert!(s.follow_path());
        assert_eq!(s.read_vec(0, 5).unwrap(), b"newer");
        assert!(!s.follow_path());
        // A removed file keeps the open one for reading; writing fails.
        std::fs::remove_file(&p).unwrap();
        assert!(!s.follow_path());
        assert_eq!(s.read_vec(0, 5).unwrap(), b"newer");
        let mut w = FileStorage::create(&dir.join("w.bin")).unwrap();
        std::fs::remove_file(dir.join("w.bin")).unwrap();
        assert!(!w.follow_path());
        assert_eq!(w.write_at(0, b"x"), Err(Error::FileOpen));
        // Reading past the end of a file is a file read error, of memory a buffer error.
        assert_eq!(s.read_vec(3, 10), Err(Error::FileRead));
        assert_eq!(MemStorage::new(vec![1, 2]).read_vec(1, 5), Err(Error::ReadBuffer));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Large reads (into fresh capacity) and small ones (into a cleared buffer) give the
    /// same bytes, and both fail past the end of the file.
    #[test]
    fn large_and_small_file_reads() {
        let dir = std::env::temp_dir().join(format!("b2io-large-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&p, &content).unwrap();
        let mut s = FileStorage::open(&p, false).unwrap();
        for (pos, len) in [(0usize, 100_000usize), (3, 70_000), (99_000, 1000), (5, ZERO_FILL_BELOW), (7, ZERO_FILL_BELOW - 1)] {
            assert_eq!(s.read_vec(pos as u64, len).unwrap(), &content[pos..pos + len]);
        }
        assert_eq!(s.read_vec(50_000, 50_001), Err(Error::FileRead));
        assert_eq!(s.read_vec(99_990, 11), Err(Error::FileRead));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A kept handle reads the file it was opened on until revalidated: a file replaced at
    /// the path is read after `revalidate`, a removed one stays readable through it.
    #[test]
    fn kept_file_follows_replacement_on_revalidate() {
        let dir = std::env::temp_dir().join(format!("b2io-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (p, q) = (dir.join("f.bin"), dir.join("g.bin"));
        std::fs::write(&p, b"first file").unwrap();
        std::fs::write(&q, b"other file").unwrap();
        let k = KeptFile::new(&p);
        let mut buf = vec![9u8; 64];
        k.read_into(0, 5, &mut buf).unwrap();
        assert_eq!(buf, b"first");
        std::fs::rename(&q, &p).unwrap();
        k.read_into(0, 5, &mut buf).unwrap();
        assert_eq!(buf, b"first");
        k.revalidate();
        k.read_into(0, 5, &mut buf).unwrap();
        assert_eq!(buf, b"other");
        std::fs::remove_file(&p).unwrap();
        k.revalidate();
        k.read_into(6, 4, &mut buf).unwrap();
        assert_eq!(buf, b"file");
        assert_eq!(k.read_into(8, 3, &mut buf), Err(Error::FileRead));
        assert_eq!(KeptFile::new(&p).read_into(0, 1, &mut buf), Err(Error::FileOpen));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn memory_and_file() {
        exercise(&mut MemStorage::default());
        let dir = std::env::temp_dir().join(format!("b2io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        exercise(&mut FileStorage::create(&p).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
