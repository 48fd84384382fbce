//! XML declarations: finding them in raw bytes and reading their `encoding` pseudo-attribute
//! (`xml_declaration_from_octets`, `encoding_from_xml_declaration`,
//! `encoding_from_xml_document`).
//!
//! Without a BOM, an XML processor has to read the declaration before it knows the encoding,
//! so HTML::Encoding tries every suspected encoding: find `<?` and the first `>` as that
//! encoding writes them, decode the bytes between strictly, and count how many encodings
//! agree on the text. The declaration text is then parsed leniently, as the module documents:
//! any `encoding='...'`/`encoding="..."` after `<?xml` counts, well-formed or not.

use memchr::memmem;

use super::bom::encoding_from_byte_order_mark;
use super::ranking::by_frequency;
use super::source::{Source, SourcedEncoding};
use super::suspect::Suspect;

/// XML white space as the module defines it (it also admits NEL and LINE SEPARATOR, which
/// XML 1.1 allows in the declaration).
fn is_xml_space(c: char) -> bool {
    matches!(c, '\t' | '\u{85}' | ' ' | '\r' | '\n' | '\u{2028}')
}

/// The value of the first `encoding` pseudo-attribute in an XML (or text) declaration, with
/// quotes and white space trimmed and inner white space collapsed; `None` if `declaration`
/// does not start with `<?xml` (any case) followed by white space or `?`, or has no quoted,
/// non-empty encoding value.
pub fn encoding_from_xml_declaration(declaration: &str) -> Option<String> {
    let target = declaration
        .get(..5)
        .filter(|start| start.eq_ignore_ascii_case("<?xml"))
        .and_then(|_| declaration.get(5..))?;
    if !target.starts_with(|c: char| is_xml_space(c) || c == '?') {
        return None;
    }
    let raw = target
        .char_indices()
        .filter(|&(at, _)| {
            target
                .get(at..at + 8)
                .is_some_and(|word| word.eq_ignore_ascii_case("encoding"))
        })
        .find_map(|(at, _)| quoted_value_after_equals(target.get(at + 8..)?))?;
    tidy_unicode_label(raw)
}

/// `\s*=\s*(['"])([^\1]+)\1` at the start of `text`, XML white space only.
fn quoted_value_after_equals(text: &str) -> Option<&str> {
    let after_equals = text.trim_start_matches(is_xml_space).strip_prefix('=')?;
    let quoted = after_equals.trim_start_matches(is_xml_space);
    let quote = quoted.chars().next().filter(|&c| c == '\'' || c == '"')?;
    let inner = quoted.get(1..)?;
    let end = inner.find(quote)?;
    inner.get(..end).filter(|value| !value.is_empty())
}

/// Trims quotes and Unicode white space from both ends, collapses inner white space.
fn tidy_unicode_label(raw: &str) -> Option<String> {
    let trimmed = raw.trim_matches(|c: char| c.is_whitespace() || c == '\'' || c == '"');
    let label = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
    (!label.is_empty()).then_some(label)
}

/// Every tentative XML declaration in `octets`, most agreed-upon first: for each suspect, the
/// text from the first `<?` to the first `>` (which must come later), strictly decoded.
pub fn xml_declaration_from_octets(octets: &[u8], suspects: &[Suspect]) -> Vec<String> {
    let declarations = suspects.iter().filter_map(|&suspect| {
        let greater_than = suspect.encode_char('>')?;
        let mut open = suspect.encode_char('<')?;
        open.extend(suspect.encode_char('?')?);
        let end = memmem::find(octets, &greater_than)?;
        let start = memmem::find(octets, &open)?;
        if end == 0 || end <= start {
            return None;
        }
        suspect.decode_strict(octets.get(start..end + greater_than.len())?)
    });
    by_frequency(declarations)
}

/// The encodings declared by the XML declarations in `octets`, most frequent first: the
/// declaration half of [`encoding_from_xml_document`], without the BOM check.
pub fn encoding_from_xml_declarations(octets: &[u8], suspects: &[Suspect]) -> Vec<String> {
    by_frequency(
        xml_declaration_from_octets(octets, suspects)
            .iter()
            .filter_map(|declaration| encoding_from_xml_declaration(declaration)),
    )
}

/// The encoding of an XML document: its BOM if it has one (source `bom`), otherwise its XML
/// declaration (source `xml`); `None` if neither says.
pub fn encoding_from_xml_document(octets: &[u8], suspects: &[Suspect]) -> Option<SourcedEncoding> {
    let boms = encoding_from_byte_order_mark(octets, suspects);
    if !boms.is_empty() {
        let names = boms.iter().map(|s| s.name().to_owned()).collect();
        return SourcedEncoding::from_candidates(Source::Bom, names);
    }
    SourcedEncoding::from_candidates(
        Source::Xml,
        encoding_from_xml_declarations(octets, suspects),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charset::ebcdic::EbcdicCodePage;
    use crate::charset::suspect::DEFAULT_SUSPECTS;

    /// HTML::Encoding's documentation, the `encoding_from_xml_declaration` table, one row per case.
    ///
    /// Two rows disagree with the 0.61 code but not with the documentation, and we follow the
    /// documentation: `<?xml-stylesheet` is not an XML declaration (the code's `^<\?xml\s*`
    /// accepts it), and the leftmost `encoding=` wins whichever quote it uses (the code tries
    /// single quotes everywhere first, so it would answer 'b' for the last row).
    #[test]
    fn documented_table_encoding_from_xml_declaration() {
        let rows: [(&str, Option<&str>); 11] = [
            ("<?xml version='1.0' encoding='utf-8'?>", Some("utf-8")),
            ("<?xml encoding='utf-8'?>", Some("utf-8")),
            ("<?xml encoding=\"utf-8\"?>", Some("utf-8")),
            ("<?xml foo='bar' encoding='utf-8'?>", Some("utf-8")),
            ("<?xml encoding='a' encoding='b'?>", Some("a")),
            ("<?xml encoding=' a b '?>", Some("a b")),
            ("<?xml-stylesheet encoding='utf-8'?>", None),
            (" <?xml encoding='utf-8'?>", None),
            ("<?xml encoding =\u{2028}'utf-8'?>", Some("utf-8")),
            ("<?xml version='1.0' encoding=utf-8?>", None),
            ("<?xml x='encoding=\"a\"' encoding='b'?>", Some("a")),
        ];
        for (declaration, expected) in rows {
            assert_eq!(
                encoding_from_xml_declaration(declaration).as_deref(),
                expected,
                "{declaration:?}"
            );
        }
    }

    fn encode(text: &str, suspect: Suspect) -> Vec<u8> {
        text.chars()
            .flat_map(|c| suspect.encode_char(c).unwrap_or_default())
            .collect()
    }

    /// Perl's "UTF-16" encoder writes a big-endian BOM, then big-endian text.
    fn perl_utf16(text: &str) -> Vec<u8> {
        let mut bytes = vec![0xFE, 0xFF];
        bytes.extend(encode(text, Suspect::Utf16Be));
        bytes
    }

    /// HTML::Encoding's documentation, the `encoding_from_xml_document` table, one row per case:
    /// "Encoding" is how the input is encoded, "Encodings" the suspects (`default` or that one
    /// encoding).
    #[test]
    fn documented_table_encoding_from_xml_document() {
        let cp37 = Suspect::Ebcdic(EbcdicCodePage::Cp037);
        let rows: [(Vec<u8>, &[Suspect], Option<&str>); 6] = [
            (perl_utf16("<?xml?>"), DEFAULT_SUSPECTS, Some("UTF-16BE")),
            (encode("<?xml?>", Suspect::Utf16Le), DEFAULT_SUSPECTS, None),
            (
                encode("<?xml encoding='utf-8'?>", Suspect::Utf16Le),
                DEFAULT_SUSPECTS,
                Some("utf-8"),
            ),
            (
                perl_utf16("<?xml encoding='utf-8'?>"),
                DEFAULT_SUSPECTS,
                Some("UTF-16BE"),
            ),
            (
                encode("<?xml encoding='cp37'?>", cp37),
                DEFAULT_SUSPECTS,
                None,
            ),
            (
                encode("<?xml encoding='cp37'?>", cp37),
                &[cp37],
                Some("cp37"),
            ),
        ];
        for (row, (input, suspects, expected)) in rows.into_iter().enumerate() {
            let answer = encoding_from_xml_document(&input, suspects);
            assert_eq!(
                answer.as_ref().map(|a| a.encoding.as_str()),
                expected,
                "row {row}"
            );
        }
    }

    #[test]
    fn sources_of_xml_document_answers() {
        let bom = encoding_from_xml_document(&perl_utf16("<?xml?>"), DEFAULT_SUSPECTS);
        assert_eq!(bom.map(|a| a.source), Some(Source::Bom));
        let declared = encoding_from_xml_document(b"<?xml encoding='x'?>", DEFAULT_SUSPECTS);
        assert_eq!(declared.map(|a| a.source), Some(Source::Xml));
    }

    #[test]
    fn declarations_are_counted_across_suspects() {
        // ISO-8859-1 and UTF-8 read the same ASCII declaration: one text, found twice.
        let found = xml_declaration_from_octets(b"<?xml encoding='a'?><x>", DEFAULT_SUSPECTS);
        assert_eq!(found, ["<?xml encoding='a'?>"]);
        // A '>' before the first '<?' rules a suspect out.
        assert!(xml_declaration_from_octets(b"<a><?xml?>", DEFAULT_SUSPECTS).is_empty());
        assert!(xml_declaration_from_octets(b"", DEFAULT_SUSPECTS).is_empty());
    }

    #[test]
    fn utf16_declarations_include_the_whole_greater_than() {
        // 0.61 cuts the declaration one octet after the start of '>', which leaves half a
        // UTF-16 code unit; the documented UTF-16LE rows only work with the whole character.
        let bytes = encode("<?xml encoding='koi8-r'?>", Suspect::Utf16Le);
        assert_eq!(
            xml_declaration_from_octets(&bytes, DEFAULT_SUSPECTS),
            ["<?xml encoding='koi8-r'?>"]
        );
    }
}
