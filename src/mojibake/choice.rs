//! Which reading a buffer was garbled through, chosen by its own evidence.
//!
//! Most garbled text went through ISO-8859-1 or Windows-1252, and the default scanner reads
//! those. Text in other scripts was garbled through the page of its system: Russian through
//! Windows-1251 (`РџСЂРёРІРµС‚`), Czech through ISO-8859-2, exports from old Macs through Mac
//! OS Roman (`caf√©`), consoles through CP437 (`╨┐╤Ç╨╕`). One scanner cannot read all of
//! them at once: the pages give different bytes to the same characters (`é` is `0xE9` in
//! ISO-8859-1 and `0x8E` in Mac OS Roman), so each is read by a scanner of its own.
//!
//! [`Scanner::choosing`] makes a scanner that, for each buffer, asks every page's scanner what
//! it would repair (a page that agrees with the Western pair on every character they share is
//! read together with them, for text garbled through both), and lets the one whose repairs
//! explain the most garbled characters scan it; a tie keeps the Western pair, so a buffer that no other page explains better is scanned exactly
//! as the default scanner would. Each page's own rule still decides every run: a page is
//! chosen only by repairs its rule would make anyway, never by characters it merely could
//! read, so correct text in Greek or Russian, which no page's rule repairs, keeps the Western
//! pair (and is left as it is).
//!
//! The plausibility rule was made for the Western pages, whose garbled forms it knows; under
//! another page it can call certain a pair that is correct text of that page's own script
//! (`ВІКІ`, `√π`, `├┤`). So a repair under another page must also give text a writer writes:
//! letters, the punctuation of running text, currency signs and emoji, never a combining mark,
//! a modifier letter, a box-drawing or mathematical sign ([`is_ordinary_repair`]); and a run of
//! one character garbled into two must touch a letter or digit, as the inside of a word does
//! (`wei√ü`), for a pair of symbols standing alone is as likely correct as not. A run that
//! fails is left as it is, and counts for no page.
//!
//! A page is tried only where it could win: one pass over the probe window finds every
//! garbled character each page could explain, and what it could explain at most
//! ([`super::choice_bound`]); a page none of whose garbled characters the Western pair reads
//! otherwise (but those its filter below would refuse) finds nothing the Western rule has
//! not judged, and is not chosen. Correct text,
//! in any script, is then read through no other page at all, and costs one pass.
//!
//! The choice is the buffer's, made on its first lines ([`PROBE_WINDOW`]): a file fed in
//! pieces may have a piece chosen otherwise, and a buffer garbled through another page only
//! far from its start keeps the Western reading.

use std::convert::Infallible;

use bstr::ByteSlice;

use super::classes::{CharClass, SYMBOLS_AFTER_NO_LETTER, Script, class_of, script_of};
use super::codepage::{ALL, CodePage, ReadingMask, Readings, ReadingsError};
use super::matcher::{DoubleEncodedMatch, RepairedChar, decode_char, decode_last_char};
use super::plausibility::{Evidence, Strictness, Verdict, WORD_INTERNAL_PUNCTUATION};
use super::scanner::{Run, Scanner, Sink, Utf8};

/// Whether `ch`, repaired under a page other than the Western pair, is text a writer writes.
fn is_ordinary(ch: char) -> bool {
    match class_of(ch) {
        // The letters of the living languages the other pages serve: for Latin, those below
        // the phonetic block and Vietnamese's; for Cyrillic and Greek, their basic blocks.
        // Rarer letters are what a correct pair of letters becomes when misread (`рё` → `ң`
        // through KOI8-R, `┼┐` → `ſ`). The long s, kra and apostrophe-n are of old spelling.
        // The ligatures `ﬁ ﬂ ﬀ` are what text extracted from PDF files is full of.
        CharClass::Letter(Script::Latin) => {
            matches!(u32::from(ch), 0..=0x24F | 0x1EA0..=0x1EF9 | 0xFB00..=0xFB06)
                && !matches!(ch, 'ſ' | 'ĸ' | 'ŉ')
        }
        CharClass::Letter(Script::Cyrillic) => matches!(u32::from(ch), 0x400..=0x45F),
        CharClass::Letter(Script::Greek) => matches!(u32::from(ch), 0x370..=0x3FF),
        CharClass::Letter(_) => true,
        CharClass::Symbol => match u32::from(ch) {
            // Latin-1's punctuation and signs, but the spacing accents, the signs that stand
            // alone and the superscripts, which garbled pairs give as often as writers do.
            0xA0..=0xBF => {
                !SYMBOLS_AFTER_NO_LETTER.contains(&ch) && !matches!(ch, '¹' | '²' | '³' | 'ª' | 'º')
            }
            0xD7 | 0xF7 => true,
            // General punctuation (dashes, quotes, the ellipsis), currency signs, `№`, `™`.
            0x2010..=0x205E | 0x20A0..=0x20C0 | 0x2116 | 0x2122 => true,
            // Dingbats, the other symbols emoji are made of, and the emoji planes.
            0x2600..=0x27BF | 0x1F000..=0x1FAFF => true,
            // CJK and full-width punctuation.
            0x3000..=0x303F | 0xFF01..=0xFF65 => true,
            _ => false,
        },
        CharClass::Mark | CharClass::Rare | CharClass::Never => false,
    }
}

/// Whether a run repaired under a page other than the Western pair gives ordinary text: every
/// character ordinary and its letters of one script; garbled letters of one script inside a
/// word of that script only where they break its case ([`breaks_case`]); and a lone character
/// garbled into two touching a letter or digit on one side.
fn is_ordinary_repair(input: &[u8], run: &Run<'_>) -> bool {
    // What the Western pages explain, their own rule has judged.
    let western = |mask: ReadingMask| !mask.and(ReadingMask::WESTERN_FAMILY).is_empty();
    if run.chars.iter().all(|c| western(c.mask)) {
        return true;
    }
    // A character with a lost byte is judged by its field, which holds runs certainly garbled
    // ([`super::field`]): its own shape is no pair standing alone, and U+FFFD says what it is.
    if run.is_lost_byte() {
        return run
            .chars
            .iter()
            .all(|c| c.original == char::REPLACEMENT_CHARACTER || is_ordinary(c.original));
    }
    if !run.chars.iter().all(|c| is_ordinary(c.original)) {
        return false;
    }
    let mut scripts = run.chars.iter().filter_map(|c| script_of(c.original));
    if let Some(first) = scripts.next()
        && scripts.any(|script| script != first)
    {
        return false;
    }
    let before = decode_last_char(&input[..run.span.start]);
    let after = decode_char(&input[run.span.end..]).map(|(c, _)| c);
    // Garbled letters all of one script, touching a letter of that script: a piece of a word
    // that reads as well as it is (`Пётр`, `рё` inside a Russian word), unless it breaks the
    // word's case, or holds `ƒ`: a letter by its class, but the florin sign in the text of
    // every language with a Mac OS Roman (Ewe alone writes it), and that page's garbled form
    // of lead byte `C4`, the first half of Latin Extended-A (`ievƒìlƒìt` for `ievēlēt`).
    let garbled_text = &input[run.span.clone()];
    if let Some(script) = word_piece_script(garbled_text)
        && !garbled_text.contains_str("ƒ")
        && [before, after]
            .iter()
            .any(|c| c.and_then(script_of) == Some(script))
        && !breaks_case(before, garbled_text, after)
    {
        return false;
    }
    match run.chars {
        [one] if one.garbled_chars <= 2 => {
            let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            word(before) || word(after)
        }
        _ => true,
    }
}

/// Quotes that open a word, written right before its first letter.
const OPENING: [char; 5] = ['«', '“', '‘', '„', '‹'];
/// Quotes that close a word, written right after its last letter.
const CLOSING: [char; 5] = ['»', '”', '’', '‛', '›'];

/// The script of `garbled` when it reads as a piece of a word of one script, as words are
/// written: letters of that script, the punctuation words hold between two letters (the
/// apostrophe of Ukrainian `з’єднання` and `пам’ять`, a hyphen), and a quote that closes the
/// word after them (`полі»`) or opens it before them. Correct text of a page's own script is
/// full of such pieces that the page reads as one garbled character (`з’є` through
/// Windows-1251 is U+7487).
fn word_piece_script(garbled: &[u8]) -> Option<Script> {
    let text = std::str::from_utf8(garbled).ok()?;
    let letters = text.trim_start_matches(OPENING).trim_end_matches(CLOSING);
    let mut script = None;
    let mut previous_is_letter = false;
    let mut chars = letters.chars().peekable();
    while let Some(c) = chars.next() {
        if WORD_INTERNAL_PUNCTUATION.contains(&c) {
            let next_is_letter = chars.peek().is_some_and(|&next| script_of(next).is_some());
            if !(previous_is_letter && next_is_letter) {
                return None;
            }
            previous_is_letter = false;
            continue;
        }
        let this = script_of(c)?;
        if script.is_some_and(|known| known != this) {
            return None;
        }
        script = Some(this);
        previous_is_letter = true;
    }
    script
}

/// Whether the garbled letters put a capital inside a word that is not in capitals: after a
/// letter, with a small letter in the run or right after it (`MĂĄm`, `tĹ™`). Correct words
/// do not, so such a piece of a word is garbled even when its letters are of the word's script.
fn breaks_case(before: Option<char>, garbled: &[u8], after: Option<char>) -> bool {
    let mut previous = before;
    let mut capital_inside = false;
    let mut small = after.is_some_and(char::is_lowercase);
    for ch in garbled.chars() {
        capital_inside |= ch.is_uppercase() && previous.is_some_and(char::is_alphabetic);
        small |= ch.is_lowercase();
        previous = Some(ch);
    }
    capital_inside && small
}

/// The garbled characters of a run.
fn garbled_chars(run: &Run<'_>) -> i64 {
    run.chars.iter().map(|c| i64::from(c.garbled_chars)).sum()
}

/// Whether a match at `start` of `window` may count for `scanner`'s reading when a buffer's
/// reading is chosen ([`Scanner::chosen_for`]). One that stands alone is a run of its own
/// character (one character has no inner layer to peel): it counts for nothing when
/// [`OrdinaryRepairs`] would refuse that run. One among others counts for nothing when its
/// character is one [`is_ordinary`] refuses and no page of the reading gives it (so no
/// deeper layer can take it into an ordinary one): left in its run, it has the run refused.
/// What the Western pair explains is never refused.
fn may_count(
    scanner: &Scanner,
    window: &[u8],
    start: usize,
    found: &DoubleEncodedMatch,
    alone: bool,
) -> bool {
    if !found.mask.and(ReadingMask::WESTERN_FAMILY).is_empty() {
        return true;
    }
    if !alone {
        return is_ordinary(found.original) || scanner.readings().origin(found.original).is_some();
    }
    let span = start..start + found.len;
    let chars = [RepairedChar {
        span: span.clone(),
        original: found.original,
        mask: found.mask,
        layers: 1,
        garbled_chars: u32::from(found.chars),
    }];
    let run = Run {
        span,
        chars: &chars,
        verdict: Verdict::Certain(Evidence::NothingAgainst),
        repaired: true,
        field: None,
    };
    is_ordinary_repair(window, &run)
}

/// A sink in front of another that leaves alone the runs [`is_ordinary_repair`] refuses, and
/// counts their garbled characters.
struct OrdinaryRepairs<S> {
    sink: S,
    refused: i64,
}

impl<S> OrdinaryRepairs<S> {
    fn new(sink: S) -> Self {
        OrdinaryRepairs { sink, refused: 0 }
    }
}

impl<S: Sink> Sink for OrdinaryRepairs<S> {
    type Error = S::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), S::Error> {
        if run.repaired && !run.is_not_utf8() && !is_ordinary_repair(input, run) {
            self.refused += garbled_chars(run);
            let kept = Run {
                span: run.span.clone(),
                chars: run.chars,
                verdict: run.verdict,
                repaired: false,
                field: run.field,
            };
            return self.sink.run(input, &kept);
        }
        self.sink.run(input, run)
    }

    fn end(&mut self, input: &[u8]) -> Result<(), S::Error> {
        self.sink.end(input)
    }
}

/// What a scan through one reading would make of a buffer: the garbled characters its
/// repairs consume, less those of the runs [`OrdinaryRepairs`] refuses (a page that garbles
/// correct text into nonsense somewhere is no likelier for what it reads well elsewhere).
/// Garbled characters, not repaired ones, so that a reading that peels every layer of a run
/// counts for the whole run, and one that peels only some for less.
#[derive(Default)]
struct Explained(i64);

impl Sink for Explained {
    type Error = Infallible;

    fn run(&mut self, _: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
        // Bytes that are not UTF-8 are read alike under every reading of the set
        // ([`Scanner::with_raw_bytes`]): they speak for none; nor does a character inferred
        // from a lost byte.
        if run.repaired && !run.is_not_utf8() && !run.is_lost_byte() {
            self.0 += garbled_chars(run);
        }
        Ok(())
    }
}

/// How much of `input` `scanner` explains ([`Explained`]) under [`OrdinaryRepairs`], which
/// lets every run of the Western pair through as its rule judged it.
fn explained(scanner: &Scanner, input: &[u8], utf8: Utf8) -> i64 {
    let mut count = Explained::default();
    let mut ordinary = OrdinaryRepairs::new(&mut count);
    let Ok(()) = scanner.scan_as_read(input, &mut ordinary, utf8);
    let refused = ordinary.refused;
    count.0 - refused
}

/// How much of a buffer the readings are tried on: enough text to hold hundreds of garbled
/// words, little enough that trying a dozen pages costs a few per cent of scanning a large
/// buffer once.
const PROBE_WINDOW: usize = 64 * 1024;

/// The part of `input` the readings are tried on: all of it when it is small, else its first
/// [`PROBE_WINDOW`] bytes, extended to the end of their line so that no run is cut.
fn probe_window(input: &[u8]) -> &[u8] {
    let Some(rest) = input.get(PROBE_WINDOW..) else {
        return input;
    };
    match memchr::memchr(b'\n', rest) {
        Some(at) => &input[..PROBE_WINDOW + at + 1],
        None => input,
    }
}

/// Whether no character that both pages give is given for different bytes.
fn agree(one: &CodePage, other: &CodePage) -> bool {
    // `other`'s characters with their bytes, sorted: one search for each byte of `one`, not a
    // pass over `other`. Every scanner that chooses its reading asks this of its pages when it
    // is built, and a command builds one before it reads anything.
    let mut theirs: Vec<(char, u8)> = (0x80..=0xFFu8)
        .filter_map(|byte| Some((other.decode(byte)?, byte)))
        .collect();
    theirs.sort_unstable();
    (0x80..=0xFFu8).all(|byte| {
        let Some(ch) = one.decode(byte) else {
            return true;
        };
        let first = theirs.partition_point(|&(theirs, _)| theirs < ch);
        (theirs[first..].iter())
            .take_while(|&&(theirs, _)| theirs == ch)
            .all(|&(_, theirs)| theirs == byte)
    })
}

impl Scanner {
    /// A scanner that reads each buffer through the page its evidence chooses among
    /// `pages`: the Western pair together (ISO-8859-1 and Windows-1252, which real text
    /// mixes), or any other page alone. Masks name every page of `pages`, so counts of
    /// buffers chosen differently add up.
    pub fn choosing(
        pages: &[&'static CodePage],
        strictness: Strictness,
    ) -> Result<Scanner, ReadingsError> {
        let western = |bit: usize| pages.get(bit).is_some_and(|page| page.is_western());
        let mut scanners = Vec::new();
        if (0..pages.len()).any(western) {
            scanners.push(Scanner::new(Readings::among(pages, western)?, strictness));
        }
        for bit in (0..pages.len()).filter(|&bit| !western(bit)) {
            // A page that gives no character of the Western pair to another byte is read
            // together with them, for text garbled through both (`Г‚ВЈ`: `£` through
            // Windows-1252, then through Windows-1251); any other alone, since each of its
            // characters must be read back to its own byte.
            let joins = (0..pages.len())
                .filter(|&b| western(b))
                .all(|b| agree(pages[b], pages[bit]));
            let readings = Readings::among(pages, |b| b == bit || (joins && western(b)))?;
            scanners.push(Scanner::new(readings, strictness));
        }
        let mut scanners = scanners.into_iter();
        let first = scanners.next().ok_or(ReadingsError::Empty)?;
        Ok(first.with_others(scanners.collect()))
    }

    /// [`Scanner::choosing`] among every page this build knows.
    pub fn choosing_any(strictness: Strictness) -> Scanner {
        // The shipped pages: within every limit `among` checks.
        match Scanner::choosing(&ALL, strictness) {
            Ok(scanner) => scanner,
            Err(_) => unreachable!("the shipped pages are valid"),
        }
    }

    /// Whether this scanner chooses each buffer's reading ([`Scanner::choosing`]).
    pub fn chooses_reading(&self) -> bool {
        !self.others().0.is_empty()
    }

    /// Scans `input` through the reading its evidence chooses: this scanner's own, or one of
    /// the others it was made with when that one explains more garbled characters. The
    /// buffer's UTF-8 is known as `utf8` says, or found out here once for every pass.
    pub(crate) fn scan_chosen<S: Sink>(
        &self,
        input: &[u8],
        sink: &mut S,
        utf8: Utf8,
    ) -> Result<(), S::Error> {
        let utf8 = match utf8 {
            Utf8::Unknown => Utf8::known(simdutf8::basic::from_utf8(input).is_ok()),
            known => known,
        };
        match self.chosen_for_known(input, utf8) {
            Some(other) => other.scan_as_read(input, &mut OrdinaryRepairs::new(sink), utf8),
            None => self.scan_as_read(input, sink, utf8),
        }
    }

    /// The other scanner `input`'s evidence chooses, if any.
    ///
    /// Only the readings that could explain more than the best so far are scanned
    /// ([`Bounds`](super::choice_bound::Bounds)): the first other reading to explain the
    /// most still wins, as if every one had been scanned. The Western pair refuses no run of
    /// its own, so it explains at least nothing: a window where no other reading can start a
    /// garbled character keeps it unscanned.
    pub(crate) fn chosen_for(&self, input: &[u8]) -> Option<&Scanner> {
        self.chosen_for_known(input, Utf8::Unknown)
    }

    /// [`Scanner::chosen_for`] a buffer whose UTF-8 is known as `utf8` says. Its probe window
    /// ends at a line's end: it is valid when the buffer is; else it is taken as invalid,
    /// which only walks the bound character by character.
    fn chosen_for_known(&self, input: &[u8], utf8: Utf8) -> Option<&Scanner> {
        let (others, Some(bounds)) = self.others() else {
            return None;
        };
        if input.is_ascii() {
            return None;
        }
        let input = probe_window(input);
        let bound = bounds.of(self.readings(), others, input, utf8, may_count);
        let floor = match self.readings().read_pages().all(CodePage::is_western) {
            true => 0,
            false => i64::MIN,
        };
        let within = |bit: usize| bound.get(bit).copied().unwrap_or(i64::MAX);
        if (0..others.len()).all(|bit| within(bit) <= floor) {
            return None;
        }
        let mut chosen = None;
        let mut best = explained(self, input, utf8);
        for (bit, other) in others.iter().enumerate() {
            if within(bit) <= best {
                continue;
            }
            let repaired = explained(other, input, utf8);
            if repaired > best {
                chosen = Some(other);
                best = repaired;
            }
        }
        chosen
    }

    /// The names of the pages `input` is read through.
    pub fn readings_for(&self, input: &[u8]) -> Vec<&'static str> {
        let chosen = self.chosen_for(input).unwrap_or(self);
        chosen
            .readings()
            .read_pages()
            .map(|page| page.name)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::codepage::{KOI8_R, WINDOWS_1251, garble};
    use crate::mojibake::repair;
    use proptest::prelude::*;

    /// Characters of the scripts the pages serve, the punctuation they garble, and what
    /// correct text holds that looks garbled.
    const ALPHABET: &[char] = &[
        'a', 'Z', ' ', '\n', '\t', '"', ',', 'é', 'È', 'ß', 'ñ', 'Ã', 'Â', '©', '»', '«', '\u{a0}',
        'ő', 'Ł', 'ž', 'ę', 'ā', 'ı', 'ş', 'п', 'р', 'ё', 'і', 'Ж', 'В', 'λ', 'Ά', 'ώ', '€', '’',
        '“', '–', '…', '™', '\u{85}', '\u{93}', '♥', '中', '😀',
    ];

    #[test]
    fn pages_agree_by_the_definition() {
        // No byte of `one` gives a character that `other` gives for another byte.
        let by_definition = |one: &CodePage, other: &CodePage| {
            (0x80..=0xFFu8).all(|byte| {
                let ch = one.decode(byte);
                ch.is_none()
                    || (0x80..=0xFFu8).all(|theirs| theirs == byte || other.decode(theirs) != ch)
            })
        };
        let mut agreeing = 0;
        for one in ALL {
            for other in ALL {
                assert_eq!(
                    agree(one, other),
                    by_definition(one, other),
                    "{} and {}",
                    one.name,
                    other.name
                );
                agreeing += usize::from(agree(one, other));
            }
        }
        // Both answers occur: every page agrees with itself, Windows-1251 and KOI8-R do not.
        assert!(agreeing >= ALL.len() && agreeing < ALL.len() * ALL.len());
        assert!(!agree(&WINDOWS_1251, &KOI8_R));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The choice scans only the readings whose bound could beat the best so far: no
        /// reading explains more than its bound, and the choice is the one scanning every
        /// reading makes, but where the rule drops a reading whose counted garbled
        /// characters the Western pair all reads alike.
        #[test]
        fn no_reading_explains_more_than_its_bound(
            text in prop::collection::vec(prop::sample::select(ALPHABET), 1..40),
            through in prop::option::of(0..ALL.len()),
        ) {
            let text: String = text.into_iter().collect();
            let input = match through.and_then(|page| garble(text.as_bytes(), |_| ALL[page])) {
                Some(garbled) => garbled.into_bytes(),
                None => text.into_bytes(),
            };
            let scanner = Scanner::choosing_any(Strictness::default());
            let (others, Some(bounds)) = scanner.others() else {
                panic!("a choosing scanner has others");
            };
            let bound = bounds.of(scanner.readings(), others, &input, Utf8::Unknown, may_count);
            // The choice made by scanning every reading.
            let mut best = explained(&scanner, &input, Utf8::Unknown);
            let mut winner = None;
            for (bit, other) in others.iter().enumerate() {
                let explained = explained(other, &input, Utf8::Unknown);
                // Where the bound is used, it holds.
                prop_assert!(bound[bit] == 0 || explained <= bound[bit],
                    "{:?}: {} explains {explained} > {}", String::from_utf8_lossy(&input),
                    other.readings().describe(ReadingMask(u16::MAX)), bound[bit]);
                if explained > best {
                    (best, winner) = (explained, Some(bit));
                }
            }
            // The bounded choice is the same, unless the winner's garbled characters that
            // count are all read alike by the Western pair (its bound is 0 by rule).
            let chosen = scanner.chosen_for(&input).map(|chosen| {
                others.iter().position(|other| std::ptr::eq(other, chosen))
            });
            match winner {
                Some(bit) if bound[bit] > 0 => prop_assert_eq!(chosen, Some(Some(bit))),
                Some(_) => {}
                None => prop_assert_eq!(chosen, None),
            }
        }
    }

    fn fixed(scanner: &Scanner, text: &str) -> String {
        String::from_utf8_lossy(&repair(scanner, text.as_bytes())).into_owned()
    }

    #[test]
    fn correct_text_in_every_script_is_not_probed() {
        // Correct text that some page's matcher reads as garbled (`её` through KOI8-R, `Ві`
        // through Windows-1251, `ß«` through ISO-8859-15), which no page may repair.
        let scanner = Scanner::choosing_any(Strictness::default());
        let (others, Some(bounds)) = scanner.others() else {
            panic!("a choosing scanner has others");
        };
        for text in [
            "Привет, мир: её объём «ёлки» — и всё. Вітаю, ДІЯ",
            "Ελληνικά κείμενα, Άρης",
            "café crème brûlée, naïve, Straße «ß»",
            "Żółć gęślą jaźń, Příliš žluťoučký kůň, açıklık",
            "日本語のテキスト",
        ] {
            let bound = bounds.of(
                scanner.readings(),
                others,
                text.as_bytes(),
                Utf8::Unknown,
                may_count,
            );
            assert!(bound.iter().all(|&b| b == 0), "{text}: {bound:?}");
            assert!(scanner.chosen_for(text.as_bytes()).is_none(), "{text}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_alike_whichever_reading_is_chosen() {
        use crate::mojibake::RawBytes;
        // Russian garbled through Windows-1251 chooses that page; the raw `\xE9` beside it is
        // still Windows-1252's `é` by default, kept with `keep`, and `й` only when asked.
        let mut input = "Привет: РџСЂРёРІРµС‚, ".as_bytes().to_vec();
        input.extend(b"Caf\xE9\n");
        let chooser = || Scanner::choosing_any(Strictness::default());
        let fixed = |raw| {
            let scanner = chooser()
                .with_raw_bytes(raw)
                .expect("a page the chooser names");
            assert_eq!(scanner.readings_for(&input), ["cp1251"]);
            repair(&scanner, &input).into_owned()
        };
        assert_eq!(fixed(RawBytes::Auto), "Привет: Привет, Café\n".as_bytes());
        let mut kept = "Привет: Привет, ".as_bytes().to_vec();
        kept.extend(b"Caf\xE9\n");
        assert_eq!(fixed(RawBytes::Keep), kept);
        assert_eq!(
            fixed(RawBytes::Through(&WINDOWS_1251)),
            "Привет: Привет, Cafй\n".as_bytes()
        );
    }

    #[test]
    fn each_text_is_read_through_the_page_that_explains_it() {
        let scanner = Scanner::choosing_any(Strictness::Balanced);
        let cases = [
            ("РґРѕСЂРѕРіРµ РїРѕРґ", "дороге под", "cp1251"),
            (
                "Merci de bien vouloir activiter le Javascript dans votre navigateur web afin d'en profiter‚Ä¶",
                "Merci de bien vouloir activiter le Javascript dans votre navigateur web afin d'en profiter…",
                "macroman",
            ),
            ("#╨┐╤Ç╨░╨▓╨╕╨╗╤î╨╜╨╛╨╡", "#правильное", "cp437"),
            ("café crÃ¨me", "café crème", "cp1252"),
            (
                "MĂĄm dost tĹ\u{99}etĂ\u{ad}ho",
                "Mám dost třetího",
                "latin2",
            ),
            (
                "SaeimƒÅ ievƒìlƒìtƒÅs partijas",
                "Saeimā ievēlētās partijas",
                "macroman",
            ),
            (
                "a signiп¬Ѓcantly larger share",
                "a signiﬁcantly larger share",
                "cp1251",
            ),
        ];
        for (bad, good, page) in cases {
            assert_eq!(fixed(&scanner, bad), good, "{bad}");
            let names = scanner.readings_for(bad.as_bytes());
            assert!(names.contains(&page), "{bad}: {names:?}");
        }
    }

    /// Correct text of the scripts the other pages serve stays as it is, and keeps the Western
    /// reading.
    #[test]
    fn correct_text_of_other_scripts_is_left_alone() {
        let scanner = Scanner::choosing_any(Strictness::Balanced);
        for text in [
            "Привет, как дела? Всё хорошо, спасибо.",
            "Příliš žluťoučký kůň úpěl ďábelské ódy.",
            "Zażółć gęślą jaźń, mówił Łukasz.",
            "Γειά σου Κόσμε, τι κάνεις σήμερα;",
            "Pijamalı hasta yağız şoföre çabucak güvendi.",
            "Įlinkdama fechtuotojo špaga sublykčiojusi pragręžė apvalų arbūzą.",
            "plain ASCII text",
        ] {
            assert_eq!(fixed(&scanner, text), text);
            assert_eq!(scanner.readings_for(text.as_bytes()), ["latin1", "cp1252"]);
        }
    }

    /// Words as Ukrainian writes them, with an apostrophe inside and a closing guillemet
    /// after, which Windows-1251 reads as garbled characters (`з’є` as U+7487, `лі»` as
    /// U+BCFB): the text keeps the Western reading and is left as it is. Garbled, the same
    /// text is still read through Windows-1251.
    #[test]
    fn words_with_apostrophes_and_quotes_are_no_garbled_pieces() {
        let scanner = Scanner::choosing_any(Strictness::Balanced);
        let quoted = "натисніть «Далі», щоб продовжити, або «Скасувати»\nкнопка «Далі»\n";
        assert_eq!(fixed(&scanner, quoted), quoted);
        assert_eq!(
            scanner.readings_for(quoted.as_bytes()),
            ["latin1", "cp1252"]
        );
        let text = "Не вдалося під’єднати %s до %s\nАдресу не пов’язано з об’єктом\n\
                    у полі «era» є некоректною\nз’єднання, пам’ять, м’ясо\n";
        assert_eq!(fixed(&scanner, text), text);
        assert_eq!(scanner.readings_for(text.as_bytes()), ["latin1", "cp1252"]);
        let garbled = garble(text.as_bytes(), |_| &WINDOWS_1251);
        let garbled = garbled.expect("Windows-1251 gives every byte of the text");
        assert_eq!(scanner.readings_for(garbled.as_bytes()), ["cp1251"]);
    }

    #[test]
    fn word_pieces_are_letters_of_one_script_as_words_hold_them() {
        let script = |text: &str| word_piece_script(text.as_bytes());
        assert_eq!(script("з’є"), Some(Script::Cyrillic));
        assert_eq!(script("лі»"), Some(Script::Cyrillic));
        assert_eq!(script("«Зі"), Some(Script::Cyrillic));
        assert_eq!(script("Рё"), Some(Script::Cyrillic));
        // Punctuation words hold only between two letters; other symbols make no word.
        assert_eq!(script("Р·"), None);
        assert_eq!(script("’є"), None);
        assert_eq!(script("вЂ™"), None);
        assert_eq!(script("»Ü"), None);
        // Letters of two scripts are no piece of one word.
        assert_eq!(script("Ã©"), None);
        assert_eq!(script("ΑЄ"), None);
    }

    #[test]
    fn western_text_is_scanned_as_the_default_scanner_scans_it() {
        let scanner = Scanner::choosing_any(Strictness::Balanced);
        let western = Scanner::new(Readings::western(), Strictness::Balanced);
        for text in ["donâ€™t", "NicolÃ¡s", "l’Ã©valuation", "Ã  bientôt"] {
            assert_eq!(fixed(&scanner, text), fixed(&western, text), "{text}");
        }
    }
}
