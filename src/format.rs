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
    Grouped(n).to_string()
}

/// A number written as [`thousands`] writes it, straight into a formatter: a report line of
/// a tree of many files writes several, and needs no string for each.
#[derive(Clone, Copy, Debug)]
pub struct Grouped(pub u64);

impl Grouped {
    /// The number's digits and commas, written at the end of `text`.
    fn digits(self, text: &mut [u8; 26]) -> &str {
        // `u64::MAX` has 20 digits and takes 6 commas.
        let (mut at, mut n, mut written) = (text.len(), self.0, 0u32);
        loop {
            if written > 0 && written.is_multiple_of(3) {
                at -= 1;
                text[at] = b',';
            }
            at -= 1;
            text[at] = b'0' + (n % 10) as u8;
            n /= 10;
            written += 1;
            if n == 0 {
                break;
            }
        }
        // ASCII digits and commas only.
        std::str::from_utf8(&text[at..]).unwrap_or_default()
    }

    /// Appends the number to `out`, without the formatting machinery: a report line of a tree
    /// of many files writes several.
    pub fn push_to(self, out: &mut String) {
        out.push_str(self.digits(&mut [0; 26]));
    }
}

impl std::fmt::Display for Grouped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.digits(&mut [0; 26]))
    }
}

/// `n` and a noun, as [`count`] writes them, straight into a formatter.
#[derive(Clone, Copy, Debug)]
pub struct Counted<'a>(pub u64, pub &'a str);

impl<'a> Counted<'a> {
    /// The count's text in pieces: the number (its digits written at the end of `text`), a
    /// space, the noun and the plural's ending.
    fn pieces<'t>(self, text: &'t mut [u8; 26]) -> [&'t str; 4]
    where
        'a: 't,
    {
        let Counted(n, noun) = self;
        [Grouped(n).digits(text), " ", noun, plural_ending(n, noun)]
    }

    /// Appends the count to `out`, as [`Grouped::push_to`] appends a number.
    pub fn push_to(self, out: &mut String) {
        for piece in self.pieces(&mut [0; 26]) {
            out.push_str(piece);
        }
    }
}

impl std::fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.pieces(&mut [0; 26])
            .into_iter()
            .try_for_each(|piece| f.write_str(piece))
    }
}

/// `n` and `noun`, the noun in the plural unless `n` is 1, the number grouped as
/// [`thousands`] does: `count(1, "look-alike")` is `1 look-alike`, `count(1200, "run")` is
/// `1,200 runs`. The plural adds `es` after a sibilant (`guess`, `box`) and `s` otherwise;
/// the last word of a phrase takes it (`2 double-encoded characters`). One helper for every
/// message, so that no count is ever written `1 characters`.
pub fn count(n: u64, noun: &str) -> String {
    Counted(n, noun).to_string()
}

/// What [`count`] adds to `noun` for `n`: nothing for 1, else the plural's ending.
fn plural_ending(n: u64, noun: &str) -> &'static str {
    if n == 1 {
        return "";
    }
    let sibilant = ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| noun.ends_with(end));
    match sibilant {
        true => "es",
        false => "s",
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
        assert_eq!(count(3, "box"), "3 boxes");
    }

    /// Digits grouped by three from the right, by their definition on the decimal string.
    fn grouped_by_definition(n: u64) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(d);
        }
        out
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        for n in [
            0,
            7,
            999,
            1000,
            12_345,
            999_999,
            1_000_000,
            1_234_567,
            u64::MAX,
        ] {
            assert_eq!(thousands(n), grouped_by_definition(n), "{n}");
        }
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(format!("{:>8}", Grouped(1234)), "   1,234");
    }

    proptest::proptest! {
        #[test]
        fn any_number_is_grouped_by_its_definition(n in proptest::prelude::any::<u64>()) {
            proptest::prop_assert_eq!(thousands(n), grouped_by_definition(n));
        }

        /// Appending a number or a count, and formatting one, write it as defined.
        #[test]
        fn appending_writes_what_formatting_writes(
            n in proptest::prop_oneof![0..3u64, proptest::prelude::any::<u64>()],
            noun in proptest::sample::select(vec!["byte", "look-alike", "box", "match", ""]),
        ) {
            let (mut grouped, mut counted) = (String::from("a"), String::from("b"));
            Grouped(n).push_to(&mut grouped);
            Counted(n, noun).push_to(&mut counted);
            proptest::prop_assert_eq!(grouped, format!("a{}", grouped_by_definition(n)));
            // The plural by its definition: `es` after a sibilant, `s` otherwise, none for 1.
            let ending = match n {
                1 => "",
                _ if ["s", "x", "z", "ch", "sh"].iter().any(|end| noun.ends_with(end)) => "es",
                _ => "s",
            };
            let expected = format!("b{} {noun}{ending}", grouped_by_definition(n));
            proptest::prop_assert_eq!(&counted, &expected);
            proptest::prop_assert_eq!(format!("b{}", Counted(n, noun)), expected);
        }
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
