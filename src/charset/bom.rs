//! Byte order marks (`encoding_from_byte_order_mark`).
//!
//! A BOM is U+FEFF encoded in the document's encoding, so rather than keeping a table of BOM
//! bytes this asks each suspected encoding how it writes U+FEFF and checks whether the octets
//! start with that. The answer can be ambiguous: `FF FE 00 00` is a UTF-32LE BOM, or a UTF-16LE
//! BOM followed by U+0000. All candidates are returned, longest BOM first, so the caller sees
//! both the best reading and the doubt.

use std::cmp::Reverse;
use std::sync::LazyLock;

use super::ranking::by_descending_score;
use super::suspect::{DEFAULT_SUSPECTS, Suspect};

/// Suspects and their BOMs, those that can write U+FEFF.
type Marks = Vec<(Suspect, Vec<u8>)>;

fn marks_of(suspects: &[Suspect]) -> Marks {
    suspects
        .iter()
        .filter_map(|&suspect| Some((suspect, suspect.byte_order_mark()?)))
        .collect()
}

/// The BOMs of the default suspects, which every file a scan reads is asked about: encoded
/// once, not for each file.
static DEFAULT_MARKS: LazyLock<Marks> = LazyLock::new(|| marks_of(DEFAULT_SUSPECTS));

/// The suspects whose BOM starts `octets`, longest BOM first (ties in `suspects` order).
/// Empty if there is none.
pub fn encoding_from_byte_order_mark(octets: &[u8], suspects: &[Suspect]) -> Vec<Suspect> {
    let others: Marks;
    let marks: &Marks = match suspects == DEFAULT_SUSPECTS {
        true => &DEFAULT_MARKS,
        false => {
            others = marks_of(suspects);
            &others
        }
    };
    let matches = marks
        .iter()
        .filter(|(_, bom)| octets.starts_with(bom))
        .map(|(suspect, bom)| (*suspect, bom.len()))
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

/// The document's BOM among the default suspects (the longest match, the first of the
/// longest as [`encoding_from_byte_order_mark`] ranks them), and the body after it.
pub(crate) fn split_byte_order_mark(document: &[u8]) -> (Option<Suspect>, &[u8]) {
    let longest = DEFAULT_MARKS
        .iter()
        .filter(|(_, bom)| document.starts_with(bom))
        .min_by_key(|(_, bom)| Reverse(bom.len()));
    match longest {
        Some((suspect, bom)) => (Some(*suspect), &document[bom.len()..]),
        None => (None, document),
    }
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

    /// The split takes the mark the ranking puts first, and its whole length: on every
    /// prefix of every BOM, and on each BOM followed by another's bytes.
    #[test]
    fn split_takes_the_first_ranked_mark() {
        let marks = marks_of(DEFAULT_SUSPECTS);
        let mut documents: Vec<Vec<u8>> = vec![b"".to_vec(), b"<x>".to_vec()];
        for (_, bom) in &marks {
            for len in 0..=bom.len() {
                documents.push(bom[..len].to_vec());
            }
            for (_, next) in &marks {
                documents.push([&bom[..], &next[..], b"x"].concat());
            }
        }
        for document in &documents {
            let first = encoding_from_byte_order_mark(document, DEFAULT_SUSPECTS)
                .first()
                .copied();
            let length = first.map_or(0, |bom| byte_order_mark_length(document, bom));
            let (bom, body) = split_byte_order_mark(document);
            assert_eq!(bom, first, "{document:x?}");
            assert_eq!(body, &document[length..], "{document:x?}");
        }
    }
}
