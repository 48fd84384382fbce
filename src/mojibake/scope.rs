//! Evidence beyond the field: what the other values of a *scope* say about a run its field
//! could not decide.
//!
//! A scope is a set of values written the same way: the column of a dump's table, whose
//! values all went through the same connection. When many of them are certainly garbled, by
//! evidence of their own, a lone letter in another value of the column is far likelier a
//! garbled letter than the odd pair of Latin-1 characters it reads as (a name column holding
//! `å¼\u{a0}` for `张`, a column of single Cyrillic letters, a heading in capitals
//! `HÅŒLANI`). A scope with few garbled values lends nothing, and neither does one whose
//! values more often say they were written right (clean text a garbling would have garbled).
//!
//! A run may borrow only when nothing in its own field speaks against it: it is ambiguous on
//! its own, its field holds no certain run, no other non-ASCII text, and its repair fits where
//! it stands: a letter as the scanner asks of an inner layer on its own (`speaks_for_itself`:
//! a lone letter, a capital of the word in capitals it continues), a letter with an apostrophe
//! that is a value of its own (`Ã’`), a letter some languages write continuing a word of its
//! script (`É£` → `ɣ`), a no-break space after capitals. Never a letter glued to letters of
//! another script (`Úžas`, which Czech writes), nor a Latin letter between quotation marks
//! (`»Ä«`).
//!
//! Scopes are counted per buffer the scanner was given: the evidence is what lies near the
//! run, and a buffer's decisions never wait for the rest of the input.

use std::ops::Range;

use rustc_hash::FxHashMap;

use super::classes::{Script, is_alphabetic, script_of};
use super::field::{FieldEvidence, KeptBecause};
use super::matcher::{RepairedChar, decode_last_char};
use super::plausibility::{Evidence, Verdict, neighbours};
use super::scanner::speaks_for_itself;

/// How many values of a scope must be certainly garbled, each by evidence of its own, before
/// the scope lends evidence to a lone letter: one or two may be values pasted from elsewhere.
pub const GARBLED_VALUES_NEEDED: u32 = 4;

/// Where a run lies in its scope: the scope (a dump's table and column), the value (a cell),
/// and the value's bytes in the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopedValue {
    pub scope: u64,
    pub value: u64,
    pub span: Range<usize>,
}

/// What the values of one scope say.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Values with a run repaired by evidence of its own.
    garbled: u32,
    /// Values whose field says it was written right: clean text a garbling would have garbled.
    clean: u32,
    last_garbled: Option<u64>,
    last_clean: Option<u64>,
}

impl Tally {
    /// Counts a run of `value`, once per value for each side.
    pub fn add(
        &mut self,
        value: u64,
        verdict: Verdict,
        repaired: bool,
        field: Option<FieldEvidence>,
    ) {
        // Certain on its own text: a run repaired by its field's evidence says nothing more.
        let garbled = repaired && matches!(verdict, Verdict::Certain(_));
        if garbled && self.last_garbled != Some(value) {
            self.last_garbled = Some(value);
            self.garbled += 1;
        }
        let clean = matches!(
            field,
            Some(
                FieldEvidence::CleanText(_)
                    | FieldEvidence::NotLatin1(_)
                    | FieldEvidence::InnerLayerKept(_, KeptBecause::CleanText(_))
            )
        );
        if clean && self.last_clean != Some(value) {
            self.last_clean = Some(value);
            self.clean += 1;
        }
    }

    /// How many values of the scope are certainly garbled so far.
    pub fn garbled(&self) -> u32 {
        self.garbled
    }

    /// How many values of the scope are certainly garbled, when that is evidence enough.
    pub fn lends(&self) -> Option<u32> {
        (self.garbled >= GARBLED_VALUES_NEEDED && self.garbled > self.clean).then_some(self.garbled)
    }
}

/// The tallies of a buffer's scopes.
pub(crate) type Tallies = FxHashMap<u64, Tally>;

/// Whether a run left alone may borrow a garbled scope's evidence, by what it and its field
/// are: ambiguous, with nothing in its field for or against it, and a repair that fits where
/// it stands. Whether its value holds other non-ASCII text is asked apart
/// ([`only_runs_beyond_ascii`]), once a scope would lend.
///
/// Asked of every run of a text: the tests that turn most runs away (repaired, certain, with
/// something in their field) are inlined where it is asked, the rest is not.
#[inline]
pub(crate) fn may_borrow(
    input: &[u8],
    span: &Range<usize>,
    chars: &[RepairedChar],
    verdict: Verdict,
    repaired: bool,
    field: Option<FieldEvidence>,
) -> bool {
    !repaired
        && matches!(verdict, Verdict::Ambiguous(_))
        && field == Some(FieldEvidence::NothingNearby)
        && fits_where_it_stands(input, span, chars, verdict)
}

/// Whether an ambiguous run with nothing in its field has a repair that fits where it stands
/// ([`may_borrow`]).
#[inline(never)]
fn fits_where_it_stands(
    input: &[u8],
    span: &Range<usize>,
    chars: &[RepairedChar],
    verdict: Verdict,
) -> bool {
    let (before, after) = neighbours(input, span.start, span.end);
    let last = decode_last_char(&input[..span.end]);
    if speaks_for_itself(verdict, chars, before, last, after) {
        return true;
    }
    let [repaired] = chars else {
        return false;
    };
    let letter = |c: Option<char>| c.is_some_and(is_alphabetic);
    match verdict.evidence() {
        // A letter and an apostrophe that make up a value of their own (`Ã’` → `Ò`).
        Evidence::Apostrophe => !letter(before) && !letter(after),
        // A letter of the Latin alphabets of Africa and Asia (`ɣ`, `ɛ`, `ə`), continuing a
        // Latin word (`usenneftaÉ£` → `usenneftaɣ`).
        Evidence::WrittenPhoneticLetter(_) => before.and_then(script_of) == Some(Script::Latin),
        // A no-break space after a word in capitals (`GWERZHÂ\u{a0}:`).
        Evidence::CapitalsContext => repaired.original == '\u{a0}',
        _ => false,
    }
}

/// Whether every non-ASCII byte of `value` lies inside one of `runs` (sorted spans): its field
/// holds no clean text that a garbling of the whole value would not explain.
pub(crate) fn only_runs_beyond_ascii<'r>(
    input: &[u8],
    value: &Range<usize>,
    runs: impl IntoIterator<Item = &'r Range<usize>>,
) -> bool {
    let mut at = value.start;
    for run in runs {
        if run.end <= at {
            continue;
        }
        if run.start >= value.end {
            break;
        }
        if !input[at..run.start.max(at)].is_ascii() {
            return false;
        }
        at = at.max(run.end);
    }
    at >= value.end || input[at..value.end].is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_lends_when_enough_of_its_values_are_certainly_garbled() {
        let certain = Verdict::Certain(Evidence::Word(2));
        let lent = Verdict::Ambiguous(Evidence::Apostrophe);
        let mut tally = Tally::default();
        // Two runs of one value count once; a run repaired by its field's evidence, not at all.
        for value in [1, 1, 2, 3] {
            tally.add(value, certain, true, None);
        }
        tally.add(4, lent, true, Some(FieldEvidence::CertainNearby));
        assert_eq!(tally.lends(), None);
        tally.add(5, Verdict::Certain(Evidence::NothingAgainst), true, None);
        assert_eq!(tally.lends(), Some(4));
        // As many values that say they were written right: no more evidence.
        for value in 6..10 {
            tally.add(
                value,
                Verdict::Ambiguous(Evidence::Apostrophe),
                false,
                Some(FieldEvidence::CleanText('я')),
            );
        }
        assert_eq!(tally.lends(), None);
    }

    #[test]
    fn clean_text_outside_runs_is_found() {
        let text = "('Ð´','x é Ð´')".as_bytes();
        let first = 2..6;
        let second = 14..18;
        assert_eq!(&text[first.clone()], "Ð´".as_bytes());
        assert_eq!(&text[second.clone()], "Ð´".as_bytes());
        assert!(only_runs_beyond_ascii(text, &(2..6), [&first, &second]));
        assert!(!only_runs_beyond_ascii(text, &(9..18), [&first, &second]));
        assert!(only_runs_beyond_ascii(text, &(13..18), [&first, &second]));
    }
}
