//! The `explain` sink: every run found in a short text, how it was garbled, what the rule made
//! of it and what it repairs to — the steps behind a repair, in the spirit of ftfy's
//! `explain_unicode`.

use std::fmt::{self, Write as _};

use super::field::FieldEvidence;
use super::plausibility::Verdict;
use super::repair::repair;
use super::scanner::{Run, Scanner, Sink};
use crate::format::{count, hex, visible, visible_bytes};

/// One run as `explain` shows it.
#[derive(Clone, Debug)]
pub struct ExplainedRun {
    /// Where it starts, in bytes from the start of the text.
    pub offset: usize,
    /// Its bytes as found.
    pub garbled: Vec<u8>,
    /// What the plausibility rule concluded about its outer layer, and why.
    pub verdict: Verdict,
    /// Whether it is repaired, after strictness and context.
    pub repaired: bool,
    /// What its field decided, where the run could not decide alone.
    pub field: Option<FieldEvidence>,
    /// What it repairs to (or would, if it is left alone), character by character.
    pub chars: Vec<ExplainedChar>,
}

impl ExplainedRun {
    /// How many times the run was garbled: the most layers of any of its characters.
    pub fn layers(&self) -> u8 {
        self.chars.iter().map(|c| c.layers).max().unwrap_or(1)
    }

    /// The text the run repairs to (or would, if it is left alone).
    pub fn candidate(&self) -> String {
        self.chars.iter().map(|c| c.original).collect()
    }
}

/// One character of an [`ExplainedRun`].
#[derive(Clone, Debug)]
pub struct ExplainedChar {
    /// Its garbled bytes.
    pub garbled: Vec<u8>,
    /// The character they stand for.
    pub original: char,
    /// The code page that garbled it (`latin1`, `cp1252`, `either`, `mixed`).
    pub reading: &'static str,
    /// How many times it was garbled.
    pub layers: u8,
}

/// Everything `explain` shows about one text.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub input: Vec<u8>,
    pub runs: Vec<ExplainedRun>,
    pub output: Vec<u8>,
}

struct Collect<'s> {
    scanner: &'s Scanner,
    runs: Vec<ExplainedRun>,
}

impl Sink for Collect<'_> {
    type Error = std::convert::Infallible;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Self::Error> {
        let readings = self.scanner.readings();
        self.runs.push(ExplainedRun {
            offset: run.span.start,
            garbled: input[run.span.clone()].to_vec(),
            verdict: run.verdict,
            repaired: run.repaired,
            field: run.field,
            chars: run
                .chars
                .iter()
                .map(|c| ExplainedChar {
                    garbled: input[c.span.clone()].to_vec(),
                    original: c.original,
                    reading: readings.reading_name(c.mask),
                    layers: c.layers,
                })
                .collect(),
        });
        Ok(())
    }
}

/// Explains how `input` is garbled and how it is repaired.
pub fn explain(scanner: &Scanner, input: &[u8]) -> Explanation {
    let mut collect = Collect {
        scanner,
        runs: Vec::new(),
    };
    let Ok(()) = scanner.scan(input, &mut collect);
    Explanation {
        input: input.to_vec(),
        runs: collect.runs,
        output: repair(scanner, input).into_owned(),
    }
}

impl Explanation {
    /// Characters repaired.
    pub fn repaired_chars(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.repaired)
            .map(|r| r.chars.len())
            .sum()
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "input:  {}", visible_bytes(&self.input))?;
        writeln!(f, "bytes:  {}", hex(&self.input, " "))?;
        if self.runs.is_empty() {
            writeln!(f, "no double-encoded sequence found")?;
        }
        for run in &self.runs {
            let mut line = String::new();
            let _ = write!(
                line,
                "run at byte {}: {} ({}) — {}, {}",
                run.offset,
                visible_bytes(&run.garbled),
                hex(&run.garbled, " "),
                run.verdict,
                if run.repaired {
                    "repaired"
                } else {
                    "left alone"
                }
            );
            writeln!(f, "{line}")?;
            if let Some(field) = &run.field {
                writeln!(f, "    field: {field}")?;
            }
            for c in &run.chars {
                // Bytes that are not UTF-8 and stay: the run's line said all there is.
                if c.layers == 0 && !run.repaired {
                    continue;
                }
                let how = match c.layers {
                    0 => format!("a {} character, not UTF-8", c.reading),
                    layers => format!(
                        "{} reading, {}",
                        c.reading,
                        count(u64::from(layers), "layer")
                    ),
                };
                let mut utf8 = [0u8; 4];
                writeln!(
                    f,
                    "    {} ({}) → {} (U+{:04X}, {}), {how}",
                    visible_bytes(&c.garbled),
                    hex(&c.garbled, " "),
                    visible(c.original.encode_utf8(&mut [0; 4])),
                    u32::from(c.original),
                    hex(c.original.encode_utf8(&mut utf8).as_bytes(), " "),
                )?;
            }
        }
        writeln!(f, "output: {}", visible_bytes(&self.output))
    }
}
