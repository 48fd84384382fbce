//! Small text formatting helpers that every layer may use: hexadecimal bytes and grouped
//! numbers. It depends on nothing else in the crate, so that the pure core can format without
//! reaching up into [`report`](crate::report).

/// Lower-case hexadecimal, bytes joined by `separator`.
pub fn hex(bytes: &[u8], separator: &str) -> String {
    let pairs: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    pairs.join(separator)
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}
