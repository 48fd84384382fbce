//! `<meta>` declarations (`encoding_from_meta_element`).
//!
//! The document is decoded with one suspected encoding as far as it decodes cleanly, then
//! scanned for `<meta>` start tags until `</head>`, the first decoding error, or the end of
//! the input, whichever comes first. Both forms count, in document order:
//!
//! - `<meta http-equiv=Content-Type content="text/html; charset=...">`, read with
//!   [`encoding_from_content_type`], as HTML::Encoding does;
//! - `<meta charset=...>`, the HTML5 form, which postdates the 2004 module but is what most
//!   documents use today.

use super::content_type::{encoding_from_content_type, tidy_label};
use super::html_tags::{Tag, tags};
use super::suspect::Suspect;

/// How many octets are decoded and scanned first; the window grows eightfold until
/// `</head>` is seen or the input is exhausted, so a large document with an early `</head>`
/// is never decoded whole (HTML::Encoding feeds its parser 8192 octets at a time likewise).
const FIRST_WINDOW: usize = 8192;

/// Every charset the `<meta>` elements of `octets` declare, read as `encoding`, in document
/// order; empty if there is none.
pub fn encoding_from_meta_element(octets: &[u8], encoding: Suspect) -> Vec<String> {
    let mut window = FIRST_WINDOW;
    loop {
        let prefix = octets.get(..window).unwrap_or(octets);
        let (found, head_closed) = metas_before_head_end(&encoding.decode_prefix(prefix).text);
        if head_closed || prefix.len() == octets.len() {
            return found;
        }
        window = window.saturating_mul(8);
    }
}

/// The charsets declared before `</head>` in `text`, and whether `</head>` was reached. A
/// window's text is a prefix of the whole text, and every tag before `</head>` ends before it,
/// so a window that reaches `</head>` gives the same answer as the whole document.
fn metas_before_head_end(text: &str) -> (Vec<String>, bool) {
    let mut found = Vec::new();
    for tag in tags(text) {
        match tag {
            Tag::End { name } if name == "head" => return (found, true),
            Tag::Start { name, attributes } if name == "meta" => {
                found.extend(charsets_of_meta(&attributes));
            }
            _ => {}
        }
    }
    (found, false)
}

/// The charsets one `<meta>` element declares: the `http-equiv` form first, then `charset`.
fn charsets_of_meta(attributes: &[(String, String)]) -> Vec<String> {
    let attribute = |wanted: &str| {
        attributes
            .iter()
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.as_str())
    };
    let pragma = attribute("http-equiv")
        .filter(|equiv| equiv.eq_ignore_ascii_case("content-type"))
        .and(attribute("content"))
        .and_then(|content| encoding_from_content_type(content.as_bytes()));
    let html5 = attribute("charset").and_then(|charset| tidy_label(charset.as_bytes()));
    pragma.into_iter().chain(html5).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn both_forms_in_document_order() {
        let doc = b"<html><head><meta charset=' utf-8 '>\
            <META HTTP-EQUIV=content-type CONTENT='text/html; charset=iso-8859-2'></head>";
        assert_eq!(
            encoding_from_meta_element(doc, Suspect::Iso8859_1),
            ["utf-8", "iso-8859-2"]
        );
    }

    #[test]
    fn other_meta_elements_do_not_count() {
        let doc = br#"<meta name="Content-Type" content="text/html; charset=x">
            <meta http-equiv="Content-Style-Type" content="text/html; charset=y">
            <meta http-equiv="Content-Type">"#;
        assert!(encoding_from_meta_element(doc, Suspect::Iso8859_1).is_empty());
    }

    #[test]
    fn stops_at_end_of_head() {
        let doc = b"<head></head><meta charset=late>";
        assert!(encoding_from_meta_element(doc, Suspect::Utf8).is_empty());
    }

    #[test]
    fn stops_at_a_decoding_error() {
        let doc = b"<title>\xFF</title><meta charset=after-error>";
        assert!(encoding_from_meta_element(doc, Suspect::Utf8).is_empty());
        assert_eq!(
            encoding_from_meta_element(doc, Suspect::Iso8859_1),
            ["after-error"]
        );
    }

    #[test]
    fn reads_utf16_when_told_to() {
        let doc = utf16le("<meta http-equiv=Content-Type content='text/html;charset=utf-16'>");
        assert_eq!(
            encoding_from_meta_element(&doc, Suspect::Utf16Le),
            ["utf-16"]
        );
        assert!(encoding_from_meta_element(&doc, Suspect::Iso8859_1).is_empty());
    }

    #[test]
    fn finds_declarations_beyond_the_first_window() {
        let mut doc = b"<head><!-- ".to_vec();
        doc.extend(std::iter::repeat_n(b'x', 3 * FIRST_WINDOW));
        doc.extend_from_slice(b" --><meta charset=late></head><meta charset=after-head>");
        assert_eq!(encoding_from_meta_element(&doc, Suspect::Utf8), ["late"]);
        let tail = b"</head><meta charset=after-head>".len();
        let without_head_end = doc.get(..doc.len() - tail).unwrap_or_default();
        assert_eq!(
            encoding_from_meta_element(without_head_end, Suspect::Utf8),
            ["late"]
        );
    }

    #[test]
    fn empty_input() {
        assert!(encoding_from_meta_element(b"", Suspect::Utf8).is_empty());
    }
}
