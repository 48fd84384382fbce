//! What kind of character a code point is, as far as the plausibility rule needs to know.
//!
//! The rule asks two questions of a character: would it be at home in running text (a letter of
//! a living script, punctuation, a symbol, an emoji), and which script is it (so that a Cyrillic
//! letter wedged inside a Latin word stands out). Both answers come from one table of Unicode
//! block ranges below: data, not code, so that a range can be moved from one class to another
//! with evidence and without touching the rule.

/// The writing system of a letter, coarse on purpose: neighbours only need to agree or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Hebrew,
    Arabic,
    /// Devanagari to Sinhala, Tibetan, Myanmar and the other Brahmic scripts.
    Brahmic,
    /// Thai, Lao, Khmer.
    SoutheastAsian,
    Georgian,
    Ethiopic,
    /// Han, kana, hangul, bopomofo: text in these scripts mixes them freely.
    Cjk,
}

/// How at home a character is in ordinary running text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CharClass {
    Letter(Script),
    /// Digits, punctuation, spaces, currency, symbols, arrows, emoji.
    Symbol,
    /// A combining mark: at home only right after a letter.
    Mark,
    /// Real but seldom met in running text: phonetic letters, modifier letters, historic and
    /// minority scripts, braille, mathematical alphanumerics, compatibility forms.
    Rare,
    /// Never the intent of a writer: C0/C1 controls, private use, noncharacters, unassigned
    /// planes.
    Never,
}

/// Windows-1252 symbols that no correct text places directly after a letter.
pub(crate) const SYMBOLS_NEVER_AFTER_LETTERS: [char; 9] =
    ['€', '‚', '„', '†', '‡', '‰', 'ˆ', '˜', '‹'];

/// The Latin-1 symbols a writer never puts right after a letter: spacing accents (the accent
/// goes on the letter), the marks that open a Spanish question or exclamation, the vulgar
/// fractions (which follow digits), and signs that stand before a number or alone (`¢`, `¤`,
/// `¦`, `¬`).
pub(crate) const SYMBOLS_AFTER_NO_LETTER: [char; 15] = [
    '¡', '¢', '¤', '¦', '¨', '¬', '¯', '´', '¸', '¼', '½', '¾', '¿', 'ˆ', '˜',
];

/// [`MarkerTraits::of`] each Latin-1 character, made by hand from the Unicode properties it
/// stands for (a test holds it to them): no symbol of [`SYMBOLS_NEVER_AFTER_LETTERS`] is in
/// Latin-1, and its small letters include `ª`, `µ` and `º`.
const LATIN_1_TRAITS: [MarkerTraits; 256] = {
    let mut table = [MarkerTraits(0); 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match byte as u8 {
            0x80..=0x9F => MarkerTraits::C1_CONTROL,
            b'A'..=b'Z' | 0xC0..=0xD6 | 0xD8..=0xDE => MarkerTraits::UPPERCASE,
            b'a'..=b'z' | 0xAA | 0xB5 | 0xBA | 0xDF..=0xF6 | 0xF8..=0xFF => MarkerTraits::LOWERCASE,
            _ => MarkerTraits(0),
        };
        byte += 1;
    }
    table
};

/// What a character standing for a byte can tell the rule's markers, as bits: the matcher
/// carries them with every garbled character it reads, so that the rule looks at the
/// characters of a sequence only when one of them could be a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MarkerTraits(u8);

impl MarkerTraits {
    /// A C1 control (`U+0080..U+009F`).
    pub const C1_CONTROL: MarkerTraits = MarkerTraits(1);
    /// One of the Windows-1252 symbols that follow no letter in correct text (`€ ‚ „ † ‡ ‰ ˆ ˜ ‹`).
    pub const NEVER_AFTER_LETTERS: MarkerTraits = MarkerTraits(2);
    /// [`char::is_uppercase`].
    pub const UPPERCASE: MarkerTraits = MarkerTraits(4);
    /// [`char::is_lowercase`].
    pub const LOWERCASE: MarkerTraits = MarkerTraits(8);

    /// The traits of `c`: from a table for Latin-1, which holds most characters the rule
    /// reads (every one of the Western pages but their punctuation), without the Unicode
    /// tables' searches.
    #[inline]
    pub fn of(c: char) -> MarkerTraits {
        match LATIN_1_TRAITS.get(c as usize) {
            Some(&traits) => traits,
            None => MarkerTraits::of_any(c),
        }
    }

    /// The traits of `c`, by their definitions.
    fn of_any(c: char) -> MarkerTraits {
        let mut bits = 0;
        if ('\u{80}'..='\u{9f}').contains(&c) {
            bits |= MarkerTraits::C1_CONTROL.0;
        }
        if SYMBOLS_NEVER_AFTER_LETTERS.contains(&c) {
            bits |= MarkerTraits::NEVER_AFTER_LETTERS.0;
        }
        if c.is_uppercase() {
            bits |= MarkerTraits::UPPERCASE.0;
        }
        if c.is_lowercase() {
            bits |= MarkerTraits::LOWERCASE.0;
        }
        MarkerTraits(bits)
    }

    /// The traits of either.
    #[inline]
    pub fn union(self, other: MarkerTraits) -> MarkerTraits {
        MarkerTraits(self.0 | other.0)
    }

    /// Whether any of `traits` is among these.
    #[inline]
    pub fn any(self, traits: MarkerTraits) -> bool {
        self.0 & traits.0 != 0
    }
}

use CharClass::{Letter, Mark, Never, Rare, Symbol};
use Script::*;

/// Inclusive code point ranges, sorted and disjoint; a code point in no range is [`Rare`].
const BLOCKS: &[(u32, u32, CharClass)] = &[
    (0x0080, 0x009F, Never),                  // C1 controls
    (0x00A0, 0x00BF, Symbol),                 // Latin-1 punctuation and symbols
    (0x00C0, 0x00D6, Letter(Latin)),          //
    (0x00D7, 0x00D7, Symbol),                 // ×
    (0x00D8, 0x00F6, Letter(Latin)),          //
    (0x00F7, 0x00F7, Symbol),                 // ÷
    (0x00F8, 0x024F, Letter(Latin)),          // Latin-1 letters, Latin Extended-A and -B
    (0x0250, 0x02FF, Rare),                   // IPA extensions, spacing modifier letters
    (0x0300, 0x036F, Mark),                   // combining diacritical marks
    (0x0370, 0x03E1, Letter(Greek)),          //
    (0x03E2, 0x03FF, Rare),                   // Coptic in Greek, archaic letters
    (0x0400, 0x052F, Letter(Cyrillic)),       // Cyrillic and its supplement
    (0x0531, 0x058F, Letter(Armenian)),       //
    (0x0591, 0x05AF, Rare),                   // Hebrew cantillation marks
    (0x05B0, 0x05C7, Letter(Hebrew)),         // Hebrew points: judged with Hebrew letters
    (0x05D0, 0x05F4, Letter(Hebrew)),         //
    (0x0600, 0x06FF, Letter(Arabic)),         //
    (0x0750, 0x077F, Letter(Arabic)),         // Arabic supplement
    (0x0900, 0x0DFF, Letter(Brahmic)),        // Devanagari .. Sinhala
    (0x0E01, 0x0EDF, Letter(SoutheastAsian)), // Thai, Lao
    (0x0F00, 0x0FDA, Letter(Brahmic)),        // Tibetan
    (0x1000, 0x109F, Letter(Brahmic)),        // Myanmar
    (0x10A0, 0x10FF, Letter(Georgian)),       //
    (0x1100, 0x11FF, Letter(Cjk)),            // Hangul jamo
    (0x1200, 0x139F, Letter(Ethiopic)),       //
    (0x1780, 0x17FF, Letter(SoutheastAsian)), // Khmer
    (0x1AB0, 0x1AFF, Mark),                   // combining diacritical marks extended
    (0x1C80, 0x1C8F, Letter(Cyrillic)),       // Cyrillic extended-C
    (0x1C90, 0x1CBF, Letter(Georgian)),       // Georgian extended
    (0x1DC0, 0x1DFF, Mark),                   // combining diacritical marks supplement
    (0x1E00, 0x1EFF, Letter(Latin)),          // Latin extended additional (Vietnamese)
    (0x1F00, 0x1FFF, Letter(Greek)),          // Greek extended
    (0x2000, 0x206F, Symbol),                 // general punctuation
    (0x2070, 0x20CF, Symbol),                 // super/subscripts, currency
    (0x20D0, 0x20FF, Mark),                   // combining marks for symbols
    (0x2100, 0x23FF, Symbol),                 // letterlike, number forms, arrows, maths
    (0x2460, 0x27FF, Symbol),                 // enclosed, box drawing, shapes, dingbats
    (0x2900, 0x2BFF, Symbol),                 // arrows, maths, miscellaneous symbols
    (0x2C60, 0x2C7F, Letter(Latin)),          // Latin extended-C
    (0x2D00, 0x2D2F, Letter(Georgian)),       // Georgian supplement
    (0x2DE0, 0x2DFF, Mark),                   // Cyrillic extended-A (combining)
    (0x2E00, 0x2E7F, Symbol),                 // supplemental punctuation
    (0x2E80, 0x2FDF, Letter(Cjk)),            // CJK radicals, Kangxi radicals
    (0x3000, 0x303F, Symbol),                 // CJK symbols and punctuation
    (0x3040, 0x312F, Letter(Cjk)),            // hiragana, katakana, bopomofo
    (0x3130, 0x318F, Letter(Cjk)),            // Hangul compatibility jamo
    (0x31A0, 0x31FF, Letter(Cjk)),            // bopomofo extended, CJK strokes, kana ext.
    (0x3200, 0x33FF, Symbol),                 // enclosed CJK, CJK compatibility
    (0x3400, 0x4DBF, Letter(Cjk)),            // CJK extension A
    (0x4E00, 0x9FFF, Letter(Cjk)),            // CJK unified ideographs
    (0xA720, 0xA7FF, Letter(Latin)),          // Latin extended-D
    (0xAB30, 0xAB6F, Letter(Latin)),          // Latin extended-E
    (0xAC00, 0xD7A3, Letter(Cjk)),            // Hangul syllables
    (0xD800, 0xF8FF, Never),                  // surrogates, private use
    (0xF900, 0xFAFF, Letter(Cjk)),            // CJK compatibility ideographs
    (0xFB00, 0xFB06, Letter(Latin)),          // Latin ligatures (ﬁ ﬂ)
    (0xFB1D, 0xFB4F, Letter(Hebrew)),         // Hebrew presentation forms
    (0xFB50, 0xFDCF, Letter(Arabic)),         // Arabic presentation forms-A
    (0xFDD0, 0xFDEF, Never),                  // noncharacters
    (0xFDF0, 0xFDFF, Letter(Arabic)),         //
    (0xFE00, 0xFE0F, Mark),                   // variation selectors
    (0xFE10, 0xFE6F, Symbol),                 // vertical, small and CJK compatibility forms
    (0xFE70, 0xFEFE, Letter(Arabic)),         // Arabic presentation forms-B
    (0xFEFF, 0xFEFF, Symbol),                 // byte order mark / zero-width no-break space
    (0xFF00, 0xFFEF, Symbol),                 // half- and fullwidth forms
    (0xFFFC, 0xFFFD, Symbol),                 // object and replacement characters
    (0xFFFE, 0xFFFF, Never),                  // noncharacters
    (0x1F000, 0x1FAFF, Symbol),               // mahjong .. emoji, symbols and pictographs
    (0x20000, 0x323AF, Letter(Cjk)),          // CJK extensions B..H
    (0x323B0, 0xDFFFF, Never),                // unassigned planes
    (0xE0001, 0xE007F, Mark),                 // tags (emoji flag sequences)
    (0xE0100, 0xE01EF, Mark),                 // variation selectors supplement
    (0xF0000, 0x10FFFF, Never),               // supplementary private use
];

/// The class of `ch`. ASCII letters are Latin letters, other printable ASCII and the ASCII
/// white space are symbols, the remaining ASCII controls are never intended.
#[inline]
pub fn class_of(ch: char) -> CharClass {
    let cp = u32::from(ch);
    match BMP_CLASSES.get(cp as usize) {
        Some(&class) => class,
        None => class_in_blocks(cp),
    }
}

/// The classes the first rows of the table give, with ASCII's own: the rows every repair and
/// every neighbour of a run is looked up in.
const fn class_below_u250(cp: u32) -> Option<CharClass> {
    Some(match cp {
        0x61..=0x7A | 0x41..=0x5A => Letter(Latin),
        0x09 | 0x0A | 0x0D | 0x0C | 0x20..=0x7E => Symbol,
        0x00..=0x9F => Never,
        0xA0..=0xBF | 0xD7 | 0xF7 => Symbol,
        0xC0..=0x24F => Letter(Latin),
        _ => return None,
    })
}

/// The class of a code point by bisection of [`BLOCKS`].
fn class_in_blocks(cp: u32) -> CharClass {
    match BLOCKS.binary_search_by(|&(start, end, _)| {
        if end < cp {
            std::cmp::Ordering::Less
        } else if start > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => BLOCKS[i].2,
        Err(_) => Rare,
    }
}

/// The class of every code point of the Basic Multilingual Plane, laid out from [`BLOCKS`]
/// when the crate is compiled: one load per character instead of a bisection, whose branches
/// the processor cannot foresee in text of many scripts.
static BMP_CLASSES: [CharClass; 0x10000] = {
    let mut classes = [Rare; 0x10000];
    let mut row = 0;
    while row < BLOCKS.len() {
        let (start, end, class) = BLOCKS[row];
        let mut cp = start;
        while cp <= end && cp < 0x10000 {
            classes[cp as usize] = class;
            cp += 1;
        }
        row += 1;
    }
    let mut cp = 0;
    while cp < 0x250 {
        if let Some(class) = class_below_u250(cp) {
            classes[cp as usize] = class;
        }
        cp += 1;
    }
    classes
};

/// Whether `ch` is alphabetic, exactly as [`char::is_alphabetic`] says, but fast for the
/// characters text is made of: the rule asks it of the neighbours of every run, and the
/// standard library answers from a compressed table that costs a few hundred instructions for
/// each character beyond ASCII. The answers for the Basic Multilingual Plane are kept as one
/// bitmap per page of 256 code points, each filled from the standard library the first time a
/// character of it is asked about.
pub(crate) fn is_alphabetic(ch: char) -> bool {
    if ch.is_ascii() {
        return ch.is_ascii_alphabetic();
    }
    let cp = u32::from(ch);
    let Some(page) = ALPHABETIC_PAGES.get((cp >> 8) as usize) else {
        return ch.is_alphabetic();
    };
    let bits = page.get_or_init(|| {
        let mut bits = [0u64; 4];
        for low in 0..256u32 {
            let alphabetic = char::from_u32(cp & !0xFF | low).is_some_and(char::is_alphabetic);
            bits[(low >> 6) as usize] |= u64::from(alphabetic) << (low & 63);
        }
        bits
    });
    let low = cp & 0xFF;
    bits[(low >> 6) as usize] >> (low & 63) & 1 == 1
}

/// One bitmap of [`is_alphabetic`] per page of the Basic Multilingual Plane.
static ALPHABETIC_PAGES: [std::sync::OnceLock<[u64; 4]>; 256] =
    [const { std::sync::OnceLock::new() }; 256];

/// The script of `ch` when it is a letter.
pub(crate) fn script_of(ch: char) -> Option<Script> {
    match class_of(ch) {
        Letter(script) => Some(script),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_1_traits_are_those_of_the_definition() {
        for c in ('\0'..='\u{FF}').chain(['\u{100}', '€', 'Ÿ', 'ƒ', 'Œ', 'œ']) {
            assert_eq!(MarkerTraits::of(c), MarkerTraits::of_any(c), "{c:?}");
        }
    }

    #[test]
    fn is_alphabetic_agrees_with_the_standard_library_everywhere() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(
                is_alphabetic(c),
                c.is_alphabetic(),
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn the_plane_table_agrees_with_the_blocks_everywhere() {
        for cp in 0..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let expected = class_below_u250(cp).unwrap_or_else(|| class_in_blocks(cp));
            assert_eq!(class_of(c), expected, "U+{cp:04X}");
        }
    }

    #[test]
    fn blocks_are_sorted_and_disjoint() {
        for pair in BLOCKS.windows(2) {
            assert!(pair[0].0 <= pair[0].1, "{:x?}", pair[0]);
            assert!(
                pair[0].1 < pair[1].0,
                "{:x?} overlaps {:x?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn classes_of_familiar_characters() {
        let cases = [
            ('é', Letter(Latin)),
            ('ł', Letter(Latin)),
            ('ệ', Letter(Latin)),
            ('ж', Letter(Cyrillic)),
            ('λ', Letter(Greek)),
            ('ש', Letter(Hebrew)),
            ('ع', Letter(Arabic)),
            ('日', Letter(Cjk)),
            ('カ', Letter(Cjk)),
            ('한', Letter(Cjk)),
            ('’', Symbol),
            ('€', Symbol),
            ('\u{a0}', Symbol),
            ('✔', Symbol),
            ('😀', Symbol),
            ('\u{fffd}', Symbol),
            ('\u{301}', Mark),
            ('ɮ', Rare),
            ('ʼ', Rare),
            ('\u{7eb}', Rare), // NKo
            ('⠻', Rare),       // braille
            ('\u{85}', Never),
            ('\u{e000}', Never),
            ('\u{10ffff}', Never),
            ('\u{1}', Never),
        ];
        for (ch, class) in cases {
            assert_eq!(class_of(ch), class, "U+{:04X}", u32::from(ch));
        }
    }
}
