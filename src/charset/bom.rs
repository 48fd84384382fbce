//! Byte order marks (`encoding_from_byte_order_mark`).
//!
//! A BOM is U+FEFF encoded in the document's encoding, so rather than keeping a table of BOM
//! bytes this asks each suspected encoding how it writes U+FEFF and checks whether the octets
//! start with that. The answer can be ambiguous: `FF FE 00 00` is a UTF-32LE BOM, or a UTF-16LE
//! BOM followed by U+0000. All candidates are returned, longest BOM first, so the caller sees
//! both the best reading and the doubt.

use super::ranking::by_descending_score;
use super::suspect::{DEFAULT_SUSPECTS, Suspect};

/// The suspects whose BOM starts `octets`, longest BOM first (ties in `suspects` order).
/// Empty if there is none.
pub fn encoding_from_byte_order_mark(octets: &[u8], suspects: &[Suspect]) -> Vec<Suspect> {
    let matches = suspects
        .iter()
        .filter_map(|&suspect| {
            let bom = suspect.byte_order_mark()?;
            octets.starts_with(&bom).then_some((suspect, bom.len()))
        })
        .collect();
    by_descending_score(matches)
}

/// The length of the BOM of `suspect` at the start of `octets`, or 0 if it is not there.
pub fn byte_order_mark_length(octets: &[u8], suspect: Suspect) -> usize {
    suspect
        .byte_order_mark()
        .filter(|bom| octets.starts_with(bom))
        .map_or(0, |bom| bom.len())
}

/// The document's BOM among the default suspects (the longest match), and the body after it.
pub(crate) fn split_byte_order_mark(document: &[u8]) -> (Option<Suspect>, &[u8]) {
    let bom = encoding_from_byte_order_mark(document, DEFAULT_SUSPECTS)
        .into_iter()
        .next();
    let body = bom.map_or(document, |bom| {
        document
            .get(byte_order_mark_length(document, bom)..)
            .unwrap_or_default()
    });
    (bom, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HTML::Encoding's documentation, both `encoding_from_byte_order_mark` tables, one row per
    /// case. "Encodings" names the suspects: `default`, or a single encoding passed as the list.
    /// The result is the list-context answer; the first row is the scalar-context answer (the first
    /// item).
    #[test]
    fn documented_tables_encoding_from_byte_order_mark() {
        let rows: [(&[u8], &str, &[&str]); 10] = [
            (b"\xFF\xFE\x00\x00", "default", &["UTF-32LE"]),
            (b"\xFF\xFE\x00\x00", "default", &["UTF-32LE", "UTF-16LE"]),
            (b"\xEF\xBB\xBF", "default", &["UTF-8"]),
            (b"Hello World!", "default", &[]),
            (b"\xDD\x73\x66\x73", "default", &[]),
            (b"\xDD\x73\x66\x73", "UTF-EBCDIC", &["UTF-EBCDIC"]),
            (b"\x2B\x2F\x76\x38\x2D", "default", &[]),
            (b"\x2B\x2F\x76\x38\x2D", "UTF-7", &["UTF-7"]),
            (b"\x2B\x2F\x76\x38\x41\x39\x67\x2D", "default", &[]),
            (b"\x2B\x2F\x76\x38\x41\x39\x67\x2D", "UTF-7", &[]),
        ];
        for (row, (input, encodings, expected)) in rows.into_iter().enumerate() {
            let suspects: Vec<Suspect> = match encodings {
                "default" => DEFAULT_SUSPECTS.to_vec(),
                name => Suspect::from_name(name).into_iter().collect(),
            };
            let found = encoding_from_byte_order_mark(input, &suspects);
            let names: Vec<&str> = found.iter().map(|s| s.name()).collect();
            if row == 0 {
                // The scalar-context row: only the best match.
                assert_eq!(
                    names.first().copied(),
                    expected.first().copied(),
                    "row {row}"
                );
            } else {
                assert_eq!(names, expected, "row {row}");
            }
        }
    }

    #[test]
    fn empty_input_has_no_bom() {
        assert!(encoding_from_byte_order_mark(b"", DEFAULT_SUSPECTS).is_empty());
    }

    #[test]
    fn bom_length() {
        assert_eq!(byte_order_mark_length(b"\xEF\xBB\xBFx", Suspect::Utf8), 3);
        assert_eq!(byte_order_mark_length(b"x", Suspect::Utf8), 0);
        assert_eq!(byte_order_mark_length(b"x", Suspect::Iso8859_1), 0);
    }
}
