//! Telling a file in another encoding (Windows-1252, ISO-8859-2, UTF-16, ...) from a UTF-8
//! file with a few bad bytes, and which encoding it is in: what `fix` asks of every input
//! before it writes anything.
//!
//! `fix` repairs UTF-8 that went through a single-byte code page. A file that is not UTF-8 at
//! all holds nothing of the kind: "repairing" it would leave it as it was and call it done. So
//! `fix` asks what an input is ([`classify`]; for a dump, [`crate::dump::classify`], which
//! leaves its blobs out), passes legacy inputs on unchanged and names them, and with
//! `--transcode` converts them instead (`engine::transcode`). The question must be answered
//! before any output is written, the same way for a file and for a stream that can be read only
//! once, and must not mistake a UTF-8 file with a truncated character for a legacy one: the
//! non-ASCII bytes of legacy text are almost never well-formed UTF-8, while a damaged UTF-8
//! file has a few bad bytes among many good ones.
//!
//! # The rule
//!
//! The rule reads the input's head, its first [`JUDGED_HEAD`] bytes (the first block), and
//! nothing else. An input is legacy when
//!
//! 1. it starts with a UTF-16 or UTF-32 byte order mark, or its first character after white
//!    space is `<` in UTF-16 or UTF-32, or its zero bytes fall as in UTF-16 or UTF-32 text
//!    (the structure [`crate::charset`] reads): that encoding, for certain; or
//! 2. its head is not valid UTF-8, and in its sample — its first [`SAMPLE_LIMIT`] bytes, and
//!    as many from the start of the line holding the first invalid byte, within the head — at
//!    least [`MIN_INVALID_SEQUENCES`] sequences are invalid and their bytes are more than half
//!    of the sample's non-ASCII bytes. The forms of lax UTF-8 encoders (overlong forms, CESU-8
//!    surrogate pairs, as Java and MySQL's `utf8mb3` write them) count as UTF-8: they have its
//!    shape, and a file of them is UTF-8 whose every such form `fix` decodes. The encoding is `chardetng`'s guess from the same
//!    sample, with its confidence ([`Confidence`]).
//!
//! An input that looks binary (a NUL byte in its first 8 KiB) and is not UTF-16/32 by rule 1
//! is never legacy: binary is not text in any encoding. Anything else is UTF-8, perhaps with
//! stray invalid bytes, and is repaired, those bytes read as the characters of the raw-byte
//! reading ([`crate::mojibake::raw`]): an input whose head is valid UTF-8 is mostly UTF-8,
//! whatever invalid bytes come later. Nothing is decoded to decide, and no pass over the whole
//! input is needed before the one that repairs it.
//!
//! A legacy file is not converted byte by byte in the same way, even when it is in the very
//! encoding raw bytes are read through: changing a file's encoding is another operation than
//! repairing its text (its own declarations, `<?xml encoding=…?>`, `<meta charset>`, name the
//! old one), and `fix` does it only when asked to (`--transcode`).

use std::convert::Infallible;
use std::ops::Range;

use super::Input;
use crate::charset::{
    ByteEvidence, Confidence, DEFAULT_SUSPECTS, DetectionMethod, KnownEncoding,
    encoding_from_byte_order_mark,
};
use crate::error::Error;
use crate::mojibake::raw;

/// How much of a file the rule samples, twice: from its start, and from the line of its first
/// invalid byte. Enough text for `chardetng`, little enough to read in no time.
pub(crate) const SAMPLE_LIMIT: usize = 64 << 10;

/// How far back from the first invalid byte the start of its line is looked for; a longer line
/// is sampled from this far back.
const LINE_LOOKBACK: u64 = 4 << 10;

/// The invalid sequences a sample needs before its file can be legacy: one to three stray
/// sequences (a truncated character, a byte flipped) never make a file legacy, however little
/// else is non-ASCII around them.
pub(crate) const MIN_INVALID_SEQUENCES: usize = 4;

/// What a file is, for `fix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TextKind {
    /// UTF-8, perhaps with a few invalid bytes (kept as they are): repaired as usual.
    Utf8,
    /// In another encoding.
    Legacy(Legacy),
    /// Looks binary (a NUL byte in its first 8 KiB): skipped, or repaired as UTF-8 when asked.
    Binary,
}

/// A file that is not UTF-8: the encoding it is in, as far as the evidence goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Legacy {
    pub encoding: KnownEncoding,
    pub basis: Basis,
}

/// What the encoding of a legacy file rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// A UTF-16/32 byte order mark.
    ByteOrderMark,
    /// `<` in UTF-16/32 as the first character.
    FirstCharacters,
    /// Zero bytes where UTF-16/32 text has them, over the whole head.
    ZeroBytes,
    /// `chardetng`'s statistical guess; the file is valid UTF-8 up to `first_invalid_offset`.
    Guess {
        confidence: Confidence,
        first_invalid_offset: u64,
    },
}

impl Legacy {
    /// What the file looks like, for messages: `looks like windows-1252; first invalid byte
    /// at offset 12`, `UTF-16LE by its byte order mark`, ...
    pub(crate) fn describe(&self) -> String {
        let name = self.encoding.name();
        match self.basis {
            Basis::ByteOrderMark => format!("{name} by its byte order mark"),
            Basis::FirstCharacters => format!("{name} by its first characters"),
            Basis::ZeroBytes => format!("{name} by where its zero bytes fall"),
            Basis::Guess {
                confidence,
                first_invalid_offset,
            } => {
                let doubt = match confidence {
                    Confidence::High => "",
                    Confidence::Low => ", a low-confidence guess",
                };
                format!(
                    "looks like {name}{doubt}; first invalid byte at offset {first_invalid_offset}"
                )
            }
        }
    }

    /// The encoding to convert the file from: the byte order mark's (it wins over `from`, as
    /// in the WHATWG decode algorithm), else `from`, else the encoding detected unless it is
    /// a low-confidence guess. The error says why there is none, for a person.
    pub(crate) fn source_encoding(
        &self,
        from: Option<KnownEncoding>,
    ) -> Result<KnownEncoding, &'static str> {
        let decodable = match self.encoding {
            KnownEncoding::Whatwg(_) | KnownEncoding::Oem(_) => Ok(self.encoding),
            KnownEncoding::Utf32Le | KnownEncoding::Utf32Be => {
                Err("encoding_rs has no UTF-32 decoder, so --transcode cannot convert it")
            }
        };
        match (self.basis, from) {
            (Basis::ByteOrderMark, _) => decodable,
            (_, Some(from)) => Ok(from),
            (
                Basis::Guess {
                    confidence: Confidence::Low,
                    ..
                },
                None,
            ) => {
                Err("the guess is too weak to convert by: --transcode --from ENCODING converts it")
            }
            (_, None) => decodable,
        }
    }
}

/// How much of an input the rule reads: its first block. Everything is judged from these
/// bytes, read before any output is written, so that a stream (which cannot be read twice)
/// and a file are judged alike, and a skipped input can still be passed on whole.
pub(crate) const JUDGED_HEAD: usize = super::blocks::BLOCK_SIZE;

/// Tells what `input` is, by the rule in the module documentation, from its head.
pub(crate) fn classify(input: &Input) -> Result<TextKind, Error> {
    Ok(classify_head(&input.head(JUDGED_HEAD)?))
}

/// [`classify`] for an input whose first [`JUDGED_HEAD`] bytes (or all of it, if shorter) are
/// `head`: for a caller that has read them already.
pub(crate) fn classify_head(head: &[u8]) -> TextKind {
    if let Some(kind) = by_structure(head) {
        return kind;
    }
    match first_invalid_in_head(head) {
        None => TextKind::Utf8,
        Some(first_invalid) => judge_head(head, first_invalid),
    }
}

/// The part of the rule that the structure of the start decides, before any text is judged:
/// UTF-16/32 (rule 1), and binary. `None` leaves the verdict to the bytes: for a dump, to a
/// [`crate::dump::classify`], which tells its text from the raw bytes of its blobs.
pub(crate) fn classify_structure(input: &Input) -> Result<Option<TextKind>, Error> {
    Ok(by_structure(&input.head(SAMPLE_LIMIT)?))
}

/// [`classify_head`] for the head of an input already known to be well-formed UTF-8 (a scan
/// counted no invalid byte): only its structure is left to judge, not its bytes again.
pub(crate) fn classify_valid_head(head: &[u8]) -> TextKind {
    by_structure(head).unwrap_or(TextKind::Utf8)
}

fn by_structure(head: &[u8]) -> Option<TextKind> {
    let start = &head[..head.len().min(SAMPLE_LIMIT)];
    // UTF-16 and UTF-32 without a byte order mark, and binary data, all hold a zero byte in
    // the start: one search answers all three for most files.
    let first_zero = memchr::memchr(0, start);
    if let Some(wide) = wide_unicode(start, first_zero.is_some()) {
        return Some(TextKind::Legacy(wide));
    }
    first_zero
        .filter(|&at| at < super::SNIFF_LIMIT)
        .map(|_| TextKind::Binary)
}

/// The offset of the first byte of `head` that is not well-formed UTF-8. A character cut by
/// the end of a head that is shorter than [`JUDGED_HEAD`] is cut by the end of the input:
/// invalid; one cut by the limit is not judged.
fn first_invalid_in_head(head: &[u8]) -> Option<u64> {
    let error = simdutf8::compat::from_utf8(head).err()?;
    match error.error_len() {
        None if head.len() >= JUDGED_HEAD => None,
        _ => Some(error.valid_up_to() as u64),
    }
}

/// Rule 2 on an input whose head is `head` and whose first invalid byte is at
/// `first_invalid`: the sample is taken from the head.
pub(crate) fn judge_head(head: &[u8], first_invalid: u64) -> TextKind {
    let slice = |range: Range<u64>| -> Result<Vec<u8>, Infallible> {
        let end = usize::try_from(range.end)
            .unwrap_or(usize::MAX)
            .min(head.len());
        let start = usize::try_from(range.start).unwrap_or(usize::MAX).min(end);
        Ok(head[start..end].to_vec())
    };
    let Ok(sample) = gather_sample(first_invalid, slice);
    judge(first_invalid, &sample)
}

/// True when `head` is the start of UTF-16 or UTF-32 text: its NUL bytes make it no binary.
pub(crate) fn is_wide_unicode(head: &[u8]) -> bool {
    wide_unicode(head, true).is_some()
}

/// UTF-16 or UTF-32 by the byte order mark, the first characters or the zero bytes of `head`;
/// by the mark alone when `head` holds no zero byte (`has_zero`), which the others need.
fn wide_unicode(head: &[u8], has_zero: bool) -> Option<Legacy> {
    let bom = encoding_from_byte_order_mark(head, DEFAULT_SUSPECTS)
        .into_iter()
        .next();
    let (name, basis) = match bom {
        Some(bom) if bom.is_wide_unicode() => (bom.name().to_owned(), Basis::ByteOrderMark),
        Some(_) => return None,
        None if !has_zero => return None,
        None => {
            let evidence = ByteEvidence::wide_unicode(head)?;
            let basis = match evidence.method {
                DetectionMethod::ZeroBytes => Basis::ZeroBytes,
                _ => Basis::FirstCharacters,
            };
            (evidence.encoding?, basis)
        }
    };
    let encoding = KnownEncoding::for_label(&name)?;
    Some(Legacy { encoding, basis })
}

/// The sample of a file whose first invalid byte is at `first_invalid`, from `read` (which
/// gives any range of the file, shorter at its end): its first [`SAMPLE_LIMIT`] bytes, and as
/// many from the start of the line of the first invalid byte; one piece when the two touch.
fn gather_sample<E>(
    first_invalid: u64,
    mut read: impl FnMut(Range<u64>) -> Result<Vec<u8>, E>,
) -> Result<Vec<Vec<u8>>, E> {
    let limit = SAMPLE_LIMIT as u64;
    let lookback_start = first_invalid.saturating_sub(LINE_LOOKBACK);
    let before = read(lookback_start..first_invalid)?;
    let into_before = match memchr::memrchr(b'\n', &before) {
        Some(newline) => newline + 1,
        None if lookback_start == 0 => 0,
        // A long line, sampled from the lookback on: not from the middle of a character.
        None => before
            .iter()
            .take(3)
            .take_while(|&&b| b & 0xC0 == 0x80)
            .count(),
    };
    let line_start = lookback_start + into_before as u64;
    if line_start <= limit {
        return Ok(vec![read(0..line_start + limit)?]);
    }
    Ok(vec![read(0..limit)?, read(line_start..line_start + limit)?])
}

/// The non-ASCII bytes of a sample, and the invalid sequences among them.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    non_ascii: usize,
    invalid_bytes: usize,
    invalid_sequences: usize,
}

impl Tally {
    /// Counts one piece of a sample. A character cut by the end of the piece counts as
    /// neither: the piece was cut there, the file was not.
    fn add(&mut self, piece: &[u8]) {
        let non_ascii = |bytes: &[u8]| bytes.iter().filter(|b| !b.is_ascii()).count();
        let mut rest = piece;
        loop {
            let error = match simdutf8::compat::from_utf8(rest) {
                Ok(_) => break self.non_ascii += non_ascii(rest),
                Err(error) => error,
            };
            let valid = error.valid_up_to();
            self.non_ascii += non_ascii(rest.get(..valid).unwrap_or_default());
            let Some(length) = error.error_len() else {
                break;
            };
            let invalid = rest.get(valid..).unwrap_or_default();
            // An overlong or CESU-8 form is UTF-8 by its shape: a lax encoder's, not a legacy
            // encoding's, and it is decoded where it stands.
            if let Some(lax) = raw::lax_utf8_len(invalid) {
                self.non_ascii += lax;
                rest = invalid.get(lax..).unwrap_or_default();
                continue;
            }
            // An invalid sequence is never ASCII: it is a lead byte and continuation bytes.
            self.non_ascii += length;
            self.invalid_bytes += length;
            self.invalid_sequences += 1;
            rest = rest.get(valid + length..).unwrap_or_default();
        }
    }

    /// The rule: enough invalid sequences, and most of the non-ASCII bytes.
    fn says_legacy(&self) -> bool {
        self.invalid_sequences >= MIN_INVALID_SEQUENCES && self.invalid_bytes * 2 > self.non_ascii
    }
}

/// The verdict on a file that is not valid UTF-8 from `first_invalid` on, from its sample.
fn judge(first_invalid: u64, sample: &[Vec<u8>]) -> TextKind {
    let mut tally = Tally::default();
    for piece in sample {
        tally.add(piece);
    }
    if !tally.says_legacy() {
        return TextKind::Utf8;
    }
    let pieces: Vec<&[u8]> = sample.iter().map(Vec::as_slice).collect();
    let evidence = ByteEvidence::statistical(&pieces, first_invalid, "");
    let guess = evidence
        .encoding
        .as_deref()
        .and_then(KnownEncoding::for_label);
    // chardetng always names an encoding; were it not to, its own fallback for Latin text
    // stands in, as a low-confidence guess.
    let (encoding, confidence) = match (guess, evidence.level) {
        (Some(encoding), Some(confidence)) => (encoding, confidence),
        _ => (
            KnownEncoding::Whatwg(encoding_rs::WINDOWS_1252),
            Confidence::Low,
        ),
    };
    TextKind::Legacy(Legacy {
        encoding,
        basis: Basis::Guess {
            confidence,
            first_invalid_offset: first_invalid,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the rule makes of a whole file held in memory, sampled as a file on disk is.
    fn kind_of(bytes: &[u8]) -> TextKind {
        if let Some(wide) = wide_unicode(bytes.get(..SAMPLE_LIMIT).unwrap_or(bytes), true) {
            return TextKind::Legacy(wide);
        }
        let Err(error) = simdutf8::compat::from_utf8(bytes) else {
            return TextKind::Utf8;
        };
        let first_invalid = error.valid_up_to() as u64;
        let slice = |range: Range<u64>| -> Result<Vec<u8>, ()> {
            let end = (range.end as usize).min(bytes.len());
            let start = (range.start as usize).min(end);
            Ok(bytes.get(start..end).unwrap_or_default().to_vec())
        };
        gather_sample(first_invalid, slice)
            .map_or(TextKind::Utf8, |sample| judge(first_invalid, &sample))
    }

    fn guessed(kind: &TextKind) -> Option<(&'static str, Confidence)> {
        match kind {
            TextKind::Legacy(Legacy {
                encoding,
                basis: Basis::Guess { confidence, .. },
            }) => Some((encoding.name(), *confidence)),
            _ => None,
        }
    }

    const FRENCH: &str = "Le café coûte 3 € l’été, c’est très cher. Voilà où ça mène : déjà \
                          vu, naïve façade, forêt, île, Noël.\n";

    fn windows_1252(text: &str) -> Vec<u8> {
        encoding_rs::WINDOWS_1252.encode(text).0.into_owned()
    }

    #[test]
    fn windows_1252_text_is_legacy_and_guessed_confidently() {
        let kind = kind_of(&windows_1252(&FRENCH.repeat(3)));
        assert_eq!(guessed(&kind), Some(("windows-1252", Confidence::High)));
    }

    #[test]
    fn a_little_legacy_text_is_legacy_but_only_a_weak_guess() {
        let kind = kind_of(&windows_1252(
            "plain ASCII, then caf\u{E9} cr\u{E8}me br\u{FB}l\u{E9}e",
        ));
        assert_eq!(guessed(&kind).map(|(_, c)| c), Some(Confidence::Low));
    }

    #[test]
    fn the_forms_of_lax_encoders_are_utf8() {
        // CESU-8 pairs (😀, as Java writes it) and overlong forms, line after line.
        let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80 and \xE0\x83\x9A\n".repeat(20);
        assert_eq!(kind_of(&cesu), TextKind::Utf8);
        // The same number of stray single bytes is another encoding.
        let legacy = b"smile \xE9 and \xE8\n".repeat(20);
        assert!(matches!(kind_of(&legacy), TextKind::Legacy(_)));
    }

    #[test]
    fn a_few_stray_sequences_leave_a_file_utf8() {
        // One truncated character, in ASCII: not enough to call the file legacy.
        assert_eq!(
            kind_of(b"ASCII text and a cut \xE2\x82 character\n"),
            TextKind::Utf8
        );
        // Three stray bytes, still a few.
        assert_eq!(kind_of(b"one \xFF two \xFE three \xE9\n"), TextKind::Utf8);
        // Many invalid bytes, but among much more UTF-8.
        let mut damaged = "déjà vu, naïve façade, forêt, Noël "
            .repeat(20)
            .into_bytes();
        damaged.extend(b"\xE9\xE8\xFF\xFE\xE0 end\n");
        assert_eq!(kind_of(&damaged), TextKind::Utf8);
    }

    #[test]
    fn the_sample_follows_the_first_invalid_byte_beyond_the_head() {
        let mut file = "ASCII only\n".repeat(20_000).into_bytes();
        let at = file.len();
        file.extend(windows_1252(&FRENCH.repeat(3)));
        let kind = kind_of(&file);
        assert_eq!(guessed(&kind), Some(("windows-1252", Confidence::High)));
        let TextKind::Legacy(legacy) = kind else {
            return;
        };
        assert!(
            legacy
                .describe()
                .ends_with(&format!("first invalid byte at offset {}", at + 6))
        );
    }

    #[test]
    fn the_rule_counts_bytes_of_invalid_sequences_against_all_non_ascii_bytes() {
        let mut tally = Tally::default();
        // `é` in UTF-8 (2 valid bytes), E9 alone (1 invalid), F0 9F 98 cut by ASCII (1 invalid
        // sequence of 3 bytes), and a character cut by the end of the piece (not counted).
        tally.add(b"\xC3\xA9 \xE9 \xF0\x9F\x98 x \xE2\x82");
        assert_eq!(
            tally,
            Tally {
                non_ascii: 6,
                invalid_bytes: 4,
                invalid_sequences: 2,
            }
        );
        assert!(!tally.says_legacy(), "two sequences are too few");
        tally.add(b"\xE9 \xE8 ");
        assert!(tally.says_legacy());
    }

    #[test]
    fn wide_unicode_by_bom_or_first_characters() {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Hello".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let legacy = |encoding, basis| TextKind::Legacy(Legacy { encoding, basis });
        let utf16le = KnownEncoding::Whatwg(encoding_rs::UTF_16LE);
        assert_eq!(kind_of(&utf16), legacy(utf16le, Basis::ByteOrderMark));
        let page: Vec<u8> = "  <p>x</p>"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        let utf16be = KnownEncoding::Whatwg(encoding_rs::UTF_16BE);
        assert_eq!(kind_of(&page), legacy(utf16be, Basis::FirstCharacters));
        let utf32 = b"\x00\x00\xFE\xFF\x00\x00\x00A";
        assert_eq!(
            kind_of(utf32),
            legacy(KnownEncoding::Utf32Be, Basis::ByteOrderMark)
        );
        assert_eq!(kind_of(b"\xEF\xBB\xBFUTF-8 with a BOM"), TextKind::Utf8);
        assert_eq!(kind_of(b"<p>ASCII markup</p>"), TextKind::Utf8);
    }

    /// The structure found with one search for a zero byte is the structure found by asking
    /// each question of the whole start: marks, first characters, zero bytes, binary data.
    #[test]
    fn one_search_for_a_zero_byte_answers_as_every_test_does() {
        let by_every_test = |head: &[u8]| {
            let start = &head[..head.len().min(SAMPLE_LIMIT)];
            if let Some(wide) = wide_unicode(start, true) {
                return Some(TextKind::Legacy(wide));
            }
            let sniffed = &head[..head.len().min(crate::engine::SNIFF_LIMIT)];
            memchr::memchr(0, sniffed).map(|_| TextKind::Binary)
        };
        let utf16 = |text: &str, mark: &[u8]| -> Vec<u8> {
            let units = text.encode_utf16().flat_map(u16::to_le_bytes);
            mark.iter().copied().chain(units).collect()
        };
        let long = "Привет, мир. ".repeat(800);
        let mut heads: Vec<Vec<u8>> = vec![
            b"plain text".to_vec(),
            b"\xEF\xBB\xBFmarked UTF-8".to_vec(),
            b"\xFF\xFEmarked, then no zero byte".to_vec(),
            utf16("Hello", &[0xFF, 0xFE]),
            utf16("Hello, world", &[]),
            utf16("  <p>x</p>", &[]),
            utf16(&long, &[]),
            b"binary \x00 data".to_vec(),
            Vec::new(),
        ];
        // A zero byte just inside and just past the binary sniff, and past the start.
        for at in [
            crate::engine::SNIFF_LIMIT - 1,
            crate::engine::SNIFF_LIMIT,
            SAMPLE_LIMIT,
        ] {
            let mut head = long.as_bytes().to_vec();
            head.resize(SAMPLE_LIMIT + 10, b'a');
            head[at] = 0;
            heads.push(head);
        }
        for head in &heads {
            assert_eq!(
                by_structure(head),
                by_every_test(head),
                "{:?}",
                &head[..head.len().min(40)]
            );
        }
    }

    #[test]
    fn the_source_encoding_comes_from_the_bom_then_from_then_a_confident_guess() {
        let iso_8859_2 = KnownEncoding::Whatwg(encoding_rs::ISO_8859_2);
        let bom = Legacy {
            encoding: KnownEncoding::Whatwg(encoding_rs::UTF_16LE),
            basis: Basis::ByteOrderMark,
        };
        assert_eq!(
            bom.source_encoding(Some(iso_8859_2)),
            Ok(KnownEncoding::Whatwg(encoding_rs::UTF_16LE))
        );
        let guess = |confidence| Legacy {
            encoding: KnownEncoding::Whatwg(encoding_rs::WINDOWS_1252),
            basis: Basis::Guess {
                confidence,
                first_invalid_offset: 0,
            },
        };
        assert_eq!(
            guess(Confidence::High).source_encoding(None),
            Ok(KnownEncoding::Whatwg(encoding_rs::WINDOWS_1252))
        );
        assert!(guess(Confidence::Low).source_encoding(None).is_err());
        assert_eq!(
            guess(Confidence::Low).source_encoding(Some(iso_8859_2)),
            Ok(iso_8859_2)
        );
        let utf32 = Legacy {
            encoding: KnownEncoding::Utf32Le,
            basis: Basis::ByteOrderMark,
        };
        assert!(utf32.source_encoding(Some(iso_8859_2)).is_err());
        let dos = Legacy {
            encoding: KnownEncoding::Oem(crate::charset::OemCodePage::Ibm855),
            basis: Basis::Guess {
                confidence: Confidence::High,
                first_invalid_offset: 0,
            },
        };
        assert_eq!(dos.source_encoding(None), Ok(dos.encoding));
    }
}
