//! Every operation of `b2nd.h` on an array: a [`Layout`] over the super-chunk a
//! [`Holder`] reaches. The C face and [`super::Array`] both call these; they differ only in
//! how they hold the super-chunk and where they keep the layout.
//!
//! Errors follow the reference's C functions: a step that fails inside the super-chunk is
//! reported as `BLOSC2_ERROR_FAILURE` where the reference reports its own failure code.

use super::layout::{stored_meta, Layout};
use super::slice::{self as nd, ChunkIo};
use super::store::{locked, typesize, SchunkIo};
use super::{ortho, resize as grid, strides_of, unravel, Geometry, MAX_DIM};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::write_special;
use crate::chunk::{DecompressParams, Special};
use crate::error::{Error, Result};
use crate::schunk::{append_buffer_in, copy_to_in, get_sparse_in, Holder, Own, StorageSpec, SuperChunk};

/// What a new array's chunks hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    /// Special chunks: zeros, NaNs or uninitialised items.
    Special(Special),
    /// Every item equal to these `typesize` bytes (run-length chunks).
    Value(Vec<u8>),
}

/// Make the empty super-chunk `h` holds into an array of `layout`: its chunk size, the
/// "b2nd" metalayer, then `extra` metalayers, then chunks as `fill` says.
pub fn create<H: Holder>(h: &H, layout: &mut Layout, extra: &[(String, Vec<u8>)], fill: &Fill) -> Result<()> {
    let g = &layout.geometry;
    let ts = typesize(h)?;
    let chunk_bytes = g.chunk_nbytes(ts as i32)?;
    let smeta = layout.encode()?;
    h.hold(|s| {
        s.set_chunksize(chunk_bytes);
        s.meta_add("b2nd", &smeta)?;
        for (name, content) in extra {
            s.meta_add(name, content)?;
        }
        Ok(())
    })
    .map_err(|_| Error::Failure)?;
    if g.nitems != 0 {
        let nitems = g.nchunks() * g.extchunknitems;
        let kind = match fill {
            Fill::Special(k) => *k,
            Fill::Value(_) => Special::Zero,
        };
        h.hold(|s| {
            if s.nbytes() > 0 || s.cbytes() > 0 {
                return Err(Error::FrameSpecial);
            }
            s.fill_special(nitems, kind, chunk_bytes)
        })
        .map_err(|_| Error::Failure)?;
        if let Fill::Value(v) = fill {
            let chunk = special_chunk(h, chunk_bytes, Special::Value, Some(v))?;
            let n = h.hold(|s| Ok(s.nchunks()))?;
            for i in 0..n {
                update_chunk(h, i, &chunk)?;
            }
        }
    }
    layout.last_tick = h.hold(|s| Ok(s.change_tick()))?;
    Ok(())
}

/// A special chunk of `nbytes` made with the super-chunk's parameters.
fn special_chunk<H: Holder>(h: &H, nbytes: i32, kind: Special, value: Option<&[u8]>) -> Result<Vec<u8>> {
    let params = h.hold(|s| Ok(s.cparams().clone()))?;
    let mut chunk = vec![0u8; EXTENDED_HEADER_LENGTH + params.typesize.max(0) as usize];
    let n = write_special(&params, nbytes, kind, value, &mut chunk).map_err(|_| Error::Failure)?;
    chunk.truncate(n);
    Ok(chunk)
}

fn update_chunk<H: Holder>(h: &H, n: i64, chunk: &[u8]) -> Result<()> {
    h.hold(|s| {
        if n < 0 || n >= s.nchunks() {
            return Err(Error::InvalidParam);
        }
        s.update_chunk(n, chunk)?;
        s.set_current_nchunk(n);
        Ok(())
    })
    .map_err(|_| Error::Failure)
}

/// Follow another handle's change of the array's shape. Returns whether the geometry was
/// re-read, and whether the frame was found current and readable just now (so the chunks
/// the same call reads need not look again; `false` when in doubt, such as a frame file cut
/// short, whose first chunk read then fails as it always did).
pub fn refresh<H: Holder>(h: &H, layout: &mut Layout) -> Result<(bool, bool)> {
    if layout.view {
        return Ok((false, false));
    }
    let last = layout.last_tick;
    // One step: whether there is a frame to look at, whether it is current, and the
    // metalayer only when the change count moved.
    let seen = h
        .hold(|s| {
            if s.frame_kind().is_none() {
                return Ok(None);
            }
            let (_, fresh) = s.refresh_status()?;
            let tick = s.change_tick();
            let smeta = if tick == last { None } else { stored_meta(s).ok() };
            Ok(Some((fresh, tick, smeta)))
        })
        .map_err(|_| Error::Failure)?;
    let Some((fresh, tick, smeta)) = seen else { return Ok((false, true)) };
    if tick == last {
        return Ok((false, fresh));
    }
    let Some(smeta) = smeta else { return Ok((false, fresh)) };
    let now = Layout::decode(&smeta)?;
    let (g, n) = (&now.geometry, layout.geometry.ndim);
    if g.ndim != n || g.chunkshape() != layout.geometry.chunkshape() || g.blockshape() != layout.geometry.blockshape() {
        return Err(Error::Data);
    }
    layout.geometry = now.geometry;
    layout.last_tick = tick;
    Ok((true, fresh))
}

/// Read items `[start, stop)` into `buf`, a dense array of `bshape` (parts of it the slice
/// does not cover read as zeros, as the reference's). `fresh` as [`refresh`] returned it.
pub fn get_slice<H: Holder>(
    h: &H,
    layout: &Layout,
    start: &[i64],
    stop: &[i64],
    buf: &mut [u8],
    bshape: &[i64],
    fresh: bool,
) -> Result<()> {
    let (g, ts) = (&layout.geometry, typesize(h)?);
    nd::check_bounds(g, start, stop)?;
    nd::check_buffer(ts, start, stop, bshape, buf.len())?;
    let dense = (0..g.ndim).all(|i| bshape[i] == stop[i] - start[i]);
    let slice_bytes: usize = (0..g.ndim).map(|i| (stop[i] - start[i]) as usize).product::<usize>() * ts;
    if dense && slice_bytes > 0 {
        buf[slice_bytes..].fill(0);
    } else {
        buf.fill(0);
    }
    nd::get(g, ts, &mut SchunkIo::new(h, fresh), start, stop, buf, bshape)
}

/// Write `buf` (a dense array of `bshape`) into items `[start, stop)`, under the frame lock
/// when locking is on, so other handles see the whole slice at once.
pub fn set_slice<H: Holder>(h: &H, layout: &Layout, start: &[i64], stop: &[i64], buf: &[u8], bshape: &[i64]) -> Result<()> {
    let ts = typesize(h)?;
    locked(h, || nd::set(&layout.geometry, ts, &mut SchunkIo::new(h, false), start, stop, buf, bshape))
}

/// Read (`get`) or write the items at every combination of `lists[i]` (one index list per
/// dimension) from or into `buf`, a dense array of `bshape`.
pub fn orthogonal<H: Holder>(
    h: &H,
    layout: &Layout,
    lists: &[&[i64]],
    buf: Buffer<'_>,
    bshape: &[i64],
) -> Result<()> {
    let ts = typesize(h)?;
    let mut io = SchunkIo::new(h, false);
    match buf {
        Buffer::Out(b) => ortho::get(&layout.geometry, ts, &mut io, lists, b, bshape),
        Buffer::In(b) => ortho::set(&layout.geometry, ts, &mut io, lists, b, bshape),
    }
}

/// A buffer read from ([`Buffer::In`]) or written to ([`Buffer::Out`]).
pub enum Buffer<'a> {
    /// Items to store into the array.
    In(&'a [u8]),
    /// Room for items read from the array.
    Out(&'a mut [u8]),
}

/// Items at C-order positions `coords` of the array, one after the other, into `out`.
pub fn get_sparse<H: Holder>(h: &H, layout: &Layout, coords: &[i64], out: &mut [u8]) -> Result<()> {
    let g = &layout.geometry;
    let ts = typesize(h)?;
    if coords.is_empty() {
        return Ok(());
    }
    if (out.len() as u128) < coords.len() as u128 * ts as u128 || g.ndim == 0 {
        return Err(Error::InvalidParam);
    }
    let nd_ = g.ndim;
    let grid = strides_of(&g.chunks_per_dim()[..nd_]);
    let mut storage = Vec::with_capacity(coords.len());
    let mut x = [0i64; MAX_DIM];
    for &c in coords {
        if c < 0 || c >= g.nitems {
            return Err(Error::InvalidParam);
        }
        unravel(c, g.shape(), &mut x[..nd_]);
        let (mut nchunk, mut nblock, mut item) = (0i64, 0i64, 0i64);
        for j in 0..nd_ {
            let (cs, bs) = (g.chunkshape[j] as i64, g.blockshape[j] as i64);
            let in_chunk = x[j] % cs;
            nchunk += (x[j] / cs) * grid[j];
            nblock += (in_chunk / bs) * g.block_chunk_strides[j];
            item += (in_chunk % bs) * g.item_block_strides[j];
        }
        storage.push(nchunk * g.extchunknitems + nblock * g.blocknitems as i64 + item);
    }
    get_sparse_in(h, &storage, &mut out[..coords.len() * ts]).map_err(|_| Error::Failure)
}

// ----- resizing -----

/// Write the layout's geometry into the "b2nd" metalayer.
fn publish<H: Holder>(h: &H, layout: &mut Layout) -> Result<()> {
    let smeta = layout.encode()?;
    layout.last_tick = h
        .hold(|s| {
            if s.meta_exists("b2nd").is_some() && s.meta_update("b2nd", &smeta).is_ok() {
                return Ok(s.change_tick());
            }
            s.meta_add("b2nd", &smeta)?;
            Ok(s.change_tick())
        })
        .map_err(|_| Error::Failure)?;
    Ok(())
}

/// Items that were padding of the old edge chunks and are inside the new shape must read as
/// zeros (the reference shows what a shrink left there). Rewrites only chunks where that
/// padding is not zero already, so ordinary growth writes nothing.
fn clear_exposed<H: Holder>(h: &H, old: &Geometry, new: &Geometry, ts: usize) -> Result<()> {
    let nd = new.ndim;
    if old.nitems == 0 || (0..nd).all(|i| old.shape[i] % old.chunkshape[i].max(1) as i64 == 0) {
        return Ok(());
    }
    let per_dim = new.chunks_per_dim();
    let chunk_bytes = new.chunk_nbytes(ts as i32)? as usize;
    let mut data = vec![0u8; chunk_bytes];
    let mut idx = [0i64; MAX_DIM];
    let mut io = SchunkIo::new(h, false);
    for n in 0..new.nchunks_grid() {
        unravel(n, &per_dim[..nd], &mut idx[..nd]);
        let cstart: Vec<i64> = (0..nd).map(|i| idx[i] * new.chunkshape[i] as i64).collect();
        // Only chunks that existed before and are cut by the old shape.
        if (0..nd).any(|i| cstart[i] >= old.shape[i]) {
            continue;
        }
        if !(0..nd).any(|i| cstart[i] + (new.chunkshape[i] as i64) > old.shape[i] && new.shape[i] > old.shape[i]) {
            continue;
        }
        io.read_chunk(n, &mut data)?;
        let mut dirty = false;
        let bper = new.blocks_per_dim();
        let mut bidx = [0i64; MAX_DIM];
        let mut item = [0i64; MAX_DIM];
        let bn = new.blocknitems as i64;
        for pos in 0..new.extchunknitems {
            let (nb, inb) = (pos / bn, pos % bn);
            unravel(nb, &bper[..nd], &mut bidx[..nd]);
            unravel(inb, &new.blockshape.map(i64::from)[..nd], &mut item[..nd]);
            let x: Vec<i64> = (0..nd).map(|i| cstart[i] + bidx[i] * new.blockshape[i] as i64 + item[i]).collect();
            let exposed = (0..nd).all(|i| x[i] < new.shape[i]) && (0..nd).any(|i| x[i] >= old.shape[i]);
            if exposed {
                let b = &mut data[pos as usize * ts..(pos as usize + 1) * ts];
                if b.iter().any(|&v| v != 0) {
                    b.fill(0);
                    dirty = true;
                }
            }
        }
        if dirty {
            io.write_chunk(n, &data)?;
        }
    }
    Ok(())
}

/// Shrink to `new_shape` (each <= the current), removing the band at `start` (default: the end).
fn shrink<H: Holder>(h: &H, layout: &mut Layout, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
    let old = layout.geometry.clone();
    let nd = old.ndim;
    if (0..nd).all(|i| new_shape[i] == old.shape[i]) {
        return Ok(());
    }
    layout.geometry = Geometry::new(new_shape, old.chunkshape(), old.blockshape())?;
    publish(h, layout)?;
    let start = start.unwrap_or(new_shape);
    let delta: Vec<i64> = (0..nd).map(|i| old.shape[i] - new_shape[i]).collect();
    let nchunks = h.hold(|s| Ok(s.nchunks()))?;
    for n in grid::deleted(&old, start, &delta) {
        if n >= nchunks {
            continue;
        }
        h.hold(|s| {
            if n < 0 || n >= s.nchunks() {
                return Err(Error::InvalidParam);
            }
            s.delete_chunk(n)?;
            s.set_current_nchunk(n);
            Ok(())
        })
        .map_err(|_| Error::Failure)?;
    }
    Ok(())
}

/// Grow to `new_shape` (each >= the current), inserting zero chunks at `start` (default: the end).
fn extend<H: Holder>(h: &H, layout: &mut Layout, new_shape: &[i64], start: Option<&[i64]>, ts: usize) -> Result<()> {
    let old = layout.geometry.clone();
    let nd = old.ndim;
    if (0..nd).all(|i| new_shape[i] == old.shape[i]) {
        return Ok(());
    }
    let new = Geometry::new(new_shape, old.chunkshape(), old.blockshape())?;
    let chunk_bytes = new.chunk_nbytes(ts as i32)?;
    // Data first, shape last: a reader never sees a shape whose chunks are missing.
    let start_v: Vec<i64> = start.map_or_else(|| old.shape().to_vec(), <[i64]>::to_vec);
    let delta: Vec<i64> = (0..nd).map(|i| new_shape[i] - old.shape[i]).collect();
    let old_nchunks = h.hold(|s| Ok(s.nchunks()))?;
    if new.nchunks_grid() != old_nchunks {
        let zeros = special_chunk(h, chunk_bytes, Special::Zero, None)?;
        for n in grid::inserted(&new, &start_v, &delta) {
            h.hold(|s| {
                if n < 0 || n > s.nchunks() {
                    return Err(Error::InvalidParam);
                }
                s.insert_chunk(n, &zeros)?;
                s.set_current_nchunk(n);
                Ok(())
            })
            .map_err(|_| Error::Failure)?;
        }
    }
    if start.is_none_or(|s| s == old.shape()) {
        clear_exposed(h, &old, &new, ts)?;
    }
    layout.geometry = new;
    publish(h, layout)
}

/// Change the shape: grow (zeros) or shrink at the end, or at `start` by whole chunks.
pub fn resize<H: Holder>(h: &H, layout: &mut Layout, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
    if layout.view {
        // A view's shape is tied to the array it views.
        return Err(Error::InvalidParam);
    }
    refresh(h, layout)?;
    let ts = typesize(h)?;
    let g = layout.geometry.clone();
    let nd = g.ndim;
    if new_shape.len() != nd || new_shape.iter().any(|&s| s < 0) {
        return Err(Error::InvalidParam);
    }
    if let Some(st) = start {
        if st.len() != nd {
            return Err(Error::InvalidParam);
        }
        for i in 0..nd {
            if st[i] < 0 || st[i] > g.shape[i] {
                return Err(Error::InvalidParam);
            }
            let cs = g.chunkshape[i] as i64;
            let grows_inside = new_shape[i] > g.shape[i] && st[i] != g.shape[i];
            let shrinks_inside = new_shape[i] < g.shape[i] && st[i] + g.shape[i] - new_shape[i] != g.shape[i];
            if grows_inside || shrinks_inside {
                // Whole chunks only, unless the end of the array moves.
                if cs == 0 || st[i] % cs != 0 || (new_shape[i] - g.shape[i]) % cs != 0 {
                    return Err(Error::InvalidParam);
                }
                if shrinks_inside && st[i] + g.shape[i] - new_shape[i] > g.shape[i] {
                    return Err(Error::InvalidParam);
                }
            }
        }
    }
    // Everything must be representable before anything changes.
    Geometry::new(new_shape, g.chunkshape(), g.blockshape())?.chunk_nbytes(ts as i32)?;
    let shrunk: Vec<i64> = (0..nd).map(|i| new_shape[i].min(g.shape[i])).collect();
    locked(h, || {
        shrink(h, layout, &shrunk, start)?;
        extend(h, layout, new_shape, start, ts)
    })
}

/// Insert `buf` (whole hyper-slabs along `axis`) before position `at`.
pub fn insert<H: Holder>(h: &H, layout: &mut Layout, buf: &[u8], axis: usize, at: i64) -> Result<()> {
    if layout.view {
        return Err(Error::InvalidParam);
    }
    refresh(h, layout)?;
    let ts = typesize(h)?;
    let g = layout.geometry.clone();
    let nd = g.ndim;
    if axis >= nd || at < 0 || at > g.shape[axis] {
        return Err(Error::InvalidParam);
    }
    let slab: i64 = (0..nd).filter(|&i| i != axis).map(|i| g.shape[i]).product::<i64>() * ts as i64;
    if slab == 0 || buf.len() as i64 % slab != 0 {
        return Err(Error::InvalidParam);
    }
    let added = buf.len() as i64 / slab;
    let mut new_shape = g.shape().to_vec();
    new_shape[axis] += added;
    let mut start = vec![0i64; nd];
    start[axis] = at;
    if at == g.shape[axis] {
        resize(h, layout, &new_shape, None)?;
    } else {
        resize(h, layout, &new_shape, Some(&start))?;
    }
    let mut bshape = g.shape().to_vec();
    bshape[axis] = added;
    let mut stop = new_shape;
    stop[axis] = at + added;
    refresh(h, layout)?;
    set_slice(h, layout, &start, &stop, buf, &bshape)
}

/// Append `buf` at the end of `axis`.
pub fn append<H: Holder>(h: &H, layout: &mut Layout, buf: &[u8], axis: usize) -> Result<()> {
    if layout.view {
        return Err(Error::InvalidParam);
    }
    refresh(h, layout)?;
    let ts = typesize(h)?;
    let g = layout.geometry.clone();
    if axis >= g.ndim {
        return Err(Error::InvalidParam);
    }
    // One whole chunk at the end of axis 0, laid out like the buffer (one chunk across
    // every other axis, blocks spanning them): append it as is, as the reference does. Its
    // own fast path also fires when other axes hold several chunks and then loses the
    // data; those go through the general insertion here.
    let nd = g.ndim;
    let chunk_bytes = g.chunk_nbytes(ts as i32)? as usize;
    let nchunks = h.hold(|s| Ok(s.nchunks()))?;
    let fast = axis == 0
        && buf.len() == chunk_bytes
        && g.shape[0] % g.chunkshape[0] as i64 == 0
        && g.extchunknitems == g.chunknitems as i64
        && (1..nd).all(|i| g.chunkshape[i] == g.blockshape[i] && g.shape[i] == g.chunkshape[i] as i64)
        && nchunks == g.nchunks_grid();
    if !fast {
        return insert(h, layout, buf, axis, g.shape[axis]);
    }
    let n = append_buffer_in(h, buf).map_err(|_| Error::Failure)?;
    h.hold(|s| {
        s.set_current_nchunk(n - 1);
        Ok(())
    })?;
    let mut new_shape = g.shape().to_vec();
    new_shape[0] += g.chunkshape[0] as i64;
    resize(h, layout, &new_shape, None)
}

/// Remove `len` items along `axis` from `start`.
pub fn delete<H: Holder>(h: &H, layout: &mut Layout, axis: usize, start: i64, len: i64) -> Result<()> {
    if layout.view {
        return Err(Error::InvalidParam);
    }
    refresh(h, layout)?;
    let g = layout.geometry.clone();
    if axis >= g.ndim {
        return Err(Error::InvalidParam);
    }
    if len < 0 || start < 0 || start.checked_add(len).is_none_or(|e| e > g.shape[axis]) {
        return Err(Error::InvalidParam);
    }
    let mut new_shape = g.shape().to_vec();
    new_shape[axis] -= len;
    if start == g.shape[axis] - len {
        resize(h, layout, &new_shape, None)
    } else {
        let mut at = vec![0i64; g.ndim];
        at[axis] = start;
        resize(h, layout, &new_shape, Some(&at))
    }
}

// ----- copies between arrays -----

/// The shape of the slice `[start, stop)` of the array (refreshed first), checked to lie
/// inside it.
pub fn slice_shape<H: Holder>(h: &H, layout: &mut Layout, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
    refresh(h, layout)?;
    nd::check_bounds(&layout.geometry, start, stop)?;
    Ok(start.iter().zip(stop).map(|(a, b)| b - a).collect())
}

/// Fill the array `dst` (freshly made, zeros) with the items of `src` from `start` on, one
/// destination chunk at a time.
pub fn copy_items<S: Holder, D: Holder>(src: &S, src_layout: &mut Layout, dst: &D, dst_layout: &Layout, start: &[i64]) -> Result<()> {
    let g = &dst_layout.geometry;
    if g.nitems == 0 {
        return Ok(());
    }
    let ts = typesize(dst)?;
    let nd = g.ndim;
    let per_dim = g.chunks_per_dim();
    let mut idx = [0i64; MAX_DIM];
    for n in 0..g.nchunks_grid() {
        unravel(n, &per_dim[..nd], &mut idx[..nd]);
        let cstart: Vec<i64> = (0..nd).map(|i| idx[i] * g.chunkshape[i] as i64).collect();
        let cstop: Vec<i64> = (0..nd).map(|i| (cstart[i] + g.chunkshape[i] as i64).min(g.shape[i])).collect();
        let cshape: Vec<i64> = (0..nd).map(|i| cstop[i] - cstart[i]).collect();
        let sstart: Vec<i64> = (0..nd).map(|i| cstart[i] + start[i]).collect();
        let sstop: Vec<i64> = (0..nd).map(|i| cstop[i] + start[i]).collect();
        let mut buf = vec![0u8; cshape.iter().product::<i64>() as usize * ts];
        let (_, fresh) = refresh(src, src_layout)?;
        get_slice(src, src_layout, &sstart, &sstop, &mut buf, &cshape, fresh)?;
        set_slice(dst, dst_layout, &cstart, &cstop, &buf, &cshape)?;
    }
    Ok(())
}

/// The user metalayers (all but "b2nd") and vlmetalayers (decompressed) of a super-chunk,
/// for a copy with other chunking to carry over.
pub fn user_metadata<H: Holder>(h: &H) -> Result<(Vec<(String, Vec<u8>)>, Vec<(String, Vec<u8>)>)> {
    h.hold(|s| {
        let metas = s.metalayers().iter().filter(|m| m.name != "b2nd").map(|m| (m.name.clone(), m.content.clone())).collect();
        let names: Vec<String> = s.vlmeta_names().iter().map(|n| n.to_string()).collect();
        let vl = names.into_iter().map(|n| s.vlmeta_get(&n).map(|c| (n, c))).collect::<Result<_>>()?;
        Ok((metas, vl))
    })
}

/// Add vlmetalayers to a copy, compressed with the default parameters as the reference's
/// copy does (its chunk headers show typesize 8, not the array's).
pub fn add_vlmetas<H: Holder>(h: &H, vlmetas: &[(String, Vec<u8>)]) -> Result<()> {
    for (name, content) in vlmetas {
        let stored = crate::schunk::meta::compress_vlmeta(content, None).map_err(|_| Error::Failure)?;
        h.hold(|s| s.vlmeta_add_compressed(name, stored)).map_err(|_| Error::Failure)?;
    }
    Ok(())
}

/// An in-memory copy of a super-chunk, for reading chunks that an operation on the same
/// super-chunk is about to move.
pub fn snapshot<H: Holder>(h: &H) -> Result<SuperChunk> {
    copy_to_in(h, &StorageSpec::default(), None, DecompressParams::default()).map_err(|_| Error::Failure)
}

/// Whether an array of geometry `a` (items of `a_typesize` bytes) can take the items of `b`
/// after its own along `axis`: same number of dimensions and item size, the same length in
/// every other dimension, and a joined length that fits. [`Error::InvalidParam`] when not.
pub fn check_concatenation(a: &Geometry, a_typesize: usize, b: &Geometry, b_typesize: usize, axis: usize) -> Result<()> {
    if axis >= a.ndim || a.ndim != b.ndim || a_typesize != b_typesize {
        return Err(Error::InvalidParam);
    }
    if (0..a.ndim).any(|i| i != axis && a.shape[i] != b.shape[i]) {
        return Err(Error::InvalidParam);
    }
    a.shape[axis].checked_add(b.shape[axis]).map(drop).ok_or(Error::InvalidParam)
}

/// Append the items of `src` (of `src_layout`, same shape as `dst` but along `axis`) after
/// the `dst_len` items `dst` holds along `axis`: `dst` grows first. Chunks are copied as
/// they are when both chunk grids line up, else item by item.
pub fn concat_into<D: Holder, S: Holder>(
    dst: &D,
    dst_layout: &mut Layout,
    src: &S,
    src_layout: &mut Layout,
    axis: usize,
    first_chunkshape: &[i32],
    dst_len: i64,
) -> Result<()> {
    let g2 = src_layout.geometry.clone();
    let nd = g2.ndim;
    let mut new_shape = dst_layout.geometry.shape().to_vec();
    if new_shape.len() != nd || axis >= nd {
        return Err(Error::InvalidParam);
    }
    new_shape[axis] = dst_len.checked_add(g2.shape[axis]).ok_or(Error::InvalidParam)?;
    resize(dst, dst_layout, &new_shape, None)?;
    let gd = dst_layout.geometry.clone();
    let aligned = first_chunkshape == g2.chunkshape()
        && g2.blockshape() == gd.blockshape()
        && dst_len % gd.chunkshape[axis] as i64 == 0;
    let dgrid = strides_of(&gd.chunks_per_dim()[..nd]);
    let sper = g2.chunks_per_dim();
    let mut idx = [0i64; MAX_DIM];
    let ts = typesize(src)?;
    let mut buf = vec![0u8; g2.chunk_nbytes(ts as i32)? as usize];
    let cshape: Vec<i64> = g2.chunkshape().iter().map(|&c| c as i64).collect();
    // The chunks of src as it was (were src and dst the same array, the resize grew it).
    for n in 0..g2.nchunks() {
        unravel(n, &sper[..nd], &mut idx[..nd]);
        if aligned {
            idx[axis] += dst_len / gd.chunkshape[axis] as i64;
            let dn: i64 = (0..nd).map(|i| idx[i] * dgrid[i]).sum();
            let chunk = src.hold(|s| s.get_chunk(n).map(|c| c.into_owned())).map_err(|_| Error::Failure)?;
            update_chunk(dst, dn, &chunk)?;
        } else {
            let mut start: Vec<i64> = (0..nd).map(|i| idx[i] * cshape[i]).collect();
            let mut stop: Vec<i64> = (0..nd).map(|i| (start[i] + cshape[i]).min(g2.shape[i])).collect();
            let (_, fresh) = refresh(src, src_layout)?;
            get_slice(src, src_layout, &start, &stop, &mut buf, &cshape, fresh)?;
            start[axis] += dst_len;
            stop[axis] += dst_len;
            refresh(dst, dst_layout)?;
            set_slice(dst, dst_layout, &start, &stop, &buf, &cshape)?;
        }
    }
    Ok(())
}

// ----- frames -----

/// A contiguous frame of the chunks `h` holds described by `layout` (a view's frame: its
/// own "b2nd" metalayer over the viewed array's chunks, as an in-memory super-chunk holds
/// them).
pub fn view_frame<H: Holder>(h: &H, layout: &Layout) -> Result<Vec<u8>> {
    let ts = typesize(h)?;
    let (cparams, n) = h.hold(|s| Ok((s.cparams().clone(), s.nchunks())))?;
    let mut tmp = SuperChunk::new(cparams, DecompressParams::default(), &StorageSpec::default()).map_err(|_| Error::Failure)?;
    tmp.set_chunksize(layout.geometry.chunk_nbytes(ts as i32).unwrap_or(0));
    let smeta = layout.encode()?;
    tmp.meta_add("b2nd", &smeta).map_err(|_| Error::Failure)?;
    for i in 0..n {
        let chunk = h.hold(|s| s.get_chunk(i).map(|c| c.into_owned())).map_err(|_| Error::Failure)?;
        tmp.append_chunk(&chunk).map_err(|_| Error::Failure)?;
    }
    let frame = tmp.to_buffer().map_err(|_| Error::Failure)?.into_owned();
    Ok(frame)
}

/// Whether an array over this super-chunk may be viewed with another geometry: only when
/// its sole metalayer is "b2nd" (as the reference requires).
pub fn viewable<H: Holder>(h: &H) -> Result<bool> {
    h.hold(|s| Ok(s.metalayers().iter().all(|m| m.name == "b2nd")))
}

/// An owned super-chunk as a [`Holder`], for operations on a Rust-side array.
pub fn own(sc: &mut SuperChunk) -> Own<'_> {
    Own::new(sc)
}
