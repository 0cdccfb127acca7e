//! Chunks that carry no data blocks: all zeros, all NaN, a repeated value, or uninitialised
//! memory (README_CHUNK_FORMAT.rst, `blosc2_flags` bits 4-6).

use super::blocksize::compute_blocksize;
use super::header::*;
use super::params::CompressParams;
use crate::codecs::Codec;
use crate::error::{Error, Result};

/// The argument checks of [`write_special`], in the reference's order, for callers that
/// have more to do between checking and writing.
pub fn check_special(params: &CompressParams, nbytes: i32, kind: Special, dest_len: usize) -> Result<()> {
    let typesize = params.typesize;
    if typesize <= 0 || nbytes < 0 {
        return Err(Error::InvalidParam);
    }
    let extra = if kind == Special::Value { typesize as usize } else { 0 };
    if dest_len < EXTENDED_HEADER_LENGTH + extra {
        return Err(Error::Data);
    }
    if nbytes % typesize != 0 {
        return Err(Error::Data);
    }
    Ok(())
}

/// Write a special chunk of `nbytes` into `dest`; `value` is the repeated element for
/// [`Special::Value`] (exactly `typesize` bytes). Returns the chunk length.
pub fn write_special(
    params: &CompressParams,
    nbytes: i32,
    kind: Special,
    value: Option<&[u8]>,
    dest: &mut [u8],
) -> Result<usize> {
    check_special(params, nbytes, kind, dest.len())?;
    let typesize = params.typesize;
    let extra = if kind == Special::Value { typesize as usize } else { 0 };
    // NaN chunks only make sense for 4/8-byte floats; like the reference we still write
    // them for other typesizes, and reading them back fails with BLOSC2_ERROR_DATA.
    if params.clevel > 9 {
        return Err(Error::CodecParam);
    }
    let codec = Codec::from_code(params.compcode).unwrap_or(Codec::BloscLz);
    let blocksize = compute_blocksize(
        codec,
        params.clevel,
        typesize,
        nbytes,
        params.blocksize.max(0),
        params.splitmode,
        flags_from_filters(&params.filters),
    );
    let stored_typesize = if typesize > MAX_TYPESIZE { 1 } else { typesize as u8 };
    let header = ChunkHeader {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: DOSHUFFLE | DOBITSHUFFLE,
        typesize: stored_typesize,
        nbytes,
        blocksize: blocksize.max(1),
        cbytes: (EXTENDED_HEADER_LENGTH + extra) as i32,
        filters: [0; MAX_FILTERS],
        udcompcode: 0,
        compcode_meta: 0,
        filters_meta: [0; MAX_FILTERS],
        blosc2_flags2: 0,
        blosc2_flags: kind.bits() << 4,
        extended: true,
    };
    header.write(dest);
    if let Some(v) = value {
        if kind == Special::Value {
            if v.len() < extra {
                return Err(Error::InvalidParam);
            }
            dest[EXTENDED_HEADER_LENGTH..EXTENDED_HEADER_LENGTH + extra].copy_from_slice(&v[..extra]);
        }
    } else if kind == Special::Value {
        return Err(Error::InvalidParam);
    }
    Ok(EXTENDED_HEADER_LENGTH + extra)
}
