//! The command line: argument parsing (`clap`) and one module per command, each a thin layer
//! over the library that maps outcomes to exit codes.
//!
//! Exit codes follow grep: 0 nothing found, 1 double encoding found (or, for `fix`, repaired),
//! 2 an error (which wins over 1).

mod fix;
mod scan;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::Error;
use crate::engine::Input;
use crate::mojibake::{Readings, Scanner, Strictness, codepage, explain};
use crate::report;

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
    /// Count double-encoded text in files (or standard input); change nothing.
    Scan {
        /// Files to scan; none, or `-`, reads standard input.
        paths: Vec<PathBuf>,
        /// One JSON object per file and one for the totals (JSON Lines).
        #[arg(long)]
        json: bool,
        /// How many distinct sequences to list per file.
        #[arg(long, default_value_t = report::TOP_SEQUENCES)]
        top: usize,
        #[command(flatten)]
        detection: Detection,
    },
    /// Repair double-encoded text: to standard output, to `-o FILE`, or in place.
    Fix {
        /// Files to repair; none, or `-`, reads standard input.
        paths: Vec<PathBuf>,
        /// Write the repaired text here (one input only).
        #[arg(short, long, conflicts_with = "in_place")]
        output: Option<PathBuf>,
        /// Replace each file by its repaired version (atomically, only when something changed).
        #[arg(long)]
        in_place: bool,
        /// Say nothing on standard error.
        #[arg(short, long)]
        quiet: bool,
        #[command(flatten)]
        detection: Detection,
    },
    /// Show how a text was garbled, what the rule makes of each sequence, and the repair.
    Explain {
        /// The text to explain (several arguments are joined by spaces).
        #[arg(required = true)]
        text: Vec<String>,
        #[command(flatten)]
        detection: Detection,
    },
}

#[derive(Args)]
struct Detection {
    /// How much evidence a sequence needs before it is repaired.
    #[arg(long, value_enum, default_value_t = Strictness::Balanced)]
    strictness: Strictness,
    /// The code pages the text may have been read through, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "latin1,cp1252")]
    readings: Vec<String>,
}

impl Detection {
    fn scanner(&self) -> Result<Scanner, Error> {
        let mut pages = Vec::new();
        for name in &self.readings {
            let page = codepage::by_name(name).ok_or_else(|| {
                Error::Usage(format!("unknown reading '{name}' (known: latin1, cp1252)"))
            })?;
            pages.push(page);
        }
        let readings = Readings::new(&pages).map_err(|e| Error::Usage(e.to_string()))?;
        Ok(Scanner::new(readings, self.strictness))
    }
}

pub(crate) fn inputs(paths: &[PathBuf]) -> Vec<Input> {
    if paths.is_empty() {
        vec![Input::Stdin]
    } else {
        paths.iter().map(|p| Input::from_arg(p)).collect()
    }
}

/// What a command found, for the exit code.
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) found: bool,
    pub(crate) errors: bool,
}

impl Outcome {
    fn exit_code(&self) -> ExitCode {
        match (self.errors, self.found) {
            (true, _) => ExitCode::from(2),
            (false, true) => ExitCode::from(1),
            (false, false) => ExitCode::SUCCESS,
        }
    }

    pub(crate) fn error(&mut self, error: &Error) {
        eprintln!("undouble: {error}");
        self.errors = true;
    }
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let detection = match &cli.command {
        Command::Scan { detection, .. }
        | Command::Fix { detection, .. }
        | Command::Explain { detection, .. } => detection,
    };
    let scanner = match detection.scanner() {
        Ok(scanner) => scanner,
        Err(error) => {
            let mut outcome = Outcome::default();
            outcome.error(&error);
            return outcome.exit_code();
        }
    };
    let outcome = match &cli.command {
        Command::Scan {
            paths, json, top, ..
        } => scan::run(paths, *json, *top, &scanner),
        Command::Fix {
            paths,
            output,
            in_place,
            quiet,
            ..
        } => fix::run(paths, output.as_deref(), *in_place, *quiet, &scanner),
        Command::Explain { text, .. } => {
            let explanation = explain::explain(&scanner, text.join(" ").as_bytes());
            print!("{explanation}");
            Outcome {
                found: explanation.repaired_chars() > 0,
                errors: false,
            }
        }
    };
    outcome.exit_code()
}
