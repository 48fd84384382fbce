//! `undouble merge PART... [-o FILE]`: the `scan --json` outputs of separate runs merged into
//! the JSON Lines one scan would have printed (`crate::report::merge`).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Outcome;
use super::report::{read, write_page};
use crate::Error;
use crate::report::merge::ScanMerge;
use crate::report::{self, json_line};

#[derive(Args, Clone, Debug)]
pub(crate) struct MergeArgs {
    /// Outputs of `scan --json` (JSON Lines); `-` reads standard input.
    #[arg(required = true, value_name = "PART")]
    parts: Vec<PathBuf>,
    /// The file to write (its directory must exist); standard output by default.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// How many distinct sequences to list per file and in the total, as `scan --top`.
    #[arg(long, default_value_t = report::TOP_SEQUENCES)]
    top: usize,
}

pub(crate) fn run(args: &MergeArgs) -> Outcome {
    let mut merge = ScanMerge::new(args.top);
    for part in &args.parts {
        let name = part.display().to_string();
        let text = match read(part) {
            Ok(text) => text,
            Err(error) => return Outcome::failed(&error),
        };
        if let Err(error) = merge.read(&name, &text) {
            return Outcome::failed(&Error::Usage(format!("{name}: {error}")));
        }
    }
    for short in merge.shortfalls() {
        eprintln!(
            "undouble: warning: {}: the record of {} lists only its most frequent sequences, \
             so the merged lists may miss some of its counts (scan with a larger --top)",
            short.part, short.path
        );
    }
    let records = match merge.records() {
        Ok(records) => records,
        Err(error) => return Outcome::failed(&Error::Usage(error.message)),
    };
    let text: String = records.iter().map(json_line).collect();
    let written = match &args.output {
        Some(path) if path.as_os_str() != "-" => write_page(path, text.as_bytes()),
        _ => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|source| Error::Write {
                    path: "<stdout>".into(),
                    source,
                })
        }
    };
    match written {
        Ok(()) => Outcome::default(),
        Err(error) => {
            let mut outcome = Outcome::default();
            outcome.stop_or_report(&error);
            outcome
        }
    }
}
