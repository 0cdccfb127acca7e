//! Where a chunk is written while it is built: a caller's buffer of fixed size, or a vector
//! that grows with the chunk.
//!
//! A chunk's worst case is its input plus a header (4 MiB and more for a super-chunk's
//! chunks), but most chunks are far smaller. Compressing into a zero-filled buffer of the
//! worst case makes every page of it resident (once glibc serves such buffers from the heap,
//! `calloc` must clear them), while the reference's `malloc`ed buffer only costs the pages it
//! writes. [`Growing`] reserves the worst case without touching it and zero-fills only what
//! the compressor is about to write into, so resident memory follows the chunk's real size.

/// The output of a chunk being built.
pub(crate) trait Dest {
    /// The most bytes the chunk may take.
    fn limit(&self) -> usize;
    /// The first `len` bytes (`len <= limit()`). Bytes not written yet hold whatever the
    /// buffer held (a caller's old data, or zeros in a [`Growing`]).
    fn upto(&mut self, len: usize) -> &mut [u8];
    /// The start of the area, valid for writes of `limit()` bytes, which may not be
    /// initialized past what [`Dest::upto`] gave: for writers that fill parts of it from
    /// several threads (`threads::Ordered`). Calling `upto` again before
    /// [`Dest::assume_written`] may overwrite what they wrote.
    fn as_mut_ptr(&mut self) -> *mut u8;
    /// Take the first `len` bytes as written.
    ///
    /// # Safety
    /// Every byte of `[..len]` was written, through [`Dest::upto`] or [`Dest::as_mut_ptr`].
    unsafe fn assume_written(&mut self, len: usize);
}

impl Dest for &mut [u8] {
    fn limit(&self) -> usize {
        self.len()
    }

    fn upto(&mut self, len: usize) -> &mut [u8] {
        &mut self[..len]
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        <[u8]>::as_mut_ptr(self)
    }

    unsafe fn assume_written(&mut self, _len: usize) {}
}

/// A vector that holds the chunk, grown on demand up to `limit` bytes.
pub(crate) struct Growing<'a> {
    buf: &'a mut Vec<u8>,
    limit: usize,
}

impl<'a> Growing<'a> {
    /// Write into `buf` (cleared), reserving `limit` bytes up front so it never moves.
    pub(crate) fn new(buf: &'a mut Vec<u8>, limit: usize) -> Growing<'a> {
        buf.clear();
        buf.reserve_exact(limit);
        Growing { buf, limit }
    }
}

impl Dest for Growing<'_> {
    fn limit(&self) -> usize {
        self.limit
    }

    fn upto(&mut self, len: usize) -> &mut [u8] {
        let len = len.min(self.limit);
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
        &mut self.buf[..len]
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        // Valid for `limit` bytes: `new` reserved them and the vector never grows past.
        self.buf.as_mut_ptr()
    }

    unsafe fn assume_written(&mut self, len: usize) {
        let len = len.min(self.limit);
        if self.buf.len() < len {
            // SAFETY: within the capacity reserved by `new`; the caller wrote every byte.
            unsafe { self.buf.set_len(len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growing_zero_fills_only_what_is_asked_and_keeps_what_was_written() {
        let mut v = vec![7u8; 3];
        let mut g = Growing::new(&mut v, 100);
        assert_eq!(g.limit(), 100);
        g.upto(4).copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(g.upto(6), &[1, 2, 3, 4, 0, 0]);
        assert_eq!(g.upto(2), &[1, 2]);
        assert_eq!(g.upto(500).len(), 100, "never past the limit");
        assert!(v.capacity() >= 100);
    }

    #[test]
    fn growing_takes_raw_writes_once_told() {
        let mut v = Vec::new();
        let mut g = Growing::new(&mut v, 64);
        g.upto(4).copy_from_slice(&[1, 2, 3, 4]);
        let p = g.as_mut_ptr();
        // SAFETY: `p` is valid for the 64 reserved bytes; bytes 4..10 are written here.
        unsafe {
            std::ptr::copy_nonoverlapping([9u8; 6].as_ptr(), p.add(4), 6);
            g.assume_written(10);
        }
        assert_eq!(g.upto(10), &[1, 2, 3, 4, 9, 9, 9, 9, 9, 9]);
        // SAFETY: never past the limit, never shorter than what is there.
        unsafe { g.assume_written(2) };
        assert_eq!(g.upto(12).len(), 12);
        assert_eq!(v.len(), 12);
    }

    #[test]
    fn a_slice_is_its_own_limit() {
        let mut b = [5u8; 8];
        let mut s = &mut b[..];
        let d: &mut dyn Dest = &mut s;
        assert_eq!(d.limit(), 8);
        assert_eq!(d.upto(3), &[5, 5, 5]);
    }
}
