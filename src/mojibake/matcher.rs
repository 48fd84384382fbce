//! The strict byte pattern: where a double-encoded sequence starts, and what it decodes to.
//!
//! A UTF-8 character of `n + 1` bytes, read through a code page, becomes `n + 1` characters:
//! one for the lead byte (`C2..=F4`) and one for each continuation byte (`80..=BF`). The
//! matcher decodes the characters at a position, maps each back to its byte through
//! [`Readings`], and accepts only when the bytes form one well-formed UTF-8 character: no
//! overlong form (`C0`, `C1`, `E0 80..9F`, `F0 80..8F`), no surrogate (`ED A0..BF`), nothing above
//! U+10FFFF (`F4 90..`, `F5..`). That strictness is the first line of defence for clean text.
//! The one exception is CESU-8, the UTF-8 variant that Java and MySQL's 3-byte `utf8` write:
//! a character beyond the BMP as its two surrogates, three bytes each. A high surrogate
//! followed at once by a low one is one character (`í\u{a0}½í¸\u{8d}` → `😍`); a lone
//! surrogate is still no match.
//!
//! Every match begins with a character that stands for a lead byte; for the Western pages that
//! character is one of `Â..ô` (U+00C2..U+00F4), all encoded with the byte `0xC3` first. The
//! matcher only runs where [`super::candidates`] says a match could start.

use std::ops::Range;

use super::classes::MarkerTraits;
use super::codepage::{ByteOrigin, ReadingMask, Readings, is_lead_byte};

/// One double-encoded character: where its garbled form ends and what it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoubleEncodedMatch {
    /// Length of the garbled form in bytes.
    pub len: usize,
    /// How many characters the garbled form is made of: one per byte of the original, six
    /// for a CESU-8 pair.
    pub chars: u8,
    /// The character it stands for (its bytes are the UTF-8 that was misread).
    pub original: char,
    /// The code pages under which every garbled character maps back to its byte.
    pub mask: ReadingMask,
    /// What the garbled character of the lead byte can tell the rule's markers.
    pub lead_traits: MarkerTraits,
    /// The same for the garbled characters of the continuation bytes, together.
    pub tail_traits: MarkerTraits,
}

/// One character a run repairs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepairedChar {
    /// Where its garbled form lies in the scanned buffer.
    pub span: Range<usize>,
    /// The character the writer meant.
    pub original: char,
    /// The code pages that explain every layer of its garbling.
    pub mask: ReadingMask,
    /// How many layers of double encoding were removed to reach it (1 for double-encoded,
    /// 2 for triple-encoded, ...); 0 for a character decoded from bytes that were not UTF-8
    /// ([`super::raw`]).
    pub layers: u8,
    /// How many characters its garbled form in the buffer is made of.
    pub garbled_chars: u32,
}

/// Decodes the UTF-8 character at the start of `bytes`, if there is a valid one.
#[inline]
pub fn decode_char(bytes: &[u8]) -> Option<(char, usize)> {
    match *bytes.first()? {
        b @ 0x00..=0x7F => Some((char::from(b), 1)),
        // Two-byte characters, most of what the matcher reads, without the general decoder.
        lead @ 0xC2..=0xDF => match bytes.get(1) {
            Some(&next @ 0x80..=0xBF) => {
                let cp = (u32::from(lead & 0x1F) << 6) | u32::from(next & 0x3F);
                char::from_u32(cp).map(|c| (c, 2))
            }
            _ => None,
        },
        _ => match bstr::decode_utf8(bytes) {
            (Some(ch), len) => Some((ch, len)),
            (None, _) => None,
        },
    }
}

/// Where the character that ends right before `at` starts: the last byte before `at` that is
/// no continuation byte, at most four back and no earlier than `floor`. In well-formed UTF-8
/// that is the character's first byte; `None` when the bytes before `at` are continuation
/// bytes only (no character of them ends there, so no match does).
#[inline]
pub(crate) fn start_of_char_before(bytes: &[u8], at: usize, floor: usize) -> Option<usize> {
    let from = at.saturating_sub(4).max(floor);
    let before = bytes.get(from..at)?;
    (before.iter())
        .rposition(|&b| b & 0xC0 != 0x80)
        .map(|k| from + k)
}

/// Decodes the UTF-8 character that ends just before `bytes.len()`, if there is a valid one.
#[inline]
pub fn decode_last_char(bytes: &[u8]) -> Option<char> {
    match bytes.last()? {
        &b @ 0x00..=0x7F => Some(char::from(b)),
        _ => bstr::decode_last_utf8(bytes).0,
    }
}

/// Tries to match one double-encoded character at `bytes[at..]`.
#[inline]
pub fn match_at(readings: &Readings, bytes: &[u8], at: usize) -> Option<DoubleEncodedMatch> {
    let rest = bytes.get(at..)?;
    let (lead, lead_len) = readings.origin_at(rest)?;
    // Two-byte characters (U+0080..U+07FF: the accented letters, Greek, Cyrillic, Hebrew,
    // Arabic) are most of what garbled text holds, and every such pair is well-formed: they
    // take the short way.
    if let 0xC2..=0xDF = lead.byte {
        let (next, len) = continuation_at(readings, rest, lead_len)?;
        let code_point = (u32::from(lead.byte & 0x1F) << 6) | u32::from(next.byte & 0x3F);
        let mask = lead.mask.and(next.mask);
        if mask.is_empty() {
            return None;
        }
        return Some(DoubleEncodedMatch {
            len: lead_len + len,
            chars: 2,
            original: char::from_u32(code_point)?,
            mask,
            lead_traits: lead.traits,
            tail_traits: next.traits,
        });
    }
    if !is_lead_byte(lead.byte) {
        return None;
    }
    let continuations = match lead.byte {
        0xE0..=0xEF => 2,
        _ => 3,
    };
    let mut original = [lead.byte, 0, 0, 0];
    let mut mask = lead.mask;
    let mut tail_traits = MarkerTraits::default();
    let mut pos = lead_len;
    for slot in original.iter_mut().skip(1).take(continuations) {
        let (origin, len) = continuation_at(readings, rest, pos)?;
        *slot = origin.byte;
        mask = mask.and(origin.mask);
        tail_traits = tail_traits.union(origin.traits);
        pos += len;
    }
    if mask.is_empty() {
        return None;
    }
    // The lead fixed the length and every continuation is in range; what is left of
    // well-formedness is the second byte's range after E0, ED, F0 and F4 (no overlong, no
    // surrogate, nothing above U+10FFFF).
    let second_in_range = match original[0] {
        0xE0 => original[1] >= 0xA0,
        0xED => original[1] <= 0x9F,
        0xF0 => original[1] >= 0x90,
        0xF4 => original[1] <= 0x8F,
        _ => true,
    };
    if !second_in_range {
        // CESU-8 (Java's and MySQL's 3-byte `utf8` write a character beyond the BMP as its
        // two UTF-16 surrogates, each as three bytes): a high surrogate garbled, then a low
        // one, stand together for one character.
        return match original[1] {
            0xA0..=0xAF if original[0] == 0xED => {
                let high = Half {
                    bytes: [original[1], original[2]],
                    mask,
                    lead_traits: lead.traits,
                    tail_traits,
                };
                cesu8_pair(readings, rest, pos, high)
            }
            _ => None,
        };
    }
    let payload = original[1..=continuations].iter().fold(
        u32::from(original[0]) & (0x7F >> (continuations + 1)),
        |cp, &b| (cp << 6) | u32::from(b & 0x3F),
    );
    let original = char::from_u32(payload)?;
    Some(DoubleEncodedMatch {
        len: pos,
        chars: 1 + continuations as u8,
        original,
        mask,
        lead_traits: lead.traits,
        tail_traits,
    })
}

/// The garbled character at `rest[pos..]` when it stands for a continuation byte
/// (`80..=BF`), and its length.
#[inline(always)]
fn continuation_at(readings: &Readings, rest: &[u8], pos: usize) -> Option<(ByteOrigin, usize)> {
    let (origin, len) = readings.origin_at(rest.get(pos..)?)?;
    (0x80..=0xBF)
        .contains(&origin.byte)
        .then_some((origin, len))
}

/// The garbled high half of a CESU-8 surrogate pair, as [`match_at`] read it.
struct Half {
    /// Its last two bytes (`A0..AF xx`; the first is `ED`).
    bytes: [u8; 2],
    mask: ReadingMask,
    lead_traits: MarkerTraits,
    tail_traits: MarkerTraits,
}

/// The character of a garbled CESU-8 surrogate pair whose high half (`ED A0..AF xx`) ends at
/// `rest[pos..]`, when a garbled low half (`ED B0..BF xx`) follows. The pair has one lead, the
/// high half's: every character after it, the low half's `í` for `ED` too, is of its tail.
fn cesu8_pair(
    readings: &Readings,
    rest: &[u8],
    mut pos: usize,
    high: Half,
) -> Option<DoubleEncodedMatch> {
    let Half {
        bytes: high,
        mut mask,
        lead_traits,
        mut tail_traits,
    } = high;
    let mut low = [0u8; 3];
    for (i, slot) in low.iter_mut().enumerate() {
        let (origin, len) = readings.origin_at(rest.get(pos..)?)?;
        let wanted = match i {
            0 => 0xED..=0xED,
            1 => 0xB0..=0xBF,
            _ => 0x80..=0xBF,
        };
        if !wanted.contains(&origin.byte) {
            return None;
        }
        *slot = origin.byte;
        mask = mask.and(origin.mask);
        tail_traits = tail_traits.union(origin.traits);
        pos += len;
    }
    if mask.is_empty() {
        return None;
    }
    let unit = |b1: u8, b2: u8| (u32::from(b1 & 0x0F) << 6) | u32::from(b2 & 0x3F);
    let code_point =
        0x10000 + ((unit(high[0], high[1]) & 0x3FF) << 10) + (unit(low[1], low[2]) & 0x3FF);
    Some(DoubleEncodedMatch {
        len: pos,
        chars: 6,
        original: char::from_u32(code_point)?,
        mask,
        lead_traits,
        tail_traits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_character_before_starts_at_its_first_byte() {
        let text = "aé€😀".as_bytes();
        let starts: Vec<Option<usize>> = (1..=text.len())
            .map(|at| start_of_char_before(text, at, 0))
            .collect();
        // After each byte: the start of the character that byte belongs to.
        let expected = [0, 1, 1, 3, 3, 3, 6, 6, 6, 6].map(Some);
        assert_eq!(starts, expected);
        // No earlier than the floor; continuation bytes alone start nothing.
        assert_eq!(start_of_char_before(text, 6, 4), None);
        assert_eq!(start_of_char_before(b"\x80\x80\x80\x80\x80", 5, 0), None);
        assert_eq!(start_of_char_before(b"a\x80\x80\x80\x80", 5, 0), None);
        assert_eq!(start_of_char_before(b"a\x80\x80\x80", 4, 0), Some(0));
    }

    fn one(text: &[u8]) -> Option<(char, usize, &'static str)> {
        let readings = Readings::western();
        let found = match_at(&readings, text, 0)?;
        Some((found.original, found.len, readings.reading_name(found.mask)))
    }

    #[test]
    fn documented_ranges_match_and_decode() {
        // One case per range of the documented byte pattern, at both ends of the range.
        let cases: &[(&str, char)] = &[
            ("\u{c2}\u{80}", '\u{80}'),
            ("\u{df}\u{bf}", '\u{7ff}'),
            ("\u{e0}\u{a0}\u{80}", '\u{800}'),
            ("\u{e0}\u{bf}\u{bf}", '\u{fff}'),
            ("\u{e1}\u{80}\u{80}", '\u{1000}'),
            ("\u{ec}\u{bf}\u{bf}", '\u{cfff}'),
            ("\u{ed}\u{80}\u{80}", '\u{d000}'),
            ("\u{ed}\u{9f}\u{bf}", '\u{d7ff}'),
            ("\u{ee}\u{80}\u{80}", '\u{e000}'),
            ("\u{ef}\u{bf}\u{bf}", '\u{ffff}'),
            ("\u{f0}\u{90}\u{80}\u{80}", '\u{10000}'),
            ("\u{f0}\u{bf}\u{bf}\u{bf}", '\u{3ffff}'),
            ("\u{f1}\u{80}\u{80}\u{80}", '\u{40000}'),
            ("\u{f3}\u{bf}\u{bf}\u{bf}", '\u{fffff}'),
            ("\u{f4}\u{80}\u{80}\u{80}", '\u{100000}'),
            ("\u{f4}\u{8f}\u{bf}\u{bf}", '\u{10ffff}'),
        ];
        for &(garbled, original) in cases {
            let found = one(garbled.as_bytes()).map(|(c, len, _)| (c, len));
            assert_eq!(found, Some((original, garbled.len())), "{garbled:?}");
        }
    }

    #[test]
    fn ill_formed_originals_are_not_matches() {
        for garbled in [
            "\u{c0}\u{80}",             // overlong lead C0
            "\u{c1}\u{bf}",             // overlong lead C1
            "\u{e0}\u{9f}\u{bf}",       // overlong 3-byte
            "\u{ed}\u{a0}\u{80}",       // surrogate D800
            "\u{ed}\u{bf}\u{bf}",       // surrogate DFFF
            "\u{f0}\u{8f}\u{bf}\u{bf}", // overlong 4-byte
            "\u{f4}\u{90}\u{80}\u{80}", // above U+10FFFF
            "\u{f5}\u{80}\u{80}\u{80}", // F5 is never a lead
            "\u{c3}",                   // cut by the end
            "\u{e2}\u{80}",             // cut by the end
            "\u{c3}A",                  // ASCII is no continuation
            "\u{c3}\u{c3}",             // a lead is no continuation
        ] {
            assert_eq!(one(garbled.as_bytes()), None, "{garbled:?}");
        }
    }

    #[test]
    fn readings_are_told_apart() {
        assert_eq!(one("Ã©".as_bytes()), Some(('é', 4, "either")));
        assert_eq!(one("â€™".as_bytes()), Some(('’', 8, "cp1252")));
        assert_eq!(one("â\u{80}\u{99}".as_bytes()), Some(('’', 6, "latin1")));
        assert_eq!(one("â€\u{99}".as_bytes()), Some(('’', 7, "mixed")));
        // The five bytes Windows-1252 leaves undefined are C1 controls under both readings.
        assert_eq!(one("Ã\u{81}".as_bytes()), Some(('Á', 4, "either")));
    }
}
