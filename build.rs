//! Link settings for the C artifacts.
//!
//! The shared library must carry the reference's SONAME so that programs linked against
//! c-blosc2 3.x load it unchanged; Rust's own cdylib version script already limits the
//! dynamic symbol table to our `#[no_mangle]` API functions.
fn main() {
    // Only with the C API: cargo passes a dependency's cdylib link arguments on to the
    // dependent's cdylib too, and the c-blosc 1.x face (built on the core without it) must
    // keep its own SONAME, libblosc.so.1.
    if std::env::var_os("CARGO_FEATURE_C_API").is_some() {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
    }
    // `blosc_h` is never set when compiling; cbindgen maps it to `#if !defined(BLOSC_H)` so the
    // generated header keeps the reference's guards against clashes with the blosc1 `blosc.h`.
    println!("cargo::rustc-check-cfg=cfg(blosc_h)");
    println!("cargo::rerun-if-changed=build.rs");
    link_order();
    println!("cargo::rustc-env=BLOSC2_ZLIBNG_VERSION={}", zlib_ng_version());
    lz4_near_first();
    if std::env::var_os("CARGO_FEATURE_CAPI").is_some() {
        cmake_package();
    }
}

/// Place the functions the common workloads run together in the shared library's text
/// (`link-order.ld`, made by `scripts/gen-link-order.sh`, which says why): a linker script
/// that only adds one output section before `.text`, read by GNU ld and LLD alike. The list
/// is x86-64's (its SIMD kernels); other targets and cross builds keep the default layout,
/// as does `BLOSC2_LINK_ORDER=0`.
fn link_order() {
    println!("cargo::rerun-if-env-changed=BLOSC2_LINK_ORDER");
    println!("cargo::rerun-if-changed=link-order.ld");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != "x86_64-unknown-linux-gnu" || host != target || std::env::var_os("BLOSC2_LINK_ORDER").is_some_and(|v| v == "0") {
        return;
    }
    let script = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("link-order.ld");
    if script.is_file() {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-T,{}", script.display());
    }
}

/// The CMake package for `cargo cinstall` (the `capi` feature), written where cargo-c takes
/// generated data from (`[package.metadata.capi.install.data]`): the same files `make
/// install` writes for its default layout, DATADIR = PREFIX/share and INCLUDEDIR =
/// PREFIX/include (cargo-c installs them to DATADIR/cmake/Blosc2).
fn cmake_package() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = out.join("cmake").join("Blosc2");
    std::fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    for name in ["Blosc2Config", "Blosc2ConfigVersion"] {
        let template = format!("cmake/{name}.cmake.in");
        println!("cargo::rerun-if-changed={template}");
        let text = std::fs::read_to_string(&template).expect("the CMake templates are in cmake/");
        let text = text
            .replace("@VERSION@", &version)
            .replace("@PREFIX_FROM_CONFIG@", "../../..")
            .replace("@INCLUDE_FROM_CONFIG@", "../../../include");
        std::fs::write(dir.join(format!("{name}.cmake")), text).expect("OUT_DIR is writable");
    }
}

/// `cfg(lz4_near_first)` when the bundled lz4 has `LZ4_decompress_safe_nearFirst`, which
/// `scripts/lz4/near-match-first.patch` adds when `scripts/cc-x86_64` builds it (README,
/// "LZ4's near matches first, where they pay"); a build of lz4 without the patch (another
/// compiler, a system lz4) leaves it off, and streams decode with `LZ4_decompress_safe`.
fn lz4_near_first() {
    println!("cargo::rustc-check-cfg=cfg(lz4_near_first)");
    let Some(root) = std::env::var_os("DEP_LZ4_ROOT") else { return };
    let archive = std::path::Path::new(&root).join("liblz4.a");
    println!("cargo::rerun-if-changed={}", archive.display());
    let needle = b"LZ4_decompress_safe_nearFirst";
    if std::fs::read(&archive).is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle)) {
        println!("cargo::rustc-cfg=lz4_near_first");
    }
}

/// The zlib-ng version libz-sys built (zlib-compat builds do not export `zlibng_version()`,
/// so read `ZLIBNG_VERSION` from the installed header).
fn zlib_ng_version() -> String {
    let dirs = std::env::var("DEP_Z_INCLUDE").unwrap_or_default();
    for dir in dirs.split(',').filter(|d| !d.is_empty()) {
        for name in ["zlib.h", "zlib-ng.h"] {
            if let Ok(text) = std::fs::read_to_string(std::path::Path::new(dir).join(name)) {
                for line in text.lines() {
                    if let Some(rest) = line.trim().strip_prefix("#define ZLIBNG_VERSION ") {
                        return rest.trim().trim_matches('"').to_string();
                    }
                }
            }
        }
    }
    "unknown".to_string()
}
