//! A redo journal for the changes of a contiguous frame file that overwrite bytes a reader
//! needs (an update in the middle shifts every chunk after it; a metalayer added moves the
//! whole payload).
//!
//! Appends and inserts are made safe by their write order alone (see
//! `Frame::commit_with`); an overwrite cannot be. So its writes are first collected, then
//! written as one record past the end of both the old and the new frame, and only then
//! applied in place; the file is cut to the new frame's end last, which also drops the
//! record. A writer stopped at any point leaves either the old frame with a partial record
//! after it (ignored: its checksum or end marker is missing), or a complete record, which
//! the next open applies again before reading the frame.
//!
//! A stretch of payload shifted by an update (every chunk after it, at 10^6 chunks tens of
//! megabytes) is noted as a move ([`Segment::Moved`]) and is not copied into the record:
//! replaying it from where it lies would read bytes it has already overwritten, so it is
//! made a piece at a time behind a progress mark. A piece whose destination overlaps its
//! own source is read, written into one of two slots beside the mark, the mark then names
//! it, and it is written in place; a piece that cannot overlap its source (the shift is at
//! least a piece long) is copied straight, and the mark follows it. Pieces are taken in the
//! order that leaves every later piece's source intact (from the start when moving toward
//! it, from the end otherwise), so a replay from the mark finds every byte it needs. The
//! stretch is read once, as by the reference's unjournaled move, and written twice when
//! the shift is short; the slots and the mark are a megabyte of pages that stay cached, not
//! a second copy of the stretch past the end of the file (which, written and cut again on
//! every update, made resized updates of 10^6 chunks 2.3 times the reference's time).
//!
//! This holds for a writer that is killed, whose completed writes the kernel keeps, in
//! order, and for writes that fail or come up short (a full disk): marks alternate between
//! two 32-byte places, each with a sequence number and a check, so that a mark torn while
//! written leaves the one before it, which is still true (the step the torn one would have
//! allowed was not taken). Nothing here survives a power cut better than the reference's
//! frames do: nothing is flushed to the disk.
//!
//! Record layouts (little-endian), found from the end of the file by their footer: a
//! checksum of everything before it (`sum64`), the record's total length (u64) and the
//! magic again.
//! - Second version (`MAGIC`; also written for changes without moves): magic, segment count
//!   (u32), final length (u64), then per segment its position (u64), length (u64) and bytes.
//!   Moves are stored as the bytes they carry.
//! - Third version (`MAGIC_RING`, changes with moves): magic, segment count (u32), final
//!   length (u64), mark position (u64), piece length (u64), then per segment its position
//!   (u64), its length (u64, the top bit set for a move) and its bytes, or for a move the
//!   position it moves from (u64). A mark holds its sequence number, the number of moves
//!   done, the progress of the next (twice the pieces done, plus one when the next piece
//!   sits in its slot), and a check of these with the record's checksum; the later of the
//!   two valid marks counts, and all zeros means nothing was applied. The two slots of a
//!   piece's length follow the marks when a move needs them; the record follows.
//! - First version (`MAGIC_V1`): the second's layout checksummed with byte-wise FNV-1a,
//!   which ran at under 1 GB/s and dominated updates of large frames; still recovered.

use super::io::{Storage, COPY_PIECE as PIECE};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"B2RJRNL2";
/// The third version's marker: moves made in place behind a progress mark.
const MAGIC_RING: &[u8; 8] = b"B2RJRNL3";
/// The first version's marker: same layout, FNV-1a checksum.
const MAGIC_V1: &[u8; 8] = b"B2RJRNL1";
/// Magic, segment count and final length.
const HEAD: usize = 20;
/// What the third version adds to the head: mark position and piece length.
const RING_HEAD: usize = 16;
/// Position and length before each segment's bytes.
const SEGMENT_HEAD: usize = 16;
/// Checksum, record length and end marker.
const FOOTER: usize = 24;
/// Records are never larger than this (a frame's tail and header); a file ending in a
/// larger claim is not a record of ours.
const MAX_RECORD: u64 = 1 << 40;
/// The length field's flag for a move (third version).
const MOVED: u64 = 1 << 63;
/// Bytes of one progress mark (sequence number, moves done, progress of the next, check),
/// written at a multiple of its size so that no page boundary splits one.
const MARK_SLOT: u64 = 32;
/// Bytes of the two progress marks, which alternate.
const MARK: u64 = 2 * MARK_SLOT;
/// Pieces are never longer than this in a record we read (we write [`PIECE`]): a slotted
/// piece is read whole into memory, and a record found in a file is not trusted with more.
const MAX_PIECE: u64 = 64 << 20;
fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The record checksum: four independent multiply-rotate lanes over 8-byte words (so the
/// multiplications overlap; several GB/s), the tail and the length folded in, then mixed.
/// It only has to catch a torn or partial record, not an adversary.
fn sum64(data: &[u8]) -> u64 {
    let mut s = Sum64::new();
    s.update(data);
    s.finish()
}

const P1: u64 = 0x9E37_79B9_7F4A_7C15;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// [`sum64`] over bytes given piece by piece (a record is written in pieces).
struct Sum64 {
    lanes: [u64; 4],
    /// Bytes of an unfinished 32-byte block.
    carry: [u8; 32],
    carried: usize,
    len: u64,
}

impl Sum64 {
    fn new() -> Sum64 {
        Sum64 { lanes: [P1, P2, P1 ^ P2, P1.rotate_left(17)], carry: [0; 32], carried: 0, len: 0 }
    }

    fn block(&mut self, b: &[u8]) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            *lane = (*lane ^ w).wrapping_mul(P2).rotate_left(31);
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        if self.carried > 0 {
            let take = (32 - self.carried).min(data.len());
            self.carry[self.carried..self.carried + take].copy_from_slice(&data[..take]);
            self.carried += take;
            data = &data[take..];
            if self.carried < 32 {
                return;
            }
            let block = self.carry;
            self.block(&block);
            self.carried = 0;
        }
        let mut blocks = data.chunks_exact(32);
        for b in &mut blocks {
            self.block(b);
        }
        let rest = blocks.remainder();
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carried = rest.len();
    }

    fn finish(&self) -> u64 {
        let mut h = self.lanes.iter().fold(self.len, |h, &l| (h ^ l).wrapping_mul(P1).rotate_left(27));
        for &b in &self.carry[..self.carried] {
            h = (h ^ b as u64).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^ (h >> 29)
    }
}

/// What one write of a change puts at its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// These bytes.
    Bytes(Vec<u8>),
    /// The `len` bytes the storage holds at `from` before the change (payload shifted by an
    /// update): moved piece by piece, so that a shift of a large frame's payload never sits
    /// in memory whole.
    Moved {
        /// Where the bytes are before the change.
        from: u64,
        /// How many.
        len: u64,
    },
}

impl Segment {
    fn len(&self) -> u64 {
        match self {
            Segment::Bytes(b) => b.len() as u64,
            Segment::Moved { len, .. } => *len,
        }
    }
}

/// The writes of one change, and the length the file has after it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Change {
    /// The bytes written, each at its file offset, in order.
    pub writes: Vec<(u64, Segment)>,
    /// The file's length once the writes are done (it may shrink).
    pub final_len: u64,
}

/// A record written (or found): where it is and how its moves are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// Where the record starts.
    at: u64,
    /// Third version: the mark and slots its moves go through. Otherwise the moved bytes
    /// are in the record.
    ring: Option<Ring>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ring {
    /// Position of the progress mark (a multiple of 32).
    mark: u64,
    /// The longest piece a move is cut into, and the length of each slot.
    piece: u64,
    /// The record's checksum, which the mark's check folds in (a mark of another record is
    /// not taken for this one's).
    sum: u64,
}

impl Ring {
    /// Where slot `i` (0 or 1) starts.
    fn slot(&self, i: u64) -> u64 {
        self.mark + MARK + (i % 2) * self.piece
    }

    /// Where the record starts: after the mark, and the slots when a move needs them.
    fn record_at(&self, writes: &[(u64, Segment)]) -> u64 {
        let slotted = writes.iter().any(|(to, seg)| match seg {
            Segment::Moved { from, len } => Plan::new(*from, *to, *len, self.piece).slotted,
            Segment::Bytes(_) => false,
        });
        self.mark + MARK + if slotted { 2 * self.piece } else { 0 }
    }

    fn check(&self, seq: u64, moves_done: u64, progress: u64) -> u64 {
        let mut s = Sum64::new();
        for w in [seq, moves_done, progress, self.sum] {
            s.update(&w.to_le_bytes());
        }
        s.finish() | 1
    }

    /// The latest mark as stored: (its sequence number, moves done, progress of the next).
    /// Marks alternate between two places, so that a mark torn while written (a short
    /// write) leaves the one before it, which is still true: the step it would have
    /// allowed was not taken. All zeros: nothing applied.
    fn read_mark(&self, store: &mut dyn Storage) -> Result<(u64, u64, u64)> {
        let mut m = [0u8; MARK as usize];
        store.read_at(self.mark, &mut m)?;
        let word = |i: usize| u64::from_le_bytes(m[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let read = |k: usize| {
            let (seq, done, progress, check) = (word(4 * k), word(4 * k + 1), word(4 * k + 2), word(4 * k + 3));
            match check {
                0 if seq == 0 && done == 0 && progress == 0 => Some((0, 0, 0)),
                c if c == self.check(seq, done, progress) && seq % 2 == k as u64 => Some((seq, done, progress)),
                _ => None,
            }
        };
        match (read(0), read(1)) {
            (Some(a), Some(b)) => Ok(if a.0 >= b.0 { a } else { b }),
            (Some(a), None) | (None, Some(a)) => Ok(a),
            (None, None) => Err(Error::InvalidHeader),
        }
    }

    /// Write the mark after `seq` (which it advances) in the place the last one is not.
    fn write_mark(&self, store: &mut dyn Storage, seq: &mut u64, moves_done: u64, progress: u64) -> Result<()> {
        *seq += 1;
        let mut m = [0u8; MARK_SLOT as usize];
        for (i, w) in [*seq, moves_done, progress, self.check(*seq, moves_done, progress)].into_iter().enumerate() {
            m[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        store.write_at(self.mark + MARK_SLOT * (*seq % 2), &m)
    }
}

/// How a move is cut into pieces, and whether they go through the slots.
#[derive(Debug, Clone, Copy)]
struct Plan {
    from: u64,
    to: u64,
    len: u64,
    /// Length of each piece but the last one made.
    piece: u64,
    /// Pieces overlap their own source: each is copied into a slot first.
    slotted: bool,
}

impl Plan {
    fn new(from: u64, to: u64, len: u64, max_piece: u64) -> Plan {
        let shift = from.abs_diff(to);
        let (piece, slotted) = if shift >= len {
            // Apart: one copy, whose source nothing overwrites.
            (len, false)
        } else if shift >= max_piece {
            // A piece no longer than the shift only lands on sources already moved.
            (shift, false)
        } else {
            (max_piece.min(len), true)
        };
        Plan { from, to, len, piece: piece.max(1), slotted }
    }

    fn count(&self) -> u64 {
        self.len.div_ceil(self.piece)
    }

    /// Offset within the stretch and length of the `k`th piece made: from the start when
    /// moving toward it, from the end otherwise, so that a piece's destination covers only
    /// its own source and those of pieces already made.
    fn piece(&self, k: u64) -> (u64, u64) {
        if self.to < self.from {
            let start = k * self.piece;
            (start, self.piece.min(self.len - start))
        } else {
            let end = self.len - k * self.piece;
            let start = end.saturating_sub(self.piece);
            (start, end - start)
        }
    }

    /// Make the pieces from `progress` on (see [`Ring::read_mark`]), marking each as
    /// [`Change::apply`] expects to find it after a stop.
    fn make(&self, store: &mut dyn Storage, ring: &Ring, seq: &mut u64, ordinal: u64, progress: u64, buf: &mut Vec<u8>) -> Result<()> {
        let mut k = progress / 2;
        if k > self.count() || (progress % 2 == 1 && (!self.slotted || k == self.count())) {
            return Err(Error::InvalidHeader);
        }
        if progress % 2 == 1 {
            // Stopped with this piece in its slot: its source may be overwritten already.
            let (start, n) = self.piece(k);
            store.copy_within(ring.slot(k), self.to + start, n, buf)?;
            k += 1;
        }
        while k < self.count() {
            let (start, n) = self.piece(k);
            if self.slotted {
                // Read once, written twice: faster than two copies within the kernel
                // (`copy_file_range`; 17-19 against 23-24 ms a resized update of 10^6 chunks).
                let piece = buf_of(buf, n);
                store.read_at(self.from + start, piece)?;
                store.write_at(ring.slot(k), piece)?;
                ring.write_mark(store, seq, ordinal, 2 * k + 1)?;
                store.write_at(self.to + start, piece)?;
            } else {
                store.copy_within(self.from + start, self.to + start, n, buf)?;
                ring.write_mark(store, seq, ordinal, 2 * (k + 1))?;
            }
            k += 1;
        }
        Ok(())
    }
}

/// The first `n` bytes of `buf`, grown to hold them.
fn buf_of(buf: &mut Vec<u8>, n: u64) -> &mut [u8] {
    let n = n as usize;
    if buf.len() < n {
        buf.resize(n, 0);
    }
    &mut buf[..n]
}

/// Whether `a` and `b` (position, length) share a byte.
fn overlap(a: (u64, u64), b: (u64, u64)) -> bool {
    a.1 > 0 && b.1 > 0 && a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1)
}

/// Writes a record at consecutive positions, gathering small pieces into one write.
struct RecordWriter<'s> {
    store: &'s mut dyn Storage,
    at: u64,
    small: Vec<u8>,
    sum: Sum64,
}

impl RecordWriter<'_> {
    fn put(&mut self, bytes: &[u8], summed: bool) -> Result<()> {
        if summed {
            self.sum.update(bytes);
        }
        if bytes.len() < 4096 {
            self.small.extend_from_slice(bytes);
            return Ok(());
        }
        self.flush()?;
        self.store.write_at(self.at, bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.small.is_empty() {
            self.store.write_at(self.at, &self.small)?;
            self.at += self.small.len() as u64;
            self.small.clear();
        }
        Ok(())
    }

    /// The checksum, length and end marker; returns the checksum.
    fn finish(mut self, start: u64, magic: &[u8; 8]) -> Result<u64> {
        let sum = self.sum.finish();
        self.put(&sum.to_le_bytes(), false)?;
        let total = self.at + self.small.len() as u64 - start + 16;
        self.put(&total.to_le_bytes(), false)?;
        self.put(magic, false)?;
        self.flush()?;
        self.store.sync()?;
        Ok(sum)
    }
}

impl Change {
    /// The record, as [`Change::write_record`] writes it, for changes of bytes only.
    #[cfg(test)]
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut s = super::io::MemStorage::default();
        self.write_record(&mut s, 0).expect("a record of bytes writes to memory");
        s.data
    }

    /// Whether the moves can be made in place: replaying from a progress mark writes again
    /// every write before an unfinished move and skips the moves finished, so no earlier
    /// write may touch a move's source, and no earlier write of bytes its destination.
    fn moves_in_place(&self) -> bool {
        self.writes.iter().any(|(_, s)| matches!(s, Segment::Moved { .. }))
            && self.writes.iter().enumerate().all(|(j, (to, seg))| {
                let Segment::Moved { from, len } = seg else { return true };
                self.writes[..j].iter().all(|(pos, earlier)| {
                    let written = (*pos, earlier.len());
                    !overlap(written, (*from, *len)) && (matches!(earlier, Segment::Moved { .. }) || !overlap(written, (*to, *len)))
                })
            })
    }

    /// Parse a record lying at `record_pos`; `None` unless it is complete, intact and
    /// describes writes that end before it.
    fn decode(r: &[u8], record_pos: u64) -> Option<(Change, Recorded)> {
        if r.len() < HEAD + FOOTER {
            return None;
        }
        let (head, end) = (&r[..8], &r[r.len() - 8..]);
        let checksum: fn(&[u8]) -> u64 = match (head, end) {
            (h, e) if h == MAGIC && e == MAGIC => sum64,
            (h, e) if h == MAGIC_RING && e == MAGIC_RING => sum64,
            (h, e) if h == MAGIC_V1 && e == MAGIC_V1 => fnv1a,
            _ => return None,
        };
        let body = &r[..r.len() - FOOTER];
        let sum = u64::from_le_bytes(r[r.len() - FOOTER..r.len() - 16].try_into().ok()?);
        if checksum(body) != sum {
            return None;
        }
        let word = |at: usize| -> Option<u64> { Some(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?)) };
        let n = u32::from_le_bytes(body[8..12].try_into().ok()?) as usize;
        let final_len = word(12)?;
        let (mut at, ring) = if head == MAGIC_RING {
            (HEAD + RING_HEAD, Some(Ring { mark: word(HEAD)?, piece: word(HEAD + 8)?, sum }))
        } else {
            (HEAD, None)
        };
        // Everything the change writes lies before the record (and its mark).
        let limit = ring.map_or(record_pos, |g| g.mark);
        if final_len > limit || ring.is_some_and(|g| g.mark % MARK_SLOT != 0 || g.piece == 0 || g.piece > MAX_PIECE) {
            return None;
        }
        let mut writes = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let pos = word(at)?;
            let len = word(at + 8)?;
            if ring.is_some() && len & MOVED != 0 {
                let (len, from) = (len & !MOVED, word(at + 16)?);
                if from.checked_add(len)? > limit || pos.checked_add(len)? > final_len {
                    return None;
                }
                writes.push((pos, Segment::Moved { from, len }));
                at += SEGMENT_HEAD + 8;
                continue;
            }
            let start = at + SEGMENT_HEAD;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            let bytes = body.get(start..end)?.to_vec();
            if pos.checked_add(len)? > final_len {
                return None;
            }
            writes.push((pos, Segment::Bytes(bytes)));
            at = end;
        }
        let change = Change { writes, final_len };
        if at != body.len() || ring.is_some_and(|g| g.record_at(&change.writes) != record_pos || !change.moves_in_place()) {
            return None;
        }
        Some((change, Recorded { at: record_pos, ring }))
    }

    /// Write the record at `at` (past the ends of the old and the new frame), then the
    /// writes in place, then cut the storage to the final length.
    pub fn commit(&self, store: &mut dyn Storage, at: u64) -> Result<()> {
        let recorded = self.write_record(store, at)?;
        self.apply(store, &recorded)
    }

    /// Write the record at or after `at`: from here on the change is made, by
    /// [`Change::apply`] now or by [`recover`] at the next open.
    pub fn write_record(&self, store: &mut dyn Storage, at: u64) -> Result<Recorded> {
        self.write_record_cut(store, at, PIECE as u64)
    }

    /// [`Change::write_record`] with moves cut into pieces of at most `piece` bytes.
    fn write_record_cut(&self, store: &mut dyn Storage, at: u64, piece: u64) -> Result<Recorded> {
        if self.moves_in_place() {
            let mark = at.next_multiple_of(MARK);
            let record = Ring { mark, piece, sum: 0 }.record_at(&self.writes);
            let mut w = RecordWriter { store, at: record, small: Vec::new(), sum: Sum64::new() };
            w.put(MAGIC_RING, true)?;
            w.put(&(self.writes.len() as u32).to_le_bytes(), true)?;
            w.put(&self.final_len.to_le_bytes(), true)?;
            w.put(&mark.to_le_bytes(), true)?;
            w.put(&piece.to_le_bytes(), true)?;
            for (pos, seg) in &self.writes {
                w.put(&pos.to_le_bytes(), true)?;
                match seg {
                    Segment::Bytes(b) => {
                        w.put(&(b.len() as u64).to_le_bytes(), true)?;
                        w.put(b, true)?;
                    }
                    Segment::Moved { from, len } => {
                        w.put(&(len | MOVED).to_le_bytes(), true)?;
                        w.put(&from.to_le_bytes(), true)?;
                    }
                }
            }
            // The mark's place is past the old end: it reads as zeros, nothing applied.
            let sum = w.finish(record, MAGIC_RING)?;
            return Ok(Recorded { at: record, ring: Some(Ring { mark, piece, sum }) });
        }
        // Moved bytes go into the record, read from where they are now a piece at a time.
        let mut w = RecordWriter { store, at, small: Vec::new(), sum: Sum64::new() };
        w.put(MAGIC, true)?;
        w.put(&(self.writes.len() as u32).to_le_bytes(), true)?;
        w.put(&self.final_len.to_le_bytes(), true)?;
        let mut buf = Vec::new();
        for (pos, seg) in &self.writes {
            w.put(&pos.to_le_bytes(), true)?;
            w.put(&seg.len().to_le_bytes(), true)?;
            match seg {
                Segment::Bytes(b) => w.put(b, true)?,
                Segment::Moved { from, len } => {
                    buf.resize(PIECE.min(*len as usize), 0);
                    let mut done = 0u64;
                    while done < *len {
                        let n = (*len - done).min(buf.len() as u64) as usize;
                        w.store.read_at(from + done, &mut buf[..n])?;
                        w.put(&buf[..n], true)?;
                        done += n as u64;
                    }
                }
            }
        }
        w.finish(at, MAGIC)?;
        Ok(Recorded { at, ring: None })
    }

    /// Make the writes in place and cut the storage to the final length: all of them, or
    /// after a stop what the record's mark says is left.
    pub fn apply(&self, store: &mut dyn Storage, recorded: &Recorded) -> Result<()> {
        let mut buf = Vec::new();
        match &recorded.ring {
            None => {
                let mut data = recorded.at + HEAD as u64;
                for (pos, seg) in &self.writes {
                    data += SEGMENT_HEAD as u64;
                    match seg {
                        Segment::Bytes(b) => store.write_at(*pos, b)?,
                        // The record lies past every byte the change writes: no overlap.
                        Segment::Moved { len, .. } => store.copy_within(data, *pos, *len, &mut buf)?,
                    }
                    data += seg.len();
                }
            }
            Some(ring) => {
                let (mut seq, done, progress) = ring.read_mark(store)?;
                let moves = self.writes.iter().filter(|(_, s)| matches!(s, Segment::Moved { .. })).count() as u64;
                if done > moves {
                    return Err(Error::InvalidHeader);
                }
                let mut ordinal = 0u64;
                for (pos, seg) in &self.writes {
                    match seg {
                        Segment::Bytes(b) => store.write_at(*pos, b)?,
                        Segment::Moved { from, len } => {
                            if ordinal >= done {
                                let progress = if ordinal == done { progress } else { 0 };
                                Plan::new(*from, *pos, *len, ring.piece).make(store, ring, &mut seq, ordinal, progress, &mut buf)?;
                                ring.write_mark(store, &mut seq, ordinal + 1, 0)?;
                            }
                            ordinal += 1;
                        }
                    }
                }
            }
        }
        store.sync()?;
        store.truncate(self.final_len)?;
        store.sync()
    }
}

/// Finish a change whose writer stopped after its record was complete: apply the record at
/// the end of `store`, if there is one. `Ok(true)` when a record was applied.
pub fn recover(store: &mut dyn Storage) -> Result<bool> {
    let len = store.len()?;
    if len < (HEAD + FOOTER) as u64 {
        return Ok(false);
    }
    let foot = store.read_vec(len - 16, 16)?;
    if ![MAGIC, MAGIC_RING, MAGIC_V1].iter().any(|m| &foot[8..] == *m) {
        return Ok(false);
    }
    let total = u64::from_le_bytes(foot[..8].try_into().map_err(|_| Error::Failure)?);
    if total < (HEAD + FOOTER) as u64 || total > len || total > MAX_RECORD {
        return Ok(false);
    }
    let pos = len - total;
    let record = store.read_vec(pos, total as usize)?;
    let Some((change, recorded)) = Change::decode(&record, pos) else { return Ok(false) };
    change.apply(store, &recorded)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::io::MemStorage;

    /// The checksum as the second record version defined it, over the whole record at once.
    fn sum64_whole(data: &[u8]) -> u64 {
        let mut lanes = [P1, P2, P1 ^ P2, P1.rotate_left(17)];
        let mut blocks = data.chunks_exact(32);
        for b in &mut blocks {
            for (i, lane) in lanes.iter_mut().enumerate() {
                let w = u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
                *lane = (*lane ^ w).wrapping_mul(P2).rotate_left(31);
            }
        }
        let mut h = lanes.iter().fold(data.len() as u64, |h, &l| (h ^ l).wrapping_mul(P1).rotate_left(27));
        for &b in blocks.remainder() {
            h = (h ^ b as u64).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^ (h >> 29)
    }

    /// Summed piece by piece, at any cut, the checksum is the one records have carried.
    #[test]
    fn the_checksum_in_pieces_is_the_whole_one() {
        let mut rng = crate::test_rng::Rng::new(5);
        for len in [0usize, 1, 31, 32, 33, 64, 100, 1000, 4099] {
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let want = sum64_whole(&data);
            assert_eq!(sum64(&data), want);
            for _ in 0..20 {
                let mut s = Sum64::new();
                let mut rest = &data[..];
                while !rest.is_empty() {
                    let n = rng.below(rest.len().min(70) + 1);
                    s.update(&rest[..n]);
                    rest = &rest[n..];
                }
                assert_eq!(s.finish(), want, "{len} bytes");
            }
        }
    }

    /// A move that an earlier write overlaps cannot be replayed from a mark: it is recorded
    /// as the bytes it held (the second version), the same record as writing those bytes,
    /// and applied from it, at every overlap.
    #[test]
    fn moves_after_overlapping_writes_record_their_bytes() {
        let old: Vec<u8> = (0..3 * PIECE as u32 + 777).map(|i| (i * 31 + i / 251) as u8).collect();
        let n = old.len() as u64;
        for (from, to, len) in [(1000u64, 10u64, n - 1000), (10, 1000, n - 1000 - 5), (0, 5, 3), (5, 0, PIECE as u64 + 1)] {
            let bytes = old[from as usize..(from + len) as usize].to_vec();
            let final_len = n.max(to + len);
            // The first write lands on the move's source.
            let first = (from + len / 2, Segment::Bytes(b"HD".to_vec()));
            let moved = Change { writes: vec![first.clone(), (to, Segment::Moved { from, len })], final_len };
            assert!(!moved.moves_in_place());
            let plain = Change { writes: vec![first, (to, Segment::Bytes(bytes.clone()))], final_len };
            let mut want = old.clone();
            want.resize(final_len as usize, 0);
            let hd = (from + len / 2) as usize;
            want[hd..hd + 2].copy_from_slice(b"HD");
            want[to as usize..(to + len) as usize].copy_from_slice(&bytes);
            let at = final_len + 3;
            let mut s = store_with(&old);
            let recorded = moved.write_record(&mut s, at).unwrap();
            let rec = s.data[at as usize..].to_vec();
            assert!(rec == plain.encode(), "{from} -> {to}: record");
            // Applied now, or by the next open.
            let mut again = s.clone();
            moved.apply(&mut s, &recorded).unwrap();
            assert!(all(&mut s) == want, "{from} -> {to}: applied");
            assert!(recover(&mut again).unwrap());
            assert!(all(&mut again) == want, "{from} -> {to}: recovered");
        }
    }

    /// A storage whose writer is stopped at its `left`th write or cut: that write keeps only
    /// the part before a page boundary inside it (as Linux leaves a write it stops), and
    /// every later one fails. Pages are `PAGE` bytes, so that small tests cross them; the
    /// mark (32 bytes at a multiple of 32) never spans two, as with the kernel's pages.
    struct Stopped {
        inner: MemStorage,
        left: usize,
        /// The stop has come.
        fired: bool,
        /// Only the write stopped at fails; the storage works again after it.
        once: bool,
        /// The write stopped at is torn at its middle, not at a page boundary.
        anywhere: bool,
    }

    const PAGE: u64 = 64;

    impl Storage for Stopped {
        fn len(&mut self) -> Result<u64> {
            self.inner.len()
        }
        fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
            self.inner.read_at(pos, buf)
        }
        fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
            if self.fired && !self.once {
                return Err(Error::FileWrite);
            }
            if self.left == 0 && !self.fired {
                self.fired = true;
                // Torn at the last page boundary before its middle, if there is one in it
                // (a killed writer), or at its middle (a short write, as on a full disk).
                let middle = pos + data.len() as u64 / 2;
                let cut = if self.anywhere { middle } else { (middle / PAGE * PAGE).max(pos) };
                self.inner.write_at(pos, &data[..(cut - pos) as usize])?;
                return Err(Error::FileWrite);
            }
            self.left = self.left.saturating_sub(1);
            self.inner.write_at(pos, data)
        }
        fn truncate(&mut self, len: u64) -> Result<()> {
            if self.fired && !self.once {
                return Err(Error::FileTruncate);
            }
            if self.left == 0 && !self.fired {
                self.fired = true;
                return Err(Error::FileTruncate);
            }
            self.left = self.left.saturating_sub(1);
            self.inner.truncate(len)
        }
    }

    /// Moves made in place, cut into pieces of 16 bytes (through the slots or straight),
    /// toward the start or the end, together with the writes of an update: whatever write
    /// the writer is stopped at, the next open finds the old frame (the record incomplete)
    /// or finishes the new one; a write that fails once and is tried again (as a journaled
    /// change does) finishes it too.
    #[test]
    fn moves_in_place_survive_a_stop_at_every_write() {
        let piece = 16u64;
        let mut rng = crate::test_rng::Rng::new(11);
        let mut old = vec![0u8; 700];
        rng.fill(&mut old);
        let n = old.len() as u64;
        // (chunk position, old chunk length, new chunk length): the payload after the chunk
        // moves by the difference; the index and trailer (40 bytes) follow it; a header of
        // 8 bytes goes last. And a header that grows moving the whole payload.
        let mut cases: Vec<Change> = Vec::new();
        for (pos, old_cb, new_cb) in [(100u64, 50u64, 20u64), (100, 20, 50), (100, 60, 3), (30, 10, 90), (200, 7, 8), (200, 8, 7), (650 - 40, 5, 30)] {
            let tail = (n - 40) - (pos + old_cb);
            let new_end = pos + new_cb + tail;
            let mut chunk = vec![0u8; new_cb as usize];
            rng.fill(&mut chunk);
            let mut index = vec![0u8; 40];
            rng.fill(&mut index);
            cases.push(Change {
                writes: vec![
                    (pos + new_cb, Segment::Moved { from: pos + old_cb, len: tail }),
                    (pos, Segment::Bytes(chunk)),
                    (new_end, Segment::Bytes(index)),
                    (0, Segment::Bytes(b"HEADER!!".to_vec())),
                ],
                final_len: new_end + 40,
            });
        }
        cases.push(Change {
            writes: vec![(24, Segment::Moved { from: 8, len: n - 8 }), (0, Segment::Bytes(vec![7u8; 24]))],
            final_len: n + 16,
        });
        cases.push(Change { writes: vec![(5, Segment::Moved { from: 600, len: 90 })], final_len: n });
        // Writes before a move, apart from it; then onto its destination, onto its source
        // (these two are recorded with their bytes: a replay would write them again over
        // pieces already moved, or move what they wrote).
        let moves_in_place = cases.len() + 1;
        for before in [(0u64, 9u64), (255, 10), (560, 10)] {
            cases.push(Change {
                writes: vec![(before.0, Segment::Bytes(vec![9u8; before.1 as usize])), (250, Segment::Moved { from: 280, len: 300 })],
                final_len: n - 30,
            });
        }
        let mut stops = 0;
        for (c, change) in cases.iter().enumerate() {
            assert_eq!(change.moves_in_place(), c < moves_in_place, "case {c}");
            let mut want = store_with(&old);
            for (pos, seg) in &change.writes {
                match seg {
                    Segment::Bytes(b) => want.write_at(*pos, b).unwrap(),
                    // A move carries the bytes its source held before the change.
                    Segment::Moved { from, len } => want.write_at(*pos, &old[*from as usize..(from + len) as usize]).unwrap(),
                }
            }
            want.truncate(change.final_len).unwrap();
            let want = want.data;
            let at = n.max(change.final_len) + 1;
            for left in 0.. {
                // Stopped for good at write `left`.
                let mut s = Stopped { inner: store_with(&old), left, fired: false, once: false, anywhere: false };
                match change.write_record_cut(&mut s, at, piece) {
                    Err(_) => {
                        // No record: the old frame, and nothing to recover.
                        assert!(s.inner.data[..old.len()] == old[..], "case {c}, write {left}: old frame");
                        assert!(!recover(&mut s.inner).unwrap(), "case {c}, write {left}");
                    }
                    Ok(recorded) => {
                        assert_eq!(recorded.ring.is_some(), c < moves_in_place);
                        if change.apply(&mut s, &recorded).is_ok() {
                            assert!(s.inner.data == want, "case {c}: applied");
                        } else {
                            stops += 1;
                            let mut reopened = s.inner.clone();
                            assert!(recover(&mut reopened).unwrap(), "case {c}, write {left}");
                            assert!(reopened.data == want, "case {c}, write {left}: recovered");
                            assert!(!recover(&mut reopened).unwrap());
                        }
                    }
                }
                let fired = s.fired;
                // Failed once, tried again (as `Frame::journaled` does); the failed write
                // torn anywhere, a mark's too (a short write).
                for anywhere in [false, true] {
                    let mut s = Stopped { inner: store_with(&old), left, fired: false, once: true, anywhere };
                    if let Ok(recorded) = change.write_record_cut(&mut s, at, piece) {
                        if change.apply(&mut s, &recorded).is_err() {
                            if let Err(e) = change.apply(&mut s, &recorded) {
                                // Both tries failed: the next open finishes the change.
                                panic!("case {c}, write {left}, torn anywhere {anywhere}: tried again: {e:?}");
                            }
                        }
                        assert!(s.inner.data == want, "case {c}, write {left}: tried again");
                    }
                    // Stopped for good after a write torn anywhere: the next open finishes.
                    let mut s = Stopped { inner: store_with(&old), left, fired: false, once: false, anywhere };
                    if let Ok(recorded) = change.write_record_cut(&mut s, at, piece) {
                        if change.apply(&mut s, &recorded).is_err() {
                            let mut reopened = s.inner.clone();
                            assert!(recover(&mut reopened).is_ok_and(|r| r), "case {c}, write {left}, torn anywhere {anywhere}: reopened");
                            assert!(reopened.data == want, "case {c}, write {left}: recovered after a torn write");
                        }
                    }
                }
                if !fired {
                    // Went through: every write has been stopped at.
                    assert!(left > 3, "case {c}");
                    break;
                }
            }
        }
        assert!(stops > 200, "{stops} stops inside the moves");
    }

    /// Records of moves made in place hold no moved bytes, and the mark of another record
    /// (or a damaged one) is refused rather than taken as progress.
    #[test]
    fn marks_belong_to_their_record() {
        let old: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
        let change = Change { writes: vec![(10, Segment::Moved { from: 100, len: 4900 })], final_len: 4910 };
        let mut s = store_with(&old);
        let recorded = change.write_record_cut(&mut s, 5000, 1024).unwrap();
        let ring = recorded.ring.unwrap();
        assert!(s.data.len() as u64 - recorded.at < 200, "the record holds no moved bytes");
        assert_eq!(recorded.at, ring.mark + MARK + 2 * 1024);
        let mut other = ring;
        other.sum ^= 1;
        // Both places hold another record's marks.
        other.write_mark(&mut s, &mut 0, 0, 3).unwrap();
        other.write_mark(&mut s, &mut 1, 0, 3).unwrap();
        let mut reopened = s.clone();
        assert!(recover(&mut reopened).is_err());
        assert!(reopened.data[..old.len()] == old[..], "nothing applied");
        // A record asking for pieces longer than any this library writes is not taken.
        let mut huge = store_with(&old);
        change.write_record_cut(&mut huge, 5000, MAX_PIECE + 1).unwrap();
        assert!(!recover(&mut huge).unwrap());
        assert!(huge.data[..old.len()] == old[..]);
        // A mark of this record claiming more moves than it has: refused before any write.
        ring.write_mark(&mut s, &mut 1, 2, 0).unwrap();
        let mut reopened = s.clone();
        assert!(recover(&mut reopened).is_err());
        assert!(reopened.data[..old.len()] == old[..], "nothing applied");
        ring.write_mark(&mut s, &mut 2, 0, 0).unwrap();
        assert!(recover(&mut s).unwrap());
        let mut want = old.clone();
        want.copy_within(100..5000, 10);
        want.truncate(4910);
        assert!(all(&mut s) == want);
    }

    /// Copies within a storage leave what `copy_within` on a vector leaves, both ways: the
    /// piece-by-piece copy every storage can fall back on, the in-memory one, and a file's
    /// (`copy_file_range` for ranges apart, pieces for overlapping ones).
    #[test]
    fn copies_within_overlap_as_memmove() {
        use crate::frame::io::{buffered_copy, FileStorage};
        let old: Vec<u8> = (0..3 * PIECE as u32 + 99).map(|i| (i ^ (i >> 9)) as u8).collect();
        let path = std::env::temp_dir().join(format!("b2-copy-within-{}", std::process::id()));
        let cases = [(0usize, 7usize, 2 * PIECE), (7, 0, 2 * PIECE), (0, PIECE, PIECE + 99), (PIECE, 1, PIECE), (0, 2 * PIECE, PIECE)];
        for (from, to, len) in cases {
            let mut want = old.clone();
            want.copy_within(from..from + len, to);
            let (from, to, len) = (from as u64, to as u64, len as u64);
            let mut s = store_with(&old);
            buffered_copy(&mut s, from, to, len, &mut Vec::new()).unwrap();
            assert!(all(&mut s) == want, "{from} -> {to}: in pieces");
            let mut s = store_with(&old);
            s.copy_within(from, to, len, &mut Vec::new()).unwrap();
            assert!(all(&mut s) == want, "{from} -> {to}: in memory");
            let mut f = FileStorage::create(&path).unwrap();
            f.write_at(0, &old).unwrap();
            f.copy_within(from, to, len, &mut Vec::new()).unwrap();
            let n = f.len().unwrap() as usize;
            assert!(f.read_vec(0, n).unwrap() == want, "{from} -> {to}: in a file");
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_checksum_sees_any_changed_byte_and_the_length() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let base = sum64(&data);
        for at in [0, 1, 31, 32, 500, 991, 999] {
            let mut d = data.clone();
            d[at] ^= 0x10;
            assert_ne!(sum64(&d), base, "byte {at}");
        }
        assert_ne!(sum64(&data[..999]), base);
        assert_ne!(sum64(&[0u8; 64]), sum64(&[0u8; 65]));
    }

    #[test]
    fn first_version_records_are_still_recovered() {
        let change = Change { writes: vec![(2, Segment::Bytes(b"XY".to_vec()))], final_len: 6 };
        let mut v1 = change.encode();
        // Re-mark and re-checksum it as version 1 wrote it.
        let n = v1.len();
        v1[..8].copy_from_slice(MAGIC_V1);
        v1[n - 8..].copy_from_slice(MAGIC_V1);
        let sum = fnv1a(&v1[..n - FOOTER]);
        v1[n - FOOTER..n - 16].copy_from_slice(&sum.to_le_bytes());
        let mut s = store_with(b"abcdef");
        s.write_at(6, &v1).unwrap();
        assert!(recover(&mut s).unwrap());
        assert_eq!(all(&mut s), b"abXYef");
    }

    fn all(s: &mut MemStorage) -> Vec<u8> {
        let n = s.len().unwrap() as usize;
        s.read_vec(0, n).unwrap()
    }

    fn store_with(bytes: &[u8]) -> MemStorage {
        let mut s = MemStorage::default();
        s.write_at(0, bytes).unwrap();
        s
    }

    #[test]
    fn a_complete_record_is_replayed_and_dropped() {
        let old = b"HEADERold-chunk-tail-INDEX".to_vec();
        let change = Change { writes: vec![(0, Segment::Bytes(b"HEADER2".to_vec())), (7, Segment::Bytes(b"new-chunk-tail".to_vec()))], final_len: 21 };
        let mut s = store_with(&old);
        // Stopped right after the record went out: the next open finishes the change.
        s.write_at(old.len() as u64, &change.encode()).unwrap();
        assert!(recover(&mut s).unwrap());
        assert_eq!(all(&mut s), b"HEADER2new-chunk-tail");
        assert!(!recover(&mut s).unwrap());
    }

    #[test]
    fn partial_or_damaged_records_are_ignored() {
        let old = b"HEADERold-chunk-tail-INDEX".to_vec();
        let change = Change { writes: vec![(3, Segment::Bytes(b"xyz".to_vec()))], final_len: 26 };
        let rec = change.encode();
        for cut in [1, 10, rec.len() - 9, rec.len() - 1] {
            let mut s = store_with(&old);
            s.write_at(old.len() as u64, &rec[..cut]).unwrap();
            assert!(!recover(&mut s).unwrap(), "cut at {cut}");
            assert_eq!(&s.read_vec(0, old.len()).unwrap(), &old);
        }
        let mut bad = rec.clone();
        bad[21] ^= 1;
        let mut s = store_with(&old);
        s.write_at(old.len() as u64, &bad).unwrap();
        assert!(!recover(&mut s).unwrap());
        // Writes past the final length (or a final length past the record) are refused.
        let wild = Change { writes: vec![(30, Segment::Bytes(b"x".to_vec()))], final_len: 26 }.encode();
        let mut s = store_with(&old);
        s.write_at(old.len() as u64, &wild).unwrap();
        assert!(!recover(&mut s).unwrap());
    }

    #[test]
    fn commit_leaves_only_the_new_bytes() {
        let mut s = store_with(b"0123456789");
        let change = Change { writes: vec![(2, Segment::Bytes(b"ab".to_vec()))], final_len: 6 };
        change.commit(&mut s, 10).unwrap();
        assert_eq!(all(&mut s), b"01ab45");
    }
}
