//! Dynamically loaded plugins: codecs, filters and tuners registered without functions are
//! looked up at first use the way the reference does it, so plugins installed for the
//! reference (e.g. the `blosc2_grok` or `blosc2_btune` Python packages) work here too.
//!
//! The search: the plugin name must be made of ASCII letters, digits and `_`; then
//! `libblosc2_<name>.so` through the dynamic loader's search path; then the path printed by
//! `python -c "import blosc2_<name>; blosc2_<name>.print_libpath()"` (and `python3`). The
//! library's `info` symbol holds the names of its functions (`codec_info`, `filter_info`,
//! `tuner_info`).

use std::ffi::{CStr, CString};
use std::process::{Command, Stdio};

use libc::{c_char, c_void};

/// A loaded plugin library. One whose functions are taken into a registry stays loaded for
/// the life of the process ([`Plugin::keep`]); one that is rejected (no `info` symbol, a
/// function missing) is unloaded again when dropped, as the reference `dlclose`s it.
pub struct Plugin {
    handle: *mut c_void,
}

impl Drop for Plugin {
    fn drop(&mut self) {
        // SAFETY: `handle` came from a successful dlopen and is closed once, here; nothing
        // taken from a library that is dropped (rather than kept) outlives it.
        unsafe { libc::dlclose(self.handle) };
    }
}

impl Plugin {
    /// Find and load the plugin `name`, or `None` (the reference then reports that the codec,
    /// filter or tuner is not supported).
    pub fn load(name: &str) -> Option<Plugin> {
        if !valid_name(name) {
            return None;
        }
        if let Some(p) = open(&format!("libblosc2_{name}.so")) {
            return Some(p);
        }
        ["python", "python3"].iter().find_map(|py| python_libpath(py, name)).and_then(|path| open(&path))
    }

    /// Keeps the library loaded for the rest of the process: its functions are in a registry.
    pub fn keep(self) {
        std::mem::forget(self);
    }

    /// The address of symbol `name`, NULL when absent.
    pub fn symbol(&self, name: &CStr) -> *mut c_void {
        // SAFETY: handle is a live dlopen handle; name is NUL-terminated.
        unsafe { libc::dlsym(self.handle, name.as_ptr()) }
    }

    /// The address of the function whose name is stored in the C string `name_ptr` (one of
    /// the fields of the plugin's `info` struct), NULL when the name or the symbol is absent.
    ///
    /// # Safety
    /// `name_ptr` is NULL or a NUL-terminated string.
    pub unsafe fn symbol_named_by(&self, name_ptr: *const c_char) -> *mut c_void {
        if name_ptr.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: per contract.
        self.symbol(unsafe { CStr::from_ptr(name_ptr) })
    }
}

/// Plugin names become part of a file name and of a Python command: letters, digits and
/// underscores only, as the reference requires.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn open(path: &str) -> Option<Plugin> {
    let c = CString::new(path).ok()?;
    // SAFETY: c is a NUL-terminated path; dlopen has no other preconditions.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY) };
    // Built only for a real handle: a dropped Plugin dlcloses its handle.
    (!handle.is_null()).then(|| Plugin { handle })
}

/// Ask a Python package `blosc2_<name>` where its library is (first line of its output).
fn python_libpath(python: &str, name: &str) -> Option<String> {
    let script = format!("import blosc2_{name}; blosc2_{name}.print_libpath()");
    let out = Command::new(python).arg("-c").arg(script).stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_any_lookup() {
        assert!(valid_name("grok"));
        assert!(valid_name("my_plugin2"));
        assert!(!valid_name(""));
        assert!(!valid_name("bad-name"));
        assert!(!valid_name("x; rm -rf /"));
        assert!(Plugin::load("bad-name").is_none());
    }

    #[test]
    fn a_missing_plugin_is_none() {
        assert!(Plugin::load("surely_not_installed_plugin_4711").is_none());
    }
}
