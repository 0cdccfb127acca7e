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
//! the next open applies again (the writes are idempotent) before reading the frame.
//!
//! A stretch of payload shifted by an update (every chunk after it, at 10^6 chunks tens of
//! megabytes) is noted as a move ([`Segment::Moved`]): its bytes go into the record a piece
//! at a time, read from where they are, and are applied from the record (`copy_file_range`
//! on Linux), so they never sit in memory whole. That is still two passes over them where
//! the reference, which journals nothing, makes one.
//!
//! Record layout (little-endian): `MAGIC`, segment count (u32), final length (u64), then
//! per segment its position (u64), length (u64) and bytes, then a checksum of everything
//! before it (`sum64`), the record's total length (u64) and `MAGIC` again, so that the
//! record is found from the end of the file. Records of the first version (`MAGIC_V1`,
//! checksummed with byte-wise FNV-1a, which ran at under 1 GB/s and dominated updates of
//! large frames) are still recovered.

use super::io::{Storage, COPY_PIECE as PIECE};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"B2RJRNL2";
/// The first version's marker: same layout, FNV-1a checksum.
const MAGIC_V1: &[u8; 8] = b"B2RJRNL1";
/// Checksum, record length and end marker.
const FOOTER: usize = 24;
/// Records are never larger than this (a frame's tail and header); a file ending in a
/// larger claim is not a record of ours.
const MAX_RECORD: u64 = 1 << 40;

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
    /// update): read piece by piece while the record is written, so that a shift of a large
    /// frame's payload never sits in memory whole.
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
}

impl Change {
    /// The record, as [`Change::write_record`] writes it, for changes of bytes only.
    #[cfg(test)]
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut s = super::io::MemStorage::default();
        self.write_record(&mut s, 0).expect("a record of bytes writes to memory");
        s.data
    }

    /// Parse a record; `None` unless it is complete, intact and describes writes that end
    /// before `record_pos` (where the record lies).
    fn decode(r: &[u8], record_pos: u64) -> Option<Change> {
        if r.len() < 20 + FOOTER {
            return None;
        }
        let (head, end) = (&r[..8], &r[r.len() - 8..]);
        let checksum: fn(&[u8]) -> u64 = match (head, end) {
            (h, e) if h == MAGIC && e == MAGIC => sum64,
            (h, e) if h == MAGIC_V1 && e == MAGIC_V1 => fnv1a,
            _ => return None,
        };
        let body = &r[..r.len() - FOOTER];
        let sum = u64::from_le_bytes(r[r.len() - FOOTER..r.len() - 16].try_into().ok()?);
        if checksum(body) != sum {
            return None;
        }
        let n = u32::from_le_bytes(body[8..12].try_into().ok()?) as usize;
        let final_len = u64::from_le_bytes(body[12..20].try_into().ok()?);
        if final_len > record_pos {
            return None;
        }
        let mut at = 20usize;
        let mut writes = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            let pos = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
            let len = u64::from_le_bytes(body.get(at + 8..at + 16)?.try_into().ok()?);
            let start = at + 16;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            let bytes = body.get(start..end)?.to_vec();
            if pos.checked_add(len)? > final_len {
                return None;
            }
            writes.push((pos, Segment::Bytes(bytes)));
            at = end;
        }
        (at == body.len()).then_some(Change { writes, final_len })
    }

    /// Write the record at `at` (past the ends of the old and the new frame), then the
    /// writes in place, then cut the storage to the final length.
    pub fn commit(&self, store: &mut dyn Storage, at: u64) -> Result<()> {
        self.write_record(store, at)?;
        self.apply(store, at)
    }

    /// Write the record at `at`: from here on the change is made, by [`Change::apply`] now
    /// or by [`recover`] at the next open. Moved segments are read from the storage as it is
    /// now, a piece at a time.
    pub fn write_record(&self, store: &mut dyn Storage, at: u64) -> Result<()> {
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
        let sum = w.sum.finish();
        w.put(&sum.to_le_bytes(), false)?;
        let total = w.at + w.small.len() as u64 - at + 16;
        w.put(&total.to_le_bytes(), false)?;
        w.put(MAGIC, false)?;
        w.flush()?;
        w.store.sync()
    }

    /// Make the writes in place and cut the storage to the final length. `record` is where
    /// the change's record is (moved segments are copied from it).
    pub fn apply(&self, store: &mut dyn Storage, record: u64) -> Result<()> {
        let mut data = record + 20;
        let mut buf = Vec::new();
        for (pos, seg) in &self.writes {
            data += 16;
            match seg {
                Segment::Bytes(b) => store.write_at(*pos, b)?,
                // The record lies past every byte the change writes: no overlap.
                Segment::Moved { len, .. } => store.copy_within(data, *pos, *len, &mut buf)?,
            }
            data += seg.len();
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
    if len < (20 + FOOTER) as u64 {
        return Ok(false);
    }
    let foot = store.read_vec(len - 16, 16)?;
    if &foot[8..] != MAGIC && &foot[8..] != MAGIC_V1 {
        return Ok(false);
    }
    let total = u64::from_le_bytes(foot[..8].try_into().map_err(|_| Error::Failure)?);
    if total < (20 + FOOTER) as u64 || total > len || total > MAX_RECORD {
        return Ok(false);
    }
    let pos = len - total;
    let record = store.read_vec(pos, total as usize)?;
    let Some(change) = Change::decode(&record, pos) else { return Ok(false) };
    change.apply(store, pos)?;
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

    /// A stretch moved within the storage is recorded as the bytes it held, and applied from
    /// the record: the same record and result as writing those bytes, at every overlap.
    #[test]
    fn moved_stretches_record_and_apply_as_their_bytes() {
        let old: Vec<u8> = (0..3 * PIECE as u32 + 777).map(|i| (i * 31 + i / 251) as u8).collect();
        let n = old.len() as u64;
        for (from, to, len) in [(1000u64, 10u64, n - 1000), (10, 1000, n - 1000 - 5), (0, 5, 3), (5, 0, PIECE as u64 + 1)] {
            let bytes = old[from as usize..(from + len) as usize].to_vec();
            let final_len = n.max(to + len);
            let moved = Change { writes: vec![(0, Segment::Bytes(b"HD".to_vec())), (to, Segment::Moved { from, len })], final_len };
            let plain = Change { writes: vec![(0, Segment::Bytes(b"HD".to_vec())), (to, Segment::Bytes(bytes.clone()))], final_len };
            let mut want = old.clone();
            want.resize(final_len as usize, 0);
            // In order: the header, then the stretch (which may cover it).
            want[..2].copy_from_slice(b"HD");
            want[to as usize..(to + len) as usize].copy_from_slice(&bytes);
            let at = final_len + 3;
            let mut s = store_with(&old);
            moved.write_record(&mut s, at).unwrap();
            let rec = s.data[at as usize..].to_vec();
            assert!(rec == plain.encode(), "{from} -> {to}: record");
            // Applied now, or by the next open.
            let mut again = s.clone();
            moved.apply(&mut s, at).unwrap();
            let got = all(&mut s);
            assert_eq!(got.len(), want.len());
            assert_eq!(got.iter().zip(&want).position(|(a, b)| a != b), None, "{from} -> {to}: applied");
            assert!(recover(&mut again).unwrap());
            let got = all(&mut again);
            assert_eq!(got.len(), want.len());
            assert_eq!(got.iter().zip(&want).position(|(a, b)| a != b), None, "{from} -> {to}: recovered");
        }
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
