//! Suspected encodings: the candidates HTML::Encoding tries a byte string against.
//!
//! Most routines of the Perl module work by asking "what would `<`, `>`, `?`, U+FEFF or a
//! space look like in encoding E?" and searching the raw bytes for that, then decoding a piece
//! with E. [`Suspect`] is that E: it can encode a single character and decode bytes, either
//! strictly (Perl's `FB_CROAK`: all or nothing) or up to the first error (`FB_QUIET`).
//!
//! Unicode encodings and Latin-1 are implemented here; UTF-7 and the EBCDIC family in their own
//! files; every other ASCII-compatible legacy encoding goes through `encoding_rs`.

use encoding_rs::{DecoderResult, EncoderResult, Encoding};

use super::ebcdic::{self, EbcdicCodePage};
use super::utf7;

/// One encoding HTML::Encoding may suspect a document to be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suspect {
    /// True ISO-8859-1: every byte is the code point of the same value.
    Iso8859_1,
    /// UTF-8.
    Utf8,
    /// UTF-16, little endian.
    Utf16Le,
    /// UTF-16, big endian.
    Utf16Be,
    /// UTF-32, little endian.
    Utf32Le,
    /// UTF-32, big endian.
    Utf32Be,
    /// UTF-7 (RFC 2152); never suspected unless asked for.
    Utf7,
    /// UTF-EBCDIC (UTR #16); never suspected unless asked for.
    UtfEbcdic,
    /// A single-byte EBCDIC code page such as Perl's `cp37`.
    Ebcdic(EbcdicCodePage),
    /// Any other encoding `encoding_rs` knows (windows-1252, Shift_JIS, ...).
    Whatwg(&'static Encoding),
}

/// `$HTML::Encoding::DEFAULT_ENCODINGS`, in the module's order.
pub const DEFAULT_SUSPECTS: &[Suspect] = &[
    Suspect::Iso8859_1,
    Suspect::Utf16Le,
    Suspect::Utf16Be,
    Suspect::Utf32Le,
    Suspect::Utf32Be,
    Suspect::Utf8,
];

/// The result of decoding as far as the bytes allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The characters decoded before the first malformed or truncated sequence.
    pub text: String,
    /// Whether every byte was decoded.
    pub complete: bool,
}

impl Suspect {
    /// The name HTML::Encoding reports for this encoding (Perl's Encode spelling).
    pub fn name(self) -> &'static str {
        match self {
            Self::Iso8859_1 => "ISO-8859-1",
            Self::Utf8 => "UTF-8",
            Self::Utf16Le => "UTF-16LE",
            Self::Utf16Be => "UTF-16BE",
            Self::Utf32Le => "UTF-32LE",
            Self::Utf32Be => "UTF-32BE",
            Self::Utf7 => "UTF-7",
            Self::UtfEbcdic => "UTF-EBCDIC",
            Self::Ebcdic(code_page) => code_page.name(),
            Self::Whatwg(encoding) => encoding.name(),
        }
    }

    /// Parses an encoding name: the Perl names above (any case), the EBCDIC code pages, or any
    /// WHATWG label. `ISO-8859-1` stays true Latin-1 here rather than becoming windows-1252.
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.trim().to_ascii_lowercase();
        let suspect = match lower.as_str() {
            "iso-8859-1" | "iso8859-1" | "iso_8859-1" | "latin1" | "latin-1" | "l1" => {
                Self::Iso8859_1
            }
            "utf-8" | "utf8" => Self::Utf8,
            "utf-16le" => Self::Utf16Le,
            "utf-16be" => Self::Utf16Be,
            "utf-32le" => Self::Utf32Le,
            "utf-32be" => Self::Utf32Be,
            "utf-7" | "utf7" => Self::Utf7,
            "utf-ebcdic" => Self::UtfEbcdic,
            _ => {
                return EbcdicCodePage::from_name(&lower)
                    .map(Self::Ebcdic)
                    .or_else(|| {
                        Encoding::for_label_no_replacement(lower.as_bytes()).map(Self::from_whatwg)
                    });
            }
        };
        Some(suspect)
    }

    /// Wraps an `encoding_rs` encoding, preferring the variants implemented here.
    pub(crate) fn from_whatwg(encoding: &'static Encoding) -> Self {
        if encoding == encoding_rs::UTF_8 {
            Self::Utf8
        } else if encoding == encoding_rs::UTF_16LE {
            Self::Utf16Le
        } else if encoding == encoding_rs::UTF_16BE {
            Self::Utf16Be
        } else {
            Self::Whatwg(encoding)
        }
    }

    /// The bytes of `c` in this encoding, or `None` if it cannot be encoded.
    pub fn encode_char(self, c: char) -> Option<Vec<u8>> {
        match self.normalized() {
            Self::Iso8859_1 => u8::try_from(u32::from(c)).ok().map(|b| vec![b]),
            Self::Utf8 => Some(c.to_string().into_bytes()),
            Self::Utf16Le => Some(utf16_units(c).flat_map(u16::to_le_bytes).collect()),
            Self::Utf16Be => Some(utf16_units(c).flat_map(u16::to_be_bytes).collect()),
            Self::Utf32Le => Some(u32::from(c).to_le_bytes().to_vec()),
            Self::Utf32Be => Some(u32::from(c).to_be_bytes().to_vec()),
            Self::Utf7 => Some(utf7::encode_char(c)),
            Self::UtfEbcdic => Some(ebcdic::utf_ebcdic_encode_char(c)),
            Self::Ebcdic(code_page) => code_page.encode_char(c).map(|b| vec![b]),
            Self::Whatwg(encoding) => encode_with_encoding_rs(encoding, c),
        }
    }

    /// Whether this is UTF-16 or UTF-32, in which ASCII text is not ASCII bytes.
    pub(crate) fn is_wide_unicode(self) -> bool {
        matches!(
            self.normalized(),
            Self::Utf16Le | Self::Utf16Be | Self::Utf32Le | Self::Utf32Be
        )
    }

    /// The byte order mark: U+FEFF in this encoding, if it can encode it.
    pub(crate) fn byte_order_mark(self) -> Option<Vec<u8>> {
        self.encode_char('\u{FEFF}')
    }

    /// Decodes as far as the bytes are well-formed (Perl's `FB_QUIET` over the whole input).
    pub fn decode_prefix(self, bytes: &[u8]) -> Decoded {
        match self.normalized() {
            Self::Iso8859_1 => Decoded {
                text: bytes.iter().map(|&b| char::from(b)).collect(),
                complete: true,
            },
            Self::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => Decoded {
                    text: text.to_owned(),
                    complete: true,
                },
                Err(error) => Decoded {
                    text: String::from_utf8_lossy(
                        bytes.get(..error.valid_up_to()).unwrap_or_default(),
                    )
                    .into_owned(),
                    complete: false,
                },
            },
            Self::Utf16Le => decode_utf16(bytes, u16::from_le_bytes),
            Self::Utf16Be => decode_utf16(bytes, u16::from_be_bytes),
            Self::Utf32Le => decode_utf32(bytes, u32::from_le_bytes),
            Self::Utf32Be => decode_utf32(bytes, u32::from_be_bytes),
            Self::Utf7 => utf7::decode(bytes),
            Self::UtfEbcdic => ebcdic::utf_ebcdic_decode(bytes),
            Self::Ebcdic(code_page) => code_page.decode(bytes),
            Self::Whatwg(encoding) => decode_with_encoding_rs(encoding, bytes),
        }
    }

    /// Decodes all of `bytes` or nothing (Perl's `FB_CROAK`).
    pub fn decode_strict(self, bytes: &[u8]) -> Option<String> {
        let decoded = self.decode_prefix(bytes);
        decoded.complete.then_some(decoded.text)
    }

    /// `Whatwg` wrapping an encoding implemented here behaves as that variant.
    fn normalized(self) -> Self {
        match self {
            Self::Whatwg(encoding) => Self::from_whatwg(encoding),
            other => other,
        }
    }
}

fn utf16_units(c: char) -> impl Iterator<Item = u16> {
    let mut buffer = [0u16; 2];
    let units = c.encode_utf16(&mut buffer).len();
    buffer.into_iter().take(units)
}

fn decode_utf16(bytes: &[u8], unit_from: fn([u8; 2]) -> u16) -> Decoded {
    let pairs = bytes.chunks_exact(2);
    let whole_units = pairs.remainder().is_empty();
    let units = pairs.map(|pair| unit_from([pair[0], pair[1]]));
    let mut text = String::new();
    for decoded in char::decode_utf16(units) {
        match decoded {
            Ok(c) => text.push(c),
            Err(_) => {
                return Decoded {
                    text,
                    complete: false,
                };
            }
        }
    }
    Decoded {
        text,
        complete: whole_units,
    }
}

fn decode_utf32(bytes: &[u8], value_from: fn([u8; 4]) -> u32) -> Decoded {
    let quads = bytes.chunks_exact(4);
    let whole_units = quads.remainder().is_empty();
    let mut text = String::new();
    for quad in quads {
        match char::from_u32(value_from([quad[0], quad[1], quad[2], quad[3]])) {
            Some(c) => text.push(c),
            None => {
                return Decoded {
                    text,
                    complete: false,
                };
            }
        }
    }
    Decoded {
        text,
        complete: whole_units,
    }
}

fn encode_with_encoding_rs(encoding: &'static Encoding, c: char) -> Option<Vec<u8>> {
    if encoding.output_encoding() != encoding {
        return None;
    }
    let source = c.to_string();
    let mut encoder = encoding.new_encoder();
    let capacity = encoder.max_buffer_length_from_utf8_without_replacement(source.len())?;
    let mut out = vec![0u8; capacity];
    let (result, _, written) =
        encoder.encode_from_utf8_without_replacement(&source, &mut out, true);
    match result {
        EncoderResult::InputEmpty => {
            out.truncate(written);
            Some(out)
        }
        _ => None,
    }
}

fn decode_with_encoding_rs(encoding: &'static Encoding, bytes: &[u8]) -> Decoded {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::new();
    let mut rest = bytes;
    loop {
        let room = decoder
            .max_utf8_buffer_length_without_replacement(rest.len())
            .unwrap_or(rest.len().saturating_mul(3).saturating_add(16));
        text.reserve(room);
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut text, true);
        rest = rest.get(read..).unwrap_or_default();
        match result {
            DecoderResult::InputEmpty => {
                return Decoded {
                    text,
                    complete: true,
                };
            }
            DecoderResult::Malformed(_, _) => {
                return Decoded {
                    text,
                    complete: false,
                };
            }
            DecoderResult::OutputFull => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for suspect in DEFAULT_SUSPECTS
            .iter()
            .chain(&[Suspect::Utf7, Suspect::UtfEbcdic])
        {
            assert_eq!(Suspect::from_name(suspect.name()), Some(*suspect));
        }
        assert_eq!(
            Suspect::from_name("cp37"),
            Some(Suspect::Ebcdic(EbcdicCodePage::Cp037))
        );
        assert_eq!(
            Suspect::from_name("windows-1252"),
            Some(Suspect::Whatwg(encoding_rs::WINDOWS_1252))
        );
        assert_eq!(Suspect::from_name("utf-16"), Some(Suspect::Utf16Le));
        assert_eq!(Suspect::from_name("no-such-thing"), None);
    }

    #[test]
    fn byte_order_marks() {
        let bom = |s: Suspect| s.byte_order_mark();
        assert_eq!(bom(Suspect::Iso8859_1), None);
        assert_eq!(bom(Suspect::Utf8), Some(vec![0xEF, 0xBB, 0xBF]));
        assert_eq!(bom(Suspect::Utf16Le), Some(vec![0xFF, 0xFE]));
        assert_eq!(bom(Suspect::Utf16Be), Some(vec![0xFE, 0xFF]));
        assert_eq!(bom(Suspect::Utf32Le), Some(vec![0xFF, 0xFE, 0, 0]));
        assert_eq!(bom(Suspect::Utf32Be), Some(vec![0, 0, 0xFE, 0xFF]));
        assert_eq!(bom(Suspect::Whatwg(encoding_rs::WINDOWS_1252)), None);
    }

    #[test]
    fn strict_and_prefix_decoding() {
        assert_eq!(
            Suspect::Utf8.decode_strict(b"a\xC3\xA4"),
            Some("a\u{E4}".into())
        );
        assert_eq!(Suspect::Utf8.decode_strict(b"a\xC3"), None);
        assert_eq!(Suspect::Utf8.decode_prefix(b"ab\xFFcd").text, "ab");
        assert_eq!(Suspect::Utf16Le.decode_strict(b"<\0?\0"), Some("<?".into()));
        assert_eq!(Suspect::Utf16Le.decode_strict(b"<\0?"), None);
        assert_eq!(Suspect::Utf16Be.decode_prefix(b"\0a\xD8\x00\0b").text, "a");
        assert_eq!(Suspect::Utf32Be.decode_strict(b"\0\0\0<"), Some("<".into()));
        assert_eq!(
            Suspect::Utf32Le.decode_prefix(b"a\0\0\0\0\xD8\0\0").text,
            "a"
        );
        let shift_jis = Suspect::Whatwg(encoding_rs::SHIFT_JIS);
        assert_eq!(
            shift_jis.decode_strict(b"<\x82\xA0>"),
            Some("<\u{3042}>".into())
        );
        assert_eq!(shift_jis.decode_prefix(b"<\x82").text, "<");
        assert_eq!(shift_jis.encode_char('<'), Some(b"<".to_vec()));
        assert_eq!(shift_jis.encode_char('\u{FEFF}'), None);
    }
}
