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

/// `n` and `noun`, the noun in the plural unless `n` is 1, the number grouped as
/// [`thousands`] does: `count(1, "look-alike")` is `1 look-alike`, `count(1200, "run")` is
/// `1,200 runs`. The plural adds `es` after a sibilant (`guess`, `box`) and `s` otherwise;
/// the last word of a phrase takes it (`2 double-encoded characters`). One helper for every
/// message, so that no count is ever written `1 characters`.
pub fn count(n: u64, noun: &str) -> String {
    format!("{} {}", thousands(n), plural(n, noun))
}

/// `noun` in the plural unless `n` is 1, as [`count`] writes it, without the number.
pub(crate) fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        return noun.to_owned();
    }
    let sibilant = ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| noun.ends_with(end));
    match sibilant {
        true => format!("{noun}es"),
        false => format!("{noun}s"),
    }
}

/// `text` as a person can read it on a terminal: every control character (C0, DEL, C1: they
/// move the cursor, ring bells or show nothing) is written `<U+0081>`, its code point in the
/// notation the rest of the output uses, and every other character is itself. Unlike Rust's
/// `escape_debug`, a backslash or a quote stays as it is.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c.is_control() {
            true => out.push_str(&format!("<U+{:04X}>", u32::from(c))),
            false => out.push(c),
        }
    }
    out
}

/// [`visible`] for bytes that may not be UTF-8: each byte of an ill-formed sequence shows as
/// `\xE9`, so a person sees which bytes were there (a replacement character would hide them).
pub fn visible_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bstr::ByteSlice::utf8_chunks(bytes) {
        out += &visible(chunk.valid());
        for byte in chunk.invalid() {
            out += &format!("\\x{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_plural_unless_one() {
        assert_eq!(count(0, "run"), "0 runs");
        assert_eq!(count(1, "look-alike"), "1 look-alike");
        assert_eq!(
            count(2, "double-encoded character"),
            "2 double-encoded characters"
        );
        assert_eq!(count(1234, "guess"), "1,234 guesses");
        assert_eq!(count(1, "guess"), "1 guess");
        assert_eq!(plural(3, "box"), "boxes");
    }

    #[test]
    fn visible_names_control_characters_and_keeps_the_rest() {
        assert_eq!(visible("Ñ\u{81}"), "Ñ<U+0081>");
        assert_eq!(visible("a\tb\u{7f}"), "a<U+0009>b<U+007F>");
        assert_eq!(visible(r"\fI 'x' café"), r"\fI 'x' café");
    }

    #[test]
    fn visible_bytes_names_the_bytes_that_are_not_utf8() {
        assert_eq!(visible_bytes(b"Caf\xE9 \xC3\xA9\x81"), r"Caf\xE9 é\x81");
        assert_eq!(visible_bytes("Ñ\u{81}".as_bytes()), "Ñ<U+0081>");
    }
}
