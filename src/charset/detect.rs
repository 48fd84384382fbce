//! What the bytes themselves say, apart from any declaration.
//!
//! Seed 003's third source: "identify the charset automatically, based on the document's
//! binary construction". Three kinds of evidence, strongest first:
//!
//! 1. UTF-16/UTF-32 without a BOM: the first `<` (after white space only) in that encoding,
//!    found by [`encoding_from_first_chars`]. This is structure, not statistics.
//! 2. UTF-8: a body with non-ASCII bytes that is valid UTF-8 is UTF-8 for every practical
//!    purpose; legacy text almost never validates by accident.
//! 3. Anything else non-ASCII: `chardetng`'s statistical guess. It is reported as a guess and
//!    never outranks a declaration: a guess is not an identification.
//!
//! A pure-ASCII body proves only that the encoding is ASCII-compatible; it is reported as such
//! (no encoding), so it cannot contradict a header or `<meta>` naming any ASCII-compatible
//! encoding.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use serde::Serialize;

use super::first_chars::{DEFAULT_WHITESPACE, encoding_from_first_chars};
use super::suspect::{DEFAULT_SUSPECTS, Suspect};

/// How the bytes were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DetectionMethod {
    /// UTF-16/32 structure of the first characters.
    FirstChars,
    /// Valid UTF-8 with non-ASCII content.
    Utf8Validation,
    /// Only ASCII bytes: ASCII-compatible, nothing more.
    Ascii,
    /// `chardetng`'s statistical guess.
    Statistical,
}

/// The evidence of the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ByteEvidence {
    /// The encoding the bytes point to; `None` for a pure-ASCII body.
    pub encoding: Option<String>,
    /// How it was found.
    pub method: DetectionMethod,
    /// Whether this is only a statistical guess.
    pub guess: bool,
    /// What was seen, for a person.
    pub evidence: String,
}

/// UTF-16 or UTF-32 (no BOM) if the first characters are `<` in it after white space only.
pub(crate) fn wide_unicode_from_first_chars(body: &[u8]) -> Option<Suspect> {
    encoding_from_first_chars(body, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE)
        .into_iter()
        .next()
        .filter(|suspect| {
            matches!(
                suspect,
                Suspect::Utf16Le | Suspect::Utf16Be | Suspect::Utf32Le | Suspect::Utf32Be
            )
        })
}

/// Reads the encoding from `body` (without its BOM); `None` for an empty body.
pub fn detect_from_bytes(body: &[u8]) -> Option<ByteEvidence> {
    if body.is_empty() {
        return None;
    }
    if let Some(wide) = wide_unicode_from_first_chars(body) {
        let less_than = wide.encode_char('<').unwrap_or_default();
        let hex: Vec<String> = less_than.iter().map(|b| format!("{b:02X}")).collect();
        return Some(ByteEvidence {
            encoding: Some(wide.name().to_owned()),
            method: DetectionMethod::FirstChars,
            guess: false,
            evidence: format!(
                "the first '<' is {} ({}) with only white space before it",
                hex.join(" "),
                wide.name()
            ),
        });
    }
    if body.is_ascii() {
        return Some(ByteEvidence {
            encoding: None,
            method: DetectionMethod::Ascii,
            guess: false,
            evidence: format!(
                "all {} bytes are ASCII: any ASCII-compatible encoding reads them alike",
                body.len()
            ),
        });
    }
    let non_ascii = body.iter().filter(|b| !b.is_ascii()).count();
    if simdutf8::basic::from_utf8(body).is_ok() {
        return Some(ByteEvidence {
            encoding: Some(encoding_rs::UTF_8.name().to_owned()),
            method: DetectionMethod::Utf8Validation,
            guess: false,
            evidence: format!("valid UTF-8 with {non_ascii} non-ASCII bytes"),
        });
    }
    let invalid_at = std::str::from_utf8(body)
        .err()
        .map_or(0, |e| e.valid_up_to());
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(body, true);
    let guess = detector.guess(None, Utf8Detection::Deny);
    Some(ByteEvidence {
        encoding: Some(guess.name().to_owned()),
        method: DetectionMethod::Statistical,
        guess: true,
        evidence: format!(
            "not UTF-8 (invalid sequence at byte {invalid_at}); chardetng guesses {} from {non_ascii} non-ASCII bytes",
            guess.name()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            guessed.and_then(|e| e.encoding).as_deref(),
            Some("windows-1252")
        );
        assert_eq!(detect_from_bytes(b""), None);
    }
}
