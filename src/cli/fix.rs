//! `undouble fix`: repairs inputs to standard output, to a file, or in place.

use std::io;
use std::path::{Path, PathBuf};

use super::{Outcome, inputs};
use crate::Error;
use crate::engine::{self, Input};
use crate::mojibake::{Counts, Scanner};
use crate::report;

fn tell(quiet: bool, scanner: &Scanner, name: &str, counts: &Counts, what: &str) {
    if !quiet {
        let readings = scanner.readings();
        eprint!("{what}{}", report::counts_text(readings, name, counts, 5));
    }
}

pub(crate) fn run(
    paths: &[PathBuf],
    output: Option<&Path>,
    in_place: bool,
    quiet: bool,
    scanner: &Scanner,
) -> Outcome {
    let mut outcome = Outcome::default();
    let inputs = inputs(paths);
    if in_place {
        for input in &inputs {
            let Input::File(path) = input else {
                outcome.error(&Error::Usage(
                    "--in-place needs files, not standard input".into(),
                ));
                continue;
            };
            let name = path.display().to_string();
            match engine::fix_in_place(scanner, path) {
                Ok((counts, replaced)) => {
                    outcome.found |= replaced;
                    let what = if replaced { "rewrote " } else { "unchanged " };
                    tell(quiet, scanner, &name, &counts, what);
                }
                Err(error) => outcome.error(&error),
            }
        }
        return outcome;
    }
    if inputs.len() > 1 {
        outcome.error(&Error::Usage(
            "several inputs need --in-place (one output cannot hold them apart)".into(),
        ));
        return outcome;
    }
    for input in &inputs {
        let name = input.display_path().display().to_string();
        let result = match output {
            Some(path) => std::fs::File::create(path)
                .map_err(|source| Error::Write {
                    path: path.to_path_buf(),
                    source,
                })
                .and_then(|file| {
                    let out = io::BufWriter::with_capacity(1 << 20, file);
                    engine::fix_input(scanner, input, out, path)
                }),
            None => {
                let out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
                engine::fix_input(scanner, input, out, Path::new("<stdout>"))
            }
        };
        match result {
            Ok(counts) => {
                outcome.found |= counts.double_encoded > 0;
                tell(quiet, scanner, &name, &counts, "");
            }
            Err(error) => outcome.error(&error),
        }
    }
    outcome
}
