//! C1 controls that stand for Windows-1252 characters.
//!
//! Windows-1252 text decoded as ISO-8859-1 keeps its punctuation as C1 controls: `„` (byte
//! `84`) becomes U+0084, `…` U+0085, `“ ”` U+0093 and U+0094. Encoded as UTF-8 they are valid
//! text, but no writer means a C1 control: the same premise that makes a C1 control inside a
//! garbled sequence a marker of double encoding. So a C1 control outside every double-encoded
//! sequence is read back as the Windows-1252 character of its byte, when
//!
//! - Windows-1252 is among the readings (the repair is then one of the ones the user asked
//!   for), and defines the byte (`81 8D 8F 90 9D` it leaves undefined: `\u{81}` stays);
//! - the control does not stand among other control characters, as in binary data or a
//!   terminal's escape sequences;
//! - it is not the tail of a garbled sequence broken by a lost byte (`â\u{80}`);
//! - the character it stands for fits where it stands: punctuation or a symbol, between two
//!   letters only an apostrophe or a dash; one of the letters `Š š Œ œ Ž ž Ÿ ƒ` only beside
//!   a letter (`Pe\u{9a}ek` → `Pešek`);
//! - and its field shows Windows-1252 text read as ISO-8859-1 (`mojibake::field`): a Latin-1
//!   letter read right (`parlé\u{85}`), or a certain run, and nothing beyond Latin-1 outside
//!   the runs. The same bytes are other characters in other code pages: MacRoman's `\u{92}`
//!   is `í` (`tur\u{92}stico`), and a Windows-1251 text read as Latin-1 holds Cyrillic.

use super::classes::{CharClass, class_of, is_alphabetic};
use super::codepage::{CodePage, WINDOWS_1252};
use super::plausibility::{Evidence, Verdict};

/// The Windows-1252 character the C1 control encoded at `input[at..]` stands for, if it is
/// one and the page defines its byte.
pub(crate) fn control_at(input: &[u8], at: usize) -> Option<char> {
    let (&[0xC2, byte], _) = input.get(at..)?.split_first_chunk::<2>()? else {
        return None;
    };
    if !(0x80..=0x9F).contains(&byte) {
        return None;
    }
    defined(&WINDOWS_1252, byte)
}

fn defined(page: &CodePage, byte: u8) -> Option<char> {
    page.decode(byte)
        .filter(|c| !('\u{80}'..='\u{9f}').contains(c))
}

/// Judges a run of C1 controls that repair to `repaired`, between `before` and `after`: never
/// certain alone, since the same bytes mean other characters in other code pages (MacRoman's
/// `\u{92}` is `í`, not `’`); [`super::field`] asks for Windows-1252 text around it.
pub(crate) fn judge_controls(
    repaired: &[char],
    before: Option<char>,
    after: Option<char>,
) -> Verdict {
    let Some(&first) = repaired.first() else {
        return Verdict::Rejected(Evidence::NothingAgainst);
    };
    let control = |c: Option<char>| c.is_some_and(|c| c.is_control() && c != '\n' && c != '\t');
    if control(before) || control(after) {
        return Verdict::Rejected(Evidence::AmongControls(first));
    }
    // After `â` (the lead byte of all general punctuation) or `ð` (of emoji), a control is
    // most likely the tail of a garbled sequence the garbling broke (`â\u{80}` with its last
    // byte lost), not a character of its own. After other letters it is punctuation
    // (`parlé\u{85}` → `parlé…`).
    if matches!(before, Some('â' | 'ð')) {
        return Verdict::Rejected(Evidence::AmongControls(first));
    }
    let letter = |c: Option<char>| c.is_some_and(is_alphabetic);
    let between_letters = letter(before) && letter(after);
    for &c in repaired {
        let fits = match class_of(c) {
            CharClass::Symbol => !between_letters || WORD_INTERNAL.contains(&c),
            _ => letter(before) || letter(after),
        };
        if !fits {
            return Verdict::Rejected(Evidence::ControlForCharacter(c));
        }
    }
    Verdict::Ambiguous(Evidence::ControlForCharacter(first))
}

/// The Windows-1252 punctuation that correct text puts between two letters of a word.
const WORD_INTERNAL: [char; 3] = ['’', '–', '—'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_stand_for_the_characters_windows_1252_gives_their_bytes() {
        for byte in 0x80..=0x9Fu8 {
            let encoded = [0xC2, byte];
            let expected = match byte {
                0x81 | 0x8D | 0x8F | 0x90 | 0x9D => None,
                _ => WINDOWS_1252.decode(byte),
            };
            assert_eq!(control_at(&encoded, 0), expected, "{byte:02x}");
        }
        assert_eq!(control_at("„".as_bytes(), 0), None);
        assert_eq!(control_at(b"\xc2", 0), None);
        assert_eq!(control_at("\u{a0}".as_bytes(), 0), None);
    }

    #[test]
    fn punctuation_fits_where_it_stands_letters_only_beside_letters() {
        let ambiguous = |v: Verdict| matches!(v, Verdict::Ambiguous(_));
        assert!(ambiguous(judge_controls(&['„'], None, Some('H'))));
        assert!(ambiguous(judge_controls(&['…', '”'], Some('s'), None)));
        assert!(ambiguous(judge_controls(&['š'], Some('e'), Some('e'))));
        assert!(ambiguous(judge_controls(&['’'], Some('n'), Some('t'))));
        assert!(!ambiguous(judge_controls(&['š'], Some(' '), Some(' '))));
        assert!(!ambiguous(judge_controls(&['‡'], Some('l'), Some('n'))));
        assert!(!ambiguous(judge_controls(
            &['“'],
            Some('\u{1b}'),
            Some('x')
        )));
        assert!(!ambiguous(judge_controls(&['€'], Some('â'), Some(' '))));
    }
}
