//! The command line: argument parsing (`clap`) and one module per command, each a thin layer
//! over the library that maps outcomes to exit codes.
//!
//! Exit codes: `scan`, `explain` and `detect` follow grep (0 nothing found, 1 found, 2 an
//! error, which wins over 1); `detect` adds 3 for a document whose encoding cannot be told,
//! which is not an error of the run (2 wins over it, it wins over 1); `fix` follows `sed` and
//! `iconv` (0 done, whether or not anything was repaired; 1 some input skipped and passed on
//! unchanged; 2 an error). Each command's `--help` ends with its own codes, and examples.

mod color;
mod detect;
mod explain;
mod fix;
mod inputs;
mod learn;
mod manual;
mod merge;
mod report;
mod report_text;
mod scan;
mod undo;
mod values;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::Error;
use crate::api::Settings;
use crate::mojibake::{RawBytes, Readings, Scanner, codepage};
use values::{ColorArg, LostBytesArg, StrictnessArg};

/// The examples and exit codes at the end of `--help`, one constant per command: the man page
/// shows the same text, since both are made from this one definition.
const MAIN_HELP: &str = "\
Examples:
  Count what is double-encoded in a dump, change nothing:
    undouble scan dump.sql
  Write a repaired copy:
    undouble fix dump.sql -o fixed.sql
  Show how a text was garbled, and its repair:
    undouble explain 'CafÃ©'
  Tell which encoding a document declares and uses:
    undouble detect page.html
  Hand on an HTML report:
    undouble scan --json dump.sql > scan.jsonl
    undouble report scan.jsonl -o report.html

Exit codes: scan, explain and detect exit as grep does (0 nothing found,
1 found, 2 an error); fix exits 0 when done, 1 when some input was skipped,
2 on an error. Each command's --help says more.";

const SCAN_HELP: &str = "\
Examples:
  One file; a tree, HTML files only; standard input:
    undouble scan notes.txt
    undouble scan --glob '*.html' site/
    mariadb-dump shop | undouble scan
  One JSON object per file, then the totals (for `undouble report`):
    undouble scan --json dump.sql > scan.jsonl

Exit codes:
  0  no double-encoded text found
  1  double-encoded text found
  2  an error (a file could not be read, a bad option); wins over 1";

const FIX_HELP: &str = "\
Examples:
  To standard output; to a file:
    undouble fix notes.txt > fixed.txt
    undouble fix dump.sql -o fixed.sql
  A MySQL or MariaDB dump whose text columns are stored as latin1:
    undouble fix --convert-charset utf8mb4 dump.sql -o fixed.sql
  In place, with a log that `undouble undo` restores from:
    undouble fix --in-place --audit fix.jsonl site/
  Say what would change, write nothing:
    undouble fix --dry-run site/

Exit codes:
  0  done, whether or not anything was repaired
  1  some input was skipped and passed on unchanged
  2  an error";

const EXPLAIN_HELP: &str = "\
Examples:
  undouble explain 'CafÃ© au lait'
  The exact bytes of standard input (a final line break is dropped):
    printf 'Caf\\xc3\\x83\\xc2\\xa9\\n' | undouble explain -

Exit codes:
  0  nothing to repair
  1  something repaired
  2  an error";

const LEARN_HELP: &str = "\
Examples:
  Which recodings garbled a text, and the fix that undoes them:
    undouble learn 'Ð¿Ñ€Ð¸Ð²ÐµÑ‚' 'привет'
  A sample that is not UTF-8, from files:
    undouble learn --from-files garbled.txt correct.txt
  One JSON object:
    undouble learn --json 'CafÃƒÂ©' 'Café'

Exit codes:
  0  a chain of layers explains the sample (or the texts are equal)
  1  no chain of up to --max-layers layers explains it
  2  an error";

const DETECT_HELP: &str = "\
Examples:
  undouble detect page.html
  undouble detect --content-type 'text/html; charset=utf-8' page.html
  curl -si https://example.org/ | undouble detect --http
  undouble detect --json site/

Exit codes:
  0  every input determined, nothing to say about it
  1  every input answered, some with a conflict or a notice (a guess, ASCII)
  3  the encoding of some input cannot be told (no-charset); wins over 1
  2  an error; wins over 3";

const UNDO_HELP: &str = "\
Examples:
  Check that every file can be restored, write nothing:
    undouble undo --dry-run fix.jsonl
  Restore the files under the current directory; under /srv/www:
    undouble undo fix.jsonl
    undouble undo --root /srv/www fix.jsonl
  The logs of fixes run per file or per machine, in the order they ran:
    undouble undo a.jsonl b.jsonl

Exit codes:
  0  every file restored (or, with --dry-run, restorable)
  2  some file not restored, or an error";

const REPORT_HELP: &str = "\
Examples:
  undouble scan --json dump.sql > scan.jsonl
  undouble report scan.jsonl -o report.html
  Several scans and the audit log of a fix, on one page:
    undouble report day1.jsonl day2.jsonl fix.jsonl -o report.html

Exit codes:
  0  the page was written
  2  an error (an input could not be read, a line is not a record)";

const MERGE_HELP: &str = "\
Examples:
  Scan two machines' halves with whole sequence lists, then merge:
    undouble scan --json --top 1000000 /srv/a > a.jsonl
    undouble scan --json --top 1000000 /srv/b > b.jsonl
    undouble merge a.jsonl b.jsonl -o scan.jsonl
  Fix a big file in four ranges with audit logs, then join the parts over it with one log
  that undo reads (the parts under /work, the file under /srv):
    undouble fix --range 0-1000000000 --audit /work/p0.log -o /work/p0 /srv/big.sql
    ...
    undouble merge --audit /srv/fix.log --root /srv --root /work /work/p*.log
    undouble undo --root /srv /srv/fix.log

Exit codes:
  0  merged (with --audit: every file combined)
  2  an error (an input could not be read, a line is not a record, an input in two parts;
     with --audit: a log refused, a file not joined)";

const GENERATED_HELP: &str = "\
Examples:
  undouble man | man -l -
  undouble man > ~/.local/share/man/man1/undouble.1

Exit codes:
  0  written to standard output
  2  an error";

#[derive(Parser)]
#[command(
    name = "undouble",
    version,
    about = "Find, count and repair double-encoded UTF-8",
    after_help = MAIN_HELP
)]
struct Cli {
    /// When to color the output: `auto` colors a terminal unless `NO_COLOR` is set.
    #[arg(long, value_enum, global = true, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count double-encoded text in files, directories (or standard input); change nothing.
    #[command(after_help = SCAN_HELP)]
    Scan(scan::ScanArgs),
    /// Repair double-encoded text: to standard output, to `-o FILE`, in place, or to a mirror
    /// of the input tree.
    #[command(after_help = FIX_HELP)]
    Fix(fix::FixArgs),
    /// Show how a text was garbled, what undouble makes of each sequence, and the repair.
    #[command(after_help = EXPLAIN_HELP)]
    Explain(explain::ExplainArgs),
    /// Find the recodings that turned a correct text into a garbled sample, and the `fix`
    /// options that undo them.
    #[command(after_help = LEARN_HELP)]
    Learn(learn::LearnArgs),
    /// Tell which encoding documents declare and use, and where the sources disagree.
    #[command(after_help = DETECT_HELP)]
    Detect(detect::DetectArgs),
    /// Write one HTML page from `scan --json` output and audit logs: tables, charts, the
    /// commands that made them.
    #[command(after_help = REPORT_HELP)]
    Report(report::ReportArgs),
    /// Merge the `scan --json` outputs of separate runs (other files, other machines) into
    /// the JSON Lines one scan of all their inputs would have printed; with `--audit`, audit
    /// logs into one that `undo` reads.
    #[command(after_help = MERGE_HELP)]
    Merge(merge::MergeArgs),
    /// Print the completion script of a shell on standard output.
    #[command(after_help = manual::COMPLETIONS_HELP)]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on standard output: `undouble man | man -l -`.
    #[command(after_help = GENERATED_HELP)]
    Man,
    /// Restore every file an audit log says `fix` rewrote to its exact original bytes.
    #[command(after_help = UNDO_HELP)]
    Undo {
        /// The audit logs `fix --audit` wrote, in the order the fixes ran (undone last first).
        #[arg(required = true, value_name = "AUDIT")]
        audit: Vec<PathBuf>,
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
    /// The code pages the text may have been read through, comma-separated, or `auto` (the
    /// default): each buffer is read through the Western pair (latin1 and cp1252) or the one
    /// other page that repairs more of it.
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    readings: Vec<String>,
    /// What bytes that are not UTF-8 become: the characters of one of the readings (default:
    /// cp1252 when it is a reading, else the first), or `keep` to leave them as they are.
    #[arg(long, value_name = "READING|keep")]
    raw_bytes: Option<String>,
    /// What garbled characters that lost a byte become, where the rest of their field is
    /// certainly garbled: `infer` repairs those only one character fits (`Ã ` for `à`, its
    /// no-break space turned into a space), `replace` also writes U+FFFD for those whose byte
    /// is unknowable (`Ñ�`), `keep` repairs none. All are counted as partly lost.
    #[arg(long, value_enum, default_value_t = LostBytesArg::Infer)]
    lost_bytes: LostBytesArg,
}

impl Detection {
    /// The settings these options make: how text is judged, the rest as by default. They are
    /// checked here, so that a bad option is told in the options' own words, but no scanner
    /// is built: building one for every reading takes longer than scanning a small file.
    pub(crate) fn settings(&self) -> Result<Settings, Error> {
        let defaults = Settings::default();
        let (readings, choose_reading) = match self.readings.as_slice() {
            // The library's own default: every page, each buffer read through its choice.
            [auto] if auto == "auto" => (defaults.readings, true),
            names => {
                let mut pages = Vec::new();
                for name in names {
                    let page = codepage::by_name(name).ok_or_else(|| {
                        Error::Usage(format!(
                            "unknown reading '{name}' (known: {}, or auto)",
                            codepage::names()
                        ))
                    })?;
                    pages.push(page);
                }
                let readings = Readings::new(&pages).map_err(|e| Error::Usage(e.to_string()))?;
                (readings, false)
            }
        };
        let raw_bytes = match self.raw_bytes.as_deref() {
            None => RawBytes::Auto,
            Some("keep") => RawBytes::Keep,
            Some(name) => RawBytes::Through(codepage::by_name(name).ok_or_else(|| {
                Error::Usage(format!("unknown reading '{name}' for --raw-bytes"))
            })?),
        };
        raw_bytes
            .page_under(&readings, choose_reading)
            .map_err(|e| Error::Usage(format!("--raw-bytes: {e} (--readings)")))?;
        Ok(Settings {
            readings,
            choose_reading,
            strictness: self.strictness.into(),
            raw_bytes,
            lost_bytes: self.lost_bytes.into(),
            ..defaults
        })
    }

    /// The scanner these options make.
    pub(crate) fn scanner(&self) -> Result<Scanner, Error> {
        self.settings()?.scanner()
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

    /// Tells `error`, met on the input named `name`, once the reports written before it are
    /// out (so that a log of both outputs keeps the inputs' order); gives its record when the
    /// reports are JSON, for the caller to write in the input's place.
    pub(crate) fn input_failed(
        &mut self,
        out: &mut dyn Write,
        name: String,
        error: &Error,
        json: bool,
    ) -> Option<crate::report::Failed> {
        self.told_in_place(out, error);
        json.then(|| crate::report::Failed {
            path: name,
            message: error.to_string(),
        })
    }

    /// Tells `error` once the reports written before it are out, as
    /// [`Outcome::input_failed`] does, for an error that is no input's (the walk's).
    pub(crate) fn told_in_place(&mut self, out: &mut dyn Write, error: &Error) {
        let _ = out.flush();
        self.error(error);
    }

    pub(crate) fn error(&mut self, error: &Error) {
        eprintln!("undouble: {error}");
        self.errors = true;
        self.error_count += 1;
    }
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    color::choose(cli.color);
    let outcome = match cli.command {
        Command::Scan(args) => scan::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Completions { shell } => manual::completions(shell),
        Command::Man => manual::man(),
        Command::Fix(args) => fix::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Detect(args) => detect::run(&args),
        Command::Learn(args) => learn::run(&args),
        Command::Undo {
            audit,
            dry_run,
            roots,
        } => undo::run(&audit, &roots, dry_run),
    };
    outcome.exit_code()
}
