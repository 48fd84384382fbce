//! `undouble undo`: restores the files an audit log says `fix` rewrote, under the roots the user
//! names (the current directory by default), or with `--dry-run` lists what it would write.
//! Several logs (of fixes run per file or per machine) are each checked on their own chain and
//! undone one after the other, the last given first, so that a file two runs rewrote comes
//! back through the later run's original to the earlier one's. One
//! line per file: what was restored (or would be) and what was never replaced on standard
//! output, what was refused (and why) on standard error, then why the log does not show the
//! whole run, if it does not. Exit 0 when every file was restored, 2 otherwise.

use std::path::{Path, PathBuf};

use super::Outcome;
use crate::audit::{self, Restored, Roots};

pub(crate) fn run(logs: &[PathBuf], roots: &[PathBuf], dry_run: bool) -> Outcome {
    let mut outcome = Outcome::default();
    for log in logs.iter().rev() {
        let one = run_one(log, roots, dry_run);
        outcome.errors |= one.errors;
    }
    outcome
}

fn run_one(log: &Path, roots: &[PathBuf], dry_run: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let result = Roots::new(roots).and_then(|roots| match dry_run {
        true => audit::check_undo(log, &roots),
        false => audit::undo(log, &roots),
    });
    let report = match result {
        Ok(report) => report,
        Err(error) => {
            eprintln!("undouble: {error}");
            outcome.errors = true;
            return outcome;
        }
    };
    if report.files.is_empty() && report.unfinished.is_none() {
        println!(
            "nothing to undo: {} records no rewritten file",
            log.display()
        );
    }
    let done = if dry_run { "would restore" } else { "restored" };
    for file in &report.files {
        let changes = crate::format::count(file.changes, "change");
        match &file.result {
            Ok(Restored::Replaced(target)) => println!("{done} {} ({changes})", target.display()),
            Ok(Restored::NeverReplaced { at, original }) => println!(
                "never replaced {}: the fix stopped before it replaced this file; it is the \
                 original ({original}, the log's before, {at}), so there is nothing to undo",
                file.path.display()
            ),
            Err(error) => {
                eprintln!("undouble: {error}");
                outcome.errors = true;
            }
        }
    }
    if let Some(unfinished) = &report.unfinished {
        eprintln!("undouble: {unfinished}");
        outcome.errors = true;
    }
    outcome
}
