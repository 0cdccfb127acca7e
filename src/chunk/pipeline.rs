//! The filter pipeline of one block: six slots applied in increasing order when compressing
//! and in decreasing order when decompressing (README_CHUNK_FORMAT.rst, `filter_codes`).

use super::header::{BITSHUFFLE, DELTA, MAX_FILTERS, NOFILTER, SHUFFLE, TRUNC_PREC};
use super::workers::SPARE_BUFS;
use crate::error::{Error, Result};
use crate::filters::{self, registry};
use crate::scratch::ScratchBuf;

/// Which buffer currently holds the block's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// The caller's input block (read-only).
    Input,
    /// The first scratch buffer.
    A,
    /// The second scratch buffer.
    B,
}

fn other(s: Slot) -> Slot {
    if s == Slot::A {
        Slot::B
    } else {
        Slot::A
    }
}

/// Scratch space for one worker: two block-sized buffers the pipeline ping-pongs between.
///
/// A buffer is only allocated when something first writes into it: a single filter
/// (shuffle before a codec, the common case) never touches `b`, an unfiltered block neither,
/// and an allocation nobody touches still costs resident memory when glibc serves it from
/// reused heap (its `calloc` then clears it).
#[derive(Default)]
pub struct Buffers {
    /// First ping-pong buffer.
    a: ScratchBuf,
    /// Second ping-pong buffer.
    b: ScratchBuf,
    /// The largest block size asked for by [`ensure`](Self::ensure).
    want: usize,
}

impl Buffers {
    /// Bytes the two buffers hold.
    #[inline]
    pub fn held(&self) -> usize {
        self.a.len() + self.b.len()
    }

    /// Make both buffers able to hold `n` bytes (each allocated when first written).
    pub fn ensure(&mut self, n: usize) {
        self.want = self.want.max(n);
    }

    /// Before the first write into empty buffers: take the block buffers a call left in
    /// [`SPARE_BUFS`] (see [`Workers::park`](super::workers::Workers::park)) instead of
    /// writing fresh pages. Done here rather than at the start of every call, so that a call
    /// that needs no buffer (an unfiltered block goes straight to its destination) does not
    /// touch the shared slots: their locks cost small calls about a sixth of their time.
    fn adopt_spare(&mut self, n: usize) {
        if self.held() == 0 && self.want.max(n) > 0 {
            if let Some(spare) = SPARE_BUFS.take_kept() {
                let want = self.want.max(spare.want);
                *self = spare;
                self.want = want;
            }
        }
    }

    /// Buffer `a` for writing.
    pub fn a_mut(&mut self) -> &mut ScratchBuf {
        self.adopt_spare(0);
        self.a.grow_to(self.want);
        &mut self.a
    }

    /// Both buffers for writing.
    pub fn both_mut(&mut self) -> (&mut ScratchBuf, &mut ScratchBuf) {
        self.adopt_spare(0);
        self.a.grow_to(self.want);
        self.b.grow_to(self.want);
        (&mut self.a, &mut self.b)
    }

    /// (source, destination) views for a step reading `from` and writing `to`.
    fn pair<'a>(&'a mut self, input: &'a [u8], from: Slot, to: Slot, n: usize) -> (&'a [u8], &'a mut [u8]) {
        self.adopt_spare(n);
        match to {
            Slot::A => self.a.grow_to(self.want.max(n)),
            Slot::B => self.b.grow_to(self.want.max(n)),
            Slot::Input => {}
        }
        match (from, to) {
            (Slot::Input, Slot::A) => (&input[..n], &mut self.a[..n]),
            (Slot::Input, Slot::B) => (&input[..n], &mut self.b[..n]),
            (Slot::A, Slot::B) => (&self.a[..n], &mut self.b[..n]),
            (Slot::B, Slot::A) => (&self.b[..n], &mut self.a[..n]),
            _ => unreachable!("pipeline never writes into its input"),
        }
    }

    /// The first `n` bytes of the buffer `s` (the input itself for [`Slot::Input`]).
    pub fn get<'a>(&'a self, input: &'a [u8], s: Slot, n: usize) -> &'a [u8] {
        match s {
            Slot::Input => &input[..n],
            Slot::A => &self.a[..n],
            Slot::B => &self.b[..n],
        }
    }

    /// The first `n` bytes of scratch buffer `s`, writable. Panics for [`Slot::Input`].
    pub fn get_mut(&mut self, s: Slot, n: usize) -> &mut [u8] {
        self.adopt_spare(n);
        match s {
            Slot::A => self.a.grow_to(self.want.max(n)),
            Slot::B => self.b.grow_to(self.want.max(n)),
            Slot::Input => {}
        }
        match s {
            Slot::A => &mut self.a[..n],
            Slot::B => &mut self.b[..n],
            Slot::Input => unreachable!("the input is read-only"),
        }
    }
}

/// Everything a pipeline step needs to know besides the data.
pub struct PipelineParams<'a> {
    /// Filter id of each slot ([`NOFILTER`] for an empty one).
    pub filters: &'a [u8; MAX_FILTERS],
    /// Meta byte of each slot's filter.
    pub filters_meta: &'a [u8; MAX_FILTERS],
    /// Bytes per item, what shuffle and delta work by.
    pub typesize: usize,
    /// Chunk format version (old bitshuffle chunks need a compatibility path).
    pub format_version: u8,
    /// Passed to user filters.
    pub call: &'a registry::FilterCallContext,
}

/// Byte-shuffle's meta is the number of byte streams (0 means one per byte of the type),
/// as in c-blosc2 3.x.
pub fn shuffle_streams(typesize: usize, meta: u8) -> usize {
    if meta == 0 {
        typesize
    } else {
        meta as usize
    }
}

/// Whether the compressing pipeline does anything at all.
pub fn forward_is_noop(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().all(|&f| f == NOFILTER)
}

/// Whether the decompressing pipeline does anything (trunc_prec needs no undoing).
pub fn backward_is_noop(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().all(|&f| f == NOFILTER || f == TRUNC_PREC)
}

/// Run the filters over `block_in` (which starts at byte `offset` of the chunk's data; `dref`
/// is the chunk's first block, delta's reference). Returns where the filtered block is.
pub fn forward(
    p: &PipelineParams<'_>,
    dref: &[u8],
    offset: usize,
    block_in: &[u8],
    n: usize,
    start: Slot,
    bufs: &mut Buffers,
) -> Result<Slot> {
    let mut cur = start;
    for i in 0..MAX_FILTERS {
        let f = p.filters[i];
        if f == NOFILTER {
            continue;
        }
        let meta = p.filters_meta[i];
        let to = other(cur);
        let (src, dst) = bufs.pair(block_in, cur, to, n);
        match f {
            SHUFFLE => filters::shuffle(shuffle_streams(p.typesize, meta), src, dst),
            BITSHUFFLE => {
                filters::bitshuffle(p.typesize, src, dst).map_err(|_| Error::FilterPipeline)?
            }
            // The first block is its own reference: it is delta-coded against the data as the
            // earlier filters left it (what its decoder sees); later blocks use the chunk's
            // original first block.
            DELTA => filters::delta_encode(if offset == 0 { src } else { dref }, offset, src, dst, p.typesize),
            TRUNC_PREC => filters::trunc_prec(meta as i8, p.typesize, src, dst)
                .map_err(|_| Error::FilterPipeline)?,
            id if id <= 31 => return Err(Error::FilterPipeline),
            id => {
                let uf = registry::find(id).ok_or(Error::FilterPipeline)?;
                if uf.forward(src, dst, meta, p.call) != 0 {
                    return Err(Error::FilterPipeline);
                }
            }
        }
        cur = to;
    }
    Ok(cur)
}

/// Undo the filters over a decoded block held in `start` (A or B). `dref` is the chunk's
/// fully decoded first block, `None` while decoding that block itself.
pub fn backward(
    p: &PipelineParams<'_>,
    offset: usize,
    n: usize,
    start: Slot,
    bufs: &mut Buffers,
    dref: Option<&[u8]>,
) -> Result<Slot> {
    let mut cur = start;
    for i in (0..MAX_FILTERS).rev() {
        let f = p.filters[i];
        if f == NOFILTER || f == TRUNC_PREC {
            continue;
        }
        let meta = p.filters_meta[i];
        if f == DELTA {
            // In place: delta decodes against the chunk's first block.
            let data = bufs.get_mut(cur, n);
            filters::delta_decode(dref.unwrap_or(&[]), offset, data, p.typesize);
            continue;
        }
        let to = other(cur);
        let (src, dst) = bufs.pair(&[], cur, to, n);
        match f {
            SHUFFLE => filters::unshuffle(shuffle_streams(p.typesize, meta), src, dst),
            BITSHUFFLE => filters::bitunshuffle(p.typesize, src, dst, p.format_version)
                .map_err(|_| Error::FilterPipeline)?,
            id if id <= 31 => return Err(Error::FilterPipeline),
            id => {
                let uf = registry::find(id).ok_or(Error::FilterPipeline)?;
                let rc = uf.backward(src, dst, meta, p.call);
                if rc != 0 {
                    return Err(Error::from_code(rc).unwrap_or(Error::FilterPipeline));
                }
            }
        }
        cur = to;
    }
    Ok(cur)
}
