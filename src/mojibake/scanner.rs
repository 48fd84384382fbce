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

use super::codepage::{Readings, is_lead_byte};
use super::matcher::{
    DoubleEncodedMatch, Prefilter, RepairedChar, decode_char, decode_last_char, match_at,
};
use super::plausibility::{CONTEXT_WINDOW, RunView, Strictness, Verdict, judge, neighbours};

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
}

impl Run<'_> {
    /// Appends the repaired text to `out`.
    pub fn write_replacement(&self, out: &mut Vec<u8>) {
        let mut utf8 = [0u8; 4];
        for c in self.chars {
            out.extend_from_slice(c.original.encode_utf8(&mut utf8).as_bytes());
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
    prefilter: Prefilter,
    strictness: Strictness,
}

/// A run held back until the text after it settles whether it is repaired.
struct Pending {
    span: Range<usize>,
    chars: Vec<RepairedChar>,
    verdict: Verdict,
    decision: Option<bool>,
}

impl Scanner {
    pub fn new(readings: Readings, strictness: Strictness) -> Scanner {
        let prefilter = Prefilter::new(&readings);
        Scanner {
            readings,
            prefilter,
            strictness,
        }
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
    /// feed a file in pieces cut it after a newline wherever they can.
    pub fn scan<S: Sink>(&self, input: &[u8], sink: &mut S) -> Result<(), S::Error> {
        let mut sequences = Vec::new();
        let mut chars = Vec::new();
        let mut held: VecDeque<Pending> = VecDeque::new();
        let mut last_certain_end: Option<usize> = None;
        let mut from = 0;
        while let Some(span) = self.next_run(input, from, &mut sequences) {
            from = span.end;
            let (before, after) = neighbours(input, span.start, span.end);
            let verdict = self.resolve(input, &sequences, (before, after), &mut chars);

            release(&mut held, input, span.start, sink)?;
            let decision = match (self.strictness, verdict) {
                (Strictness::Pattern, _) => Some(true),
                (_, Verdict::Certain(_)) => Some(true),
                (_, Verdict::Rejected(_)) => Some(false),
                (Strictness::Lenient, Verdict::Ambiguous(_)) => Some(true),
                (Strictness::Strict, Verdict::Ambiguous(_)) => Some(false),
                (Strictness::Balanced, Verdict::Ambiguous(_)) => last_certain_end
                    .filter(|&end| near(input, end, span.start))
                    .map(|_| true),
            };
            if let Verdict::Certain(_) = verdict {
                for pending in held.iter_mut().filter(|p| p.decision.is_none()) {
                    if near(input, pending.span.end, span.start) {
                        pending.decision = Some(true);
                    }
                }
                last_certain_end = Some(span.end);
            }
            match decision {
                Some(repaired) if held.is_empty() => {
                    let run = Run {
                        span,
                        chars: &chars,
                        verdict,
                        repaired,
                    };
                    sink.run(input, &run)?;
                }
                _ => held.push_back(Pending {
                    span,
                    chars: chars.clone(),
                    verdict,
                    decision,
                }),
            }
            release(&mut held, input, from, sink)?;
        }
        release(&mut held, input, usize::MAX, sink)?;
        sink.end(input)
    }

    /// Finds the next run at or after `from`, leaving its sequences in `sequences`.
    fn next_run(
        &self,
        input: &[u8],
        mut from: usize,
        sequences: &mut Vec<(usize, DoubleEncodedMatch)>,
    ) -> Option<Range<usize>> {
        sequences.clear();
        loop {
            let start = self.prefilter.find(input, from)?;
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

    /// Fills `chars` with everything the run made of `sequences` repairs to, every inner
    /// layer the rule accepts peeled, and judges the run on that final text.
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
    ) -> Verdict {
        chars.clear();
        chars.extend(sequences.iter().map(|&(at, found)| RepairedChar {
            span: at..at + found.len,
            original: found.original,
            mask: found.mask,
            layers: 1,
        }));
        // Another layer needs a repaired character that stands for a lead byte itself.
        let lead_inside = chars[..chars.len().saturating_sub(1)].iter().any(|c| {
            self.readings
                .origin(c.original)
                .is_some_and(|o| is_lead_byte(o.byte))
        });
        if lead_inside {
            self.peel_inner_layers(chars, context);
        }
        judge(&RunView {
            text,
            sequences,
            repaired: chars,
            before: context.0,
            after: context.1,
        })
    }

    /// Looks for runs inside the one-layer repair `chars`, resolves each (recursively), and
    /// merges those the strictness accepts.
    fn peel_inner_layers(
        &self,
        chars: &mut Vec<RepairedChar>,
        (outer_before, outer_after): (Option<char>, Option<char>),
    ) {
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
        let mut from = 0;
        while let Some(span) = self.next_run(&text, from, &mut sequences) {
            from = span.end;
            let before = match span.start {
                0 => outer_before,
                s => decode_last_char(&text[..s]),
            };
            let after = match span.end == text.len() {
                true => outer_after,
                false => decode_char(&text[span.end..]).map(|(c, _)| c),
            };
            let verdict = self.resolve(&text, &sequences, (before, after), &mut inner_chars);
            // The outer run is the nearby evidence an ambiguous inner run needs: whatever garbled
            // the text once garbled it again.
            let accept = match verdict {
                Verdict::Certain(_) => true,
                Verdict::Ambiguous(_) => self.strictness != Strictness::Strict,
                Verdict::Rejected(_) => self.strictness == Strictness::Pattern,
            };
            if !accept {
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
                });
                copied = last;
            }
        }
        if copied > 0 {
            merged.extend(chars[copied..].iter().cloned());
            *chars = merged;
        }
    }
}

/// True when a certain run ending or starting at `a` lends evidence to a run at `b`: the same
/// field, within the context window. Fields end where [`ends_field`] says, so that in a dump
/// (one line can hold a thousand rows) or a CSV file, evidence never crosses from one value
/// into the next: values are garbled or not one by one, as they were written.
fn near(input: &[u8], a: usize, b: usize) -> bool {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    hi - lo <= CONTEXT_WINDOW && !(lo..hi).any(|at| ends_field(input, at))
}

/// True when the byte at `at` separates two values: a newline, a tab, a double quote; a single
/// quote, unless it is an apostrophe inside a word (`l'été`, `м'ясо`: letters or non-ASCII
/// bytes on both sides; a dump escapes a quote inside a value, `\'` or `''`, so its quotes
/// always have ASCII punctuation beside them); a comma or semicolon glued to what follows, as
/// in a CSV row (`a,b`), unless between two digits (`5,00`): prose puts a space after one.
fn ends_field(input: &[u8], at: usize) -> bool {
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

/// Reports held runs from the front of the queue whose fate is settled, given that the scan has
/// reached `position`: decided runs, and undecided ones no certain run can reach any more.
fn release<S: Sink>(
    held: &mut VecDeque<Pending>,
    input: &[u8],
    position: usize,
    sink: &mut S,
) -> Result<(), S::Error> {
    while let Some(front) = held.front_mut() {
        if front.decision.is_none() {
            let reachable = position != usize::MAX && near(input, front.span.end, position);
            if reachable {
                break;
            }
            front.decision = Some(false);
        }
        let Some(pending) = held.pop_front() else {
            break;
        };
        let run = Run {
            span: pending.span,
            chars: &pending.chars,
            verdict: pending.verdict,
            repaired: pending.decision.unwrap_or(false),
        };
        sink.run(input, &run)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::codepage::Readings;
    use super::super::repair::repair;
    use super::*;

    fn balanced(text: &str) -> String {
        let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
        String::from_utf8_lossy(&repair(&scanner, text.as_bytes())).into_owned()
    }

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
}
