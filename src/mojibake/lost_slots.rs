//! Where a lost byte's slot may be: the search in front of [`super::lost`].
//!
//! A garbled character that lost a byte has a space, a `?` or U+FFFD where the byte was, and
//! that slot always follows a character that stands for a byte `80..FF`, so the byte before
//! it is `80..FF` too. Most spaces of a text follow ASCII: an SQL file has one every few
//! bytes and almost none after a non-ASCII byte. A search that stops at every space (as
//! `memchr3` of the three slot bytes did) pays its set-up for each one; this one is a search
//! for the pair of bytes ([`crate::byte_search::pairs`]), which stops only where a non-ASCII
//! byte is followed by one that can open a slot.

use std::ops::Range;

use crate::byte_search::pairs::{ByteSet, Then, pairs};

/// U+FFFD in UTF-8.
pub(super) const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// The bytes before a slot: those of a character that stands for a byte `80..FF`.
const NON_ASCII: ByteSet = ByteSet::new(0x80, 0xFF, &[]);
/// The first byte of what a slot holds: a space, a `?` or U+FFFD.
const SLOT_OPENERS: ByteSet = ByteSet::new(1, 0, &[b' ', b'?', REPLACEMENT[0]]);

/// The slots in `range` of `input`, in order: positions after the range's first byte where a
/// space, a `?` or a whole U+FFFD (inside the range) follows a byte `80..FF`.
pub(super) fn lost_slots(input: &[u8], range: Range<usize>) -> impl Iterator<Item = usize> {
    let end = range.end.min(input.len());
    holding_slots(
        input,
        end,
        pairs(&NON_ASCII, Then::Byte(&SLOT_OPENERS), input, range),
    )
}

/// Whether `range` of `input` may hold a slot: a byte `80..FF` then one that opens a slot, by a
/// look at each byte (for a range so short that setting up the search costs more). `false`
/// only when [`lost_slots`] finds none there.
pub(super) fn may_hold_slot(input: &[u8], range: Range<usize>) -> bool {
    let end = range.end.min(input.len());
    let bytes = input.get(range.start.min(end)..end).unwrap_or_default();
    (bytes.windows(2)).any(|pair| NON_ASCII.contains(pair[0]) && SLOT_OPENERS.contains(pair[1]))
}

/// The positions of `openers` (each a slot's first byte after a byte `80..FF`) that hold a
/// slot: U+FFFD must be whole before `end`.
fn holding_slots(
    input: &[u8],
    end: usize,
    openers: impl Iterator<Item = usize>,
) -> impl Iterator<Item = usize> {
    openers.filter(move |&slot| {
        input[slot] != REPLACEMENT[0] || input[slot..end].starts_with(REPLACEMENT)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, byte by byte.
    fn slots_by_definition(input: &[u8], range: Range<usize>) -> Vec<usize> {
        let end = range.end.min(input.len());
        let start = range.start.min(end);
        (start + 1..end)
            .filter(|&k| input[k - 1] >= 0x80)
            .filter(|&k| match input[k] {
                b' ' | b'?' => true,
                _ => input[k..end].starts_with(REPLACEMENT),
            })
            .collect()
    }

    fn portable(input: &[u8], range: Range<usize>) -> Vec<usize> {
        let end = range.end.min(input.len());
        let openers = pairs(&NON_ASCII, Then::Byte(&SLOT_OPENERS), input, range).portable();
        holding_slots(input, end, openers).collect()
    }

    #[test]
    fn slots_follow_non_ascii_bytes() {
        let text = "a b Ã ok? Ã? Ñ\u{fffd} \u{fffd}".as_bytes();
        let expected = vec![6, 13, 17, 20];
        assert_eq!(slots_by_definition(text, 0..text.len()), expected);
        assert_eq!(
            lost_slots(text, 0..text.len()).collect::<Vec<_>>(),
            expected
        );
        assert_eq!(portable(text, 0..text.len()), expected);
        // U+FFFD cut by the range's end holds no slot; a space after one follows its last byte;
        // a slot at the range's start follows nothing in it.
        assert_eq!(lost_slots(text, 0..19).collect::<Vec<_>>(), vec![6, 13]);
        assert_eq!(
            lost_slots(text, 6..text.len()).collect::<Vec<_>>(),
            vec![13, 17, 20]
        );
    }

    /// Pieces that make slots and near-slots, long enough together for the vector blocks.
    const PIECES: &[&[u8]] = &[
        b" ",
        b"?",
        b"\xEF\xBF\xBD",
        b"\xEF",
        b"\xEF\xBF",
        b"\xC3",
        b"\xA9",
        b"a",
        b"word ",
        b"\xC3\xA9 ",
        b"\xD0\xB8?",
        b"\xFF",
        b"\x7F ",
        b"\x80",
        b"\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The vector search and the portable one find exactly the slots of the definition,
        /// in any range of any bytes, across block boundaries.
        #[test]
        fn both_searches_find_the_slots_of_the_definition(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..160),
            from in 0..200usize,
            to in 0..400usize,
        ) {
            let bytes: Vec<u8> = pieces.iter().flat_map(|&i| PIECES[i].iter().copied()).collect();
            let range = from..to.max(from);
            let expected = slots_by_definition(&bytes, range.clone());
            prop_assert!(may_hold_slot(&bytes, range.clone()) || expected.is_empty());
            prop_assert_eq!(lost_slots(&bytes, range.clone()).collect::<Vec<_>>(), expected.clone());
            prop_assert_eq!(portable(&bytes, range), expected);
        }

        #[test]
        fn both_searches_agree_on_random_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            from in 0..300usize,
        ) {
            let range = from..bytes.len();
            let expected = slots_by_definition(&bytes, range.clone());
            prop_assert!(may_hold_slot(&bytes, range.clone()) || expected.is_empty());
            prop_assert_eq!(lost_slots(&bytes, range.clone()).collect::<Vec<_>>(), expected.clone());
            prop_assert_eq!(portable(&bytes, range), expected);
        }
    }
}
