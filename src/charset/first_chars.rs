//! The encoding family from the first characters (`encoding_from_first_chars`).
//!
//! An HTML document without BOM or XML declaration still almost always starts with `<`,
//! perhaps after some white space. Looking for `<` as each suspected encoding would write it,
//! with nothing but that encoding's white space before it, separates UTF-16/32 from the
//! ASCII-compatible encodings well enough to decode the document far enough to find its
//! `<meta>` elements. Longer matches are more specific (`<` as `3C 00` beats `3C`), so
//! candidates are ranked by the number of octets matched.

use std::sync::LazyLock;

use memchr::memmem;

use super::ranking::by_descending_score;
use super::suspect::{DEFAULT_SUSPECTS, Suspect};

/// HTML::Encoding's default white space: CR, LF, TAB and SPACE.
pub const DEFAULT_WHITESPACE: &[char] = &['\r', '\n', '\t', ' '];

/// `<` and the white space as one suspect writes them.
struct Pieces {
    suspect: Suspect,
    less_than: Vec<u8>,
    spaces: Vec<Vec<u8>>,
}

impl Pieces {
    /// `None` for a suspect that cannot write `<`.
    fn of(suspect: Suspect, whitespace: &[char]) -> Option<Pieces> {
        Some(Pieces {
            suspect,
            less_than: suspect.encode_char('<')?,
            spaces: whitespace
                .iter()
                .filter_map(|&c| suspect.encode_char(c))
                .filter(|encoded| !encoded.is_empty())
                .collect(),
        })
    }
}

/// The pieces of the default suspects and white space, which every file a scan reads is asked
/// about: encoded once, not for each file.
static DEFAULT_PIECES: LazyLock<Vec<Pieces>> = LazyLock::new(|| {
    DEFAULT_SUSPECTS
        .iter()
        .filter_map(|&suspect| Pieces::of(suspect, DEFAULT_WHITESPACE))
        .collect()
});

/// The suspects in which `octets` starts with `<` preceded only by `whitespace`, ranked by
/// the number of octets matched (ties in `suspects` order). Empty if there is none.
pub fn encoding_from_first_chars(
    octets: &[u8],
    suspects: &[Suspect],
    whitespace: &[char],
) -> Vec<Suspect> {
    let others: Vec<Pieces>;
    let pieces: &[Pieces] = match suspects == DEFAULT_SUSPECTS && whitespace == DEFAULT_WHITESPACE {
        true => &DEFAULT_PIECES,
        false => {
            others = suspects
                .iter()
                .filter_map(|&suspect| Pieces::of(suspect, whitespace))
                .collect();
            &others
        }
    };
    let matches = pieces
        .iter()
        .filter_map(|pieces| {
            let Pieces {
                suspect,
                less_than,
                spaces,
            } = pieces;
            // Most heads start with neither `<` nor white space in this encoding: they are
            // answered without a walk.
            if !octets.starts_with(less_than) && !spaces.iter().any(|e| octets.starts_with(e)) {
                return None;
            }
            let at = first_after(octets, less_than, spaces)?;
            Some((*suspect, at + less_than.len()))
        })
        .collect();
    by_descending_score(matches)
}

/// Where `needle` first occurs in `bytes`, if what comes before it is a concatenation of zero
/// or more of `pieces`.
///
/// Every file a scan reads is asked this about its head, for several encodings, and most
/// start with a letter: so the positions a concatenation of pieces reaches are walked in
/// increasing order (only a handful are ever pending, one per piece length) to the first
/// one where `needle` starts, and only the bytes before it are searched for an earlier
/// occurrence. A head with no `<` is not searched to its end.
fn first_after(bytes: &[u8], needle: &[u8], pieces: &[Vec<u8>]) -> Option<usize> {
    let mut reachable = std::collections::BTreeSet::from([0]);
    while let Some(start) = reachable.pop_first() {
        let rest = bytes.get(start..).unwrap_or_default();
        if rest.starts_with(needle) {
            let end = start.saturating_add(needle.len());
            let first = memmem::find(bytes.get(..end).unwrap_or(bytes), needle);
            return (first == Some(start)).then_some(start);
        }
        for piece in pieces.iter().filter(|piece| rest.starts_with(piece)) {
            reachable.insert(start + piece.len());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charset::suspect::DEFAULT_SUSPECTS;

    fn encode(text: &str, suspect: Suspect) -> Vec<u8> {
        text.chars()
            .flat_map(|c| suspect.encode_char(c).unwrap_or_default())
            .collect()
    }

    /// HTML::Encoding's documentation, the `encoding_from_first_chars` table, one row per case: the
    /// string is encoded in "Encoding" and tried against the default suspects. "ISO-8859-1 or
    /// UTF-8" is a tie; ties keep the order of the suspects list, so ISO-8859-1 comes first.
    #[test]
    fn documented_table_encoding_from_first_chars() {
        let rows: [(&str, Suspect, Option<&[&str]>); 6] = [
            ("<!DOCTYPE ", Suspect::Utf16Le, Some(&["UTF-16LE"])),
            (" <!DOCTYPE ", Suspect::Utf16Le, Some(&["UTF-16LE"])),
            ("...", Suspect::Utf16Le, None),
            ("...<", Suspect::Utf16Le, None),
            ("<", Suspect::Utf8, Some(&["ISO-8859-1", "UTF-8"])),
            (
                "<!--\u{F6}-->",
                Suspect::Utf8,
                Some(&["ISO-8859-1", "UTF-8"]),
            ),
        ];
        for (text, encoding, expected) in rows {
            let found = encoding_from_first_chars(
                &encode(text, encoding),
                DEFAULT_SUSPECTS,
                DEFAULT_WHITESPACE,
            );
            let names: Vec<&str> = found.iter().map(|s| s.name()).collect();
            match expected {
                Some(expected) => assert_eq!(names.first(), expected.first(), "{text:?}"),
                None => assert!(names.is_empty(), "{text:?} gave {names:?}"),
            }
            if let Some(tie @ [_, _]) = expected {
                assert_eq!(names, tie, "{text:?}");
            }
        }
    }

    /// What `first_after` answers, the long way: the first occurrence of `needle` anywhere,
    /// then whether the bytes before it are a concatenation of pieces.
    fn first_after_by_search(bytes: &[u8], needle: &[u8], pieces: &[Vec<u8>]) -> Option<usize> {
        fn is_sequence_of(bytes: &[u8], pieces: &[Vec<u8>]) -> bool {
            bytes.is_empty()
                || pieces.iter().any(|piece| {
                    bytes.starts_with(piece) && is_sequence_of(&bytes[piece.len()..], pieces)
                })
        }
        let at = memmem::find(bytes, needle)?;
        is_sequence_of(&bytes[..at], pieces).then_some(at)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The walk finds what searching the whole input finds. Three byte values make
        /// needles that start inside pieces, and earlier than the first place pieces lead to.
        #[test]
        fn the_walk_answers_as_the_whole_search(
            bytes in proptest::collection::vec(0u8..3, 0..16),
            needle in proptest::collection::vec(0u8..3, 0..3),
            pieces in proptest::collection::vec(proptest::collection::vec(0u8..3, 1..4), 0..4),
        ) {
            proptest::prop_assert_eq!(
                first_after(&bytes, &needle, &pieces),
                first_after_by_search(&bytes, &needle, &pieces)
            );
        }
    }

    /// What `encoding_from_first_chars` answers with every suspect's pieces built and the
    /// whole head searched, whatever it starts with.
    fn encoding_from_first_chars_by_search(
        octets: &[u8],
        suspects: &[Suspect],
        whitespace: &[char],
    ) -> Vec<Suspect> {
        let mut matches = Vec::new();
        for &suspect in suspects {
            let Some(less_than) = suspect.encode_char('<') else {
                continue;
            };
            let mut pieces = Vec::new();
            for &c in whitespace {
                pieces.extend(suspect.encode_char(c).filter(|e| !e.is_empty()));
            }
            if let Some(at) = first_after_by_search(octets, &less_than, &pieces) {
                matches.push((suspect, at + less_than.len()));
            }
        }
        by_descending_score(matches)
    }

    /// Heads of white space, `<`, letters and zero bytes, each character in one of the
    /// suspects (a head may mix them).
    fn head() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = (
            prop::sample::select(vec![' ', '\n', '\t', '\r', '<', 'a', '!', '\u{e9}', '\0']),
            prop::sample::select(DEFAULT_SUSPECTS.to_vec()),
        )
            .prop_map(|(c, suspect)| suspect.encode_char(c).unwrap_or_default());
        proptest::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Heads that start with neither `<` nor white space are answered as the whole
        /// search answers them, as are all others.
        #[test]
        fn the_quick_answer_is_the_answer_of_the_whole_search(octets in head()) {
            proptest::prop_assert_eq!(
                encoding_from_first_chars(&octets, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE),
                encoding_from_first_chars_by_search(&octets, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE)
            );
        }
    }

    #[test]
    fn longer_encodings_of_less_than_rank_first() {
        let utf16 = encode("<!DOCTYPE ", Suspect::Utf16Le);
        let found = encoding_from_first_chars(&utf16, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE);
        assert_eq!(found, [Suspect::Utf16Le, Suspect::Iso8859_1, Suspect::Utf8]);
        let utf32 = encode("\n<html>", Suspect::Utf32Be);
        let found = encoding_from_first_chars(&utf32, DEFAULT_SUSPECTS, DEFAULT_WHITESPACE);
        assert_eq!(found.first(), Some(&Suspect::Utf32Be));
    }

    #[test]
    fn custom_white_space() {
        let text = encode("\u{2028}<p>", Suspect::Utf8);
        assert!(encoding_from_first_chars(&text, &[Suspect::Utf8], DEFAULT_WHITESPACE).is_empty());
        assert_eq!(
            encoding_from_first_chars(&text, &[Suspect::Utf8], &['\u{2028}']),
            [Suspect::Utf8]
        );
    }
}
