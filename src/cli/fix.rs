//! `undouble fix`: repairs inputs to standard output, to a file, in place, or into a mirror of
//! the input tree.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Args;
use rayon::prelude::*;

use super::inputs::{FILE_WINDOW, Prepared, Selection};
use super::{Detection, Outcome};
use crate::Error;
use crate::audit::{AuditLevel, AuditLog};
use crate::dump::{self, DumpOptions, Format};
use crate::engine::walk::Found;
use crate::engine::{self, Input, Written};
use crate::mojibake::{Counts, Scanner};
use crate::report;

#[derive(Args, Clone, Debug)]
pub(crate) struct FixArgs {
    #[command(flatten)]
    selection: Selection,
    /// Write the repaired text to this file (one input only), atomically.
    #[arg(short, long, conflicts_with_all = ["in_place", "output_dir"])]
    output: Option<PathBuf>,
    /// Replace each file by its repaired version (atomically, only when something changed).
    #[arg(long, conflicts_with = "output_dir")]
    in_place: bool,
    /// With --in-place, keep each original beside it under its name plus this suffix.
    #[arg(long, requires = "in_place", value_name = "SUFFIX")]
    backup: Option<String>,
    /// Write every repaired file under this directory, mirroring the input tree.
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Tell what would be repaired; write nothing.
    #[arg(long, conflicts_with = "audit")]
    dry_run: bool,
    /// Log every change to this JSON Lines file (which must not exist yet), so that `undo`
    /// can take the fix back. Audited files are read one after the other.
    #[arg(long, value_name = "FILE", conflicts_with = "backup")]
    audit: Option<PathBuf>,
    /// What the audit log holds: every change, or a summary per file and sequence.
    #[arg(long, value_enum, default_value_t = AuditLevel::Full, requires = "audit")]
    audit_level: AuditLevel,
    /// How inputs are read: a SQL dump (`sql`: only the values of text columns are repaired,
    /// blobs are left byte-identical), plain text (`text`), or a dump when its header says so.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    /// With a SQL dump, also rewrite the `latin1` character set of its text columns, their
    /// tables and `SET NAMES` to this one, so that the repaired dump loads as UTF-8.
    #[arg(long, value_enum, value_name = "CHARSET")]
    convert_charset: Option<dump::Charset>,
    #[command(flatten)]
    detection: Detection,
}

/// Where one input's repair goes.
enum Destination {
    Stdout,
    Path(PathBuf),
    Nowhere,
}

/// What became of one input.
enum Fixed {
    /// Counts, what became of the target, and more to tell (a dump's damaged columns).
    Done(Box<Counts>, Written, String),
    SkippedBinary,
    Failed(Error),
}

pub(crate) fn run(args: &FixArgs) -> Outcome {
    let mut outcome = Outcome::default();
    let (scanner, prepared) = match args.selection.start(&args.detection, &mut outcome) {
        Ok(started) => started,
        Err(error) => return Outcome::failed(&error),
    };
    let single_output = !args.in_place && args.output_dir.is_none() && !args.dry_run;
    if single_output && prepared.found.len() > 1 {
        outcome.error(&Error::Usage(
            "several inputs need --in-place or --output-dir (one output cannot hold them apart)"
                .into(),
        ));
        return outcome;
    }
    let audit = match &args.audit {
        None => None,
        Some(path) => {
            let command_line = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
            match AuditLog::create(path, &scanner, args.audit_level, command_line) {
                Ok(log) => Some(Mutex::new(log)),
                Err(error) => return Outcome::failed(&error),
            }
        }
    };
    let mut total = Counts::default();
    let (mut files, mut rewritten, mut skipped) = (0u64, 0u64, 0u64);
    for window in prepared.found.chunks(FILE_WINDOW) {
        let fix = |found| fix_one(args, &scanner, &prepared, found, audit.as_ref());
        let results: Vec<Fixed> = match audit {
            // The log is one stream, in input order: audited files go one after the other.
            Some(_) => window.iter().map(fix).collect(),
            None => prepared
                .pool
                .install(|| window.par_iter().map(fix).collect()),
        };
        for (found, result) in window.iter().zip(results) {
            let name = found.input.display_path().display().to_string();
            match result {
                Fixed::Done(counts, written, more) => {
                    outcome.found |= counts.double_encoded > 0;
                    files += 1;
                    rewritten += u64::from(written == Written::Replaced && !args.dry_run);
                    let what = match (args.dry_run, written) {
                        (true, _) if counts.double_encoded > 0 => "would repair ",
                        (true, _) => "nothing to repair in ",
                        (false, Written::Unchanged) => "unchanged ",
                        (false, Written::Replaced) => "",
                    };
                    if !args.selection.quiet {
                        let readings = scanner.readings();
                        eprint!("{what}{}", report::counts_text(readings, &name, &counts, 5));
                        eprint!("{more}");
                    }
                    total.merge(*counts);
                }
                Fixed::SkippedBinary => {
                    skipped += 1;
                    if !args.selection.quiet {
                        eprintln!("{name}: skipped (looks binary; --binary repairs it)");
                    }
                }
                Fixed::Failed(error) => outcome.error(&error),
            }
        }
    }
    prepared.finish();
    if files + skipped > 1 && !args.selection.quiet {
        let name = format!("total ({files} files, {rewritten} written, {skipped} skipped)");
        eprint!(
            "{}",
            report::counts_text(scanner.readings(), &name, &total, 5)
        );
    }
    if let Some(log) = audit {
        let finished = log
            .into_inner()
            .map_err(|_| Error::Usage("the audit log was poisoned by a crash".into()))
            .and_then(AuditLog::finish);
        if let Err(error) = finished {
            outcome.error(&error);
        }
    }
    outcome
}

fn destination(args: &FixArgs, found: &Found) -> Result<Destination, Error> {
    if args.dry_run {
        return Ok(Destination::Nowhere);
    }
    if let Some(dir) = &args.output_dir {
        return Ok(Destination::Path(dir.join(found.relative_path())));
    }
    if let Some(output) = &args.output {
        return Ok(Destination::Path(output.clone()));
    }
    match (&found.input, args.in_place) {
        (Input::File(path), true) => Ok(Destination::Path(path.clone())),
        (Input::Stdin, true) => Err(Error::Usage(
            "--in-place needs files, not standard input".into(),
        )),
        (_, false) => Ok(Destination::Stdout),
    }
}

fn fix_one(
    args: &FixArgs,
    scanner: &Scanner,
    prepared: &Prepared,
    found: &Found,
    audit: Option<&Mutex<AuditLog>>,
) -> Fixed {
    prepared.show(&found.input);
    match prepared.is_skipped_binary(&found.input) {
        Ok(true) => return Fixed::SkippedBinary,
        Ok(false) => {}
        Err(error) => return Fixed::Failed(error),
    }
    match dump::dialect_of(&found.input, args.format) {
        // The audit log records no table, column or row yet, and a plain repair of a dump
        // would touch its blobs: an audited dump is refused, unless `--format text` asks for
        // the plain repair by name.
        Ok(Some(_)) if audit.is_some() => {
            let message = "--audit does not record dump-aware repairs yet; \
                           --format text repairs (and audits) the dump as plain text, blobs included";
            return Fixed::Failed(Error::Usage(format!(
                "{}: {message}",
                found.input.display_path().display()
            )));
        }
        Ok(Some(dialect)) => {
            return match fix_dump_one(args, scanner, prepared, found, dialect) {
                Ok((counts, written, more)) => Fixed::Done(Box::new(counts), written, more),
                Err(error) => Fixed::Failed(error),
            };
        }
        Ok(None) if args.convert_charset.is_some() => {
            let message = format!(
                "{}: --convert-charset needs a SQL dump, and this input has no dump header \
                 (--format sql reads it as one)",
                found.input.display_path().display()
            );
            return Fixed::Failed(Error::Usage(message));
        }
        Ok(None) => {}
        Err(error) => return Fixed::Failed(error),
    }
    let mut log = match audit.map(Mutex::lock) {
        None => None,
        Some(Ok(log)) => Some(log),
        Some(Err(_)) => return Fixed::Failed(Error::Usage("the audit log was poisoned".into())),
    };
    let input = &found.input;
    let result = destination(args, found).and_then(|destination| match destination {
        Destination::Nowhere => engine::scan_input(scanner, input, &prepared.engine)
            .map(|counts| (counts, Written::Unchanged)),
        Destination::Stdout => {
            let out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let stdout = Path::new("<stdout>");
            match log.as_deref_mut() {
                Some(log) => log.fix_input(input, out, stdout),
                None => engine::fix_input(scanner, input, out, stdout, &prepared.engine),
            }
            .map(|counts| (counts, Written::Replaced))
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            match log.as_deref_mut() {
                Some(log) => log.fix_to_path(input, &target),
                None => {
                    let backup = args.backup.as_deref();
                    engine::fix_to_path(scanner, input, &target, backup, &prepared.engine)
                }
            }
        }
    });
    match result {
        Ok((counts, written)) => Fixed::Done(Box::new(counts), written, String::new()),
        Err(error) => Fixed::Failed(error),
    }
}

/// Creates the directory a target goes into.
fn create_parent(target: &Path) -> Result<(), Error> {
    match target.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|source| Error::Write {
            path: parent.to_path_buf(),
            source,
        }),
        None => Ok(()),
    }
}

/// Repairs one SQL dump: only the values of its text columns. Returns the counts, what became
/// of the target, and the columns that held double-encoded text.
fn fix_dump_one(
    args: &FixArgs,
    scanner: &Scanner,
    prepared: &Prepared,
    found: &Found,
    dialect: crate::charset::SqlDialect,
) -> Result<(Counts, Written, String), Error> {
    let options = DumpOptions {
        dialect,
        convert_charset: args.convert_charset,
    };
    let input = &found.input;
    let engine = &prepared.engine;
    let (mut report, written) = match destination(args, found)? {
        Destination::Nowhere => {
            let (report, _) = dump::scan_dump(scanner, input, &options, engine, 0)?;
            (report, Written::Unchanged)
        }
        Destination::Stdout => {
            let out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let stdout = Path::new("<stdout>");
            let report = dump::fix_dump(scanner, input, out, stdout, &options, engine)?;
            (report, Written::Replaced)
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            let backup = args.backup.as_deref();
            dump::fix_dump_to_path(scanner, input, &target, backup, &options, engine)?
        }
    };
    let more = report.text(scanner.readings(), true);
    Ok((std::mem::take(&mut report.counts), written, more))
}
