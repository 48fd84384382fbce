//! Evidence beyond the run: what the field a run stands in says about it.
//!
//! A run cannot always decide alone. Double encoding damages whole values, as they were
//! written, so the other runs and the clean text of the same *field* (the stretch of a line
//! between tabs, quotes and CSV separators: one value of a dump or a CSV row, a sentence of
//! prose) are evidence for or against it:
//!
//! - **A certain run** in the field lends its evidence to an ambiguous one: what garbled one
//!   part of a value garbled the rest.
//! - **Depth.** A value goes through its conversions as a whole, so the runs of one field agree
//!   on how many layers they carry. An inner layer the rule finds only ambiguous (`Úž` garbled
//!   once holds `Úž`, which would itself repair to the Arabic `ڞ`) is peeled only when another
//!   run of the field is certain at as many layers and none is certain at fewer with no further
//!   layer in it (`Ã½` → `ý`, which holds no further layer, says the value went through one
//!   conversion).
//! - **Clean text double encoding cannot produce.** Garbled text is made of ASCII and the
//!   characters the code pages give bytes `80..FF` (`Ã`, `©`, `€`, `™`...). A field that also
//!   holds a correctly encoded `ř` or `я` outside every run was not garbled as a whole: its
//!   ambiguous runs are left, and no ambiguous inner layer is peeled in it.
//! - **Lone letters of one script.** Several runs that each repair to one letter of the same
//!   script, none touching a letter (a list of Tifinagh letters, `â´° â´± â´³`), in a field
//!   with no clean non-ASCII text beside them, are one garbled value, although each alone is a
//!   lone letter the rule cannot tell from correct text.
//!
//! The scanner gathers these per field as it goes ([`Field`]) and asks [`Field::decide`] about
//! each run it held back; this module knows only bytes, runs and verdicts.

use std::fmt;
use std::ops::Range;

use super::classes::{CharClass, Script, class_of};
use super::codepage::Readings;
use super::matcher::RepairedChar;
use super::plausibility::{CONTEXT_WINDOW, Verdict};

/// True when the byte at `at` separates two values: a newline, a tab, a double quote; a single
/// quote, unless it is an apostrophe inside a word (`l'été`, `м'ясо`: letters or non-ASCII
/// bytes on both sides; a dump escapes a quote inside a value, `\'` or `''`, so its quotes
/// always have ASCII punctuation beside them); a comma or semicolon glued to what follows, as
/// in a CSV row (`a,b`), unless between two digits (`5,00`): prose puts a space after one.
pub(crate) fn ends_field(input: &[u8], at: usize) -> bool {
    let before = at.checked_sub(1).map(|i| input[i]);
    let after = input.get(at + 1).copied();
    let word_byte = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphabetic() || b >= 0x80);
    let digit = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_digit());
    match input[at] {
        b'\n' | b'\t' | b'"' => true,
        b'\'' => !(word_byte(before) && word_byte(after)),
        b',' | b';' => after.is_some_and(|b| b != b' ') && !(digit(before) && digit(after)),
        _ => false,
    }
}

/// The first byte in `range` that ends a field.
pub(crate) fn first_field_end(input: &[u8], range: Range<usize>) -> Option<usize> {
    range.into_iter().find(|&at| ends_field(input, at))
}

/// The last byte in `range` that ends a field.
fn last_field_end(input: &[u8], range: Range<usize>) -> Option<usize> {
    range.into_iter().rev().find(|&at| ends_field(input, at))
}

/// What the clean text of a field (its bytes outside every run) holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CleanText {
    /// The first character double encoding cannot produce (not ASCII, and no code page's
    /// character for a byte `80..FF`).
    foreign: Option<char>,
    /// Whether it holds any non-ASCII character.
    non_ascii: bool,
}

impl CleanText {
    fn of(input: &[u8], range: Range<usize>, readings: &Readings) -> CleanText {
        let mut found = CleanText::default();
        let mut at = range.start;
        while at < range.end {
            let Some(k) = input[at..range.end].iter().position(|&b| b >= 0x80) else {
                break;
            };
            at += k;
            found.non_ascii = true;
            let (c, size) = bstr::decode_utf8(&input[at..range.end]);
            if let Some(c) = c
                && found.foreign.is_none()
                && readings.origin(c).is_none()
            {
                found.foreign = Some(c);
            }
            at += size.max(1);
        }
        found
    }

    fn add(&mut self, other: CleanText) {
        self.foreign = self.foreign.or(other.foreign);
        self.non_ascii |= other.non_ascii;
    }
}

/// A run whose repair makes one letter that touches no letter: a key for the script it
/// belongs to (its block, for the letters the class table calls rare, which have no script).
pub(crate) fn lone_letter(
    chars: &[RepairedChar],
    before: Option<char>,
    after: Option<char>,
) -> Option<u32> {
    let [c] = chars else {
        return None;
    };
    let letter = |c: Option<char>| c.is_some_and(char::is_alphabetic);
    if letter(before) || letter(after) || !c.original.is_alphabetic() {
        return None;
    }
    match class_of(c.original) {
        CharClass::Letter(Script::Latin) => None,
        CharClass::Letter(script) => Some(script as u32),
        CharClass::Rare => Some(0x100 + (u32::from(c.original) >> 7)),
        _ => None,
    }
}

/// What a run tells the other runs of its field.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Signals {
    /// Certain on its own, at the layers it has evidence for.
    pub certain: bool,
    /// The most layers its own evidence peeled from one of its characters.
    pub layers: u8,
    /// Certain, and holds no further layer at all: its value went through `layers`
    /// conversions, no more.
    pub settled: bool,
    /// It makes a lone letter of this script ([`lone_letter`]).
    pub lone: Option<u32>,
}

/// A run with an ambiguous inner layer peeled too: what it repairs to then, the verdict on
/// that, and the verdict on the inner layer itself.
#[derive(Clone, Debug)]
pub(crate) struct Deeper {
    pub chars: Vec<RepairedChar>,
    pub verdict: Verdict,
    pub inner: Verdict,
}

/// What the field of a run decided about it, where the run could not decide alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldEvidence {
    /// Ambiguous, repaired: a certain run stands in the same field.
    CertainNearby,
    /// Ambiguous, left alone: no certain run in its field.
    NothingNearby,
    /// Left alone: the field holds this character, correctly encoded, which double encoding
    /// cannot produce, so the field was not garbled as a whole.
    CleanText(char),
    /// Repaired: one of this many lone letters of one script in a field with no clean
    /// non-ASCII text.
    LoneLetters(usize),
    /// An ambiguous inner layer peeled: another run of the field is certain at as many layers.
    InnerLayerPeeled(Verdict),
    /// An ambiguous inner layer not peeled, with the reason.
    InnerLayerKept(Verdict, KeptBecause),
}

/// Why an ambiguous inner layer was not peeled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptBecause {
    /// Another run of the field is certain and holds fewer layers, and no further one.
    FewerLayersElsewhere,
    /// The field holds this character, correctly encoded.
    CleanText(char),
    /// No run of the field is certain at as many layers.
    NoRunAsDeep,
}

impl fmt::Display for FieldEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FieldEvidence::CertainNearby => write!(f, "a certain run stands in the same field"),
            FieldEvidence::NothingNearby => write!(f, "no certain run stands in the same field"),
            FieldEvidence::CleanText(c) => write!(
                f,
                "the field holds '{c}' (U+{:04X}) correctly encoded, which double encoding \
                 cannot produce: it was not garbled as a whole",
                u32::from(c)
            ),
            FieldEvidence::LoneLetters(n) => write!(
                f,
                "one of {n} lone letters of one script in a field with no clean non-ASCII text"
            ),
            FieldEvidence::InnerLayerPeeled(inner) => write!(
                f,
                "inner layer ({inner}) peeled: another run of the field is certain at as many layers"
            ),
            FieldEvidence::InnerLayerKept(inner, because) => {
                write!(f, "inner layer ({inner}) not peeled: ")?;
                match because {
                    KeptBecause::FewerLayersElsewhere => write!(
                        f,
                        "another run of the field is certain with fewer layers, and holds no more"
                    ),
                    KeptBecause::CleanText(c) => write!(
                        f,
                        "the field holds '{c}' (U+{:04X}) correctly encoded",
                        u32::from(c)
                    ),
                    KeptBecause::NoRunAsDeep => {
                        write!(f, "no run of the field is certain at as many layers")
                    }
                }
            }
        }
    }
}

/// How far a field may reach before the runs held in it are decided with the evidence so far:
/// a line of many megabytes with no separator holds no more than this in memory.
const HELD_REACH: usize = 4 * CONTEXT_WINDOW;

/// How many runs of a field are kept for reading its clean text later, while none waits.
const KEPT_RUNS: usize = 1024;

/// How many certain runs of a field are kept: one other than the run asking is enough.
const KEPT_CERTAIN: usize = 2;

/// The evidence gathered in the field the scan is in.
#[derive(Debug, Default)]
pub(crate) struct Field {
    /// The runs of the field whose clean text around them is still to be read.
    runs: Vec<Range<usize>>,
    /// Where the field's clean text has been read up to, and what it holds.
    clean_to: usize,
    clean: CleanText,
    /// The end of the field's last run.
    last_end: Option<usize>,
    /// Where the field started to be gathered: its first run.
    first_start: usize,
    certain: Vec<Range<usize>>,
    /// The most layers a certain run of the field carries.
    deepest: u8,
    /// The fewest layers of a certain run that holds no further one.
    shallowest_settled: Option<u8>,
    lone: Vec<(u32, usize)>,
    /// How many runs wait for the field to decide them.
    pub waiting: usize,
}

impl Field {
    /// Whether a run starting at `start` belongs to this field: within [`CONTEXT_WINDOW`] of
    /// the last run, with no separator between. `None` when the field has no run yet.
    pub fn holds(&self, input: &[u8], start: usize) -> Option<bool> {
        let last = self.last_end?;
        Some(start - last <= CONTEXT_WINDOW && first_field_end(input, last..start).is_none())
    }

    /// Whether the runs waiting in the field should be decided now, before a run at `start`:
    /// they have waited as long as a field may reach.
    pub fn waited_too_long(&self, start: usize) -> bool {
        self.waiting > 0 && start - self.first_start > HELD_REACH
    }

    /// Adds the run at `span` of `input`, with what it tells the others; `waits` when the
    /// field is to decide it.
    pub fn add(
        &mut self,
        input: &[u8],
        readings: &Readings,
        span: Range<usize>,
        signals: Signals,
        waits: bool,
    ) {
        if self.last_end.is_none() {
            self.first_start = span.start;
            self.clean_to = span.start;
        }
        self.last_end = Some(span.end);
        if signals.certain {
            if self.certain.len() == KEPT_CERTAIN {
                self.certain.remove(0);
            }
            self.certain.push(span.clone());
        }
        if signals.certain {
            self.deepest = self.deepest.max(signals.layers);
        }
        if signals.settled {
            self.shallowest_settled = Some(
                self.shallowest_settled
                    .map_or(signals.layers, |d| d.min(signals.layers)),
            );
        }
        if let Some(key) = signals.lone {
            match self.lone.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => self.lone.push((key, 1)),
            }
        }
        self.waiting += usize::from(waits);
        self.runs.push(span);
        // A long field of many runs and none waiting: its clean text is read as it goes, so
        // that what is kept of it stays small.
        if self.waiting == 0 && self.runs.len() >= KEPT_RUNS {
            self.read_clean(input, readings, self.clean_to);
        }
    }

    /// Reads the field's clean text that has not been read: back from its first run to where
    /// the field starts, between its runs, and on from its last run to `end` (the field's end,
    /// or as far as evidence reaches).
    fn read_clean(&mut self, input: &[u8], readings: &Readings, end: usize) {
        if self.clean_to == self.first_start {
            let reach = self.first_start.saturating_sub(CONTEXT_WINDOW);
            let start = last_field_end(input, reach..self.first_start).map_or(reach, |at| at + 1);
            self.clean.add(CleanText::of(input, start..self.first_start, readings));
        }
        for run in &self.runs {
            if run.start >= self.clean_to {
                self.clean
                    .add(CleanText::of(input, self.clean_to..run.start, readings));
            }
            self.clean_to = self.clean_to.max(run.end);
        }
        if end > self.clean_to {
            self.clean.add(CleanText::of(input, self.clean_to..end, readings));
            self.clean_to = end;
        }
        self.runs.clear();
    }

    /// Where the field ends after its last run: at the first separator, or as far as evidence
    /// reaches; `limit` is where the scan stopped looking (the next run, or the end).
    pub fn end_before(&self, input: &[u8], limit: usize) -> usize {
        let last = self.last_end.unwrap_or(limit);
        let reach = limit.min(last + CONTEXT_WINDOW).max(last);
        first_field_end(input, last..reach).unwrap_or(reach)
    }

    /// Decides the runs that wait: reads the field's clean text up to `end`, then asks
    /// `decide` of each. The field's evidence is kept for runs still to come.
    pub fn settle(&mut self, input: &[u8], readings: &Readings, end: usize) {
        self.read_clean(input, readings, end);
        self.waiting = 0;
    }

    /// What the field says about a run at `span` that waited: whether to take its `deeper`
    /// repair, whether to repair it, and the evidence. `signals` are the run's own.
    pub fn decide(
        &self,
        span: &Range<usize>,
        verdict: Verdict,
        lone: Option<u32>,
        deeper: Option<&Deeper>,
    ) -> Decision {
        let foreign = self.clean.foreign;
        let mut take_deeper = false;
        let mut evidence = None;
        let mut verdict = verdict;
        if let Some(deeper) = deeper {
            let kept = |because| FieldEvidence::InnerLayerKept(deeper.inner, because);
            let layers = deeper.chars.iter().map(|c| c.layers).max().unwrap_or(1);
            evidence = Some(match foreign {
                Some(c) => kept(KeptBecause::CleanText(c)),
                None if self.shallowest_settled.is_some_and(|d| d < layers) => {
                    kept(KeptBecause::FewerLayersElsewhere)
                }
                None if self.deepest < layers => kept(KeptBecause::NoRunAsDeep),
                None => {
                    take_deeper = true;
                    verdict = deeper.verdict;
                    FieldEvidence::InnerLayerPeeled(deeper.inner)
                }
            });
        }
        let lone_letters = lone
            .and_then(|key| self.lone.iter().find(|(k, _)| *k == key))
            .map_or(0, |&(_, n)| n);
        let certain_elsewhere = self.certain.iter().any(|other| other != span);
        let repaired = match verdict {
            Verdict::Certain(_) => true,
            _ if lone_letters >= 2 && !self.clean.non_ascii => {
                evidence = evidence.or(Some(FieldEvidence::LoneLetters(lone_letters)));
                true
            }
            Verdict::Rejected(_) => false,
            Verdict::Ambiguous(_) => {
                let (repaired, why) = match (foreign, certain_elsewhere) {
                    (Some(c), _) => (false, FieldEvidence::CleanText(c)),
                    (None, true) => (true, FieldEvidence::CertainNearby),
                    (None, false) => (false, FieldEvidence::NothingNearby),
                };
                evidence = evidence.or(Some(why));
                repaired
            }
        };
        Decision {
            take_deeper,
            repaired,
            verdict,
            evidence,
        }
    }

    /// Starts a new field.
    pub fn clear(&mut self) {
        *self = Field::default();
    }
}

/// What [`Field::decide`] concluded about a run.
#[derive(Debug)]
pub(crate) struct Decision {
    pub take_deeper: bool,
    pub repaired: bool,
    pub verdict: Verdict,
    pub evidence: Option<FieldEvidence>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_end_at_separators_not_inside_words_or_numbers() {
        let ends = |text: &str| -> Vec<usize> {
            (0..text.len())
                .filter(|&at| ends_field(text.as_bytes(), at))
                .collect()
        };
        assert_eq!(ends("a\tb\nc\"d"), [1, 3, 5]);
        // CSV separators end a field; prose commas, decimal commas and apostrophes do not.
        assert_eq!(ends("a,b;c"), [1, 3]);
        assert_eq!(ends("a, b; c 5,00"), Vec::<usize>::new());
        assert_eq!(ends("l'été м'ясо"), Vec::<usize>::new());
        // Quotes that delimit values: after a comma, before a parenthesis, escaped.
        assert_eq!(ends("('a','b')"), [1, 3, 4, 5, 7]);
        assert_eq!(ends(r"'it\'s'"), [0, 4, 6]);
    }
}
