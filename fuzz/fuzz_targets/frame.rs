//! cargo-fuzz target `frame`: see common.rs (`fuzz_frame`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::fuzz_frame(data);
});
