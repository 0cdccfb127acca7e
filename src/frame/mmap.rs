//! Memory-mapped frame files: how the reference's memory-mapped I/O backend
//! (`BLOSC2_IO_FILESYSTEM_MMAP`) maps, grows, writes and releases a file.
//!
//! A file is mapped once, larger than the file itself (the initial mapping size of the
//! writable modes), and the mapping doubles when a write goes past it; the file is extended
//! with `ftruncate` before any byte past its end is touched, so shared mappings never fault.
//! Where the reference would crash or misbehave this one does not: a write into a read-only
//! mapping fails instead of faulting; "c" mode (private copy-on-write) keeps the pages past
//! the end of the file in anonymous memory, so it can grow past the file's last page (the
//! reference's private file mapping raises SIGBUS there), and growing it copies into a larger
//! anonymous mapping; a truncation past the mapping grows the mapping so that reads up to the
//! new size stay inside it.
//!
//! The state is plain data ([`Mapping`]) because the C face keeps it in the caller's
//! `blosc2_stdio_mmap`, whose fields C code may read or fill in itself.

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};

/// What a mode string selects (the modes of `numpy.memmap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// Whether the mapping can be written.
    pub writable: bool,
    /// "c": writes stay in memory; the file on disk is never changed.
    pub memory_only: bool,
    /// The `fopen` mode that opens the file for this mapping mode.
    pub open_mode: &'static CStr,
}

impl Mode {
    /// "r" (read only), "r+" (read and extend an existing file), "w+" (a new file) or "c"
    /// (copy-on-write); `None` for anything else.
    pub fn parse(mode: &[u8]) -> Option<Mode> {
        let (writable, memory_only, open_mode) = match mode {
            b"r" => (false, false, c"rb"),
            b"r+" => (true, false, c"rb+"),
            b"w+" => (true, false, c"wb+"),
            b"c" => (true, true, c"rb"),
            _ => return None,
        };
        Some(Mode { writable, memory_only, open_mode })
    }

    /// The `mmap` protection of this mode.
    pub fn prot(&self) -> c_int {
        if self.writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        }
    }

    /// The `mmap` flags of this mode.
    pub fn flags(&self) -> c_int {
        if self.memory_only {
            libc::MAP_PRIVATE
        } else {
            libc::MAP_SHARED
        }
    }
}

/// A mapped file: `mapping_size` bytes at `addr`, of which the first `file_size` are the
/// file's (logical) content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    addr: *mut u8,
    file_size: usize,
    mapping_size: usize,
    fd: c_int,
    memory_only: bool,
    /// Whether the mapping is of a file this backend opened (memory the caller mapped
    /// itself cannot be moved or extended).
    owns_file: bool,
}

impl Mapping {
    /// Map the open file `fd` of `file_size` bytes as `mode` says, `initial_size` bytes at
    /// least for the writable modes. `None` when the kernel refuses.
    ///
    /// # Safety
    /// `fd` is an open descriptor of a file of `file_size` bytes, readable (and writable for
    /// the writable shared mode), that stays open as long as the mapping is used.
    pub unsafe fn map(fd: c_int, file_size: usize, mode: &Mode, initial_size: usize) -> Option<Mapping> {
        let wanted = if mode.writable { initial_size } else { file_size };
        let mapping_size = wanted.max(file_size).max(1);
        let addr = if mode.memory_only {
            // SAFETY: per contract; file_size <= mapping_size.
            unsafe { map_private(fd, mapping_size, file_size) }?
        } else {
            // SAFETY: a new mapping of the caller's descriptor; nothing existing is replaced.
            let p = unsafe { libc::mmap(std::ptr::null_mut(), mapping_size, mode.prot(), mode.flags(), fd, 0) };
            (p != libc::MAP_FAILED).then_some(p)?
        };
        let addr = addr as *mut u8;
        Some(Mapping { addr, file_size, mapping_size, fd, memory_only: mode.memory_only, owns_file: true })
    }

    /// A mapping described by its parts (as kept in a C struct).
    ///
    /// # Safety
    /// `addr` maps at least `mapping_size` readable bytes, writable when the mapping is
    /// written to, and `file_size <= mapping_size`; with `owns_file`, the mapping was made
    /// by [`Mapping::map`] from `fd` and `memory_only`, and nothing else uses it meanwhile.
    pub unsafe fn from_parts(addr: *mut u8, file_size: usize, mapping_size: usize, fd: c_int, memory_only: bool, owns_file: bool) -> Mapping {
        Mapping { addr, file_size, mapping_size, fd, memory_only, owns_file }
    }

    /// Where the mapping is now (it may move when it grows).
    pub fn addr(&self) -> *mut u8 {
        self.addr
    }

    /// The logical size of the file.
    pub fn file_size(&self) -> usize {
        self.file_size
    }

    /// How many bytes are mapped.
    pub fn mapping_size(&self) -> usize {
        self.mapping_size
    }

    /// Grow the mapping to at least `needed` bytes (twice that, as the reference), keeping
    /// the first `valid` bytes. `false` when it cannot grow (it is then unchanged).
    fn grow(&mut self, needed: usize, valid: usize) -> bool {
        if self.mapping_size >= needed {
            return true;
        }
        if !self.owns_file {
            return false;
        }
        let new_size = needed.checked_mul(2).unwrap_or(needed);
        if new_size > i64::MAX as usize {
            return false;
        }
        let grown = if self.memory_only {
            // Private pages cannot be carried over by mremap when the mapping is made of a
            // file part and an anonymous part: copy what is valid into a new anonymous one.
            // SAFETY: a fresh anonymous mapping.
            let p = unsafe { anonymous(new_size) };
            if let Some(p) = p {
                let keep = valid.min(self.mapping_size);
                // SAFETY: the old mapping holds mapping_size >= keep readable bytes, the new
                // one new_size > keep writable bytes, and they are distinct; the old mapping
                // is released once and replaced below.
                unsafe {
                    std::ptr::copy_nonoverlapping(self.addr, p as *mut u8, keep);
                    libc::munmap(self.addr as *mut c_void, self.mapping_size);
                }
            }
            p
        } else {
            // SAFETY: addr/mapping_size describe our one shared file mapping; MAYMOVE lets the
            // kernel relocate it, and the new address replaces the old one below.
            let p = unsafe { libc::mremap(self.addr as *mut c_void, self.mapping_size, new_size, libc::MREMAP_MAYMOVE) };
            (p != libc::MAP_FAILED).then_some(p)
        };
        let Some(p) = grown else { return false };
        self.addr = p as *mut u8;
        self.mapping_size = new_size;
        true
    }

    /// Set the logical size of the file: the file on disk follows (except in "c" mode), the
    /// mapping grows to cover it, and bytes between the old and the new end read as zeros.
    /// `false` when that cannot be done (nothing changes then).
    pub fn set_size(&mut self, new_size: usize) -> bool {
        let old = self.file_size;
        if new_size == old {
            return true;
        }
        if !self.memory_only {
            let Ok(len) = libc::off_t::try_from(new_size) else { return false };
            // SAFETY: fd belongs to the open file of this mapping.
            if unsafe { libc::ftruncate(self.fd, len) } != 0 {
                return false;
            }
        }
        if !self.grow(new_size, old) {
            if !self.memory_only {
                // Keep the file in step with what is mapped.
                // SAFETY: as above; old fits since it was the size before.
                unsafe { libc::ftruncate(self.fd, old as libc::off_t) };
            }
            return false;
        }
        if self.memory_only && new_size > old {
            // Private pages past the old end may hold bytes from before a shrink.
            // SAFETY: old..new_size lies inside the mapping (mapping_size >= new_size).
            unsafe { std::ptr::write_bytes(self.addr.add(old), 0, new_size - old) };
        }
        self.file_size = new_size;
        true
    }

    /// Copy `len` bytes from `src` to `pos`, extending the file first when it ends past it.
    /// The caller checks that the mapping is writable. `false` when the file cannot grow.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes, also after the mapping grows (it may lie inside
    /// the mapping only when no growth is needed).
    pub unsafe fn write(&mut self, pos: usize, src: *const u8, len: usize) -> bool {
        let Some(end) = pos.checked_add(len) else { return false };
        if end > self.file_size && !self.set_size(end) {
            return false;
        }
        // SAFETY: pos + len = end <= file_size <= mapping_size, inside the (writable, per
        // the caller) mapping; src readable per contract (copy allows an overlap).
        unsafe { std::ptr::copy(src, self.addr.add(pos), len) };
        true
    }

    /// Where `len` bytes from `pos` of the file are in memory; `None` past the end.
    pub fn range(&self, pos: usize, len: usize) -> Option<*mut u8> {
        let end = pos.checked_add(len)?;
        // SAFETY: pos <= end <= file_size <= mapping_size: inside the mapping.
        (end <= self.file_size).then(|| unsafe { self.addr.add(pos) })
    }

    /// Write modified pages back to the file (`sync`; not every munmap does, e.g. on NFS)
    /// and unmap. `false` when a step failed (the mapping is gone either way).
    pub fn unmap(self, sync: bool) -> bool {
        let mut ok = true;
        if sync && !self.memory_only {
            // SAFETY: addr..addr+file_size lies inside the mapping.
            ok &= unsafe { libc::msync(self.addr as *mut c_void, self.file_size, libc::MS_SYNC) } == 0;
        }
        // SAFETY: addr/mapping_size describe this mapping, released once here (self is
        // consumed).
        ok & (unsafe { libc::munmap(self.addr as *mut c_void, self.mapping_size) } == 0)
    }
}

/// `len` bytes of private, zero-filled memory.
///
/// # Safety
/// None beyond the kernel's: a fresh mapping touches no existing memory.
unsafe fn anonymous(len: usize) -> Option<*mut c_void> {
    let prot = libc::PROT_READ | libc::PROT_WRITE;
    // SAFETY: a fresh anonymous mapping.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    (p != libc::MAP_FAILED).then_some(p)
}

/// `len` bytes of private memory whose first `file_len` bytes (rounded up to whole pages)
/// are a private copy-on-write mapping of the file, the rest anonymous zeros.
///
/// # Safety
/// `fd` an open, readable descriptor; `file_len <= len`.
unsafe fn map_private(fd: c_int, len: usize, file_len: usize) -> Option<*mut c_void> {
    // SAFETY: a fresh mapping.
    let base = unsafe { anonymous(len) }?;
    if file_len > 0 {
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        // SAFETY: MAP_FIXED only replaces pages of the anonymous mapping made just above
        // (file_len <= len, and the kernel rounds both to whole pages the same way).
        let p = unsafe { libc::mmap(base, file_len, prot, libc::MAP_PRIVATE | libc::MAP_FIXED, fd, 0) };
        if p == libc::MAP_FAILED {
            // SAFETY: base is the mapping made above.
            unsafe { libc::munmap(base, len) };
            return None;
        }
    }
    Some(base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn file(name: &str, content: &[u8]) -> (std::path::PathBuf, std::fs::File) {
        let p = std::env::temp_dir().join(format!("blosc2-mmap-{}-{name}", std::process::id()));
        std::fs::write(&p, content).unwrap();
        let f = std::fs::OpenOptions::new().read(true).write(true).open(&p).unwrap();
        (p, f)
    }

    #[test]
    fn modes() {
        assert_eq!(Mode::parse(b"r").map(|m| (m.writable, m.memory_only)), Some((false, false)));
        assert_eq!(Mode::parse(b"c").map(|m| (m.writable, m.memory_only, m.flags())), Some((true, true, libc::MAP_PRIVATE)));
        assert_eq!(Mode::parse(b"w+").map(|m| m.open_mode), Some(c"wb+"));
        assert_eq!(Mode::parse(b"rw"), None);
    }

    #[test]
    fn shared_mapping_extends_the_file() {
        let (p, f) = file("shared", b"abc");
        let mode = Mode::parse(b"r+").unwrap();
        // SAFETY: f is open for reading and writing and outlives the mapping.
        let mut m = unsafe { Mapping::map(f.as_raw_fd(), 3, &mode, 4) }.unwrap();
        // SAFETY: a readable array of 10 bytes.
        assert!(unsafe { m.write(2, [9u8; 10].as_ptr(), 10) });
        assert!(m.mapping_size() >= 12 && m.file_size() == 12);
        // SAFETY: range checked inside the file.
        assert_eq!(unsafe { std::slice::from_raw_parts(m.range(0, 12).unwrap(), 3) }, b"ab\x09");
        assert!(m.range(10, 3).is_none());
        assert!(m.set_size(5));
        assert!(m.unmap(true));
        assert_eq!(std::fs::read(&p).unwrap(), b"ab\x09\x09\x09");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn borrowed_memory_is_not_moved() {
        let mut buf = vec![1u8; 16];
        // SAFETY: buf holds 16 writable bytes and outlives m.
        let mut m = unsafe { Mapping::from_parts(buf.as_mut_ptr(), 8, 16, -1, true, false) };
        // SAFETY: readable arrays of 8 bytes.
        assert!(unsafe { m.write(8, [2u8; 8].as_ptr(), 8) });
        // SAFETY: as above.
        assert!(!unsafe { m.write(12, [3u8; 8].as_ptr(), 8) }, "growing memory the caller mapped must fail");
        assert_eq!(m.addr(), buf.as_mut_ptr());
        assert_eq!(&buf[..], [[1u8; 8], [2u8; 8]].concat());
    }
}
