//! `undouble explain`: how one text was garbled, what the rule made of each run, the repair.

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
    print!("{explanation}");
    Outcome {
        found: explanation.repaired_chars() > 0,
        errors: false,
    }
}
