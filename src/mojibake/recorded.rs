//! A scan recorded, to be replayed later into any sink.
//!
//! The scan of a buffer (matching, peeling, judging) is the expensive part and needs nothing
//! but the buffer; some sinks must see the buffers one after the other (a dump's sink, which
//! follows the lexer's rows and cells; an audit log, which numbers lines). Recording splits the
//! two: buffers are scanned in parallel into a [`RecordedScan`] each, which is then replayed in
//! order into the sink, which sees exactly the runs, in exactly the order, that a scan would
//! have given it.

use std::convert::Infallible;
use std::ops::Range;

use super::field::FieldEvidence;
use super::matcher::RepairedChar;
use super::plausibility::{Strictness, Verdict};
use super::scanner::{Run, Scanner, Sink, Utf8};
use super::scope::{ScopedValue, Tallies, may_borrow, only_runs_beyond_ascii};

/// Every run a scan of one buffer found, in order.
#[derive(Debug, Default)]
pub struct RecordedScan {
    runs: Vec<RecordedRun>,
    /// The characters of every run, one after the other.
    chars: Vec<RepairedChar>,
}

#[derive(Debug)]
struct RecordedRun {
    span: Range<usize>,
    /// Where its characters are in [`RecordedScan::chars`].
    chars: Range<usize>,
    verdict: Verdict,
    repaired: bool,
    field: Option<FieldEvidence>,
}

impl RecordedScan {
    /// Scans `input` with `scanner`, keeping every run.
    pub fn record(scanner: &Scanner, input: &[u8]) -> RecordedScan {
        let mut recorded = RecordedScan::default();
        let Ok(()) = scanner.scan(input, &mut recorded);
        recorded
    }

    /// Records the scan of `input` in place of the one held, reusing its memory, with fields
    /// as the widest scope: a dump's columns are lent to it after ([`RecordedScan::lend_scopes`]).
    /// Whether `input` is well-formed UTF-8 is told by `utf8`.
    pub(crate) fn record_again(&mut self, scanner: &Scanner, input: &[u8], utf8: Utf8) {
        self.runs.clear();
        self.chars.clear();
        let Ok(()) = scanner.scan_fields(input, self, utf8);
    }

    /// Repairs the lone letters that the scopes of their values vouch for ([`super::scope`]);
    /// `scope_of` tells, for each run in turn (in input order), the value it lies in, if any.
    /// Under any strictness but the balanced one, the strictness alone decides. Returns how
    /// many runs were repaired.
    pub(crate) fn lend_scopes(
        &mut self,
        input: &[u8],
        strictness: Strictness,
        mut scope_of: impl FnMut(&Range<usize>) -> Option<ScopedValue>,
    ) -> usize {
        if strictness != Strictness::Balanced {
            return 0;
        }
        // Most buffers hold no run that could borrow: then nothing else is looked at.
        let borrowers = self.borrowers(input);
        if borrowers.is_empty() {
            return 0;
        }
        // Every run is tallied under its scope; the scopes of the few that may borrow are kept.
        let mut tallies = Tallies::default();
        let mut scopes: Vec<(usize, ScopedValue)> = Vec::with_capacity(borrowers.len());
        let mut next_borrower = 0;
        for (i, run) in self.runs.iter().enumerate() {
            let borrows = borrowers.get(next_borrower) == Some(&i);
            next_borrower += usize::from(borrows);
            let Some(scope) = scope_of(&run.span) else {
                continue;
            };
            let tally = tallies.entry(scope.scope).or_default();
            tally.add(scope.value, run.verdict, run.repaired, run.field);
            if borrows {
                scopes.push((i, scope));
            }
        }
        let lends = |i: usize, _: &Range<usize>| {
            let at = scopes.binary_search_by_key(&i, |&(k, _)| k).ok()?;
            let scope = &scopes[at].1;
            let garbled = tallies.get(&scope.scope)?.lends()?;
            Some((scope.span.clone(), FieldEvidence::GarbledScope(garbled)))
        };
        self.lend_where(input, &borrowers, &[], lends)
    }

    /// Repairs the lone letters that the text around them vouches for ([`super::text_scope`]),
    /// with `evidence`: each run that may borrow, in the value `value_of` gives for its span,
    /// when the value holds no other non-ASCII text than runs, these or the `earlier` ones
    /// (sorted spans before the first recorded run). Returns how many runs were repaired.
    pub(crate) fn lend(
        &mut self,
        input: &[u8],
        earlier: &[Range<usize>],
        mut value_of: impl FnMut(&Range<usize>) -> Range<usize>,
        evidence: FieldEvidence,
    ) -> usize {
        let borrowers = self.borrowers(input);
        let lends = |_, span: &Range<usize>| Some((value_of(span), evidence));
        self.lend_where(input, &borrowers, earlier, lends)
    }

    /// The indexes of the runs that may borrow a scope's evidence ([`may_borrow`]), in order.
    fn borrowers(&self, input: &[u8]) -> Vec<usize> {
        (self.runs.iter().enumerate())
            .filter(|(_, run)| self.may_borrow(input, run))
            .map(|(i, _)| i)
            .collect()
    }

    /// Repairs each of the runs at `borrowers` (runs that may borrow) for which `lends`
    /// (given the run's index and span) names a value and the evidence it lends, when the value holds
    /// no non-ASCII text but runs (these and the `earlier` ones).
    fn lend_where(
        &mut self,
        input: &[u8],
        borrowers: &[usize],
        earlier: &[Range<usize>],
        mut lends: impl FnMut(usize, &Range<usize>) -> Option<(Range<usize>, FieldEvidence)>,
    ) -> usize {
        let mut lent = 0;
        for &i in borrowers {
            let Some((value, evidence)) = lends(i, &self.runs[i].span) else {
                continue;
            };
            // The runs of the same value: runs are in input order.
            let first = self.runs.partition_point(|run| run.span.end <= value.start);
            let spans = self.runs[first..]
                .iter()
                .take_while(|run| run.span.start < value.end)
                .map(|run| &run.span);
            if only_runs_beyond_ascii(input, &value, earlier.iter().chain(spans)) {
                lent += 1;
                let run = &mut self.runs[i];
                run.repaired = true;
                run.field = Some(evidence);
            }
        }
        lent
    }

    /// Whether `run`, one of these, may borrow a scope's evidence ([`may_borrow`]).
    fn may_borrow(&self, input: &[u8], run: &RecordedRun) -> bool {
        may_borrow(
            input,
            &run.span,
            &self.chars[run.chars.clone()],
            run.verdict,
            run.repaired,
            run.field,
        )
    }

    /// Gives `sink` the runs of the recorded scan of `input`, then its end, as the scan did.
    pub(crate) fn replay<S: Sink>(&self, input: &[u8], sink: &mut S) -> Result<(), S::Error> {
        self.replay_runs(input, sink)?;
        sink.end(input)
    }

    /// Gives `sink` the runs of the recorded scan of `input`, but not its end.
    pub(crate) fn replay_runs<S: Sink>(&self, input: &[u8], sink: &mut S) -> Result<(), S::Error> {
        for run in &self.runs {
            let replayed = Run {
                span: run.span.clone(),
                chars: &self.chars[run.chars.clone()],
                verdict: run.verdict,
                repaired: run.repaired,
                field: run.field,
            };
            sink.run(input, &replayed)?;
        }
        Ok(())
    }
}

impl Sink for RecordedScan {
    type Error = Infallible;

    fn run(&mut self, _: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
        let start = self.chars.len();
        self.chars.extend_from_slice(run.chars);
        self.runs.push(RecordedRun {
            span: run.span.clone(),
            chars: start..self.chars.len(),
            verdict: run.verdict,
            repaired: run.repaired,
            field: run.field,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::{Readings, Strictness};

    /// Writes down every run a sink is given, to compare two sequences of runs.
    #[derive(Default)]
    struct Transcript(Vec<String>);

    impl Sink for Transcript {
        type Error = Infallible;

        fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
            let line = format!(
                "{:?} {:?} {:?} {} {:?}",
                run.span,
                String::from_utf8_lossy(&input[run.span.clone()]),
                run.verdict,
                run.repaired,
                run.chars
            );
            self.0.push(line);
            Ok(())
        }

        fn end(&mut self, input: &[u8]) -> Result<(), Infallible> {
            self.0.push(format!("end of {} bytes", input.len()));
            Ok(())
        }
    }

    #[test]
    fn a_replay_gives_the_sink_what_the_scan_gave_it() {
        let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
        // Repaired runs, and look-alikes left alone (a lone `Ð²` in a field of its own).
        let input = "Ã©tÃ© â€™ ÃƒÂ© Ð¿Ñ€Ð¸ cafÃ©\tÐ²\tÂ©\t'Ã©'\n".repeat(3);
        let mut scanned = Transcript::default();
        let Ok(()) = scanner.scan(input.as_bytes(), &mut scanned);
        let mut replayed = Transcript::default();
        let recorded = RecordedScan::record(&scanner, input.as_bytes());
        let Ok(()) = recorded.replay(input.as_bytes(), &mut replayed);
        assert!(scanned.0.len() > 10, "{:?}", scanned.0);
        assert!(scanned.0.iter().any(|line| line.contains(" false ")));
        assert_eq!(scanned.0, replayed.0);
    }
}
