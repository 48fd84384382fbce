//! The JSON Lines of `explain --json`: one `run` record per run found, in the order of the
//! text, then one `summary` record for the whole text; what the text of `explain` shows, for
//! a program (documented in `docs/json.md`).

use serde::{Deserialize, Serialize};

use super::hex;
use crate::mojibake::Verdict;
use crate::mojibake::explain::{ExplainedChar, ExplainedRun, Explanation};

/// An `explain --json` record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ExplainRecord {
    Run(RunRecord),
    Summary(ExplainSummary),
}

/// What the plausibility rule concluded about a run's outer layer ([`Verdict`], without its
/// evidence, which [`RunRecord::evidence`] tells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleVerdict {
    /// Garbled beyond doubt: repaired at every strictness.
    Certain,
    /// Could be either: repaired or not by the strictness and the run's field.
    Ambiguous,
    /// Correct text that only looks garbled: never repaired (but with `--strictness pattern`).
    Rejected,
}

impl From<Verdict> for RuleVerdict {
    fn from(verdict: Verdict) -> RuleVerdict {
        match verdict {
            Verdict::Certain(_) => RuleVerdict::Certain,
            Verdict::Ambiguous(_) => RuleVerdict::Ambiguous,
            Verdict::Rejected(_) => RuleVerdict::Rejected,
        }
    }
}

/// One run found in the text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Where it starts, in bytes from the start of the text.
    pub offset: u64,
    /// The garbled text as found.
    pub mojibake: String,
    /// Its bytes, in hexadecimal.
    pub mojibake_hex: String,
    /// What it repairs to, or would if it were repaired.
    pub candidate: String,
    /// That text's UTF-8 bytes, in hexadecimal.
    pub candidate_hex: String,
    /// Whether it is repaired, after strictness and context.
    pub repaired: bool,
    pub verdict: RuleVerdict,
    /// The evidence the verdict rests on, for a person.
    pub evidence: String,
    /// What the run's field decided, where the run could not decide alone; `null` otherwise.
    pub field: Option<String>,
    /// How many times it was garbled (the most of its characters).
    pub layers: u8,
    /// Its characters, in order.
    pub chars: Vec<CharRecord>,
}

/// One character of a [`RunRecord`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharRecord {
    /// Its garbled text.
    pub mojibake: String,
    pub mojibake_hex: String,
    /// The character it stands for.
    pub character: String,
    /// That character's UTF-8 bytes, in hexadecimal.
    pub character_hex: String,
    /// Its code point, `U+00E9`.
    pub code_point: String,
    /// The code page that garbled it: `latin1`, `cp1252`, `either` or `mixed`.
    pub reading: String,
    pub layers: u8,
}

/// The whole text: last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExplainSummary {
    /// The text as given (bytes that are not UTF-8 shown as U+FFFD).
    pub input: String,
    /// Its bytes, in hexadecimal.
    pub input_hex: String,
    /// The repaired text.
    pub output: String,
    pub output_hex: String,
    /// Runs found.
    pub runs: u64,
    /// Of those, the runs repaired.
    pub repaired_runs: u64,
    /// Characters repaired.
    pub repaired_chars: u64,
}

impl RunRecord {
    fn new(run: &ExplainedRun) -> RunRecord {
        let candidate = run.candidate();
        RunRecord {
            offset: u64::try_from(run.offset).unwrap_or(u64::MAX),
            mojibake: String::from_utf8_lossy(&run.garbled).into_owned(),
            mojibake_hex: hex(&run.garbled, ""),
            candidate_hex: hex(candidate.as_bytes(), ""),
            candidate,
            repaired: run.repaired,
            verdict: run.verdict.into(),
            evidence: run.verdict.evidence().to_string(),
            field: run.field.map(|field| field.to_string()),
            layers: run.layers(),
            chars: run.chars.iter().map(CharRecord::new).collect(),
        }
    }
}

impl CharRecord {
    fn new(c: &ExplainedChar) -> CharRecord {
        let mut utf8 = [0u8; 4];
        let character = c.original.encode_utf8(&mut utf8);
        CharRecord {
            mojibake: String::from_utf8_lossy(&c.garbled).into_owned(),
            mojibake_hex: hex(&c.garbled, ""),
            character_hex: hex(character.as_bytes(), ""),
            character: character.to_owned(),
            code_point: format!("U+{:04X}", u32::from(c.original)),
            reading: c.reading.to_owned(),
            layers: c.layers,
        }
    }
}

/// The records of `explanation`, in the order they are printed: its runs, then the summary.
pub fn explain_records(explanation: &Explanation) -> Vec<ExplainRecord> {
    let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    let summary = ExplainSummary {
        input: String::from_utf8_lossy(&explanation.input).into_owned(),
        input_hex: hex(&explanation.input, ""),
        output: String::from_utf8_lossy(&explanation.output).into_owned(),
        output_hex: hex(&explanation.output, ""),
        runs: count(explanation.runs.len()),
        repaired_runs: count(explanation.runs.iter().filter(|r| r.repaired).count()),
        repaired_chars: count(explanation.repaired_chars()),
    };
    let runs = explanation.runs.iter().map(RunRecord::new);
    runs.map(ExplainRecord::Run)
        .chain([ExplainRecord::Summary(summary)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::explain::explain;
    use crate::mojibake::{Readings, Scanner, Strictness};

    #[test]
    fn a_run_carries_its_repair_verdict_and_characters() {
        let scanner = Scanner::new(Readings::western(), Strictness::default());
        let records = explain_records(&explain(&scanner, "CafÃ© au lait".as_bytes()));
        let [ExplainRecord::Run(run), ExplainRecord::Summary(summary)] = records.as_slice() else {
            panic!("one run, then the summary: {records:?}");
        };
        assert_eq!(run.offset, 3);
        assert_eq!((run.mojibake.as_str(), run.candidate.as_str()), ("Ã©", "é"));
        assert_eq!(run.mojibake_hex, "c383c2a9");
        assert!(run.repaired);
        assert_eq!(run.verdict, RuleVerdict::Certain);
        assert_eq!(run.chars.len(), 1);
        assert_eq!(run.chars[0].code_point, "U+00E9");
        assert_eq!(summary.output, "Café au lait");
        assert_eq!((summary.runs, summary.repaired_chars), (1, 1));
    }
}
