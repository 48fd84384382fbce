//! Validome's eleven example documents, built byte for byte (`charset_documents`),
//! through the policy. Each test asserts the winner (source, canonical name,
//! label as declared) and exactly the diagnostics the example's text describes: one conflict
//! per declaration that disagrees with the winner, naming both sources and the winner, and
//! none for bytes that only confirm a declaration already named.

mod charset_documents;

use charset_documents::{Bytes, UMLAUTS, document};
use undouble::charset::{DiagnosticCode, Level, PolicyOptions, Source, determine};

use DiagnosticCode::{CharsetOnlyInHeader, Conflict, NoCharset};

struct Example {
    content_type: &'static str,
    bytes: Bytes,
    title: &'static str,
    meta: Option<&'static str>,
    body: &'static str,
    /// Source, canonical encoding, label as declared.
    winner: Option<(Source, &'static str, &'static str)>,
    diagnostics: &'static [DiagnosticCode],
    /// Pairs of sources that must be named together in a conflict.
    conflicts: &'static [(&'static str, &'static str)],
}

fn check(example: &Example) {
    let document = document(example.title, example.meta, example.body, example.bytes);
    let found = determine(
        &document,
        Some(example.content_type.as_bytes()),
        &PolicyOptions::default(),
    );
    let context = format!("{}: {:#?}", example.title, found);

    let winner = found
        .source
        .zip(found.encoding.as_deref())
        .zip(found.label.as_deref())
        .map(|((source, encoding), label)| (source, encoding, label));
    assert_eq!(winner, example.winner, "{context}");

    let codes: Vec<DiagnosticCode> = found.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, example.diagnostics, "{context}");

    for diagnostic in found.diagnostics_with(Conflict) {
        assert_eq!(diagnostic.level, Level::Warning, "{context}");
        if let Some((source, encoding, _)) = example.winner {
            assert!(
                diagnostic
                    .message
                    .contains(&format!("{source} wins: {encoding}")),
                "{context}"
            );
        }
    }
    assert_eq!(
        found.diagnostics_with(Conflict).count(),
        example.conflicts.len(),
        "one conflict per disagreeing declaration: {context}"
    );
    for (a, b) in example.conflicts {
        let named = found.diagnostics_with(Conflict).any(|d| {
            d.message.starts_with(&format!("{a} "))
                && d.message.contains(&format!("disagrees with {b} "))
        });
        assert!(named, "no conflict naming {a} and {b} in {context}");
    }
}

#[test]
fn charset_document_without_errors() {
    check(&Example {
        content_type: "text/html; charset=ISO-8859-1",
        bytes: Bytes::Latin1,
        title: "no error",
        meta: Some("iso-8859-1"),
        body: "",
        winner: Some((Source::Protocol, "windows-1252", "ISO-8859-1")),
        diagnostics: &[],
        conflicts: &[],
    });
}

#[test]
fn charset_byte_order_mark_differs_from_meta() {
    check(&Example {
        content_type: "text/html",
        bytes: Bytes::Utf8WithBom,
        title: "Byte order Mark != Meta-Charset",
        meta: Some("ISO-8859-1"),
        body: UMLAUTS,
        winner: Some((Source::Bom, "UTF-8", "UTF-8")),
        // "That conflict should be pointed out": one; the valid UTF-8 bytes only confirm
        // the BOM.
        diagnostics: &[Conflict],
        conflicts: &[("bom", "meta")],
    });
}

#[test]
fn charset_header_differs_from_meta_utf8() {
    check(&Example {
        content_type: "text/html; charset=UTF-8",
        bytes: Bytes::Utf8,
        title: "HTTP-Header != Meta-Charset",
        meta: Some("iso-8859-1"),
        body: UMLAUTS,
        winner: Some((Source::Protocol, "UTF-8", "UTF-8")),
        diagnostics: &[Conflict],
        conflicts: &[("protocol", "meta")],
    });
}

#[test]
fn charset_only_in_meta() {
    check(&Example {
        content_type: "text/html",
        bytes: Bytes::Utf8,
        title: "missing http-charset",
        meta: Some("utf-8"),
        body: "\u{E4}\u{F6}\u{FC}\u{C4}\u{D6}\u{DC}\u{DF}?",
        // The bytes agree with the <meta>, so the <meta> is named as the source.
        winner: Some((Source::Meta, "UTF-8", "utf-8")),
        diagnostics: &[],
        conflicts: &[],
    });
}

#[test]
fn charset_only_in_header() {
    check(&Example {
        content_type: "text/html; charset=UTF-8",
        bytes: Bytes::Utf8,
        title: "missing meta-charset",
        meta: None,
        body: UMLAUTS,
        winner: Some((Source::Protocol, "UTF-8", "UTF-8")),
        diagnostics: &[CharsetOnlyInHeader],
        conflicts: &[],
    });
}

#[test]
fn charset_no_charset_anywhere() {
    let example = Example {
        content_type: "text/html",
        bytes: Bytes::Latin1,
        title: "missing all-charset",
        meta: None,
        body: UMLAUTS,
        winner: None,
        diagnostics: &[NoCharset],
        conflicts: &[],
    };
    check(&example);

    // The error names the statistical guess, which does not decide anything by itself.
    let document = document(example.title, None, example.body, Bytes::Latin1);
    let found = determine(&document, Some(b"text/html"), &PolicyOptions::default());
    assert!(found.has_errors());
    // Seven letters in a row, no word around them: German umlauts or Greek letters alike.
    let detected = found.detected.as_ref().expect("a statistical guess");
    assert!(detected.guess);
    let guessed = detected.encoding.as_deref().expect("an encoding guessed");
    assert!(
        found.diagnostics.iter().any(|d| d.message.contains(guessed)
            && d.message.contains("chardetng guesses windows-1252")
            && d.message.contains("too little evidence")),
        "{:#?}",
        found.diagnostics
    );

    // With a fallback to assume, the same document is read as asked, without an error.
    let assume = PolicyOptions {
        assume: Some("ISO-8859-1".into()),
        ..PolicyOptions::default()
    };
    let found = determine(&document, Some(b"text/html"), &assume);
    assert_eq!(found.source, Some(Source::Assumed));
    assert_eq!(found.encoding.as_deref(), Some("windows-1252"));
    assert!(!found.has_errors());
}

#[test]
fn charset_utf16_without_bom_without_errors() {
    check(&Example {
        content_type: "text/html; charset=UTF-16",
        bytes: Bytes::Utf16Le,
        title: "no error UTF-16 without byte order mark",
        meta: Some("utf-16"),
        body: "\u{E4}\u{F6}\u{FC}\u{D6}\u{C4}\u{DC}\u{DF}",
        winner: Some((Source::Protocol, "UTF-16LE", "UTF-16")),
        diagnostics: &[],
        conflicts: &[],
    });
}

#[test]
fn charset_utf16_with_bom_without_errors() {
    check(&Example {
        content_type: "text/html; charset=UTF-16",
        bytes: Bytes::Utf16LeWithBom,
        title: "no error UTF-16 with byte order mark",
        meta: Some("utf-16"),
        body: "\u{E4}\u{F6}\u{FC}\u{D6}\u{C4}\u{DC}\u{DF}",
        winner: Some((Source::Protocol, "UTF-16LE", "UTF-16")),
        diagnostics: &[],
        conflicts: &[],
    });
}

#[test]
fn charset_utf16_header_differs_from_bom() {
    check(&Example {
        content_type: "text/html; charset=ISO-8859-1",
        bytes: Bytes::Utf16LeWithBom,
        title: "UTF-16; HTTP-Header != BOM",
        meta: Some("utf-16"),
        body: "",
        winner: Some((Source::Protocol, "windows-1252", "ISO-8859-1")),
        // The header contradicts the BOM and the <meta>, one conflict each; the UTF-16
        // structure of the bytes only confirms the BOM.
        diagnostics: &[Conflict, Conflict],
        conflicts: &[("protocol", "bom"), ("protocol", "meta")],
    });
}

#[test]
fn charset_utf16_header_differs_from_meta() {
    check(&Example {
        content_type: "text/html; charset=UTF-16",
        bytes: Bytes::Utf16LeWithBom,
        title: "UTF-16; HTTP-Header != META",
        meta: Some("ISO-8859-1"),
        body: UMLAUTS,
        winner: Some((Source::Protocol, "UTF-16LE", "UTF-16")),
        diagnostics: &[Conflict],
        conflicts: &[("protocol", "meta")],
    });
}

#[test]
fn charset_utf16_bom_differs_from_meta() {
    check(&Example {
        content_type: "text/html",
        bytes: Bytes::Utf16LeWithBom,
        title: "UTF-16; BOM != META",
        meta: Some("ISO-8859-1"),
        body: UMLAUTS,
        winner: Some((Source::Bom, "UTF-16LE", "UTF-16LE")),
        diagnostics: &[Conflict],
        conflicts: &[("bom", "meta")],
    });
}

#[test]
fn charset_declarations_are_listed_with_label_and_canonical_name() {
    let document = document("x", Some("ISO-8859-1"), UMLAUTS, Bytes::Utf16LeWithBom);
    let found = determine(
        &document,
        Some(b"text/html; charset=UTF-16"),
        &PolicyOptions::default(),
    );
    let declared: Vec<(Source, &str, Option<&str>)> = found
        .declared
        .iter()
        .map(|d| (d.source, d.label.as_str(), d.encoding.as_deref()))
        .collect();
    assert_eq!(
        declared,
        [
            (Source::Protocol, "UTF-16", Some("UTF-16LE")),
            (Source::Bom, "UTF-16LE", Some("UTF-16LE")),
            (Source::Meta, "ISO-8859-1", Some("windows-1252")),
        ]
    );
    let json = serde_json::to_value(&found).unwrap_or_default();
    assert_eq!(json["source"], "protocol");
    assert_eq!(json["diagnostics"][0]["level"], "warning");
    assert_eq!(json["diagnostics"][0]["code"], "conflict");
    assert_eq!(json["detected"]["method"], "first-chars");
}

/// The bytes decide the byte order: validome's UTF-16 document in big endian, without a BOM,
/// declared `UTF-16` (which the WHATWG table reads as little endian) in the header or the
/// `<meta>`, is UTF-16BE without a word of complaint; declared `UTF-16LE`, it is a conflict.
#[test]
fn charset_the_bytes_decide_the_byte_order() {
    let big_endian: Vec<u8> = String::from_utf8(document(
        "no error UTF-16 without byte order mark",
        Some("utf-16"),
        UMLAUTS,
        Bytes::Utf8,
    ))
    .unwrap_or_default()
    .encode_utf16()
    .flat_map(u16::to_be_bytes)
    .collect();
    for content_type in ["text/html; charset=UTF-16", "text/html"] {
        let found = determine(
            &big_endian,
            Some(content_type.as_bytes()),
            &PolicyOptions::default(),
        );
        assert_eq!(found.encoding.as_deref(), Some("UTF-16BE"), "{found:#?}");
        assert!(found.diagnostics.is_empty(), "{found:#?}");
    }
    let found = determine(
        &big_endian,
        Some(b"text/html; charset=UTF-16LE"),
        &PolicyOptions::default(),
    );
    assert_eq!(found.encoding.as_deref(), Some("UTF-16LE"), "{found:#?}");
    let codes: Vec<DiagnosticCode> = found.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Conflict], "{found:#?}");
    assert!(
        found.diagnostics[0]
            .message
            .contains("detected \"UTF-16BE\"")
    );
}
