//! The tests of the policy: which source wins, which conflicts are told and how sure the
//! answer is, for each kind of document. They are apart so that the policy's file holds only
//! the policy.

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
    let found = determine(b"<p>plain\xFF", None, &assume("nonsense"));
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
    let raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\n<p>\xC3\xA4";
    let found = determine_http_message(&HttpMessage::parse(raw), &PolicyOptions::default());
    assert_eq!(
        (found.source, found.encoding.as_deref()),
        (Some(Source::Protocol), Some("UTF-8"))
    );
    assert_eq!(codes(&found), [DiagnosticCode::CharsetOnlyInHeader]);
}

#[test]
fn a_dump_declares_through_its_connection_statements() {
    let dump = "-- MySQL dump\n/*!40101 SET NAMES utf8 */;\n/*!50503 SET NAMES utf8mb4 */;\n\
            INSERT INTO t VALUES ('<meta charset=koi8-r>','\u{E4}');\n";
    let found = determine(dump.as_bytes(), None, &PolicyOptions::default());
    assert_eq!(
        (
            found.source,
            found.encoding.as_deref(),
            found.label.as_deref()
        ),
        (Some(Source::Sql), Some("UTF-8"), Some("utf8mb4"))
    );
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.declared.len(), 2);
    let json = serde_json::to_value(&found).unwrap_or_default();
    assert_eq!(json["declared"][1]["statement"], "set-names");
    assert_eq!(json["declared"][1]["line"], 3);
    assert!(json["declared"][0].get("offset").is_some());
    assert!(json["detected"].get("confidence").is_none());

    let wrong = "SET NAMES latin1;\nINSERT INTO t VALUES ('\u{E4}');\n";
    let found = determine(wrong.as_bytes(), None, &PolicyOptions::default());
    assert_eq!(
        (found.source, found.encoding.as_deref()),
        (Some(Source::Detected), Some("UTF-8"))
    );
    assert_eq!(codes(&found), [DiagnosticCode::Conflict]);
    assert_eq!(
        found.diagnostics[0].message,
        "detected \"UTF-8\" (UTF-8) disagrees with sql \"latin1\" (windows-1252; SET NAMES, \
             line 1); detected wins: UTF-8"
    );
}

#[test]
fn sql_ascii_declares_no_encoding() {
    let dump = b"SET client_encoding = 'SQL_ASCII';\nCOPY t (a) FROM stdin;\nplain\n\\.\n";
    let found = determine(dump, None, &PolicyOptions::default());
    assert_eq!(found.encoding.as_deref(), Some(ASCII));
    assert_eq!(
        codes(&found),
        [DiagnosticCode::NoEncoding, DiagnosticCode::AsciiOnly]
    );
    assert!(
        found.diagnostics[0]
            .message
            .contains("\"SQL_ASCII\" (SET client_encoding, line 1)"),
        "{:?}",
        found.diagnostics
    );
}

#[test]
fn a_utf16_bom_before_plain_text_is_not_contradicted_by_ascii_bytes() {
    let document: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Hello".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let found = determine(&document, None, &PolicyOptions::default());
    assert_eq!(
        (found.source, found.encoding.as_deref()),
        (Some(Source::Bom), Some("UTF-16LE"))
    );
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

#[test]
fn a_confident_guess_is_the_answer_and_says_so() {
    let prose = b"Gr\xFC\xDFe aus K\xF6ln, sch\xF6ne Stra\xDFe, \xC4rger \xFCber \xD6l. ".repeat(4);
    let found = determine(&prose, None, &PolicyOptions::default());
    assert_eq!(
        (found.source, found.encoding.as_deref(), found.guess),
        (Some(Source::Detected), Some("windows-1252"), true)
    );
    assert!(found.confidence.is_some_and(|c| c.value() > 0.5));
    assert_eq!(codes(&found), [DiagnosticCode::Guessed]);
    assert!(!found.has_errors());
    let json = serde_json::to_value(&found).unwrap_or_default();
    assert!(json["confidence"].is_f64(), "{json}");

    let strict = PolicyOptions {
        min_confidence: Score::from_value(1.0).unwrap_or_default(),
        ..PolicyOptions::default()
    };
    let found = determine(&prose, None, &strict);
    assert_eq!((found.encoding.as_deref(), found.guess), (None, false));
    assert_eq!(codes(&found), [DiagnosticCode::NoCharset]);
    assert!(found.diagnostics[0].message.contains("too little evidence"));
}

#[test]
fn ascii_and_empty_documents_are_answered() {
    for (document, code) in [
        (&b"<p>plain"[..], DiagnosticCode::AsciiOnly),
        (b"", DiagnosticCode::Empty),
    ] {
        let found = determine(document, None, &PolicyOptions::default());
        assert_eq!(
            (found.source, found.encoding.as_deref(), found.guess),
            (Some(Source::Detected), Some(ASCII), false)
        );
        assert_eq!(codes(&found), [code]);
    }
    let found = determine(
        b"",
        Some(b"text/plain; charset=koi8-r"),
        &PolicyOptions::default(),
    );
    assert_eq!(found.encoding.as_deref(), Some("KOI8-R"));
}

#[test]
fn names_are_what_serde_writes() {
    use DiagnosticCode::*;
    for code in [
        Conflict,
        CharsetOnlyInHeader,
        NoCharset,
        UnknownLabel,
        NotDeclared,
        GuessDiffers,
        Assumed,
        NoEncoding,
        DoubleEncoded,
        Guessed,
        AsciiOnly,
        Empty,
        Default,
    ] {
        let json = serde_json::to_string(&code).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
    }
    for level in [Level::Error, Level::Warning, Level::Notice] {
        let json = serde_json::to_string(&level).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", level.as_str()));
    }
}

#[test]
fn serialises_with_lowercase_names() {
    let found = determine(b"\xFF", None, &PolicyOptions::default());
    let json = serde_json::to_string(&found).unwrap_or_default();
    assert!(json.contains(r#""level":"error""#), "{json}");
    assert!(json.contains(r#""code":"no-charset""#), "{json}");
    assert!(json.contains(r#""source":null"#), "{json}");
}
