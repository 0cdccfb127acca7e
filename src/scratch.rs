//! Reusable scratch memory for the block pipeline and the filters.
//!
//! Scratch is sized for the worst case (a whole block, a block's compression bound) but
//! usually only partly written: a block that compresses well fills a few pages of its
//! bound. Memory that is allocated zeroed and never written should cost nothing resident,
//! as `malloc`ed scratch costs the reference nothing until written. A zeroed `Vec` does not
//! guarantee that: glibc serves it from reused heap whenever its dynamic thresholds have
//! risen (after the caller freed a few MiB, say), and `calloc` then clears every byte. Large
//! scratch is therefore a private anonymous mapping, whose pages the kernel supplies zeroed
//! on first touch; small scratch, and any request a mapping cannot serve, uses the heap.

/// Alignment of [`ScratchBuf`] bytes: a cache line, so that the shuffle kernels' vector
/// stores into scratch never straddle two lines (a block-sized `Vec<u8>` comes from
/// `mmap` and starts 16 bytes into a page; shuffling 32 KiB of 2-byte items into such a
/// buffer ran at about half the speed of an aligned one).
const SCRATCH_ALIGN: usize = 64;

/// Scratch at least this large is mapped rather than taken from the heap (glibc's own
/// default threshold for serving `malloc` by `mmap`).
const MAP_MIN: usize = 128 * 1024;

/// A grow-only, zero-initialised byte buffer whose contents start on a [`SCRATCH_ALIGN`]
/// boundary; growing keeps the bytes already there.
///
/// Plain fields rather than an enum of the three states (nothing, heap, mapping): every
/// word is always initialised, so code the compiler hoists above a state test never reads
/// an unwritten one (valgrind flagged such a read of the enum's unused words once).
#[derive(Default)]
pub struct ScratchBuf {
    /// Heap bytes, while the buffer is not mapped (empty before the first growth); the
    /// buffer starts `start` bytes in.
    heap: Vec<u8>,
    start: usize,
    /// The buffer's own mapping, once it has one ([`pages::Pages::none`] until then).
    pages: pages::Pages,
    len: usize,
}

impl ScratchBuf {
    /// An empty buffer (usable in a `static` or a `const fn`).
    pub const fn new() -> ScratchBuf {
        ScratchBuf { heap: Vec::new(), start: 0, pages: pages::Pages::none(), len: 0 }
    }

    /// Bytes the buffer holds. (Not through `Deref`, whose slicing costs a dozen
    /// instructions: the context asks twice per call how much its buffers hold.)
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Grows to at least `n` bytes (new bytes zeroed, old ones kept).
    pub fn grow_to(&mut self, n: usize) {
        if self.len >= n {
            return;
        }
        if n >= MAP_MIN {
            if self.pages.is_mapped() {
                if self.pages.grow(n).is_some() {
                    self.len = n;
                    return;
                }
            } else if let Some(mut p) = pages::Pages::new(n) {
                p.bytes_mut()[..self.len].copy_from_slice(&self[..]);
                self.pages = p;
                self.heap = Vec::new();
                self.start = 0;
                self.len = n;
                return;
            }
        }
        let mut raw = vec![0u8; n + SCRATCH_ALIGN - 1];
        let start = (SCRATCH_ALIGN - raw.as_ptr() as usize % SCRATCH_ALIGN) % SCRATCH_ALIGN;
        raw[start..start + self.len].copy_from_slice(&self[..]);
        *self = ScratchBuf { heap: raw, start, pages: pages::Pages::none(), len: n };
    }

    /// A buffer holding a copy of `src` (a large one in a mapping of its own, returned to
    /// the system when dropped). Huge pages were tried for the payloads of frames opened
    /// with copy: a fault per 2 MiB made the copy of 96 MB 2.7 times as fast, but the first
    /// such mapping of a process could wait 200 ms for the kernel to compact memory.
    pub fn copy_of(src: &[u8]) -> ScratchBuf {
        let mut b = ScratchBuf::new();
        b.grow_to(src.len());
        b[..].copy_from_slice(src);
        b
    }
}

impl std::ops::Deref for ScratchBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        if self.pages.is_mapped() {
            &self.pages.bytes()[..self.len]
        } else {
            &self.heap[self.start..self.start + self.len]
        }
    }
}

impl std::ops::DerefMut for ScratchBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        if self.pages.is_mapped() {
            &mut self.pages.bytes_mut()[..self.len]
        } else {
            &mut self.heap[self.start..self.start + self.len]
        }
    }
}

#[cfg(target_os = "linux")]
mod pages {
    /// A private anonymous mapping, owned: zero-filled by the kernel, resident only where
    /// written, grown with `mremap` (which moves page tables, not bytes). Or no mapping:
    /// a null pointer and no bytes.
    pub struct Pages {
        ptr: *mut u8,
        mapped: usize,
    }

    impl Default for Pages {
        fn default() -> Pages {
            Pages::none()
        }
    }

    // SAFETY: `Pages` owns its mapping exclusively, like a `Vec<u8>` owns its buffer; shared
    // access only reads through `&self`.
    unsafe impl Send for Pages {}
    // SAFETY: as above; no interior mutability.
    unsafe impl Sync for Pages {}

    fn page_round(n: usize) -> Option<usize> {
        let page = 4096usize.max(page_size());
        n.checked_add(page - 1).map(|v| v / page * page)
    }

    fn page_size() -> usize {
        // SAFETY: sysconf has no preconditions.
        let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if v > 0 { v as usize } else { 4096 }
    }

    impl Pages {
        /// No mapping.
        pub const fn none() -> Pages {
            Pages { ptr: std::ptr::null_mut(), mapped: 0 }
        }

        /// Whether this holds a mapping.
        #[inline]
        pub fn is_mapped(&self) -> bool {
            !self.ptr.is_null()
        }

        /// A new mapping of at least `n` bytes, or `None` when the system refuses one.
        pub fn new(n: usize) -> Option<Pages> {
            let size = page_round(n)?;
            // SAFETY: a fresh private anonymous mapping at an address of the kernel's choice
            // aliases nothing; failure is checked.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    size,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED || p.is_null() {
                return None;
            }
            Some(Pages { ptr: p.cast(), mapped: size })
        }

        /// Make room for at least `n` bytes, keeping the contents; `None` (contents and
        /// size unchanged) when the system refuses. Reserves twice what is asked for, so
        /// a buffer grown a little at a time is remapped rarely (untouched pages cost no
        /// memory).
        pub fn grow(&mut self, n: usize) -> Option<()> {
            if !self.is_mapped() {
                return None;
            }
            if n <= self.mapped {
                return Some(());
            }
            let size = page_round(n.max(self.mapped.saturating_mul(2)))?;
            // SAFETY: `ptr`/`mapped` describe a mapping this value owns; MREMAP_MAYMOVE may
            // move it, and nothing borrows it across this call (`&mut self`).
            let p = unsafe { libc::mremap(self.ptr.cast(), self.mapped, size, libc::MREMAP_MAYMOVE) };
            if p == libc::MAP_FAILED || p.is_null() {
                return None;
            }
            self.ptr = p.cast();
            self.mapped = size;
            Some(())
        }

        pub fn bytes(&self) -> &[u8] {
            if !self.is_mapped() {
                return &[];
            }
            // SAFETY: the mapping is `mapped` bytes, readable, initialised (zero-filled by
            // the kernel or written through `bytes_mut`), and lives as long as `self`.
            unsafe { std::slice::from_raw_parts(self.ptr, self.mapped) }
        }

        pub fn bytes_mut(&mut self) -> &mut [u8] {
            if !self.is_mapped() {
                return &mut [];
            }
            // SAFETY: as in `bytes`, and `&mut self` makes the borrow exclusive.
            unsafe { std::slice::from_raw_parts_mut(self.ptr, self.mapped) }
        }
    }

    impl Drop for Pages {
        fn drop(&mut self) {
            if self.is_mapped() {
                // SAFETY: the mapping is owned and no borrow of it outlives `self`.
                unsafe {
                    libc::munmap(self.ptr.cast(), self.mapped);
                }
            }
        }
    }
}

/// Elsewhere scratch always comes from the heap.
#[cfg(not(target_os = "linux"))]
mod pages {
    /// Never a mapping.
    #[derive(Default)]
    pub struct Pages;

    impl Pages {
        pub const fn none() -> Pages {
            Pages
        }
        pub fn is_mapped(&self) -> bool {
            false
        }
        pub fn new(_n: usize) -> Option<Pages> {
            None
        }
        pub fn grow(&mut self, _n: usize) -> Option<()> {
            None
        }
        pub fn bytes(&self) -> &[u8] {
            &[]
        }
        pub fn bytes_mut(&mut self) -> &mut [u8] {
            &mut []
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ScratchBuf, MAP_MIN};

    #[test]
    fn scratch_is_aligned_and_keeps_its_bytes_when_it_grows() {
        let mut b = ScratchBuf::default();
        assert!(b.is_empty());
        b.grow_to(100);
        assert_eq!(b.len(), 100);
        assert_eq!(b.as_ptr() as usize % super::SCRATCH_ALIGN, 0);
        for (i, x) in b.iter_mut().enumerate() {
            *x = i as u8;
        }
        b.grow_to(50);
        assert_eq!(b.len(), 100, "never shrinks");
        b.grow_to(300_000);
        assert_eq!(b.len(), 300_000);
        assert_eq!(b.as_ptr() as usize % super::SCRATCH_ALIGN, 0);
        assert!(b[..100].iter().enumerate().all(|(i, &x)| x == i as u8));
        assert!(b[100..].iter().all(|&x| x == 0));
    }

    #[test]
    fn mapped_scratch_grows_in_place_or_moves_with_its_bytes() {
        let mut b = ScratchBuf::default();
        b.grow_to(MAP_MIN + 5);
        let n = b.len();
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i % 251) as u8;
        }
        // Small steps (within the reserve) and a large one (a remap).
        for want in [n + 1, n + 4096 * 3, 8 * n] {
            b.grow_to(want);
            assert_eq!(b.len(), want);
            assert!(b[..n].iter().enumerate().all(|(i, &x)| x == (i % 251) as u8));
            assert!(b[n..].iter().all(|&x| x == 0), "new bytes are zero");
        }
        assert_eq!(b.as_ptr() as usize % super::SCRATCH_ALIGN, 0);
    }

    #[test]
    fn writing_past_what_was_exposed_is_seen_as_zero_after_growth() {
        // Bytes beyond `len` inside the reserve were never handed out, so they are still the
        // kernel's zeros when a later growth exposes them.
        let mut b = ScratchBuf::default();
        b.grow_to(MAP_MIN);
        b.fill(0xAB);
        b.grow_to(MAP_MIN + 10);
        assert!(b[MAP_MIN..].iter().all(|&x| x == 0));
    }
}
