//! Bytes that are not UTF-8 inside UTF-8 text, and what each stands for.
//!
//! Real stores are rarely garbled one way only: two programs writing one table leave raw
//! Windows-1252 bytes (`Caf\xE9`) beside correct UTF-8 and double-encoded UTF-8. A byte that is
//! not part of well-formed UTF-8 cannot be text as it stands, so reading it through the
//! single-byte page the rest of the text went through is the only reading left (what Perl's
//! Encoding::FixLatin does): no look-alike correct text can be damaged by it, since correct
//! UTF-8 never holds such a byte.
//!
//! Two ill-formed shapes are decoded instead of read byte by byte, because they are UTF-8 made
//! by a lax encoder rather than single-byte text:
//! - an *overlong* form of a non-ASCII character (`E0 83 9A` for `Ú`);
//! - a surrogate pair written as two three-byte forms (CESU-8, as Java's "modified UTF-8" and
//!   MySQL's `utf8mb3` clients write characters outside the BMP).
//!
//! Three shapes are kept as they are, whatever is asked: an overlong form of an ASCII
//! character (`C0 BC` for `<`), because decoding it is how input filters are bypassed; an
//! encoded surrogate half with no partner, which stands for no character; and a character cut
//! short, a lead byte with the right continuation bytes but too few of them (`E2 82` of `€`, as
//! a column limit in bytes or a buffer cut leaves it), which is UTF-8 that lost bytes, not
//! single-byte text: read as Windows-1252 it would become `â‚`, new mojibake. A lone lead
//! byte is converted (`\xC9cole` is `École`): it is what single-byte text holds every day.
//!
//! [`RawPieces`] walks a buffer's invalid stretches, found by the validator, and cuts them
//! into [`RawPiece`]s: stretches to convert, and single forms to keep.

use std::ops::Range;

use super::codepage::{CodePage, ReadingMask};
use super::matcher::RepairedChar;

/// What one piece of a stretch of invalid bytes is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    /// Bytes read one by one through the page (and overlong or CESU-8 forms of non-ASCII
    /// characters, decoded), all converted.
    Converted,
    /// An overlong form of this ASCII character: kept.
    OverlongAscii(char),
    /// An encoded surrogate half with no partner: kept.
    LoneSurrogate,
    /// A UTF-8 character cut short, this many bytes of it left: kept.
    CutCharacter(u8),
}

/// One piece of a stretch of bytes that is not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawPiece {
    pub span: Range<usize>,
    pub kind: RawKind,
}

/// A form that is not single-byte text, at the start of some bytes.
enum Form {
    /// Decoded to this non-ASCII character, `len` bytes long.
    Decoded(char, usize),
    OverlongAscii(char, usize),
    LoneSurrogate(usize),
    /// The first `len` bytes of a character, the rest lost.
    Cut(usize),
}

pub(super) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The overlong, CESU-8, surrogate or cut form at the start of `bytes`, if there is one.
fn form_at(bytes: &[u8]) -> Option<Form> {
    lax_form_at(bytes).or_else(|| cut_at(bytes))
}

/// The longest start of a well-formed character at the start of `bytes`: two bytes or more
/// is a cut character.
fn cut_at(bytes: &[u8]) -> Option<Form> {
    let window = &bytes[..bytes.len().min(4)];
    match simdutf8::compat::from_utf8(window) {
        Err(error) if error.valid_up_to() == 0 => match error.error_len() {
            Some(len) if len >= 2 => Some(Form::Cut(len)),
            None if window.len() >= 2 => Some(Form::Cut(window.len())),
            _ => None,
        },
        _ => None,
    }
}

/// The overlong, CESU-8 or surrogate form a lax encoder wrote at the start of `bytes`.
fn lax_form_at(bytes: &[u8]) -> Option<Form> {
    let continuation = |i: usize| bytes.get(i).copied().filter(|&b| is_continuation(b));
    let lead = *bytes.first()?;
    let overlong = |cp: u32, len: usize| match char::from_u32(cp)? {
        c if c.is_ascii() => Some(Form::OverlongAscii(c, len)),
        c => Some(Form::Decoded(c, len)),
    };
    match lead {
        0xC0 | 0xC1 => {
            let b1 = continuation(1)?;
            overlong((u32::from(lead & 0x1F) << 6) | u32::from(b1 & 0x3F), 2)
        }
        0xE0 => {
            let b1 = continuation(1).filter(|&b| b < 0xA0)?;
            let b2 = continuation(2)?;
            overlong((u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F), 3)
        }
        0xF0 => {
            let b1 = continuation(1).filter(|&b| b < 0x90)?;
            let (b2, b3) = (continuation(2)?, continuation(3)?);
            let cp = (u32::from(b1 & 0x3F) << 12) | (u32::from(b2 & 0x3F) << 6);
            overlong(cp | u32::from(b3 & 0x3F), 4)
        }
        0xED => {
            let high = continuation(1).filter(|&b| b >= 0xA0)?;
            let b2 = continuation(2)?;
            let half = 0xD000 | (u32::from(high & 0x3F) << 6) | u32::from(b2 & 0x3F);
            let low = match (bytes.get(3), bytes.get(4), bytes.get(5)) {
                (Some(0xED), Some(&b4 @ 0xB0..=0xBF), Some(&b5)) if is_continuation(b5) => {
                    Some(0xD000 | (u32::from(b4 & 0x3F) << 6) | u32::from(b5 & 0x3F))
                }
                _ => None,
            };
            match (half, low) {
                (0xD800..=0xDBFF, Some(low)) => {
                    let cp = 0x10000 + ((half - 0xD800) << 10) + (low - 0xDC00);
                    char::from_u32(cp).map(|c| Form::Decoded(c, 6))
                }
                _ => Some(Form::LoneSurrogate(3)),
            }
        }
        _ => None,
    }
}

/// The length of the form a lax UTF-8 encoder wrote at the start of `bytes`, if there is one:
/// an overlong form, a CESU-8 surrogate pair or a lone encoded surrogate. Such bytes are
/// UTF-8 by their shape, whatever they decode to, which single-byte text almost never is:
/// what tells a CESU-8 file from one in a legacy encoding.
pub fn lax_utf8_len(bytes: &[u8]) -> Option<usize> {
    match lax_form_at(bytes)? {
        Form::Decoded(_, len) | Form::OverlongAscii(_, len) | Form::LoneSurrogate(len) => Some(len),
        Form::Cut(_) => None,
    }
}

/// Where the next byte that is not part of well-formed UTF-8 lies at or after `from`, and how
/// long the ill-formed sequence starting there is (to the end for one cut by it).
fn next_invalid(input: &[u8], from: usize) -> Option<Range<usize>> {
    let rest = input.get(from..)?;
    let error = simdutf8::compat::from_utf8(rest).err()?;
    let start = from + error.valid_up_to();
    let len = error.error_len().unwrap_or(input.len() - start);
    Some(start..start + len)
}

/// The pieces of the invalid stretches of a buffer, in order.
pub struct RawPieces<'a> {
    input: &'a [u8],
    /// Whether the buffer holds an invalid byte at all: most buffers are valid, and then the
    /// validator has run once and nothing else.
    any: bool,
    /// The end of the invalid stretch the last piece was cut from, and the next pieces of it.
    stretch_end: usize,
    at: usize,
    /// The invalid sequence found after the stretch while looking for its end: the start of
    /// the next stretch, so the bytes between are validated once.
    ahead: Option<Range<usize>>,
}

impl<'a> RawPieces<'a> {
    pub fn new(input: &'a [u8]) -> RawPieces<'a> {
        RawPieces::known(input, simdutf8::basic::from_utf8(input).is_err())
    }

    /// The pieces of `input`, known to hold some (`any`) or none: no validation first.
    pub(crate) fn known(input: &'a [u8], any: bool) -> RawPieces<'a> {
        RawPieces {
            input,
            any,
            stretch_end: 0,
            at: 0,
            ahead: None,
        }
    }

    /// The next piece that starts at or after `from`; calls come with `from` never going back.
    pub fn next_from(&mut self, from: usize) -> Option<RawPiece> {
        if !self.any {
            return None;
        }
        self.at = self.at.max(from);
        if self.at >= self.stretch_end {
            let first = match self.ahead.take() {
                Some(ahead) if ahead.start >= self.at => ahead,
                _ => next_invalid(self.input, self.at)?,
            };
            self.at = first.start;
            self.stretch_end = first.end;
            // Sequences that follow without a valid character between belong to the stretch.
            while let Some(next) = next_invalid(self.input, self.stretch_end) {
                if next.start > self.stretch_end {
                    self.ahead = Some(next);
                    break;
                }
                self.stretch_end = next.end;
            }
        }
        let start = self.at;
        let mut end = start;
        while end < self.stretch_end {
            match form_at(&self.input[end..self.stretch_end]) {
                Some(Form::OverlongAscii(c, len)) if end == start => {
                    self.at = end + len;
                    return Some(RawPiece {
                        span: end..end + len,
                        kind: RawKind::OverlongAscii(c),
                    });
                }
                Some(Form::LoneSurrogate(len)) if end == start => {
                    self.at = end + len;
                    return Some(RawPiece {
                        span: end..end + len,
                        kind: RawKind::LoneSurrogate,
                    });
                }
                Some(Form::Cut(len)) if end == start => {
                    self.at = end + len;
                    return Some(RawPiece {
                        span: end..end + len,
                        kind: RawKind::CutCharacter(len as u8),
                    });
                }
                Some(Form::OverlongAscii(..) | Form::LoneSurrogate(_) | Form::Cut(_)) => break,
                Some(Form::Decoded(_, len)) => end += len,
                None => end += 1,
            }
        }
        self.at = end;
        Some(RawPiece {
            span: start..end,
            kind: RawKind::Converted,
        })
    }
}

/// The characters a converted piece of `input` decodes to, through `page` (whose bit in the
/// scanner's readings is `mask`), into `out`: each with no layer of double encoding removed,
/// which is what marks a character as decoded from bytes that were not UTF-8. `None` for a
/// byte the page leaves undefined (then the piece stays as it is).
pub fn decode_piece(
    input: &[u8],
    span: Range<usize>,
    page: &CodePage,
    mask: ReadingMask,
    out: &mut Vec<RepairedChar>,
) -> Option<()> {
    out.clear();
    let mut at = span.start;
    while at < span.end {
        let (original, len) = match form_at(&input[at..span.end]) {
            Some(Form::Decoded(c, len)) => (c, len),
            _ => (page.decode(input[at])?, 1),
        };
        let bytes = &input[at..at + len];
        out.push(RepairedChar {
            span: at..at + len,
            original,
            mask,
            layers: 0,
            // What `Counts` took for characters (lead bytes) among these bytes, so that they
            // are not counted as non-ASCII text that is fine.
            garbled_chars: bytes.iter().filter(|&&b| b >= 0xC0).count() as u32,
        });
        at += len;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::codepage::{LATIN1, WINDOWS_1252};

    fn pieces(input: &[u8]) -> Vec<(Range<usize>, RawKind)> {
        let mut raw = RawPieces::new(input);
        let mut from = 0;
        let mut out = Vec::new();
        while let Some(piece) = raw.next_from(from) {
            from = piece.span.end;
            out.push((piece.span, piece.kind));
        }
        out
    }

    fn converted(input: &[u8], page: &CodePage) -> String {
        let mut out = String::new();
        let mut chars = Vec::new();
        let mut from = 0;
        let mut raw = RawPieces::new(input);
        while let Some(piece) = raw.next_from(from) {
            out.push_str(&String::from_utf8_lossy(&input[from..piece.span.start]));
            from = piece.span.end;
            match piece.kind {
                RawKind::Converted
                    if decode_piece(
                        input,
                        piece.span.clone(),
                        page,
                        ReadingMask(1),
                        &mut chars,
                    )
                    .is_some() =>
                {
                    out.extend(chars.iter().map(|c| c.original));
                }
                _ => out.push('\u{FFFD}'),
            }
        }
        out.push_str(&String::from_utf8_lossy(&input[from..]));
        out
    }

    #[test]
    fn valid_utf8_has_no_pieces() {
        assert!(pieces("Café, naïve, ’, 😀".as_bytes()).is_empty());
    }

    #[test]
    fn raw_bytes_are_read_through_the_page() {
        assert_eq!(converted(b"Caf\xE9", &WINDOWS_1252), "Café");
        assert_eq!(
            converted(b"\xA0\xC2\xA0\xA0", &WINDOWS_1252),
            "\u{A0}\u{A0}\u{A0}"
        );
        assert_eq!(converted(b"P\xC3\xA3n Caf\xE9", &WINDOWS_1252), "Pãn Café");
        assert_eq!(converted(b"\x80\x81\x82", &WINDOWS_1252), "€\u{81}‚");
        assert_eq!(converted(b"\x80", &LATIN1), "\u{80}");
        // A lead byte followed by ASCII, a lone continuation byte, a lead byte at the end.
        assert_eq!(converted(b"\xC3t \xA9 \xE2", &WINDOWS_1252), "Ãt © â");
        assert_eq!(converted(b"\xC9cole \xDCber", &WINDOWS_1252), "École Über");
    }

    #[test]
    fn adjacent_invalid_sequences_are_one_piece() {
        assert_eq!(pieces(b"a\xE9\xE8\xC3b"), [(1..4, RawKind::Converted)]);
        assert_eq!(
            pieces(b"\xE9 \xE8"),
            [(0..1, RawKind::Converted), (2..3, RawKind::Converted)]
        );
    }

    #[test]
    fn overlong_forms_of_non_ascii_are_decoded_and_of_ascii_kept() {
        assert_eq!(converted(b"\xE0\x83\x9A", &WINDOWS_1252), "Ú");
        assert_eq!(converted(b"\xF0\x80\x83\x9A", &WINDOWS_1252), "Ú");
        assert_eq!(
            pieces(b"a\xC0\xBCscript\xC0\xBE"),
            [
                (1..3, RawKind::OverlongAscii('<')),
                (9..11, RawKind::OverlongAscii('>'))
            ]
        );
        assert_eq!(
            pieces(b"\xE9\xE0\x80\xAF\xE9"),
            [
                (0..1, RawKind::Converted),
                (1..4, RawKind::OverlongAscii('/')),
                (4..5, RawKind::Converted)
            ]
        );
    }

    #[test]
    fn characters_cut_short_are_kept() {
        assert_eq!(
            pieces(b"5 \xE2\x82\r\n"),
            [(2..4, RawKind::CutCharacter(2))]
        );
        assert_eq!(pieces(b"\xF0\x9F\x98"), [(0..3, RawKind::CutCharacter(3))]);
        assert_eq!(
            pieces(b"\xE9\xE2\x82\xE9"),
            [
                (0..1, RawKind::Converted),
                (1..3, RawKind::CutCharacter(2)),
                (3..4, RawKind::Converted)
            ]
        );
        // Not the start of a well-formed character: single bytes.
        assert_eq!(converted(b"\xE0\x80", &WINDOWS_1252), "à€");
    }

    #[test]
    fn cesu8_pairs_are_decoded_and_lone_halves_kept() {
        // U+1F600 as CESU-8: D83D DE00.
        assert_eq!(
            converted(b"x\xED\xA0\xBD\xED\xB8\x80y", &WINDOWS_1252),
            "x😀y"
        );
        assert_eq!(pieces(b"\xED\xA0\xBDz"), [(0..3, RawKind::LoneSurrogate)]);
        assert_eq!(pieces(b"\xED\xB8\x80"), [(0..3, RawKind::LoneSurrogate)]);
    }

    #[test]
    fn every_byte_of_any_input_is_in_a_piece_or_valid() {
        // Every two-byte input, and some three-byte ones: the pieces tile the invalid bytes.
        for a in 0..=255u8 {
            for b in [0x41u8, 0x80, 0xA0, 0xBF, 0xC3, 0xE0, 0xED, 0xF0, 0xFF] {
                for c in [0x80u8, 0x9A, 0xBD, 0x20] {
                    let input = [a, b, c, 0xED, 0xB8, 0x80];
                    let mut kept = Vec::new();
                    let mut from = 0;
                    for (span, _) in pieces(&input) {
                        kept.extend_from_slice(&input[from..span.start]);
                        from = span.end;
                    }
                    kept.extend_from_slice(&input[from..]);
                    assert!(std::str::from_utf8(&kept).is_ok(), "{input:02X?}");
                }
            }
        }
    }
}
