//! NDLZ (codec 32): a Lempel-Ziv codec for 2-D byte arrays that looks for repeats cell by
//! cell (4x4 cells with `compcode_meta` 4, 8x8 with 8) instead of along the flattened data.
//!
//! A block of a 2-D b2nd array (typesize 1: the block holds `blockshape[0] * blockshape[1]`
//! bytes) becomes: ndim (1 byte, always 2), the two block dimensions (little-endian int32),
//! then one token per cell in row-major cell order. Cells cut by the block's edge are always
//! literal. Tokens:
//!
//! | token | meaning | followed by |
//! |---|---|---|
//! | 0 | literal cell | its bytes |
//! | 64 | every byte of the cell equal | that byte |
//! | 192 | the cell repeats an earlier literal cell | u16 distance back to it |
//! | 4x4 only: 128..=191 | two rows repeat two consecutive earlier rows | u16 distance, the other rows |
//! | 4x4 only: 224..=255 | three rows repeat | u16 distance, the other row |
//! | 4x4 only: 40..=63 | two row pairs repeat | two u16 distances |
//! | 8x8 only: 168 + r | rows r..r+3 repeat | u16 distance, the other rows |
//! | 8x8 only: 136 + r | rows r..r+2 repeat | u16 distance, the other rows |
//!
//! Matches are found through three hash tables (cells, row triples, row pairs) that only
//! point into literal cells already written. The encoder reproduces the reference's choices
//! (including which table entries a literal cell refreshes) so both write the same bytes.

use super::registry::{CodecCallContext, UserCodec};
use crate::error::Error;
use std::cell::Cell;

/// Distances must stay below this.
const MAX_DISTANCE: usize = 65535;
/// Bits of the hash tables' index.
const HASH_LOG: u32 = 12;
const TABLE_SIZE: usize = 1 << HASH_LOG;
const FAILURE: i32 = -1;

/// The NDLZ codec as a [`UserCodec`] (`BLOSC_CODEC_NDLZ`, 32); `compcode_meta` is the cell side,
/// 4 or 8.
pub struct Ndlz;

impl UserCodec for Ndlz {
    fn id(&self) -> u8 {
        super::registry::NDLZ
    }
    fn name(&self) -> &str {
        "ndlz"
    }
    fn version(&self) -> u8 {
        1
    }
    fn complib(&self) -> u8 {
        super::registry::NDLZ
    }
    fn encode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32 {
        if meta != 4 && meta != 8 {
            return FAILURE;
        }
        if !ctx.in_schunk {
            return Error::NullPointer.code();
        }
        let Some(b2) = ctx.b2nd else { return FAILURE };
        if b2.ndim != 2 {
            return FAILURE;
        }
        let bs = [b2.blockshape[0], b2.blockshape[1]];
        compress(meta as usize, bs, src, dest)
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], meta: u8, _ctx: &CodecCallContext) -> i32 {
        match meta {
            4 | 8 => decompress(meta as usize, src, dest),
            _ => FAILURE,
        }
    }
}

const P1: u32 = 2654435761;
const P2: u32 = 2246822519;
const P3: u32 = 3266489917;
const P4: u32 = 668265263;
const P5: u32 = 374761393;
/// The seed the reference hashes with.
const SEED: u32 = 1;

/// XXH32 (seed 1, the hash the reference keys its tables with) of the bytes whose
/// little-endian 32-bit words are `words`: everything the encoder hashes is a whole number
/// of 4-byte rows or half-rows, and working on words keeps a cell in registers. Always
/// inlined: callers hash a fixed number of words, which unrolls the loops.
#[inline(always)]
fn xxh32_words(words: &[u32]) -> u32 {
    let (stripes, tail) = words.as_chunks::<4>();
    let h = if stripes.is_empty() { SEED.wrapping_add(P5) } else { converge(stripes) };
    finish(h, words.len(), tail)
}

/// The state of XXH32 after its 16-byte stripes, merged into one word.
#[inline(always)]
fn converge(stripes: &[[u32; 4]]) -> u32 {
    let round = |acc: u32, lane: u32| acc.wrapping_add(lane.wrapping_mul(P2)).rotate_left(13).wrapping_mul(P1);
    let mut v = [SEED.wrapping_add(P1).wrapping_add(P2), SEED.wrapping_add(P2), SEED, SEED.wrapping_sub(P1)];
    for stripe in stripes {
        for (acc, &lane) in v.iter_mut().zip(stripe) {
            *acc = round(*acc, lane);
        }
    }
    v[0].rotate_left(1).wrapping_add(v[1].rotate_left(7)).wrapping_add(v[2].rotate_left(12)).wrapping_add(v[3].rotate_left(18))
}

/// The rest of XXH32 of `nwords` words: their length, the words after the last whole
/// stripe (`tail`), and the final mix.
#[inline(always)]
fn finish(mut h: u32, nwords: usize, tail: &[u32]) -> u32 {
    h = h.wrapping_add(4 * nwords as u32);
    for &w in tail {
        h = h.wrapping_add(w.wrapping_mul(P3)).rotate_left(17).wrapping_mul(P4);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

/// A hash as a table slot.
#[inline(always)]
fn slot(h: u32) -> usize {
    (h >> (32 - HASH_LOG)) as usize
}

/// The table slot of the bytes with these words.
#[inline(always)]
fn hash(words: &[u32]) -> usize {
    slot(xxh32_words(words))
}

/// Rows and columns of the last cell along each dimension (a full cell when the block
/// divides evenly).
fn edge(dim: usize, side: usize) -> usize {
    match dim % side {
        0 => side,
        r => r,
    }
}

/// The `N` bytes of `src` at `at` (callers stay inside `src`).
#[inline(always)]
fn load<const N: usize>(src: &[u8], at: usize) -> [u8; N] {
    let mut b = [0u8; N];
    b.copy_from_slice(&src[at..at + N]);
    b
}

/// One hash table: positions in the output (0: empty), plus a log of the slots written
/// since it was last cleared, so that clearing costs as little as the block used it.
struct Table {
    slots: Box<[u32; TABLE_SIZE]>,
    /// The first `TABLE_SIZE` slots written (a fixed array, so that logging a write is a
    /// store and an increment, without a branch).
    log: Box<[u16; TABLE_SIZE]>,
    /// Writes since the last clear; past `TABLE_SIZE` the log is incomplete and clearing
    /// zeroes every slot.
    writes: usize,
}

impl Table {
    fn new() -> Table {
        Table { slots: Box::new([0; TABLE_SIZE]), log: Box::new([0; TABLE_SIZE]), writes: 0 }
    }
    #[inline(always)]
    fn get(&self, slot: usize) -> u32 {
        self.slots[slot % TABLE_SIZE]
    }
    #[inline(always)]
    fn set(&mut self, slot: usize, pos: u32) {
        self.slots[slot % TABLE_SIZE] = pos;
        self.log[self.writes.min(TABLE_SIZE - 1)] = slot as u16;
        self.writes += 1;
    }
    fn clear(&mut self) {
        if self.writes > TABLE_SIZE {
            self.slots.fill(0);
        } else {
            for &slot in &self.log[..self.writes] {
                self.slots[slot as usize % TABLE_SIZE] = 0;
            }
        }
        self.writes = 0;
    }
}

/// The encoder's three hash tables: whole cells, row triples, row pairs.
struct Tables {
    cell: Table,
    triple: Table,
    pair: Table,
}

impl Tables {
    /// Clear tables, from this thread's spare when it has one: a block is often only a
    /// few KiB, and zeroing 48 KiB of fresh tables for each would cost more than encoding it.
    fn take() -> Box<Tables> {
        SPARE_TABLES
            .try_with(Cell::take)
            .ok()
            .flatten()
            .unwrap_or_else(|| Box::new(Tables { cell: Table::new(), triple: Table::new(), pair: Table::new() }))
    }
    /// Clear the tables and keep them as this thread's spare. (Tables dropped by a panic
    /// are simply never given back.)
    fn give_back(mut self: Box<Tables>) {
        self.cell.clear();
        self.triple.clear();
        self.pair.clear();
        let _ = SPARE_TABLES.try_with(|spare| spare.set(Some(self)));
    }
}

thread_local! {
    static SPARE_TABLES: Cell<Option<Box<Tables>>> = const { Cell::new(None) };
}

/// The encoder's state: output written so far and the hash tables.
struct Enc<'a> {
    out: &'a mut [u8],
    op: usize,
    tabs: &'a mut Tables,
    /// The table slots the last literal cells would refresh; kept across cells, as the
    /// reference does (a cell that fills only some of them refreshes stale slots too).
    hash_triple: [usize; 6],
    hash_pair: [usize; 7],
}

impl Enc<'_> {
    /// Append fixed-size bytes (the caller checked that a whole literal cell fits, which
    /// bounds everything a cell writes).
    #[inline(always)]
    fn put<const N: usize>(&mut self, b: [u8; N]) {
        self.out[self.op..self.op + N].copy_from_slice(&b);
        self.op += N;
    }
    fn put_slice(&mut self, b: &[u8]) {
        self.out[self.op..self.op + b.len()].copy_from_slice(b);
        self.op += b.len();
    }
    /// Append the bytes of these little-endian words.
    #[inline(always)]
    fn put_words(&mut self, words: &[u32]) {
        let to = &mut self.out[self.op..self.op + 4 * words.len()];
        for (b, w) in to.as_chunks_mut::<4>().0.iter_mut().zip(words) {
            *b = w.to_le_bytes();
        }
        self.op += 4 * words.len();
    }
    #[inline(always)]
    fn put16(&mut self, v: usize) {
        self.put((v as u16).to_le_bytes());
    }
    /// Whether table position `t` holds the bytes of `words` among the bytes written so
    /// far (so that `t` is below the current position).
    #[inline(always)]
    fn holds(&self, t: u32, words: &[u32]) -> bool {
        let (t, len) = (t as usize, 4 * words.len());
        if t == 0 || t + len > self.op {
            return false;
        }
        let Some(bytes) = self.out.get(t..t + len) else { return false };
        // No early exit: a few words, compared without branches.
        bytes.as_chunks::<4>().0.iter().zip(words).fold(0, |acc, (b, &w)| acc | (u32::from_le_bytes(*b) ^ w)) == 0
    }
}

/// Compress one block; returns the bytes written, 0 when it does not pay off or does not
/// fit, or a negative error.
pub fn compress(side: usize, bs: [i32; 2], src: &[u8], dest: &mut [u8]) -> i32 {
    let cell_size = side * side;
    if src.len() as i64 != bs[0] as i64 * bs[1] as i64 {
        return FAILURE;
    }
    if dest.len() < 9 {
        return FAILURE;
    }
    let overhead = 17 + ((bs[0].wrapping_mul(bs[1])) / cell_size as i32 - 1) * 2;
    if src.len() < cell_size || (dest.len() as i64) < overhead as i64 {
        return 0;
    }
    let (b0, b1) = (bs[0] as usize, bs[1] as usize);
    let mut tabs = Tables::take();
    let mut e = Enc { out: dest, op: 0, tabs: &mut tabs, hash_triple: [0; 6], hash_pair: [0; 7] };
    e.put([2]);
    e.put(bs[0].to_le_bytes());
    e.put(bs[1].to_le_bytes());
    let n = if side == 4 { encode_block::<4>(&mut e, src, b0, b1, encode_cell4) } else { encode_block::<8>(&mut e, src, b0, b1, encode_cell8) };
    tabs.give_back();
    n
}

/// Encode the cells of a `b0` x `b1` block of `S` x `S` cells; `encode(e, src, at, b1)`
/// writes the full cell whose first byte is `src[at]`.
fn encode_block<const S: usize>(e: &mut Enc<'_>, src: &[u8], b0: usize, b1: usize, encode: impl Fn(&mut Enc<'_>, &[u8], usize, usize)) -> i32 {
    let stop = [b0.div_ceil(S), b1.div_ceil(S)];
    for c0 in 0..stop[0] {
        let rows = if c0 == stop[0] - 1 { edge(b0, S) } else { S };
        for c1 in 0..stop[1] {
            if e.op + S * S + 1 > e.out.len() {
                return 0;
            }
            let cols = if c1 == stop[1] - 1 { edge(b1, S) } else { S };
            let orig = c0 * S * b1 + c1 * S;
            if rows < S || cols < S {
                // Cells cut by the block's edge are always literal.
                e.put([0]);
                for r in 0..rows {
                    let at = orig + r * b1;
                    e.put_slice(&src[at..at + cols]);
                }
            } else {
                encode(e, src, orig, b1);
            }
            if e.op > src.len() {
                return 0;
            }
        }
    }
    e.op as i32
}

/// What every cell tries first: all bytes equal, then a repeat of a whole literal cell.
/// Returns the hash slot of the cell when neither applies.
#[inline(always)]
fn whole_cell(e: &mut Enc<'_>, cell: &[u32]) -> Option<usize> {
    let first = cell[0] as u8;
    let splat = u32::from_le_bytes([first; 4]);
    if cell.iter().fold(0, |acc, &w| acc | (w ^ splat)) == 0 {
        e.put([64, first]);
        return None;
    }
    let anchor = e.op;
    let hc = hash(cell);
    let t = e.tabs.cell.get(hc);
    if e.holds(t, cell) && anchor - (t as usize) < MAX_DISTANCE {
        e.put([192]);
        e.put16(anchor - t as usize);
        None
    } else {
        Some(hc)
    }
}

/// Write the cell with these words as a literal and refresh the tables with it.
#[inline(always)]
fn literal(e: &mut Enc<'_>, cell: &[u32], hc: usize, upd_triple: &[u32], upd_pair: &[u32]) {
    let anchor = e.op;
    e.tabs.cell.set(hc, (anchor + 1) as u32);
    if upd_triple[0] != 0 {
        for (&slot, &pos) in e.hash_triple.iter().zip(upd_triple) {
            e.tabs.triple.set(slot, pos);
        }
    }
    if upd_pair[0] != 0 {
        for (&slot, &pos) in e.hash_pair.iter().zip(upd_pair) {
            e.tabs.pair.set(slot, pos);
        }
    }
    e.put([0]);
    e.put_words(cell);
}

/// The six pairs of rows of a 4x4 cell, in the order the encoder tries them (the pair
/// `5 - p` holds the two rows pair `p` leaves out).
const PAIRS4: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];

/// Encode the 4x4 cell at `src[at]` (rows `b1` apart); a row is one word.
fn encode_cell4(e: &mut Enc<'_>, src: &[u8], at: usize, b1: usize) {
    let cell: [u32; 4] = std::array::from_fn(|r| u32::from_le_bytes(load(src, at + r * b1)));
    let Some(hc) = whole_cell(e, &cell) else { return };
    let anchor = e.op;
    let mut upd_triple = [0u32; 2];
    let mut upd_pair = [0u32; 3];
    let pair = |p: usize| [cell[PAIRS4[p].0], cell[PAIRS4[p].1]];
    // Both row-pair passes below look up the same six pairs.
    let pair_hash: [usize; 6] = std::array::from_fn(|p| hash(&pair(p)));

    // Row 0 with row j, and the two other rows, each as an earlier pair of rows.
    for j in 1..4 {
        let p1 = j - 1;
        let t1 = e.tabs.pair.get(pair_hash[p1]);
        if !e.holds(t1, &pair(p1)) || anchor - t1 as usize >= MAX_DISTANCE {
            continue;
        }
        let p2 = 5 - p1;
        let l = PAIRS4[p2].0;
        let t2 = e.tabs.pair.get(pair_hash[p2]);
        if e.holds(t2, &pair(p2)) && anchor + l * 4 - (t2 as usize) < MAX_DISTANCE {
            e.put([(1 << 5) | (j as u8) << 3]);
            e.put16(anchor - t1 as usize);
            e.put16(anchor - t2 as usize);
            return;
        }
    }

    // Three rows as three consecutive earlier rows (the fourth row follows).
    for (i, j, k, rest) in [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)] {
        let triple = [cell[i], cell[j], cell[k]];
        let hv = hash(&triple);
        let t = e.tabs.triple.get(hv);
        if t == 0 && j == i + 1 && k == j + 1 {
            upd_triple[i] = (anchor + 1 + i * 4) as u32;
            e.hash_triple[i] = hv;
        }
        if e.holds(t, &triple) && anchor + i * 4 - (t as usize) < MAX_DISTANCE {
            let token = if i == 1 { 7 << 5 } else { (7 << 5) | ((j + k - 2) as u8) << 3 };
            e.put([token]);
            e.put16(anchor - t as usize);
            e.put_words(&[cell[rest]]);
            return;
        }
    }

    // Two rows as two consecutive earlier rows (the other two follow).
    for (p, &(i, j)) in PAIRS4.iter().enumerate() {
        let hv = pair_hash[p];
        let t = e.tabs.pair.get(hv);
        if t == 0 && j == i + 1 {
            upd_pair[i] = (anchor + 1 + i * 4) as u32;
            e.hash_pair[i] = hv;
        }
        if e.holds(t, &pair(p)) && anchor + i * 4 - (t as usize) < MAX_DISTANCE {
            let token = if i == 2 { 1 << 7 } else { (1 << 7) | (i as u8) << 5 | (j as u8) << 3 };
            e.put([token]);
            e.put16(anchor - t as usize);
            e.put_words(&pair(5 - p));
            return;
        }
    }
    literal(e, &cell, hc, &upd_triple, &upd_pair);
}

/// Encode the 8x8 cell at `src[at]` (rows `b1` apart); row r is words 2r and 2r+1.
fn encode_cell8(e: &mut Enc<'_>, src: &[u8], at: usize, b1: usize) {
    let mut cell = [0u32; 16];
    for (r, halves) in cell.as_chunks_mut::<2>().0.iter_mut().enumerate() {
        let row = u64::from_le_bytes(load(src, at + r * b1));
        *halves = [row as u32, (row >> 32) as u32];
    }
    let Some(hc) = whole_cell(e, &cell) else { return };
    let anchor = e.op;
    let mut upd_triple = [0u32; 6];
    let mut upd_pair = [0u32; 7];
    // The hashes of rows i..i+3 and of rows i..i+2 both start with the stripe of rows
    // i..i+2: merge each stripe once, as the passes below reach it.
    let mut merged = [0u32; 7];
    let mut triple_slot = |i: usize| {
        let (stripe, tail) = cell[2 * i..2 * i + 6].as_chunks::<4>();
        merged[i] = converge(stripe);
        slot(finish(merged[i], 6, tail))
    };
    // Rows i..i+3 as three consecutive earlier rows (the other rows follow). The next
    // triple is hashed and looked up before this one is tried, so that the two overlap.
    let mut next = (triple_slot(0), 0);
    next.1 = e.tabs.triple.get(next.0);
    for i in 0..6 {
        let (hv, t) = next;
        if i < 5 {
            next.0 = triple_slot(i + 1);
            next.1 = e.tabs.triple.get(next.0);
        }
        let part = &cell[2 * i..2 * i + 6];
        if t == 0 {
            upd_triple[i] = (anchor + 1 + i * 8) as u32;
            e.hash_triple[i] = hv;
        }
        if e.holds(t, part) && anchor + i * 8 - (t as usize) < MAX_DISTANCE {
            e.put([(21 << 3) | i as u8]);
            e.put16(anchor - t as usize);
            e.put_words(&cell[..2 * i]);
            e.put_words(&cell[2 * i + 6..]);
            return;
        }
    }
    merged[6] = converge(cell[12..].as_chunks::<4>().0);
    // Rows i..i+2 as two consecutive earlier rows.
    for (i, &m) in merged.iter().enumerate() {
        let part = &cell[2 * i..2 * i + 4];
        let hv = slot(finish(m, part.len(), &[]));
        let t = e.tabs.pair.get(hv);
        if t == 0 {
            upd_pair[i] = (anchor + 1 + i * 8) as u32;
            e.hash_pair[i] = hv;
        }
        if e.holds(t, part) && anchor + i * 8 - (t as usize) < MAX_DISTANCE {
            e.put([(17 << 3) | i as u8]);
            e.put16(anchor - t as usize);
            e.put_words(&cell[..2 * i]);
            e.put_words(&cell[2 * i + 4..]);
            return;
        }
    }
    literal(e, &cell, hc, &upd_triple, &upd_pair);
}

/// Decompress one block; returns the bytes written (the block's size), 0 when the input
/// is too short or the output too small for the block, or a negative error.
pub fn decompress(side: usize, src: &[u8], dest: &mut [u8]) -> i32 {
    if src.len() < 9 {
        return 0;
    }
    if src[0] != 2 {
        return FAILURE;
    }
    let bs0 = i32::from_le_bytes([src[1], src[2], src[3], src[4]]);
    let bs1 = i32::from_le_bytes([src[5], src[6], src[7], src[8]]);
    if bs0 < 0 || bs1 < 0 {
        return FAILURE;
    }
    let (b0, b1) = (bs0 as usize, bs1 as usize);
    let total = b0 * b1;
    if dest.len() < total {
        return 0;
    }
    // The cells tile the block, so a stream that decodes writes every byte of it.
    let done = if side == 4 {
        decode_block::<4>(b0, b1, src, &mut dest[..total], decode_rows4)
    } else {
        decode_block::<8>(b0, b1, src, &mut dest[..total], decode_rows8)
    };
    match done {
        Some(()) => total as i32,
        None => FAILURE,
    }
}

/// The little-endian u16 at `at`.
#[inline(always)]
fn rd16(src: &[u8], at: usize) -> Option<u16> {
    let b = src.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// The `len` bytes `back` bytes before position `base`, when they are all there.
#[inline(always)]
fn back(src: &[u8], base: usize, back: usize, len: usize) -> Option<&[u8]> {
    let start = base.checked_sub(back)?;
    src.get(start..start.checked_add(len)?)
}

/// The `N` bytes at `at`, when they are all there.
#[inline(always)]
fn bytes_at<const N: usize>(src: &[u8], at: usize) -> Option<[u8; N]> {
    src.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Decode every cell of a `b0` x `b1` block into `dest` (exactly the block's bytes);
/// `rows` decodes the side's row-match tokens.
fn decode_block<const S: usize>(
    b0: usize,
    b1: usize,
    src: &[u8],
    dest: &mut [u8],
    rows_token: impl Fn(u8, &[u8], usize, usize, &mut [[u8; S]; S]) -> Option<usize>,
) -> Option<()> {
    let stop = [b0.div_ceil(S), b1.div_ceil(S)];
    let mut ip = 9usize;
    let mut cell = [[0u8; S]; S];
    for c0 in 0..stop[0] {
        let rows = if c0 == stop[0] - 1 { edge(b0, S) } else { S };
        for c1 in 0..stop[1] {
            let cols = if c1 == stop[1] - 1 { edge(b1, S) } else { S };
            let orig = c0 * S * b1 + c1 * S;
            let cur = ip;
            let token = *src.get(ip)?;
            ip += 1;
            if rows == S && cols == S {
                // A full cell: every copy below has a fixed size.
                let lit: &[u8] = match token {
                    0 => {
                        let lit = src.get(ip..ip + S * S)?;
                        ip += S * S;
                        lit
                    }
                    192 => {
                        let off = rd16(src, ip)?;
                        ip += 2;
                        back(src, cur, off as usize, S * S)?
                    }
                    64 => {
                        let v = *src.get(ip)?;
                        ip += 1;
                        for r in 0..S {
                            let at = orig + r * b1;
                            dest.get_mut(at..at + S)?.copy_from_slice(&[v; S]);
                        }
                        continue;
                    }
                    _ => {
                        ip = rows_token(token, src, cur, ip, &mut cell)?;
                        cell.as_flattened()
                    }
                };
                for (r, row) in lit.as_chunks::<S>().0.iter().enumerate() {
                    let at = orig + r * b1;
                    dest.get_mut(at..at + S)?.copy_from_slice(row);
                }
            } else {
                // A cell cut by the block's edge: its bytes are `rows` rows of `cols`.
                let lit: &[u8] = match token {
                    0 => {
                        let lit = src.get(ip..ip + rows * cols)?;
                        ip += rows * cols;
                        lit
                    }
                    192 => {
                        let off = rd16(src, ip)?;
                        ip += 2;
                        back(src, cur, off as usize, rows * cols)?
                    }
                    64 => {
                        let v = *src.get(ip)?;
                        ip += 1;
                        cell = [[v; S]; S];
                        cell.as_flattened()
                    }
                    _ => {
                        ip = rows_token(token, src, cur, ip, &mut cell)?;
                        cell.as_flattened()
                    }
                };
                for r in 0..rows {
                    let at = orig + r * b1;
                    dest.get_mut(at..at + cols)?.copy_from_slice(lit.get(r * cols..r * cols + cols)?);
                }
            }
        }
    }
    Some(())
}

/// The 4x4 row-match tokens; returns the input position after the token's data.
fn decode_rows4(token: u8, src: &[u8], cur: usize, mut ip: usize, cell: &mut [[u8; 4]; 4]) -> Option<usize> {
    if token >= 224 {
        let off = rd16(src, ip)?.wrapping_add(3);
        ip += 2;
        // The three repeated rows, then the one that follows.
        let (i, j, k, l) = match token >> 3 {
            28 => (1, 2, 3, 0),
            29 => (0, 1, 2, 3),
            30 => (0, 1, 3, 2),
            _ => (0, 2, 3, 1),
        };
        let r = back(src, cur + 3, off as usize, 12)?;
        cell[i] = bytes_at(r, 0)?;
        cell[j] = bytes_at(r, 4)?;
        cell[k] = bytes_at(r, 8)?;
        cell[l] = bytes_at(src, ip)?;
        ip += 4;
    } else if (128..=191).contains(&token) {
        let off = rd16(src, ip)?.wrapping_add(3);
        ip += 2;
        let (i, j) = if token == 128 {
            (2, 3)
        } else {
            let i = ((token - 128) >> 5) as usize;
            (i, ((token - 128) >> 3) as usize - (i << 2))
        };
        if j > 3 {
            return None;
        }
        let r = back(src, cur + 3, off as usize, 8)?;
        cell[i] = bytes_at(r, 0)?;
        cell[j] = bytes_at(r, 4)?;
        for k in (0..4).filter(|&k| k != i && k != j) {
            cell[k] = bytes_at(src, ip)?;
            ip += 4;
        }
    } else if (40..=63).contains(&token) {
        let off1 = rd16(src, ip)?.wrapping_add(5);
        let off2 = rd16(src, ip + 2)?.wrapping_add(5);
        ip += 4;
        let j = ((token - 32) >> 3) as usize;
        // The two rows other than 0 and j.
        let (l, m) = match j {
            1 => (2, 3),
            2 => (1, 3),
            _ => (1, 2),
        };
        let r1 = back(src, cur + 5, off1 as usize, 8)?;
        cell[0] = bytes_at(r1, 0)?;
        cell[j] = bytes_at(r1, 4)?;
        let r2 = back(src, cur + 5, off2 as usize, 8)?;
        cell[l] = bytes_at(r2, 0)?;
        cell[m] = bytes_at(r2, 4)?;
    } else {
        return None;
    }
    Some(ip)
}

/// The 8x8 row-match tokens (rows `r..r+3` or `r..r+2` repeat earlier rows).
fn decode_rows8(token: u8, src: &[u8], cur: usize, mut ip: usize, cell: &mut [[u8; 8]; 8]) -> Option<usize> {
    let nrows = match token >> 3 {
        21 => 3,
        17 => 2,
        _ => return None,
    };
    let first = (token & 7) as usize;
    if first + nrows > 8 {
        return None;
    }
    let off = rd16(src, ip)?;
    ip += 2;
    let r = back(src, cur, off as usize, nrows * 8)?;
    for (row, from) in cell[first..first + nrows].iter_mut().zip(r.as_chunks::<8>().0) {
        *row = *from;
    }
    for (l, row) in cell.iter_mut().enumerate() {
        if l < first || l >= first + nrows {
            *row = bytes_at(src, ip)?;
            ip += 8;
        }
    }
    Some(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XXH32 over bytes, written directly from the specification, to check `xxh32_words`.
    fn xxh32(data: &[u8], seed: u32) -> u32 {
        const P1: u32 = 2654435761;
        const P2: u32 = 2246822519;
        const P3: u32 = 3266489917;
        const P4: u32 = 668265263;
        const P5: u32 = 374761393;
        let lane = |b: &[u8; 4]| u32::from_le_bytes(*b);
        let round = |acc: u32, lane: u32| acc.wrapping_add(lane.wrapping_mul(P2)).rotate_left(13).wrapping_mul(P1);
        let (stripes, tail) = data.as_chunks::<16>();
        let mut h = if stripes.is_empty() {
            seed.wrapping_add(P5)
        } else {
            let mut v = [seed.wrapping_add(P1).wrapping_add(P2), seed.wrapping_add(P2), seed, seed.wrapping_sub(P1)];
            for stripe in stripes {
                let (lanes, _) = stripe.as_chunks::<4>();
                for (acc, l) in v.iter_mut().zip(lanes) {
                    *acc = round(*acc, lane(l));
                }
            }
            v[0].rotate_left(1).wrapping_add(v[1].rotate_left(7)).wrapping_add(v[2].rotate_left(12)).wrapping_add(v[3].rotate_left(18))
        };
        h = h.wrapping_add(data.len() as u32);
        let (words, bytes) = tail.as_chunks::<4>();
        for w in words {
            h = h.wrapping_add(lane(w).wrapping_mul(P3)).rotate_left(17).wrapping_mul(P4);
        }
        for &b in bytes {
            h = h.wrapping_add((b as u32).wrapping_mul(P5)).rotate_left(11).wrapping_mul(P1);
        }
        h ^= h >> 15;
        h = h.wrapping_mul(P2);
        h ^= h >> 13;
        h = h.wrapping_mul(P3);
        h ^ (h >> 16)
    }

    #[test]
    fn xxh32_known_values() {
        // Reference values of XXH32 with seed 0 ("" and "abc").
        assert_eq!(xxh32(b"", 0), 0x02CC5D05);
        assert_eq!(xxh32(b"abc", 0), 0x32D153FF);
        assert_eq!(xxh32(b"Nobody inspects the spammish repetition", 0), 0xE2293B2F);
    }

    #[test]
    fn word_hash_matches_byte_hash() {
        let bytes: Vec<u8> = (0..64u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let words: Vec<u32> = bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        for n in [0, 1, 2, 3, 4, 5, 6, 8, 16] {
            assert_eq!(xxh32_words(&words[..n]), xxh32(&bytes[..4 * n], SEED), "{n} words");
        }
    }

    fn round_trip(side: usize, b0: i32, b1: i32, data: &[u8]) -> usize {
        let mut out = vec![0u8; data.len() * 2 + 64];
        let n = compress(side, [b0, b1], data, &mut out);
        assert!(n >= 0, "{side} {b0}x{b1} -> {n}");
        if n == 0 {
            return 0;
        }
        let mut back = vec![0u8; data.len()];
        assert_eq!(decompress(side, &out[..n as usize], &mut back), data.len() as i32);
        assert_eq!(back, data);
        n as usize
    }

    #[test]
    fn round_trips_repetitive_and_uneven_blocks() {
        for side in [4, 8] {
            for (b0, b1) in [(32, 32), (37, 29), (64, 48), (9, 70)] {
                let n = (b0 * b1) as usize;
                let rep: Vec<u8> = (0..n).map(|i| ((i % b1 as usize) / 3 % 7) as u8).collect();
                let size = round_trip(side, b0, b1, &rep);
                assert!(size > 0 || b0 < 16, "{side} {b0}x{b1}");
                let rows: Vec<u8> = (0..n).map(|i| ((i / b1 as usize) % 5 * 13 + (i % b1 as usize) % 11) as u8).collect();
                round_trip(side, b0, b1, &rows);
            }
        }
    }

    #[test]
    fn corrupt_streams_fail_cleanly() {
        let data: Vec<u8> = (0..32 * 32).map(|i| ((i % 32) / 4) as u8).collect();
        let mut out = vec![0u8; 4096];
        let n = compress(4, [32, 32], &data, &mut out) as usize;
        assert!(n > 0);
        let mut back = vec![0u8; data.len()];
        for cut in [0, 5, 9, n / 2, n - 1] {
            assert!(decompress(4, &out[..cut], &mut back) <= 0);
        }
        for pos in 9..n {
            let mut bad = out[..n].to_vec();
            bad[pos] ^= 0xa5;
            let _ = decompress(4, &bad, &mut back);
            let _ = decompress(8, &bad, &mut back);
        }
    }

    /// Blocks of many shapes and kinds of content (runs, repeated cells, repeated rows and
    /// row pairs, noise), compressed with `compress_fn` at both cell sizes; returns an
    /// FNV-1a checksum of every output, after checking that each output decodes back and
    /// that every kind of token was written.
    fn golden_run(compress_fn: fn(usize, [i32; 2], &[u8], &mut [u8]) -> i32) -> u64 {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut sum = 0xcbf2_9ce4_8422_2325u64;
        let mut tokens = std::collections::BTreeSet::new();
        for case in 0..600 {
            let side = if case % 2 == 0 { 4 } else { 8 };
            let (b0, b1) = (4 + (next() % 76) as usize, 4 + (next() % 76) as usize);
            let (kind, alphabet) = (next() % 6, 1 + next() % 4);
            let data: Vec<u8> = (0..b0 * b1)
                .map(|i| {
                    let (r, c) = (i / b1, i % b1);
                    match kind {
                        0 => (next() % alphabet) as u8,
                        1 => ((r / 3 + c / 5) % 3) as u8,
                        2 => ((c % 7) + (r % 2)) as u8,
                        3 if next() % 10 == 0 => next() as u8,
                        3 => (c % 4) as u8,
                        4 => ((r * 7 + c) % 13) as u8 ^ (r % 3) as u8,
                        _ => next() as u8,
                    }
                })
                .collect();
            let mut out = vec![0u8; 2 * data.len() + 64];
            let n = compress_fn(side, [b0 as i32, b1 as i32], &data, &mut out);
            assert!(n >= 0, "case {case}");
            for &b in &out[..n as usize] {
                sum = (sum ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
            sum = (sum ^ n as u64).wrapping_mul(0x100_0000_01b3);
            if n == 0 {
                continue;
            }
            let mut back = vec![0u8; data.len()];
            assert_eq!(decompress(side, &out[..n as usize], &mut back), data.len() as i32, "case {case}");
            assert_eq!(back, data, "case {case}");
            // Walk the tokens (full cells only: edge cells are literal).
            let mut ip = 9;
            for c0 in 0..b0.div_ceil(side) {
                for c1 in 0..b1.div_ceil(side) {
                    let cells = if c0 == b0.div_ceil(side) - 1 { edge(b0, side) } else { side } * if c1 == b1.div_ceil(side) - 1 { edge(b1, side) } else { side };
                    let token = out[ip];
                    tokens.insert((side, token));
                    ip += 1 + match (side, token) {
                        (_, 0) => cells,
                        (_, 64) => 1,
                        (_, 192) => 2,
                        (4, 224..) => 6,
                        (4, 128..) => 10,
                        (4, _) => 4,
                        (_, 168..=175) => 42,
                        _ => 50,
                    };
                }
            }
        }
        let families = |side: usize, range: std::ops::RangeInclusive<u8>| tokens.iter().any(|&(s, t)| s == side && range.contains(&t));
        for (side, range) in [(4, 0..=0), (4, 64..=64), (4, 192..=192), (4, 40..=63), (4, 128..=191), (4, 224..=255), (8, 0..=0), (8, 64..=64), (8, 192..=192), (8, 136..=142), (8, 168..=173)] {
            assert!(families(side, range.clone()), "no {side}x{side} token in {range:?}");
        }
        sum
    }

    const GOLDEN: u64 = 0x074a_e4fa_0484_dcdf;

    #[test]
    fn encoder_output_is_unchanged() {
        // Checksum of the encoder's output, which reproduces the reference byte for byte
        // (tests/plugins_nd.rs compares whole chunks with it); an optimisation that changes
        // any output byte changes this.
        assert_eq!(golden_run(compress), GOLDEN);
    }
}
