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
//! Record layout (little-endian): `MAGIC`, segment count (u32), final length (u64), then
//! per segment its position (u64), length (u64) and bytes, then a checksum of everything
//! before it (`sum64`), the record's total length (u64) and `MAGIC` again, so that the
//! record is found from the end of the file. Records of the first version (`MAGIC_V1`,
//! checksummed with byte-wise FNV-1a, which ran at under 1 GB/s and dominated updates of
//! large frames) are still recovered.

use super::io::Storage;
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
    const P1: u64 = 0x9E37_79B9_7F4A_7C15;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let mut lanes = [P1, P2, P1 ^ P2, P1.rotate_left(17)];
    let mut blocks = data.chunks_exact(32);
    for b in &mut blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
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

/// The writes of one change, and the length the file has after it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Change {
    /// The bytes written, each at its file offset, in order.
    pub writes: Vec<(u64, Vec<u8>)>,
    /// The file's length once the writes are done (it may shrink).
    pub final_len: u64,
}

impl Change {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let body: usize = self.writes.iter().map(|(_, b)| 16 + b.len()).sum();
        let mut r = Vec::with_capacity(20 + body + FOOTER);
        r.extend_from_slice(MAGIC);
        r.extend_from_slice(&(self.writes.len() as u32).to_le_bytes());
        r.extend_from_slice(&self.final_len.to_le_bytes());
        for (pos, bytes) in &self.writes {
            r.extend_from_slice(&pos.to_le_bytes());
            r.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            r.extend_from_slice(bytes);
        }
        let sum = sum64(&r);
        r.extend_from_slice(&sum.to_le_bytes());
        let total = (r.len() + 16) as u64;
        r.extend_from_slice(&total.to_le_bytes());
        r.extend_from_slice(MAGIC);
        r
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
            writes.push((pos, bytes));
            at = end;
        }
        (at == body.len()).then_some(Change { writes, final_len })
    }

    /// Write the record at `at` (past the ends of the old and the new frame), then the
    /// writes in place, then cut the storage to the final length.
    pub fn commit(&self, store: &mut dyn Storage, at: u64) -> Result<()> {
        self.write_record(store, at)?;
        self.apply(store)
    }

    /// Write the record at `at`: from here on the change is made, by [`Change::apply`] now
    /// or by [`recover`] at the next open.
    pub fn write_record(&self, store: &mut dyn Storage, at: u64) -> Result<()> {
        store.write_at(at, &self.encode())?;
        store.sync()
    }

    /// Make the writes in place and cut the storage to the final length.
    pub fn apply(&self, store: &mut dyn Storage) -> Result<()> {
        for (pos, bytes) in &self.writes {
            store.write_at(*pos, bytes)?;
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
    change.apply(store)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::io::MemStorage;

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
        let change = Change { writes: vec![(2, b"XY".to_vec())], final_len: 6 };
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
        let change = Change { writes: vec![(0, b"HEADER2".to_vec()), (7, b"new-chunk-tail".to_vec())], final_len: 21 };
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
        let change = Change { writes: vec![(3, b"xyz".to_vec())], final_len: 26 };
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
        let wild = Change { writes: vec![(30, b"x".to_vec())], final_len: 26 }.encode();
        let mut s = store_with(&old);
        s.write_at(old.len() as u64, &wild).unwrap();
        assert!(!recover(&mut s).unwrap());
    }

    #[test]
    fn commit_leaves_only_the_new_bytes() {
        let mut s = store_with(b"0123456789");
        let change = Change { writes: vec![(2, b"ab".to_vec())], final_len: 6 };
        change.commit(&mut s, 10).unwrap();
        assert_eq!(all(&mut s), b"01ab45");
    }
}
