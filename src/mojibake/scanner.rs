//! The scan loop: finds runs of double-encoded sequences in a buffer, peels their layers,
//! judges them, decides which to repair, and pushes each run into a [`Sink`].
//!
//! Like ripgrep's searcher, the scanner collects nothing itself: counting, repairing, auditing
//! and explaining are sinks, so that one loop serves all of them and they can never disagree
//! about what was found. Runs reach the sink in input order, each exactly once, repaired or not.
//!
//! A *run* is a stretch of sequences with nothing between them. Runs, not single sequences,
//! are the unit of judgement and of repair, because layers only show at that level: `ÃƒÂ©`
//! is two sequences (`Ãƒ` → `Ã`, `Â©` → `©`) whose repair, `Ã©`, is itself one sequence (→ `é`).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use super::candidates::{CandidateFilter, Search};
use super::choice_bound::Bounds;
use super::classes::{SYMBOLS_AFTER_NO_LETTER, Script, is_alphabetic, script_of};
use super::codepage::{CodePage, ReadingMask, Readings, WINDOWS_1252, is_lead_byte};
use super::controls::{control_at, judge_controls};
use super::field::{
    Boundary, Deeper, Field, FieldEvidence, Signals, is_weak_certainty, lone_letter,
};
use super::lost::{LostKind, LostMatch, find_lost, may_hold_lost};
use super::matcher::{DoubleEncodedMatch, RepairedChar, decode_char, decode_last_char, match_at};
use super::plausibility::{
    CONTEXT_WINDOW, Evidence, RunView, Strictness, Verdict, judge, neighbours,
};
use super::raw::{RawKind, RawPieces, decode_piece};
use super::text_scope::TextScope;

/// A run of adjacent double-encoded sequences, and what was decided about it.
#[derive(Debug)]
pub struct Run<'a> {
    /// Where the run lies in the scanned buffer.
    pub span: Range<usize>,
    /// What it repairs to, in order; their spans tile `span`. For a run that is not repaired,
    /// what the byte pattern alone would have made of it.
    pub chars: &'a [RepairedChar],
    /// The plausibility rule's verdict on the outer layer.
    pub verdict: Verdict,
    /// Whether the run is repaired, after strictness and context.
    pub repaired: bool,
    /// What its field decided, where the run could not decide alone.
    pub field: Option<FieldEvidence>,
}

impl Run<'_> {
    /// Whether the run is bytes that were not UTF-8 ([`super::raw`]), not double encoding: its
    /// characters remove no layer.
    pub fn is_not_utf8(&self) -> bool {
        self.chars.first().is_some_and(|c| c.layers == 0)
    }

    /// Whether the run is one garbled character that lost a byte ([`super::lost`]): its
    /// character is inferred (or U+FFFD), not read back.
    pub fn is_lost_byte(&self) -> bool {
        matches!(
            self.verdict.evidence(),
            Evidence::LostNoBreakSpace(_) | Evidence::LostByte
        )
    }

    /// Appends the repaired text to `out`.
    pub fn write_replacement(&self, out: &mut Vec<u8>) {
        out.reserve(4 * self.chars.len());
        let mut utf8 = [0u8; 4];
        for c in self.chars {
            // Each length on its own: a copy of a length known here is a store or two, where
            // a slice of one known only at run time is a call to `memcpy` per character.
            let len = c.original.encode_utf8(&mut utf8).len();
            match len {
                1 => out.push(utf8[0]),
                2 => out.extend_from_slice(&[utf8[0], utf8[1]]),
                3 => out.extend_from_slice(&[utf8[0], utf8[1], utf8[2]]),
                _ => out.extend_from_slice(&utf8),
            }
        }
    }
}

/// What is known of a buffer's UTF-8 before a pass over it. A scan validates its buffer once
/// and tells the passes it makes over it (the bound of each reading, the readings tried, its
/// own), which would otherwise each validate it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Utf8 {
    /// Well-formed throughout.
    Valid,
    /// Not well-formed somewhere, or taken as such (a piece of a buffer that is not): the
    /// pass takes the way it takes for bytes that are not UTF-8, which gives the same answers
    /// on well-formed ones, more slowly.
    Invalid,
    /// Not known: the pass finds out for itself.
    Unknown,
}

impl Utf8 {
    /// What a validation found: well-formed or not.
    pub(crate) fn known(valid: bool) -> Utf8 {
        match valid {
            true => Utf8::Valid,
            false => Utf8::Invalid,
        }
    }
}

/// Receives what a [`Scanner`] finds, in input order.
pub trait Sink {
    type Error;

    /// One run, repaired or left alone.
    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Self::Error>;

    /// The end of the buffer: every run in it has been reported.
    fn end(&mut self, _input: &[u8]) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A sink borrowed mutably is a sink, so one can be lent to a scan and used again after.
impl<S: Sink> Sink for &mut S {
    type Error = S::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), S::Error> {
        (**self).run(input, run)
    }

    fn end(&mut self, input: &[u8]) -> Result<(), S::Error> {
        (**self).end(input)
    }
}

/// Finds and judges double encoding under a fixed set of readings and a strictness.
#[derive(Clone, Debug)]
pub struct Scanner {
    readings: Readings,
    candidates: CandidateFilter,
    strictness: Strictness,
    /// The reading C1 controls are read back through ([`super::controls`]): Windows-1252's,
    /// when it is one of the readings.
    controls: Option<ReadingMask>,
    /// The reading bytes that are not UTF-8 are read through ([`super::raw`]), and its bit;
    /// `None` keeps them as they are.
    raw: Option<(&'static CodePage, ReadingMask)>,
    /// What is done with garbled characters that lost a byte ([`super::lost`]).
    lost: LostBytes,
    /// Scanners of other readings, one of which a buffer's evidence may choose instead of
    /// this one ([`super::choice`]), and the table that bounds what each could explain.
    others: Arc<[Scanner]>,
    bounds: Option<Arc<Bounds>>,
}

/// What a [`Scanner`] does with garbled characters that lost a byte ([`super::lost`]). Under
/// every choice they are found, counted and reported; only their field's evidence repairs one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LostBytes {
    /// Repaired where exactly one character fits (a space for a lost no-break space's byte
    /// `A0`); one whose byte cannot be known is left as it is.
    #[default]
    Infer,
    /// As `Infer`, and one whose byte cannot be known is replaced by one U+FFFD, as ftfy
    /// does: the garbage around the lost byte goes, the loss stays marked.
    Replace,
    /// Left as they are.
    Keep,
}

/// What a [`Scanner`] does with bytes that are not UTF-8 ([`super::raw`]).
#[derive(Clone, Copy, Debug, Default)]
pub enum RawBytes {
    /// Read through Windows-1252 when it is one of the readings, else through the first.
    #[default]
    Auto,
    /// Read through this page, one of the readings (the characters made of them are counted
    /// and logged under its name).
    Through(&'static CodePage),
    /// Kept as they are.
    Keep,
}

impl RawBytes {
    /// The page bytes that are not UTF-8 are read through under `readings` (by a scanner that
    /// chooses each buffer's reading among their pages when `choosing`), with its mask; `None`
    /// when they are kept. A page asked for must be one the scanner reads, or for a choosing
    /// scanner one of the pages it chooses among.
    pub(crate) fn page_under(
        self,
        readings: &Readings,
        choosing: bool,
    ) -> Result<Option<(&'static CodePage, ReadingMask)>, NotAReading> {
        match self {
            RawBytes::Auto => Ok(default_raw(readings)),
            RawBytes::Keep => Ok(None),
            RawBytes::Through(page) => {
                let bit = (readings.index_of(page))
                    .filter(|&bit| choosing || readings.reads(bit))
                    .ok_or(NotAReading(page.name))?;
                let mask = readings.mask(bit).ok_or(NotAReading(page.name))?;
                Ok(Some((page, mask)))
            }
        }
    }
}

/// A code page asked for bytes that are not UTF-8 that is not one of the scanner's readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAReading(pub &'static str);

impl std::fmt::Display for NotAReading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bytes that are not UTF-8 can be read only through one of the readings, and {} is \
             not one",
            self.0
        )
    }
}

impl std::error::Error for NotAReading {}

/// A run held back until its field settles what to do with it, or queued behind one.
struct Pending {
    span: Range<usize>,
    /// Where its characters lie in the scan's arena of held characters, unless the field
    /// chose its deeper repair.
    chars: Range<usize>,
    chosen: Option<Vec<RepairedChar>>,
    verdict: Verdict,
    /// The run with an ambiguous inner layer peeled too, for the field to choose.
    deeper: Option<Box<Deeper>>,
    lone: Option<u32>,
    /// `None` while the field has to decide.
    decision: Option<bool>,
    field: Option<FieldEvidence>,
}

/// An inner layer not peeled because its own text is only ambiguous.
#[derive(Clone, Copy)]
struct Skipped {
    verdict: Verdict,
    /// Whether its own text still speaks for it ([`speaks_for_itself`]).
    on_its_own: bool,
    /// Whether the text it stays as is a Latin-1 letter glued to a symbol
    /// ([`glued_to_symbol`]).
    glued_to_symbol: bool,
}

/// Whether `text`, an inner run as one peel leaves it, after `before`, is a pair that only
/// garbling writes: a letter glued to a symbol no letter is followed by (`Â´`, `Ø¨`, `Ø¢`), or
/// a capital glued to the small letter before it (`oÊ»`). Then a repair of the outer layer
/// alone leaves text that is wrong whichever reading is true.
fn glued_to_symbol(text: &[u8], before: Option<char>) -> bool {
    let mut chars = bstr::ByteSlice::chars(text);
    let (Some(letter), Some(symbol), None) = (chars.next(), chars.next(), chars.next()) else {
        return false;
    };
    let spacing_accent = SYMBOLS_AFTER_NO_LETTER.contains(&symbol);
    let case_break = before.is_some_and(char::is_lowercase) && letter.is_uppercase();
    is_alphabetic(letter) && !symbol.is_alphanumeric() && (spacing_accent || case_break)
}

/// Whether an ambiguous inner layer, under an outer one that is certain, is the likelier text
/// on its own: when what it repairs to is a letter that fits where it stands, while what it
/// would leave is a Latin-1 letter glued to a symbol that fits nowhere. So a letter of another
/// or rare script standing alone (`Ð¿` → `п`, `ÞŒ` → `ތ`), and a capital of the script of
/// the capitals before it (`ISPAAÃ‘` → `ISPAAÑ`; a small letter only where no capital follows:
/// `LANÇ­ADEIRA`, with a soft hyphen, is not `LANǭADEIRA`). Not a letter glued to letters of another
/// script (`Úž` → `ڞ`, `OPCIÓ…` → `OPCIӅ`), one after an apostrophe outside a word in
/// capitals (`G/Ç’lar`), nor a Latin letter between quotation marks, which correct text
/// writes (`»Ä«`). `last` is the last character of the inner run's own text, `before` and
/// `after` the characters around it.
pub(crate) fn speaks_for_itself(
    verdict: Verdict,
    inner_chars: &[RepairedChar],
    before: Option<char>,
    last: Option<char>,
    after: Option<char>,
) -> bool {
    let [inner] = inner_chars else {
        return false;
    };
    let quote = |c: Option<char>| {
        // Typographic quotes only: ASCII ones delimit the values of dumps and CSV files.
        c.is_some_and(|c| matches!(c, '«' | '»' | '‹' | '›' | '“' | '”' | '„' | '‘' | '’' | '‚'))
    };
    match verdict.evidence() {
        Evidence::LoneLetter(Script::Latin) => !(quote(before) && quote(last)),
        Evidence::LoneLetter(_) | Evidence::LoneRareLetter(_) => true,
        // A capital continuing a word in capitals of its script, whether what it would leave
        // ends in a symbol or an apostrophe (`NIUÄ’` → `NIUĒ`).
        Evidence::CapitalsContext => {
            let script = before.and_then(script_of);
            // A small letter fits after one capital (`Dì`, `Pó`), not between two.
            let case_fits = inner.original.is_uppercase() || !after.is_some_and(char::is_uppercase);
            // From U+0240 on, the Latin letters are late additions and phonetic signs that
            // almost no one writes, while the pair they are garbled into, `É` and a capital, is
            // one a word may hold (`BANGLADÉŠAN`, not `Ɋ`); below, the letters of Africa
            // (`Ɗ`), of Pinyin and of Romanian are written every day.
            let common = u32::from(inner.original) < 0x240;
            script.is_some() && script == script_of(inner.original) && case_fits && common
        }
        // A capital in a word in capitals, the capital before it or after it
        // (`NIUÃ’` → `NIUÒ`, `D'Ã’STE` → `D'ÒSTE`).
        Evidence::Apostrophe => {
            let capital_of_its_script = |c: Option<char>| {
                let script = c.filter(|c| c.is_uppercase()).and_then(script_of);
                script.is_some() && script == script_of(inner.original)
            };
            inner.original.is_uppercase()
                && (capital_of_its_script(before) || capital_of_its_script(after))
        }
        _ => false,
    }
}

/// Where the scan loop stands for its search of characters that lost a byte.
#[derive(Default)]
struct LostAnchors {
    /// The end of the last certain run.
    certain_end: Option<usize>,
    /// The end of the last run that may vouch for a lost byte touching it, or of the last one
    /// that lost a byte.
    touching_end: Option<usize>,
}

/// The longest garbled form of a character with a lost byte: four characters of up to three
/// bytes.
const LONGEST_LOST: usize = 12;

/// The next double-encoded run and its resolution, when both are there.
fn next_pair<'a>(
    span: &'a Option<Range<usize>>,
    resolved: &'a Option<Resolved>,
) -> Option<(&'a Range<usize>, &'a Resolved)> {
    span.as_ref().zip(resolved.as_ref())
}

/// Resolves a garbled character with a lost byte at `span` into `chars`: one character,
/// ambiguous, for its field to decide ([`super::lost`]).
fn resolve_lost(
    input: &[u8],
    span: &Range<usize>,
    found: &LostMatch,
    chars: &mut Vec<RepairedChar>,
) -> Resolved {
    chars.clear();
    chars.push(RepairedChar {
        span: span.clone(),
        original: found.original,
        mask: found.mask,
        layers: 1,
        garbled_chars: bstr::ByteSlice::chars(&input[span.clone()]).count() as u32,
    });
    let verdict = match found.kind {
        LostKind::NoBreakSpace => Verdict::Ambiguous(Evidence::LostNoBreakSpace(found.original)),
        LostKind::Unknowable => Verdict::Ambiguous(Evidence::LostByte),
    };
    Resolved {
        verdict,
        deeper: None,
        signals: Signals::default(),
    }
}

/// A run resolved on its own: its repair, the verdict, and what the field may still choose.
struct Resolved {
    verdict: Verdict,
    /// Boxed: few runs have one, and a resolution is moved about for every run.
    deeper: Option<Box<Deeper>>,
    signals: Signals,
}

impl Resolved {
    /// Whether the run may stand in a field that vouches for a character that lost a byte
    /// beside it: it is certain, or ambiguous and so one the field may find garbled (runs
    /// between a lost byte and a certain run often are: `Ð Ñƒ…ÐºÐ¸Ð¹`). The look-alikes the
    /// rule rejects, which correct text is full of, anchor no search.
    fn may_vouch(&self) -> bool {
        self.signals.certain || matches!(self.verdict, Verdict::Ambiguous(_))
    }
}

/// Where Windows-1252 is among the pages `readings` reads, if it is.
fn windows_1252_read(readings: &Readings) -> Option<usize> {
    (readings.index_of(&WINDOWS_1252)).filter(|&bit| readings.reads(bit))
}

/// The page bytes that are not UTF-8 are read through by default, with its mask: Windows-1252
/// when it is a reading (what MySQL's `latin1` and most writers of raw bytes mean), else the
/// first reading given.
fn default_raw(readings: &Readings) -> Option<(&'static CodePage, ReadingMask)> {
    windows_1252_read(readings)
        .or_else(|| (0..readings.pages().len()).find(|&bit| readings.reads(bit)))
        .and_then(|bit| Some((readings.pages()[bit], readings.mask(bit)?)))
}

impl Scanner {
    pub fn new(readings: Readings, strictness: Strictness) -> Scanner {
        // The pattern strictness is the bare byte pattern of double encoding, nothing more.
        let windows_1252 = windows_1252_read(&readings);
        let controls = windows_1252
            .filter(|_| strictness != Strictness::Pattern)
            .and_then(|bit| readings.mask(bit));
        Scanner {
            candidates: CandidateFilter::new(&readings, controls.is_some()),
            raw: default_raw(&readings),
            readings,
            strictness,
            controls,
            lost: LostBytes::default(),
            others: Arc::new([]),
            bounds: None,
        }
    }

    /// The scanner with garbled characters that lost a byte treated as `lost` asks, and so
    /// the scanners of the other readings it may choose.
    pub fn with_lost_bytes(mut self, lost: LostBytes) -> Scanner {
        self.lost = lost;
        self.for_each_other(|other| other.lost = lost);
        self
    }

    /// What is done with garbled characters that lost a byte.
    pub fn lost_bytes(&self) -> LostBytes {
        self.lost
    }

    /// This scanner, with `others` for buffers whose evidence chooses one of them.
    pub(crate) fn with_others(mut self, others: Vec<Scanner>) -> Scanner {
        self.bounds = (!others.is_empty()).then(|| Arc::new(Bounds::new(&others)));
        self.others = others.into();
        self
    }

    /// The scanners a buffer's evidence may choose instead of this one, and the table that
    /// bounds what each could explain of a buffer.
    pub(crate) fn others(&self) -> (&[Scanner], Option<&Bounds>) {
        (&self.others, self.bounds.as_deref())
    }

    /// Whether this scanner reads C1 controls back as Windows-1252 characters.
    pub(crate) fn reads_controls(&self) -> bool {
        self.controls.is_some()
    }

    /// The scanner with bytes that are not UTF-8 read as `raw` asks. A scanner that chooses
    /// each buffer's reading ([`Scanner::choosing`]) reads them alike whichever reading a
    /// buffer gets: through any page it names, and by default through Windows-1252 (as its
    /// Western pair does), for bytes that are not UTF-8 are no garbling a reading explains.
    pub fn with_raw_bytes(mut self, raw: RawBytes) -> Result<Scanner, NotAReading> {
        let choosing = !self.others.is_empty();
        self.raw = raw.page_under(&self.readings, choosing)?;
        // Every reading of the set names the same pages, so the mask counts alike.
        let raw = self.raw;
        self.for_each_other(|other| other.raw = raw);
        Ok(self)
    }

    /// Changes each of the other readings' scanners with `change`: in place while this
    /// scanner is their only holder (as it is while being built), else on copies.
    fn for_each_other(&mut self, change: impl Fn(&mut Scanner)) {
        match Arc::get_mut(&mut self.others) {
            Some(others) => others.iter_mut().for_each(change),
            None => {
                let others: Vec<Scanner> = (self.others.iter())
                    .map(|other| {
                        let mut other = other.clone();
                        change(&mut other);
                        other
                    })
                    .collect();
                self.others = others.into();
            }
        }
    }

    /// The code page bytes that are not UTF-8 are read through, if they are converted.
    pub fn raw_bytes(&self) -> Option<&'static CodePage> {
        self.raw.map(|(page, _)| page)
    }

    pub fn readings(&self) -> &Readings {
        &self.readings
    }

    pub fn strictness(&self) -> Strictness {
        self.strictness
    }

    /// Scans `input` and reports every run to `sink`, then calls [`Sink::end`].
    ///
    /// The buffer is judged on its own: context never reaches across its ends, so callers that
    /// feed a file in pieces cut it after a newline wherever they can. Under the balanced
    /// strictness the buffer is also the scope of its lines (the text as a scope). A scanner
    /// made to choose its reading ([`Scanner::choosing`]) scans through the one the buffer's
    /// evidence chooses.
    pub fn scan<S: Sink>(&self, input: &[u8], sink: &mut S) -> Result<(), S::Error> {
        self.scan_chosen(input, sink, Utf8::Unknown)
    }

    /// [`Scanner::scan`] through this scanner's own readings, whatever the others would say,
    /// of a buffer whose UTF-8 is known as `utf8` says.
    pub(crate) fn scan_as_read<S: Sink>(
        &self,
        input: &[u8],
        sink: &mut S,
        utf8: Utf8,
    ) -> Result<(), S::Error> {
        match self.strictness {
            Strictness::Balanced => self.scan_fields(input, &mut TextScope::new(sink), utf8),
            _ => self.scan_fields(input, sink, utf8),
        }
    }

    /// [`Scanner::scan`] with fields as the widest scope, of a buffer whose UTF-8 is known as
    /// `utf8` says: for a dump, whose columns are its scopes ([`super::scope`]).
    pub(crate) fn scan_fields<S: Sink>(
        &self,
        input: &[u8],
        sink: &mut S,
        utf8: Utf8,
    ) -> Result<(), S::Error> {
        let mut sequences = Vec::new();
        let mut chars = Vec::new();
        let mut held: VecDeque<Pending> = VecDeque::new();
        // The characters of the held runs, one after the other: one allocation for all.
        let mut held_chars: Vec<RepairedChar> = Vec::new();
        let mut field = Field::default();
        let mut from = 0;
        let mut search = Search::default();
        let mut raw_pieces = match utf8 {
            Utf8::Valid => RawPieces::known(input, false),
            Utf8::Invalid => RawPieces::known(input, true),
            Utf8::Unknown => RawPieces::new(input),
        };
        // The next run of each kind: a double-encoded one (its sequences in `sequences`) and a
        // piece of bytes that are not UTF-8. They never overlap: one is made of well-formed
        // characters, the other of none.
        let mut next_encoded = self.next_run(input, from, &mut search, &mut sequences, true);
        let mut next_raw = raw_pieces.next_from(from);
        // The next double-encoded run is resolved ahead (its characters in `next_chars`): its
        // verdict says whether the text before it is searched for the third kind, a garbled
        // character that lost a byte ([`super::lost`]). Those are searched only near runs
        // that may vouch for them, so that text full of look-alikes costs nothing more. Made of well-formed characters none of which continues a
        // sequence, they overlap neither of the others.
        let mut next_chars = Vec::new();
        let mut next_resolved = next_encoded
            .as_ref()
            .map(|span| self.resolve_encoded(input, span, &sequences, &mut next_chars));
        let mut anchors = LostAnchors::default();
        let mut next_lost = self.next_lost(
            input,
            from,
            &anchors,
            next_pair(&next_encoded, &next_resolved),
        );
        loop {
            let lost_first = next_lost.as_ref().is_some_and(|(start, _)| {
                next_encoded.as_ref().is_none_or(|e| *start < e.start)
                    && next_raw.as_ref().is_none_or(|r| *start < r.span.start)
            });
            let (span, raw, lost) = match (&next_encoded, &next_raw, &next_lost) {
                (_, _, Some((start, found))) if lost_first => {
                    (*start..start + found.len, None, Some(*found))
                }
                (Some(encoded), Some(raw), _) if raw.span.start < encoded.start => {
                    (raw.span.clone(), Some(raw.kind), None)
                }
                (Some(encoded), _, _) => (encoded.clone(), None, None),
                (None, Some(raw), _) => (raw.span.clone(), Some(raw.kind), None),
                (None, None, _) => break,
            };
            from = span.end;
            match field.boundary(input, span.start) {
                Boundary::At(end) => {
                    let end = Some(end);
                    self.settle(&mut field, &mut held, &mut held_chars, input, end, sink)?;
                    field.clear();
                }
                Boundary::Beyond => {
                    let end = None;
                    self.settle(&mut field, &mut held, &mut held_chars, input, end, sink)?;
                    field.clear();
                }
                // The runs held have waited as long as a field may reach: the field so far
                // ends where this run starts.
                Boundary::Within if field.waited_too_long(span.start) => {
                    let end = Some(span.start);
                    self.settle(&mut field, &mut held, &mut held_chars, input, end, sink)?;
                }
                Boundary::Within => {}
            }
            let resolved = match (lost, raw) {
                (Some(found), _) => resolve_lost(input, &span, &found, &mut chars),
                (None, Some(kind)) => {
                    let context = neighbours(input, span.start, span.end);
                    self.resolve_raw(input, &span, kind, context, &mut chars)
                }
                (None, None) => match next_resolved.take() {
                    Some(resolved) => {
                        std::mem::swap(&mut chars, &mut next_chars);
                        resolved
                    }
                    None => self.resolve_encoded(input, &span, &sequences, &mut chars),
                },
            };
            let (certain_run, vouching_run) = match (lost, raw) {
                (None, None) => (resolved.signals.certain, resolved.may_vouch()),
                (Some(_), _) => (false, true),
                (None, Some(_)) => (false, false),
            };
            if resolved.signals.certain {
                field.add_scripts(&chars);
            }
            let verdict = resolved.verdict;
            let lone = resolved.signals.lone;
            // `None`: the field decides.
            // A strongly certain run earlier in the field settles what clean text could not.
            let garbled_field = field.strongly_certain();
            let decision = match (self.strictness, verdict) {
                // Bytes that are not UTF-8 are no look-alike of correct text: their own shape
                // decides, under every strictness.
                _ if raw.is_some() => Some(matches!(verdict, Verdict::Certain(_))),
                // A character with a lost byte is repaired only on its field's evidence, under
                // every strictness that repairs what is ambiguous.
                (Strictness::Strict, _) if lost.is_some() => Some(false),
                _ if lost.is_some_and(|found| !self.may_repair_lost(found.kind)) => Some(false),
                _ if lost.is_some() => None,
                (Strictness::Pattern, _) => Some(true),
                (Strictness::Balanced, _) if resolved.deeper.is_some() => None,
                (Strictness::Balanced, Verdict::Certain(own)) if is_weak_certainty(own) => {
                    garbled_field.then_some(true)
                }
                (_, Verdict::Certain(_)) => Some(true),
                (Strictness::Balanced, Verdict::Rejected(_)) if lone.is_some() => None,
                (_, Verdict::Rejected(_)) => Some(false),
                (Strictness::Lenient, Verdict::Ambiguous(_)) => Some(true),
                (Strictness::Strict, Verdict::Ambiguous(_)) => Some(false),
                (Strictness::Balanced, Verdict::Ambiguous(Evidence::ControlForCharacter(_))) => {
                    None
                }
                (Strictness::Balanced, Verdict::Ambiguous(_)) if lone.is_none() => {
                    garbled_field.then_some(true)
                }
                (Strictness::Balanced, Verdict::Ambiguous(_)) => None,
            };
            // Bytes that are not UTF-8 say nothing of double encoding in their field.
            if raw.is_none() {
                field.add(
                    input,
                    &self.readings,
                    span.clone(),
                    resolved.signals,
                    decision.is_none(),
                );
            }
            let lent = match (self.strictness, verdict, decision) {
                (Strictness::Balanced, Verdict::Ambiguous(_), Some(true)) => {
                    Some(FieldEvidence::CertainNearby)
                }
                _ => None,
            };
            match decision {
                Some(repaired) if held.is_empty() => {
                    let run = Run {
                        span,
                        chars: &chars,
                        verdict,
                        repaired,
                        field: lent,
                    };
                    sink.run(input, &run)?;
                }
                _ => held.push_back(Pending {
                    span,
                    chars: {
                        let start = held_chars.len();
                        held_chars.extend_from_slice(&chars);
                        start..held_chars.len()
                    },
                    chosen: None,
                    verdict,
                    deeper: resolved.deeper,
                    lone,
                    decision,
                    field: lent,
                }),
            }
            if certain_run {
                anchors.certain_end = Some(from);
            }
            if vouching_run {
                anchors.touching_end = Some(from);
            }
            match (lost, raw) {
                (Some(_), _) => {}
                (None, Some(_)) => next_raw = raw_pieces.next_from(from),
                (None, None) => {
                    next_encoded = self.next_run(input, from, &mut search, &mut sequences, true);
                    next_resolved = next_encoded
                        .as_ref()
                        .map(|span| self.resolve_encoded(input, span, &sequences, &mut next_chars));
                }
            }
            if raw.is_none() {
                let next = next_pair(&next_encoded, &next_resolved);
                next_lost = self.next_lost(input, from, &anchors, next);
            }
        }
        self.settle(&mut field, &mut held, &mut held_chars, input, None, sink)?;
        sink.end(input)
    }

    /// Decides the runs that wait for `field`, which ends at `end` (`None`: after its last
    /// run, at the first separator or as far as evidence reaches), then reports every held
    /// run.
    fn settle<S: Sink>(
        &self,
        field: &mut Field,
        held: &mut VecDeque<Pending>,
        held_chars: &mut Vec<RepairedChar>,
        input: &[u8],
        end: Option<usize>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        if field.waiting > 0 {
            let end = end.unwrap_or_else(|| field.end_after_last_run(input));
            field.settle(input, &self.readings, end);
            for pending in held.iter_mut().filter(|p| p.decision.is_none()) {
                let decision = field.decide(
                    &pending.span,
                    pending.verdict,
                    pending.lone,
                    pending.deeper.as_deref(),
                );
                if decision.take_deeper
                    && let Some(deeper) = pending.deeper.take()
                {
                    pending.chosen = Some(deeper.chars);
                }
                pending.verdict = decision.verdict;
                pending.decision = Some(decision.repaired);
                pending.field = decision.evidence;
            }
        }
        while let Some(pending) = held.pop_front() {
            let chars = match &pending.chosen {
                Some(chosen) => chosen.as_slice(),
                None => &held_chars[pending.chars.clone()],
            };
            let run = Run {
                span: pending.span,
                chars,
                verdict: pending.verdict,
                repaired: pending.decision.unwrap_or(false),
                field: pending.field,
            };
            sink.run(input, &run)?;
        }
        held_chars.clear();
        Ok(())
    }

    /// Finds the next run at or after `from` (`search` walks `input` forward), leaving its
    /// sequences in `sequences`; with
    /// `controls`, when the scanner reads them back, a run of C1 controls too (it leaves
    /// `sequences` empty). An inner layer is no text anyone wrote: its controls are none.
    fn next_run(
        &self,
        input: &[u8],
        mut from: usize,
        search: &mut Search,
        sequences: &mut Vec<(usize, DoubleEncodedMatch)>,
        controls: bool,
    ) -> Option<Range<usize>> {
        sequences.clear();
        loop {
            let start = self.candidates.next(search, input, from)?;
            if controls && self.controls.is_some() && control_at(input, start).is_some() {
                let mut end = start + 2;
                while control_at(input, end).is_some() {
                    end += 2;
                }
                return Some(start..end);
            }
            let Some(first) = match_at(&self.readings, input, start) else {
                from = start + 1;
                continue;
            };
            let mut end = start + first.len;
            sequences.push((start, first));
            while let Some(next) = match_at(&self.readings, input, end) {
                sequences.push((end, next));
                end += next.len;
            }
            return Some(start..end);
        }
    }

    /// Whether a garbled character that lost a byte in this way may be repaired at all.
    fn may_repair_lost(&self, kind: LostKind) -> bool {
        !matches!(
            (self.lost, kind),
            (LostBytes::Keep, _) | (LostBytes::Infer, LostKind::Unknowable)
        )
    }

    /// Resolves the double-encoded run at `span` (its sequences in `sequences`; none for a run
    /// of C1 controls) into `chars`.
    fn resolve_encoded(
        &self,
        input: &[u8],
        span: &Range<usize>,
        sequences: &[(usize, DoubleEncodedMatch)],
        chars: &mut Vec<RepairedChar>,
    ) -> Resolved {
        let context = neighbours(input, span.start, span.end);
        match (sequences.is_empty(), self.controls) {
            (true, Some(mask)) => self.resolve_controls(input, span, mask, context, chars),
            _ => self.resolve_run(input, sequences, context, chars),
        }
    }

    /// The next garbled character with a lost byte at or after `from` and before the next run
    /// of double encoding (`next`, with its resolution): only where a field could vouch for
    /// it, within [`CONTEXT_WINDOW`] of a certain run (the last one, or the next), or touching
    /// a run that may vouch ([`Resolved::may_vouch`]) or another lost one (`Ð Ñƒ`, `Ñ�Ñ�`).
    /// None under the pattern strictness, which is the byte pattern alone.
    fn next_lost(
        &self,
        input: &[u8],
        from: usize,
        anchors: &LostAnchors,
        next: Option<(&Range<usize>, &Resolved)>,
    ) -> Option<(usize, LostMatch)> {
        if self.strictness == Strictness::Pattern {
            return None;
        }
        let gap_end = next.map_or(input.len(), |(span, _)| span.start);
        // Every window searched below lies in the gap.
        if from >= gap_end || !may_hold_lost(input, from..gap_end) {
            return None;
        }
        // The stretch of the gap near a certain run: from `from` as far as the last one
        // reaches, and back from the next one if it is certain. One window where they meet.
        let after = anchors
            .certain_end
            .map(|end| from..gap_end.min(end + CONTEXT_WINDOW).max(from));
        let before = next
            .filter(|(_, resolved)| resolved.signals.certain)
            .map(|(span, _)| from.max(span.start.saturating_sub(CONTEXT_WINDOW))..gap_end);
        let (near, far) = match (after, before) {
            (Some(a), Some(b)) if b.start <= a.end => (Some(a.start..b.end), None),
            (a, b) => (a, b),
        };
        // Touching a run that may vouch for it: at `from`, right after one, or ending where
        // the next one starts.
        // Each only where its first or last byte can be what it is (a lead's character is not
        // ASCII; the slot before the next run is a space, a `?` or U+FFFD's last byte): most
        // runs are touched by neither.
        let at_from = anchors
            .touching_end
            .filter(|&end| end == from && input[from] >= 0x80)
            .map(|_| from..gap_end.min(from + LONGEST_LOST));
        let touching_next = next
            .filter(|(_, resolved)| resolved.may_vouch())
            .filter(|_| matches!(input[gap_end - 1], b' ' | b'?' | 0xBD))
            .map(|(span, _)| from.max(span.start.saturating_sub(LONGEST_LOST))..gap_end);
        let search = |window: Option<Range<usize>>| {
            window
                .filter(|window| !window.is_empty())
                .and_then(|window| find_lost(&self.readings, input, window))
                .filter(|(start, found)| start + found.len <= gap_end)
        };
        let covered = |window: &Option<Range<usize>>| {
            window.as_ref().is_some_and(|w| {
                [&near, &far]
                    .into_iter()
                    .flatten()
                    .any(|n| n.start <= w.start && w.end <= n.end)
            })
        };
        let mut found = [search(near.clone()), search(far.clone()), None, None];
        if !covered(&at_from) {
            found[2] = search(at_from).filter(|(start, _)| *start == from);
        }
        if !covered(&touching_next) {
            found[3] = search(touching_next).filter(|(start, found)| start + found.len == gap_end);
        }
        found.into_iter().flatten().min_by_key(|(start, _)| *start)
    }

    /// Resolves a piece of bytes that are not UTF-8 at `span` into `chars` ([`super::raw`]):
    /// converted through the raw-byte reading unless it is a form always kept, the reading
    /// leaves a byte undefined, or control characters beside it make it binary data.
    fn resolve_raw(
        &self,
        input: &[u8],
        span: &Range<usize>,
        kind: RawKind,
        (before, after): (Option<char>, Option<char>),
        chars: &mut Vec<RepairedChar>,
    ) -> Resolved {
        chars.clear();
        let control = |c: Option<char>| c.is_some_and(|c| c.is_control() && !c.is_whitespace());
        let verdict = match (kind, self.raw) {
            (RawKind::OverlongAscii(c), _) => Verdict::Rejected(Evidence::OverlongAscii(c)),
            (RawKind::LoneSurrogate, _) => Verdict::Rejected(Evidence::LoneSurrogate),
            (RawKind::CutCharacter(left), _) => Verdict::Rejected(Evidence::CutCharacter(left)),
            (RawKind::Converted, _) if control(before) || control(after) => {
                Verdict::Rejected(Evidence::NotUtf8AmongControls)
            }
            (RawKind::Converted, Some((page, mask))) => {
                match decode_piece(input, span.clone(), page, mask, chars) {
                    Some(()) => Verdict::Certain(Evidence::NotUtf8(page.name)),
                    None => Verdict::Rejected(Evidence::NotUtf8(page.name)),
                }
            }
            (RawKind::Converted, None) => Verdict::Rejected(Evidence::NothingAgainst),
        };
        if !matches!(verdict, Verdict::Certain(_)) {
            // Left as they are: one character of no reading, so counts see one kept piece.
            chars.clear();
            chars.push(RepairedChar {
                span: span.clone(),
                original: char::REPLACEMENT_CHARACTER,
                mask: ReadingMask(0),
                layers: 0,
                garbled_chars: input[span.clone()].iter().filter(|&&b| b >= 0xC0).count() as u32,
            });
        }
        Resolved {
            verdict,
            deeper: None,
            signals: Signals::default(),
        }
    }

    /// Resolves a run of C1 controls at `span` into `chars`.
    fn resolve_controls(
        &self,
        input: &[u8],
        span: &Range<usize>,
        mask: ReadingMask,
        (before, after): (Option<char>, Option<char>),
        chars: &mut Vec<RepairedChar>,
    ) -> Resolved {
        chars.clear();
        let mut repaired = Vec::with_capacity(span.len() / 2);
        for at in span.clone().step_by(2) {
            let Some(original) = control_at(input, at) else {
                continue;
            };
            repaired.push(original);
            chars.push(RepairedChar {
                span: at..at + 2,
                original,
                mask,
                layers: 1,
                garbled_chars: 1,
            });
        }
        let before = self.before_controls(input, span.start, before);
        let verdict = judge_controls(&repaired, before, after);
        // Certain that the field went through a wrong reading, but no layer of double
        // encoding: nothing said about depth, nor enough to outweigh clean text.
        let signals = Signals {
            certain: matches!(verdict, Verdict::Certain(_)),
            layers: 1,
            ..Signals::default()
        };
        Resolved {
            verdict,
            deeper: None,
            signals,
        }
    }

    /// What a run of C1 controls at `at` follows once its text is repaired: a C1 control
    /// just before it that ends a garbled sequence (`â\u{80}\u{99}\u{85}`) is the tail of
    /// that sequence's character (`’…`), not a control the run stands among.
    fn before_controls(&self, input: &[u8], at: usize, before: Option<char>) -> Option<char> {
        if !before.is_some_and(|c| ('\u{80}'..='\u{9f}').contains(&c)) {
            return before;
        }
        // A garbled character is two to four characters of two or three bytes each.
        (4..=12)
            .filter_map(|len| at.checked_sub(len))
            .find_map(|start| {
                match_at(&self.readings, input, start).filter(|found| start + found.len == at)
            })
            .map_or(before, |found| Some(found.original))
    }

    /// Resolves a run on its own evidence into `chars`, and what it tells its field. Under
    /// the balanced strictness an inner layer whose own text is only ambiguous is not peeled
    /// here: the run offers it to the field as its [`Deeper`] repair.
    fn resolve_run(
        &self,
        text: &[u8],
        sequences: &[(usize, DoubleEncodedMatch)],
        context: (Option<char>, Option<char>),
        chars: &mut Vec<RepairedChar>,
    ) -> Resolved {
        let (verdict, skipped) = self.resolve(text, sequences, context, chars, false);
        let deeper = skipped.map(|skipped| {
            let mut deeper_chars = Vec::new();
            let (verdict, _) = self.resolve(text, sequences, context, &mut deeper_chars, true);
            Box::new(Deeper {
                chars: deeper_chars,
                verdict,
                inner: skipped.verdict,
                on_its_own: skipped.on_its_own,
                glued_to_symbol: skipped.glued_to_symbol,
            })
        });
        let certain = matches!(verdict, Verdict::Certain(_));
        let signals = Signals {
            certain,
            strongly: matches!(verdict, Verdict::Certain(own) if !is_weak_certainty(own)),
            layers: chars.iter().map(|c| c.layers).max().unwrap_or(1),
            settled: certain && deeper.is_none(),
            peels_on_its_own: deeper
                .as_ref()
                .filter(|deeper| certain && deeper.on_its_own)
                .map_or(0, |deeper| deeper.layers()),
            // Only a run that cannot decide alone asks for the letters beside it.
            lone: match certain {
                true => None,
                false => lone_letter(chars, context.0, context.1),
            },
        };
        Resolved {
            verdict,
            deeper,
            signals,
        }
    }

    /// Fills `chars` with everything the run made of `sequences` repairs to, every inner
    /// layer the rule accepts peeled, and judges the run on that final text. An inner layer
    /// that is only ambiguous is peeled when `ambiguous_layers` (or the strictness) allows;
    /// the verdict on the first one that was not is returned beside the run's.
    ///
    /// Inner layers are judged first and on their own final text, because an intermediate
    /// layer is not text anyone wrote: a Latin-1 reading leaves C1 controls in it, which the
    /// rule would rightly reject as a final result.
    fn resolve(
        &self,
        text: &[u8],
        sequences: &[(usize, DoubleEncodedMatch)],
        context: (Option<char>, Option<char>),
        chars: &mut Vec<RepairedChar>,
        ambiguous_layers: bool,
    ) -> (Verdict, Option<Skipped>) {
        chars.clear();
        chars.extend(sequences.iter().map(|&(at, found)| RepairedChar {
            span: at..at + found.len,
            original: found.original,
            mask: found.mask,
            layers: 1,
            garbled_chars: u32::from(found.chars),
        }));
        // Another layer needs a repaired character that stands for a lead byte itself.
        let lead_inside = chars[..chars.len().saturating_sub(1)].iter().any(|c| {
            self.readings
                .origin(c.original)
                .is_some_and(|o| is_lead_byte(o.byte))
        });
        let skipped = match lead_inside {
            true => self.peel_inner_layers(chars, context, ambiguous_layers),
            false => None,
        };
        let verdict = judge(&RunView {
            text,
            sequences,
            repaired: chars,
            before: context.0,
            after: context.1,
        });
        (verdict, skipped)
    }

    /// Looks for runs inside the one-layer repair `chars`, resolves each (recursively), and
    /// merges those the strictness accepts; returns the verdict on the first inner run left
    /// because it was only ambiguous and `ambiguous_layers` was false.
    fn peel_inner_layers(
        &self,
        chars: &mut Vec<RepairedChar>,
        (outer_before, outer_after): (Option<char>, Option<char>),
        ambiguous_layers: bool,
    ) -> Option<Skipped> {
        let mut text = Vec::with_capacity(chars.len() * 4);
        let mut starts = Vec::with_capacity(chars.len() + 1);
        let mut utf8 = [0u8; 4];
        for c in chars.iter() {
            starts.push(text.len());
            text.extend_from_slice(c.original.encode_utf8(&mut utf8).as_bytes());
        }
        starts.push(text.len());
        let char_at = |offset: usize| starts.binary_search(&offset).ok();

        let mut merged: Vec<RepairedChar> = Vec::with_capacity(chars.len());
        let mut copied = 0; // chars[..copied] are in `merged` already
        let mut sequences = Vec::new();
        let mut inner_chars = Vec::new();
        let mut skipped = None;
        let mut from = 0;
        let mut search = Search::default();
        while let Some(span) = self.next_run(&text, from, &mut search, &mut sequences, false) {
            from = span.end;
            let before = match span.start {
                0 => outer_before,
                s => decode_last_char(&text[..s]),
            };
            let after = match span.end == text.len() {
                true => outer_after,
                false => decode_char(&text[span.end..]).map(|(c, _)| c),
            };
            let (verdict, inner_skipped) = self.resolve(
                &text,
                &sequences,
                (before, after),
                &mut inner_chars,
                ambiguous_layers,
            );
            skipped = skipped.or(inner_skipped);
            // A value garbled once is evidence of one conversion, not of two: an inner layer
            // needs evidence of its own, or (balanced) that of its field, which the scan loop
            // weighs.
            let accept = match (verdict, self.strictness) {
                (Verdict::Certain(_), _) => true,
                (Verdict::Ambiguous(_), Strictness::Lenient | Strictness::Pattern) => true,
                (Verdict::Ambiguous(_), Strictness::Balanced) => ambiguous_layers,
                (Verdict::Ambiguous(_), Strictness::Strict) => false,
                (Verdict::Rejected(_), strictness) => strictness == Strictness::Pattern,
            };
            if !accept {
                if matches!(verdict, Verdict::Ambiguous(_))
                    && self.strictness == Strictness::Balanced
                {
                    let last = decode_last_char(&text[..span.end]);
                    let on_its_own = speaks_for_itself(verdict, &inner_chars, before, last, after);
                    skipped = skipped.or(Some(Skipped {
                        verdict,
                        on_its_own,
                        glued_to_symbol: glued_to_symbol(&text[span.clone()], before),
                    }));
                }
                continue;
            }
            for inner in &inner_chars {
                // Inner characters are made of whole outer characters, so both ends are found.
                let (Some(first), Some(last)) =
                    (char_at(inner.span.start), char_at(inner.span.end))
                else {
                    continue;
                };
                merged.extend(chars[copied..first].iter().cloned());
                let covered = &chars[first..last];
                merged.push(RepairedChar {
                    span: covered[0].span.start..covered[covered.len() - 1].span.end,
                    original: inner.original,
                    mask: covered.iter().fold(inner.mask, |mask, c| mask.and(c.mask)),
                    layers: inner.layers + 1,
                    garbled_chars: covered.iter().map(|c| c.garbled_chars).sum(),
                });
                copied = last;
            }
        }
        if copied > 0 {
            merged.extend(chars[copied..].iter().cloned());
            *chars = merged;
        }
        skipped
    }
}

#[cfg(test)]
mod tests {
    use super::super::codepage::{Readings, WINDOWS_1252, garble};
    use super::super::repair::repair;
    use super::*;

    fn balanced(text: &str) -> String {
        let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
        String::from_utf8_lossy(&repair(&scanner, text.as_bytes())).into_owned()
    }

    /// `text` garbled `times` times through Windows-1252, as a latin1 connection garbles it.
    fn garbled(text: &str, times: usize) -> String {
        let mut out = text.to_string();
        for _ in 0..times {
            out = garble(out.as_bytes(), |_| &WINDOWS_1252).expect("every byte is defined");
        }
        out
    }

    #[test]
    fn a_value_garbled_once_is_peeled_once() {
        // Each of these holds a pair that is itself a look-alike: garbled once, its repair
        // would be peeled again into a letter of another script, and nothing in the value is
        // evidence of a second conversion.
        for truth in [
            "T. Pratchett: Úžasný",
            "OPCIÓ… ",
            "« pas monté »",
            "G/Ç’lar",
            "»Ä«",
            "PROHLÍŽEČ",
            "nejnížší",
        ] {
            assert_eq!(balanced(&garbled(truth, 1)), truth, "{}", garbled(truth, 1));
            // Garbled twice, every run of the value is certain at two layers.
            assert_eq!(balanced(&garbled(truth, 2)), truth, "{}", garbled(truth, 2));
        }
        // A lone letter or a capital garbled twice: the inner layer is still only ambiguous,
        // but it makes a letter that fits where it stands, and would leave a Latin-1 letter
        // glued to a symbol.
        for truth in [
            "п",
            "ب",
            "ק",
            "Ž",
            "ī",
            "ISPAAÑ",
            "SEEƊTO",
            "COMMUTACIÓ IMMEDIATA",
            "Д Е З",
        ] {
            assert_eq!(balanced(&garbled(truth, 2)), truth, "{}", garbled(truth, 2));
        }
        // The runs of one value agree on their depth: `Ã½` holds no further layer.
        assert_eq!(balanced("ÃšÅ¾asnÃ½"), "Úžasný");
        // Where the value shows two layers elsewhere, the ambiguous one is peeled too.
        assert_eq!(
            balanced(&format!("{} {}", garbled("é", 2), garbled("ڞ", 2))),
            "é ڞ"
        );
    }

    #[test]
    fn a_value_garbled_twice_is_peeled_twice_where_its_runs_show_it() {
        // Navajo in capitals: `Ó` and `ʼ` alone are in doubt at the inner layer, the other
        // runs of the value are certain at two; Salish `Q̓`, a mark glued inside a word.
        for text in ["TÓ TÁʼ DINÉʼIʼ BIKÉYAH", "SXETSPESQ̓T", "PELLKWET̓MIN"] {
            assert_eq!(balanced(&garbled(text, 2)), text);
        }
    }

    #[test]
    fn a_value_is_not_left_half_repaired() {
        // Garbled twice, with an inner layer the rule cannot decide: a repair of the outer one
        // alone would leave a letter glued to a symbol no letter is followed by, or a capital
        // glued to a small letter, which is wrong whichever text is true. They are left whole.
        for truth in ["E´", "oʻ", "^[+1YYب]", "^[+1YYآ]"] {
            let twice = garbled(truth, 2);
            assert_eq!(balanced(&twice), twice, "{truth}");
        }
        // Where the inner pair is what correct text writes (a word and an ellipsis), the outer
        // layer alone is the repair.
        assert_eq!(balanced(&garbled("[SECCIÓ…]", 1)), "[SECCIÓ…]");
        assert_eq!(
            balanced(&garbled("LANÇ\u{ad}ADEIRA", 1)),
            "LANÇ\u{ad}ADEIRA"
        );
        // A small letter never continues capitals, whatever its script.
        assert_eq!(balanced("LANÇ\u{ad}ADEIRA"), "LANÇ\u{ad}ADEIRA");
    }

    #[test]
    fn the_runs_of_a_value_peel_as_deep_as_the_others_show() {
        // The first letter's inner layer (`Ä’`, a letter and an apostrophe) is ambiguous on its
        // own; the others peel a second layer on their own text, so it follows them.
        let list = "Ē ē ģ Ī ī Ķ ķ Ļ";
        assert_eq!(balanced(&garbled(list, 2)), list);
        assert_eq!(balanced(&garbled(list, 1)), list);
    }

    #[test]
    fn lone_letters_of_one_script_together_are_a_garbled_value() {
        let tifinagh = "ⴰ ⴱ ⴳ ⴷ";
        assert_eq!(balanced(&garbled(tifinagh, 1)), tifinagh);
        // One alone stays ambiguous; beside clean non-ASCII text, the list is left.
        let one = garbled("ⴰ", 1);
        assert_eq!(balanced(&one), one);
        let beside = format!("é {}", garbled(tifinagh, 1));
        assert_eq!(balanced(&beside), beside);
        // Latin Extended letters: three make a list, two do not; Latin-1's own never.
        assert_eq!(balanced(&garbled("Ķ ķ Ļ", 1)), "Ķ ķ Ļ");
        assert_eq!(balanced(&garbled("Ķ ķ", 1)), garbled("Ķ ķ", 1));
        assert_eq!(balanced("»Ä« »Ö« »Ü«"), "»Ä« »Ö« »Ü«");
    }

    #[test]
    fn clean_text_a_garbling_would_have_garbled_says_the_field_was_not() {
        // ftfy's own example: the dash is right, so the one weak run is left.
        let mixed = "Bremer/Mccoy – DrÃ¥ber";
        assert_eq!(balanced(mixed), mixed);
        assert_eq!(balanced("DrÃ¥ber"), "Dråber");
        // A run certain by strong evidence (two sequences in a row) outweighs the dash.
        assert_eq!(balanced("Bremer – DrÃ¥ber Ð¿Ñ€Ð¸"), "Bremer – Dråber при");
        // An ambiguous run beside a weakly certain one is repaired with it, unless the field
        // holds a clean `ř`: then neither is.
        let lookalike = "MISUTÂ\u{a0}AJIKKO";
        assert_eq!(
            balanced(&format!("Ã©tÃ© {lookalike}")),
            "été MISUT\u{a0}AJIKKO"
        );
        let counter = format!("ř Ã©tÃ© {lookalike}");
        assert_eq!(balanced(&counter), counter);
    }

    #[test]
    fn controls_are_read_back_in_windows_1252_text_only() {
        assert_eq!(
            balanced("\u{84}Handwerk bringt dich überall hin\u{93}: Von"),
            "„Handwerk bringt dich überall hin“: Von"
        );
        assert_eq!(balanced("parlé\u{85} Tu sais"), "parlé… Tu sais");
        // A garbled `’` whose last byte is a C1 control, then a control: the run follows the
        // repaired apostrophe, not a control.
        assert_eq!(
            balanced("under pressureâ\u{80}\u{99}\u{85} It was"),
            "under pressure’… It was"
        );
        // MacRoman read as Latin-1 (`\u{92}` is its `í`), Windows-1251 (Cyrillic beside it),
        // binary data, an undefined byte: left.
        for left in [
            "barco tur\u{92}stico en Acapulco",
            "Р\u{98}Р·-РїРѕРґ",
            "é \u{1b}\u{93}x",
            "é \u{81}",
        ] {
            assert_eq!(balanced(left), left);
        }
    }

    #[test]
    fn cesu_8_pairs_are_one_character() {
        assert_eq!(
            balanced(&garbled("\u{ed}\u{a0}\u{bd}", 0)),
            "\u{ed}\u{a0}\u{bd}"
        );
        assert_eq!(balanced("Hi guys í\u{a0}½í¸\u{8d}"), "Hi guys 😍");
        // A lone surrogate is still no match.
        assert_eq!(balanced("x í\u{a0}½ y"), "x í\u{a0}½ y");
    }

    #[test]
    fn evidence_stays_in_its_field() {
        // `MISUTÂ` + no-break space is ambiguous: repaired only with evidence in its field.
        let lookalike = "MISUTÂ\u{a0}AJIKKO";
        assert_eq!(
            balanced(&format!("Ã©tÃ©,{lookalike}")),
            format!("été,{lookalike}")
        );
        assert_eq!(
            balanced(&format!("Ã©tÃ©\t{lookalike}")),
            format!("été\t{lookalike}")
        );
        assert_eq!(
            balanced(&format!("Ã©tÃ©, 5,00 {lookalike}")),
            "été, 5,00 MISUT\u{a0}AJIKKO"
        );
        // An apostrophe inside a word lends the evidence of one half to the other.
        assert_eq!(balanced("Ð¼'Ñ\u{8f}Ñ\u{81}Ð¾"), "м'ясо");
    }

    #[test]
    fn every_repaired_character_knows_how_many_characters_its_garbled_form_has() {
        struct Collect(Vec<RepairedChar>);
        impl Sink for Collect {
            type Error = std::convert::Infallible;
            fn run(&mut self, _input: &[u8], run: &Run<'_>) -> Result<(), Self::Error> {
                self.0.extend(run.chars.iter().cloned());
                Ok(())
            }
        }
        let scanner = Scanner::new(Readings::western(), Strictness::Pattern);
        let text = format!(
            "{} {} {} {} \u{84}Handwerk\u{93} x",
            garbled("café ’ 日本", 1),
            garbled("naïve “x”", 2),
            garbled("Ελλάδα", 3),
            garbled("😍", 1).replace("ðŸ˜\u{8d}", "í\u{a0}½í¸\u{8d}"),
        );
        let mut found = Collect(Vec::new());
        let Ok(()) = scanner.scan(text.as_bytes(), &mut found);
        assert!(found.0.len() >= 10, "{:?}", found.0);
        for c in &found.0 {
            let leads = text.as_bytes()[c.span.clone()]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count();
            assert_eq!(c.garbled_chars as usize, leads, "{c:?}");
        }
    }
}
