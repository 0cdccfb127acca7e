//! cargo-fuzz target `b2nd`: see common.rs (`fuzz_b2nd`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::fuzz_b2nd(data);
});
