//! Garbled characters that also lost a byte on the way.
//!
//! Double-encoded text often went through one more careless step: a process that took byte
//! `A0` of the garbled text (a no-break space in Windows-1252) for "basically a space" and
//! wrote an ASCII space, or a decoder that met a byte its code page leaves undefined (`81`,
//! `8D`, `8F`, `90`, `9D` in Windows-1252) and wrote U+FFFD, or a `?`. The garbled form then
//! has one character too few for the pattern ([`super::matcher`]): `Ã ` for `à` (`C3 A0`),
//! `Ð ` for `Р`, `Ñ�` for `Ñ` followed by a byte nobody can know, `â€?` for a quotation mark
//! whose last byte was lost.
//!
//! Two cases, told apart by what stands in the lost byte's slot:
//!
//! - **A plain space** where a continuation byte must be: the byte was `A0`, the only one a
//!   space can stand for, so exactly one character fits (`C3` `A0` is `à`). The character is
//!   inferred, and only where it is one text is full of (`fits_as_inferred`). A no-break space
//!   followed by a space is often written as one space: after `Ã`, the `à` of French and
//!   Portuguese stays a word of its own, so the space it ends in is kept (`Ã nos` → `à nos`),
//!   unless it is Portuguese `às`, `àquele`, `àquilo`, or a second space follows.
//! - **U+FFFD or `?`**: the byte is unknowable. The garbled form is still one character of
//!   the writer's, so it is replaced by one U+FFFD, which says so, instead of the two or three
//!   characters of garbage around the writer's loss. A `?` counts only after a continuation
//!   that was not lost (`â€?`): a letter followed by a question mark is ordinary text.
//!
//! This module only matches; the scanner holds such a run for its field, which repairs it
//! only when other runs of the field are certainly garbled (the `field` module).

use std::ops::Range;

use super::classes::{CharClass, class_of};
use super::codepage::{ReadingMask, Readings, is_lead_byte};
use super::lost_slots::{REPLACEMENT, lost_slots, may_hold_slot};
use super::matcher::{decode_last_char, start_of_char_before};

/// What stood in the lost byte's slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LostKind {
    /// A space where byte `A0` was: the character is inferred.
    NoBreakSpace,
    /// U+FFFD or `?` where a byte was: the character is unknowable, written as U+FFFD.
    Unknowable,
}

/// One garbled character with a lost byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostMatch {
    /// Length of the garbled form in bytes (for `à`, without the space it keeps).
    pub len: usize,
    /// Where the lost byte's slot starts, from the start of the match.
    pub slot: usize,
    /// How many characters the garbled form is made of.
    pub chars: u8,
    /// The inferred character, or U+FFFD.
    pub original: char,
    /// The code pages under which every garbled character that was not lost maps back.
    pub mask: ReadingMask,
    pub kind: LostKind,
}

/// What the slot of the lost byte holds at `rest`, and its length.
fn lost_slot(rest: &[u8], known_before: bool) -> Option<(LostKind, usize)> {
    match rest {
        [b' ', ..] => Some((LostKind::NoBreakSpace, 1)),
        [0xEF, 0xBF, 0xBD, ..] => Some((LostKind::Unknowable, REPLACEMENT.len())),
        [b'?', ..] if known_before => Some((LostKind::Unknowable, 1)),
        _ => None,
    }
}

/// Tries to match one garbled character with one lost byte at `bytes[at..]`.
pub fn lost_match_at(readings: &Readings, bytes: &[u8], at: usize) -> Option<LostMatch> {
    let rest = bytes.get(at..)?;
    let (lead, lead_len) = readings.origin_at(rest)?;
    if !is_lead_byte(lead.byte) {
        return None;
    }
    let continuations = match lead.byte {
        0xC2..=0xDF => 1,
        0xE0..=0xEF => 2,
        _ => 3,
    };
    let mut original = [lead.byte, 0, 0, 0];
    let mut mask = lead.mask;
    let mut pos = lead_len;
    let mut lost: Option<(LostKind, usize)> = None;
    for (i, byte) in original.iter_mut().enumerate().skip(1).take(continuations) {
        let tail = rest.get(pos..)?;
        if let Some((origin, len)) = readings.origin_at(tail)
            && (0x80..=0xBF).contains(&origin.byte)
        {
            *byte = origin.byte;
            mask = mask.and(origin.mask);
            pos += len;
            continue;
        }
        if lost.is_some() {
            return None;
        }
        let (kind, len) = lost_slot(tail, i > 1)?;
        *byte = 0xA0;
        lost = Some((kind, pos));
        pos += len;
    }
    let (kind, slot) = lost?;
    if mask.is_empty() {
        return None;
    }
    let chars = 1 + continuations as u8;
    let found = |original, len| LostMatch {
        len,
        slot,
        chars,
        original,
        mask,
        kind,
    };
    match kind {
        LostKind::Unknowable => Some(found(char::REPLACEMENT_CHARACTER, pos)),
        LostKind::NoBreakSpace => {
            let text = &original[..=continuations];
            let c = std::str::from_utf8(text).ok()?.chars().next()?;
            if !fits_as_inferred(original[0], c) {
                return None;
            }
            // The space ends the match: `à` keeps it as the space after the word.
            let keeps_space = c == 'à' && slot + 1 == pos && a_grave_keeps_space(&rest[pos..]);
            let len = if keeps_space { pos - 1 } else { pos };
            Some(found(c, len))
        }
    }
}

/// Whether `c`, whose UTF-8 starts with `lead` and holds byte `A0`, may be inferred from a
/// space. Of the two-byte characters with `A0` as their last byte, only those text is full of:
/// the no-break space, `à`, `Š`, `Π`, `Р` and the Arabic-Indic digit zero (`C2`, `C3`, `C5`,
/// `CE`, `D0`, `D9`); the others are rare letters (`Ǡ`, `Ѡ`) a space after a garbled capital
/// would turn into (`G/Ç `). Of the longer ones, those of the scripts of India and South-East
/// Asia, of punctuation and symbols, of CJK punctuation and kana (`E0..E3`), and of the emoji
/// plane (`F0`); never a mark or a character the class table calls rare.
fn fits_as_inferred(lead: u8, c: char) -> bool {
    let common_lead = matches!(
        lead,
        0xC2 | 0xC3 | 0xC5 | 0xCE | 0xD0 | 0xD9 | 0xE0..=0xE3 | 0xF0
    );
    common_lead && matches!(class_of(c), CharClass::Letter(_) | CharClass::Symbol)
}

/// Whether the space after `Ã` is the space after the word `à` (its own no-break space and
/// that space written as one), given the text after the space. It is the lost byte itself
/// when a second space follows, and in the Portuguese `às` (`s` and no letter after it),
/// `àquele`, `àquela`, `àquilo`, which a space never splits.
fn a_grave_keeps_space(after: &[u8]) -> bool {
    match after {
        [b' ', ..] => false,
        [b'q', b'u', b'e', b'l', ..] | [b'q', b'u', b'i', b'l', ..] => false,
        [b's'] => false,
        [b's', next, ..] => next.is_ascii_alphanumeric() || *next == b'\'',
        _ => true,
    }
}

/// Whether a lost match starting at `start` stands where correct text would have it: a
/// capital before the lead's character means a word in capitals ending in it (`IRMÃ `, `AÐ `),
/// which correct text writes with a space after.
fn stands_apart(input: &[u8], start: usize, found: &LostMatch) -> bool {
    found.kind != LostKind::NoBreakSpace
        || !decode_last_char(&input[..start]).is_some_and(char::is_uppercase)
}

/// The first lost match that starts in `range` of `input`, and where. The search goes by the
/// slots, not the text: a slot is a space or a `?` right after a byte `80..FF`, or U+FFFD after
/// one, since a lost byte's slot always follows a character that stands for a byte `80..FF`
/// (`lost_slots`: most spaces of a text follow ASCII). A slot is tried only when the
/// character just before it stands for a byte in the readings, as a garbled character's last
/// one must (the words of a script the readings do not garble end at none); then with the
/// characters before it, back to where the text before it is ASCII (or the range starts),
/// since a garbled character is at most four long.
pub fn find_lost(
    readings: &Readings,
    input: &[u8],
    range: Range<usize>,
) -> Option<(usize, LostMatch)> {
    if !may_hold_lost(input, range.clone()) {
        return None;
    }
    let start = range.start;
    for slot in lost_slots(input, range) {
        // The last character before the slot.
        let Some(last) = start_of_char_before(input, slot, start) else {
            continue;
        };
        if readings.origin_at(&input[last..slot]).is_none() {
            continue;
        }
        // Where the non-ASCII text before the slot starts, as far back as a match may reach.
        let reach = slot.saturating_sub(LONGEST_REACH).max(start);
        let stretch_start = (reach..slot)
            .rev()
            .find(|&k| input[k] < 0x80)
            .map_or(reach, |ascii| ascii + 1);
        if let Some(found) = lost_before(readings, input, stretch_start, slot) {
            return Some(found);
        }
    }
    None
}

/// Whether `range` of `input` may hold a lost match: `false` only when it cannot. Between
/// two garbled words lie a few bytes (a space, a comma and a space): too few for a lost match,
/// or with no slot, which a look at each byte tells faster than setting up a search.
pub(crate) fn may_hold_lost(input: &[u8], range: Range<usize>) -> bool {
    match range.len() {
        0..SHORTEST_LOST => false,
        SHORTEST_LOST..=SHORT_GAP => may_hold_slot(input, range),
        _ => true,
    }
}

/// How long a range [`may_hold_lost`] looks at byte by byte.
const SHORT_GAP: usize = 64;

/// The lost match whose slot is at `slot`, its lead no earlier than `start`.
fn lost_before(
    readings: &Readings,
    input: &[u8],
    start: usize,
    slot: usize,
) -> Option<(usize, LostMatch)> {
    let mut lead = slot;
    for _ in 0..3 {
        let c = decode_last_char(&input[start..lead])?;
        lead -= c.len_utf8();
        if let Some(found) = lost_match_at(readings, input, lead)
            && lead + found.slot == slot
            && stands_apart(input, lead, &found)
        {
            return Some((lead, found));
        }
    }
    None
}

/// Whether `garbled`, the garbled form of a repaired character, is one that lost a byte:
/// it holds what stands in a lost byte's slot (a space, `?`, U+FFFD), or it is one character
/// of a lead byte alone (`Ã` for `à`, its space kept). Every other garbled form is made of
/// two or more characters that each stand for a byte `80..FF`.
pub fn is_lost_form(readings: &Readings, garbled: &[u8]) -> bool {
    if garbled.contains(&b' ')
        || garbled.contains(&b'?')
        || garbled.windows(REPLACEMENT.len()).any(|w| w == REPLACEMENT)
    {
        return true;
    }
    match readings.origin_at(garbled) {
        Some((origin, len)) => len == garbled.len() && is_lead_byte(origin.byte),
        None => false,
    }
}

/// How far before its slot a lost match may start: three characters of at most four bytes.
const LONGEST_REACH: usize = 12;

/// The fewest bytes a lost match and its slot take: a character that stands for a lead byte
/// (two bytes at least, as every non-ASCII character), then a one-byte slot.
const SHORTEST_LOST: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use bstr::ByteSlice;
    use proptest::prelude::*;

    /// The search as it was first written, stretch by stretch: the oracle of [`find_lost`].
    /// The first lost match that starts in `range` of `input`, and where. A lost byte's slot
    /// always follows a character that stands for a byte `80..FF`, never ASCII: so only the
    /// stretches of non-ASCII bytes are looked at (ASCII is skipped at the speed of a vector
    /// search), and in each the slots it holds (U+FFFD) or ends at (a space, a `?`), each tried
    /// with the characters just before it, since a garbled character is at most four long.
    fn find_lost_by_stretches(
        readings: &Readings,
        input: &[u8],
        range: Range<usize>,
    ) -> Option<(usize, LostMatch)> {
        let end = range.end.min(input.len());
        let mut at = range.start;
        while at < end {
            // Most stretches searched are the few bytes between two runs: a byte loop beats the
            // set-up of a vector search there.
            let rest = &input[at..end];
            let first = match rest.len() <= 32 {
                true => rest.iter().position(|&b| b >= 0x80),
                false => rest.find_non_ascii_byte(),
            };
            let stretch_start = at + first?;
            let stretch_end = input[stretch_start..end]
                .iter()
                .position(u8::is_ascii)
                .map_or(end, |k| stretch_start + k);
            let stretch = &input[stretch_start..stretch_end];
            let replacements = stretch
                .windows(REPLACEMENT.len())
                .enumerate()
                .filter(|&(k, w)| k > 0 && w == REPLACEMENT)
                .map(|(k, _)| stretch_start + k);
            let after = (stretch_end < end && matches!(input[stretch_end], b' ' | b'?'))
                .then_some(stretch_end);
            for slot in replacements.chain(after) {
                if let Some(found) = lost_before(readings, input, stretch_start, slot) {
                    return Some(found);
                }
            }
            at = stretch_end + 1;
        }
        None
    }

    /// Pieces of text around lost slots: garbled characters of the Western pair and of
    /// Windows-1251, their letters, other scripts, spaces, `?`, U+FFFD, ASCII.
    const PIECES: &[&str] = &[
        "Ã", "Â", "Ð", "Ñ", "Ã©", "â€", "â€™", "à¸", "Г", "вЂ", " ", "  ", "?", "\u{fffd}", "a",
        "Qu", "IRM", "и", "ж", "日本", "é", "½", "\u{a0}", "\u{80}", "s", "quele", "\n",
    ];

    fn readings_of(which: usize) -> Readings {
        match which {
            0 => Readings::western(),
            _ => Readings::new(&[
                &crate::mojibake::codepage::WINDOWS_1252,
                &super::super::codepage_tables::WINDOWS_1251,
            ])
            .expect("a reading"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The search by slots finds exactly what the search stretch by stretch finds, in any
        /// window of any text, under each reading.
        #[test]
        fn the_search_by_slots_is_the_search_by_stretches(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..24),
            which in 0..2usize,
            from in 0..64usize,
            to in 0..80usize,
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            let bytes = text.as_bytes();
            let readings = readings_of(which);
            let range = from.min(bytes.len())..to;
            prop_assert_eq!(
                find_lost(&readings, bytes, range.clone()),
                find_lost_by_stretches(&readings, bytes, range)
            );
        }

        /// The same on bytes that are not all UTF-8 (a window cut inside a character).
        #[test]
        fn the_two_searches_agree_on_any_bytes(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b' '), Just(b'?'), Just(0xC3u8), Just(0xA9u8), Just(0xEFu8),
                            Just(0xBFu8), Just(0xBDu8), Just(0xD0u8), Just(0xE2u8), Just(0x80u8),
                            any::<u8>()],
                0..160,
            ),
            which in 0..2usize,
            from in 0..160usize,
        ) {
            let readings = readings_of(which);
            let range = from.min(bytes.len())..bytes.len();
            prop_assert_eq!(
                find_lost(&readings, &bytes, range.clone()),
                find_lost_by_stretches(&readings, &bytes, range)
            );
        }
    }

    fn western(text: &str) -> Option<(usize, char, usize)> {
        let readings = Readings::western();
        find_lost(&readings, text.as_bytes(), 0..text.len())
            .map(|(start, found)| (start, found.original, found.len))
    }

    #[test]
    fn a_space_for_a0_infers_the_one_character_that_fits() {
        // `Ð ` is `D0 A0`, the Cyrillic capital Er, the space its lost byte.
        assert_eq!(western("Ð ÑƒÑ"), Some((0, 'Р', 3)));
        // `Â ` is a no-break space, `C2 A0`.
        assert_eq!(western("namedÂ x"), Some((5, '\u{a0}', 3)));
        // Thai `ภ` is `E0 B8 A0`: the slot is its last byte.
        assert_eq!(western("à¸ à¸²"), Some((0, 'ภ', 5)));
        // Braille blank `E2 A0 80` would fit a slot in second place, but braille is no
        // character of running text to infer.
        assert_eq!(western("â €"), None);
    }

    #[test]
    fn the_shortest_lost_match_fills_its_window() {
        // `Ð ` (`D0 A0`) with nothing around it: three bytes, the fewest a lost match takes.
        let text = "Ð ";
        assert_eq!(text.len(), SHORTEST_LOST);
        assert_eq!(western(text), Some((0, 'Р', 3)));
        let readings = Readings::western();
        assert_eq!(
            find_lost(&readings, "xÐ y".as_bytes(), 1..4).map(|(at, _)| at),
            Some(1)
        );
        assert_eq!(find_lost(&readings, "xÐ y".as_bytes(), 2..4), None);
    }

    #[test]
    fn a_grave_keeps_the_space_of_its_word() {
        assert_eq!(western("Ã nos"), Some((0, 'à', 2)));
        assert_eq!(western("Ã l’"), Some((0, 'à', 2)));
        assert_eq!(western("Ã s'Ã©"), Some((0, 'à', 2)));
        // Two spaces: the first is the lost byte.
        assert_eq!(western("voilÃ  le"), Some((4, 'à', 3)));
        // Portuguese words that a space never splits.
        assert_eq!(western("Ã s crianças"), Some((0, 'à', 3)));
        assert_eq!(western("Ã quele"), Some((0, 'à', 3)));
        assert_eq!(western("Ã quilo"), Some((0, 'à', 3)));
        assert_eq!(western("Ã s"), Some((0, 'à', 3)));
    }

    #[test]
    fn a_lost_byte_of_unknown_value_makes_one_replacement_character() {
        assert_eq!(western("Ñ\u{fffd}ки"), Some((0, '\u{fffd}', 5)));
        assert_eq!(western("à¥\u{fffd}"), Some((0, '\u{fffd}', 7)));
        assert_eq!(western("decodingâ€\u{fffd}"), Some((8, '\u{fffd}', 8)));
        assert_eq!(western("bb+â€? from"), Some((3, '\u{fffd}', 6)));
    }

    #[test]
    fn ordinary_text_has_no_lost_bytes() {
        // A question mark after a letter, or after a lead's character alone.
        assert_eq!(western("Qué? Ã? ¿Sí?"), None);
        // Capitals ending a word, as Portuguese and Icelandic write them.
        assert_eq!(western("IRMÃ DO NORTE, AÐ OG"), None);
        // A space after a character that stands for no lead byte.
        assert_eq!(western("café au lait, ½ litre"), None);
        // `Ì ` would be `CC A0`, a combining mark, `Ç ` `C7 A0`, the rare `Ǡ`: nothing a space
        // is inferred as.
        assert_eq!(western("xÌ y"), None);
        assert_eq!(western("G/Ç bildirimleri"), None);
        // Two lost slots are not one character.
        assert_eq!(western("â  x"), None);
    }

    #[test]
    fn lost_forms_are_told_from_every_other_garbled_form() {
        let readings = Readings::western();
        for lost in ["Ð ", "Ã", "Ñ\u{fffd}", "â€?", "à¸ "] {
            assert!(is_lost_form(&readings, lost.as_bytes()), "{lost}");
        }
        // `Ã` and a no-break space is whole; a C1 control stands for a continuation byte.
        for whole in ["Ã©", "â€™", "Ã\u{a0}", "\u{80}", "ÃƒÂ©"] {
            assert!(!is_lost_form(&readings, whole.as_bytes()), "{whole}");
        }
    }

    #[test]
    fn other_readings_use_their_own_lead_characters() {
        // Windows-1251: `Г` is byte `C3`.
        let readings =
            Readings::new(&[&super::super::codepage_tables::WINDOWS_1251]).expect("a reading");
        let text = "se trouve Г lвЂ™ouest";
        let found = find_lost(&readings, text.as_bytes(), 0..text.len());
        assert_eq!(
            found.map(|(s, f)| (s, f.original, f.len)),
            Some((10, 'à', 2))
        );
    }
}
