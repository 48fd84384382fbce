//! The code pages `learn` tries, as tables, in the order it prefers them; and the names under
//! which `fix --readings` and `fix --transcode --from` know each of them.
//!
//! A garbled sample can have gone through any single-byte encoding, not only the few undouble
//! repairs, so the search covers every one `encoding_rs` has, true ISO-8859-1 (which the WHATWG
//! label `iso-8859-1` does not give: it means Windows-1252 there) and whatever pages
//! [`codepage::ALL`] ships besides. Two pages with the same table are one page to the search:
//! the first one listed names it.

use std::sync::OnceLock;

use encoding_rs::Encoding;

use crate::mojibake::codepage::{self, CodePage};

/// The `encoding_rs` single-byte encodings, most common first, so that where several explain
/// a sample equally well the answer names the likeliest (and is the same on every run).
/// `x-user-defined` is left out: it maps bytes to private-use characters, which no program
/// garbles text through.
const ENCODINGS: [&Encoding; 28] = [
    encoding_rs::WINDOWS_1252,
    encoding_rs::WINDOWS_1251,
    encoding_rs::WINDOWS_1250,
    encoding_rs::ISO_8859_15,
    encoding_rs::ISO_8859_2,
    encoding_rs::KOI8_R,
    encoding_rs::WINDOWS_1253,
    encoding_rs::WINDOWS_1254,
    encoding_rs::WINDOWS_1257,
    encoding_rs::WINDOWS_1255,
    encoding_rs::WINDOWS_1256,
    encoding_rs::WINDOWS_1258,
    encoding_rs::WINDOWS_874,
    encoding_rs::KOI8_U,
    encoding_rs::IBM866,
    encoding_rs::MACINTOSH,
    encoding_rs::X_MAC_CYRILLIC,
    encoding_rs::ISO_8859_3,
    encoding_rs::ISO_8859_4,
    encoding_rs::ISO_8859_5,
    encoding_rs::ISO_8859_6,
    encoding_rs::ISO_8859_7,
    encoding_rs::ISO_8859_8,
    encoding_rs::ISO_8859_8_I,
    encoding_rs::ISO_8859_10,
    encoding_rs::ISO_8859_13,
    encoding_rs::ISO_8859_14,
    encoding_rs::ISO_8859_16,
];

/// Names `codepage::by_name` may know a page by besides the `encoding_rs` name and the forms
/// [`reading_names`] derives from it.
const READING_ALIASES: &[(&str, &[&str])] = &[
    ("ISO-8859-1", &["latin1"]),
    ("macintosh", &["macroman", "mac-roman", "mac"]),
    ("x-mac-cyrillic", &["maccyrillic", "mac-cyrillic"]),
    ("IBM866", &["cp866"]),
    ("windows-874", &["tis-620"]),
];

/// One single-byte code page, as the search reads and writes through it.
#[derive(Debug, PartialEq, Eq)]
pub struct Page {
    /// Its name in reports: the `encoding_rs` (WHATWG) name, `ISO-8859-1` for true Latin-1,
    /// or the name of a page only [`codepage::ALL`] has.
    pub name: &'static str,
    /// `high[b - 0x80]` is the character byte `b` decodes to, `None` where it is undefined.
    high: [Option<char>; 128],
    /// The same table the other way, sorted by character.
    by_char: Vec<(char, u8)>,
    /// The encoding `fix --transcode --from` converts this page's bytes with, if it has one:
    /// for true ISO-8859-1 that is Windows-1252 (the WHATWG meaning of the label), which
    /// differs on `0x80..=0x9F` only.
    pub transcode_as: Option<&'static Encoding>,
}

impl Page {
    fn new(
        name: &'static str,
        high: [Option<char>; 128],
        transcode_as: Option<&'static Encoding>,
    ) -> Page {
        let mut by_char: Vec<(char, u8)> = (0x80..=0xFFu8)
            .filter_map(|byte| Some((high[usize::from(byte - 0x80)]?, byte)))
            .collect();
        by_char.sort_unstable();
        Page {
            name,
            high,
            by_char,
            transcode_as,
        }
    }

    fn from_encoding(encoding: &'static Encoding) -> Page {
        let mut high = [None; 128];
        for (slot, byte) in high.iter_mut().zip(0x80..=0xFFu8) {
            let bytes = [byte];
            let decoded = encoding.decode_without_bom_handling_and_without_replacement(&bytes);
            *slot = decoded.and_then(|text| text.chars().next());
        }
        Page::new(encoding.name(), high, Some(encoding))
    }

    /// The character `byte` decodes to; ASCII decodes to itself.
    pub fn decode(&self, byte: u8) -> Option<char> {
        match byte {
            0..0x80 => Some(char::from(byte)),
            _ => self.high[usize::from(byte - 0x80)],
        }
    }

    /// The byte `ch` encodes to; ASCII encodes to itself.
    pub fn encode(&self, ch: char) -> Option<u8> {
        if ch.is_ascii() {
            return u8::try_from(ch).ok();
        }
        let at = self.by_char.binary_search_by_key(&ch, |&(c, _)| c).ok()?;
        Some(self.by_char[at].1)
    }

    /// The page `fix --readings` undoes a layer through this one with, when undouble has it:
    /// a page `codepage::by_name` knows under one of this page's names, with the same table.
    pub fn reading(&self) -> Option<&'static CodePage> {
        reading_names(self.name)
            .iter()
            .filter_map(|name| codepage::by_name(name))
            .find(|page| page.high == self.high)
    }
}

/// The names a page called `name` may go by in `codepage::by_name`: the name itself, the
/// usual short forms (`windows-1251` → `cp1251`, `ISO-8859-2` → `iso8859-2`, `KOI8-R` →
/// `koi8r`) and [`READING_ALIASES`].
fn reading_names(name: &str) -> Vec<String> {
    let lower = name.to_ascii_lowercase();
    let mut names = vec![lower.clone(), lower.replace('-', "")];
    if let Some(number) = lower.strip_prefix("windows-") {
        names.push(format!("cp{number}"));
    }
    if let Some(part) = lower.strip_prefix("iso-8859-") {
        names.push(format!("iso8859-{part}"));
    }
    for (page, aliases) in READING_ALIASES {
        if page.eq_ignore_ascii_case(name) {
            names.extend(aliases.iter().map(|alias| (*alias).to_owned()));
        }
    }
    names
}

/// Every page the search tries, in the order it prefers them: true ISO-8859-1, the
/// `encoding_rs` encodings, most common first, then the pages only [`codepage::ALL`] has.
pub fn pages() -> &'static [Page] {
    static PAGES: OnceLock<Vec<Page>> = OnceLock::new();
    PAGES.get_or_init(|| {
        let latin1 = &codepage::LATIN1;
        let latin1 = Page::new("ISO-8859-1", latin1.high, Some(encoding_rs::WINDOWS_1252));
        let shipped = codepage::ALL
            .iter()
            .map(|page| Page::new(page.name, page.high, None));
        let all = std::iter::once(latin1)
            .chain(
                ENCODINGS
                    .iter()
                    .map(|&encoding| Page::from_encoding(encoding)),
            )
            .chain(shipped);
        let mut pages: Vec<Page> = Vec::new();
        for page in all {
            if pages.iter().all(|known| known.high != page.high) {
                pages.push(page);
            }
        }
        pages
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(name: &str) -> &'static Page {
        match pages().iter().find(|page| page.name == name) {
            Some(page) => page,
            None => panic!("no page {name}"),
        }
    }

    /// Every table read from `encoding_rs` decodes each byte as `encoding_rs` does, and
    /// encodes each character it decodes back to the same byte.
    #[test]
    fn tables_agree_with_encoding_rs_both_ways() {
        for page in pages() {
            let Some(encoding) = page.transcode_as.filter(|_| page.name != "ISO-8859-1") else {
                continue;
            };
            assert!(encoding.is_single_byte(), "{}", page.name);
            for byte in 0..=0xFFu8 {
                let bytes = [byte];
                let decoded = encoding.decode_without_bom_handling_and_without_replacement(&bytes);
                let expected = decoded.and_then(|text| text.chars().next());
                assert_eq!(page.decode(byte), expected, "{} {byte:#04x}", page.name);
                if let Some(ch) = expected {
                    assert_eq!(page.encode(ch), Some(byte), "{} {ch:?}", page.name);
                }
            }
        }
    }

    /// The search relies on ASCII passing through every layer unchanged: no byte
    /// `0x80..=0xFF` of any page decodes to ASCII.
    #[test]
    fn no_high_byte_decodes_to_ascii() {
        for page in pages() {
            for byte in 0x80..=0xFFu8 {
                assert!(
                    !page.decode(byte).is_some_and(|ch| ch.is_ascii()),
                    "{}",
                    page.name
                );
            }
        }
    }

    #[test]
    fn true_latin1_comes_first_and_windows_1252_second() {
        let names: Vec<&str> = pages().iter().take(2).map(|page| page.name).collect();
        assert_eq!(names, ["ISO-8859-1", "windows-1252"]);
        assert_eq!(page("ISO-8859-1").decode(0x80), Some('\u{80}'));
        assert_eq!(page("windows-1252").decode(0x80), Some('€'));
    }

    /// Pages with the same table are tried once; every listed encoding is there unless an
    /// earlier page has its table (ISO-8859-8-I is ISO-8859-8 byte for byte).
    #[test]
    fn pages_are_distinct_and_cover_every_encoding() {
        let all = pages();
        for (i, page) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|p| p.high != page.high),
                "{}",
                page.name
            );
        }
        for encoding in ENCODINGS {
            let table = Page::from_encoding(encoding).high;
            assert!(
                all.iter().any(|page| page.high == table),
                "{}",
                encoding.name()
            );
        }
        assert!(all.iter().all(|page| page.name != "ISO-8859-8-I"));
        for shipped in codepage::ALL {
            assert!(
                all.iter().any(|page| page.high == shipped.high),
                "{}",
                shipped.name
            );
        }
    }

    /// A page's reading is the shipped page with its table, found by name: every shipped page
    /// is some page's reading, and a page no shipped table matches has none.
    #[test]
    fn readings_are_the_shipped_pages_with_the_same_table() {
        assert_eq!(page("ISO-8859-1").reading().map(|p| p.name), Some("latin1"));
        assert_eq!(
            page("windows-1252").reading().map(|p| p.name),
            Some("cp1252")
        );
        for page in pages() {
            let shipped = codepage::ALL.iter().find(|p| p.high == page.high);
            match (page.reading(), shipped) {
                (Some(reading), _) => assert_eq!(reading.high, page.high, "{}", page.name),
                // A shipped page whose names `reading_names` does not derive would be missed.
                (None, Some(shipped)) => panic!("{} is shipped as {}", page.name, shipped.name),
                (None, None) => {}
            }
        }
    }

    #[test]
    fn reading_names_cover_the_usual_short_forms() {
        let names = reading_names("windows-1251");
        assert!(names.contains(&"cp1251".to_owned()), "{names:?}");
        let names = reading_names("KOI8-R");
        assert!(names.contains(&"koi8-r".to_owned()) && names.contains(&"koi8r".to_owned()));
        assert!(reading_names("macintosh").contains(&"macroman".to_owned()));
        assert!(reading_names("ISO-8859-2").contains(&"iso-8859-2".to_owned()));
    }
}
