//! The DOS ("OEM") code pages that old files still come in and `encoding_rs` lacks: IBM855
//! (Cyrillic) and CP737 (Greek). The WHATWG standard left them out because no web page
//! needs them, but text files, mail archives and menus written under DOS do, and a
//! pre-migration scan must name them rather than call them ISO-8859-5 or IBM866.
//!
//! Both pages define all 256 bytes and agree with ASCII below `0x80`, so decoding never
//! fails and a byte is a character: the tables (`oem_tables.rs`, generated) are all there is.

use super::oem_tables;

/// A DOS code page `encoding_rs` has no decoder for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OemCodePage {
    /// IBM code page 855, DOS Cyrillic.
    Ibm855,
    /// IBM code page 737, DOS Greek.
    Cp737,
}

impl OemCodePage {
    /// Every page, in a fixed order.
    pub const ALL: [Self; 2] = [Self::Ibm855, Self::Cp737];

    /// The page's name, as glibc's iconv and its charmap call it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ibm855 => "IBM855",
            Self::Cp737 => "CP737",
        }
    }

    /// The page a label names (case and surrounding white space ignored): the IANA names and
    /// aliases (`IBM855`, `cp855`, `855`, `csIBM855`) and the usual spellings of 737, which
    /// IANA never registered (`cp737`, `ibm737`, `x-IBM737`).
    pub fn for_label(label: &str) -> Option<Self> {
        match label.trim().to_ascii_lowercase().as_str() {
            "ibm855" | "cp855" | "855" | "csibm855" => Some(Self::Ibm855),
            "cp737" | "ibm737" | "x-ibm737" => Some(Self::Cp737),
            _ => None,
        }
    }

    fn high(self) -> &'static [u16; 128] {
        match self {
            Self::Ibm855 => &oem_tables::IBM855,
            Self::Cp737 => &oem_tables::CP737,
        }
    }

    /// The character of `byte`, or `None` where the page leaves it undefined.
    pub fn decode_byte(self, byte: u8) -> Option<char> {
        match byte.checked_sub(0x80) {
            None => Some(char::from(byte)),
            Some(index) => self
                .high()
                .get(usize::from(index))
                .filter(|&&code| code != 0)
                .and_then(|&code| char::from_u32(u32::from(code))),
        }
    }

    /// Whether every byte of `bytes` is defined in the page.
    pub fn decodes_cleanly(self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&byte| self.decode_byte(byte).is_some())
    }

    /// `bytes` decoded, an undefined byte read as U+FFFD.
    pub fn decode(self, bytes: &[u8]) -> String {
        bytes
            .iter()
            .map(|&byte| {
                self.decode_byte(byte)
                    .unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect()
    }

    /// The byte that encodes `c`, if the page has it.
    pub fn encode_char(self, c: char) -> Option<u8> {
        if c.is_ascii() {
            return u8::try_from(c).ok();
        }
        let code = u16::try_from(u32::from(c)).ok()?;
        let index = self.high().iter().position(|&cell| cell == code)?;
        u8::try_from(0x80 + index).ok()
    }

    /// `text` encoded, or `None` if the page lacks one of its characters.
    pub fn encode(self, text: &str) -> Option<Vec<u8>> {
        text.chars().map(|c| self.encode_char(c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_resolve_to_their_page() {
        for label in ["IBM855", " cp855 ", "855", "csIBM855"] {
            assert_eq!(OemCodePage::for_label(label), Some(OemCodePage::Ibm855));
        }
        for label in ["CP737", "ibm737", "x-IBM737"] {
            assert_eq!(OemCodePage::for_label(label), Some(OemCodePage::Cp737));
        }
        assert_eq!(OemCodePage::for_label("ibm866"), None);
        for page in OemCodePage::ALL {
            assert_eq!(OemCodePage::for_label(page.name()), Some(page));
        }
    }

    #[test]
    fn every_byte_round_trips() {
        for page in OemCodePage::ALL {
            for byte in 0..=0xFFu8 {
                let c = page.decode_byte(byte);
                assert!(c.is_some(), "{} {byte:#04x} is defined", page.name());
                assert_eq!(c.and_then(|c| page.encode_char(c)), Some(byte));
            }
        }
    }

    #[test]
    fn russian_and_greek_words() {
        let russian = "Программа установки";
        let bytes = OemCodePage::Ibm855.encode(russian).unwrap_or_default();
        assert_eq!(OemCodePage::Ibm855.decode(&bytes), russian);
        assert_eq!(OemCodePage::Ibm855.encode_char('П'), Some(0xDD));
        assert_eq!(OemCodePage::Cp737.encode_char('Α'), Some(0x80));
        assert_eq!(OemCodePage::Cp737.encode("λέξη").map(|b| b.len()), Some(4));
        assert_eq!(OemCodePage::Cp737.encode("€"), None);
    }

    /// `(byte, character)` for each high byte a glibc charmap maps (`<U0452> /x80 ...`).
    fn charmap_high_bytes(text: &str) -> Vec<(u8, Option<char>)> {
        text.lines()
            .filter_map(|line| {
                let (code, rest) = line.strip_prefix("<U")?.split_once('>')?;
                let byte = rest.split_whitespace().next()?.strip_prefix("/x")?;
                let byte = u8::from_str_radix(byte, 16).ok().filter(|&b| b >= 0x80)?;
                let code = u32::from_str_radix(code, 16).ok().and_then(char::from_u32);
                Some((byte, code))
            })
            .collect()
    }

    /// The generated tables agree with glibc's charmaps (vendored under `tests/data`), the
    /// published tables behind iconv, for every high byte.
    #[test]
    fn the_tables_agree_with_glibc() {
        let charmaps = [
            (
                OemCodePage::Ibm855,
                include_str!("../../tests/data/charmaps/IBM855"),
            ),
            (
                OemCodePage::Cp737,
                include_str!("../../tests/data/charmaps/CP737"),
            ),
        ];
        for (page, text) in charmaps {
            let mapped = charmap_high_bytes(text);
            assert_eq!(mapped.len(), 128, "{} maps every high byte", page.name());
            for (byte, expected) in mapped {
                assert_eq!(
                    page.decode_byte(byte),
                    expected,
                    "{} {byte:#04x}",
                    page.name()
                );
            }
        }
    }
}
