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
        let mut found = Vec::new();
        // SAFETY: `environ` is NULL or a NULL-terminated array of pointers to NUL-terminated
        // strings, which the loop reads up to the terminating NULL, as `getenv` does; each
        // entry kept is copied before the next is read.
        unsafe {
            let mut entry = environ;
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

    /// Runs [`checks_in_a_child`] in a process of its own, started with variables set: this
    /// process's other test threads read the environment, which `set_var` must not change
    /// under them.
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
