//! The n-dimensional cell filters (`BLOSC_FILTER_NDCELL` 32 and `BLOSC_FILTER_NDMEAN` 33).
//!
//! Both cut a block of a b2nd array (its shape from the "b2nd" metalayer) into cells of
//! `meta` items per side, the last cell of each dimension cut short by the block's edge,
//! and write the cells one after the other, each in row-major order. NDCELL keeps the items
//! (lossless: codecs then see neighbours in every dimension close together); NDMEAN
//! replaces every item of a cell with the cell's mean (lossy, float32/float64 only), which
//! the backward direction merely puts back in place.

/// Most dimensions either filter handles.
pub const MAX_DIM: usize = 8;

/// Why a filter call failed; the plugins report every case as `BLOSC2_ERROR_FAILURE`.
#[derive(Debug, PartialEq, Eq)]
pub struct Invalid;

/// The cells of one block: for each cell, the runs of contiguous items (start item, length)
/// it is made of, in the order the filters write them.
struct Cells {
    ndim: usize,
    /// Items per side of a cell, per dimension.
    cell: [i64; MAX_DIM],
    block: [i64; MAX_DIM],
    /// Item stride of each dimension inside the block.
    stride: [i64; MAX_DIM],
    /// Cells per dimension.
    ncells: [i64; MAX_DIM],
    /// What a cell's index along any dimension is multiplied by to get its first item:
    /// the cell side. NDMEAN uses the first dimension's side for every dimension (as the
    /// reference does), which only differs when the block is thinner than a cell in the
    /// first dimension.
    origin_side: i64,
    nitems: i64,
}

impl Cells {
    fn new(blockshape: &[i32], cell: &[i64], origin_side: i64) -> Result<Cells, Invalid> {
        let ndim = blockshape.len();
        if ndim == 0 || ndim > MAX_DIM || cell.len() != ndim {
            return Err(Invalid);
        }
        let mut c = Cells {
            ndim,
            cell: [1; MAX_DIM],
            block: [1; MAX_DIM],
            stride: [1; MAX_DIM],
            ncells: [1; MAX_DIM],
            origin_side,
            nitems: 1,
        };
        for i in 0..ndim {
            if blockshape[i] <= 0 || cell[i] <= 0 {
                return Err(Invalid);
            }
            c.block[i] = blockshape[i] as i64;
            c.cell[i] = cell[i];
            c.ncells[i] = (c.block[i] + cell[i] - 1) / cell[i];
            c.nitems = c.nitems.checked_mul(c.block[i]).ok_or(Invalid)?;
        }
        for i in (0..ndim - 1).rev() {
            c.stride[i] = c.stride[i + 1] * c.block[i + 1];
        }
        Ok(c)
    }

    /// Calls `f` with the runs of each cell in turn; `runs` is scratch space.
    fn for_each(&self, mut f: impl FnMut(&[(usize, usize)]) -> Result<(), Invalid>) -> Result<(), Invalid> {
        let n = self.ndim;
        let total: i64 = self.ncells[..n].iter().product();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut idx = [0i64; MAX_DIM];
        for _ in 0..total {
            let mut orig = 0i64;
            let mut extent = [0i64; MAX_DIM];
            for d in 0..n {
                orig += idx[d] * self.origin_side * self.stride[d];
                let last = idx[d] == self.ncells[d] - 1;
                let rem = self.block[d] % self.cell[d];
                extent[d] = if last && rem != 0 { rem } else { self.cell[d] };
            }
            runs.clear();
            let rows: i64 = extent[..n - 1].iter().product();
            let mut k = [0i64; MAX_DIM];
            for _ in 0..rows {
                let start = orig + (0..n - 1).map(|d| k[d] * self.stride[d]).sum::<i64>();
                let len = extent[n - 1];
                if start < 0 || start + len > self.nitems {
                    return Err(Invalid);
                }
                runs.push((start as usize, len as usize));
                // Next row: the last of the leading dimensions moves fastest.
                for d in (0..n - 1).rev() {
                    k[d] += 1;
                    if k[d] < extent[d] {
                        break;
                    }
                    k[d] = 0;
                }
            }
            f(&runs)?;
            for d in (0..n).rev() {
                idx[d] += 1;
                if idx[d] < self.ncells[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        Ok(())
    }
}

/// The checks both filters make on a block of `len` bytes: its shape must describe exactly
/// `len` bytes of `typesize`-byte items.
fn check_block(blockshape: &[i32], typesize: usize, len: usize) -> Result<(), Invalid> {
    if typesize == 0 {
        return Err(Invalid);
    }
    let mut bytes = typesize as i64;
    for &b in blockshape {
        if b <= 0 {
            return Err(Invalid);
        }
        bytes = bytes.checked_mul(b as i64).ok_or(Invalid)?;
        if bytes > len as i64 {
            return Err(Invalid);
        }
    }
    if bytes != len as i64 {
        return Err(Invalid);
    }
    Ok(())
}

/// NDCELL: the side of a cell is `meta` (1..=255) in every dimension, and a whole cell must
/// fit in the block.
fn ndcell_cells(blockshape: &[i32], meta: u8, typesize: usize, len: usize) -> Result<Cells, Invalid> {
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM || meta == 0 {
        return Err(Invalid);
    }
    check_block(blockshape, typesize, len)?;
    let side = meta as i64;
    let cell_items = (0..ndim).try_fold(1i64, |acc, _| acc.checked_mul(side)).ok_or(Invalid)?;
    if cell_items > (len / typesize) as i64 {
        return Err(Invalid);
    }
    Cells::new(blockshape, &vec![side; ndim], side)
}

/// Gather the cells of `src` into `dst`, cell after cell.
pub fn ndcell_forward(blockshape: &[i32], meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    let cells = ndcell_cells(blockshape, meta, typesize, src.len())?;
    match Grid::of(&cells) {
        Some(grid) => grid.gather(typesize, src, dst),
        None => gather(&cells, typesize, src, dst),
    }
}

/// Put cells written by [`ndcell_forward`] back in place.
pub fn ndcell_backward(blockshape: &[i32], meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    let cells = ndcell_cells(blockshape, meta, typesize, src.len())?;
    scatter_cells(&cells, typesize, src, dst)
}

/// [`scatter`] through the [`Grid`] when the cells form one.
fn scatter_cells(cells: &Cells, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    match Grid::of(cells) {
        Some(grid) => grid.scatter(ts, src, dst),
        None => scatter(cells, ts, src, dst),
    }
}

fn gather(cells: &Cells, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    if dst.len() != src.len() {
        return Err(Invalid);
    }
    let mut op = 0usize;
    cells.for_each(|runs| {
        for &(start, len) in runs {
            let n = len * ts;
            dst[op..op + n].copy_from_slice(&src[start * ts..start * ts + n]);
            op += n;
        }
        Ok(())
    })?;
    if op != src.len() {
        return Err(Invalid);
    }
    Ok(())
}

/// The inverse of `gather`. As the reference, the block is accepted when the last run
/// written ends at the block's end.
fn scatter(cells: &Cells, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    if dst.len() != src.len() {
        return Err(Invalid);
    }
    let mut ip = 0usize;
    let mut end = 0usize;
    cells.for_each(|runs| {
        for &(start, len) in runs {
            let n = len * ts;
            if ip + n > src.len() {
                return Err(Invalid);
            }
            dst[start * ts..start * ts + n].copy_from_slice(&src[ip..ip + n]);
            ip += n;
            end = start + len;
        }
        Ok(())
    })?;
    if end as i64 != cells.nitems {
        return Err(Invalid);
    }
    Ok(())
}

/// NDMEAN: the side of a cell is `meta` (1..=127), clipped to the block in each dimension.
fn ndmean_cells(blockshape: &[i32], meta: u8, typesize: usize, len: usize) -> Result<Cells, Invalid> {
    let ndim = blockshape.len();
    if ndim == 0 || ndim > MAX_DIM || meta == 0 || meta > 127 {
        return Err(Invalid);
    }
    check_block(blockshape, typesize, len)?;
    let cell: Vec<i64> = blockshape.iter().map(|&b| (meta as i64).min(b as i64)).collect();
    Cells::new(blockshape, &cell, cell[0])
}

/// Replace each cell by as many copies of its mean as it has items, cell after cell.
/// Means are summed in row order and divided in the item type, as the reference does, so
/// both libraries write the same bytes.
pub fn ndmean_forward(blockshape: &[i32], meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    if typesize != 4 && typesize != 8 {
        return Err(Invalid);
    }
    let cells = ndmean_cells(blockshape, meta, typesize, src.len())?;
    if dst.len() != src.len() {
        return Err(Invalid);
    }
    if let Some(grid) = Grid::of(&cells) {
        return match typesize {
            4 => grid.means::<f32, 4>(src, dst),
            _ => grid.means::<f64, 8>(src, dst),
        };
    }
    match typesize {
        4 => ndmean_by_runs::<f32, 4>(&cells, src, dst),
        _ => ndmean_by_runs::<f64, 8>(&cells, src, dst),
    }
}

/// [`ndmean_forward`] cell by cell, for cells that do not form a [`Grid`].
fn ndmean_by_runs<T: Mean, const TS: usize>(cells: &Cells, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    let mut op = 0usize;
    cells.for_each(|runs| {
        let count: usize = runs.iter().map(|r| r.1).sum();
        let n = count * TS;
        let out = &mut dst[op..op + n];
        let mut sum = T::default();
        for &(start, len) in runs {
            for c in src[start * TS..(start + len) * TS].chunks_exact(TS) {
                sum += T::read(c);
            }
        }
        let mean = sum / T::count(count);
        out.chunks_exact_mut(TS).for_each(|o| mean.write(o));
        op += n;
        Ok(())
    })?;
    if op != src.len() {
        return Err(Invalid);
    }
    Ok(())
}

/// Put the cells written by [`ndmean_forward`] back in place (the means stay).
pub fn ndmean_backward(blockshape: &[i32], meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
    let cells = ndmean_cells(blockshape, meta, typesize, src.len())?;
    scatter_cells(&cells, typesize, src, dst)
}

/// The cells of a block when each one starts at its index times its side in every dimension
/// (always for NDCELL; for NDMEAN unless a dimension with several cells has a side other than
/// the first dimension's, see [`Cells::origin_side`]).  The filters then walk the block row by
/// row, in memory order, instead of cell by cell: a row of the last dimension crosses one cell
/// after the other, and a cell's rows still come in the order [`Cells::for_each`] gives them
/// (its rows are the block's rows it meets, in the block's order).  That reads and writes
/// whole rows and keeps the running sums of NDMEAN independent from one cell to the next.
struct Grid {
    ndim: usize,
    cell: [usize; MAX_DIM],
    block: [usize; MAX_DIM],
    ncells: [usize; MAX_DIM],
    /// First item of each cell in the filtered order (cells one after the other), and the
    /// block's item count after the last.
    base: Vec<usize>,
}

/// The float types NDMEAN averages, summed and divided in their own precision.
trait Mean: Copy + Default + std::ops::AddAssign + std::ops::Div<Output = Self> {
    fn read(bytes: &[u8]) -> Self;
    fn write(self, out: &mut [u8]);
    fn count(n: usize) -> Self;
}

impl Mean for f32 {
    fn read(b: &[u8]) -> f32 {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn count(n: usize) -> f32 {
        n as f32
    }
}

impl Mean for f64 {
    fn read(b: &[u8]) -> f64 {
        f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
    fn write(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn count(n: usize) -> f64 {
        n as f64
    }
}

impl Grid {
    fn of(cells: &Cells) -> Option<Grid> {
        let n = cells.ndim;
        let mut g = Grid { ndim: n, cell: [1; MAX_DIM], block: [1; MAX_DIM], ncells: [1; MAX_DIM], base: Vec::new() };
        for d in 0..n {
            if cells.ncells[d] > 1 && cells.cell[d] != cells.origin_side {
                return None;
            }
            g.cell[d] = usize::try_from(cells.cell[d]).ok()?;
            g.block[d] = usize::try_from(cells.block[d]).ok()?;
            g.ncells[d] = usize::try_from(cells.ncells[d]).ok()?;
        }
        let total: usize = g.ncells[..n].iter().product();
        g.base.reserve(total + 1);
        let mut idx = [0usize; MAX_DIM];
        let mut at = 0usize;
        for _ in 0..total {
            g.base.push(at);
            at += (0..n).map(|d| g.extent(d, idx[d])).product::<usize>();
            step(&mut idx[..n], &g.ncells[..n]);
        }
        g.base.push(at);
        (at as i64 == cells.nitems).then_some(g)
    }

    /// Items along dimension `d` of the cells with index `i` there (the last cut short by
    /// the block's edge).
    #[inline(always)]
    fn extent(&self, d: usize, i: usize) -> usize {
        (self.block[d] - i * self.cell[d]).min(self.cell[d])
    }

    /// Calls `f(item, cell, slot, len)` for every piece of a row that lies in one cell, in
    /// memory order: `len` items starting at block item `item` belong to cell `cell` (its
    /// index in cell order), where they are `slot` items after the cell's first.
    #[inline(always)]
    fn for_each_piece(&self, mut f: impl FnMut(usize, usize, usize, usize) -> Result<(), Invalid>) -> Result<(), Invalid> {
        let n = self.ndim;
        let last = n - 1;
        let row_len = self.block[last];
        let side = self.cell[last];
        let across = self.ncells[last];
        let rows: usize = self.block[..last].iter().product();
        let mut at = [0usize; MAX_DIM];
        for row in 0..rows {
            // The cell the row's leading coordinates fall in, and the row's place in it.
            let mut lead = 0usize;
            let mut inner = 0usize;
            for d in 0..last {
                let i = at[d] / self.cell[d];
                lead = lead * self.ncells[d] + i;
                inner = inner * self.extent(d, i) + at[d] % self.cell[d];
            }
            let first = row * row_len;
            for j in 0..across {
                let len = self.extent(last, j);
                f(first + j * side, lead * across + j, inner * len, len)?;
            }
            step(&mut at[..last], &self.block[..last]);
        }
        Ok(())
    }

    /// NDCELL's forward direction (`GATHER`: each piece from its place in the block to its
    /// place in its cell) or either filter's backward one (the other way).
    fn move_pieces<const GATHER: bool>(&self, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
        if dst.len() != src.len() {
            return Err(Invalid);
        }
        self.for_each_piece(|item, cell, slot, len| {
            let in_block = item * ts;
            let in_cell = (self.base[cell] + slot) * ts;
            let (from, to) = if GATHER { (in_block, in_cell) } else { (in_cell, in_block) };
            copy_run(dst.get_mut(to..to + len * ts).ok_or(Invalid)?, src.get(from..from + len * ts).ok_or(Invalid)?);
            Ok(())
        })
    }

    fn gather(&self, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
        self.move_pieces::<true>(ts, src, dst)
    }

    fn scatter(&self, ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
        self.move_pieces::<false>(ts, src, dst)
    }

    /// NDMEAN's forward direction: each cell's items summed in the order [`Cells::for_each`]
    /// visits them (so the sums are the reference's to the bit), then written as its mean.
    fn means<T: Mean, const TS: usize>(&self, src: &[u8], dst: &mut [u8]) -> Result<(), Invalid> {
        let total = self.base.len() - 1;
        let mut sums = vec![T::default(); total];
        self.for_each_piece(|item, cell, _, len| {
            let row = src.get(item * TS..(item + len) * TS).ok_or(Invalid)?;
            let sum = sums.get_mut(cell).ok_or(Invalid)?;
            for x in row.chunks_exact(TS) {
                *sum += T::read(x);
            }
            Ok(())
        })?;
        for (cell, sum) in sums.into_iter().enumerate() {
            let (start, end) = (self.base[cell], self.base[cell + 1]);
            let mean = sum / T::count(end - start);
            let out = dst.get_mut(start * TS..end * TS).ok_or(Invalid)?;
            out.chunks_exact_mut(TS).for_each(|o| mean.write(o));
        }
        Ok(())
    }
}

/// Moves the multi-index `idx` to the next one in row-major order below `limits` (the last
/// coordinate fastest), back to all zeros after the last.
#[inline(always)]
fn step(idx: &mut [usize], limits: &[usize]) {
    for (i, &limit) in idx.iter_mut().zip(limits).rev() {
        *i += 1;
        if *i < limit {
            return;
        }
        *i = 0;
    }
}

/// `dst.copy_from_slice(src)`, with the row pieces of the usual cells (4 or 8 items of 4 or
/// 8 bytes) copied inline instead of through `memcpy`, as fixed-size arrays (their lengths
/// checked once each; a version slicing both to a constant length measured slower here).
#[inline(always)]
fn copy_run(dst: &mut [u8], src: &[u8]) {
    match (<&mut [u8; 16]>::try_from(&mut *dst), <&[u8; 16]>::try_from(src)) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => match (<&mut [u8; 32]>::try_from(&mut *dst), <&[u8; 32]>::try_from(src)) {
            (Ok(d), Ok(s)) => *d = *s,
            _ => match (<&mut [u8; 64]>::try_from(&mut *dst), <&[u8; 64]>::try_from(src)) {
                (Ok(d), Ok(s)) => *d = *s,
                _ => dst.copy_from_slice(src),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(n: usize) -> Vec<u8> {
        (0..n).map(|i| i as u8).collect()
    }

    #[test]
    fn ndcell_matches_the_documented_2d_layout() {
        // A 4x8 block of bytes with 2x2 cells.
        let src = iota(32);
        let mut dst = vec![0; 32];
        ndcell_forward(&[4, 8], 2, 1, &src, &mut dst).unwrap();
        assert_eq!(&dst[..8], &[0, 1, 8, 9, 2, 3, 10, 11]);
        assert_eq!(&dst[16..20], &[16, 17, 24, 25]);
        let mut back = vec![0; 32];
        ndcell_backward(&[4, 8], 2, 1, &dst, &mut back).unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn ndcell_round_trips_uneven_blocks_in_every_dimension_count() {
        for (bs, meta, ts) in [
            (vec![7], 3u8, 4usize),
            (vec![5, 7], 3, 2),
            (vec![3, 5, 7], 2, 8),
            (vec![3, 4, 5, 3], 2, 1),
        ] {
            let n: usize = bs.iter().map(|&b| b as usize).product::<usize>() * ts;
            let src: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let mut mid = vec![0; n];
            let mut back = vec![0; n];
            ndcell_forward(&bs, meta, ts, &src, &mut mid).unwrap();
            ndcell_backward(&bs, meta, ts, &mid, &mut back).unwrap();
            assert_eq!(back, src, "{bs:?}");
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let src = iota(32);
        let mut dst = vec![0; 32];
        assert_eq!(ndcell_forward(&[4, 8], 0, 1, &src, &mut dst), Err(Invalid));
        // A cell of 6x6 items is more than the 4x8 block holds.
        assert_eq!(ndcell_forward(&[4, 8], 6, 1, &src, &mut dst), Err(Invalid));
        assert_eq!(ndcell_forward(&[4, 4], 2, 1, &src, &mut dst), Err(Invalid));
        assert_eq!(ndmean_forward(&[4, 8], 2, 1, &src, &mut dst), Err(Invalid));
        assert_eq!(ndmean_forward(&[2, 4], 128, 4, &src, &mut dst), Err(Invalid));
    }

    /// The row-by-row walk of [`Grid`] against the cell-by-cell one of [`Cells::for_each`]
    /// (which follows the reference's loops): same bytes from NDCELL both ways and NDMEAN
    /// forward (sums to the bit) and back, over even and uneven blocks of one to four
    /// dimensions, cells larger than the block in some dimension, and every typesize.
    #[test]
    fn grid_walk_writes_what_the_cell_walk_writes() {
        let mut rng = crate::test_rng::Rng::new(0x6e64_6365);
        let mut next = move || rng.next_u64();
        let shapes: [&[i32]; 10] = [
            &[64, 64],
            &[7],
            &[5, 7],
            &[3, 5, 7],
            &[3, 4, 5, 3],
            &[2, 64],
            &[64, 3],
            &[17, 9, 4],
            &[1, 1, 8],
            &[6, 6, 6],
        ];
        let mut grids = 0;
        for bs in shapes {
            let items: usize = bs.iter().map(|&b| b as usize).product();
            for meta in [1u8, 2, 3, 4, 5, 8] {
                for ts in [1usize, 2, 4, 8, 16] {
                    let len = items * ts;
                    let src: Vec<u8> = if ts == 4 {
                        (0..items).flat_map(|_| ((next() % 20_000) as f32 / 7.0 - 1000.0).to_le_bytes()).collect()
                    } else if ts == 8 {
                        (0..items).flat_map(|_| ((next() % 2_000_000) as f64 / 3.0 - 1e5).to_le_bytes()).collect()
                    } else {
                        (0..len).map(|_| next() as u8).collect()
                    };
                    if let Ok(cells) = ndcell_cells(bs, meta, ts, len) {
                        let grid = Grid::of(&cells).expect("NDCELL cells always form a grid");
                        grids += 1;
                        let (mut a, mut b) = (vec![0; len], vec![0; len]);
                        grid.gather(ts, &src, &mut a).unwrap();
                        gather(&cells, ts, &src, &mut b).unwrap();
                        assert_eq!(a, b, "ndcell gather {bs:?} meta {meta} ts {ts}");
                        let (mut c, mut d) = (vec![0; len], vec![0; len]);
                        grid.scatter(ts, &a, &mut c).unwrap();
                        scatter(&cells, ts, &a, &mut d).unwrap();
                        assert_eq!(c, d, "ndcell scatter {bs:?} meta {meta} ts {ts}");
                        assert_eq!(c, src);
                    }
                    if ts != 4 && ts != 8 {
                        continue;
                    }
                    let cells = ndmean_cells(bs, meta, ts, len).unwrap();
                    let (mut a, mut b) = (vec![0; len], vec![0; len]);
                    ndmean_forward(bs, meta, ts, &src, &mut a).unwrap();
                    if ts == 4 { ndmean_by_runs::<f32, 4>(&cells, &src, &mut b) } else { ndmean_by_runs::<f64, 8>(&cells, &src, &mut b) }.unwrap();
                    assert_eq!(a, b, "ndmean forward {bs:?} meta {meta} ts {ts}");
                    // Where NDMEAN's cells overlap, the reference refuses to put them back.
                    let (mut c, mut d) = (vec![0; len], vec![0; len]);
                    let back = ndmean_backward(bs, meta, ts, &a, &mut c);
                    assert_eq!(back, scatter(&cells, ts, &a, &mut d), "ndmean backward {bs:?} meta {meta} ts {ts}");
                    assert_eq!(back.is_ok(), Grid::of(&cells).is_some(), "{bs:?} meta {meta}");
                    assert_eq!(c, d, "ndmean backward {bs:?} meta {meta} ts {ts}");
                }
            }
        }
        assert!(grids > 200, "{grids}");
        // A block thinner than a cell in its first dimension but not in the next: NDMEAN's
        // cells overlap there (the reference places them by the first side), no grid.
        let cells = ndmean_cells(&[2, 9], 4, 4, 72).unwrap();
        assert!(Grid::of(&cells).is_none());
    }

    #[test]
    fn ndmean_writes_cell_means() {
        let vals: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut mid = vec![0; 32];
        ndmean_forward(&[2, 4], 2, 4, &src, &mut mid).unwrap();
        let mut back = vec![0; 32];
        ndmean_backward(&[2, 4], 2, 4, &mid, &mut back).unwrap();
        let out: Vec<f32> = back.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        // Cells {0,1,4,5} and {2,3,6,7}.
        assert_eq!(out, vec![2.5, 2.5, 4.5, 4.5, 2.5, 2.5, 4.5, 4.5]);
    }
}
