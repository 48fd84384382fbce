//! `undouble scan`: counts double-encoded text per input and in total; changes nothing.

use std::io::{self, Write};
use std::path::PathBuf;

use super::{Outcome, inputs};
use crate::engine;
use crate::mojibake::{Counts, Scanner};
use crate::report;

pub(crate) fn run(paths: &[PathBuf], json: bool, top: usize, scanner: &Scanner) -> Outcome {
    let mut outcome = Outcome::default();
    let mut total = Counts::default();
    let mut files = 0u64;
    let readings = scanner.readings();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for input in inputs(paths) {
        let name = input.display_path().display().to_string();
        match engine::scan_input(scanner, &input) {
            Ok(counts) => {
                files += 1;
                outcome.found |= counts.double_encoded > 0;
                let line = if json {
                    let body = report::counts_json(readings, &counts, top);
                    format!("{}\n", report::record("file", Some(&name), body))
                } else {
                    report::counts_text(readings, &name, &counts, top)
                };
                let _ = out.write_all(line.as_bytes());
                total.merge(counts);
            }
            Err(error) => {
                if json {
                    let body = serde_json::json!({ "message": error.to_string() });
                    let _ = writeln!(out, "{}", report::record("error", Some(&name), body));
                }
                outcome.error(&error);
            }
        }
    }
    let line = if json {
        let mut body = report::counts_json(readings, &total, top);
        body["files"] = files.into();
        format!("{}\n", report::record("total", None, body))
    } else if files > 1 {
        report::counts_text(readings, &format!("total ({files} files)"), &total, top)
    } else {
        String::new()
    };
    let _ = out.write_all(line.as_bytes());
    outcome
}
