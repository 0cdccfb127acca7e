//! The chunks of a super-chunk held in memory, in order, as a list that can lose or gain a
//! chunk in the middle without moving every later one.
//!
//! A plain vector moves every later handle on an insert or a delete: at 10^6 chunks 4 MB
//! per call, paid on top of the same move the C face makes in its public `data` array (the
//! reference has only that one). Here the handles live in blocks of [`BLOCK`]; an insert or
//! a delete moves handles within one block and then one handle across each later block
//! boundary, so it costs `O(BLOCK + len / BLOCK)`, while reading entry `n` stays two
//! indexing steps.

use std::collections::VecDeque;

use super::MemChunk;

/// Handles per block: a power of two, so that finding entry `n` is a shift and a mask.
const SHIFT: u32 = 12;
const BLOCK: usize = 1 << SHIFT;
const MASK: usize = BLOCK - 1;

/// Chunks in order (see the module documentation). Every block but the last holds exactly
/// [`BLOCK`] handles; the last holds 1 to [`BLOCK`]; an empty list has no block.
#[derive(Default)]
pub struct ChunkList {
    blocks: Vec<VecDeque<MemChunk>>,
    len: usize,
}

impl ChunkList {
    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no chunk.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Chunk `n`; `None` past the end.
    pub fn get(&self, n: usize) -> Option<&MemChunk> {
        self.blocks.get(n >> SHIFT)?.get(n & MASK)
    }

    /// The last chunk; `None` when there is none.
    pub fn last(&self) -> Option<&MemChunk> {
        self.blocks.last()?.back()
    }

    /// Chunk `n`, to replace it; `None` past the end.
    pub fn get_mut(&mut self, n: usize) -> Option<&mut MemChunk> {
        self.blocks.get_mut(n >> SHIFT)?.get_mut(n & MASK)
    }

    /// Add `c` after the last chunk.
    pub fn push(&mut self, c: MemChunk) {
        match self.blocks.last_mut() {
            Some(b) if b.len() < BLOCK => b.push_back(c),
            _ => self.blocks.push(VecDeque::from([c])),
        }
        self.len += 1;
    }

    /// Insert `c` before chunk `n` (`n == len()` appends); `false` when `n > len()`.
    pub fn insert(&mut self, n: usize, c: MemChunk) -> bool {
        if n > self.len {
            return false;
        }
        if n == self.len {
            self.push(c);
            return true;
        }
        // Make room in block n / BLOCK by handing the last handle of each full block from
        // there on to the next one, from the end backwards.
        let first = n >> SHIFT;
        if self.blocks.last().is_some_and(|b| b.len() == BLOCK) {
            self.blocks.push(VecDeque::new());
        }
        for k in (first..self.blocks.len() - 1).rev() {
            if let Some(moved) = self.blocks[k].pop_back() {
                self.blocks[k + 1].push_front(moved);
            }
        }
        self.blocks[first].insert(n & MASK, c);
        self.len += 1;
        true
    }

    /// Remove chunk `n` and return it; `None` past the end.
    pub fn remove(&mut self, n: usize) -> Option<MemChunk> {
        let first = n >> SHIFT;
        let removed = self.blocks.get_mut(first)?.remove(n & MASK)?;
        // Refill each block from the front of the next one.
        for k in first + 1..self.blocks.len() {
            if let Some(moved) = self.blocks[k].pop_front() {
                self.blocks[k - 1].push_back(moved);
            }
        }
        if self.blocks.last().is_some_and(VecDeque::is_empty) {
            self.blocks.pop();
        }
        self.len -= 1;
        Some(removed)
    }

    /// Every chunk from `start` on, in order.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = &MemChunk> + '_ {
        let first = start >> SHIFT;
        let skip = start & MASK;
        self.blocks.get(first..).unwrap_or_default().iter().enumerate().flat_map(move |(k, b)| b.range(if k == 0 { skip.min(b.len()) } else { 0 }..))
    }

    /// Every chunk, in order.
    pub fn iter(&self) -> impl Iterator<Item = &MemChunk> + '_ {
        self.iter_from(0)
    }

    /// Take every chunk out, in order, leaving the list empty.
    pub fn take_all(&mut self) -> Vec<MemChunk> {
        self.len = 0;
        std::mem::take(&mut self.blocks).into_iter().flatten().collect()
    }
}

impl std::ops::Index<usize> for ChunkList {
    type Output = MemChunk;
    /// Chunk `n`, for callers that checked `n` against [`ChunkList::len`].
    fn index(&self, n: usize) -> &MemChunk {
        &self.blocks[n >> SHIFT][n & MASK]
    }
}

impl FromIterator<MemChunk> for ChunkList {
    fn from_iter<I: IntoIterator<Item = MemChunk>>(iter: I) -> ChunkList {
        let mut l = ChunkList::default();
        for c in iter {
            l.push(c);
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn chunk(i: usize) -> MemChunk {
        MemChunk::Adopted(Arc::new((i as u64).to_le_bytes().to_vec()))
    }

    fn ids<'a>(it: impl Iterator<Item = &'a MemChunk>) -> Vec<u64> {
        it.map(|c| u64::from_le_bytes(c[..8].try_into().unwrap())).collect()
    }

    /// Edits at block boundaries and elsewhere, checked against a plain vector after each,
    /// with every block but the last full.
    #[test]
    fn edits_match_a_vector() {
        let mut list = ChunkList::default();
        let mut want: Vec<u64> = Vec::new();
        let mut next = 0usize;
        let mut fresh = || {
            next += 1;
            next
        };
        for _ in 0..3 * BLOCK + 5 {
            let i = fresh();
            list.push(chunk(i));
            want.push(i as u64);
        }
        let check = |list: &ChunkList, want: &Vec<u64>| {
            assert_eq!(list.len(), want.len());
            assert_eq!(ids(list.iter()), *want);
            for (k, b) in list.blocks.iter().enumerate() {
                if k + 1 < list.blocks.len() {
                    assert_eq!(b.len(), BLOCK, "block {k} not full");
                } else {
                    assert!(!b.is_empty() && b.len() <= BLOCK);
                }
            }
            for n in [0, 1, BLOCK - 1, BLOCK, 2 * BLOCK + 1, want.len().saturating_sub(1)] {
                assert_eq!(list.get(n).map(|c| u64::from_le_bytes(c[..8].try_into().unwrap())), want.get(n).copied(), "entry {n}");
                assert_eq!(ids(list.iter_from(n)), want[n.min(want.len())..], "from {n}");
            }
            assert!(list.get(want.len()).is_none());
            assert_eq!(list.last().map(|c| u64::from_le_bytes(c[..8].try_into().unwrap())), want.last().copied());
        };
        check(&list, &want);
        // usize::MAX: after the last chunk.
        for n in [0, BLOCK - 1, BLOCK, 2 * BLOCK, 5, usize::MAX] {
            let n = n.min(list.len());
            let i = fresh();
            assert!(list.insert(n, chunk(i)));
            want.insert(n, i as u64);
            check(&list, &want);
        }
        assert!(!list.insert(list.len() + 1, chunk(0)));
        // usize::MAX: the last chunk.
        for n in [0, BLOCK, BLOCK - 1, 3 * BLOCK, 17, usize::MAX] {
            let n = n.min(list.len() - 1);
            let got = list.remove(n).map(|c| u64::from_le_bytes(c[..8].try_into().unwrap()));
            assert_eq!(got, Some(want.remove(n)));
            check(&list, &want);
        }
        assert!(list.remove(list.len()).is_none());
        let i = fresh();
        *list.get_mut(BLOCK + 3).unwrap() = chunk(i);
        want[BLOCK + 3] = i as u64;
        check(&list, &want);
        // Down to nothing and up again.
        while !list.is_empty() {
            let n = list.len() / 2;
            list.remove(n);
            want.remove(n);
        }
        check(&list, &want);
        assert!(list.blocks.is_empty());
        assert!(list.insert(0, chunk(1)));
        want.insert(0, 1);
        check(&list, &want);
        let all = list.take_all();
        assert_eq!(ids(all.iter()), want);
        assert!(list.is_empty() && list.blocks.is_empty());
    }

    #[test]
    fn collects_in_order() {
        let list: ChunkList = (0..BLOCK + 2).map(chunk).collect();
        assert_eq!(ids(list.iter()), (0..BLOCK as u64 + 2).collect::<Vec<_>>());
    }
}
