//! The `BLOSC_*` environment variables as C's `getenv` finds them, all of them in one pass
//! over `environ`.
//!
//! Why: the references read their variables at every non-contextual call (c-blosc2's
//! `blosc2_compress` nine, `blosc2_decompress` two), so a C program may change them with
//! `setenv` between calls, and both faces must read them as often. Through
//! `std::env::var_os`, each read takes the standard library's environment lock, scans the
//! whole environment and copies the value: the eleven that `blosc2_decompress` looked up cost
//! about a fifth of decompressing an 18 KiB chunk (Zen 4). Here one pass looks at the first
//! bytes of each entry and copies only the few entries named `BLOSC_*`.

use std::ffi::{c_char, CStr};

use crate::settings::Vars;

extern "C" {
    /// The C environment: NULL-terminated array of NUL-terminated `NAME=value` strings
    /// (POSIX; the array itself may be NULL after `clearenv`).
    static environ: *const *const c_char;
}

/// What every name read here starts with.
const PREFIX: &[u8] = b"BLOSC_";

/// The `BLOSC_*` variables set when [`BloscVars::read`] ran, in the environment's order.
#[derive(Debug, Default)]
pub struct BloscVars {
    found: Vec<(String, String)>,
}

impl BloscVars {
    /// One pass over the process environment. Like `getenv`, it takes no lock: a thread
    /// changing the environment at the same moment is the caller's race, as with `getenv`.
    pub fn read() -> BloscVars {
        // SAFETY: `environ` is the C environment, NULL or a NULL-terminated array of
        // NUL-terminated strings, as `read_from` requires.
        unsafe { BloscVars::read_from(environ) }
    }

    /// The `BLOSC_*` entries of an environment array laid out as `environ` is.
    ///
    /// # Safety
    /// `entries` is NULL or a NULL-terminated array of pointers to NUL-terminated strings,
    /// none of which changes during the call.
    unsafe fn read_from(entries: *const *const c_char) -> BloscVars {
        let mut found = Vec::new();
        // SAFETY: per the contract, the loop reads the array up to its terminating NULL and
        // each string up to its NUL, as `getenv` does; each entry kept is copied.
        unsafe {
            let mut entry = entries;
            while !entry.is_null() && !(*entry).is_null() {
                if starts_with_prefix(*entry) {
                    let bytes = CStr::from_ptr(*entry).to_bytes();
                    if let Some(eq) = bytes.iter().position(|&b| b == b'=') {
                        found.push((
                            String::from_utf8_lossy(&bytes[..eq]).into_owned(),
                            String::from_utf8_lossy(&bytes[eq + 1..]).into_owned(),
                        ));
                    }
                }
                entry = entry.add(1);
            }
        }
        BloscVars { found }
    }

    /// Whether no `BLOSC_*` variable was set (the usual case).
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// Variables given directly (for tests), in this order.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> BloscVars {
        BloscVars { found: pairs.iter().map(|&(n, v)| (n.to_owned(), v.to_owned())).collect() }
    }
}

/// Whether the NUL-terminated string at `s` starts with [`PREFIX`], reading no byte past a
/// mismatch (so none past its NUL).
///
/// # Safety
/// `s` points to a NUL-terminated string.
unsafe fn starts_with_prefix(s: *const c_char) -> bool {
    for (i, &want) in PREFIX.iter().enumerate() {
        // SAFETY: bytes 0..i matched nonzero prefix bytes, so none was the NUL and byte i
        // still lies within the string.
        if unsafe { *s.add(i) } as u8 != want {
            return false;
        }
    }
    true
}

impl Vars for BloscVars {
    /// The value of `name` (which must start with `BLOSC_`: nothing else was read), the
    /// first one in the environment when it is there twice, as `getenv` answers.
    fn var(&self, name: &str) -> Option<String> {
        debug_assert!(name.as_bytes().starts_with(PREFIX), "{name} is not read by BloscVars");
        self.found.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: &str = "BLOSC_ENVIRON_TEST_CHILD";

    /// The pass over an environment array built here: names taken whole, values after the
    /// first `=`, prefixes that only start like `BLOSC_` skipped, the first of two entries
    /// of one name kept, entries without `=` ignored, an empty or NULL array read as empty.
    /// (Runs on every architecture; [`agrees_with_getenv`] checks the real environment.)
    #[test]
    fn reads_an_environment_array() {
        let entries = [
            "PATH=/bin",
            "BLOSC_NTHREADS=3",
            "BLOSC=1",
            "BLOSCX_NOLOCK=1",
            "BLOSC_CLEVEL==5",
            "BLOSC_NOLOCK=",
            "BLOSC_NTHREADS=5",
            "BLOSC_TYPESIZE",
            "BLOSC_COMPRESSOR_LONGER=zstd",
        ];
        let strings: Vec<std::ffi::CString> = entries.iter().map(|e| std::ffi::CString::new(*e).unwrap()).collect();
        let mut array: Vec<*const c_char> = strings.iter().map(|c| c.as_ptr()).collect();
        array.push(std::ptr::null());
        // SAFETY: a NULL-terminated array of pointers to live C strings.
        let vars = unsafe { BloscVars::read_from(array.as_ptr()) };
        assert_eq!(vars.var("BLOSC_NTHREADS").as_deref(), Some("3"));
        assert_eq!(vars.var("BLOSC_CLEVEL").as_deref(), Some("=5"));
        assert_eq!(vars.var("BLOSC_NOLOCK").as_deref(), Some(""));
        assert_eq!(vars.var("BLOSC_TYPESIZE"), None);
        assert_eq!(vars.var("BLOSC_COMPRESSOR"), None);
        assert_eq!(vars.var("BLOSC_COMPRESSOR_LONGER").as_deref(), Some("zstd"));
        assert!(vars.found.iter().all(|(n, _)| n.starts_with("BLOSC_")), "{:?}", vars.found);
        assert_eq!(vars.found.len(), 5, "{:?}", vars.found);
        let empty = [std::ptr::null::<c_char>()];
        // SAFETY: an array holding only its terminating NULL, then a NULL array.
        unsafe {
            assert!(BloscVars::read_from(empty.as_ptr()).is_empty());
            assert!(BloscVars::read_from(std::ptr::null()).is_empty());
        }
    }

    /// Runs [`checks_in_a_child`] in a process of its own, started with variables set: this
    /// process's other test threads read the environment, which `set_var` must not change
    /// under them. On x86-64 only: the aarch64 tests run under qemu-user, where this binary
    /// cannot start a copy of itself.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn agrees_with_getenv() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "environ::tests::checks_in_a_child", "--ignored", "--test-threads=1"])
            .env(CHILD, "1")
            .env("BLOSC_ENVIRON_TEST_A", "12 threads")
            .env("BLOSC_ENVIRON_TEST_B", "")
            .env("BLOSC_ENVIRON_TEST_LONGER", "1")
            .env("BLOSC", "1")
            .env("BLOSCX_NOLOCK", "1")
            .env_remove("BLOSC_ENVIRON_TEST_C")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("1 passed"), "the child ran no check: {text}");
    }

    /// The one pass against `getenv`, in the child [`agrees_with_getenv`] starts (the only
    /// thread there, so it may change the environment).
    #[test]
    #[ignore = "run by agrees_with_getenv in a process of its own"]
    fn checks_in_a_child() {
        assert_eq!(std::env::var(CHILD).as_deref(), Ok("1"), "run through agrees_with_getenv");
        let getenv = |n: &str| std::env::var_os(n).map(|v| v.to_string_lossy().into_owned());
        let vars = BloscVars::read();
        for n in ["BLOSC_ENVIRON_TEST_A", "BLOSC_ENVIRON_TEST_B", "BLOSC_ENVIRON_TEST_C", "BLOSC_ENVIRON_TEST_LONGER"] {
            assert_eq!(vars.var(n), getenv(n), "{n}");
        }
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_A").as_deref(), Some("12 threads"));
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_B").as_deref(), Some(""));
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_C"), None);
        // A name that a longer one extends is not taken for it; names that only share part
        // of the prefix are not read at all.
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_LONG"), None);
        assert!(vars.found.iter().all(|(n, _)| n.starts_with("BLOSC_")));
        assert!(vars.found.iter().any(|(n, _)| n == "BLOSC_ENVIRON_TEST_LONGER"));
        // Changes made after a read are seen by the next (as C's setenv would make them).
        std::env::set_var("BLOSC_ENVIRON_TEST_C", "=x");
        std::env::remove_var("BLOSC_ENVIRON_TEST_A");
        let vars = BloscVars::read();
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_C").as_deref(), Some("=x"));
        assert_eq!(vars.var("BLOSC_ENVIRON_TEST_A"), None);
    }

    /// The first of two entries of one name wins, as with `getenv`.
    #[test]
    fn first_entry_wins() {
        let vars = BloscVars::from_pairs(&[("BLOSC_NTHREADS", "3"), ("BLOSC_NTHREADS", "5")]);
        assert_eq!(vars.var("BLOSC_NTHREADS").as_deref(), Some("3"));
    }
}
