//! Which chunks a resize inserts or deletes, as positions in the chunk grid.
//!
//! Growing a dimension by `delta` items at `start` (a chunk boundary, or the old end) inserts
//! whole zero chunks for every chunk of the new grid whose start along some dimension falls in
//! `[start, start + delta)`; shrinking deletes, from the old grid, the chunks whose start falls
//! in the removed band. Chunks are inserted in increasing and deleted in decreasing order so
//! that every index refers to the grid being built or taken apart, as the reference does.

use super::{unravel, Geometry, MAX_DIM};

/// Whether the chunk at grid position `idx` starts inside the band of any dimension.
fn in_band(g: &Geometry, idx: &[i64], start: &[i64], delta: &[i64]) -> bool {
    (0..g.ndim).any(|j| {
        let cstart = g.chunkshape[j] as i64 * idx[j];
        start[j] <= cstart && cstart < start[j] + delta[j]
    })
}

/// Chunk indices of the new grid `g_new` to insert (ascending) when growing by `delta` at
/// `start`.
pub fn inserted(g_new: &Geometry, start: &[i64], delta: &[i64]) -> Vec<i64> {
    let per_dim = g_new.chunks_per_dim();
    let mut idx = [0i64; MAX_DIM];
    (0..g_new.nchunks_grid())
        .filter(|&i| {
            unravel(i, &per_dim[..g_new.ndim], &mut idx[..g_new.ndim]);
            in_band(g_new, &idx[..g_new.ndim], start, delta)
        })
        .collect()
}

/// Chunk indices of the old grid `g_old` to delete (descending) when shrinking by `delta` at
/// `start`.
pub fn deleted(g_old: &Geometry, start: &[i64], delta: &[i64]) -> Vec<i64> {
    let per_dim = g_old.chunks_per_dim();
    let mut idx = [0i64; MAX_DIM];
    (0..g_old.nchunks_grid())
        .rev()
        .filter(|&i| {
            unravel(i, &per_dim[..g_old.ndim], &mut idx[..g_old.ndim]);
            in_band(g_old, &idx[..g_old.ndim], start, delta)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growing_at_the_end_inserts_the_new_row_and_column() {
        // 4x4 in 2x2 chunks -> 6x6: the new grid is 3x3, new chunks are row 2 and column 2.
        let g = Geometry::new(&[6, 6], &[2, 2], &[1, 1]).unwrap();
        assert_eq!(inserted(&g, &[4, 4], &[2, 2]), vec![2, 5, 6, 7, 8]);
        let old = Geometry::new(&[6, 6], &[2, 2], &[1, 1]).unwrap();
        assert_eq!(deleted(&old, &[2, 6], &[2, 0]), vec![5, 4, 3]);
    }
}
