//! Gathering scattered items (`blosc2_schunk_get_sparse_buffer`).
//!
//! As in the reference, items are read one by one through the super-chunk's decompression
//! engine when that engine must see every item (a postfilter, or a delta filter whose blocks
//! depend on the first one) or there is a single item; otherwise the items are grouped by
//! the block holding them and the blocks are decoded in parallel, each once, on up to the
//! engine's thread count of workers (through the caller's threads callback when one is set).

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::engines::{with_decompressor, Held, Holder};
use super::SuperChunk;
use crate::chunk::header::{DELTA, VL_BLOCKS};
use crate::chunk::DecompressParams;
use crate::error::{Error, Result};

/// What the gathering needs to know about the super-chunk.
struct Layout {
    typesize: i64,
    chunksize: i64,
    blocksize: i64,
    nitems: i64,
    /// Items must go through the engine one by one.
    serial: bool,
    nthreads: usize,
}

impl SuperChunk {
    fn sparse_layout(&self) -> Result<Layout> {
        let typesize = self.cparams.typesize as i64;
        let chunksize = self.chunksize as i64;
        let blocksize = self.blocksize as i64;
        // The reference's limits: fixed-size chunks and blocks, whole items in both.
        if typesize <= 0 || chunksize <= 0 || blocksize <= 0 || self.flags2 & VL_BLOCKS != 0 {
            return Err(Error::InvalidParam);
        }
        if chunksize % typesize != 0 || blocksize % typesize != 0 {
            return Err(Error::InvalidParam);
        }
        Ok(Layout {
            typesize,
            chunksize,
            blocksize,
            nitems: self.nbytes / typesize,
            serial: self.cparams.filters.contains(&DELTA) || self.dctx.postfilter.is_some(),
            nthreads: self.dctx.params.nthreads.max(1) as usize,
        })
    }
}

/// Items at `coords` (item indexes) into `out` (`coords.len() * typesize` bytes).
pub fn get_sparse_in<H: Holder>(h: &H, coords: &[i64], out: &mut [u8]) -> Result<()> {
    if coords.is_empty() {
        return Ok(());
    }
    let l = h.hold(|s| s.sparse_layout())?;
    let ts = l.typesize as usize;
    if out.len() < coords.len() * ts {
        return Err(Error::InvalidParam);
    }
    if l.serial || coords.len() == 1 {
        for (&c, o) in coords.iter().zip(out.chunks_exact_mut(ts)) {
            if c < 0 || c >= l.nitems {
                return Err(Error::InvalidParam);
            }
            super::get_slice_in(h, c, c + 1, o).map_err(|_| Error::Failure)?;
        }
        return Ok(());
    }
    if coords.iter().any(|&c| c < 0 || c >= l.nitems) {
        return Err(Error::InvalidParam);
    }
    let chunk_items = l.chunksize / l.typesize;
    // Output positions sorted by item, then grouped by (chunk, block).
    let mut order: Vec<usize> = (0..coords.len()).collect();
    order.sort_by_key(|&i| (coords[i], i));
    let block_of = |c: i64| (c / chunk_items, (c % chunk_items) * l.typesize / l.blocksize);
    let mut tasks: Vec<Task> = Vec::new();
    let mut chunks: Vec<(i64, Held)> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let (nchunk, nblock) = block_of(coords[i]);
        match tasks.last_mut() {
            Some(t) if t.nchunk == nchunk && t.nblock == nblock => t.end = k + 1,
            _ => {
                if chunks.last().is_none_or(|c| c.0 != nchunk) {
                    let chunk = h.hold(|s| s.held_chunk(nchunk, true)).map_err(|_| Error::Failure)?;
                    chunks.push((nchunk, chunk));
                }
                tasks.push(Task { nchunk, chunk: chunks.len() - 1, nblock, start: k, end: k + 1 });
            }
        }
    }
    let nworkers = l.nthreads.min(tasks.len());
    // Each worker decodes whole blocks with an engine of its own, set up like the
    // super-chunk's (same callbacks context, same lazy-chunk reader).
    let template = with_decompressor(h, |d| Ok((d.call.clone(), d.lazy.clone())))?;
    let next = AtomicUsize::new(0);
    let error = AtomicI32::new(0);
    // The items each task gathered, in the order of `order[start..end]`.
    let gathered: Vec<Mutex<Vec<u8>>> = tasks.iter().map(|_| Mutex::new(Vec::new())).collect();
    let work = |_worker: usize| {
        let mut dec = crate::chunk::decompress::Decompressor::new(DecompressParams {
            nthreads: 1,
            typesize: l.typesize as i32,
        });
        dec.call = template.0.clone();
        dec.lazy = template.1.clone();
        let mut block = vec![0u8; l.blocksize as usize];
        loop {
            if error.load(Ordering::Relaxed) != 0 {
                return;
            }
            let t = next.fetch_add(1, Ordering::Relaxed);
            let Some(task) = tasks.get(t) else { return };
            let r = decode_task(&mut dec, &l, task, &chunks[task.chunk].1, &mut block).and_then(|got| {
                let mut items = Vec::with_capacity((task.end - task.start) * ts);
                for &i in &order[task.start..task.end] {
                    let at = ((coords[i] % chunk_items) * l.typesize % l.blocksize) as usize;
                    items.extend_from_slice(block[..got].get(at..at + ts).ok_or(Error::Data)?);
                }
                *gathered[t].lock().unwrap_or_else(|e| e.into_inner()) = items;
                Ok(())
            });
            if let Err(e) = r {
                let _ = error.compare_exchange(0, e.code(), Ordering::Relaxed, Ordering::Relaxed);
                return;
            }
        }
    };
    let ok = if nworkers <= 1 {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(0))).is_ok()
    } else {
        crate::threads::run_jobs(nworkers, &work)
    };
    if !ok {
        return Err(Error::Failure);
    }
    if let code @ ..=-1 = error.load(Ordering::Relaxed) {
        return Err(Error::from_code(code).unwrap_or(Error::Failure));
    }
    for (task, items) in tasks.iter().zip(gathered) {
        let items = items.into_inner().unwrap_or_else(|e| e.into_inner());
        for (&i, item) in order[task.start..task.end].iter().zip(items.chunks_exact(ts)) {
            out[i * ts..(i + 1) * ts].copy_from_slice(item);
        }
    }
    Ok(())
}

/// The items of one block of one chunk, output positions `order[start..end]`.
struct Task {
    nchunk: i64,
    chunk: usize,
    nblock: i64,
    start: usize,
    end: usize,
}

/// Decode block `task.nblock` of the chunk into `block`; the bytes it holds.
fn decode_task(
    dec: &mut crate::chunk::decompress::Decompressor,
    l: &Layout,
    task: &Task,
    chunk: &[u8],
    block: &mut [u8],
) -> Result<usize> {
    let nbytes = crate::chunk::header::ChunkHeader::read(chunk)?.nbytes as i64;
    let start = task.nblock * l.blocksize;
    let len = (nbytes - start).min(l.blocksize);
    if len <= 0 {
        return Err(Error::Data);
    }
    dec.nchunk = task.nchunk;
    dec.get_bytes(chunk, start as usize, len as usize, block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::CompressParams;
    use crate::schunk::{Own, StorageSpec};

    fn schunk(nthreads: i16, filters: [u8; 6], chunks: &[usize]) -> SuperChunk {
        let cp = CompressParams { typesize: 4, nthreads, blocksize: 256, filters, ..CompressParams::default() };
        let dp = DecompressParams { nthreads, typesize: 4 };
        let mut sc = SuperChunk::new(cp, dp, &StorageSpec::default()).unwrap();
        let mut next = 0u32;
        for &items in chunks {
            let data: Vec<u8> = (next..next + items as u32).flat_map(|v| (v * 3).to_le_bytes()).collect();
            next += items as u32;
            sc.append_buffer(&data).unwrap();
        }
        sc
    }

    fn gather(sc: &mut SuperChunk, coords: &[i64]) -> Result<Vec<u32>> {
        let mut out = vec![0u8; coords.len() * 4];
        get_sparse_in(&Own::new(sc), coords, &mut out)?;
        Ok(out.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    }

    /// Parallel and one-by-one gathering give every item, duplicates and any order included.
    #[test]
    fn items_in_any_order() {
        let coords = [0i64, 511, 64, 63, 300, 64, 1, 450, 129];
        let want: Vec<u32> = coords.iter().map(|&c| c as u32 * 3).collect();
        for nthreads in [1, 3] {
            for filters in [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 3, 1]] {
                let mut sc = schunk(nthreads, filters, &[128, 128, 128, 128]);
                assert_eq!(gather(&mut sc, &coords).unwrap(), want, "nthreads {nthreads} filters {filters:?}");
            }
        }
        // A shorter last chunk.
        let mut sc = schunk(2, [0, 0, 0, 0, 0, 1], &[100, 100, 30]);
        assert_eq!(gather(&mut sc, &[229, 0, 150]).unwrap(), vec![687, 0, 450]);
    }

    #[test]
    fn refused_as_the_reference() {
        let mut sc = schunk(2, [0, 0, 0, 0, 0, 1], &[128, 128]);
        assert_eq!(gather(&mut sc, &[1, 256]).err(), Some(Error::InvalidParam));
        assert_eq!(gather(&mut sc, &[-1, 2]).err(), Some(Error::InvalidParam));
        assert_eq!(gather(&mut sc, &[]).unwrap(), Vec::<u32>::new());
        // Chunks of varying size are not supported there.
        let mut sc = schunk(2, [0, 0, 0, 0, 0, 1], &[128, 64, 128]);
        assert_eq!(gather(&mut sc, &[1, 2]).err(), Some(Error::InvalidParam));
        let mut empty = schunk(2, [0, 0, 0, 0, 0, 1], &[]);
        assert_eq!(gather(&mut empty, &[0, 1]).err(), Some(Error::InvalidParam));
    }
}
