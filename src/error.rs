//! The one error type of the library, mapped one-to-one onto the `BLOSC2_ERROR_*` codes.

use std::fmt;

/// Every failure the library can report. Each variant is exactly one `BLOSC2_ERROR_*` code,
/// so the C layer converts with [`Error::code`] and nothing is lost on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Error {
    Failure = -1,
    Stream = -2,
    Data = -3,
    MemoryAlloc = -4,
    ReadBuffer = -5,
    WriteBuffer = -6,
    CodecSupport = -7,
    CodecParam = -8,
    CodecDict = -9,
    VersionSupport = -10,
    InvalidHeader = -11,
    InvalidParam = -12,
    FileRead = -13,
    FileWrite = -14,
    FileOpen = -15,
    NotFound = -16,
    RunLength = -17,
    FilterPipeline = -18,
    ChunkInsert = -19,
    ChunkAppend = -20,
    ChunkUpdate = -21,
    TwoGbLimit = -22,
    SchunkCopy = -23,
    FrameType = -24,
    FileTruncate = -25,
    ThreadCreate = -26,
    Postfilter = -27,
    FrameSpecial = -28,
    SchunkSpecial = -29,
    PluginIo = -30,
    FileRemove = -31,
    NullPointer = -32,
    InvalidIndex = -33,
    MetalayerNotFound = -34,
    MaxBufsizeExceeded = -35,
    Tuner = -36,
    Lock = -37,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// All variants, in code order (-1 down to -37).
    pub const ALL: [Error; 37] = [
        Error::Failure,
        Error::Stream,
        Error::Data,
        Error::MemoryAlloc,
        Error::ReadBuffer,
        Error::WriteBuffer,
        Error::CodecSupport,
        Error::CodecParam,
        Error::CodecDict,
        Error::VersionSupport,
        Error::InvalidHeader,
        Error::InvalidParam,
        Error::FileRead,
        Error::FileWrite,
        Error::FileOpen,
        Error::NotFound,
        Error::RunLength,
        Error::FilterPipeline,
        Error::ChunkInsert,
        Error::ChunkAppend,
        Error::ChunkUpdate,
        Error::TwoGbLimit,
        Error::SchunkCopy,
        Error::FrameType,
        Error::FileTruncate,
        Error::ThreadCreate,
        Error::Postfilter,
        Error::FrameSpecial,
        Error::SchunkSpecial,
        Error::PluginIo,
        Error::FileRemove,
        Error::NullPointer,
        Error::InvalidIndex,
        Error::MetalayerNotFound,
        Error::MaxBufsizeExceeded,
        Error::Tuner,
        Error::Lock,
    ];

    /// The `BLOSC2_ERROR_*` value of this error.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The error for a `BLOSC2_ERROR_*` value; `None` for success and unknown codes.
    pub fn from_code(code: i32) -> Option<Error> {
        if (-37..=-1).contains(&code) {
            Some(Self::ALL[(-code - 1) as usize])
        } else {
            None
        }
    }

    /// The text `blosc2_error_string` reports for this error (same wording as c-blosc2, since
    /// callers may log or match on it).
    pub fn message(self) -> &'static str {
        match self {
            Error::Failure => "Generic failure",
            Error::Stream => "Bad stream",
            Error::Data => "Invalid data",
            Error::MemoryAlloc => "Memory alloc/realloc failure",
            Error::ReadBuffer => "Not enough space to read",
            Error::WriteBuffer => "Not enough space to write",
            Error::CodecSupport => "Codec not supported",
            Error::CodecParam => "Invalid parameter supplied to codec",
            Error::CodecDict => "Codec dictionary error",
            Error::VersionSupport => "Version not supported",
            Error::InvalidHeader => "Invalid value in header",
            Error::InvalidParam => "Invalid parameter supplied to function",
            Error::FileRead => "File read failure",
            Error::FileWrite => "File write failure",
            Error::FileOpen => "File open failure",
            Error::NotFound => "Not found",
            Error::RunLength => "Bad run length encoding",
            Error::FilterPipeline => "Filter pipeline error",
            Error::ChunkInsert => "Chunk insert failure",
            Error::ChunkAppend => "Chunk append failure",
            Error::ChunkUpdate => "Chunk update failure",
            Error::TwoGbLimit => "Sizes larger than 2gb not supported",
            Error::SchunkCopy => "Super-chunk copy failure",
            Error::FrameType => "Wrong type for frame",
            Error::FileTruncate => "File truncate failure",
            Error::ThreadCreate => "Thread or thread context creation failure",
            Error::Postfilter => "Postfilter failure",
            Error::FrameSpecial => "Special frame failure",
            Error::SchunkSpecial => "Special super-chunk failure",
            Error::PluginIo => "IO plugin error",
            Error::FileRemove => "Remove file failure",
            Error::NullPointer => "Pointer is null",
            Error::InvalidIndex => "Invalid index",
            Error::MetalayerNotFound => "Metalayer has not been found",
            Error::MaxBufsizeExceeded => "Maximum buffersize exceeded",
            Error::Tuner => "Tuner failure",
            Error::Lock => "Frame lock failure",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), -(i as i32) - 1);
            assert_eq!(Error::from_code(e.code()), Some(*e));
        }
        assert_eq!(Error::from_code(0), None);
        assert_eq!(Error::from_code(-38), None);
        assert_eq!(Error::from_code(1), None);
    }
}
