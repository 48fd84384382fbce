//! Which encoding to use, and every way the sources disagree (seed 003, validome's rules).
//!
//! Priority, highest first:
//!
//! 1. the HTTP header's `charset` (`protocol`);
//! 2. a byte order mark (`bom`);
//! 3. what the bytes identify by their structure (`detected`: UTF-16/32 from the first
//!    characters, or valid non-ASCII UTF-8; see `detect.rs`);
//! 4. the document's own declarations: the XML declaration (`xml`), then `<meta>` (`meta`).
//!
//! When the bytes and an in-document declaration agree, the declaration is named as the
//! source: it is what a saved copy relies on, and the bytes only confirmed it. A statistical
//! guess never decides; it is reported and compared. Nothing found is an error (`no-charset`)
//! unless the caller names an encoding to assume; there is no silent ISO-8859-1 fallback.
//!
//! Labels are compared by meaning (`labels.rs`): `ISO-8859-1` and `windows-1252` agree. Every
//! disagreement between two sources is a `conflict` warning naming both sources, both labels
//! with their canonical names, and the winner. A pure-ASCII body cannot disagree with an
//! ASCII-compatible label. A charset given only by the HTTP header is a notice, because a copy
//! saved without the header loses it.

use serde::Serialize;

use super::bom::{byte_order_mark_length, encoding_from_byte_order_mark};
use super::content_type::encoding_from_content_type;
use super::detect::{
    ByteEvidence, DetectionMethod, detect_from_bytes, wide_unicode_from_first_chars,
};
use super::http_message::HttpMessage;
use super::labels::{KnownEncoding, labels_agree};
use super::meta::encoding_from_meta_element;
use super::source::Source;
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use super::xml::encoding_from_xml_declarations;

/// How far into a document the policy looks for `<meta>`. HTML5 wants the declaration in the
/// first 1024 bytes and HTML 4 in `<head>`; a mebibyte is generous for both and keeps a
/// multi-gigabyte file without `</head>` from being decoded whole.
pub const META_SCAN_LIMIT: usize = 1 << 20;

/// Options of [`determine`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyOptions {
    /// An encoding label to use when nothing else decides (source `assumed`); without it that
    /// case is the `no-charset` error.
    pub assume: Option<String>,
    /// Whether an XML declaration counts as a declaration (HTML::Encoding's `xhtml`); on.
    pub xhtml: bool,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        Self {
            assume: None,
            xhtml: true,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The encoding cannot be determined.
    Error,
    /// Sources disagree, or a label means nothing.
    Warning,
    /// Worth knowing; nothing is wrong.
    Notice,
}

/// What a diagnostic is about; serialises as the kebab-case code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticCode {
    /// Two sources name different encodings (warning).
    Conflict,
    /// Only the HTTP header names the encoding (notice).
    CharsetOnlyInHeader,
    /// Nothing determines the encoding (error).
    NoCharset,
    /// A label is not in the WHATWG table, so it is ignored (warning).
    UnknownLabel,
    /// Only the bytes identify the encoding; nothing declares it (notice).
    NotDeclared,
    /// The statistical guess differs from the encoding used (notice).
    GuessDiffers,
    /// The caller's fallback was used (notice).
    Assumed,
}

/// One finding about a document's encoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// How serious it is.
    pub level: Level,
    /// What it is about.
    pub code: DiagnosticCode,
    /// The details, for a person.
    pub message: String,
}

/// One source's claim, as declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declaration {
    /// `protocol`, `bom`, `xml` or `meta`.
    pub source: Source,
    /// The label as written (for a BOM, the encoding it marks).
    pub label: String,
    /// The canonical name, or `None` if the label is unknown.
    pub encoding: Option<String>,
}

/// The outcome of [`determine`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Determination {
    /// The canonical name of the encoding to use, or `None` if undeterminable.
    pub encoding: Option<String>,
    /// The label as the winning source gave it.
    pub label: Option<String>,
    /// The winning source.
    pub source: Option<Source>,
    /// Every declaration found, in priority order (header, BOM, XML, each `<meta>`).
    pub declared: Vec<Declaration>,
    /// What the bytes say.
    pub detected: Option<ByteEvidence>,
    /// Disagreements and other findings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Determination {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.level == Level::Error)
    }

    /// The diagnostics with the given code.
    pub fn diagnostics_with(&self, code: DiagnosticCode) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(move |d| d.code == code)
    }
}

/// A source whose label resolved to a known encoding.
#[derive(Debug, Clone)]
struct Claim {
    source: Source,
    label: String,
    encoding: KnownEncoding,
}

impl Claim {
    fn agrees_with(&self, other: &Claim) -> bool {
        labels_agree((&self.label, self.encoding), (&other.label, other.encoding))
    }

    fn describe(&self) -> String {
        format!(
            "{} \"{}\" ({})",
            self.source,
            self.label,
            self.encoding.name()
        )
    }
}

/// Determines the encoding of `document` (an entity body, BOM included) given the raw value
/// of its `Content-Type` header, if any.
pub fn determine(
    document: &[u8],
    content_type: Option<&[u8]>,
    options: &PolicyOptions,
) -> Determination {
    let bom = encoding_from_byte_order_mark(document, DEFAULT_SUSPECTS)
        .into_iter()
        .next();
    let body = bom.map_or(document, |bom| {
        document
            .get(byte_order_mark_length(document, bom)..)
            .unwrap_or_default()
    });
    let declared = gather_declarations(document, content_type, bom, options);
    let detected = detect_from_bytes(body);
    let mut diagnostics = Vec::new();

    let mut claims: Vec<Claim> = Vec::new();
    for declaration in &declared {
        match KnownEncoding::for_label(&declaration.label) {
            Some(encoding) => claims.push(Claim {
                source: declaration.source,
                label: declaration.label.clone(),
                encoding,
            }),
            None => diagnostics.push(Diagnostic {
                level: Level::Warning,
                code: DiagnosticCode::UnknownLabel,
                message: format!(
                    "{} declares \"{}\", which is not a known encoding label; it is ignored",
                    declaration.source, declaration.label
                ),
            }),
        }
    }
    if let Some(claim) = detected.as_ref().and_then(identified_claim) {
        let after_bom = claims
            .iter()
            .position(|c| !matches!(c.source, Source::Protocol | Source::Bom))
            .unwrap_or(claims.len());
        claims.insert(after_bom, claim);
    }

    let mut winner = choose_winner(&claims).cloned();
    diagnostics.extend(conflicts(&claims, detected.as_ref(), winner.as_ref()));
    diagnostics.extend(notices(&declared, detected.as_ref(), winner.as_ref()));

    if winner.is_none() {
        match assumed_claim(options.assume.as_deref()) {
            Some(claim) => {
                diagnostics.push(Diagnostic {
                    level: Level::Notice,
                    code: DiagnosticCode::Assumed,
                    message: format!(
                        "no charset in the HTTP header, BOM, XML declaration or <meta>, and the \
                         bytes do not identify one; assuming {} as asked",
                        claim.describe()
                    ),
                });
                diagnostics.extend(guess_differs(detected.as_ref(), &claim));
                winner = Some(claim);
            }
            None => {
                if let Some(label) = &options.assume {
                    diagnostics.push(Diagnostic {
                        level: Level::Warning,
                        code: DiagnosticCode::UnknownLabel,
                        message: format!(
                            "the encoding to assume, \"{label}\", is not a known encoding label"
                        ),
                    });
                }
                diagnostics.push(no_charset(detected.as_ref()));
            }
        }
    }

    Determination {
        encoding: winner.as_ref().map(|w| w.encoding.name().to_owned()),
        label: winner.as_ref().map(|w| w.label.clone()),
        source: winner.as_ref().map(|w| w.source),
        declared,
        detected,
        diagnostics,
    }
}

/// [`determine`] for a parsed HTTP message: its body and its (joined) `Content-Type`.
pub fn determine_http_message(message: &HttpMessage<'_>, options: &PolicyOptions) -> Determination {
    let content_type = message.header("Content-Type");
    determine(message.body, content_type.as_deref(), options)
}

fn gather_declarations(
    document: &[u8],
    content_type: Option<&[u8]>,
    bom: Option<Suspect>,
    options: &PolicyOptions,
) -> Vec<Declaration> {
    let mut labels: Vec<(Source, String)> = Vec::new();
    if let Some(charset) = content_type.and_then(encoding_from_content_type) {
        labels.push((Source::Protocol, charset));
    }
    if let Some(bom) = bom {
        labels.push((Source::Bom, bom.name().to_owned()));
    }
    if options.xhtml
        && let Some(xml) = encoding_from_xml_declarations(document, DEFAULT_SUSPECTS)
            .into_iter()
            .next()
    {
        labels.push((Source::Xml, xml));
    }
    let reading = bom
        .or_else(|| wide_unicode_from_first_chars(document))
        .unwrap_or(Suspect::Iso8859_1);
    let head = document.get(..META_SCAN_LIMIT).unwrap_or(document);
    for meta in encoding_from_meta_element(head, reading) {
        labels.push((Source::Meta, meta));
    }
    labels
        .into_iter()
        .map(|(source, label)| Declaration {
            encoding: KnownEncoding::for_label(&label).map(|e| e.name().to_owned()),
            source,
            label,
        })
        .collect()
}

/// The bytes' evidence as a claim, if it identifies an encoding (a guess does not).
fn identified_claim(evidence: &ByteEvidence) -> Option<Claim> {
    if evidence.guess {
        return None;
    }
    let label = evidence.encoding.clone()?;
    Some(Claim {
        source: Source::Detected,
        encoding: KnownEncoding::for_label(&label)?,
        label,
    })
}

fn assumed_claim(label: Option<&str>) -> Option<Claim> {
    let label = label?;
    Some(Claim {
        source: Source::Assumed,
        encoding: KnownEncoding::for_label(label)?,
        label: label.to_owned(),
    })
}

/// Header, then BOM; then the bytes, unless an in-document declaration agrees with them (it is
/// then named instead); then the XML declaration, then the first `<meta>`.
fn choose_winner(claims: &[Claim]) -> Option<&Claim> {
    let first_from = |source: Source| claims.iter().find(|c| c.source == source);
    if let Some(transport) = first_from(Source::Protocol).or_else(|| first_from(Source::Bom)) {
        return Some(transport);
    }
    let in_document = first_from(Source::Xml).or_else(|| first_from(Source::Meta));
    match (first_from(Source::Detected), in_document) {
        (Some(bytes), Some(declared)) if bytes.agrees_with(declared) => Some(declared),
        (Some(bytes), _) => Some(bytes),
        (None, declared) => declared,
    }
}

fn winner_phrase(winner: Option<&Claim>) -> String {
    winner.map_or_else(
        || "nothing wins".to_owned(),
        |w| format!("{} wins: {}", w.source, w.encoding.name()),
    )
}

/// A warning for every pair of claims that disagree, and for every label a pure-ASCII body
/// rules out (one that is not ASCII-compatible).
fn conflicts(
    claims: &[Claim],
    detected: Option<&ByteEvidence>,
    winner: Option<&Claim>,
) -> Vec<Diagnostic> {
    let conflict = |message: String| Diagnostic {
        level: Level::Warning,
        code: DiagnosticCode::Conflict,
        message,
    };
    let mut found = Vec::new();
    for (index, first) in claims.iter().enumerate() {
        for second in claims.iter().skip(index + 1) {
            if !first.agrees_with(second) {
                found.push(conflict(format!(
                    "{} disagrees with {}; {}",
                    first.describe(),
                    second.describe(),
                    winner_phrase(winner)
                )));
            }
        }
    }
    if let Some(ascii) = detected.filter(|d| d.method == DetectionMethod::Ascii) {
        for claim in claims.iter().filter(|c| !c.encoding.is_ascii_compatible()) {
            found.push(conflict(format!(
                "{} is not ASCII-compatible, but detected: {}; {}",
                claim.describe(),
                ascii.evidence,
                winner_phrase(winner)
            )));
        }
    }
    found
}

fn notices(
    declared: &[Declaration],
    detected: Option<&ByteEvidence>,
    winner: Option<&Claim>,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let Some(winner) = winner else {
        return found;
    };
    let in_document = declared.iter().any(|d| d.source != Source::Protocol);
    let bytes_say = detected
        .filter(|d| !d.guess)
        .and_then(|d| d.encoding.as_deref())
        .map(|name| format!(" (the bytes themselves identify {name})"))
        .unwrap_or_default();
    if winner.source == Source::Protocol && !in_document {
        found.push(Diagnostic {
            level: Level::Notice,
            code: DiagnosticCode::CharsetOnlyInHeader,
            message: format!(
                "only the HTTP header declares the charset, \"{}\"; a copy saved without the \
                 header loses it{bytes_say}",
                winner.label
            ),
        });
    }
    if winner.source == Source::Detected && declared.is_empty() {
        let evidence = detected.map(|d| d.evidence.as_str()).unwrap_or_default();
        found.push(Diagnostic {
            level: Level::Notice,
            code: DiagnosticCode::NotDeclared,
            message: format!(
                "nothing declares the charset; the bytes identify {} ({evidence})",
                winner.encoding.name()
            ),
        });
    }
    found.extend(guess_differs(detected, winner));
    found
}

fn guess_differs(detected: Option<&ByteEvidence>, winner: &Claim) -> Option<Diagnostic> {
    let guess = detected.filter(|d| d.guess)?;
    let guessed = KnownEncoding::for_label(guess.encoding.as_deref()?)?;
    (guessed != winner.encoding).then(|| Diagnostic {
        level: Level::Notice,
        code: DiagnosticCode::GuessDiffers,
        message: format!(
            "{} is used, but the bytes look like {} ({})",
            winner.describe(),
            guessed.name(),
            guess.evidence
        ),
    })
}

fn no_charset(detected: Option<&ByteEvidence>) -> Diagnostic {
    let evidence = detected
        .map(|d| format!("; {}", d.evidence))
        .unwrap_or_default();
    Diagnostic {
        level: Level::Error,
        code: DiagnosticCode::NoCharset,
        message: format!(
            "no charset in the HTTP header, BOM, XML declaration or <meta>, and the bytes do \
             not identify one{evidence}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(determination: &Determination) -> Vec<DiagnosticCode> {
        determination.diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn header_label_is_compared_by_meaning() {
        let doc = b"<meta charset=windows-1252><p>plain";
        let found = determine(
            doc,
            Some(b"text/html; charset=ISO-8859-1"),
            &PolicyOptions::default(),
        );
        assert_eq!(found.encoding.as_deref(), Some("windows-1252"));
        assert_eq!(found.label.as_deref(), Some("ISO-8859-1"));
        assert_eq!(found.source, Some(Source::Protocol));
        assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    }

    #[test]
    fn pure_ascii_does_not_conflict_with_an_ascii_compatible_label() {
        let found = determine(
            b"<meta charset=koi8-r><p>plain",
            None,
            &PolicyOptions::default(),
        );
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Meta), Some("KOI8-R"))
        );
        assert!(found.diagnostics.is_empty());
    }

    #[test]
    fn pure_ascii_conflicts_with_utf16() {
        let found = determine(
            b"<meta charset=utf-16><p>plain",
            None,
            &PolicyOptions::default(),
        );
        assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
    }

    #[test]
    fn the_bytes_beat_a_wrong_meta() {
        let doc = "<meta charset=iso-8859-1><p>\u{E4}\u{F6}\u{FC}".as_bytes();
        let found = determine(doc, None, &PolicyOptions::default());
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Detected), Some("UTF-8"))
        );
        assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
    }

    #[test]
    fn undeclared_utf8_is_detected_with_a_notice() {
        let found = determine("<p>\u{E4}".as_bytes(), None, &PolicyOptions::default());
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Detected), Some("UTF-8"))
        );
        assert_eq!(codes(&found), [DiagnosticCode::NotDeclared]);
    }

    #[test]
    fn unknown_labels_are_ignored_with_a_warning() {
        let found = determine(
            b"<meta charset=bogus><meta charset=koi8-r>",
            Some(b"text/html;charset=x-nope"),
            &PolicyOptions::default(),
        );
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Meta), Some("KOI8-R"))
        );
        assert_eq!(
            codes(&found),
            [DiagnosticCode::UnknownLabel, DiagnosticCode::UnknownLabel]
        );
    }

    #[test]
    fn assume_and_its_unknown_label() {
        let assume = |label: &str| PolicyOptions {
            assume: Some(label.into()),
            ..PolicyOptions::default()
        };
        let found = determine(b"<p>plain", None, &assume("latin1"));
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Assumed), Some("windows-1252"))
        );
        assert_eq!(codes(&found), [DiagnosticCode::Assumed]);
        let found = determine(b"<p>plain", None, &assume("nonsense"));
        assert_eq!(found.encoding, None);
        assert_eq!(
            codes(&found),
            [DiagnosticCode::UnknownLabel, DiagnosticCode::NoCharset]
        );
    }

    #[test]
    fn xml_declaration_outranks_meta_and_can_be_switched_off() {
        let doc = b"<?xml version='1.0' encoding='koi8-r'?><meta charset=iso-8859-2>";
        let found = determine(doc, None, &PolicyOptions::default());
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Xml), Some("KOI8-R"))
        );
        assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
        let html_only = PolicyOptions {
            xhtml: false,
            ..PolicyOptions::default()
        };
        let found = determine(doc, None, &html_only);
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Meta), Some("ISO-8859-2"))
        );
    }

    #[test]
    fn http_message_helper() {
        let raw =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\n<p>\xC3\xA4";
        let found = determine_http_message(&HttpMessage::parse(raw), &PolicyOptions::default());
        assert_eq!(
            (found.source, found.encoding.as_deref()),
            (Some(Source::Protocol), Some("UTF-8"))
        );
        assert_eq!(codes(&found), [DiagnosticCode::CharsetOnlyInHeader]);
    }

    #[test]
    fn serialises_with_lowercase_names() {
        let found = determine(b"", None, &PolicyOptions::default());
        let json = serde_json::to_string(&found).unwrap_or_default();
        assert!(json.contains(r#""level":"error""#), "{json}");
        assert!(json.contains(r#""code":"no-charset""#), "{json}");
        assert!(json.contains(r#""source":null"#), "{json}");
    }
}
