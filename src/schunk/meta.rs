//! Metalayers (fixed-size user metadata in the frame header, added before any data) and
//! variable-length metalayers (in the trailer, each stored as a compressed chunk).

use super::{Store, SuperChunk};
use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::header::ChunkHeader;
use crate::chunk::{CompressParams, DecompressParams};
use crate::error::{Error, Result};
use crate::frame::header::{Metalayer, MAX_METALAYERS, METALAYER_NAME_MAXLEN};
use crate::frame::trailer::MAX_VLMETALAYERS;

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// A vlmetalayer's content as stored: compressed with `cparams` (defaults when `None`).
/// Done apart from the super-chunk, since the codec may be user code.
pub fn compress_vlmeta(content: &[u8], cparams: Option<&CompressParams>) -> Result<Vec<u8>> {
    Compressor::new(cparams.cloned().unwrap_or_default()).compress_to_vec(content)
}

impl SuperChunk {
    /// Position of metalayer `name`.
    pub fn meta_exists(&self, name: &str) -> Option<usize> {
        self.metalayers.iter().position(|m| m.name == name)
    }

    /// Add a metalayer; only allowed before data is stored. Returns its position.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.guarded(true, |s| s.meta_add_unlocked(name, content))
    }

    fn meta_add_unlocked(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        check_name(name)?;
        if self.meta_exists(name).is_some() {
            return Err(Error::InvalidParam);
        }
        if self.metalayers.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        if matches!(self.store, Store::Frame(_)) && self.cbytes() > 0 {
            return Err(Error::InvalidParam);
        }
        i32::try_from(content.len()).map_err(|_| Error::TwoGbLimit)?;
        self.metalayers.push(Metalayer { name: name.to_owned(), content: content.to_vec() });
        self.bind_calls();
        self.commit_frame()?;
        self.meta_changes += 1;
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite a metalayer with content no longer than the original: the header keeps its
    /// length (bytes past the new content keep their old value, as in the reference).
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name).ok_or(Error::MetalayerNotFound)?;
        let m = &mut self.metalayers[i];
        if content.len() > m.content.len() {
            return Err(Error::InvalidParam);
        }
        m.content[..content.len()].copy_from_slice(content);
        self.bind_calls();
        self.commit_frame()?;
        self.meta_changes += 1;
        Ok(i)
    }

    /// Content of metalayer `name`.
    pub fn meta_get(&self, name: &str) -> Result<&[u8]> {
        let i = self.meta_exists(name).ok_or(Error::MetalayerNotFound)?;
        Ok(&self.metalayers[i].content)
    }

    /// The fixed-size metalayers, in order.
    pub fn metalayers(&self) -> &[Metalayer] {
        &self.metalayers
    }

    /// Position of vlmetalayer `name`.
    pub fn vlmeta_exists(&self, name: &str) -> Option<usize> {
        self.vlmetalayers.iter().position(|m| m.name == name)
    }

    /// Add a vlmetalayer, compressed with `cparams` (default parameters when `None`).
    pub fn vlmeta_add(&mut self, name: &str, content: &[u8], cparams: Option<&CompressParams>) -> Result<usize> {
        self.guarded(true, |s| s.vlmeta_add_unlocked(name, content, cparams))
    }

    fn vlmeta_add_unlocked(&mut self, name: &str, content: &[u8], cparams: Option<&CompressParams>) -> Result<usize> {
        check_name(name)?;
        if self.vlmeta_exists(name).is_some() {
            return Err(Error::InvalidParam);
        }
        if self.vlmetalayers.len() >= MAX_VLMETALAYERS {
            return Err(Error::InvalidParam);
        }
        let stored = compress_vlmeta(content, cparams)?;
        self.vlmeta_add_compressed_unlocked(name, stored)
    }

    /// Add a vlmetalayer whose content [`compress_vlmeta`] made.
    pub fn vlmeta_add_compressed(&mut self, name: &str, stored: Vec<u8>) -> Result<usize> {
        self.guarded(true, |s| s.vlmeta_add_compressed_unlocked(name, stored))
    }

    fn vlmeta_add_compressed_unlocked(&mut self, name: &str, stored: Vec<u8>) -> Result<usize> {
        check_name(name)?;
        if self.vlmeta_exists(name).is_some() {
            return Err(Error::InvalidParam);
        }
        if self.vlmetalayers.len() >= MAX_VLMETALAYERS {
            return Err(Error::InvalidParam);
        }
        self.vlmetalayers.push(Metalayer { name: name.to_owned(), content: stored });
        self.commit_frame()?;
        self.meta_changes += 1;
        Ok(self.vlmetalayers.len() - 1)
    }

    /// Replace the content of a vlmetalayer (any length).
    pub fn vlmeta_update(&mut self, name: &str, content: &[u8], cparams: Option<&CompressParams>) -> Result<usize> {
        self.guarded(true, |s| s.vlmeta_update_unlocked(name, content, cparams))
    }

    fn vlmeta_update_unlocked(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CompressParams>,
    ) -> Result<usize> {
        let stored = compress_vlmeta(content, cparams)?;
        self.vlmeta_update_compressed_unlocked(name, stored)
    }

    /// Replace a vlmetalayer's content by what [`compress_vlmeta`] made.
    pub fn vlmeta_update_compressed(&mut self, name: &str, stored: Vec<u8>) -> Result<usize> {
        self.guarded(true, |s| s.vlmeta_update_compressed_unlocked(name, stored))
    }

    fn vlmeta_update_compressed_unlocked(&mut self, name: &str, stored: Vec<u8>) -> Result<usize> {
        let i = self.vlmeta_exists(name).ok_or(Error::MetalayerNotFound)?;
        self.vlmetalayers[i].content = stored;
        self.commit_frame()?;
        self.meta_changes += 1;
        Ok(i)
    }

    /// Decompressed content of vlmetalayer `name`.
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.vlmeta_exists(name).ok_or(Error::MetalayerNotFound)?;
        decompress_vlmeta(&self.vlmetalayers[i].content)
    }

    /// A vlmetalayer's content as stored (compressed), for [`decompress_vlmeta`].
    pub fn vlmeta_compressed(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.vlmeta_exists(name).ok_or(Error::MetalayerNotFound)?;
        Ok(self.vlmetalayers[i].content.clone())
    }
}

/// A vlmetalayer's content from its stored form (apart from the super-chunk, as
/// [`compress_vlmeta`]).
pub fn decompress_vlmeta(stored: &[u8]) -> Result<Vec<u8>> {
    let h = ChunkHeader::read(stored)?;
    let mut out = vec![0u8; h.nbytes as usize];
    let n = Decompressor::new(DecompressParams::default()).decompress(stored, &mut out)?;
    out.truncate(n);
    Ok(out)
}

impl SuperChunk {
    /// Remove a vlmetalayer; returns how many remain.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        self.guarded(true, |s| s.vlmeta_delete_unlocked(name))
    }

    fn vlmeta_delete_unlocked(&mut self, name: &str) -> Result<usize> {
        let i = self.vlmeta_exists(name).ok_or(Error::MetalayerNotFound)?;
        self.vlmetalayers.remove(i);
        self.commit_frame()?;
        self.meta_changes += 1;
        Ok(self.vlmetalayers.len())
    }

    /// Names of the vlmetalayers, in order.
    pub fn vlmeta_names(&self) -> Vec<&str> {
        self.vlmetalayers.iter().map(|m| m.name.as_str()).collect()
    }

    /// Vlmetalayers as stored (compressed contents).
    pub fn vlmetalayers_raw(&self) -> &[Metalayer] {
        &self.vlmetalayers
    }
}
