//! `undouble explain`: how one text was garbled, what the rule made of each run, the repair.

use std::io::Write;

use clap::Args;

use super::{Detection, Outcome};
use crate::mojibake::explain;

#[derive(Args, Clone, Debug)]
pub(crate) struct ExplainArgs {
    /// The text to explain (several arguments are joined by spaces).
    #[arg(required = true)]
    text: Vec<String>,
    #[command(flatten)]
    detection: Detection,
}

pub(crate) fn run(args: &ExplainArgs) -> Outcome {
    let scanner = match args.detection.scanner() {
        Ok(scanner) => scanner,
        Err(error) => return Outcome::failed(&error),
    };
    let explanation = explain::explain(&scanner, args.text.join(" ").as_bytes());
    let mut outcome = Outcome {
        found: explanation.repaired_chars() > 0,
        ..Outcome::default()
    };
    let written = write!(std::io::stdout().lock(), "{explanation}");
    if let Err(source) = written {
        let path = "<stdout>".into();
        outcome.stop_or_report(&crate::Error::Write { path, source });
    }
    outcome
}
