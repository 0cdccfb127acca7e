//! The decoded entries of a frame index, held as the bytes the index chunk stores: one
//! little-endian `i64` per chunk.
//!
//! Every change of a frame compresses its whole index again. Holding the entries as those
//! bytes lets the compressor read them where they are; a list of `i64` first had to be
//! converted into a fresh buffer of the same size, which at 10^6 chunks (8 MB) cost about a
//! quarter of each update of a frame file on this project's VM, most of it faulting in the
//! new buffer's pages.
//!
//! The list also keeps the index chunk last made from it and which entries changed since
//! ([`Written`]), so that the next index chunk need only recompress the blocks of entries
//! that changed (`offsets::compress_index`).

use std::ops::Range;

/// What a change did to the entries, in order, so that it can be undone.
pub type Undo = Vec<UndoStep>;

/// One edit of the entries, as [`Entries::restore`] undoes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UndoStep {
    /// Entry `.0` held `.1`.
    Entry(usize, i64),
    /// [`Entries::shift_above`] added `delta` to the entries whose bits are set in `moved`
    /// (one bit per entry; a shift of 10^6 entries listed one by one took about 10 MB).
    Shift {
        /// What was added.
        delta: i64,
        /// Bit `i % 64` of word `i / 64`: entry `i` was shifted.
        moved: Vec<u64>,
    },
}

/// Index entries, little-endian `i64`s back to back (see the module documentation).
#[derive(Clone, Default)]
pub struct Entries {
    bytes: Vec<u8>,
    /// The index chunk made last from these entries, if it may be reused.
    written: Option<Box<Written>>,
}

/// An index chunk made from a list of entries, and what changed in the list since.
#[derive(Clone, Debug)]
pub struct Written {
    /// The chunk (see `offsets::compress_index`, which alone sets it).
    pub chunk: Vec<u8>,
    /// Entries the list held then.
    pub len: usize,
    /// The entries changed, inserted or moved since, numbered as they are now, from the
    /// lowest to one past the highest (`None`: none). An entry removed at `n` touches `n..`.
    pub touched: Option<Range<usize>>,
}

impl PartialEq for Entries {
    /// Entries are equal when they hold the same values, whatever chunk was made of them.
    fn eq(&self, other: &Entries) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for Entries {}

const W: usize = 8;

impl Entries {
    /// Entries from their stored bytes; `None` when the length is not a whole number of
    /// entries.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<Entries> {
        (bytes.len() % W == 0).then_some(Entries { bytes, written: None })
    }

    /// `len` copies of `entry`.
    pub fn repeat(entry: i64, len: usize) -> Entries {
        Entries { bytes: entry.to_le_bytes().repeat(len), written: None }
    }

    /// The stored bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.bytes.len() / W
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn span(n: usize) -> std::ops::Range<usize> {
        n * W..n * W + W
    }

    /// Entry `n`; `None` past the end.
    pub fn get(&self, n: usize) -> Option<i64> {
        let b: [u8; W] = self.bytes.get(Self::span(n))?.try_into().ok()?;
        Some(i64::from_le_bytes(b))
    }

    /// Replace entry `n` with `v` and return what it was.
    ///
    /// # Panics
    /// When `n` is out of range, as indexing a list does.
    pub fn replace(&mut self, n: usize, v: i64) -> i64 {
        let slot = &mut self.bytes[Self::span(n)];
        let was = i64::from_le_bytes((&*slot).try_into().expect("8 bytes"));
        slot.copy_from_slice(&v.to_le_bytes());
        self.touch(n..n + 1);
        was
    }

    /// Insert `v` before entry `n` (`n == len()` appends).
    ///
    /// # Panics
    /// When `n > len()`, as `Vec::insert` does.
    pub fn insert(&mut self, n: usize, v: i64) {
        assert!(n <= self.len(), "index entry {n} out of range");
        let at = n * W;
        self.bytes.splice(at..at, v.to_le_bytes());
        self.touch(n..self.len());
    }

    /// Append `v`.
    pub fn push(&mut self, v: i64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self.touch(self.len() - 1..self.len());
    }

    /// Remove entry `n` and return it.
    ///
    /// # Panics
    /// When `n` is out of range, as `Vec::remove` does.
    pub fn remove(&mut self, n: usize) -> i64 {
        let was = self.get(n).expect("index entry out of range");
        self.bytes.drain(Self::span(n));
        self.touch(n..self.len().max(n));
        was
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = i64> + '_ {
        self.bytes.chunks_exact(W).map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// Add `delta` to every stored entry (non-negative) above `above` except entry `skip`,
    /// recording which in `undo`.
    pub fn shift_above(&mut self, above: i64, delta: i64, skip: usize, undo: &mut Undo) {
        if delta == 0 {
            return;
        }
        let mut moved = vec![0u64; self.len().div_ceil(64)];
        let mut changed: Option<Range<usize>> = None;
        for (i, b) in self.bytes.chunks_exact_mut(W).enumerate() {
            let o = i64::from_le_bytes((&*b).try_into().expect("8 bytes"));
            if i != skip && o >= 0 && o > above {
                moved[i / 64] |= 1 << (i % 64);
                b.copy_from_slice(&(o + delta).to_le_bytes());
                changed = Some(changed.map_or(i..i + 1, |r| r.start..i + 1));
            }
        }
        if let Some(r) = changed {
            self.touch(r);
            undo.push(UndoStep::Shift { delta, moved });
        }
    }

    /// Put back what `undo` recorded, last change first.
    pub fn restore(&mut self, undo: Undo) {
        for step in undo.into_iter().rev() {
            match step {
                UndoStep::Entry(i, o) => {
                    self.replace(i, o);
                }
                UndoStep::Shift { delta, moved } => {
                    for (w, &bits) in moved.iter().enumerate() {
                        let mut bits = bits;
                        while bits != 0 {
                            let i = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if let Some(v) = self.get(i) {
                                self.replace(i, v - delta);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Record that the entries `r` changed (or moved) since the chunk last made, if any.
    fn touch(&mut self, r: Range<usize>) {
        if let Some(w) = &mut self.written {
            w.touched = Some(match w.touched.take() {
                Some(t) => t.start.min(r.start)..t.end.max(r.end),
                None => r,
            });
        }
    }

    /// The index chunk made last from these entries and what changed since, if any.
    pub fn written(&self) -> Option<&Written> {
        self.written.as_deref()
    }

    /// Keep `chunk`, just made from the entries as they are, for the next chunk to reuse;
    /// `None` forgets the last one.
    pub fn set_written(&mut self, chunk: Option<Vec<u8>>) {
        self.written = chunk.map(|chunk| Box::new(Written { chunk, len: self.len(), touched: None }));
    }

}

impl FromIterator<i64> for Entries {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Entries {
        Entries { bytes: iter.into_iter().flat_map(i64::to_le_bytes).collect(), written: None }
    }
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every edit, checked against the same edits on a plain list.
    #[test]
    fn edits_match_a_list() {
        let mut list: Vec<i64> = vec![0, 96, -1, 1 << 40, 7];
        let mut e: Entries = list.iter().copied().collect();
        assert_eq!(e.len(), 5);
        assert_eq!(e.as_bytes().len(), 40);
        e.insert(2, 55);
        list.insert(2, 55);
        e.insert(6, -9);
        list.insert(6, -9);
        e.push(123);
        list.push(123);
        assert_eq!(e.remove(0), list.remove(0));
        assert_eq!(e.replace(3, 4), std::mem::replace(&mut list[3], 4));
        assert_eq!(e.iter().collect::<Vec<_>>(), list);
        assert_eq!((0..list.len()).map(|i| e.get(i)).collect::<Vec<_>>(), list.iter().map(|&v| Some(v)).collect::<Vec<_>>());
        assert_eq!(e.get(list.len()), None);
        assert_eq!(Entries::from_bytes(e.as_bytes().to_vec()), Some(e.clone()));
        assert_eq!(Entries::from_bytes(vec![0; 9]), None);
        assert_eq!(Entries::repeat(-5, 3).iter().collect::<Vec<_>>(), vec![-5; 3]);
    }

    #[test]
    fn shifts_are_undone_exactly() {
        let before: Entries = [0i64, 100, 200, -1, 300, 100].into_iter().collect();
        let mut e = before.clone();
        let mut undo = Vec::new();
        e.shift_above(100, -40, 4, &mut undo);
        assert_eq!(e.iter().collect::<Vec<_>>(), vec![0, 100, 160, -1, 300, 100]);
        e.replace(1, 7);
        undo.push(UndoStep::Entry(1, 100));
        e.restore(undo);
        assert_eq!(e, before);
    }

    /// Shifted entries that land on the values of entries left alone are told apart, across
    /// the words of the record, over shifts and edits interleaved.
    #[test]
    fn shifts_undo_what_they_moved_and_nothing_else() {
        let before: Entries = [0i64, 100, 200, -1, 300, 100, 90, 130].into_iter().collect();
        let mut e = before.clone();
        let mut undo = Vec::new();
        e.shift_above(100, -40, 4, &mut undo);
        assert_eq!(e.iter().collect::<Vec<_>>(), vec![0, 100, 160, -1, 300, 100, 90, 90]);
        e.restore(undo);
        assert_eq!(e, before);

        let mut rng = crate::test_rng::Rng::new(9);
        let before: Entries = (0..1000).map(|_| rng.below(5000) as i64 - 100).collect();
        let mut e = before.clone();
        let mut undo = Vec::new();
        for _ in 0..20 {
            let at = rng.below(e.len());
            if rng.below(2) == 0 {
                let was = e.replace(at, rng.below(5000) as i64);
                undo.push(UndoStep::Entry(at, was));
            } else {
                let delta = rng.below(400) as i64 - 200;
                e.shift_above(rng.below(5000) as i64, delta, at, &mut undo);
            }
        }
        assert_ne!(e, before);
        e.restore(undo);
        assert_eq!(e, before);
    }

    #[test]
    #[should_panic]
    fn inserting_past_the_end_panics_as_a_list_does() {
        Entries::repeat(1, 2).insert(3, 0);
    }
}
