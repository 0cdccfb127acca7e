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
}

impl Dest for &mut [u8] {
    fn limit(&self) -> usize {
        self.len()
    }

    fn upto(&mut self, len: usize) -> &mut [u8] {
        &mut self[..len]
    }
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
    fn a_slice_is_its_own_limit() {
        let mut b = [5u8; 8];
        let mut s = &mut b[..];
        let d: &mut dyn Dest = &mut s;
        assert_eq!(d.limit(), 8);
        assert_eq!(d.upto(3), &[5, 5, 5]);
    }
}
