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
//! - **Clean text a garbling would have garbled.** A value garbled as a whole holds its
//!   non-ASCII text only inside runs: every character it has outside them that stands for no
//!   byte of the code pages (`ř`, `я`) or for a continuation byte (`–`, `©`, which garbled text
//!   holds only as the tail of a sequence) says the field was not garbled as a whole
//!   (`Bremer/Mccoy – DrÃ¥ber`). Its ambiguous runs are left, no ambiguous inner layer is
//!   peeled in it, and neither are runs certain only by one sequence's weak evidence
//!   (`is_weak_certainty`). A lone `Ã` proves nothing: a sequence broken by a cut leaves one.
//!   A run certain by strong evidence outweighs the clean text: the field was garbled, at
//!   least in part, and was edited after (`l’humanitÃ©` beside `Ø¹ÙŠØ¯`).
//! - **Lone letters of one script.** Several runs that each repair to one letter of the same
//!   script, none touching a letter (a list of Tifinagh letters, `â´° â´± â´³`), in a field
//!   with no clean non-ASCII text beside them, are one garbled value, although each alone is a
//!   lone letter the rule cannot tell from correct text: two of another script, three of Latin
//!   Extended (`Ä¶ Ä· Ä»` → `Ķ ķ Ļ`); never Latin-1's own letters, whose garbled forms are
//!   what correct text writes (`»Ä«`).
//!
//! The scanner gathers these per field as it goes (`Field`) and asks `Field::decide` about
//! each run it held back; this module knows only bytes, runs and verdicts.

use std::fmt;
use std::ops::Range;

use bstr::ByteSlice;

use super::classes::{CharClass, Script, class_of, is_alphabetic, script_of};
use super::codepage::{Readings, is_lead_byte};
use super::matcher::RepairedChar;
use super::plausibility::{CONTEXT_WINDOW, Evidence, Verdict};

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

/// The bytes [`ends_field`] may say yes to: a table, so that the gaps between runs are
/// searched at the speed of a byte lookup.
static MAY_END_FIELD: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"\n\t\"',;";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// How long a gap between runs is searched byte by byte rather than with `memchr`.
const SHORT_GAP: usize = 32;

/// The first byte in `range` that ends a field. The gaps between runs are searched with
/// `memchr`, since in text dense with look-alikes they add up to most of the input.
pub(crate) fn first_field_end(input: &[u8], range: Range<usize>) -> Option<usize> {
    // Most gaps in garbled text are a few bytes long: a table lookup per byte beats the set-up
    // of two vector searches there.
    if range.len() <= SHORT_GAP {
        let start = range.start;
        return input[range]
            .iter()
            .enumerate()
            .filter(|&(_, &b)| MAY_END_FIELD[usize::from(b)])
            .map(|(k, _)| start + k)
            .find(|&at| ends_field(input, at));
    }
    let mut at = range.start;
    while at < range.end {
        let gap = &input[at..range.end];
        let hard = memchr::memchr3(b'\n', b'\t', b'"', gap);
        let soft = memchr::memchr3(b'\'', b',', b';', gap);
        let k = match (hard, soft) {
            (Some(h), Some(s)) => h.min(s),
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return None,
        };
        if ends_field(input, at + k) {
            return Some(at + k);
        }
        at += k + 1;
    }
    None
}

/// The last byte in `range` that ends a field: [`first_field_end`] backwards.
fn last_field_end(input: &[u8], range: Range<usize>) -> Option<usize> {
    if range.len() <= SHORT_GAP {
        return range
            .rev()
            .find(|&at| MAY_END_FIELD[usize::from(input[at])] && ends_field(input, at));
    }
    let mut end = range.end;
    while end > range.start {
        let gap = &input[range.start..end];
        let hard = memchr::memrchr3(b'\n', b'\t', b'"', gap);
        let soft = memchr::memrchr3(b'\'', b',', b';', gap);
        let k = match (hard, soft) {
            (Some(h), Some(s)) => h.max(s),
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return None,
        };
        if ends_field(input, range.start + k) {
            return Some(range.start + k);
        }
        end = range.start + k;
    }
    None
}

/// What the clean text of a field (its bytes outside every run) holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CleanText {
    /// The first character that double encoding leaves only inside a run: one that stands
    /// for no byte under the readings (`ř`, `я`), or for a continuation byte (`–`, `©`: in a
    /// value garbled as a whole, such a character is always the tail of a garbled sequence).
    /// A character that stands for a lead byte (`Ã`) may be left alone by a sequence broken
    /// in the garbling (a value cut short), so it proves nothing.
    unexplained: Option<char>,
    /// Whether it holds any non-ASCII character.
    non_ascii: bool,
    /// The first character beyond Latin-1 (U+0100 and up).
    beyond_latin1: Option<char>,
    /// Whether it holds a Latin-1 letter (`À..ÿ`).
    latin1_letter: bool,
}

impl CleanText {
    fn of(input: &[u8], range: Range<usize>, readings: &Readings) -> CleanText {
        let mut found = CleanText::default();
        let mut at = range.start;
        while at < range.end {
            let Some(k) = input[at..range.end].find_non_ascii_byte() else {
                break;
            };
            at += k;
            found.non_ascii = true;
            let (c, size) = bstr::decode_utf8(&input[at..range.end]);
            if let Some(c) = c {
                if found.unexplained.is_none()
                    && readings.origin(c).is_none_or(|o| !is_lead_byte(o.byte))
                {
                    found.unexplained = Some(c);
                }
                if u32::from(c) >= 0x100 {
                    found.beyond_latin1 = found.beyond_latin1.or(Some(c));
                }
                found.latin1_letter |= ('\u{c0}'..='\u{ff}').contains(&c) && is_alphabetic(c);
            }
            at += size.max(1);
            // Once both are found, nothing further changes a decision: a Latin-1 letter only
            // counts where nothing beyond Latin-1 was seen.
            if found.is_settled() {
                break;
            }
        }
        found
    }

    /// Whether more clean text can change nothing decided from it.
    fn is_settled(&self) -> bool {
        self.unexplained.is_some() && self.beyond_latin1.is_some()
    }

    fn add(&mut self, other: CleanText) {
        self.unexplained = self.unexplained.or(other.unexplained);
        self.non_ascii |= other.non_ascii;
        self.beyond_latin1 = self.beyond_latin1.or(other.beyond_latin1);
        self.latin1_letter |= other.latin1_letter;
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
    let letter = |c: Option<char>| c.is_some_and(is_alphabetic);
    if letter(before) || letter(after) {
        return None;
    }
    let key = match class_of(c.original) {
        // Latin-1's own letters make the look-alikes of correct text (`»Ä«`); the letters of
        // Latin Extended alone in a list (`Ä¶ Ä· Ä»` → `Ķ ķ Ļ`) are keyed apart from them.
        CharClass::Letter(Script::Latin) if u32::from(c.original) < 0x100 => return None,
        CharClass::Letter(Script::Latin) => LATIN_EXTENDED,
        CharClass::Letter(script) => script as u32,
        CharClass::Rare if is_alphabetic(c.original) => 0x100 + (u32::from(c.original) >> 7),
        _ => return None,
    };
    Some(key)
}

/// The bit of `script` in [`Field`]'s scripts.
fn script_bit(script: Script) -> u32 {
    1 << (script as u32)
}

/// The key of the lone letters of Latin Extended, whose garbled forms are Latin-1 letters and
/// symbols as correct text writes them: a list of them needs one more letter to count.
const LATIN_EXTENDED: u32 = 0x1000;

fn lone_letters_needed(key: Option<u32>) -> usize {
    match key {
        Some(LATIN_EXTENDED) => 3,
        _ => 2,
    }
}

/// What a run tells the other runs of its field.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Signals {
    /// Certain on its own, at the layers it has evidence for.
    pub certain: bool,
    /// Certain by more than one sequence's weak evidence (`is_weak_certainty`).
    pub strongly: bool,
    /// The most layers its own evidence peeled from one of its characters.
    pub layers: u8,
    /// Certain, and holds no further layer at all: its value went through `layers`
    /// conversions, no more.
    pub settled: bool,
    /// It makes a lone letter of this script ([`lone_letter`]).
    pub lone: Option<u32>,
    /// Certain, and its inner layer, only ambiguous, speaks for itself at this many layers
    /// (0: none does).
    pub peels_on_its_own: u8,
}

/// A run with an ambiguous inner layer peeled too: what it repairs to then, the verdict on
/// that, and the verdict on the inner layer itself.
#[derive(Clone, Debug)]
pub(crate) struct Deeper {
    pub chars: Vec<RepairedChar>,
    pub verdict: Verdict,
    pub inner: Verdict,
    /// Whether the inner layer's own text speaks for it, with no run of the field as deep.
    pub on_its_own: bool,
    /// Whether the text the inner layer stays as, unpeeled, is a letter glued to a symbol, as
    /// only garbling writes (`Â´`): a repair of the outer layer alone would be half a repair.
    pub glued_to_symbol: bool,
}

impl Deeper {
    /// The most layers it peels from one of its characters.
    pub fn layers(&self) -> u8 {
        self.chars.iter().map(|c| c.layers).max().unwrap_or(1)
    }
}

/// What the field of a run decided about it, where the run could not decide alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldEvidence {
    /// Ambiguous, repaired: a certain run stands in the same field.
    CertainNearby,
    /// Ambiguous, left alone: no certain run in its field.
    NothingNearby,
    /// Left alone: the field holds this character outside every run, which a garbling of the
    /// whole field would have garbled.
    CleanText(char),
    /// A C1 control read back through Windows-1252: its field holds Latin-1 letters read right.
    Latin1Text,
    /// A C1 control left: its field holds this character beyond Latin-1, so it was not
    /// Windows-1252 text read as ISO-8859-1.
    NotLatin1(char),
    /// Repaired: one of this many lone letters of one script in a field with no clean
    /// non-ASCII text.
    LoneLetters(usize),
    /// An ambiguous inner layer peeled: another run of the field is certain at as many layers.
    InnerLayerPeeled(Verdict),
    /// An ambiguous inner layer peeled on its own: under a certain outer layer, it makes a
    /// letter that fits where it stands, and leaves none.
    InnerLayerOnItsOwn(Verdict),
    /// Ambiguous, repaired: a lone letter with nothing in its field against it, in a scope (a
    /// dump's column) where this many other values are certainly garbled ([`super::scope`]).
    GarbledScope(u32),
    /// Ambiguous, repaired: a lone letter on a line with nothing else beyond ASCII, in a text
    /// where this many other lines are certainly garbled and most non-ASCII text is runs
    /// (the text as a scope).
    GarbledText(u32),
    /// An ambiguous inner layer peeled: another run of the field peels as many on its own.
    InnerLayerAsDeepAsOthers(Verdict),
    /// Left alone: the outer layer is certain, but its inner layer is in doubt and would stay
    /// a letter glued to a symbol; half a repair would be wrong whichever text is true.
    HalfRepairInDoubt(Verdict),
    /// An ambiguous inner layer not peeled, with the reason.
    InnerLayerKept(Verdict, KeptBecause),
    /// A character inferred from a lost byte, left: its script is none of the letters the
    /// field's certain runs repair to.
    ScriptApart(char),
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
                "the field holds '{c}' (U+{:04X}) outside every run, which a garbling of the \
                 whole field would have garbled",
                u32::from(c)
            ),
            FieldEvidence::Latin1Text => write!(
                f,
                "its field holds Latin-1 letters read right: Windows-1252 text read as ISO-8859-1"
            ),
            FieldEvidence::NotLatin1(c) => write!(
                f,
                "its field holds '{c}' (U+{:04X}) outside every run: not Windows-1252 text read as \
                 ISO-8859-1",
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
            FieldEvidence::InnerLayerOnItsOwn(inner) => write!(
                f,
                "inner layer ({inner}) peeled: under a certain layer it makes a letter that fits \
                 where it stands, where it would leave a Latin-1 letter glued to a symbol"
            ),
            FieldEvidence::GarbledScope(n) => write!(
                f,
                "nothing in its field speaks against it, and {n} values of its column are \
                 certainly garbled"
            ),
            FieldEvidence::GarbledText(n) => write!(
                f,
                "nothing else on its line is beyond ASCII, and {n} lines of the text are certainly \
                 garbled, which holds more garbled text than correct non-ASCII text"
            ),
            FieldEvidence::InnerLayerAsDeepAsOthers(inner) => write!(
                f,
                "inner layer ({inner}) peeled: another run of the field peels as many layers on \
                 its own text"
            ),
            FieldEvidence::HalfRepairInDoubt(inner) => write!(
                f,
                "inner layer ({inner}) in doubt, and the outer layer alone would leave a letter \
                 glued to a symbol, as only garbling writes: left as found rather than half \
                 repaired"
            ),
            FieldEvidence::ScriptApart(c) => write!(
                f,
                "'{c}' (U+{:04X}) is of a script none of the field's certain runs repairs to",
                u32::from(c)
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

/// The last two runs of a field with some property: one other than the run asking is all a
/// decision needs, and two kept in place cost no allocation.
#[derive(Debug, Default)]
struct LastTwo<T> {
    items: [Option<T>; 2],
}

impl<T> LastTwo<T> {
    fn push(&mut self, item: T) {
        self.items[0] = self.items[1].take();
        self.items[1] = Some(item);
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten()
    }

    fn is_empty(&self) -> bool {
        self.items[1].is_none()
    }

    fn clear(&mut self) {
        self.items = [None, None];
    }
}

/// Where a run stands against the field the scan is in ([`Field::boundary`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Boundary {
    /// It belongs to the field (or there is no field yet).
    Within,
    /// The field ends at this separator, before the run.
    At(usize),
    /// It lies beyond the field's reach: where the field ends is searched only if needed.
    Beyond,
}

/// The evidence gathered in the field the scan is in.
#[derive(Debug, Default)]
pub(crate) struct Field {
    /// The runs of the field whose clean text around them is still to be read.
    runs: Vec<Range<usize>>,
    /// Where the field's clean text has been read up to, and what it holds; whether the text
    /// before its first run has been read.
    clean_to: usize,
    read_back: bool,
    clean: CleanText,
    /// The end of the field's last run.
    last_end: Option<usize>,
    /// Where the field started to be gathered: its first run.
    first_start: usize,
    certain: LastTwo<Range<usize>>,
    strongly_certain: LastTwo<Range<usize>>,
    /// The most layers a certain run of the field carries.
    deepest: u8,
    /// The fewest layers of a certain run that holds no further one.
    shallowest_settled: Option<u8>,
    /// The runs whose ambiguous inner layer speaks for itself, with their layers.
    peeling_on_their_own: LastTwo<(Range<usize>, u8)>,
    lone: Vec<(u32, usize)>,
    /// The scripts of the letters the field's certain runs repair to, a bit each: a character
    /// inferred from a lost byte must be of one of them.
    scripts: u32,
    /// How many runs wait for the field to decide them.
    pub waiting: usize,
}

impl Field {
    /// Whether a run starting at `start` belongs to this field: within [`CONTEXT_WINDOW`] of
    /// the last run, with no separator between.
    pub fn boundary(&self, input: &[u8], start: usize) -> Boundary {
        let Some(last) = self.last_end else {
            return Boundary::Within;
        };
        if start - last > CONTEXT_WINDOW {
            return Boundary::Beyond;
        }
        match first_field_end(input, last..start) {
            Some(at) => Boundary::At(at),
            None => Boundary::Within,
        }
    }

    /// Whether a run of the field so far is certain by strong evidence: then the field was
    /// garbled, whatever its clean text holds, and an ambiguous or weakly certain run in it is
    /// repaired at once.
    pub fn strongly_certain(&self) -> bool {
        !self.strongly_certain.is_empty()
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
            self.certain.push(span.clone());
        }
        if signals.strongly {
            self.strongly_certain.push(span.clone());
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
        if signals.peels_on_its_own > 0 {
            self.peeling_on_their_own
                .push((span.clone(), signals.peels_on_its_own));
        }
        if let Some(key) = signals.lone {
            match self.lone.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => self.lone.push((key, 1)),
            }
        }
        self.waiting += usize::from(waits);
        if self.waiting == 0 && self.strongly_certain() {
            // The field is garbled, whatever its clean text says: that text is not read on (a
            // run that still waits in it, a C1 control or a lone letter, weighs what was read).
            self.runs.clear();
            self.read_back = true;
            self.clean_to = span.end;
            return;
        }
        self.runs.push(span);
        // A long field of many runs and none waiting: its clean text is read as it goes, so
        // that what is kept of it stays small.
        if self.waiting == 0 && self.runs.len() >= KEPT_RUNS {
            self.read_clean(input, readings, self.clean_to);
        }
    }

    /// Notes the scripts of the letters a certain run of the field repairs to.
    pub fn add_scripts(&mut self, chars: &[RepairedChar]) {
        for c in chars {
            if let Some(script) = script_of(c.original) {
                self.scripts |= script_bit(script);
            }
        }
    }

    /// Reads the field's clean text that has not been read: back from its first run to where
    /// the field starts, between its runs, and on from its last run to `end` (the field's end,
    /// or as far as evidence reaches).
    fn read_clean(&mut self, input: &[u8], readings: &Readings, end: usize) {
        if self.clean.is_settled() {
            self.read_back = true;
            self.clean_to = self.clean_to.max(end);
            self.runs.clear();
            return;
        }
        if !self.read_back {
            self.read_back = true;
            let reach = self.first_start.saturating_sub(CONTEXT_WINDOW);
            let start = last_field_end(input, reach..self.first_start).map_or(reach, |at| at + 1);
            self.clean
                .add(CleanText::of(input, start..self.first_start, readings));
        }
        for run in &self.runs {
            if run.start >= self.clean_to {
                self.clean
                    .add(CleanText::of(input, self.clean_to..run.start, readings));
            }
            self.clean_to = self.clean_to.max(run.end);
        }
        if end > self.clean_to {
            self.clean
                .add(CleanText::of(input, self.clean_to..end, readings));
            self.clean_to = end;
        }
        self.runs.clear();
    }

    /// Where the field ends after its last run, when no run follows within its reach: at the
    /// first separator, or as far as evidence reaches.
    pub fn end_after_last_run(&self, input: &[u8]) -> usize {
        let last = self.last_end.unwrap_or(input.len());
        let reach = input.len().min(last + CONTEXT_WINDOW).max(last);
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
        let elsewhere = |kept: &LastTwo<Range<usize>>| kept.iter().any(|other| other != span);
        // Clean text says the field was not garbled as a whole, unless a run in it is certain
        // by strong evidence: then it was garbled, at least in part (a value edited after the
        // garbling: `l’humanitÃ©`), and its clean text says no more.
        let foreign = self
            .clean
            .unexplained
            .filter(|_| !elsewhere(&self.strongly_certain));
        let mut take_deeper = false;
        let mut half_repair = false;
        let mut evidence = None;
        let mut verdict = verdict;
        if let Some(deeper) = deeper {
            let kept = |because| FieldEvidence::InnerLayerKept(deeper.inner, because);
            let layers = deeper.layers();
            let peeled_elsewhere = self
                .peeling_on_their_own
                .iter()
                .any(|(other, deep)| other != span && *deep >= layers);
            evidence = Some(match foreign {
                Some(c) => kept(KeptBecause::CleanText(c)),
                None if self.shallowest_settled.is_some_and(|d| d < layers) => {
                    kept(KeptBecause::FewerLayersElsewhere)
                }
                None if self.deepest < layers && !deeper.on_its_own && peeled_elsewhere => {
                    take_deeper = true;
                    verdict = deeper.verdict;
                    FieldEvidence::InnerLayerAsDeepAsOthers(deeper.inner)
                }
                None if self.deepest < layers && !deeper.on_its_own && deeper.glued_to_symbol => {
                    half_repair = true;
                    FieldEvidence::HalfRepairInDoubt(deeper.inner)
                }
                None if self.deepest < layers && !deeper.on_its_own => {
                    kept(KeptBecause::NoRunAsDeep)
                }
                None if self.deepest < layers => {
                    take_deeper = true;
                    verdict = deeper.verdict;
                    FieldEvidence::InnerLayerOnItsOwn(deeper.inner)
                }
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
        let certain_elsewhere = elsewhere(&self.certain);
        let repaired = match verdict {
            // A certain outer layer over an inner one in doubt that would leave text only
            // garbling writes: the value is left as found rather than half repaired.
            _ if half_repair => false,
            Verdict::Certain(own) if is_weak_certainty(own) && foreign.is_some() => {
                evidence = evidence.or(foreign.map(FieldEvidence::CleanText));
                false
            }
            Verdict::Certain(_) => true,
            _ if lone_letters >= lone_letters_needed(lone) && !self.clean.non_ascii => {
                evidence = evidence.or(Some(FieldEvidence::LoneLetters(lone_letters)));
                true
            }
            Verdict::Rejected(_) => false,
            // A letter inferred from a lost byte must be of a script the field's garbling is
            // certainly of (not an Arabic digit in French: `OÙ `).
            Verdict::Ambiguous(Evidence::LostNoBreakSpace(c))
                if script_of(c).is_some_and(|s| self.scripts & script_bit(s) == 0) =>
            {
                evidence = Some(FieldEvidence::ScriptApart(c));
                false
            }
            // Controls read back through Windows-1252 need a field of Windows-1252 text read as
            // ISO-8859-1 ([`super::controls`]).
            Verdict::Ambiguous(Evidence::ControlForCharacter(_)) => {
                let (repaired, why) = match self.clean.beyond_latin1 {
                    Some(c) => (false, FieldEvidence::NotLatin1(c)),
                    None if self.clean.latin1_letter => (true, FieldEvidence::Latin1Text),
                    None if certain_elsewhere => (true, FieldEvidence::CertainNearby),
                    None => (false, FieldEvidence::NothingNearby),
                };
                evidence = evidence.or(Some(why));
                repaired
            }
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

    /// Starts a new field, keeping the memory of the last.
    pub fn clear(&mut self) {
        let Field {
            runs,
            clean_to,
            read_back,
            clean,
            last_end,
            first_start,
            certain,
            strongly_certain,
            deepest,
            shallowest_settled,
            peeling_on_their_own,
            lone,
            scripts,
            waiting,
        } = self;
        *scripts = 0;
        runs.clear();
        certain.clear();
        strongly_certain.clear();
        peeling_on_their_own.clear();
        lone.clear();
        *clean_to = 0;
        *read_back = false;
        *clean = CleanText::default();
        *last_end = None;
        *first_start = 0;
        *deepest = 0;
        *shallowest_settled = None;
        *waiting = 0;
    }
}

/// Whether a run is certain only by the evidence of one sequence that would look the same in a
/// value written partly by hand (`Ã¥` inside a word): such a run is left in a field whose clean
/// text says the field was not garbled as a whole. Markers (a C1 control, a case mismatch, a
/// symbol that follows no letter) and garbled words stay certain whatever stands beside them.
pub(crate) fn is_weak_certainty(evidence: Evidence) -> bool {
    matches!(
        evidence,
        Evidence::NothingAgainst | Evidence::SymbolInsideWord
    )
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
