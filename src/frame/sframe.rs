//! Sparse frames (README_SFRAME_FORMAT.rst): a directory holding the frame index file
//! `chunks.b2frame` (header, index chunk, trailer: a contiguous frame without payload) and one
//! `%08X.chunk` file per stored chunk. Index entries of a sparse frame are chunk file numbers,
//! which need not follow the logical order after inserts and reorders.

use std::path::{Path, PathBuf};

use super::io::Opener;
use crate::chunk::header::MIN_HEADER_LENGTH;
use crate::error::{Error, Result};

/// Name of the index file inside a sparse frame directory.
pub const INDEX_FILE: &str = "chunks.b2frame";

/// Path of the index file of the sparse frame at `dir`.
pub fn index_path(dir: &Path) -> PathBuf {
    dir.join(INDEX_FILE)
}

/// Path of chunk file number `id` (8 upper-case hex digits).
pub fn chunk_path(dir: &Path, id: i64) -> Result<PathBuf> {
    if !(0..=u32::MAX as i64).contains(&id) {
        return Err(Error::InvalidIndex);
    }
    Ok(dir.join(format!("{:08X}.chunk", id)))
}

/// Read a whole chunk file. A missing file is [`Error::FileOpen`]; one too short to hold a
/// chunk header (emptied behind the frame's back) is [`Error::FileRead`], as in the reference.
pub fn read_chunk(io: &dyn Opener, dir: &Path, id: i64) -> Result<Vec<u8>> {
    let mut f = io.open(&chunk_path(dir, id)?, false)?;
    let len = f.len().map_err(|_| Error::FileRead)?;
    if len < MIN_HEADER_LENGTH as u64 {
        return Err(Error::FileRead);
    }
    let mut v = vec![0u8; usize::try_from(len).map_err(|_| Error::MemoryAlloc)?];
    f.read_at(0, &mut v).map_err(|_| Error::FileRead)?;
    Ok(v)
}

/// Read `len` bytes of a chunk file starting at `offset` (for lazy chunks).
pub fn read_chunk_part(io: &dyn Opener, dir: &Path, id: i64, offset: u64, len: usize) -> Result<Vec<u8>> {
    let mut f = io.open(&chunk_path(dir, id)?, false)?;
    let mut v = vec![0u8; len];
    f.read_at(offset, &mut v).map_err(|_| Error::FileRead)?;
    Ok(v)
}

/// Write (replace) chunk file number `id`.
pub fn write_chunk(io: &dyn Opener, dir: &Path, id: i64, chunk: &[u8]) -> Result<()> {
    let mut f = io.create(&chunk_path(dir, id)?).map_err(|_| Error::FileWrite)?;
    f.write_at(0, chunk)?;
    f.sync()
}

/// Replace the content of chunk file number `id`: a writer stopped half-way leaves the old
/// chunk or the new one (see [`Opener::replace`]).
pub fn replace_chunk(io: &dyn Opener, dir: &Path, id: i64, chunk: &[u8]) -> Result<()> {
    io.replace(&chunk_path(dir, id)?, chunk)
}

/// Remove chunk file number `id`.
pub fn delete_chunk(dir: &Path, id: i64) -> Result<()> {
    std::fs::remove_file(chunk_path(dir, id)?).map_err(|_| Error::FileRemove)
}

/// Create the directory of a new sparse frame (it must not exist, as in the reference).
pub fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir(dir).map_err(|_| Error::FileOpen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_names() {
        let d = Path::new("/x");
        assert_eq!(chunk_path(d, 15).unwrap(), PathBuf::from("/x/0000000F.chunk"));
        assert_eq!(chunk_path(d, 0x1234ABCD).unwrap(), PathBuf::from("/x/1234ABCD.chunk"));
        assert!(chunk_path(d, -1).is_err());
        assert_eq!(index_path(d), PathBuf::from("/x/chunks.b2frame"));
    }

    #[test]
    fn damaged_chunk_files() {
        let io = super::super::io::FsOpener;
        let dir = std::env::temp_dir().join(format!("b2sframe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(read_chunk(&io, &dir, 0), Err(Error::FileOpen));
        write_chunk(&io, &dir, 0, &[7u8; 40]).unwrap();
        assert_eq!(read_chunk(&io, &dir, 0).unwrap(), vec![7u8; 40]);
        assert_eq!(read_chunk_part(&io, &dir, 0, 30, 10).unwrap(), vec![7u8; 10]);
        assert_eq!(read_chunk_part(&io, &dir, 0, 35, 10), Err(Error::FileRead));
        for len in [0usize, 15] {
            std::fs::write(chunk_path(&dir, 0).unwrap(), vec![7u8; len]).unwrap();
            assert_eq!(read_chunk(&io, &dir, 0), Err(Error::FileRead));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
