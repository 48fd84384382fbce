//! `undouble undo`: restores the files an audit log says `fix` rewrote, or with `--dry-run`
//! checks that it could. One line per file: what was restored on standard output, what was
//! refused (and why) on standard error. Exit 0 when every file was restored, 2 otherwise.

use std::path::Path;

use super::Outcome;
use crate::audit;

pub(crate) fn run(log: &Path, dry_run: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let result = if dry_run {
        audit::check_undo(log)
    } else {
        audit::undo(log)
    };
    let report = match result {
        Ok(report) => report,
        Err(error) => {
            eprintln!("undouble: {error}");
            outcome.errors = true;
            return outcome;
        }
    };
    if report.files.is_empty() {
        println!(
            "nothing to undo: {} records no rewritten file",
            log.display()
        );
    }
    let done = if dry_run { "can restore" } else { "restored" };
    for file in &report.files {
        match &file.result {
            Ok(()) => println!(
                "{done} {} ({} change{})",
                file.path.display(),
                file.changes,
                if file.changes == 1 { "" } else { "s" }
            ),
            Err(error) => {
                eprintln!("undouble: {error}");
                outcome.errors = true;
            }
        }
    }
    outcome
}
