//! Compile-time layout checks: size, alignment and every field offset of each public struct
//! must equal the reference c-blosc2 3.3.5 headers on 64-bit Linux (x86_64 and aarch64 share
//! one layout). The numbers come from compiling a C program against the reference headers; a
//! mismatch is a build error, not a test failure.

#![allow(dead_code)]

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod lp64 {
    use super::super::*;
    use core::mem::{align_of, offset_of, size_of};

    macro_rules! check_layout {
        ($ty:ty, size $size:expr, align $align:expr; $($field:ident @ $off:expr),* $(,)?) => {
            const _: () = {
                assert!(size_of::<$ty>() == $size);
                assert!(align_of::<$ty>() == $align);
                $(assert!(offset_of!($ty, $field) == $off);)*
            };
        };
    }

    check_layout!(blosc2_instr, size 16, align 4;
        cratio @ 0, cspeed @ 4, filter_speed @ 8, flags @ 12,
    );
    check_layout!(blosc2_io_cb, size 80, align 8;
        id @ 0, name @ 8, is_allocation_necessary @ 16, open @ 24, close @ 32, size @ 40,
        write @ 48, read @ 56, truncate @ 64, destroy @ 72,
    );
    check_layout!(blosc2_io, size 24, align 8;
        id @ 0, name @ 8, params @ 16,
    );
    check_layout!(blosc2_tuner, size 56, align 8;
        init @ 0, next_blocksize @ 8, next_cparams @ 16, update @ 24, free @ 32, id @ 40, name @ 48,
    );
    check_layout!(blosc2_prefilter_params, size 88, align 8;
        user_data @ 0, input @ 8, output @ 16, output_size @ 24, output_typesize @ 28,
        output_offset @ 32, nchunk @ 40, nblock @ 48, tid @ 52, ttmp @ 56, ttmp_nbytes @ 64,
        ctx @ 72, output_is_disposable @ 80,
    );
    check_layout!(blosc2_postfilter_params, size 80, align 8;
        user_data @ 0, input @ 8, output @ 16, size @ 24, typesize @ 28, offset @ 32, nchunk @ 40,
        nblock @ 48, tid @ 52, ttmp @ 56, ttmp_nbytes @ 64, ctx @ 72,
    );
    check_layout!(blosc2_cparams, size 136, align 8;
        compcode @ 0, compcode_meta @ 1, clevel @ 2, use_dict @ 4, typesize @ 8, nthreads @ 12,
        blocksize @ 16, splitmode @ 20, schunk @ 24, filters @ 32, filters_meta @ 38,
        prefilter @ 48, preparams @ 56, tuner_params @ 64, tuner_id @ 72, instr_codec @ 76,
        codec_params @ 80, filter_params @ 88,
    );
    check_layout!(blosc2_dparams, size 40, align 8;
        nthreads @ 0, schunk @ 8, postfilter @ 16, postparams @ 24, typesize @ 32,
    );
    check_layout!(blosc2_storage, size 40, align 8;
        contiguous @ 0, urlpath @ 8, cparams @ 16, dparams @ 24, io @ 32,
    );
    check_layout!(blosc2_metalayer, size 24, align 8;
        name @ 0, content @ 8, content_len @ 16,
    );
    #[cfg(not(feature = "abi2"))]
    check_layout!(blosc2_schunk, size 65840, align 8;
        version @ 0, compcode @ 1, compcode_meta @ 2, clevel @ 3, splitmode @ 4, typesize @ 8,
        blocksize @ 12, chunksize @ 16, flags2 @ 20, use_dict @ 21, filters @ 22, filters_meta @ 28,
        nchunks @ 40, current_nchunk @ 48, nbytes @ 56, cbytes @ 64, data @ 72, data_len @ 80,
        storage @ 88, frame @ 96, cctx @ 104, dctx @ 112, metalayers @ 120, nmetalayers @ 248,
        vlmetalayers @ 256, nvlmetalayers @ 65792, tuner_params @ 65800, tuner_id @ 65808,
        ndim @ 65812, blockshape @ 65816, view @ 65824, change_tick @ 65832,
    );
    // The 2.x face (c-blosc2 2.23.1's blosc2.h): no flags2/use_dict/change_tick.
    #[cfg(feature = "abi2")]
    check_layout!(blosc2_schunk, size 65824, align 8;
        version @ 0, compcode @ 1, compcode_meta @ 2, clevel @ 3, splitmode @ 4, typesize @ 8,
        blocksize @ 12, chunksize @ 16, filters @ 20, filters_meta @ 26,
        nchunks @ 32, current_nchunk @ 40, nbytes @ 48, cbytes @ 56, data @ 64, data_len @ 72,
        storage @ 80, frame @ 88, cctx @ 96, dctx @ 104, metalayers @ 112, nmetalayers @ 240,
        vlmetalayers @ 248, nvlmetalayers @ 65784, tuner_params @ 65792, tuner_id @ 65800,
        ndim @ 65804, blockshape @ 65808, view @ 65816,
    );
    check_layout!(blosc2_codec, size 40, align 8;
        compcode @ 0, compname @ 8, complib @ 16, version @ 17, encoder @ 24, decoder @ 32,
    );
    check_layout!(blosc2_filter, size 40, align 8;
        id @ 0, name @ 8, version @ 16, forward @ 24, backward @ 32,
    );
    check_layout!(chunk_cache_s, size 16, align 8;
        data @ 0, nchunk @ 8,
    );
    check_layout!(b2nd_array_t, size 1376, align 8;
        sc @ 0, shape @ 8, chunkshape @ 136, extshape @ 200, blockshape @ 328, extchunkshape @ 392,
        nitems @ 520, chunknitems @ 528, extnitems @ 536, blocknitems @ 544, extchunknitems @ 552,
        ndim @ 560, chunk_cache @ 568, item_array_strides @ 584, item_chunk_strides @ 712,
        item_extchunk_strides @ 840, item_block_strides @ 968, block_chunk_strides @ 1096,
        chunk_array_strides @ 1224, dtype @ 1352, dtype_format @ 1360, last_tick @ 1368,
    );
    check_layout!(blosc2_stdio_file, size 8, align 8;
        file @ 0,
    );
    check_layout!(blosc2_stdio_params, size 1, align 1;
        locking @ 0,
    );
    check_layout!(blosc2_stdio_mmap, size 96, align 8;
        mode @ 0, initial_mapping_size @ 8, needs_free @ 16, addr @ 24, urlpath @ 32,
        file_size @ 40, mapping_size @ 48, is_memory_only @ 56, file @ 64, fd @ 72,
        access_flags @ 80, map_flags @ 88,
    );
    check_layout!(codec_info, size 16, align 8;
        encoder @ 0, decoder @ 8,
    );
    check_layout!(filter_info, size 16, align 8;
        forward @ 0, backward @ 8,
    );
    check_layout!(tuner_info, size 40, align 8;
        init @ 0, next_blocksize @ 8, next_cparams @ 16, update @ 24, free @ 32,
    );
    const _: () = assert!(size_of::<blosc_timestamp_t>() == 16);

    // The opaque handles are only ever used behind pointers.
    const _: () = assert!(size_of::<blosc2_context>() == 0 && size_of::<blosc2_frame>() == 0);
    const _: () = assert!(size_of::<b2nd_context_t>() == 0);
}
