//! The public C headers in `include/` are generated: cbindgen (driven through its library API)
//! renders the Rust definitions of `src/ffi/abi/` and the `extern "C"` functions of
//! `src/ffi/*.rs`, wrapped in hand-written C text from `src/ffi/abi/c/` (include guards,
//! includes, macros, opaque typedefs, `static const` defaults, `static inline` helpers).
//!
//! This test regenerates every header in memory and fails if the committed file differs.
//! `BLOSC2_BLESS_HEADERS=1 cargo test --test headers` (or `scripts/gen-headers.sh`) rewrites
//! them instead.

use std::fs;
use std::path::{Path, PathBuf};

use blosc2::ffi::abi;

/// Where a header's text comes from.
enum Source {
    /// A hand-written header copied as is (macros only, nothing cbindgen could add).
    Verbatim(&'static str),
    /// cbindgen output of `srcs`, between `<stem>.preamble.h` and `<stem>.trailer.h`.
    Generated {
        stem: &'static str,
        srcs: Vec<PathBuf>,
        /// Text cbindgen writes before a `#[deprecated(note = ..)]` function (`{}` = note).
        deprecated_with_note: Option<&'static str>,
    },
}

struct Header {
    /// Path below `include/`.
    out: &'static str,
    source: Source,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn c_text_dir() -> PathBuf {
    root().join("src/ffi/abi/c")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `src/ffi/<name>.rs` if it exists (the function files appear as the API gets written).
fn optional_ffi_file(name: &str) -> Vec<PathBuf> {
    let p = root().join("src/ffi").join(name);
    if p.is_file() {
        vec![p]
    } else {
        vec![]
    }
}

/// Every `src/ffi/*.rs` that declares `blosc2.h` functions: all of them except `mod.rs`
/// (it only declares modules; parsing it would pull in `abi` and every other file), and the
/// files that feed other headers or hold none (`b2nd.rs`, `b2nd_structs.rs`, `stdio.rs`). Submodules of the files listed are
/// followed by cbindgen.
fn blosc2_function_files() -> Vec<PathBuf> {
    let dir = root().join("src/ffi");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| {
            p.is_file()
                && p.extension().is_some_and(|e| e == "rs")
                && !matches!(
                    p.file_name().and_then(|n| n.to_str()),
                    Some("mod.rs" | "b2nd.rs" | "b2nd_structs.rs" | "stdio.rs")
                )
        })
        .collect();
    files.sort();
    files
}

fn headers() -> Vec<Header> {
    let abi_dir = root().join("src/ffi/abi");
    let mut blosc2_srcs = vec![abi_dir.join("consts.rs"), abi_dir.join("types.rs")];
    blosc2_srcs.extend(blosc2_function_files());
    let mut b2nd_srcs = vec![abi_dir.join("b2nd.rs")];
    b2nd_srcs.extend(optional_ffi_file("b2nd.rs"));
    let mut stdio_srcs = vec![abi_dir.join("stdio.rs")];
    stdio_srcs.extend(optional_ffi_file("stdio.rs"));

    vec![
        Header {
            out: "blosc2/blosc2-export.h",
            source: Source::Verbatim("blosc2-export.h"),
        },
        Header {
            out: "blosc2/blosc2-common.h",
            source: Source::Verbatim("blosc2-common.h"),
        },
        Header {
            out: "blosc2/blosc2-stdio.h",
            source: Source::Generated {
                stem: "blosc2-stdio",
                srcs: stdio_srcs,
                deprecated_with_note: None,
            },
        },
        Header {
            out: "blosc2/codecs-registry.h",
            source: Source::Generated {
                stem: "codecs-registry",
                srcs: vec![abi_dir.join("registry/codecs.rs")],
                deprecated_with_note: None,
            },
        },
        Header {
            out: "blosc2/filters-registry.h",
            source: Source::Generated {
                stem: "filters-registry",
                srcs: vec![abi_dir.join("registry/filters.rs")],
                deprecated_with_note: None,
            },
        },
        Header {
            out: "blosc2/tuners-registry.h",
            source: Source::Generated {
                stem: "tuners-registry",
                srcs: vec![abi_dir.join("registry/tuners.rs")],
                deprecated_with_note: None,
            },
        },
        Header {
            out: "blosc2.h",
            source: Source::Generated {
                stem: "blosc2",
                srcs: blosc2_srcs,
                deprecated_with_note: None,
            },
        },
        Header {
            out: "b2nd.h",
            source: Source::Generated {
                stem: "b2nd",
                srcs: b2nd_srcs,
                deprecated_with_note: Some("B2ND_DEPRECATED({})"),
            },
        },
    ]
}

/// Names of the `pub struct`s and `pub type`s of an `src/ffi/abi/` file (items marked
/// `cbindgen:ignore` are skipped by cbindgen itself, so listing them is harmless).
fn type_names(src: &Path) -> Vec<String> {
    if !src.starts_with(root().join("src/ffi/abi")) {
        return Vec::new();
    }
    read(src)
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub type "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Names of the consts, statics, structs, enums, unions and type aliases declared anywhere in
/// `src/ffi/` outside `src/ffi/abi/` (any visibility), minus the names `src/ffi/abi/` declares.
fn private_item_names() -> Vec<String> {
    fn walk(dir: &Path, abi: &Path, names: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path != abi {
                    walk(&path, abi, names);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                names.extend(read(&path).lines().filter_map(declared_name));
            }
        }
    }
    let abi = root().join("src/ffi/abi");
    let mut names = Vec::new();
    walk(&root().join("src/ffi"), &abi, &mut names);
    // A name the ABI itself declares is never excluded, whatever the function files do.
    let mut public = Vec::new();
    walk(&abi, Path::new(""), &mut public);
    names.retain(|n| !public.contains(n));
    names.sort();
    names.dedup();
    names
}

/// `NAME` if `line` declares a const, static, struct, enum, union or type alias.
fn declared_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
    }
    let rest = [
        "const ",
        "static mut ",
        "static ",
        "struct ",
        "enum ",
        "union ",
        "type ",
    ]
    .iter()
    .find_map(|kw| rest.strip_prefix(kw))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name != "fn").then_some(name)
}

fn render(header: &Header) -> String {
    match &header.source {
        Source::Verbatim(file) => read(&c_text_dir().join(file)),
        Source::Generated {
            stem,
            srcs,
            deprecated_with_note,
        } => {
            let mut config = cbindgen::Config::from_file(root().join("cbindgen.toml"))
                .expect("cbindgen.toml must parse");
            config.header = Some(
                read(&c_text_dir().join(format!("{stem}.preamble.h")))
                    .trim_end()
                    .to_owned(),
            );
            config.trailer = Some(read(&c_text_dir().join(format!("{stem}.trailer.h"))));
            config.function.deprecated_with_note = deprecated_with_note.map(str::to_owned);
            // cbindgen only emits types reachable from a function; the headers declare every
            // public type of the ABI, so list them all.
            config
                .export
                .include
                .extend(srcs.iter().flat_map(|src| type_names(src)));
            // The function files may hold Rust-only items (constants, helper structs) that
            // must not leak into the C API: only their `extern "C"` functions are wanted.
            config.export.exclude.extend(private_item_names());
            let mut builder = cbindgen::Builder::new().with_config(config);
            for src in srcs {
                builder = builder.with_src(src);
            }
            let bindings = builder
                .generate()
                .unwrap_or_else(|e| panic!("cbindgen failed for {}: {e}", header.out));
            let mut text = Vec::new();
            bindings.write(&mut text);
            String::from_utf8(text).expect("cbindgen writes UTF-8")
        }
    }
}

/// Compares each (path, fresh text) with the committed file; with `BLOSC2_BLESS_HEADERS` set,
/// rewrites the stale ones instead. Returns the stale paths.
fn check_or_bless(headers: Vec<(PathBuf, String)>) -> Vec<PathBuf> {
    let bless = std::env::var_os("BLOSC2_BLESS_HEADERS").is_some_and(|v| v != "0" && !v.is_empty());
    let mut stale = Vec::new();
    for (path, fresh) in headers {
        if fs::read_to_string(&path).ok().as_deref() == Some(fresh.as_str()) {
            continue;
        }
        if bless {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &fresh).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            eprintln!("wrote {}", path.display());
        } else {
            stale.push(path);
        }
    }
    stale
}

#[test]
fn committed_headers_are_up_to_date() {
    let include = root().join("include");
    let stale = check_or_bless(headers().iter().map(|h| (include.join(h.out), render(h))).collect());
    assert!(
        stale.is_empty(),
        "generated headers differ from the committed ones: {stale:?}\n\
         run scripts/gen-headers.sh (BLOSC2_BLESS_HEADERS=1 cargo test --test headers) and commit include/"
    );
}

/// cbindgen cannot emit string constants, so their `#define`s are hand-written C text; they
/// must agree with the Rust values (and those with `crate::version`).
#[test]
fn string_defines_match_rust_constants() {
    let expected: &[(&str, &str)] = &[
        ("BLOSC2_VERSION_STRING", abi::BLOSC2_VERSION_STRING),
        ("BLOSC2_VERSION_DATE", abi::BLOSC2_VERSION_DATE),
        ("BLOSC_BLOSCLZ_COMPNAME", abi::BLOSC_BLOSCLZ_COMPNAME),
        ("BLOSC_LZ4_COMPNAME", abi::BLOSC_LZ4_COMPNAME),
        ("BLOSC_LZ4HC_COMPNAME", abi::BLOSC_LZ4HC_COMPNAME),
        ("BLOSC_ZLIB_COMPNAME", abi::BLOSC_ZLIB_COMPNAME),
        ("BLOSC_ZSTD_COMPNAME", abi::BLOSC_ZSTD_COMPNAME),
        ("BLOSC_BLOSCLZ_LIBNAME", abi::BLOSC_BLOSCLZ_LIBNAME),
        ("BLOSC_LZ4_LIBNAME", abi::BLOSC_LZ4_LIBNAME),
        ("BLOSC_ZLIB_LIBNAME", abi::BLOSC_ZLIB_LIBNAME),
        ("BLOSC_ZSTD_LIBNAME", abi::BLOSC_ZSTD_LIBNAME),
        ("B2ND_DEFAULT_DTYPE", abi::B2ND_DEFAULT_DTYPE),
    ];
    let mut text = String::new();
    for entry in fs::read_dir(c_text_dir()).unwrap() {
        text.push_str(&read(&entry.unwrap().path()));
        text.push('\n');
    }
    for (name, value) in expected {
        let found: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                let rest = l.trim_start().strip_prefix("#define")?.trim_start();
                let rest = rest.strip_prefix(name)?;
                rest.starts_with(char::is_whitespace).then(|| rest.trim())
            })
            .collect();
        assert_eq!(
            found,
            vec![format!("\"{value}\"")],
            "#define {name} in src/ffi/abi/c/"
        );
    }

    assert_eq!(abi::BLOSC2_VERSION_STRING, blosc2::version::VERSION_STRING);
    assert_eq!(abi::BLOSC2_VERSION_DATE, blosc2::version::VERSION_DATE);
    assert_eq!(
        abi::BLOSC2_VERSION_MAJOR as u32,
        blosc2::version::VERSION_MAJOR
    );
    assert_eq!(
        abi::BLOSC2_VERSION_MINOR as u32,
        blosc2::version::VERSION_MINOR
    );
    assert_eq!(
        abi::BLOSC2_VERSION_RELEASE as u32,
        blosc2::version::VERSION_RELEASE
    );
    assert_eq!(
        abi::BLOSC2_VERSION_STRING,
        format!(
            "{}.{}.{}",
            abi::BLOSC2_VERSION_MAJOR,
            abi::BLOSC2_VERSION_MINOR,
            abi::BLOSC2_VERSION_RELEASE
        )
    );
}

/// The Rust `*_DEFAULTS` values must match the reference's C initialisers (the C side is
/// checked against the reference headers by the ABI checker in `c_tests/abi/`).
#[test]
fn rust_defaults_match_reference() {
    use std::ffi::CStr;

    let c = abi::BLOSC2_CPARAMS_DEFAULTS;
    assert_eq!(
        (
            c.compcode,
            c.compcode_meta,
            c.clevel,
            c.use_dict,
            c.typesize,
            c.nthreads,
            c.blocksize
        ),
        (0, 0, 5, 0, 8, 1, 0)
    );
    assert_eq!(c.splitmode, abi::BLOSC_FORWARD_COMPAT_SPLIT);
    assert_eq!(c.filters, [0, 0, 0, 0, 0, abi::BLOSC_SHUFFLE as u8]);
    assert_eq!(c.filters_meta, [0; abi::BLOSC2_MAX_FILTERS]);
    assert!(c.schunk.is_null() && c.prefilter.is_none() && c.preparams.is_null());
    assert!(c.tuner_params.is_null() && c.codec_params.is_null());
    assert!(c.filter_params.iter().all(|p| p.is_null()));
    assert_eq!((c.tuner_id, c.instr_codec), (0, false));

    let d = abi::BLOSC2_DPARAMS_DEFAULTS;
    assert_eq!((d.nthreads, d.typesize), (1, 8));
    assert!(d.schunk.is_null() && d.postfilter.is_none() && d.postparams.is_null());

    let s = abi::BLOSC2_STORAGE_DEFAULTS;
    assert!(!s.contiguous);
    assert!(s.urlpath.is_null() && s.cparams.is_null() && s.dparams.is_null() && s.io.is_null());

    let io = abi::BLOSC2_IO_DEFAULTS;
    assert_eq!(io.id as i32, abi::BLOSC2_IO_FILESYSTEM);
    assert_eq!(
        unsafe { CStr::from_ptr(io.name) }.to_str(),
        Ok("filesystem")
    );
    assert!(io.params.is_null());

    assert_eq!(
        abi::BLOSC2_STDIO_PARAMS_DEFAULTS,
        abi::blosc2_stdio_params { locking: false }
    );

    let m = abi::BLOSC2_STDIO_MMAP_DEFAULTS;
    assert_eq!(unsafe { CStr::from_ptr(m.mode) }.to_str(), Ok("r"));
    assert_eq!(m.initial_mapping_size, 1 << 30);
    assert!(!m.needs_free && !m.is_memory_only);
    assert!(m.addr.is_null() && m.urlpath.is_null() && m.file.is_null());
    assert_eq!((m.file_size, m.mapping_size), (0, 0));
    assert_eq!((m.fd, m.access_flags, m.map_flags), (-1, -1, -1));

    // `Default` gives the same values.
    assert_eq!(<abi::blosc2_cparams as Default>::default().clevel, 5);
    assert_eq!(<abi::blosc2_dparams as Default>::default().typesize, 8);
    assert_eq!(<abi::blosc2_stdio_mmap as Default>::default().fd, -1);
}

/// The c-blosc 1.x face's headers (`blosc1/include/`): `blosc-export.h` verbatim and
/// `blosc.h` generated from `blosc1/src/lib.rs` between its hand-written macros and trailer.
fn render_blosc1(name: &str) -> String {
    let c = root().join("blosc1/c");
    if name == "blosc-export.h" {
        return read(&c.join(name));
    }
    let mut config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml must parse");
    config.header = Some(read(&c.join("blosc.preamble.h")).trim_end().to_owned());
    config.trailer = Some(read(&c.join("blosc.trailer.h")));
    // Only the functions: the face's Rust constants and helper types stay Rust-side.
    config.export.item_types = vec![cbindgen::ItemType::Functions];
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(root().join("blosc1/src/lib.rs"))
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen failed for blosc.h: {e}"));
    let mut text = Vec::new();
    bindings.write(&mut text);
    String::from_utf8(text).expect("cbindgen writes UTF-8")
}

#[test]
fn blosc1_headers_are_up_to_date() {
    let dir = root().join("blosc1/include");
    let stale = check_or_bless(
        ["blosc.h", "blosc-export.h"].iter().map(|n| (dir.join(n), render_blosc1(n))).collect(),
    );
    assert!(stale.is_empty(), "blosc1/include/ is stale: {stale:?}; run scripts/gen-headers.sh and commit it");
}
