//! Opt-in advisory locking of on-disk frames, interoperable with the reference library.
//!
//! Handles that opt in serialise their accesses to a frame through a sidecar file: readers
//! share it, writers hold it exclusively (`flock(2)`, so handles in one process exclude each
//! other like processes do). The sidecar also holds a generation counter (a native-endian
//! `u64` at byte 8; bytes 0-7 stay a hole the Windows byte-range lock uses) that every
//! outermost exclusive acquisition bumps: a handle that finds a value other than the one it
//! last saw knows another handle changed the frame, even when its length did not change.
//! The layout and the rules are the reference's, so processes using either library can share
//! a frame.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where the generation counter lives in the sidecar.
const SEQ_OFFSET: u64 = 8;

/// The sidecar of a contiguous frame file (`<file>.b2lock`, shared by every frame inside
/// that file) or of a sparse frame directory (`<dir>/.b2lock`).
pub fn sidecar_path(frame_path: &Path, sparse: bool) -> PathBuf {
    if sparse {
        frame_path.join(".b2lock")
    } else {
        let mut s = frame_path.as_os_str().to_owned();
        s.push(".b2lock");
        PathBuf::from(s)
    }
}

/// The lock state of one handle on one frame.
#[derive(Debug)]
pub struct FrameLock {
    path: PathBuf,
    /// Opened on first use and kept open (closing it would drop the lock).
    file: Option<File>,
    /// Nesting depth: inner acquisitions reuse the outer one whatever mode they ask for.
    depth: u32,
    /// The generation this handle last saw (or wrote).
    seq: u64,
    /// Set when an acquisition found another handle's generation: the cached view of the
    /// frame must be re-read before it is trusted.
    stale: bool,
}

impl FrameLock {
    /// The (not yet taken) lock of the frame at `frame_path`.
    pub fn new(frame_path: &Path, sparse: bool) -> FrameLock {
        FrameLock { path: sidecar_path(frame_path, sparse), file: None, depth: 0, seq: 0, stale: false }
    }

    /// Whether this handle holds the lock now.
    pub fn held(&self) -> bool {
        self.depth > 0
    }

    /// Take the lock (blocking), or nest inside the one already held.
    pub fn acquire(&mut self, exclusive: bool) -> Result<()> {
        if self.depth > 0 {
            self.depth += 1;
            return Ok(());
        }
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o666)
                .open(&self.path)
                .map_err(|_| Error::Lock)?;
            self.file = Some(f);
        }
        let file = self.file.as_ref().ok_or(Error::Lock)?;
        let locked = if exclusive { file.lock() } else { file.lock_shared() };
        locked.map_err(|_| Error::Lock)?;
        match Self::generation(file, exclusive) {
            Ok(seq) => {
                if seq != self.seq {
                    self.stale = true;
                }
                self.seq = if exclusive { seq.wrapping_add(1) } else { seq };
                self.depth = 1;
                Ok(())
            }
            Err(e) => {
                let _ = file.unlock();
                Err(e)
            }
        }
    }

    /// Read the generation counter and, for an exclusive acquisition, bump it. A missing or
    /// short counter reads as 0.
    fn generation(file: &File, bump: bool) -> Result<u64> {
        let mut raw = [0u8; 8];
        let mut got = 0;
        while got < raw.len() {
            match file.read_at(&mut raw[got..], SEQ_OFFSET + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Error::Lock),
            }
        }
        let seq = if got == raw.len() { u64::from_ne_bytes(raw) } else { 0 };
        if bump {
            file.write_all_at(&seq.wrapping_add(1).to_ne_bytes(), SEQ_OFFSET).map_err(|_| Error::Lock)?;
        }
        Ok(seq)
    }

    /// Leave one level; the outermost release unlocks. Releasing what is not held is a no-op.
    pub fn release(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Ok(());
        }
        self.depth -= 1;
        if self.depth > 0 {
            return Ok(());
        }
        match &self.file {
            Some(f) => f.unlock().map_err(|_| Error::Lock),
            None => Ok(()),
        }
    }

    /// Whether another handle changed the frame since this one last looked (and forget it).
    pub fn take_stale(&mut self) -> bool {
        std::mem::take(&mut self.stale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("b2lock-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn sidecar_paths() {
        assert_eq!(sidecar_path(Path::new("/a/b.b2frame"), false), PathBuf::from("/a/b.b2frame.b2lock"));
        assert_eq!(sidecar_path(Path::new("/a/dir.b2nd"), true), PathBuf::from("/a/dir.b2nd/.b2lock"));
    }

    #[test]
    fn generation_counter_layout_and_staleness() {
        let d = tmp("gen");
        let frame = d.join("f.b2frame");
        let mut a = FrameLock::new(&frame, false);
        let mut b = FrameLock::new(&frame, false);
        // A shared acquisition creates an empty sidecar and bumps nothing.
        a.acquire(false).unwrap();
        a.release().unwrap();
        assert_eq!(std::fs::metadata(sidecar_path(&frame, false)).unwrap().len(), 0);
        assert!(!a.take_stale());
        // Exclusive: counter 1 at byte 8, zeros before; nesting does not bump again.
        a.acquire(true).unwrap();
        a.acquire(false).unwrap();
        a.release().unwrap();
        assert!(a.held());
        a.release().unwrap();
        assert!(!a.held());
        let bytes = std::fs::read(sidecar_path(&frame, false)).unwrap();
        assert_eq!(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert!(!a.take_stale(), "a handle's own bump does not make it stale");
        // Another handle sees the change; the writer does not.
        b.acquire(false).unwrap();
        b.release().unwrap();
        assert!(b.take_stale());
        assert!(!b.take_stale());
        b.acquire(true).unwrap();
        b.release().unwrap();
        a.acquire(false).unwrap();
        a.release().unwrap();
        assert!(a.take_stale());
        // Releasing what is not held is harmless.
        a.release().unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn exclusive_excludes_other_handles() {
        let d = tmp("excl");
        let frame = d.join("f.b2frame");
        let mut a = FrameLock::new(&frame, false);
        a.acquire(true).unwrap();
        let path = sidecar_path(&frame, false);
        let other = File::options().read(true).write(true).open(&path).unwrap();
        assert!(other.try_lock_shared().is_err(), "held exclusively");
        a.release().unwrap();
        assert!(other.try_lock().is_ok());
        other.unlock().unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unopenable_sidecar_is_a_lock_error() {
        let d = tmp("bad");
        let frame = d.join("f.b2frame");
        std::fs::create_dir_all(sidecar_path(&frame, false)).unwrap();
        let mut a = FrameLock::new(&frame, false);
        assert_eq!(a.acquire(true).err(), Some(Error::Lock));
        assert!(!a.held());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
