//! The most each other reading could explain of a buffer, found in one pass.
//!
//! Choosing a buffer's reading ([`super::choice`]) scans its probe window through every other
//! page, a dozen scans of text that, most of the time, no page garbled. A garbled character
//! that a reading repairs always starts with a character standing, under that reading, for a
//! lead byte (`C2..F4`), directly followed by one standing for a continuation byte
//! (`80..BF`); and it counts for that reading as the characters its match spans, which the
//! matcher gives alone. So one pass over the window's non-ASCII characters, looking each up
//! once in a table of the roles it plays under every reading, finds every place where a
//! reading's matcher could succeed; the matcher run there gives the most garbled characters
//! the reading could explain ([`Bounds::of`]). A reading whose bound cannot beat the best
//! explained so far need not be scanned, and a window where no reading can start a garbled
//! character (correct text, in any script, almost always) is not probed at all. Nor is a
//! reading all of whose garbled characters the chooser's own reading reads alike: it would
//! only judge again what that reading's rule has judged.
//!
//! A run of C1 controls read back through Windows-1252 counts one garbled character per
//! control, so every control `controls::control_at` reads adds one to the readings that
//! look for them.

use bstr::ByteSlice;

use crate::byte_search::pairs::CharsAfterNonAscii;

use super::codepage::{MAX_PAGES, Readings, is_lead_byte};
use super::controls::control_at;
use super::matcher::{DoubleEncodedMatch, match_at, start_of_char_before};
use super::scanner::{Scanner, Utf8};

/// The readings (as bits: bit `k` is the `k`-th scanner given to [`Bounds::new`]) under which
/// a character stands for a lead byte, and those under which it stands for a continuation byte.
#[derive(Clone, Copy, Debug, Default)]
struct Roles {
    leads: u16,
    continuations: u16,
}

/// Where the two-byte character `lead`, `next` sits in [`Bounds::two`].
#[inline]
fn two_index(lead: u8, next: u8) -> usize {
    usize::from(lead - 0xC2) * 64 + usize::from(next & 0x3F)
}

/// The roles of every character some reading produces, for a set of scanners.
#[derive(Clone, Debug)]
pub(crate) struct Bounds {
    /// Two-byte characters, by their UTF-8 bytes ([`two_index`]).
    two: Box<[Roles; 30 * 64]>,
    /// Longer characters (the Windows pages' punctuation, box drawings, a few letters),
    /// sorted for bisection.
    longer: Vec<(char, Roles)>,
    /// Whether some longer character starts with this byte: text of scripts no page writes
    /// (CJK, most of it) is passed over without a search.
    longer_firsts: [bool; 256],
    /// The scanners that read C1 controls back.
    controls: u16,
    /// The non-ASCII characters that stand for a continuation byte under some reading: where
    /// a match may end its first character.
    continuations: CharsAfterNonAscii,
}

impl Bounds {
    /// The table for `scanners` (at most [`MAX_PAGES`]; the rest are never bounded, and so
    /// always probed).
    pub(crate) fn new(scanners: &[Scanner]) -> Bounds {
        let mut bounds = Bounds {
            two: Box::new([Roles::default(); 30 * 64]),
            longer: Vec::new(),
            longer_firsts: [false; 256],
            controls: 0,
            continuations: CharsAfterNonAscii::new([]),
        };
        let mut utf8 = [0u8; 4];
        for (bit, scanner) in scanners.iter().enumerate().take(MAX_PAGES) {
            let bit = 1u16 << bit;
            if scanner.reads_controls() {
                bounds.controls |= bit;
            }
            for (ch, origin) in scanner.readings().entries() {
                let roles = match *ch.encode_utf8(&mut utf8).as_bytes() {
                    [lead, next] => &mut bounds.two[two_index(lead, next)],
                    _ => match bounds.longer.iter().position(|(c, _)| *c == ch) {
                        Some(i) => &mut bounds.longer[i].1,
                        None => {
                            bounds.longer.push((ch, Roles::default()));
                            let last = bounds.longer.len() - 1;
                            &mut bounds.longer[last].1
                        }
                    },
                };
                if is_lead_byte(origin.byte) {
                    roles.leads |= bit;
                } else if (0x80..=0xBF).contains(&origin.byte) {
                    roles.continuations |= bit;
                }
            }
        }
        bounds.longer.sort_by_key(|(ch, _)| *ch);
        for (ch, _) in &bounds.longer {
            bounds.longer_firsts[usize::from(ch.encode_utf8(&mut utf8).as_bytes()[0])] = true;
        }
        // The two-byte character at `two_index(lead, next)` is U+0080 on from index 0.
        let two_byte = (0..bounds.two.len())
            .filter(|&i| bounds.two[i].continuations != 0)
            .filter_map(|i| char::from_u32(0x80 + i as u32));
        let longer = (bounds.longer.iter())
            .filter(|(_, roles)| roles.continuations != 0)
            .map(|&(ch, _)| ch);
        bounds.continuations = CharsAfterNonAscii::new(two_byte.chain(longer));
        bounds
    }

    /// The roles of the non-ASCII character at the start of `bytes`, as the walk character
    /// by character reads them.
    #[inline]
    fn roles_at(&self, bytes: &[u8]) -> Roles {
        match *bytes {
            [lead @ 0xC2..=0xDF, next, ..] if next & 0xC0 == 0x80 => self.two_byte(lead, next),
            _ => self.longer_roles_at(bytes).0,
        }
    }

    /// The roles of the two-byte character `lead`, `next` (a lead `C2..DF` and a continuation
    /// byte).
    #[inline]
    fn two_byte(&self, lead: u8, next: u8) -> Roles {
        self.two[two_index(lead, next)]
    }

    /// The roles of the character at the start of `bytes` (non-empty, neither ASCII nor a
    /// two-byte character, which [`Bounds::of`] looks up on its own), and its length; no
    /// roles, and one byte, for bytes that are no well-formed UTF-8.
    #[inline]
    fn longer_roles_at(&self, bytes: &[u8]) -> (Roles, usize) {
        let (first, third) = (bytes[0], bytes.get(2).copied());
        if !self.longer_firsts[usize::from(first)]
            && (0xE0..=0xEF).contains(&first)
            && bytes[1..].first().is_some_and(|&b| b & 0xC0 == 0x80)
            && third.is_some_and(|b| b & 0xC0 == 0x80)
        {
            // A three-byte character no page gives: nothing to look up. (Its exact
            // well-formedness does not matter: no match starts or ends inside it.)
            return (Roles::default(), 3);
        }
        match bstr::decode_utf8(bytes) {
            (Some(ch), len) => {
                let roles = self
                    .longer
                    .binary_search_by_key(&ch, |(c, _)| *c)
                    .map_or(Roles::default(), |i| self.longer[i].1);
                (roles, len)
            }
            (None, len) => (Roles::default(), len.max(1)),
        }
    }

    /// For each of `scanners` (those this table was made for), the most garbled characters
    /// its scan of `window` could explain: the characters of every match its matcher finds
    /// where a lead character is followed by a continuation character, and one for every C1
    /// control it would read back. `may_count` leaves out the matches that the caller knows
    /// will count for nothing; it is told whether a match stands alone, with no match
    /// right before or after it, so that its run is that match alone.
    ///
    /// A reading none of whose counted matches `own` (the chooser's own reading) reads
    /// otherwise (as another character, or not at all) is bounded by 0: it finds nothing the
    /// chooser's reading does not judge already.
    pub(crate) fn of(
        &self,
        own: &Readings,
        scanners: &[Scanner],
        window: &[u8],
        utf8: Utf8,
        may_count: impl MayCount,
    ) -> [i64; MAX_PAGES] {
        let mut tally = Tally::new(own, scanners, window, may_count);
        let valid = match utf8 {
            Utf8::Valid => true,
            Utf8::Invalid => false,
            Utf8::Unknown => simdutf8::basic::from_utf8(window).is_ok(),
        };
        match valid {
            true => self.tally_pairs(&mut tally),
            false => self.tally_chars(&mut tally),
        }
        let Tally {
            mut bound, other, ..
        } = tally;
        for (bit, bound) in bound.iter_mut().enumerate() {
            if other & 1 << bit == 0 {
                *bound = 0;
            }
        }
        bound
    }

    /// Tallies the matches of `window`, valid UTF-8, where they may be: at the characters
    /// that stand for a continuation byte under some reading right after another non-ASCII
    /// character, found as pairs of bytes ([`CharsAfterNonAscii`]), so that text with no such pair
    /// (correct text of most scripts, most of the time) is not walked character by
    /// character. The same matches, in the same order, as [`Bounds::tally_chars`] finds.
    fn tally_pairs<F: MayCount>(&self, tally: &mut Tally<'_, F>) {
        let window = tally.window;
        for at in self.continuations.positions(window, 0..window.len()) {
            let continuations = self.roles_at(&window[at..]).continuations;
            if continuations == 0 {
                continue;
            }
            let Some(previous_at) = start_of_char_before(window, at, 0) else {
                continue;
            };
            let starts = self.roles_at(&window[previous_at..]).leads & continuations;
            if starts != 0 {
                tally.matches(previous_at, starts);
            }
        }
        if self.controls != 0 {
            for at in memchr::memchr_iter(0xC2, window) {
                if control_at(window, at).is_some() {
                    tally.controls(self.controls);
                }
            }
        }
    }

    /// Tallies the matches of `window` character by character: for bytes that are not all
    /// UTF-8, whose characters only this walk cuts as the matcher does.
    fn tally_chars<F: MayCount>(&self, tally: &mut Tally<'_, F>) {
        let window = tally.window;
        // The start of the character before, and the readings it leads under (none: 0).
        let (mut previous_at, mut previous_leads) = (0, 0u16);
        let mut at = 0;
        while at < window.len() {
            if window[at].is_ascii() {
                previous_leads = 0;
                match window[at..].find_non_ascii_byte() {
                    Some(skip) => at += skip,
                    None => break,
                }
            }
            // Runs of two-byte characters (the alphabets) take a short loop of their own.
            while let [lead @ 0xC2..=0xDF, next, ..] = window[at..]
                && next & 0xC0 == 0x80
            {
                let roles = self.two_byte(lead, next);
                let starts = previous_leads & roles.continuations;
                if starts != 0 {
                    tally.matches(previous_at, starts);
                }
                if lead == 0xC2 && self.controls != 0 && control_at(window, at).is_some() {
                    tally.controls(self.controls);
                }
                (previous_at, previous_leads) = (at, roles.leads);
                at += 2;
            }
            if at >= window.len() {
                break;
            }
            if window[at].is_ascii() {
                continue;
            }
            // A longer character (C1 controls are two-byte ones, counted above).
            let (roles, len) = self.longer_roles_at(&window[at..]);
            let starts = previous_leads & roles.continuations;
            if starts != 0 {
                tally.matches(previous_at, starts);
            }
            (previous_at, previous_leads) = (at, roles.leads);
            at += len;
        }
    }
}

/// What decides whether a match counts ([`Bounds::of`]'s `may_count`).
pub(crate) trait MayCount:
    Fn(&Scanner, &[u8], usize, &DoubleEncodedMatch, bool) -> bool
{
}
impl<F: Fn(&Scanner, &[u8], usize, &DoubleEncodedMatch, bool) -> bool> MayCount for F {}

/// What [`Bounds::of`] has found so far in `window`, and what it counts with.
struct Tally<'a, F> {
    own: &'a Readings,
    scanners: &'a [Scanner],
    window: &'a [u8],
    may_count: F,
    bound: [i64; MAX_PAGES],
    /// Where each reading's last match ended.
    last_end: [usize; MAX_PAGES],
    /// The readings with a match the chooser's own reading reads otherwise.
    other: u16,
}

impl<'a, F: MayCount> Tally<'a, F> {
    fn new(own: &'a Readings, scanners: &'a [Scanner], window: &'a [u8], may_count: F) -> Self {
        Tally {
            own,
            scanners,
            window,
            may_count,
            bound: [0; MAX_PAGES],
            last_end: [usize::MAX; MAX_PAGES],
            other: 0,
        }
    }

    /// Counts the matches at `start` of the readings in `starts` (those under which the
    /// character there stands for a lead byte and the next one for a continuation byte).
    #[cold]
    fn matches(&mut self, start: usize, mut starts: u16) {
        let window = self.window;
        while starts != 0 {
            let bit = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let scanner = &self.scanners[bit];
            let readings = scanner.readings();
            let Some(found) = match_at(readings, window, start) else {
                continue;
            };
            let end = start + found.len;
            let alone = self.last_end[bit] != start && match_at(readings, window, end).is_none();
            self.last_end[bit] = end;
            if (self.may_count)(scanner, window, start, &found, alone) {
                self.bound[bit] += i64::from(found.chars);
                if self.other & 1 << bit == 0
                    && match_at(self.own, window, start)
                        .is_none_or(|ours| (ours.len, ours.original) != (found.len, found.original))
                {
                    self.other |= 1 << bit;
                }
            }
        }
    }

    /// Counts a C1 control for the readings in `readers`, which read controls back.
    #[cold]
    fn controls(&mut self, mut readers: u16) {
        while readers != 0 {
            let bit = readers.trailing_zeros() as usize;
            readers &= readers - 1;
            self.bound[bit] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::Strictness;
    use crate::mojibake::codepage::{ALL, CodePage, ReadingMask};
    use crate::mojibake::scanner::{Run, Sink};
    use std::convert::Infallible;

    /// What a scan repairs, in garbled characters, as the choice counts it (lost bytes and
    /// bytes that are not UTF-8 aside).
    fn explained(scanner: &Scanner, input: &[u8]) -> i64 {
        struct Count(i64);
        impl Sink for Count {
            type Error = Infallible;
            fn run(&mut self, _: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
                if run.repaired && !run.is_not_utf8() && !run.is_lost_byte() {
                    self.0 += run
                        .chars
                        .iter()
                        .map(|c| i64::from(c.garbled_chars))
                        .sum::<i64>();
                }
                Ok(())
            }
        }
        let mut count = Count(0);
        let Ok(()) = scanner.scan_as_read(input, &mut count, Utf8::Unknown);
        count.0
    }

    fn scanners(pages: &[&'static CodePage]) -> Vec<Scanner> {
        pages
            .iter()
            .map(|page| {
                let readings = Readings::new(&[page]).unwrap();
                Scanner::new(readings, Strictness::Lenient)
            })
            .chain([Scanner::new(Readings::western(), Strictness::Lenient)])
            .collect()
    }

    /// Whether `scanner` finds a match somewhere in `input` that `own` reads otherwise.
    fn reads_otherwise(own: &Readings, scanner: &Scanner, input: &[u8]) -> bool {
        (0..input.len()).any(|at| {
            match_at(scanner.readings(), input, at).is_some_and(|found| {
                match_at(own, input, at)
                    .is_none_or(|ours| (ours.len, ours.original) != (found.len, found.original))
            })
        })
    }

    /// Pieces of correct and garbled text of the scripts the pages serve, and C1 controls.
    const PIECES: &[&str] = &[
        "a",
        " ",
        "\n",
        "é",
        "Ã©",
        "â€™",
        "’",
        "Ð¿",
        "п",
        "ё",
        "Ñ‘",
        "Ä…",
        "ą",
        "Î¬",
        "ά",
        "Ã˜",
        "Ø",
        "\u{85}",
        "\u{93}",
        "日",
        "ðŸ˜€",
        "😀",
        "Â",
        "Ã",
        "\u{a0}",
        "«",
        "€",
        "ÅŸ",
    ];

    fn tallies(
        bounds: &Bounds,
        own: &Readings,
        scanners: &[Scanner],
        window: &[u8],
        by_pairs: bool,
    ) -> ([i64; MAX_PAGES], [usize; MAX_PAGES], u16) {
        // Counting only the matches that stand alone makes the order of the matches count.
        let may_count =
            |_: &Scanner, _: &[u8], _: usize, _: &DoubleEncodedMatch, alone: bool| alone;
        let mut tally = Tally::new(own, scanners, window, may_count);
        match by_pairs {
            true => bounds.tally_pairs(&mut tally),
            false => bounds.tally_chars(&mut tally),
        }
        (tally.bound, tally.last_end, tally.other)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// On UTF-8, the walk from pair to pair finds the matches the walk character by
        /// character finds, in the same order.
        #[test]
        fn the_walk_by_pairs_is_the_walk_by_characters(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..120),
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            let scanners = scanners(&ALL);
            let bounds = Bounds::new(&scanners);
            let own = Readings::western();
            let window = text.as_bytes();
            proptest::prop_assert_eq!(
                tallies(&bounds, &own, &scanners, window, true),
                tallies(&bounds, &own, &scanners, window, false),
                "{:?}", text
            );
        }
    }

    #[test]
    fn the_bound_holds_what_every_reading_explains() {
        let scanners = scanners(&ALL);
        let bounds = Bounds::new(&scanners);
        let own = Readings::western();
        let texts = [
            "café crème brûlée, naïve “quoted” — €5 ’",
            "Привет, мир: её объём «ёлки»",
            "Ελληνικά κείμενα, Άρης",
            "Żółć gęślą jaźń, Příliš žluťoučký kůň",
            "日本語のテキスト ✓ 🎉",
            "SaeimÄ ievÄ“lÄ“tÄs \u{85}\u{93}x\u{94}",
        ];
        let mut checked = 0;
        for text in texts {
            // Each text as it is and garbled through every page that can garble it.
            let mut inputs = vec![text.as_bytes().to_vec()];
            for page in ALL {
                if let Some(garbled) = crate::mojibake::codepage::garble(text.as_bytes(), |_| page)
                {
                    inputs.push(garbled.into_bytes());
                }
            }
            for input in &inputs {
                let bound = bounds.of(&own, &scanners, input, Utf8::Unknown, |_, _, _, _, _| true);
                for (bit, scanner) in scanners.iter().enumerate() {
                    let name = scanner.readings().describe(ReadingMask(u16::MAX));
                    let text = String::from_utf8_lossy(input);
                    if !reads_otherwise(&own, scanner, input) {
                        assert_eq!(bound[bit], 0, "{text:?} through {name}");
                        continue;
                    }
                    let explained = explained(scanner, input);
                    assert!(
                        explained <= bound[bit],
                        "{text:?} through {name}: explains {explained}, bound {}",
                        bound[bit]
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 40, "only {checked} bounds checked");
    }
}
