//! No input makes the charset routines panic: arbitrary bytes, markup-heavy bytes that reach
//! deep into the tag, attribute and declaration parsers, and SQL-heavy bytes for the dump
//! statement tokeniser and the survey.

use proptest::prelude::*;
use undouble::charset::{
    DEFAULT_SUSPECTS, DEFAULT_WHITESPACE, EbcdicCodePage, FileFacts, HtmlOptions, HttpMessage,
    HttpOptions, PolicyOptions, Suspect, determine, encoding_from_byte_order_mark,
    encoding_from_content_type, encoding_from_first_chars, encoding_from_html_document,
    encoding_from_html5_prescan, encoding_from_http_message, encoding_from_meta_element,
    encoding_from_xml_declaration, encoding_from_xml_document, looks_like_sql, sql_declarations,
    survey,
};

const ALL_SUSPECTS: &[Suspect] = &[
    Suspect::Iso8859_1,
    Suspect::Utf8,
    Suspect::Utf16Le,
    Suspect::Utf16Be,
    Suspect::Utf32Le,
    Suspect::Utf32Be,
    Suspect::Utf7,
    Suspect::UtfEbcdic,
    Suspect::Ebcdic(EbcdicCodePage::Cp037),
    Suspect::Whatwg(encoding_rs::SHIFT_JIS),
];

/// Bytes drawn mostly from markup punctuation, so the parsers get exercised.
fn markup_bytes() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        &b"<"[..],
        b">",
        b"<?xml ",
        b"?>",
        b"<meta ",
        b"charset",
        b"=",
        b"\"",
        b"'",
        b" ",
        b"\n",
        b"/",
        b"<!--",
        b"-->",
        b"</head>",
        b"http-equiv=content-type",
        b"content=",
        b"encoding=",
        b"\\",
        b";",
        b",",
        b"&#x",
        b"&amp;",
        b"<script>",
        b"</script",
        b"\0",
        b"\xFF\xFE",
        b"\xEF\xBB\xBF",
        b"\xC3",
        b"+/v8-",
        b"utf-16",
        b"a",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|pieces| pieces.concat())
}

fn exercise(bytes: &[u8]) {
    let _ = encoding_from_content_type(bytes);
    let _ = encoding_from_byte_order_mark(bytes, ALL_SUSPECTS);
    let _ = encoding_from_first_chars(bytes, ALL_SUSPECTS, DEFAULT_WHITESPACE);
    let _ = encoding_from_xml_document(bytes, ALL_SUSPECTS);
    let _ = encoding_from_xml_declaration(&String::from_utf8_lossy(bytes));
    for &suspect in ALL_SUSPECTS {
        let _ = suspect.decode_prefix(bytes);
        let _ = encoding_from_meta_element(bytes, suspect);
    }
    let options = HtmlOptions {
        suspects: ALL_SUSPECTS.to_vec(),
        xhtml: true,
    };
    let _ = encoding_from_html_document(bytes, &options);
    let _ = encoding_from_html5_prescan(bytes);
    let _ = encoding_from_http_message(&HttpMessage::parse(bytes), &HttpOptions::default());
    let _ = determine(bytes, Some(bytes), &PolicyOptions::default());
    let _ = sql_declarations(bytes);
    let _ = looks_like_sql(bytes);
    let length = bytes.len() as u64;
    for first_invalid_offset in [
        None,
        Some(0),
        Some(length / 2),
        Some(length),
        Some(u64::MAX),
    ] {
        let facts = FileFacts {
            first_invalid_offset,
            non_ascii_chars: length,
            double_encoded: length / 3,
        };
        let _ = survey(bytes, &facts);
    }
}

/// Bytes drawn mostly from SQL dump syntax, so the statement tokeniser gets exercised.
fn sql_bytes() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        &b"SET "[..],
        b"NAMES ",
        b"CHARACTER SET ",
        b"CHARSET",
        b"character_set_client",
        b"client_encoding",
        b"CREATE ",
        b"TABLE ",
        b"DATABASE ",
        b"DEFAULT ",
        b"COLLATE ",
        b"ENCODING ",
        b"IF NOT EXISTS ",
        b"/*!40101 ",
        b"/*M!100100 ",
        b"*/",
        b"/*",
        b"-- ",
        b"#",
        b"(",
        b")",
        b",",
        b";",
        b"=",
        b"'",
        b"\"",
        b"`",
        b"\\",
        b".",
        b"@@",
        b"latin1",
        b"utf8mb4",
        b"\n",
        b"\r\n",
        b" ",
        b"\xEF\xBB\xBF",
        b"\xC3\xA4",
        b"\xE4",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn charset_routines_survive_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        exercise(&bytes);
    }

    #[test]
    fn charset_routines_survive_markup(bytes in markup_bytes()) {
        exercise(&bytes);
    }

    #[test]
    fn charset_routines_survive_sql(bytes in sql_bytes()) {
        exercise(&bytes);
    }

    #[test]
    fn charset_suspects_round_trip_their_characters(text in "[ -~\u{A0}-\u{FF}\u{2028}\u{FEFF}]{0,20}") {
        for suspect in DEFAULT_SUSPECTS.iter().chain(&[Suspect::Utf7, Suspect::UtfEbcdic]) {
            let bytes: Vec<u8> = text
                .chars()
                .flat_map(|c| suspect.encode_char(c).unwrap_or_default())
                .collect();
            if text.chars().all(|c| suspect.encode_char(c).is_some()) {
                prop_assert_eq!(suspect.decode_strict(&bytes), Some(text.clone()), "{}", suspect.name());
            }
        }
    }
}
