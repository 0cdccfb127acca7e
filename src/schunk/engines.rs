//! Running the engines (compression, decompression) with the super-chunk released.
//!
//! Codecs, filters, prefilters, postfilters and the threads callback may be user code, and
//! user code may call back into the super-chunk it works for (to read its metalayers or a
//! chunk, say). An owner that keeps a super-chunk behind a lock (the C layer) must not hold
//! that lock while such code runs, so the operations that run an engine are written against
//! a [`Holder`]: every step that touches the super-chunk's state borrows it briefly through
//! [`Holder::hold`], while the engine, taken out of the super-chunk for the duration, works
//! on chunk bytes the operation owns ([`Held`]). A call made meanwhile finds the super-chunk
//! available and, if it needs an engine, gets a spare one set up like the one that is out.

use std::cell::RefCell;
use std::ops::Deref;
use std::sync::Arc;

use super::{Store, SuperChunk};
use crate::chunk::compress::Compressor;
use crate::chunk::DecompressParams;
use crate::chunk::decompress::{Decompressor, LazyReader, PARALLEL_MIN_BYTES};
use crate::chunk::header::{ChunkHeader, DELTA};
use crate::error::{Error, Result};
use crate::frame::cframe::chunk_sizes;

/// Gives an operation short, exclusive access to a super-chunk, step by step.
pub trait Holder {
    /// Run `f` with the super-chunk to itself.
    fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R>;
}

/// The trivial holder: a super-chunk borrowed mutably for the whole operation.
pub struct Own<'a>(RefCell<&'a mut SuperChunk>);

impl<'a> Own<'a> {
    /// Hold `sc` for the operations run on this holder.
    pub fn new(sc: &'a mut SuperChunk) -> Own<'a> {
        Own(RefCell::new(sc))
    }
}

impl Holder for Own<'_> {
    fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R> {
        // Steps never nest (each returns before the next), so the borrow is always free.
        let mut sc = self.0.try_borrow_mut().map_err(|_| Error::Failure)?;
        f(&mut sc)
    }
}

/// Chunk bytes an operation keeps while the super-chunk is released: shared with an
/// in-memory store (no copy), or read out of a frame.
pub enum Held {
    /// The in-memory store's own chunk.
    Shared(super::MemChunk),
    /// A copy read from a frame.
    Owned(Vec<u8>),
}

impl Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Held::Shared(a) => a,
            Held::Owned(v) => v,
        }
    }
}

/// Engines that stood in for a super-chunk's own while those were lent to an operation,
/// kept for the next loan (see [`SuperChunk::take_decompressor`]). Each is reconfigured
/// like the engine it stands in for when lent again; its threads and scratch, if a call
/// made during a loan used it, stay with it.
#[derive(Default)]
pub(crate) struct StandIns {
    pub(super) cctx: Option<Box<Compressor>>,
    pub(super) dctx: Option<Box<Decompressor>>,
}

impl SuperChunk {
    /// Chunk `n` as bytes the caller keeps; `lazy` asks on-disk frames for a lazy chunk.
    pub fn held_chunk(&mut self, n: i64, lazy: bool) -> Result<Held> {
        let idx = self.check_index(n)?;
        if let Store::Memory(v) = &self.store {
            return Ok(Held::Shared(v[idx].clone()));
        }
        let c = if lazy { self.get_lazy_chunk(n)? } else { self.get_chunk(n)? };
        Ok(Held::Owned(c.into_owned()))
    }

    /// Chunk `n` fetched to decode the blocks marked in `needed` (one entry per block): in
    /// memory the chunk itself; from a frame file the whole chunk when every block is
    /// needed, else its lazy form with the needed blocks read ahead in one read (chunks
    /// claiming more than `max_nbytes` are read block by block). `check_fresh`: look for
    /// other handles' changes first, as every data access does; an operation reading several
    /// chunks does that for its first one only (with locking on it is always done).
    pub fn partial_chunk(&mut self, n: i64, needed: &[bool], max_nbytes: usize, check_fresh: bool) -> Result<PartialChunk> {
        self.guarded_with(false, check_fresh, |s| {
            let idx = s.check_index(n)?;
            let on_disk = s.urlpath.is_some();
            match &mut s.store {
                Store::Memory(v) => Ok(PartialChunk { chunk: Held::Shared(v[idx].clone()), reader: None }),
                Store::Frame(f) if !on_disk || needed.iter().all(|&b| b) => {
                    Ok(PartialChunk { chunk: Held::Owned(f.chunk(idx)?.into_owned()), reader: None })
                }
                Store::Frame(f) => {
                    let lazy = f.lazy_chunk(idx)?.into_owned();
                    let reader = f.read_ahead(&lazy, needed, max_nbytes).map(|mut p| {
                        p.fallback = s.dctx.lazy.clone();
                        Arc::new(p) as Arc<dyn LazyReader>
                    });
                    Ok(PartialChunk { chunk: Held::Owned(lazy), reader })
                }
            }
        })
    }

    /// Take the compression engine out, ready for the next chunk; a stand-in configured
    /// the same way takes its place for calls made while it is out.
    ///
    /// Engines are boxed so that taking and putting them back moves a pointer, not the
    /// engine (this runs twice for every chunk written or read). The stand-in is the one
    /// the last loan left ([`StandIns`]): making and dropping a fresh one on every call
    /// cost a 64-byte chunk's read two allocations, two frees and a worker set's drop.
    pub fn take_compressor(&mut self) -> Box<Compressor> {
        let params = &self.cctx.params;
        let mut spare = self.stand_ins.cctx.take().unwrap_or_else(|| Box::new(Compressor::new(params.clone())));
        spare.stand_in_for(&self.cctx);
        let mut c = std::mem::replace(&mut self.cctx, spare);
        c.nchunk = self.nchunks();
        // The reference's context keeps the block size it used last and forces it on the
        // next chunk (observed with 3.3.5: a 800-byte chunk after a 200-byte one gets
        // 200-byte blocks); the frames only match if we do the same.
        c.params.blocksize = self.last_blocksize;
        c
    }

    /// Put back an engine from [`take_compressor`](Self::take_compressor), with the chunk
    /// it made (its block size is the one the next chunk gets).
    pub fn put_compressor(&mut self, c: Box<Compressor>, made: Option<&[u8]>) {
        if let Some(h) = made.and_then(|m| ChunkHeader::read_min(m).ok()) {
            self.last_blocksize = h.blocksize;
        }
        self.stand_ins.cctx = Some(std::mem::replace(&mut self.cctx, c));
    }

    /// Take the decompression engine out (see [`take_compressor`](Self::take_compressor)).
    pub fn take_decompressor(&mut self) -> Box<Decompressor> {
        let params = &self.dctx.params;
        let mut spare = self.stand_ins.dctx.take().unwrap_or_else(|| Box::new(Decompressor::new(params.clone())));
        spare.stand_in_for(&self.dctx);
        std::mem::replace(&mut self.dctx, spare)
    }

    /// Give back the decompression engine [`SuperChunk::take_decompressor`] lent (the
    /// engine in its place is kept as the next loan's stand-in).
    pub fn put_decompressor(&mut self, d: Box<Decompressor>) {
        self.stand_ins.dctx = Some(std::mem::replace(&mut self.dctx, d));
    }
}

/// Compress `src` with the super-chunk's engine, released while it runs.
pub fn compress_in<H: Holder>(h: &H, src: &[u8]) -> Result<Vec<u8>> {
    let mut engine = h.hold(|s| Ok(s.take_compressor()))?;
    let made = engine.compress_to_vec(src);
    let chunk = made.as_ref().ok().map(|v| &v[..]);
    h.hold(|s| {
        s.put_compressor(engine, chunk);
        Ok(())
    })?;
    made
}

/// Compress `src` and append it (`blosc2_schunk_append_buffer`); the new number of chunks.
pub fn append_buffer_in<H: Holder>(h: &H, src: &[u8]) -> Result<i64> {
    let chunk = compress_in(h, src)?;
    h.hold(|s| s.append_chunk_vec(chunk))
}

/// Run `f` with the decompression engine taken out of the super-chunk, putting it back
/// whatever `f` returns.
pub fn with_decompressor<H: Holder, R>(h: &H, f: impl FnOnce(&mut Decompressor) -> Result<R>) -> Result<R> {
    let mut engine = h.hold(|s| Ok(s.take_decompressor()))?;
    let r = f(&mut engine);
    h.hold(|s| {
        s.put_decompressor(engine);
        Ok(())
    })?;
    r
}

/// Chunk bytes fetched to decode some of its blocks ([`SuperChunk::partial_chunk`]).
pub struct PartialChunk {
    /// The chunk's bytes (the header and offsets at least, for a lazy chunk).
    pub chunk: Held,
    /// Serves the blocks read ahead (others go to the engine's own reader).
    pub reader: Option<Arc<dyn LazyReader>>,
}

/// Run `f` with the engine taken out, reading lazy blocks through `reader` when given.
fn run_released<H: Holder, R>(
    h: &H,
    mut engine: Box<Decompressor>,
    n: i64,
    reader: Option<Arc<dyn LazyReader>>,
    f: impl FnOnce(&mut Decompressor) -> Result<R>,
) -> Result<R> {
    engine.nchunk = n;
    let own = reader.map(|r| engine.lazy.replace(r));
    let r = f(&mut engine);
    if let Some(own) = own {
        engine.lazy = own;
    }
    h.hold(|s| {
        s.put_decompressor(engine);
        Ok(())
    })?;
    r
}

/// Decode the blocks of chunk `n` marked in `needed` one by one into `sink` (see
/// [`Decompressor::decompress_blocks`]), on the calling thread. The engine runs with the
/// super-chunk released, except where nothing but this library's code can run (no
/// postfilter, built-in codecs and filters): a chunk held in memory is then decoded where
/// it lies ([`SuperChunk::decode_in_place`]; an in-memory frame's is not copied out
/// first).
pub fn decompress_blocks_in<H: Holder>(
    h: &H,
    n: i64,
    needed: &[bool],
    max_nbytes: usize,
    check_fresh: bool,
    sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
) -> Result<()> {
    let step = h.hold(|s| {
        if s.urlpath.is_none() {
            let idx = s.check_index(n)?;
            let here = s.decode_in_place(idx, |chunk, dctx| {
                dctx.nchunk = n;
                dctx.decompress_blocks(chunk, needed, &mut *sink)?;
                Ok(Some(()))
            })?;
            if here.is_some() {
                return Ok(None);
            }
        }
        let p = s.partial_chunk(n, needed, max_nbytes, check_fresh)?;
        Ok(Some((p, s.take_decompressor())))
    })?;
    let Some((p, engine)) = step else { return Ok(()) };
    run_released(h, engine, n, p.reader, |d| d.decompress_blocks(&p.chunk, needed, sink))
}

/// Decompress the blocks of chunk `n` marked in `needed` into their places in `dest` (one
/// whole chunk; other blocks are left alone), with the engine released and its threads.
/// With delta every block decodes against the first one, which is then decoded too (a
/// masked first block would leave whatever `dest` held there as the reference).
pub fn decompress_masked_in<H: Holder>(
    h: &H,
    n: i64,
    needed: &[bool],
    check_fresh: bool,
    dest: &mut [u8],
) -> Result<usize> {
    let (p, engine) = h.hold(|s| {
        let p = s.partial_chunk(n, needed, dest.len(), check_fresh)?;
        Ok((p, s.take_decompressor()))
    })?;
    let delta = needed.contains(&true) && ChunkHeader::read(&p.chunk).is_ok_and(|c| c.filters.contains(&DELTA));
    run_released(h, engine, n, p.reader, |d| {
        d.maskout = Some(needed.iter().enumerate().map(|(j, &b)| !(b || (delta && j == 0))).collect());
        let r = d.decompress(&p.chunk, dest);
        d.maskout = None;
        r
    })
}

/// Block `nblock` of chunk `n`, a chunk of variable-length blocks (`blosc2_schunk_get_vlblock`).
/// The chunk is copied out and decoded with the super-chunk released (the codec may be user
/// code), with default decompression parameters as the reference.
pub fn vlblock_in<H: Holder>(h: &H, n: i64, nblock: i32) -> Result<Vec<u8>> {
    let c = h.hold(|s| {
        if n < 0 || n >= s.nchunks() || nblock < 0 {
            return Err(Error::InvalidParam);
        }
        s.get_chunk(n).map(std::borrow::Cow::into_owned)
    })?;
    let hd = ChunkHeader::read(&c)?;
    if hd.blosc2_flags2 & crate::chunk::header::VL_BLOCKS == 0 {
        return Err(Error::InvalidParam);
    }
    Decompressor::new(DecompressParams::default()).vl_decompress_block(&c, nblock as usize)
}

/// Decompress chunk `n` into `dest`; its uncompressed size.
///
/// A small chunk held in memory whose decoding runs none but this library's code (see
/// [`SuperChunk::decode_here`]) is decoded in the one step that finds it; any other runs
/// with the engine taken out and the super-chunk released, and a second step gives the
/// engine back. (Every step takes the super-chunk's lock, and the C layer's steps publish
/// its public struct: two steps and a loaned engine made a 64-byte chunk's read cost five
/// times the reference's.)
pub fn decompress_chunk_in<H: Holder>(h: &H, n: i64, dest: &mut [u8]) -> Result<usize> {
    let step = h.hold(|s| {
        if n < 0 || n >= s.nchunks() {
            return Err(Error::InvalidParam);
        }
        if let Some(got) = s.decode_here(n, dest)? {
            return Ok(Err(got));
        }
        let chunk = s.held_chunk(n, false)?;
        let (nbytes, _) = chunk_sizes(&chunk)?;
        if (nbytes as usize) > dest.len() {
            return Err(Error::WriteBuffer);
        }
        Ok(Ok((chunk, s.take_decompressor(), nbytes as usize)))
    })?;
    let (chunk, mut engine, nbytes) = match step {
        Ok(lent) => lent,
        Err(done) => return Ok(done),
    };
    engine.nchunk = n;
    let r = engine.decompress(&chunk, dest);
    let ok = matches!(r, Ok(got) if got == nbytes);
    h.hold(|s| {
        s.put_decompressor(engine);
        if ok {
            s.set_current_nchunk(n);
        }
        Ok(())
    })?;
    let got = r?;
    if got != nbytes {
        return Err(Error::Failure);
    }
    Ok(got)
}

impl SuperChunk {
    /// Run `f` on chunk `idx` (a valid index) and the decompression engine right here, with
    /// the super-chunk held, when that is safe: the chunk is in memory (the store's or an
    /// in-memory frame's) and nothing but this library's code runs while it decodes (no
    /// postfilter, built-in codec and filters: no callback can call back into this
    /// super-chunk). `f` decodes on the calling thread (so no threads callback runs
    /// either); whole-chunk reads and slices keep it to small amounts, so that their hold
    /// lasts about as long as taking the lock does. `Ok(None)` when not done here (`f` may
    /// decline too).
    pub(super) fn decode_in_place<R>(
        &mut self,
        idx: usize,
        f: impl FnOnce(&[u8], &mut Decompressor) -> Result<Option<R>>,
    ) -> Result<Option<R>> {
        if self.urlpath.is_some() {
            return Ok(None);
        }
        let from_frame;
        let chunk: &[u8] = match &mut self.store {
            Store::Memory(v) => &v[idx],
            Store::Frame(f) => {
                from_frame = f.chunk(idx)?;
                &from_frame
            }
        };
        if self.dctx.may_run_user_code(chunk) {
            return Ok(None);
        }
        f(chunk, &mut self.dctx)
    }

    /// Decode chunk `n` (a valid index) into `dest` in place (see
    /// [`decode_in_place`](Self::decode_in_place)) when it is smaller than
    /// [`PARALLEL_MIN_BYTES`] (decoded by one thread anyway); its size, or `None`.
    fn decode_here(&mut self, n: i64, dest: &mut [u8]) -> Result<Option<usize>> {
        let got = self.decode_in_place(n as usize, |chunk, dctx| {
            let nbytes = chunk_sizes(chunk)?.0 as usize;
            if nbytes > dest.len() {
                return Err(Error::WriteBuffer);
            }
            if nbytes >= PARALLEL_MIN_BYTES {
                return Ok(None);
            }
            dctx.nchunk = n;
            let got = dctx.decompress(chunk, dest)?;
            if got != nbytes {
                return Err(Error::Failure);
            }
            Ok(Some(got))
        })?;
        if got.is_some() {
            self.current_nchunk = n;
        }
        Ok(got)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::{Arc, Mutex, OnceLock};

    use super::*;
    use crate::chunk::hooks::{BlockInfo, Postfilter, Prefilter};
    use crate::chunk::{CompressParams, DecompressParams};
    use crate::schunk::{get_slice_in, set_slice_in, StorageSpec};

    /// A super-chunk behind a mutex, as the C layer keeps it.
    struct Locked(Arc<Mutex<SuperChunk>>);

    impl Holder for Locked {
        fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R> {
            f(&mut self.0.lock().unwrap())
        }
    }

    /// The super-chunk the hooks below look at while they run.
    fn current() -> &'static Mutex<Option<Arc<Mutex<SuperChunk>>>> {
        static C: OnceLock<Mutex<Option<Arc<Mutex<SuperChunk>>>>> = OnceLock::new();
        C.get_or_init(|| Mutex::new(None))
    }

    /// Whether the hook found the super-chunk free (its lock not held by the operation).
    fn super_chunk_free() -> bool {
        let sc = current().lock().unwrap().clone().unwrap();
        let free = sc.try_lock().map(|mut s| s.vlmeta_get("hint").is_ok() && s.get_chunk(0).is_ok()).unwrap_or(false);
        free
    }

    static SEEN: Mutex<(u32, u32)> = Mutex::new((0, 0));

    struct Pre;
    impl Prefilter for Pre {
        fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8], _: bool) -> i32 {
            let n = output.len();
            output.copy_from_slice(&input[..n]);
            let mut seen = SEEN.lock().unwrap();
            seen.0 += 1;
            seen.1 += super_chunk_free() as u32;
            0
        }
    }

    struct Post;
    impl Postfilter for Post {
        fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
            output.copy_from_slice(input);
            let mut seen = SEEN.lock().unwrap();
            seen.0 += 1;
            seen.1 += super_chunk_free() as u32;
            0
        }
    }

    /// Every hook of every engine run finds the super-chunk free to use.
    #[test]
    fn hooks_run_with_the_super_chunk_released() {
        let cp = CompressParams { typesize: 4, nthreads: 1, blocksize: 1024, ..CompressParams::default() };
        let mut sc = SuperChunk::new(cp, DecompressParams::default(), &StorageSpec::default()).unwrap();
        sc.vlmeta_add("hint", b"x", None).unwrap();
        sc.append_buffer(&[7u8; 4096]).unwrap();
        sc.compressor().prefilter = Some(Arc::new(Pre));
        sc.decompressor().postfilter = Some(Arc::new(Post));
        let shared = Arc::new(Mutex::new(sc));
        *current().lock().unwrap() = Some(shared.clone());
        let h = Locked(shared.clone());
        let src: Vec<u8> = (0..8192u32).map(|i| i as u8).collect();
        assert_eq!(append_buffer_in(&h, &src).unwrap(), 2);
        let mut out = vec![0u8; 8192];
        assert_eq!(decompress_chunk_in(&h, 1, &mut out).unwrap(), 8192);
        assert_eq!(out, src);
        let mut part = vec![0u8; 40];
        get_slice_in(&h, 1020, 1030, &mut part).unwrap();
        assert_eq!(&part[16..], &src[..24]);
        set_slice_in(&h, 1020, 1030, &[1u8; 40]).unwrap();
        get_slice_in(&h, 1020, 1030, &mut part).unwrap();
        assert_eq!(part, vec![1u8; 40]);
        // Block by block and masked reads (b2nd slices).
        let needed = [false, true, false, true, false, false, false, true];
        let mut got = vec![0u8; 8192];
        let mut sink = |j: usize, b: &[u8]| {
            got[j * 1024..j * 1024 + b.len()].copy_from_slice(b);
            Ok(())
        };
        decompress_blocks_in(&h, 1, &needed, 8192, true, &mut sink).unwrap();
        let mut masked = vec![0u8; 8192];
        decompress_masked_in(&h, 1, &needed, true, &mut masked).unwrap();
        for (j, &n) in needed.iter().enumerate() {
            let want = if n { &out[j * 1024..(j + 1) * 1024] } else { &[0u8; 1024][..] };
            assert_eq!(&got[j * 1024..(j + 1) * 1024], want);
            assert_eq!(&masked[j * 1024..(j + 1) * 1024], want);
        }
        let params = CompressParams { typesize: 4, nthreads: 1, clevel: 9, ..CompressParams::default() };
        let dparams = crate::chunk::DecompressParams { nthreads: 1, typesize: 4 };
        let copy = crate::schunk::copy_to_in(&h, &StorageSpec::default(), Some(params), dparams).unwrap();
        assert_eq!(copy.nchunks(), 2);
        *current().lock().unwrap() = None;
        let (calls, free) = *SEEN.lock().unwrap();
        assert!(calls > 10, "hooks ran {calls} times");
        assert_eq!(free, calls, "a hook found the super-chunk locked");
        // The engines came back: the spares left meanwhile were replaced.
        let mut s = shared.lock().unwrap();
        assert!(s.compressor().prefilter.is_some() && s.decompressor().postfilter.is_some());
    }

    /// Decodes blocks of `n` marked in `needed` block by block; the rest stays zero.
    fn blocks_of<H: Holder>(h: &H, n: i64, needed: &[bool], bs: usize, fresh: bool) -> Result<Vec<u8>> {
        let len = needed.len() * bs;
        let mut got = vec![0u8; len];
        let mut sink = |j: usize, b: &[u8]| {
            got[j * bs..j * bs + b.len()].copy_from_slice(b);
            Ok(())
        };
        decompress_blocks_in(h, n, needed, len, fresh, &mut sink)?;
        Ok(got)
    }

    /// Block-by-block and masked reads give the bytes a whole-chunk read gives, for every
    /// store: separate chunks, an in-memory frame (decoded in place, or released for a
    /// postfilter), a frame file (the needed blocks read ahead in one read, its lazy
    /// reader left in place afterwards) and a sparse frame; shuffle, delta and memcpyed.
    #[test]
    fn block_reads_match_whole_chunks_in_every_store() {
        struct Count(Mutex<u32>);
        impl Postfilter for Count {
            fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
                output.copy_from_slice(input);
                *self.0.lock().unwrap() += 1;
                0
            }
        }
        let dir = std::env::temp_dir().join(format!("b2-blockreads-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let src: Vec<u8> = (0..16384u32).flat_map(|i| ((i / 3) ^ (i % 7)).to_le_bytes()).collect();
        let specs = [
            StorageSpec::default(),
            StorageSpec { contiguous: true, urlpath: None },
            StorageSpec { contiguous: true, urlpath: Some(dir.join("f.b2frame")) },
            StorageSpec { contiguous: false, urlpath: Some(dir.join("sparse")) },
        ];
        for spec in &specs {
            // shuffle, delta + shuffle, and stored as is (memcpyed)
            for (filters, clevel) in [([0, 0, 0, 0, 0, 1], 5), ([0, 0, 0, 0, 3, 1], 5), ([0, 0, 0, 0, 0, 1], 0)] {
                if let Some(p) = &spec.urlpath {
                    let _ = std::fs::remove_file(p);
                    let _ = std::fs::remove_dir_all(p);
                }
                let cp =
                    CompressParams { typesize: 4, nthreads: 1, blocksize: 4096, filters, clevel, ..CompressParams::default() };
                let mut sc = SuperChunk::new(cp, DecompressParams::default(), spec).unwrap();
                for part in src.chunks(32768) {
                    sc.append_buffer(part).unwrap();
                }
                let mut whole = vec![0u8; 32768];
                sc.decompress_chunk(1, &mut whole).unwrap();
                assert_eq!(ChunkHeader::read(&sc.get_chunk(1).unwrap()).unwrap().memcpyed(), clevel == 0);
                // From disk, a few blocks come lazily with their bytes read ahead; all of
                // them as the whole chunk.
                let few = [false, true, true, false, false, false, false, false];
                let p = sc.partial_chunk(1, &few, 32768, true).unwrap();
                assert_eq!(p.reader.is_some(), spec.urlpath.is_some(), "{spec:?}");
                assert_eq!(p.chunk.len() < 4096, spec.urlpath.is_some(), "{spec:?}");
                let p = sc.partial_chunk(1, &[true; 8], 32768, true).unwrap();
                assert!(p.reader.is_none() && p.chunk.len() > 4096);
                let lazy_before = sc.decompressor().lazy.as_ref().map(|l| Arc::as_ptr(l) as *const u8);
                let counter = Arc::new(Count(Mutex::new(0)));
                for post in [false, true] {
                    sc.decompressor().postfilter = post.then(|| counter.clone() as Arc<dyn Postfilter>);
                    let h = Own::new(&mut sc);
                    for needed in [[true; 8], [false, false, true, true, false, true, false, false], [false; 8]] {
                        let got = blocks_of(&h, 1, &needed, 4096, true).unwrap();
                        let mut masked = vec![0u8; 32768];
                        decompress_masked_in(&h, 1, &needed, false, &mut masked).unwrap();
                        for (j, &n) in needed.iter().enumerate() {
                            let want = if n { &whole[j * 4096..(j + 1) * 4096] } else { &[0u8; 4096][..] };
                            assert_eq!(&got[j * 4096..(j + 1) * 4096], want, "{spec:?} {filters:?} block {j}");
                            // With delta the first block is decoded whether needed or not.
                            let delta_first = j == 0 && filters[4] == 3 && needed.contains(&true);
                            let want = if delta_first { &whole[..4096] } else { want };
                            assert_eq!(&masked[j * 4096..(j + 1) * 4096], want, "{spec:?} {filters:?} block {j}");
                        }
                    }
                    assert_eq!(blocks_of(&h, 9, &[true; 8], 4096, true).unwrap_err(), Error::InvalidIndex);
                }
                // Postfilter runs: 8 + 3 blocks each way; with delta the first block is
                // decoded for the second read too.
                let runs = if filters[4] == 3 { (8 + 4) * 2 } else { (8 + 3) * 2 };
                assert_eq!(*counter.0.lock().unwrap(), runs, "{spec:?} {filters:?}");
                let lazy_after = sc.decompressor().lazy.as_ref().map(|l| Arc::as_ptr(l) as *const u8);
                assert_eq!(lazy_before, lazy_after);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A postfilter that copies each block as it is.
    pub(crate) struct CopyPost;

    impl Postfilter for CopyPost {
        fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
            output.copy_from_slice(input);
            0
        }
    }

    /// A fresh temporary directory named after `tag`, and the stores a read may decode in
    /// place or not: separate chunks, an in-memory frame, a frame file in that directory.
    pub(crate) fn stores_in_memory_and_a_file(tag: &str) -> (std::path::PathBuf, [StorageSpec; 3]) {
        let dir = std::env::temp_dir().join(format!("b2-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = Some(dir.join("f.b2frame"));
        let specs = [
            StorageSpec::default(),
            StorageSpec { contiguous: true, urlpath: None },
            StorageSpec { contiguous: true, urlpath: file },
        ];
        (dir, specs)
    }

    /// Whole-chunk reads decode small chunks held in memory in place (no engine lent) and
    /// everything else with the engine lent and the super-chunk released, with the same
    /// results: the bytes, `current_nchunk`, a destination one byte short refused before
    /// anything is written, an index out of range refused.
    #[test]
    fn whole_chunk_reads_in_place_and_released_agree() {
        let (dir, specs) = stores_in_memory_and_a_file("inplace");
        let small: Vec<u8> = (0..1024u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
        let large: Vec<u8> = (0..65536u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        assert!(small.len() < PARALLEL_MIN_BYTES && large.len() >= PARALLEL_MIN_BYTES);
        for spec in &specs {
            let cp = CompressParams { typesize: 4, nthreads: 2, ..CompressParams::default() };
            let dp = DecompressParams { nthreads: 2, typesize: 4 };
            let mut sc = SuperChunk::new(cp, dp, spec).unwrap();
            sc.append_buffer(&small).unwrap();
            sc.append_buffer(&large).unwrap();
            sc.append_buffer(&small[..400]).unwrap();
            for post in [false, true] {
                sc.decompressor().postfilter = post.then(|| Arc::new(CopyPost) as Arc<dyn Postfilter>);
                for (n, want) in [(0i64, &small[..]), (1, &large[..]), (2, &small[..400])] {
                    sc.stand_ins.dctx = None;
                    sc.set_current_nchunk(-1);
                    let mut out = vec![0xA5u8; want.len()];
                    assert_eq!(decompress_chunk_in(&Own::new(&mut sc), n, &mut out).unwrap(), want.len());
                    assert!(out == want, "{spec:?} post {post} chunk {n}");
                    assert_eq!(sc.current_nchunk(), n);
                    let in_place = spec.urlpath.is_none() && !post && want.len() < PARALLEL_MIN_BYTES;
                    assert_eq!(sc.stand_ins.dctx.is_none(), in_place, "{spec:?} post {post} chunk {n}");
                    let mut short = vec![0xA5u8; want.len() - 1];
                    let e = decompress_chunk_in(&Own::new(&mut sc), n, &mut short).unwrap_err();
                    assert_eq!(e, Error::WriteBuffer);
                    assert!(short.iter().all(|&b| b == 0xA5));
                }
                for n in [-1, 3] {
                    let e = decompress_chunk_in(&Own::new(&mut sc), n, &mut [0u8; 4096]).unwrap_err();
                    assert_eq!(e, Error::InvalidParam);
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The engine that stood in during one loan stands in for the next (no engine made per
    /// loan), set up like the engine it replaces each time.
    #[test]
    fn stand_ins_are_reused_and_set_up_anew() {
        let cp = CompressParams { typesize: 4, nthreads: 1, ..CompressParams::default() };
        let mut sc = SuperChunk::new(cp, DecompressParams::default(), &StorageSpec::default()).unwrap();
        let d = sc.take_decompressor();
        let first = &*sc.dctx as *const Decompressor;
        sc.dctx.maskout = Some(vec![true]);
        sc.put_decompressor(d);
        sc.decompressor().postfilter = Some(Arc::new(CopyPost));
        let d = sc.take_decompressor();
        assert_eq!(&*sc.dctx as *const Decompressor, first);
        assert!(sc.dctx.postfilter.is_some() && sc.dctx.maskout.is_none());
        sc.put_decompressor(d);
        let c = sc.take_compressor();
        let first = &*sc.cctx as *const Compressor;
        sc.put_compressor(c, None);
        sc.compressor().params.clevel = 7;
        let c = sc.take_compressor();
        assert_eq!(&*sc.cctx as *const Compressor, first);
        assert_eq!(sc.cctx.params.clevel, 7);
        sc.put_compressor(c, None);
    }

    /// An engine taken out leaves a working spare for calls made meanwhile.
    #[test]
    fn spare_engines_work() {
        let cp = CompressParams { typesize: 4, nthreads: 1, ..CompressParams::default() };
        let mut sc = SuperChunk::new(cp, DecompressParams::default(), &StorageSpec::default()).unwrap();
        sc.append_buffer(&[3u8; 1000]).unwrap();
        let c = sc.take_compressor();
        let d = sc.take_decompressor();
        assert_eq!(sc.append_buffer(&[4u8; 1000]).unwrap(), 2);
        let mut out = vec![0u8; 1000];
        assert_eq!(sc.decompress_chunk(1, &mut out).unwrap(), 1000);
        assert_eq!(out, vec![4u8; 1000]);
        sc.put_compressor(c, None);
        sc.put_decompressor(d);
        assert_eq!(sc.decompress_chunk(0, &mut out).unwrap(), 1000);
        assert_eq!(out, vec![3u8; 1000]);
    }
}
