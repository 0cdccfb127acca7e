//! Reusable scratch memory for the block pipeline and the filters.

/// Alignment of [`ScratchBuf`] bytes: a cache line, so that the shuffle kernels' vector
/// stores into scratch never straddle two lines (a block-sized `Vec<u8>` comes from
/// `mmap` and starts 16 bytes into a page; shuffling 32 KiB of 2-byte items into such a
/// buffer ran at about half the speed of an aligned one).
const SCRATCH_ALIGN: usize = 64;

/// A grow-only byte buffer whose contents start on a [`SCRATCH_ALIGN`] boundary.
#[derive(Default)]
pub struct ScratchBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl ScratchBuf {
    /// Grows to at least `n` bytes (new bytes zeroed, old ones kept).
    pub fn grow_to(&mut self, n: usize) {
        if self.len >= n {
            return;
        }
        let mut raw = vec![0u8; n + SCRATCH_ALIGN - 1];
        let start = (SCRATCH_ALIGN - raw.as_ptr() as usize % SCRATCH_ALIGN) % SCRATCH_ALIGN;
        raw[start..start + self.len].copy_from_slice(&self.raw[self.start..self.start + self.len]);
        *self = ScratchBuf { raw, start, len: n };
    }
}

impl std::ops::Deref for ScratchBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for ScratchBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::ScratchBuf;

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
}
