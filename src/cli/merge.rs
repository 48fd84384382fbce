//! `undouble merge PART... [-o FILE]`: the `scan --json` outputs of separate runs merged into
//! the JSON Lines one scan would have printed (`crate::report::merge`).
//!
//! `undouble merge --audit FILE [--root DIR]... LOG...`: audit logs combined into one that
//! `undo` reads (`crate::audit::combine`); the parts of a file fixed in ranges are joined over
//! it. One line per file on standard output, refusals on standard error.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Outcome;
use super::report::{read, write_page};
use crate::Error;
use crate::audit::{self, Combined, Roots};
use crate::report::merge::ScanMerge;
use crate::report::{self, json_line};

#[derive(Args, Clone, Debug)]
pub(crate) struct MergeArgs {
    /// Outputs of `scan --json` (JSON Lines); `-` reads standard input. With `--audit`, the
    /// audit logs of `fix --audit` (of ranges, or of whole files).
    #[arg(required = true, value_name = "PART")]
    parts: Vec<PathBuf>,
    /// The file to write (its directory must exist); standard output by default.
    #[arg(short, long, value_name = "FILE", conflicts_with = "audit")]
    output: Option<PathBuf>,
    /// How many distinct sequences to list per file and in the total, as `scan --top`.
    #[arg(long, default_value_t = report::TOP_SEQUENCES)]
    top: usize,
    /// Combine the audit logs PART... into one new log at FILE, which `undo` reads: the parts
    /// of a file that `fix --range --audit` wrote are checked and joined over the file, and
    /// the records of whole files carried over.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// With `--audit`: read and replace only regular files under DIR (repeatable; default: the
    /// current directory). The files the logs name and their parts must lie under one.
    #[arg(long = "root", value_name = "DIR", requires = "audit")]
    roots: Vec<PathBuf>,
}

pub(crate) fn run(args: &MergeArgs) -> Outcome {
    if let Some(log) = &args.audit {
        return combine_logs(&args.parts, log, &args.roots);
    }
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

/// `merge --audit`: the logs `parts` combined into `log`, under `roots`.
fn combine_logs(parts: &[PathBuf], log: &Path, roots: &[PathBuf]) -> Outcome {
    let mut outcome = Outcome::default();
    let report =
        Roots::new(roots).and_then(|roots| audit::combine(parts, log, &roots, std::env::args()));
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            eprintln!("undouble: {error}");
            outcome.errors = true;
            return outcome;
        }
    };
    for file in &report.files {
        let changes = crate::format::count(file.changes, "change");
        let parts = crate::format::count(file.parts as u64, "part");
        match &file.result {
            Ok(Combined::Joined(target)) => {
                println!("joined {parts} over {} ({changes})", target.display());
            }
            Ok(Combined::Unchanged) => println!(
                "unchanged {}: its {parts} are the file as it is (nothing repaired)",
                file.path.display()
            ),
            Ok(Combined::Carried) => {
                println!("carried {} ({changes})", file.path.display());
            }
            Err(error) => {
                eprintln!("undouble: {error}");
                outcome.errors = true;
            }
        }
    }
    println!("wrote {}", log.display());
    outcome
}
