//! UTF-16 and UTF-32 without a byte order mark, from where the zero bytes fall.
//!
//! Markup shows its encoding in its first `<` (`first_chars.rs`); plain text has no such
//! landmark, but its code units have a shape over the whole sample that legacy text and binary
//! data lack. In UTF-16 each unit's high byte is the block of its script: zero for spaces,
//! digits, punctuation and Latin letters, one or two other values for the letters of one
//! alphabet (Cyrillic, Greek, Hebrew, ...). So in one half of the byte positions a few values
//! cover nearly every unit, zero among them, while no unit is NUL or a control character and
//! every surrogate is paired. UTF-32 is stricter still: every unit a scalar value, its top byte
//! zero. Legacy text holds no zero byte at all; binary data holds NUL units and controls. Text
//! whose letters spread over many blocks (Chinese, Japanese) is left to the first characters:
//! its high bytes are too varied to be told from data by this pattern.

use super::suspect::Suspect;

/// How much of the body is looked at: enough to see the pattern many times over.
const SAMPLE_LIMIT: usize = 64 << 10;

/// The fewest code units worth judging: a short word or two.
const MIN_UTF16_UNITS: usize = 8;
const MIN_UTF32_UNITS: usize = 4;

/// The share of UTF-16 units (in percent) whose high byte is zero or one of the two commonest
/// other values, at least: the text of one or two scripts.
const MIN_SCRIPT_SHARE_PERCENT: usize = 95;

/// The share of UTF-16 units (in percent) whose high byte is zero, at least: spaces, digits,
/// punctuation or line ends, which every alphabetic script's text holds.
const MIN_ZERO_HIGH_PERCENT: usize = 10;

/// The encoding of `body` by its zero bytes, if it is UTF-16 or UTF-32 text of one or two
/// alphabets in exactly one byte order.
pub(crate) fn wide_unicode_from_zero_bytes(body: &[u8]) -> Option<Suspect> {
    let sample = body.get(..SAMPLE_LIMIT).unwrap_or(body);
    // Both patterns need zero bytes (UTF-32's top bytes, UTF-16's high bytes of at least
    // `MIN_ZERO_HIGH_PERCENT` of the units): text without one, most text, is neither. One
    // vector search answers that for every file a scan reads.
    memchr::memchr(0, sample)?;
    let utf32: Vec<Suspect> = [Suspect::Utf32Le, Suspect::Utf32Be]
        .into_iter()
        .filter(|&form| is_utf32_text(sample, form == Suspect::Utf32Le))
        .collect();
    if let [one] = utf32.as_slice() {
        return Some(*one);
    }
    let utf16: Vec<Suspect> = [Suspect::Utf16Le, Suspect::Utf16Be]
        .into_iter()
        .filter(|&form| is_utf16_text(sample, form == Suspect::Utf16Le))
        .collect();
    match utf16.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// A code point that text holds: not NUL, and no control character but white space.
fn is_text_char(value: u32) -> bool {
    (value >= 0x20 && !(0x7F..0xA0).contains(&value)) || matches!(value, 0x09 | 0x0A | 0x0C | 0x0D)
}

fn is_utf16_text(sample: &[u8], little_endian: bool) -> bool {
    let units: Vec<u16> = sample
        .chunks_exact(2)
        .map(|pair| match pair {
            [a, b] if little_endian => u16::from_le_bytes([*a, *b]),
            [a, b] => u16::from_be_bytes([*a, *b]),
            _ => 0,
        })
        .collect();
    if units.len() < MIN_UTF16_UNITS {
        return false;
    }
    let mut high = [0usize; 256];
    let mut pending_high_surrogate = false;
    for (index, &unit) in units.iter().enumerate() {
        let is_high = (0xD800..0xDC00).contains(&unit);
        let is_low = (0xDC00..0xE000).contains(&unit);
        if pending_high_surrogate != is_low {
            return false;
        }
        // A surrogate cut by the end of the sample is not held against it.
        pending_high_surrogate = is_high && index + 1 < units.len();
        if !is_high && !is_low && !is_text_char(u32::from(unit)) {
            return false;
        }
        if let Some(count) = high.get_mut(usize::from(unit >> 8)) {
            *count += 1;
        }
    }
    let zero = high.first().copied().unwrap_or_default();
    let mut others: Vec<usize> = high.iter().skip(1).copied().collect();
    others.sort_unstable_by(|a, b| b.cmp(a));
    let script = zero + others.iter().take(2).sum::<usize>();
    zero * 100 >= units.len() * MIN_ZERO_HIGH_PERCENT
        && script * 100 >= units.len() * MIN_SCRIPT_SHARE_PERCENT
}

fn is_utf32_text(sample: &[u8], little_endian: bool) -> bool {
    let units = sample.chunks_exact(4);
    if units.len() < MIN_UTF32_UNITS {
        return false;
    }
    units
        .map(|unit| match unit {
            [a, b, c, d] if little_endian => u32::from_le_bytes([*a, *b, *c, *d]),
            [a, b, c, d] => u32::from_be_bytes([*a, *b, *c, *d]),
            _ => 0,
        })
        .all(|value| char::from_u32(value).is_some() && is_text_char(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|unit| {
                if little_endian {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                }
            })
            .collect()
    }

    fn utf32(text: &str, little_endian: bool) -> Vec<u8> {
        text.chars()
            .flat_map(|c| {
                let value = u32::from(c);
                if little_endian {
                    value.to_le_bytes()
                } else {
                    value.to_be_bytes()
                }
            })
            .collect()
    }

    const GERMAN: &str = "Die Datei konnte nicht geöffnet werden.\nBitte erneut versuchen.";
    const RUSSIAN: &str = "Не удалось открыть файл: нет такого файла или каталога.";
    const GREEK: &str = "Δεν ήταν δυνατό το άνοιγμα του αρχείου (σφάλμα 2).";

    #[test]
    fn utf16_le_plain_text() {
        for text in [GERMAN, RUSSIAN, GREEK] {
            assert_eq!(
                wide_unicode_from_zero_bytes(&utf16(text, true)),
                Some(Suspect::Utf16Le),
                "{text}"
            );
        }
    }

    #[test]
    fn utf16_be_plain_text() {
        for text in [GERMAN, RUSSIAN, GREEK] {
            assert_eq!(
                wide_unicode_from_zero_bytes(&utf16(text, false)),
                Some(Suspect::Utf16Be),
                "{text}"
            );
        }
    }

    #[test]
    fn utf16_with_an_emoji_and_a_cut_surrogate() {
        let mut bytes = utf16("Fertig \u{1F600} und nichts mehr zu tun \u{1F600}", true);
        bytes.truncate(bytes.len() - 2);
        assert_eq!(wide_unicode_from_zero_bytes(&bytes), Some(Suspect::Utf16Le));
    }

    #[test]
    fn utf32_le_plain_text() {
        assert_eq!(
            wide_unicode_from_zero_bytes(&utf32(RUSSIAN, true)),
            Some(Suspect::Utf32Le)
        );
        assert_eq!(
            wide_unicode_from_zero_bytes(&utf32("Hi there", true)),
            Some(Suspect::Utf32Le)
        );
    }

    #[test]
    fn utf32_be_plain_text() {
        assert_eq!(
            wide_unicode_from_zero_bytes(&utf32(GERMAN, false)),
            Some(Suspect::Utf32Be)
        );
    }

    #[test]
    fn legacy_text_binary_and_too_little_are_not_wide() {
        let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(GERMAN);
        let (cyrillic, _, _) = encoding_rs::WINDOWS_1251.encode(RUSSIAN);
        let mut binary: Vec<u8> = (0u32..4096).flat_map(u32::to_le_bytes).collect();
        binary.extend(b"\x7FELF\x02\x01\x01\0\0\0\0\0\0\0\0\0");
        let header_and_text: Vec<u8> = [&[0u8; 16][..], &utf16(GERMAN, true)].concat();
        for bytes in [
            &latin1[..],
            &cyrillic[..],
            GERMAN.as_bytes(),
            &binary,
            &header_and_text,
            &utf16("Hello", true),
            &[0u8; 1000],
            b"",
        ] {
            assert_eq!(wide_unicode_from_zero_bytes(bytes), None, "{bytes:?}");
        }
    }
}
