//! The `undouble` command: parses arguments, calls the library, maps outcomes to exit codes.
//!
//! Exit codes follow grep: 0 nothing found, 1 double encoding found (or, for `fix`, repaired),
//! 2 an error (which wins over 1).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use undouble::Error;
use undouble::engine::{self, Input};
use undouble::mojibake::{Counts, Readings, Scanner, Strictness, codepage, explain};
use undouble::report;

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

fn inputs(paths: &[PathBuf]) -> Vec<Input> {
    if paths.is_empty() {
        vec![Input::Stdin]
    } else {
        paths.iter().map(|p| Input::from_arg(p)).collect()
    }
}

/// What a command found, for the exit code.
#[derive(Default)]
struct Outcome {
    found: bool,
    errors: bool,
}

impl Outcome {
    fn exit_code(&self) -> ExitCode {
        match (self.errors, self.found) {
            (true, _) => ExitCode::from(2),
            (false, true) => ExitCode::from(1),
            (false, false) => ExitCode::SUCCESS,
        }
    }

    fn error(&mut self, error: &Error) {
        eprintln!("undouble: {error}");
        self.errors = true;
    }
}

fn scan(paths: &[PathBuf], json: bool, top: usize, scanner: &Scanner) -> Outcome {
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

fn tell(quiet: bool, scanner: &Scanner, name: &str, counts: &Counts, what: &str) {
    if !quiet {
        let readings = scanner.readings();
        eprint!("{what}{}", report::counts_text(readings, name, counts, 5));
    }
}

fn fix(
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

fn main() -> ExitCode {
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
        } => scan(paths, *json, *top, &scanner),
        Command::Fix {
            paths,
            output,
            in_place,
            quiet,
            ..
        } => fix(paths, output.as_deref(), *in_place, *quiet, &scanner),
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
