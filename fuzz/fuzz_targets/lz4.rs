//! cargo-fuzz target `lz4`: see common.rs for the input layout and the checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::fuzz_lz4(data);
});
