//! What the bytes themselves say, apart from any declaration.
//!
//! The policy's third source: "identify the charset automatically, based on the document's
//! binary construction". Three kinds of evidence, strongest first:
//!
//! 1. UTF-16/UTF-32 without a BOM: the first `<` (after white space only) in that encoding,
//!    found by [`encoding_from_first_chars`]; for plain text, where the zero bytes fall over
//!    the whole sample (`zero_bytes.rs`). This is structure, not statistics.
//! 2. UTF-8: a body with non-ASCII bytes that is valid UTF-8 is UTF-8 for every practical
//!    purpose; legacy text almost never validates by accident.
//! 3. Anything else non-ASCII: `chardetng`'s statistical guess, re-ranked and scored by byte
//!    tables learnt from real text (`guess.rs`). It is reported as a guess and never outranks
//!    a declaration: a guess is not an identification.
//!
//! A pure-ASCII body proves only that the encoding is ASCII-compatible; it is reported as such
//! (no encoding), so it cannot contradict a header or `<meta>` naming any ASCII-compatible
//! encoding.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding};
use serde::{Deserialize, Serialize};

use super::first_chars::{DEFAULT_WHITESPACE, encoding_from_first_chars};
use super::guess;
use super::labels::KnownEncoding;
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use super::zero_bytes::wide_unicode_from_zero_bytes;

/// How the bytes were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DetectionMethod {
    /// UTF-16/32 structure of the first characters.
    FirstChars,
    /// UTF-16/32 by where the zero bytes fall over the whole sample (plain text without BOM).
    ZeroBytes,
    /// Valid UTF-8 with non-ASCII content.
    Utf8Validation,
    /// Only ASCII bytes: ASCII-compatible, nothing more.
    Ascii,
    /// Seven-bit text holding ISO-2022-JP's escape sequences, which switch it into JIS X 0208
    /// and back: no ASCII text holds them.
    EscapeSequences,
    /// `chardetng`'s statistical guess.
    Statistical,
}

/// Whether a statistical guess is strong enough to act on without being told the encoding
/// (`fix --transcode` converts by a `High` guess only).
///
/// `High` when the guess rests on at least [`CONFIDENT_NON_ASCII_BYTES`] non-ASCII bytes and
/// the guessed encoding decodes the sample without a single malformed sequence; otherwise
/// `Low`. [`Score`] is the same judgement as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Enough non-ASCII text, decoded cleanly.
    High,
    /// Little non-ASCII text, or the guess does not decode it cleanly.
    Low,
}

/// The non-ASCII bytes a statistical guess needs before it is called confident: a sentence or
/// two of accented text, or a handful of CJK characters.
pub const CONFIDENT_NON_ASCII_BYTES: usize = 32;

/// The bytes of evidence a statistical guess is discounted by: with `n` non-ASCII bytes it is
/// trusted at most `n / (n + EVIDENCE_PRIOR_BYTES)`.
const EVIDENCE_PRIOR_BYTES: f64 = 3.0;

/// How far to trust a statistical guess, from 0 to 1; serialises as a number with two
/// decimals.
///
/// `chardetng` gives no score, so this is the chance that the answer is right as a logistic
/// model learnt from real text tells it (`guess.rs`): from how many non-ASCII bytes there
/// are, whether the answer decodes them cleanly, and how clearly the byte tables of the
/// languages written in it pick it out. A couple of accented letters score low whatever
/// they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Score {
    per_mille: u16,
}

impl Score {
    /// The score of a probability (clamped to 0..=1; NaN is 0).
    pub(crate) fn of_probability(probability: f64) -> Self {
        let value = if probability.is_nan() {
            0.0
        } else {
            probability.clamp(0.0, 1.0)
        };
        Self {
            per_mille: (value * 1000.0).round() as u16,
        }
    }

    /// The score from a number in 0..=1; `None` outside that range (or for NaN).
    pub(crate) fn from_value(value: f64) -> Option<Self> {
        (0.0..=1.0).contains(&value).then(|| Self {
            per_mille: (value * 1000.0).round() as u16,
        })
    }

    /// The score, from 0 to 1.
    pub(crate) fn value(self) -> f64 {
        f64::from(self.per_mille) / 1000.0
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2}", self.value())
    }
}

impl Serialize for Score {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64((f64::from(self.per_mille) / 10.0).round() / 100.0)
    }
}

/// Reads the number [`Score`] writes back, so that a record read and written again is the same.
impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        Score::from_value(value).ok_or_else(|| {
            serde::de::Error::custom(format_args!("a score is from 0 to 1, not {value}"))
        })
    }
}

/// The evidence of the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteEvidence {
    /// The encoding the bytes point to; `None` for a pure-ASCII body.
    pub encoding: Option<String>,
    /// How it was found.
    pub method: DetectionMethod,
    /// Whether this is only a statistical guess.
    pub guess: bool,
    /// For a statistical guess, how far to trust it (0 to 1); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Score>,
    /// For a statistical guess, whether it is strong enough to act on unasked; absent
    /// otherwise (and from the JSON, which has the score).
    #[serde(skip)]
    pub level: Option<Confidence>,
    /// What was seen, for a person.
    pub evidence: String,
}

impl ByteEvidence {
    /// Only ASCII in `length` bytes.
    pub(crate) fn ascii(length: u64) -> Self {
        Self {
            encoding: None,
            method: DetectionMethod::Ascii,
            guess: false,
            confidence: None,
            level: None,
            evidence: format!(
                "all {length} bytes are ASCII: any ASCII-compatible encoding reads them alike"
            ),
        }
    }

    /// ISO-2022-JP, if the seven-bit `body` switches into one of its double-byte sets (`ESC $
    /// @`, `ESC $ B`) and chardetng, allowed to, reads it so.
    pub(crate) fn iso_2022_jp(body: &[u8]) -> Option<Self> {
        let switches = memchr::memmem::find_iter(body, b"\x1B$B").count()
            + memchr::memmem::find_iter(body, b"\x1B$@").count();
        if switches == 0 {
            return None;
        }
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
        detector.feed(body, true);
        let guess = detector.guess(None, Utf8Detection::Deny);
        (guess == encoding_rs::ISO_2022_JP).then(|| Self {
            encoding: Some(guess.name().to_owned()),
            method: DetectionMethod::EscapeSequences,
            guess: false,
            confidence: None,
            level: None,
            evidence: format!(
                "seven-bit text that switches into JIS X 0208 {switches} times (ESC $ B, ESC $ @)"
            ),
        })
    }

    /// Valid UTF-8 with `non_ascii` non-ASCII `units` (bytes, or characters).
    pub(crate) fn utf8(non_ascii: u64, units: &str) -> Self {
        Self {
            encoding: Some(encoding_rs::UTF_8.name().to_owned()),
            method: DetectionMethod::Utf8Validation,
            guess: false,
            confidence: None,
            level: None,
            evidence: format!("valid UTF-8 with {non_ascii} non-ASCII {units}"),
        }
    }

    /// `chardetng`'s guess from `samples` (read as one stream) of bytes that are not UTF-8,
    /// re-ranked and scored by the byte tables (see `guess.rs`), the first invalid sequence
    /// being at byte `invalid_at` of the file; `sampled` says which part of the file the
    /// samples are, for the evidence text (empty for all of it).
    pub(crate) fn statistical(samples: &[&[u8]], invalid_at: u64, sampled: &str) -> Self {
        let chardetng = chardetng_guess(samples);
        let clean = CleanDecoding::of(samples);
        let ranked = guess::rank(samples, chardetng, |encoding| clean.by(encoding));
        let (guess, non_ascii) = (ranked.encoding, ranked.non_ascii);
        let level = if non_ascii >= CONFIDENT_NON_ASCII_BYTES as u64 && ranked.decodes_cleanly {
            Confidence::High
        } else {
            Confidence::Low
        };
        // The model was fitted on text where a letter or two is mostly read right, since the
        // candidates mostly agree on it; a file is no likelier to be one of those. So a guess
        // resting on `n` non-ASCII bytes is trusted no more than `n / (n + 3)` (two bytes 0.4,
        // below the default threshold), and half that when it does not decode cleanly.
        let ceiling = non_ascii as f64 / (non_ascii as f64 + EVIDENCE_PRIOR_BYTES);
        let ceiling = if ranked.decodes_cleanly {
            ceiling
        } else {
            ceiling / 2.0
        };
        let score = Score::of_probability(ranked.probability.min(ceiling));
        let malformed = if ranked.decodes_cleanly {
            ""
        } else {
            ", which it does not decode cleanly"
        };
        let like = ranked
            .language
            .map(|language| format!(", fitting {language} text best"))
            .unwrap_or_default();
        let whose = if guess == KnownEncoding::Whatwg(chardetng) {
            format!("chardetng guesses {}{like}", guess.name())
        } else {
            format!(
                "chardetng guesses {}, the byte tables {}{like}",
                chardetng.name(),
                guess.name()
            )
        };
        Self {
            encoding: Some(guess.name().to_owned()),
            method: DetectionMethod::Statistical,
            guess: true,
            confidence: Some(score),
            level: Some(level),
            evidence: format!(
                "not UTF-8 (invalid sequence at byte {invalid_at}); {whose} (confidence \
                 {score}) from {non_ascii} non-ASCII bytes{sampled}{malformed}"
            ),
        }
    }

    /// The UTF-16/32 structure of `body`: its first characters if it starts with `<` in it,
    /// else the pattern of its zero bytes.
    pub(crate) fn wide_unicode(body: &[u8]) -> Option<Self> {
        if let Some(wide) = wide_unicode_from_first_chars(body) {
            let less_than = wide.encode_char('<').unwrap_or_default();
            let hex: Vec<String> = less_than.iter().map(|b| format!("{b:02X}")).collect();
            return Some(Self {
                encoding: Some(wide.name().to_owned()),
                method: DetectionMethod::FirstChars,
                guess: false,
                confidence: None,
                level: None,
                evidence: format!(
                    "the first '<' is {} ({}) with only white space before it",
                    hex.join(" "),
                    wide.name()
                ),
            });
        }
        let wide = wide_unicode_from_zero_bytes(body)?;
        Some(Self {
            encoding: Some(wide.name().to_owned()),
            method: DetectionMethod::ZeroBytes,
            guess: false,
            confidence: None,
            level: None,
            evidence: format!(
                "no '<' first, but the zero bytes fall as in {} text: one script's code units, \
                 no NUL or control character",
                wide.name()
            ),
        })
    }
}

/// chardetng's guess for `samples`, read as one stream, UTF-8 and ISO-2022-JP ruled out.
///
/// chardetng is fed only the lines that hold a non-ASCII byte: it weighs each non-ASCII byte
/// by its neighbours, never by a line away, and an ASCII line (markup, mostly) costs it as
/// much as a line of text while telling it nothing. It stops at [`CHARDETNG_ENOUGH`]
/// non-ASCII bytes, cut before the next byte below `0x40`, which no legacy multi-byte
/// encoding uses inside a character: every byte costs chardetng a step of each of its two
/// dozen candidates, and a page of Cyrillic or Chinese has long been decided by then.
pub(super) fn chardetng_guess(samples: &[&[u8]]) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let mut fed = 0;
    'samples: for sample in samples {
        for line in lines_with_non_ascii(sample) {
            let (part, non_ascii) = up_to_enough(line, CHARDETNG_ENOUGH.saturating_sub(fed));
            detector.feed(part, false);
            fed += non_ascii;
            if fed >= CHARDETNG_ENOUGH {
                break 'samples;
            }
        }
    }
    detector.feed(b"", true);
    detector.guess(None, Utf8Detection::Deny)
}

/// The non-ASCII bytes after which chardetng's guess is taken as it stands.
const CHARDETNG_ENOUGH: usize = 1024;

/// `line` up to its `wanted`-th non-ASCII byte and on to the next byte below `0x40`, and the
/// non-ASCII bytes in that part (at least `wanted` if the line was cut), counted in the one
/// pass that finds the cut.
fn up_to_enough(line: &[u8], wanted: usize) -> (&[u8], usize) {
    if wanted == 0 {
        return (&[], 0);
    }
    let mut non_ascii = 0;
    let mut cut_after = None;
    for (at, &byte) in line.iter().enumerate() {
        match cut_after {
            None if !byte.is_ascii() => {
                non_ascii += 1;
                if non_ascii == wanted {
                    cut_after = Some(at);
                }
            }
            Some(_) if byte < 0x40 => return (line.get(..at).unwrap_or(line), non_ascii),
            Some(_) if !byte.is_ascii() => non_ascii += 1,
            _ => {}
        }
    }
    (line, non_ascii)
}

/// The lines of `sample` (each with its line feed) that hold a byte outside ASCII, in order;
/// the ASCII stretches between them are skipped at the speed of `ascii_valid_up_to`.
fn lines_with_non_ascii(sample: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut from = 0;
    std::iter::from_fn(move || {
        let rest = sample.get(from..)?;
        let found = from + Encoding::ascii_valid_up_to(rest);
        if found >= sample.len() {
            from = sample.len();
            return None;
        }
        let head = sample.get(from..found).unwrap_or_default();
        let start = memchr::memrchr(b'\n', head).map_or(from, |newline| from + newline + 1);
        let tail = sample.get(found..).unwrap_or_default();
        let end = memchr::memchr(b'\n', tail).map_or(sample.len(), |newline| found + newline + 1);
        from = end;
        sample.get(start..end)
    })
}

/// Whether samples decode cleanly in one encoding or another, asked of many encodings in turn.
/// A single-byte encoding reads each byte alone, so for one it is enough to try each distinct
/// non-ASCII byte of the samples once, not to decode them all again.
pub(super) struct CleanDecoding<'a> {
    samples: &'a [&'a [u8]],
    /// Which bytes `0x80..=0xFF` occur, by `byte - 0x80`.
    high_bytes: [bool; 128],
}

impl<'a> CleanDecoding<'a> {
    pub(super) fn of(samples: &'a [&'a [u8]]) -> Self {
        let mut high_bytes = [false; 128];
        for &byte in samples.iter().flat_map(|sample| sample.iter()) {
            if let Some(seen) = byte
                .checked_sub(0x80)
                .and_then(|index| high_bytes.get_mut(usize::from(index)))
            {
                *seen = true;
            }
        }
        Self {
            samples,
            high_bytes,
        }
    }

    /// Whether every sample decodes in `encoding` without a malformed sequence.
    pub(super) fn by(&self, encoding: KnownEncoding) -> bool {
        let single_byte = match encoding {
            KnownEncoding::Whatwg(encoding) => encoding.is_single_byte(),
            KnownEncoding::Oem(_) => true,
            KnownEncoding::Utf32Le | KnownEncoding::Utf32Be => false,
        };
        if single_byte {
            (0x80..=0xFFu8)
                .zip(self.high_bytes)
                .filter(|&(_, seen)| seen)
                .all(|(byte, _)| decodes_cleanly(encoding, &[byte]))
        } else {
            self.samples
                .iter()
                .all(|sample| decodes_cleanly(encoding, sample))
        }
    }
}

/// Whether `sample` decodes in `encoding` without a malformed sequence, through a small buffer
/// (a sample can be hundreds of megabytes). A character cut by the end of the sample is not
/// counted against it: a sample is a piece of a longer file.
pub(super) fn decodes_cleanly(encoding: KnownEncoding, sample: &[u8]) -> bool {
    let encoding = match encoding {
        KnownEncoding::Whatwg(encoding) => encoding,
        KnownEncoding::Oem(page) => return page.decodes_cleanly(sample),
        // No guess is UTF-32: the zero bytes tell it, not statistics.
        KnownEncoding::Utf32Le | KnownEncoding::Utf32Be => return false,
    };
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut buffer = [0u8; 4096];
    let mut rest = sample;
    loop {
        let (result, read, _) =
            decoder.decode_to_utf8_without_replacement(rest, &mut buffer, false);
        rest = rest.get(read..).unwrap_or_default();
        match result {
            DecoderResult::InputEmpty => return true,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(..) => return false,
        }
    }
}

/// UTF-16 or UTF-32 (no BOM) if the first characters are `<` in it after white space only.
fn wide_unicode_from_first_chars(body: &[u8]) -> Option<Suspect> {
    // UTF-16 and UTF-32 write `<` and ASCII white space with a zero byte among the first two
    // of each: a body without one there starts with neither (most files, asked once each).
    if !body.iter().take(2).any(|&b| b == 0) {
        return None;
    }
    encoding_from_first_chars(body, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE)
        .into_iter()
        .next()
        .filter(|suspect| suspect.is_wide_unicode())
}

/// UTF-16 or UTF-32 (no BOM) by the first characters, else by the zero bytes.
pub(crate) fn wide_unicode_from_structure(body: &[u8]) -> Option<Suspect> {
    wide_unicode_from_first_chars(body).or_else(|| wide_unicode_from_zero_bytes(body))
}

/// Reads the encoding from `body` (without its BOM); `None` for an empty body.
pub fn detect_from_bytes(body: &[u8]) -> Option<ByteEvidence> {
    if body.is_empty() {
        return None;
    }
    if let Some(wide) = ByteEvidence::wide_unicode(body) {
        return Some(wide);
    }
    if body.is_ascii() {
        return Some(
            ByteEvidence::iso_2022_jp(body).unwrap_or(ByteEvidence::ascii(body.len() as u64)),
        );
    }
    match simdutf8::compat::from_utf8(body) {
        Ok(_) => {
            let non_ascii = body.iter().filter(|b| !b.is_ascii()).count();
            Some(ByteEvidence::utf8(non_ascii as u64, "bytes"))
        }
        Err(error) => Some(ByteEvidence::statistical(
            &[body],
            error.valid_up_to() as u64,
            "",
        )),
    }
}

/// [`detect_from_bytes`] for the body after a BOM. After a UTF-16/32 BOM only the structure
/// of the first characters counts: the other readings take bytes as ASCII-compatible text,
/// which the BOM has ruled out (UTF-16 "Hello" is all ASCII bytes, but not ASCII).
pub(crate) fn detect_after_bom(body: &[u8], bom: Option<Suspect>) -> Option<ByteEvidence> {
    match bom {
        Some(wide) if wide.is_wide_unicode() => ByteEvidence::wide_unicode(body),
        _ => detect_from_bytes(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// A body with no zero byte in its first two is never UTF-16 or UTF-32 by its first
        /// characters: the quick answer is the one the full look gives.
        #[test]
        fn wide_first_chars_need_a_zero_byte_at_the_start(
            units in proptest::collection::vec(
                (proptest::sample::select(vec![' ', '\n', '<', 'a', '\u{e9}', '\u{3c00}']),
                 proptest::sample::select(DEFAULT_SUSPECTS.to_vec())),
                0..6,
            ),
        ) {
            let body: Vec<u8> = units
                .iter()
                .flat_map(|&(c, suspect)| suspect.encode_char(c).unwrap_or_default())
                .collect();
            let full = encoding_from_first_chars(&body, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE)
                .into_iter()
                .next()
                .filter(|suspect| suspect.is_wide_unicode());
            proptest::prop_assert_eq!(wide_unicode_from_first_chars(&body), full);
        }
    }

    #[test]
    fn chardetng_is_fed_the_lines_with_non_ascii_bytes_whole() {
        let lines = |sample: &'static [u8]| lines_with_non_ascii(sample).collect::<Vec<_>>();
        assert!(lines(b"").is_empty());
        assert!(lines(b"all\nascii\n").is_empty());
        assert_eq!(
            lines(b"<p>\nsch\xF6n\n<b>\nmore\n\xE9t\xE9 and \xE0\nend"),
            [&b"sch\xF6n\n"[..], b"\xE9t\xE9 and \xE0\n"]
        );
        assert_eq!(lines(b"\xFF"), [&b"\xFF"[..]]);
        assert_eq!(lines(b"a\n\xFF"), [&b"\xFF"[..]]);
        assert_eq!(lines(b"\xFF\n\xFE\n"), [&b"\xFF\n"[..], b"\xFE\n"]);
    }

    #[test]
    fn chardetng_stops_after_enough_at_a_character_boundary() {
        assert_eq!(up_to_enough(b"ab\xE9c", 5), (&b"ab\xE9c"[..], 1));
        assert_eq!(up_to_enough(b"\xE9\xE9 \xE9", 2), (&b"\xE9\xE9"[..], 2));
        // A Shift_JIS trail byte may be an ASCII letter: the cut waits for a space.
        assert_eq!(
            up_to_enough(b"\x93\xfa\x96\x7b\x8c\xea. x", 3),
            (&b"\x93\xfa\x96\x7b\x8c\xea"[..], 5)
        );
        let long: Vec<u8> = b"\xF0\xF3\xF1 ".repeat(1000);
        let (part, non_ascii) = up_to_enough(&long, CHARDETNG_ENOUGH);
        // Through the end of the character that holds the last byte wanted.
        assert_eq!(non_ascii, 1026);
        assert_eq!(part.iter().filter(|b| !b.is_ascii()).count(), 1026);
        assert_eq!(up_to_enough(b"\xE9", 0), (&b""[..], 0));
    }

    #[test]
    fn clean_decoding_by_distinct_bytes_agrees_with_decoding_everything() {
        let samples: [&[u8]; 3] = [b"plain", b"\xC3\xA9t\xE9 \xAD\x81", b"\xFF\x90\xA0\xDB"];
        for encoding in [
            encoding_rs::WINDOWS_1252,
            encoding_rs::WINDOWS_1253,
            encoding_rs::WINDOWS_1255,
            encoding_rs::WINDOWS_874,
            encoding_rs::ISO_8859_7,
            encoding_rs::ISO_8859_8,
            encoding_rs::KOI8_R,
            encoding_rs::SHIFT_JIS,
            encoding_rs::GBK,
        ]
        .map(KnownEncoding::Whatwg)
        .into_iter()
        .chain(crate::charset::OemCodePage::ALL.map(KnownEncoding::Oem))
        {
            for pick in 0..samples.len() {
                let some = &samples[pick..];
                let whole = some.iter().all(|sample| decodes_cleanly(encoding, sample));
                assert_eq!(CleanDecoding::of(some).by(encoding), whole, "{encoding:?}");
            }
        }
    }

    #[test]
    fn pound_signs_in_english_are_never_confidently_central_european() {
        // chardetng reads `£` as `Ł`. Two or seven symbols in English are too little for
        // the tables to name windows-1252 instead; the honest answer is a guess too weak to
        // act on, whatever it names.
        for text in [
            "Price: 20 \u{A3}, 5 \u{A3} off",
            "The tickets cost \u{A3}20 each, or \u{A3}35 for two; the \u{2018}early bird\u{2019} \
             offer ends on Friday. Don\u{2019}t miss it \u{2013} book now! Parking is \u{A3}5.",
        ] {
            let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(text);
            assert!(!unmappable);
            let evidence = ByteEvidence::statistical(&[&bytes], 0, "");
            let confidence = evidence.confidence.map_or(0.0, Score::value);
            assert!(
                evidence.encoding.as_deref() == Some("windows-1252")
                    || confidence < crate::charset::DEFAULT_MIN_CONFIDENCE,
                "{text}: {evidence:?}"
            );
        }
    }

    fn method_and_encoding(body: &[u8]) -> Option<(DetectionMethod, Option<String>, bool)> {
        detect_from_bytes(body).map(|e| (e.method, e.encoding, e.guess))
    }

    #[test]
    fn utf16_structure() {
        let body: Vec<u8> = "<html>\u{E4}"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(
            method_and_encoding(&body),
            Some((DetectionMethod::FirstChars, Some("UTF-16BE".into()), false))
        );
    }

    #[test]
    fn utf8_ascii_and_guess() {
        assert_eq!(
            method_and_encoding("<p>\u{E4}\u{F6}\u{FC}".as_bytes()),
            Some((DetectionMethod::Utf8Validation, Some("UTF-8".into()), false))
        );
        assert_eq!(
            method_and_encoding(b"<p>plain"),
            Some((DetectionMethod::Ascii, None, false))
        );
        let latin1 = b"<p>Gr\xFC\xDFe aus K\xF6ln, sch\xF6ne Stra\xDFe, \xC4rger \xFCber \xD6l</p>";
        let guessed = detect_from_bytes(latin1);
        assert_eq!(guessed.as_ref().map(|e| e.guess), Some(true));
        assert_eq!(
            guessed.as_ref().and_then(|e| e.level),
            Some(Confidence::Low)
        );
        assert_eq!(
            guessed.and_then(|e| e.encoding).as_deref(),
            Some("windows-1252")
        );
        assert_eq!(detect_from_bytes(b""), None);
        let iso_2022_jp = b"\x1B$B$3$s$K$A$O\x1B(B, world";
        assert_eq!(
            method_and_encoding(iso_2022_jp),
            Some((
                DetectionMethod::EscapeSequences,
                Some("ISO-2022-JP".into()),
                false
            ))
        );
    }

    #[test]
    fn confidence_needs_enough_cleanly_decoded_text() {
        let latin1 =
            b"Gr\xFC\xDFe aus K\xF6ln, sch\xF6ne Stra\xDFe, \xC4rger \xFCber \xD6l. ".repeat(4);
        let guessed = detect_from_bytes(&latin1);
        assert_eq!(
            guessed.as_ref().and_then(|e| e.level),
            Some(Confidence::High)
        );
        let score = guessed.and_then(|e| e.confidence).map(Score::value);
        assert!(score.is_some_and(|s| s > 0.75), "{score:?}");
    }

    #[test]
    fn the_score_is_a_probability_with_two_decimals() {
        assert_eq!(Score::of_probability(0.5).value(), 0.5);
        assert_eq!(Score::of_probability(f64::NAN).value(), 0.0);
        assert_eq!(Score::of_probability(7.0).value(), 1.0);
        assert_eq!(
            serde_json::to_string(&Score::of_probability(0.7631))
                .ok()
                .as_deref(),
            Some("0.76")
        );
        assert_eq!(Score::from_value(1.5), None);
        assert_eq!(Score::from_value(0.5).map(Score::value), Some(0.5));
    }

    #[test]
    fn a_wide_bom_leaves_only_the_structure() {
        let hello: Vec<u8> = "Hello".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(
            detect_from_bytes(&hello).map(|e| e.method),
            Some(DetectionMethod::Ascii)
        );
        assert_eq!(detect_after_bom(&hello, Some(Suspect::Utf16Le)), None);
        let page: Vec<u8> = "<p>".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(
            detect_after_bom(&page, Some(Suspect::Utf16Le)).map(|e| e.method),
            Some(DetectionMethod::FirstChars)
        );
    }
}
