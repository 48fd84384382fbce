//! The command line: argument parsing (`clap`) and one module per command, each a thin layer
//! over the library that maps outcomes to exit codes.
//!
//! Exit codes: `scan`, `explain` and `detect` follow grep (0 nothing found, 1 found, 2 an
//! error, which wins over 1); `detect` adds 3 for a document whose encoding cannot be told,
//! which is not an error of the run (2 wins over it, it wins over 1); `fix` follows `sed` and
//! `iconv` (0 done, whether or not anything was repaired; 1 some input skipped and passed on
//! unchanged; 2 an error).

mod detect;
mod explain;
mod fix;
mod inputs;
mod scan;
mod undo;
mod values;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::Error;
use crate::mojibake::{Readings, Scanner, codepage};
use values::StrictnessArg;

#[derive(Parser)]
#[command(
    name = "undouble",
    version,
    about = "Find, count and repair double-encoded UTF-8"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count double-encoded text in files, directories (or standard input); change nothing.
    Scan(scan::ScanArgs),
    /// Repair double-encoded text: to standard output, to `-o FILE`, in place, or to a mirror
    /// of the input tree.
    Fix(fix::FixArgs),
    /// Show how a text was garbled, what the rule makes of each sequence, and the repair.
    Explain(explain::ExplainArgs),
    /// Tell which encoding documents declare and use, and where the sources disagree.
    Detect(detect::DetectArgs),
    /// Restore every file an audit log says `fix` rewrote to its exact original bytes.
    Undo {
        /// The audit log `fix --audit` wrote.
        audit: PathBuf,
        /// Check that every file can be restored, list what would be written; change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Write only regular files under DIR (repeatable; default: the current directory).
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
    },
}

/// How text is judged: shared by every command that scans.
#[derive(Args, Clone, Debug)]
pub(crate) struct Detection {
    /// How much evidence a sequence needs before it is repaired.
    #[arg(long, value_enum, default_value_t = StrictnessArg::Balanced)]
    strictness: StrictnessArg,
    /// The code pages the text may have been read through, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "latin1,cp1252")]
    readings: Vec<String>,
}

impl Detection {
    pub(crate) fn scanner(&self) -> Result<Scanner, Error> {
        let mut pages = Vec::new();
        for name in &self.readings {
            let page = codepage::by_name(name).ok_or_else(|| {
                Error::Usage(format!("unknown reading '{name}' (known: latin1, cp1252)"))
            })?;
            pages.push(page);
        }
        let readings = Readings::new(&pages).map_err(|e| Error::Usage(e.to_string()))?;
        Ok(Scanner::new(readings, self.strictness.into()))
    }
}

/// What a command found, for the exit code.
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) found: bool,
    pub(crate) errors: bool,
    /// How many errors were told (the JSON totals of `scan` count them).
    pub(crate) error_count: u64,
    /// The output pipe was closed by its reader (`fix big | head`): the run ended there.
    pub(crate) output_closed: bool,
    /// Some input's encoding could not be told (`detect`'s `no-charset`).
    pub(crate) undetermined: bool,
}

impl Outcome {
    fn exit_code(&self) -> ExitCode {
        match (self.errors, self.output_closed, self.found) {
            (true, _, _) => ExitCode::from(2),
            // As ripgrep does: the reader stopped reading, which is its business, and its own
            // status tells a pipeline whether that went well.
            (false, true, _) => ExitCode::SUCCESS,
            (false, false, _) if self.undetermined => ExitCode::from(3),
            (false, false, true) => ExitCode::from(1),
            (false, false, false) => ExitCode::SUCCESS,
        }
    }

    /// Takes note of an error that ends a run: a closed output pipe quietly (true: stop the
    /// run), anything else said on standard error (false: go on with the other inputs).
    pub(crate) fn stop_or_report(&mut self, error: &Error) -> bool {
        if error.is_closed_output() {
            self.output_closed = true;
            return true;
        }
        self.error(error);
        false
    }

    /// The outcome of a command that could not start.
    pub(crate) fn failed(error: &Error) -> Outcome {
        let mut outcome = Outcome::default();
        outcome.error(error);
        outcome
    }

    pub(crate) fn error(&mut self, error: &Error) {
        eprintln!("undouble: {error}");
        self.errors = true;
        self.error_count += 1;
    }
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Scan(args) => scan::run(&args),
        Command::Fix(args) => fix::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Detect(args) => detect::run(&args),
        Command::Undo {
            audit,
            dry_run,
            roots,
        } => undo::run(&audit, &roots, dry_run),
    };
    outcome.exit_code()
}
