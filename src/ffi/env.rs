//! The `BLOSC_*` environment variables that override programmatic settings, parsed the way
//! the reference parses them (`strtol`: leading whitespace, sign and digits; junk => 0).

/// `strtol(s, NULL, 10)` semantics.
pub fn strtol(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

pub fn var(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// Whether `BLOSC_LOCKING` asks for frame locking: set, non-empty and not exactly "0"
/// (any other text, "false" and "off" included, turns it on, as in the reference).
pub fn locking_env() -> bool {
    var("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// An integer variable, if set.
pub fn int_var(name: &str) -> Option<i64> {
    var(name).map(|v| strtol(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_like_c() {
        assert_eq!(strtol(" 12abc"), 12);
        assert_eq!(strtol("-3"), -3);
        assert_eq!(strtol("x"), 0);
        assert_eq!(strtol(""), 0);
    }
}
