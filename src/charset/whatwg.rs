//! The browser's algorithm as an alternative policy (`detect --whatwg`): what a browser would
//! decode a page with, reported with the same declarations, evidence and conflicts as
//! validome's policy.
//!
//! The HTML Standard's order, which is not validome's: the BOM first (it beats even the HTTP
//! header), then the header's `charset`, then the `<meta>` prescan of the first 1024 bytes,
//! then a `<meta>` found later while parsing (a browser that meets one reloads the page with
//! it; the prescan run over the document's first [`META_SCAN_LIMIT`] bytes stands in for the
//! parser), then the default: windows-1252, or the caller's. A `<meta>` naming UTF-16 is read
//! as UTF-8: a `<meta>` readable as ASCII cannot be UTF-16. The bytes never decide, so what
//! they identify is compared with the answer, and a disagreement is a conflict.

use encoding_rs::Encoding;

use super::bom::split_byte_order_mark;
use super::detect::detect_after_bom;
use super::labels::KnownEncoding;
use super::policy::{
    Claim, Declaration, Determination, Diagnostic, DiagnosticCode, Gathered, Level,
    META_SCAN_LIMIT, bom_declaration, conflicts, header_declaration, identified_claim,
};
use super::prescan::{PRESCAN_LIMIT, prescan_meta};
use super::source::Source;

/// Determines the encoding of `document` as a browser does, given the raw value of its
/// `Content-Type` header, if any; `default` replaces windows-1252 as the last resort (a
/// browser's default depends on its locale).
pub fn determine_whatwg(
    document: &[u8],
    content_type: Option<&[u8]>,
    default: Option<&'static Encoding>,
) -> Determination {
    let (bom, body) = split_byte_order_mark(document);
    let header = header_declaration(content_type);
    let bom_found = bom_declaration(bom);
    let head = body.get(..PRESCAN_LIMIT).unwrap_or(body);
    let meta = prescan_meta(head).or_else(|| {
        let later = body.get(..META_SCAN_LIMIT).unwrap_or(body);
        prescan_meta(later)
    });
    let meta_found = meta.map(|meta| Gathered::from_label(Source::Meta, meta.name().to_owned()));
    let detected = detect_after_bom(body, bom);

    let mut diagnostics: Vec<Diagnostic> = header.iter().filter_map(Gathered::ignored).collect();
    // The BOM's encoding as the browser reads it: encoding_rs knows no UTF-32, and a UTF-32LE
    // BOM starts with the UTF-16LE one.
    let bom_claim = Encoding::for_bom(document).map(|(encoding, _)| Claim {
        source: Source::Bom,
        label: encoding.name().to_owned(),
        encoding: KnownEncoding::Whatwg(encoding),
        place: None,
    });
    let header_claim = header.as_ref().and_then(Gathered::claim);
    let meta_claim = meta_found.as_ref().and_then(Gathered::claim);
    let bytes_claim = detected.as_ref().and_then(identified_claim);
    let fallback = default.unwrap_or(encoding_rs::WINDOWS_1252);
    let winner = bom_claim
        .clone()
        .or_else(|| header_claim.clone())
        .or_else(|| meta_claim.clone())
        .unwrap_or_else(|| Claim {
            source: Source::Default,
            label: fallback.name().to_owned(),
            encoding: KnownEncoding::Whatwg(fallback),
            place: None,
        });
    if winner.source == Source::Default {
        diagnostics.push(Diagnostic {
            level: Level::Notice,
            code: DiagnosticCode::Default,
            message: format!(
                "no BOM, no charset in the HTTP header and no <meta> a browser reads: it falls \
                 back to its default, {}",
                fallback.name()
            ),
        });
    }
    let claims: Vec<Claim> = [header_claim, bom_claim, bytes_claim, meta_claim]
        .into_iter()
        .flatten()
        .collect();
    diagnostics.extend(conflicts(&claims, detected.as_ref(), Some(&winner)));

    let declared: Vec<Declaration> = [header, bom_found, meta_found]
        .into_iter()
        .flatten()
        .map(|g| g.declaration)
        .collect();
    Determination {
        encoding: Some(winner.encoding.name().to_owned()),
        label: Some(winner.label),
        source: Some(winner.source),
        guess: false,
        confidence: None,
        declared,
        detected,
        diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(document: &[u8], content_type: Option<&[u8]>) -> (Option<Source>, Option<String>) {
        let found = determine_whatwg(document, content_type, None);
        (found.source, found.encoding)
    }

    #[test]
    fn the_browser_order() {
        let bom_page = b"\xEF\xBB\xBF<meta charset=koi8-r>";
        assert_eq!(
            answer(bom_page, Some(b"text/html; charset=iso-8859-2")),
            (Some(Source::Bom), Some("UTF-8".into()))
        );
        assert_eq!(
            answer(
                b"<meta charset=koi8-r>",
                Some(b"text/html; charset=iso-8859-2")
            ),
            (Some(Source::Protocol), Some("ISO-8859-2".into()))
        );
        assert_eq!(
            answer(b"<meta charset=utf-16>", None),
            (Some(Source::Meta), Some("UTF-8".into()))
        );
        let late = [
            &b"<!--"[..],
            &[b'x'; 3000],
            b"-->\n<meta charset=iso-8859-2>",
        ]
        .concat();
        assert_eq!(
            answer(&late, None),
            (Some(Source::Meta), Some("ISO-8859-2".into()))
        );
        let found = determine_whatwg(b"<p>plain", None, None);
        assert_eq!(found.encoding.as_deref(), Some("windows-1252"));
        assert_eq!(found.diagnostics.len(), 1);
        assert_eq!(found.diagnostics[0].code, DiagnosticCode::Default);
        let found = determine_whatwg(b"<p>plain", None, Some(encoding_rs::SHIFT_JIS));
        assert_eq!(found.encoding.as_deref(), Some("Shift_JIS"));
    }

    #[test]
    fn the_bytes_are_compared_not_obeyed() {
        let found = determine_whatwg("<p>\u{E4}\u{F6}".as_bytes(), None, None);
        assert_eq!(found.encoding.as_deref(), Some("windows-1252"));
        let codes: Vec<DiagnosticCode> = found.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [DiagnosticCode::Default, DiagnosticCode::Conflict]);
        assert!(found.diagnostics[1].message.contains("detected \"UTF-8\""));
    }
}
