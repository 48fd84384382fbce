//! The encoding of an HTTP message's body (`encoding_from_http_message`).
//!
//! The media type decides which rules apply. For XML types (`*/xml`, `*/*+xml`) a header
//! charset wins, then (at the caller's option) the RFC 3023 `text/xml` default, then the
//! document's BOM or XML declaration, then the XML default UTF-8. For `text/html` a header
//! charset wins, then whatever [`encoding_from_html_document`] finds, then the RFC 2616
//! default ISO-8859-1. Anything else gets no answer. Only the first component of the first
//! `Content-Type` matters: duplicate headers are joined with `", "` as HTTP::Headers does, and
//! the joined value's first component is read.

use super::content_type::encoding_from_content_type;
use super::html::{HtmlOptions, encoding_from_html_document};
use super::http_message::HttpMessage;
use super::source::{Source, SourcedEncoding};
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use super::xml::encoding_from_xml_document;

/// Options of [`encoding_from_http_message`], with the Perl module's defaults.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Suspected encodings for the body (`encodings`).
    pub suspects: Vec<Suspect>,
    /// Which media types get HTML rules (`is_html`); default [`is_html_media_type`].
    pub is_html: fn(&str) -> bool,
    /// Which media types get XML rules (`is_xml`); default [`is_xml_media_type`].
    pub is_xml: fn(&str) -> bool,
    /// Which XML media types get `text_xml_default` (`is_text_xml`); default
    /// [`is_text_xml_media_type`].
    pub is_text_xml: fn(&str) -> bool,
    /// Default for HTML (`html_default`): `ISO-8859-1` (RFC 2616).
    pub html_default: String,
    /// Default for XML (`xml_default`): `UTF-8`.
    pub xml_default: String,
    /// Default for `text/xml` without charset (`text_xml_default`): none; RFC 3023 would say
    /// `US-ASCII`, which the module leaves off because RFC 2616 and practice disagree.
    pub text_xml_default: Option<String>,
    /// Whether an HTML body's XML declaration counts (`xhtml`): on.
    pub xhtml: bool,
    /// Whether to fall back to the default when nothing is declared (`default`): on.
    pub default: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            suspects: DEFAULT_SUSPECTS.to_vec(),
            is_html: is_html_media_type,
            is_xml: is_xml_media_type,
            is_text_xml: is_text_xml_media_type,
            html_default: "ISO-8859-1".to_owned(),
            xml_default: "UTF-8".to_owned(),
            text_xml_default: None,
            xhtml: true,
            default: true,
        }
    }
}

/// `qr{^text/html$}i`.
pub fn is_html_media_type(media_type: &str) -> bool {
    media_type.eq_ignore_ascii_case("text/html")
}

/// `qr{^.+/(?:.+\+)?xml$}i`: `application/xml`, `image/svg+xml`, ...
pub fn is_xml_media_type(media_type: &str) -> bool {
    let lower = media_type.to_ascii_lowercase();
    let Some(head) = lower.strip_suffix("xml") else {
        return false;
    };
    if let Some(kind) = head.strip_suffix('/') {
        return !kind.is_empty();
    }
    head.strip_suffix('+')
        .and_then(|kind| kind.rsplit_once('/'))
        .is_some_and(|(major, minor)| !major.is_empty() && !minor.is_empty())
}

/// `qr{^text/(?:.+\+)?xml$}i`: `text/xml`, `text/xsl+xml`, ...
pub fn is_text_xml_media_type(media_type: &str) -> bool {
    let lower = media_type.to_ascii_lowercase();
    match lower
        .strip_prefix("text/")
        .and_then(|rest| rest.strip_suffix("xml"))
    {
        Some("") => true,
        Some(middle) => middle
            .strip_suffix('+')
            .is_some_and(|name| !name.is_empty()),
        None => false,
    }
}

/// The encoding of the body of `message`, with its source (`protocol`, `protocol_default`,
/// `bom`, `xml`, `meta` or `default`); `None` if the media type is neither HTML nor XML, or
/// nothing applies and `default` is off.
pub fn encoding_from_http_message(
    message: &HttpMessage<'_>,
    options: &HttpOptions,
) -> Option<SourcedEncoding> {
    let charset = message
        .header("Content-Type")
        .and_then(|value| encoding_from_content_type(&value));
    let media_type = message.media_type();
    let single = |source: Source, name: &str| {
        SourcedEncoding::from_candidates(source, vec![name.to_owned()])
    };

    if (options.is_xml)(&media_type) {
        if let Some(charset) = &charset {
            return single(Source::Protocol, charset);
        }
        if let Some(text_xml_default) = &options.text_xml_default
            && (options.is_text_xml)(&media_type)
        {
            return single(Source::ProtocolDefault, text_xml_default);
        }
        if let Some(answer) = encoding_from_xml_document(message.body, &options.suspects) {
            return Some(answer);
        }
        return options
            .default
            .then(|| single(Source::Default, &options.xml_default))
            .flatten();
    }

    if (options.is_html)(&media_type) {
        if let Some(charset) = &charset {
            return single(Source::Protocol, charset);
        }
        let html_options = HtmlOptions {
            suspects: options.suspects.clone(),
            xhtml: options.xhtml,
        };
        if let Some(answer) = encoding_from_html_document(message.body, &html_options) {
            return Some(answer);
        }
        return options
            .default
            .then(|| single(Source::Default, &options.html_default))
            .flatten();
    }

    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(raw: &[u8], options: &HttpOptions) -> Option<(Source, String)> {
        encoding_from_http_message(&HttpMessage::parse(raw), options)
            .map(|a| (a.source, a.encoding))
    }

    #[test]
    fn media_type_rules() {
        assert!(is_html_media_type("TEXT/HTML"));
        assert!(!is_html_media_type("text/html2"));
        for xml in [
            "application/xml",
            "text/xml",
            "image/svg+xml",
            "application/xhtml+xml",
            "a/b/xml",
        ] {
            assert!(is_xml_media_type(xml), "{xml}");
        }
        for not_xml in [
            "xml",
            "/xml",
            "text/fooxml",
            "+xml",
            "application/+xml",
            "text/html",
        ] {
            assert!(!is_xml_media_type(not_xml), "{not_xml}");
        }
        assert!(is_text_xml_media_type("text/xml"));
        assert!(is_text_xml_media_type("Text/XSL+XML"));
        assert!(!is_text_xml_media_type("application/xml"));
        assert!(!is_text_xml_media_type("text/+xml"));
    }

    #[test]
    fn html_rules() {
        let options = HttpOptions::default();
        let header = b"HTTP/1.1 200 OK\r\nContent-Type: text/html;charset=koi8-r\r\n\r\n<meta charset=utf-8>";
        assert_eq!(
            answer(header, &options),
            Some((Source::Protocol, "koi8-r".into()))
        );
        let meta = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<meta charset=utf-8>";
        assert_eq!(answer(meta, &options), Some((Source::Meta, "utf-8".into())));
        let nothing = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>";
        assert_eq!(
            answer(nothing, &options),
            Some((Source::Default, "ISO-8859-1".into()))
        );
        let no_default = HttpOptions {
            default: false,
            ..HttpOptions::default()
        };
        assert_eq!(answer(nothing, &no_default), None);
    }

    #[test]
    fn xml_rules() {
        let options = HttpOptions::default();
        let declared = b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n\r\n<?xml version='1.0' encoding='koi8-r'?><a/>";
        assert_eq!(
            answer(declared, &options),
            Some((Source::Xml, "koi8-r".into()))
        );
        let bare = b"HTTP/1.1 200 OK\r\nContent-Type: image/svg+xml\r\n\r\n<svg/>";
        assert_eq!(
            answer(bare, &options),
            Some((Source::Default, "UTF-8".into()))
        );
        let text_xml =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n\r\n<?xml encoding='koi8-r'?><a/>";
        assert_eq!(
            answer(text_xml, &options),
            Some((Source::Xml, "koi8-r".into()))
        );
        let rfc3023 = HttpOptions {
            text_xml_default: Some("US-ASCII".into()),
            ..HttpOptions::default()
        };
        assert_eq!(
            answer(text_xml, &rfc3023),
            Some((Source::ProtocolDefault, "US-ASCII".into()))
        );
    }

    #[test]
    fn other_media_types_get_no_answer() {
        let options = HttpOptions::default();
        assert_eq!(
            answer(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain;charset=x\r\n\r\n",
                &options
            ),
            None
        );
        assert_eq!(
            answer(b"HTTP/1.1 200 OK\r\n\r\n<meta charset=utf-8>", &options),
            None
        );
    }
}
