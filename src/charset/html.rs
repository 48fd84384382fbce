//! The encoding of an HTML or XHTML document (`encoding_from_html_document`).
//!
//! HTML::Encoding avoids deciding whether a document is HTML or XHTML. With the `xhtml`
//! option (on by default) it tries the XML route first (BOM, then XML declaration); without
//! it, only the BOM. Failing that, it finds the encoding family from the first characters
//! (falling back to every suspect) and collects the `<meta>` declarations as each candidate
//! reads them. So a `text/html` document with both an XML declaration and a `<meta>` gets the
//! XML declaration's answer, as the module's documentation explains.

use rustc_hash::FxHashSet as HashSet;

use super::bom::encoding_from_byte_order_mark;
use super::first_chars::{DEFAULT_WHITESPACE, encoding_from_first_chars};
use super::meta::encoding_from_meta_element;
use super::source::{Source, SourcedEncoding};
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use super::xml::encoding_from_xml_document;

/// Options of [`encoding_from_html_document`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlOptions {
    /// The suspected encodings (`encodings`); [`DEFAULT_SUSPECTS`] by default.
    pub suspects: Vec<Suspect>,
    /// Whether an XML declaration counts (`xhtml`); on by default.
    pub xhtml: bool,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        Self {
            suspects: DEFAULT_SUSPECTS.to_vec(),
            xhtml: true,
        }
    }
}

/// The declared encoding of an HTML document, with its source (`bom`, `xml` or `meta`);
/// `None` if nothing declares one. Duplicate `<meta>` answers (the same element read by two
/// suspects) are listed once.
pub fn encoding_from_html_document(
    octets: &[u8],
    options: &HtmlOptions,
) -> Option<SourcedEncoding> {
    if octets.is_empty() {
        return None;
    }
    if options.xhtml {
        if let Some(answer) = encoding_from_xml_document(octets, &options.suspects) {
            return Some(answer);
        }
    } else {
        let boms = encoding_from_byte_order_mark(octets, &options.suspects);
        let names = boms.iter().map(|s| s.name().to_owned()).collect();
        if let Some(answer) = SourcedEncoding::from_candidates(Source::Bom, names) {
            return Some(answer);
        }
    }
    let mut readings = encoding_from_first_chars(octets, &options.suspects, DEFAULT_WHITESPACE);
    if readings.is_empty() {
        readings.clone_from(&options.suspects);
    }
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::default();
    for reading in readings {
        for charset in encoding_from_meta_element(octets, reading) {
            if seen.insert(charset.clone()) {
                found.push(charset);
            }
        }
    }
    SourcedEncoding::from_candidates(Source::Meta, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HTML_WITH_XML_DECLARATION: &[u8] = b"<?xml version='1.0' encoding='utf-8'?>\n\
        <!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"\n\
        \"http://www.w3.org/TR/html4/strict.dtd\">\n\
        <meta http-equiv = \"Content-Type\"\n content = \"text/html;charset=iso-8859-2\">\n\
        <title></title>\n<p>...</p>";

    /// The documentation's first discussion example: the XML declaration wins under `xhtml`.
    #[test]
    fn xml_declaration_wins_by_default() {
        let answer =
            encoding_from_html_document(HTML_WITH_XML_DECLARATION, &HtmlOptions::default());
        assert_eq!(
            answer.map(|a| (a.source, a.encoding)),
            Some((Source::Xml, "utf-8".into()))
        );
    }

    #[test]
    fn without_xhtml_the_meta_element_counts() {
        let options = HtmlOptions {
            xhtml: false,
            ..HtmlOptions::default()
        };
        let answer = encoding_from_html_document(HTML_WITH_XML_DECLARATION, &options);
        assert_eq!(
            answer.map(|a| (a.source, a.encoding)),
            Some((Source::Meta, "iso-8859-2".into()))
        );
    }

    /// The documentation's second example: an XML declaration without encoding falls through to
    /// meta.
    #[test]
    fn xml_declaration_without_encoding_falls_through() {
        let doc = b"<?xml version='1.0'?>\n<meta http-equiv='Content-Type' \
            content='text/html;charset=iso-8859-2'><title></title>";
        let answer = encoding_from_html_document(doc, &HtmlOptions::default());
        assert_eq!(
            answer.map(|a| (a.source, a.encoding)),
            Some((Source::Meta, "iso-8859-2".into()))
        );
    }

    #[test]
    fn bom_beats_meta() {
        let doc = b"\xEF\xBB\xBF<meta charset=iso-8859-1>";
        for xhtml in [true, false] {
            let options = HtmlOptions {
                xhtml,
                ..HtmlOptions::default()
            };
            let answer = encoding_from_html_document(doc, &options);
            assert_eq!(
                answer.map(|a| (a.source, a.encoding)),
                Some((Source::Bom, "UTF-8".into()))
            );
        }
    }

    #[test]
    fn utf16_without_bom_is_read_through_its_first_characters() {
        let doc: Vec<u8> = "<html><meta charset=utf-16le>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let answer = encoding_from_html_document(&doc, &HtmlOptions::default());
        assert_eq!(
            answer.map(|a| (a.source, a.encoding)),
            Some((Source::Meta, "utf-16le".into()))
        );
    }

    #[test]
    fn nothing_declared() {
        assert_eq!(
            encoding_from_html_document(b"<p>hi", &HtmlOptions::default()),
            None
        );
        assert_eq!(
            encoding_from_html_document(b"", &HtmlOptions::default()),
            None
        );
    }
}
