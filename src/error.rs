//! The one error type of the library, mapped one-to-one onto the `BLOSC2_ERROR_*` codes.

use std::fmt;

/// Every failure the library can report. Each variant is exactly one `BLOSC2_ERROR_*` code,
/// so the C layer converts with [`Error::code`] and nothing is lost on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Error {
    /// `BLOSC2_ERROR_FAILURE` (-1): generic failure, used where c-blosc2 returns a plain -1.
    Failure = -1,
    /// `BLOSC2_ERROR_STREAM` (-2): a compressed stream did not decode to its expected size.
    Stream = -2,
    /// `BLOSC2_ERROR_DATA` (-3): malformed input data (chunk, frame, metalayer contents).
    Data = -3,
    /// `BLOSC2_ERROR_MEMORY_ALLOC` (-4): an allocation failed or a size cannot be allocated.
    MemoryAlloc = -4,
    /// `BLOSC2_ERROR_READ_BUFFER` (-5): the source buffer is shorter than its header says.
    ReadBuffer = -5,
    /// `BLOSC2_ERROR_WRITE_BUFFER` (-6): the destination buffer is too small for the result.
    WriteBuffer = -6,
    /// `BLOSC2_ERROR_CODEC_SUPPORT` (-7): the codec is unknown or not built in.
    CodecSupport = -7,
    /// `BLOSC2_ERROR_CODEC_PARAM` (-8): the codec rejected its parameters (level, meta, input).
    CodecParam = -8,
    /// `BLOSC2_ERROR_CODEC_DICT` (-9): a dictionary could not be trained, built or used.
    CodecDict = -9,
    /// `BLOSC2_ERROR_VERSION_SUPPORT` (-10): a chunk or frame format version this library cannot read.
    VersionSupport = -10,
    /// `BLOSC2_ERROR_INVALID_HEADER` (-11): a header field holds an impossible value.
    InvalidHeader = -11,
    /// `BLOSC2_ERROR_INVALID_PARAM` (-12): an argument or parameter is out of range.
    InvalidParam = -12,
    /// `BLOSC2_ERROR_FILE_READ` (-13): reading from a file failed or returned too few bytes.
    FileRead = -13,
    /// `BLOSC2_ERROR_FILE_WRITE` (-14): writing to a file failed.
    FileWrite = -14,
    /// `BLOSC2_ERROR_FILE_OPEN` (-15): a file or directory could not be opened or created.
    FileOpen = -15,
    /// `BLOSC2_ERROR_NOT_FOUND` (-16): the requested item (variable-length metalayer, file, ...) does not exist.
    NotFound = -16,
    /// `BLOSC2_ERROR_RUN_LENGTH` (-17): a run-length encoded block (all-equal bytes) is malformed.
    RunLength = -17,
    /// `BLOSC2_ERROR_FILTER_PIPELINE` (-18): a filter failed in the forward or backward pipeline.
    FilterPipeline = -18,
    /// `BLOSC2_ERROR_CHUNK_INSERT` (-19): inserting a chunk into a super-chunk failed.
    ChunkInsert = -19,
    /// `BLOSC2_ERROR_CHUNK_APPEND` (-20): appending a chunk to a super-chunk failed.
    ChunkAppend = -20,
    /// `BLOSC2_ERROR_CHUNK_UPDATE` (-21): replacing a chunk of a super-chunk failed.
    ChunkUpdate = -21,
    /// `BLOSC2_ERROR_2GB_LIMIT` (-22): a size does not fit the format's 32-bit signed fields.
    TwoGbLimit = -22,
    /// `BLOSC2_ERROR_SCHUNK_COPY` (-23): copying a super-chunk failed.
    SchunkCopy = -23,
    /// `BLOSC2_ERROR_FRAME_TYPE` (-24): the frame is of the wrong kind (contiguous vs sparse) or type.
    FrameType = -24,
    /// `BLOSC2_ERROR_FILE_TRUNCATE` (-25): truncating a frame file failed.
    FileTruncate = -25,
    /// `BLOSC2_ERROR_THREAD_CREATE` (-26): a worker thread or its context could not be created.
    ThreadCreate = -26,
    /// `BLOSC2_ERROR_POSTFILTER` (-27): the user postfilter callback reported an error.
    Postfilter = -27,
    /// `BLOSC2_ERROR_FRAME_SPECIAL` (-28): a special (zeros, NaNs, uninit) chunk in a frame is unusable.
    FrameSpecial = -28,
    /// `BLOSC2_ERROR_SCHUNK_SPECIAL` (-29): a special chunk of an in-memory super-chunk is unusable.
    SchunkSpecial = -29,
    /// `BLOSC2_ERROR_PLUGIN_IO` (-30): the I/O backend (built-in or user plugin) failed.
    PluginIo = -30,
    /// `BLOSC2_ERROR_FILE_REMOVE` (-31): removing a file or directory failed.
    FileRemove = -31,
    /// `BLOSC2_ERROR_NULL_POINTER` (-32): a required pointer was NULL.
    NullPointer = -32,
    /// `BLOSC2_ERROR_INVALID_INDEX` (-33): a chunk, item or dimension index is out of range.
    InvalidIndex = -33,
    /// `BLOSC2_ERROR_METALAYER_NOT_FOUND` (-34): the named metalayer is not in the super-chunk.
    MetalayerNotFound = -34,
    /// `BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED` (-35): size above `BLOSC2_MAX_BUFFERSIZE` (`i32::MAX` - overhead).
    MaxBufsizeExceeded = -35,
    /// `BLOSC2_ERROR_TUNER` (-36): the tuner (btune or a user tuner) failed.
    Tuner = -36,
    /// `BLOSC2_ERROR_LOCK` (-37): taking or releasing the lock on a frame file failed.
    Lock = -37,
}

/// The result type of every fallible operation in the library.
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
