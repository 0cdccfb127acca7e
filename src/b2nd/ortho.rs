//! Orthogonal selections: the items at every combination of one index list per dimension,
//! laid out in the buffer by the position of each index in its list.
//!
//! Indices are sorted per dimension (by value, then by list position) and grouped by chunk;
//! touched chunks are visited in C order of the chunk grid, each read (and, for writes,
//! recompressed) once, as the reference does. Where a list repeats an index, writes take the
//! value from the later list position.

use super::slice::ChunkIo;
use super::{strides_of, Geometry, MAX_DIM};
use crate::error::{Error, Result};

/// The sorted (value, list position) entries of one dimension, split by chunk.
struct Dim {
    entries: Vec<(i64, i64)>,
    /// (chunk index along this dimension, range in `entries`)
    groups: Vec<(i64, std::ops::Range<usize>)>,
}

fn dim(values: &[i64], chunk: i64) -> Dim {
    let mut entries: Vec<(i64, i64)> = values.iter().enumerate().map(|(j, &v)| (v, j as i64)).collect();
    entries.sort();
    let mut groups: Vec<(i64, std::ops::Range<usize>)> = Vec::new();
    for (k, &(v, _)) in entries.iter().enumerate() {
        let c = v / chunk;
        match groups.last_mut() {
            Some((gc, r)) if *gc == c => r.end = k + 1,
            _ => groups.push((c, k..k + 1)),
        }
    }
    Dim { entries, groups }
}

/// Check the selection against the array and the buffer; returns the buffer strides.
pub fn check(g: &Geometry, typesize: usize, sel: &[&[i64]], bufshape: &[i64], buflen: usize) -> Result<[i64; MAX_DIM]> {
    let nd = g.ndim;
    if sel.len() != nd || bufshape.len() != nd {
        return Err(Error::InvalidParam);
    }
    let mut last: i64 = 0;
    let st = strides_of(bufshape);
    let mut empty = false;
    for i in 0..nd {
        if sel[i].iter().any(|&v| v < 0 || v >= g.shape[i]) {
            return Err(Error::InvalidIndex);
        }
        let n = sel[i].len() as i64;
        if n > bufshape[i] {
            return Err(Error::InvalidParam);
        }
        if n == 0 {
            empty = true;
        } else {
            last += (n - 1) * st[i];
        }
    }
    if !empty && (buflen as u128) < (last as u128 + 1) * typesize as u128 {
        return Err(Error::InvalidParam);
    }
    Ok(st)
}

enum Buf<'a> {
    Get(&'a mut [u8]),
    Set(&'a [u8]),
}

fn run(g: &Geometry, ts: usize, io: &mut dyn ChunkIo, sel: &[&[i64]], bufshape: &[i64], mut buf: Buf) -> Result<()> {
    let nd = g.ndim;
    let buflen = match &buf {
        Buf::Get(b) => b.len(),
        Buf::Set(b) => b.len(),
    };
    let bst = check(g, ts, sel, bufshape, buflen)?;
    if nd == 0 || sel.iter().any(|s| s.is_empty()) {
        return Ok(());
    }
    let dims: Vec<Dim> = (0..nd).map(|i| dim(sel[i], g.chunkshape[i] as i64)).collect();
    let grid = strides_of(&g.chunks_per_dim()[..nd]);
    let bper = g.blocks_per_dim();
    let bgrid = strides_of(&bper[..nd]);
    let nblocks = (g.extchunknitems / g.blocknitems.max(1) as i64) as usize;
    let mut data = vec![0u8; g.chunk_nbytes(ts as i32)? as usize];
    let ngroups: Vec<i64> = dims.iter().map(|d| d.groups.len() as i64).collect();
    let total: i64 = ngroups.iter().product();
    let mut gi = [0i64; MAX_DIM];
    for k in 0..total {
        super::unravel(k, &ngroups, &mut gi[..nd]);
        let groups: Vec<&(i64, std::ops::Range<usize>)> = (0..nd).map(|i| &dims[i].groups[gi[i] as usize]).collect();
        let nchunk: i64 = (0..nd).map(|i| groups[i].0 * grid[i]).sum();
        // Item offset within the chunk and buffer offset of every entry, per dimension.
        let per: Vec<Vec<(i64, i64, i64)>> = (0..nd)
            .map(|i| {
                dims[i].entries[groups[i].1.clone()]
                    .iter()
                    .map(|&(v, j)| {
                        let inc = v % g.chunkshape[i] as i64;
                        let bs = g.blockshape[i] as i64;
                        ((inc / bs) * bgrid[i], (inc % bs) * g.item_block_strides[i], j * bst[i])
                    })
                    .collect()
            })
            .collect();
        match &buf {
            Buf::Get(_) => {
                let mut needed = vec![false; nblocks];
                let lens: Vec<i64> = per.iter().map(|p| p.len() as i64).collect();
                let mut ix = [0i64; MAX_DIM];
                for e in 0..lens.iter().product::<i64>() {
                    super::unravel(e, &lens, &mut ix[..nd]);
                    let nb: i64 = (0..nd).map(|i| per[i][ix[i] as usize].0).sum();
                    needed[nb as usize] = true;
                }
                io.read_blocks(nchunk, &needed, &mut data)?;
            }
            Buf::Set(_) => io.read_chunk(nchunk, &mut data)?,
        }
        let lens: Vec<i64> = per.iter().map(|p| p.len() as i64).collect();
        let mut ix = [0i64; MAX_DIM];
        for e in 0..lens.iter().product::<i64>() {
            super::unravel(e, &lens, &mut ix[..nd]);
            let (mut nb, mut item, mut boff) = (0i64, 0i64, 0i64);
            for i in 0..nd {
                let p = per[i][ix[i] as usize];
                nb += p.0;
                item += p.1;
                boff += p.2;
            }
            let c = (nb * g.blocknitems as i64 + item) as usize * ts;
            let b = boff as usize * ts;
            match &mut buf {
                Buf::Get(out) => out[b..b + ts].copy_from_slice(&data[c..c + ts]),
                Buf::Set(src) => data[c..c + ts].copy_from_slice(&src[b..b + ts]),
            }
        }
        if let Buf::Set(_) = buf {
            io.write_chunk(nchunk, &data)?;
        }
    }
    Ok(())
}

/// Read the selection into `buf` (a dense array of `bufshape`).
pub fn get(g: &Geometry, ts: usize, io: &mut dyn ChunkIo, sel: &[&[i64]], buf: &mut [u8], bufshape: &[i64]) -> Result<()> {
    run(g, ts, io, sel, bufshape, Buf::Get(buf))
}

/// Write `buf` (a dense array of `bufshape`) into the selection.
pub fn set(g: &Geometry, ts: usize, io: &mut dyn ChunkIo, sel: &[&[i64]], buf: &[u8], bufshape: &[i64]) -> Result<()> {
    run(g, ts, io, sel, bufshape, Buf::Set(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(Vec<Vec<u8>>);
    impl ChunkIo for Mem {
        fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()> {
            dest.copy_from_slice(&self.0[n as usize]);
            Ok(())
        }
        fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
            self.0[n as usize] = data.to_vec();
            Ok(())
        }
    }

    #[test]
    fn selection_matches_direct_indexing() {
        let g = Geometry::new(&[7, 5], &[3, 2], &[2, 1]).unwrap();
        let mut io = Mem(vec![vec![0; g.extchunknitems as usize]; g.nchunks() as usize]);
        let all: Vec<u8> = (0..35).collect();
        super::super::slice::set(&g, 1, &mut io, &[0, 0], &[7, 5], &all, &[7, 5]).unwrap();
        let (r, c): (&[i64], &[i64]) = (&[6, 0, 3, 3], &[4, 1]);
        let mut out = vec![0u8; 8];
        get(&g, 1, &mut io, &[r, c], &mut out, &[4, 2]).unwrap();
        assert_eq!(out, vec![34, 31, 4, 1, 19, 16, 19, 16]);
        set(&g, 1, &mut io, &[&[1], &[0, 4]], &[100, 101], &[1, 2]).unwrap();
        let mut back = vec![0u8; 35];
        super::super::slice::get(&g, 1, &mut io, &[0, 0], &[7, 5], &mut back, &[7, 5]).unwrap();
        assert_eq!((back[5], back[9], back[6]), (100, 101, 6));
        assert_eq!(get(&g, 1, &mut io, &[&[7], &[0]], &mut out, &[1, 1]), Err(Error::InvalidIndex));
        assert_eq!(get(&g, 1, &mut io, &[&[-1], &[0]], &mut out, &[1, 1]), Err(Error::InvalidIndex));
        assert_eq!(get(&g, 1, &mut io, &[r, c], &mut out[..7], &[4, 2]), Err(Error::InvalidParam));
    }
}
