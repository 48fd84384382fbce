//! `undouble fix`: repairs inputs to standard output, to a file, in place, or into a mirror of
//! the input tree.
//!
//! Every file is classified ([`transcode::classify`]; when the repair goes to a temporary file,
//! by its start and then at its first invalid byte during the repair, which is dropped if the
//! file is legacy): a file that is not UTF-8 has
//! nothing to repair, so it is skipped and named with the encoding it seems to be in, or, with
//! `--transcode`, converted to UTF-8 through the same destinations and atomic writes as a
//! repair.
//!
//! The exit status is that of `sed` and `iconv`, so that `set -e` scripts and pipelines can use
//! it: 0 when every input was repaired (or needed nothing), whether or not anything changed; 1
//! when some input was skipped (binary, or legacy without `--transcode`) and so passed on
//! unchanged instead of being processed as asked; 2 on an error, which wins.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Args;
use encoding_rs::Encoding;
use rayon::prelude::*;

use super::inputs::{FILE_WINDOW, Prepared, Selection};
use super::values::{AuditLevelArg, CharsetArg, FormatArg};
use super::{Detection, Outcome};
use crate::Error;
use crate::audit::AuditLog;
use crate::dump::{self, ColumnKind, ColumnReport, Definitions, DumpOptions};
use crate::engine::transcode::{self, Legacy, OnMalformed, TextKind, Transcoded};
use crate::engine::walk::{Found, RunOutputs};
use crate::engine::{self, EngineOptions, Input, Replacing, Written};
use crate::mojibake::{Counts, Scanner};
use crate::report::{self, thousands};
use crate::sql::SqlDialect;

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
    /// With --in-place, keep each original beside it under its name plus this suffix (not
    /// empty). A backup never overwrites: a backup path that exists, or that is another input,
    /// is refused before anything is written, and the walk skips the backups of this suffix.
    #[arg(long, requires = "in_place", value_name = "SUFFIX", value_parser = backup_suffix)]
    backup: Option<String>,
    /// Replace a file that has other hard links: the name given gets the new content, the other
    /// names keep the old. Without it such a file is refused.
    #[arg(long)]
    break_hard_links: bool,
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
    #[arg(long, value_enum, default_value_t = AuditLevelArg::Full, requires = "audit")]
    audit_level: AuditLevelArg,
    /// How inputs are read: a SQL dump (`sql`: only the values of text columns are repaired,
    /// blobs are left byte-identical), plain text (`text`), or a dump when its header says so.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// With a SQL dump, also rewrite the `latin1` character set of its text columns, their
    /// tables and `SET NAMES` to this one, so that the repaired dump loads as UTF-8.
    #[arg(long, value_enum, value_name = "CHARSET")]
    convert_charset: Option<CharsetArg>,
    /// With a SQL dump, write repaired text into text columns stored in a single-byte character
    /// set (latin1, cp1251, ...; those --convert-charset does not rewrite) and keep that set;
    /// without it (or --convert-charset) such a fix is refused. Right only when the columns are
    /// to stay in that set and the server converts the text as it loads it: the dump is loaded
    /// through SET NAMES utf8mb4 and every repaired character exists in the set (others become
    /// `?`).
    #[arg(long)]
    keep_charset: bool,
    /// Convert files that are not UTF-8 (Windows-1252, ISO-8859-2, UTF-16, ...) to UTF-8, from
    /// the encoding detected or given by --from; without it they are skipped. Not with --audit:
    /// the log cannot record a conversion yet (--backup keeps the originals).
    #[arg(long, conflicts_with = "audit")]
    transcode: bool,
    /// With --transcode, the encoding of the files that are not UTF-8: a WHATWG label
    /// (windows-1252, iso-8859-2, shift_jis, utf-16le, ...; latin1 means windows-1252). A
    /// UTF-16 byte order mark still wins.
    #[arg(long, requires = "transcode", value_name = "ENCODING", value_parser = legacy_encoding)]
    from: Option<&'static Encoding>,
    /// With --transcode, write U+FFFD for each sequence the encoding cannot decode (and count
    /// them) instead of refusing the file.
    #[arg(long, requires = "transcode")]
    lossy: bool,
    #[command(flatten)]
    detection: Detection,
}

/// The encoding a `--from` label names; UTF-8 is refused (those files are repaired, not
/// converted).
fn legacy_encoding(label: &str) -> Result<&'static Encoding, String> {
    match Encoding::for_label_no_replacement(label.trim().as_bytes()) {
        Some(encoding) if encoding == encoding_rs::UTF_8 => {
            Err("UTF-8 files are repaired, not transcoded: name the legacy encoding".into())
        }
        Some(encoding) => Ok(encoding),
        None => Err(format!(
            "unknown encoding '{label}' (a WHATWG label: windows-1252, iso-8859-2, shift_jis, \
             utf-16le, ...)"
        )),
    }
}

/// A `--backup` suffix: empty, it would name the file itself.
fn backup_suffix(suffix: &str) -> Result<String, String> {
    engine::backup_path(Path::new("f"), suffix)
        .map(|_| suffix.to_owned())
        .map_err(|error| error.to_string())
}

/// Where one input's repair goes.
#[derive(Clone)]
enum Destination {
    Stdout,
    Path(PathBuf),
    Nowhere,
}

/// An input repaired (or that would be).
struct Repaired {
    counts: Counts,
    /// What became of the target.
    written: Written,
    /// More to tell: a dump's damaged columns.
    more: String,
    /// A warning to tell even with `-q`: what `fix` would refuse (`--dry-run` of a dump).
    warning: String,
    /// A dump fixed with `--convert-charset` that has rows for tables only a `--schema` dump
    /// defines: the character sets of those tables are out of its reach.
    charsets_in_schema_dump: bool,
}

/// What became of one input.
enum Fixed {
    Done(Box<Repaired>),
    /// Converted to UTF-8: what the conversion did, what became of the target, more to tell.
    Transcoded(Box<Transcoded>, Written, String),
    /// Not repaired, and passed on unchanged: what became of the target.
    Skipped(Skip, Written),
    Failed(Error),
}

/// Why an input was not repaired.
enum Skip {
    /// It looks binary, and `--binary` was not given.
    Binary,
    /// Not UTF-8, and no `--transcode`.
    Legacy(Legacy),
}

pub(crate) fn run(args: &FixArgs) -> Outcome {
    let mut outcome = Outcome::default();
    let mut selection = args.selection.clone();
    selection.outputs = RunOutputs {
        output_dir: args.output_dir.clone(),
        backup_suffix: args.backup.clone(),
    };
    let (scanner, prepared) = match selection.start(&args.detection, &mut outcome) {
        Ok(started) => started,
        Err(error) => return Outcome::failed(&error),
    };
    if let Some(suffix) = &args.backup
        && !args.dry_run
    {
        let files = prepared
            .found
            .iter()
            .filter_map(|found| match &found.input {
                Input::File(path) => Some(path.as_path()),
                Input::Stream(_) => None,
            });
        if let Err(error) = engine::check_backups(files, suffix) {
            return Outcome::failed(&error);
        }
    }
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
            match AuditLog::create(path, &scanner, args.audit_level.into(), command_line) {
                Ok(log) => Some(Mutex::new(log)),
                Err(error) => return Outcome::failed(&error),
            }
        }
    };
    let mut total = Counts::default();
    let (mut files, mut rewritten, mut skipped, mut transcoded) = (0u64, 0u64, 0u64, 0u64);
    let mut charsets_in_schema_dump = false;
    'inputs: for window in prepared.found.chunks(FILE_WINDOW) {
        let fix = |found| fix_one(args, &scanner, &prepared, found, audit.as_ref());
        let results: Vec<Fixed> = prepared.pool.install(|| match audit {
            // The log is one stream, in input order: audited files go one after the other
            // (each file's blocks are still scanned on the pool's threads).
            Some(_) => window.iter().map(fix).collect(),
            None => window.par_iter().map(fix).collect(),
        });
        for (found, result) in window.iter().zip(results) {
            let name = found.input.display_path().display().to_string();
            match result {
                Fixed::Done(repaired) => {
                    let Repaired {
                        counts,
                        written,
                        more,
                        warning,
                        charsets_in_schema_dump: out_of_reach,
                    } = *repaired;
                    charsets_in_schema_dump |= out_of_reach;
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
                    eprint!("{warning}");
                    total.merge(counts);
                }
                Fixed::Transcoded(done, written, more) => {
                    files += 1;
                    transcoded += 1;
                    rewritten += u64::from(written == Written::Replaced && !args.dry_run);
                    if !args.selection.quiet {
                        eprint!("{}{more}", transcoded_text(&name, &done, args.dry_run));
                    }
                }
                Fixed::Skipped(skip, written) => {
                    // Not processed as asked: the exit status says so, and the warning is
                    // told even with -q, which silences summaries, not warnings.
                    skipped += 1;
                    outcome.found = true;
                    eprintln!("{}", skipped_text(&name, &skip, written, args.dry_run));
                }
                Fixed::Failed(error) => {
                    if outcome.stop_or_report(&error) {
                        break 'inputs;
                    }
                }
            }
        }
    }
    prepared.finish();
    if charsets_in_schema_dump
        && let Some(definitions) = &prepared.definitions
        && definitions.latin1_declarations() > 0
    {
        eprint!("{}", schema_dump_charsets_note(definitions));
    }
    if files + skipped > 1 && !args.selection.quiet {
        let converted = match args.transcode {
            true => format!("{transcoded} transcoded, "),
            false => String::new(),
        };
        let name = format!(
            "total ({}, {rewritten} written, {converted}{skipped} skipped)",
            report::count(files, "file")
        );
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

/// Told once (even with `-q`: the load, not the fix, would go wrong) when `--convert-charset`
/// fixed dumps whose tables a `--schema` dump defines and declares `latin1`. The fix cannot
/// rewrite a file it only reads, and loaded as it is, that schema makes `latin1` columns into
/// which the server converts the repaired UTF-8 back, replacing what `latin1` lacks with `?`.
fn schema_dump_charsets_note(definitions: &Definitions) -> String {
    let paths: Vec<String> = definitions
        .paths()
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    format!(
        "undouble: note: --convert-charset rewrote only the declarations of the dumps it fixed. \
         Their tables are defined in the --schema dump ({}), which fix reads but never changes, \
         and which still declares {} latin1 character sets and collations: loaded as it is, it \
         creates latin1 columns, and the server converts the repaired text back to latin1 as it \
         loads it (characters latin1 lacks become `?`). Fix the schema dump too, with `undouble \
         fix --convert-charset utf8mb4` (which also repairs its comments and defaults), and load \
         the result instead.\n",
        paths.join(", "),
        thousands(definitions.latin1_declarations())
    )
}

/// What writing to a path does about the file it replaces.
fn replacing(args: &FixArgs) -> Replacing<'_> {
    Replacing {
        backup: args.backup.as_deref(),
        break_hard_links: args.break_hard_links,
    }
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
        (Input::Stream(_), true) => Err(Error::Usage(format!(
            "{}: --in-place needs files, not standard input or a pipe",
            found.input.display_path().display()
        ))),
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
    let input = &found.input;
    let destination = match destination(args, found) {
        Ok(destination) => destination,
        Err(error) => return Fixed::Failed(error),
    };
    let dialect = match dump::dialect_of(input, args.format.into()) {
        Ok(dialect) => dialect,
        Err(error) => return Fixed::Failed(error),
    };
    let dump = dialect.map(|dialect| DumpOptions {
        dialect,
        convert_charset: args.convert_charset.map(Into::into),
        schema: prepared.definitions.clone(),
        keep_charset: args.keep_charset,
    });
    // Every input is judged from its head before any of it is written, for every destination
    // and whether it is a file or a stream: what is skipped can then be passed on whole.
    let kind = match &dump {
        Some(options) => dump::classify(input, options),
        None => transcode::classify(input),
    };
    let skip = |skip| match pass_on(scanner, prepared, input, destination.clone()) {
        Ok(written) => Fixed::Skipped(skip, written),
        Err(error) => Fixed::Failed(error),
    };
    match kind {
        Err(error) => return Fixed::Failed(error),
        Ok(TextKind::Binary) if prepared.skip_binary => return skip(Skip::Binary),
        Ok(TextKind::Legacy(legacy)) if args.transcode => {
            return transcode_one(args, scanner, prepared, found, dialect, legacy);
        }
        Ok(TextKind::Legacy(legacy)) => return skip(Skip::Legacy(legacy)),
        // A binary file (with --binary) is repaired as UTF-8: it is no legacy text.
        Ok(TextKind::Utf8 | TextKind::Binary) => {}
    }
    match repair_one(
        args,
        scanner,
        &prepared.engine,
        found,
        dump,
        destination,
        audit,
    ) {
        Ok(repaired) => Fixed::Done(Box::new(repaired)),
        Err(error) => Fixed::Failed(error),
    }
}

/// Passes a skipped input on unchanged, so that an output that was to hold it holds every
/// byte of it: copied to standard output, or to its target file (atomically, as a repair is
/// written); left as it is in place; nothing in a dry run.
fn pass_on(
    scanner: &Scanner,
    prepared: &Prepared,
    input: &Input,
    destination: Destination,
) -> Result<Written, Error> {
    let copy = |out: &mut dyn Write, out_path: &Path| {
        engine::copy_input(input, scanner.readings(), out, out_path, &prepared.engine)
    };
    match destination {
        Destination::Nowhere => Ok(Written::Unchanged),
        Destination::Stdout => {
            let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            copy(&mut out, Path::new("<stdout>"))?;
            Ok(Written::Replaced)
        }
        Destination::Path(target) if matches!(input, Input::File(path) if *path == target) => {
            Ok(Written::Unchanged)
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            let (_, written) = engine::write_to_path(
                input,
                &target,
                Replacing::default(),
                |out| copy(out, &target),
                |_| true,
            )?;
            Ok(written)
        }
    }
}

/// `NAME: skipped (looks binary; --binary repairs it); passed on unchanged`, and for a legacy
/// input what it seems to be and what converts it.
fn skipped_text(name: &str, skip: &Skip, written: Written, dry_run: bool) -> String {
    let what = match (dry_run, written) {
        (true, _) => "would be passed on unchanged",
        (false, Written::Replaced) => "passed on unchanged",
        (false, Written::Unchanged) => "left as it is",
    };
    match skip {
        Skip::Binary => format!("{name}: skipped (looks binary; --binary repairs it); {what}"),
        Skip::Legacy(legacy) => {
            let hint = legacy
                .source_encoding(None)
                .map_or_else(|why| why, |_| "--transcode converts it");
            format!(
                "{name}: skipped: not UTF-8 ({}); {hint}; {what}",
                legacy.describe()
            )
        }
    }
}

/// Repairs one UTF-8 input (a dump as a dump, with the tables of the `--schema` dumps) into
/// `destination`, logged in `audit` if there is one.
fn repair_one(
    args: &FixArgs,
    scanner: &Scanner,
    engine: &EngineOptions,
    found: &Found,
    dump: Option<DumpOptions>,
    destination: Destination,
    audit: Option<&Mutex<AuditLog>>,
) -> Result<Repaired, Error> {
    let mut log = match audit.map(Mutex::lock) {
        None => None,
        Some(Ok(log)) => Some(log),
        Some(Err(_)) => return Err(Error::Usage("the audit log was poisoned".into())),
    };
    let input = &found.input;
    match dump {
        Some(options) => {
            let log = log.as_deref_mut();
            return fix_dump_one(args, scanner, engine, input, destination, options, log);
        }
        None if args.convert_charset.is_some() => {
            let message = format!(
                "{}: --convert-charset needs a SQL dump, and this input has no dump header \
                 (--format sql reads it as one)",
                input.display_path().display()
            );
            return Err(Error::Usage(message));
        }
        None => {}
    }
    let (counts, written) = match destination {
        Destination::Nowhere => {
            engine::scan_input(scanner, input, engine).map(|counts| (counts, Written::Unchanged))
        }
        Destination::Stdout => {
            let out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let stdout = Path::new("<stdout>");
            match log.as_deref_mut() {
                Some(log) => log.fix_input(input, out, stdout),
                None => engine::fix_input(scanner, input, out, stdout, engine),
            }
            .map(|counts| (counts, Written::Replaced))
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            match log.as_deref_mut() {
                Some(log) => log.fix_to_path(input, &target),
                None => engine::fix_to_path(scanner, input, &target, replacing(args), engine),
            }
        }
    }?;
    Ok(Repaired {
        counts,
        written,
        more: String::new(),
        warning: String::new(),
        charsets_in_schema_dump: false,
    })
}

/// Converts one legacy file to UTF-8 into its destination: from the encoding of its byte order
/// mark, `--from`, or a confident guess (a weak guess is refused).
fn transcode_one(
    args: &FixArgs,
    scanner: &Scanner,
    prepared: &Prepared,
    found: &Found,
    dialect: Option<SqlDialect>,
    legacy: Legacy,
) -> Fixed {
    let input = &found.input;
    if let Some(dialect) = dialect {
        match binary_columns_with_values(scanner, prepared, input, dialect) {
            Ok(columns) if columns.is_empty() => {}
            Ok(columns) => {
                let message = format!(
                    "{}: not UTF-8 ({}); a SQL dump whose binary columns hold values ({}) is not \
                     converted: their bytes would be converted as if they were text. Dump it \
                     again with --default-character-set=utf8mb4 instead",
                    input.display_path().display(),
                    legacy.describe(),
                    columns.join(", ")
                );
                return Fixed::Failed(Error::Usage(message));
            }
            Err(error) => return Fixed::Failed(error),
        }
    }
    let from = match legacy.source_encoding(args.from) {
        Ok(from) => from,
        Err(why) => {
            let name = input.display_path();
            let message = format!(
                "{}: not UTF-8 ({}); {why}",
                name.display(),
                legacy.describe()
            );
            return Fixed::Failed(Error::Usage(message));
        }
    };
    let on_malformed = match args.lossy {
        true => OnMalformed::Replace,
        false => OnMalformed::Refuse,
    };
    let convert = |out: &mut dyn Write, out_path: &Path| {
        let (readings, engine) = (scanner.readings(), &prepared.engine);
        transcode::transcode_input(input, from, on_malformed, out, out_path, readings, engine)
    };
    let result = destination(args, found).and_then(|destination| match destination {
        Destination::Nowhere => {
            convert(&mut io::sink(), Path::new("<nowhere>")).map(|done| (done, Written::Unchanged))
        }
        Destination::Stdout => {
            let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            convert(&mut out, Path::new("<stdout>")).map(|done| (done, Written::Replaced))
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            // A converted file always differs from its original.
            engine::write_to_path(
                input,
                &target,
                replacing(args),
                |out| convert(out, &target),
                |_| true,
            )
        }
    });
    match result {
        Ok((done, written)) => {
            let note = match dialect {
                Some(_) => DUMP_AFTER_TRANSCODING,
                None => "",
            };
            Fixed::Transcoded(Box::new(done), written, note.to_owned())
        }
        Err(error) => Fixed::Failed(error),
    }
}

/// The binary columns of the dump `input` that hold values other than NULL (`table.column`),
/// from a scan of the whole dump: what a conversion of the whole file would damage.
fn binary_columns_with_values(
    scanner: &Scanner,
    prepared: &Prepared,
    input: &Input,
    dialect: SqlDialect,
) -> Result<Vec<String>, Error> {
    let options = DumpOptions {
        dialect,
        convert_charset: None,
        schema: prepared.definitions.clone(),
        keep_charset: false,
    };
    // A look ahead of the conversion: it moves no progress bar.
    let engine = EngineOptions {
        progress: None,
        ..prepared.engine.clone()
    };
    let (report, _) = dump::scan_dump(scanner, input, &options, &engine, 0)?;
    let columns = report.tables.iter().flat_map(|table| {
        let holding = |c: &&ColumnReport| c.kind == ColumnKind::Binary && c.cells > c.null_cells;
        let named = |c: &ColumnReport| format!("{}.{}", table.name, c.name);
        table.columns.iter().filter(holding).map(named)
    });
    Ok(columns.collect())
}

/// Told after a dump is transcoded. Its own declarations still name its old encoding: loaded as
/// it is, the converted text would be read as that encoding and come out double-encoded.
const DUMP_AFTER_TRANSCODING: &str = "  a SQL dump: its SET NAMES and table charsets still name \
    the old encoding; `undouble fix --convert-charset utf8mb4` on the result rewrites them\n";

/// `NAME: transcoded from windows-1252 to UTF-8 (1,234 bytes read, 1,250 written)`, with the
/// malformed sequences replaced, if any.
fn transcoded_text(name: &str, done: &Transcoded, dry_run: bool) -> String {
    let verb = match dry_run {
        true => "would transcode",
        false => "transcoded",
    };
    let mut text = format!(
        "{name}: {verb} from {} to UTF-8 ({} read, {} written)",
        done.from.name(),
        report::count(done.bytes_read, "byte"),
        thousands(done.bytes_written)
    );
    if let Some(first) = done.first_malformed_offset {
        text += &format!(
            ", {} replaced by U+FFFD (the first at byte offset {first})",
            report::count(done.malformed, "malformed sequence")
        );
    }
    text.push('\n');
    text
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

/// Repairs one SQL dump: only the values of its text columns, logged in `log` if there is one.
/// What more it tells is the columns that held double-encoded text.
fn fix_dump_one(
    args: &FixArgs,
    scanner: &Scanner,
    engine: &EngineOptions,
    input: &Input,
    destination: Destination,
    options: DumpOptions,
    log: Option<&mut AuditLog>,
) -> Result<Repaired, Error> {
    let mut warning = String::new();
    let (mut report, written) = match destination {
        Destination::Nowhere => {
            let (report, _) = dump::scan_dump(scanner, input, &options, engine, 0)?;
            if let Some(refusal) =
                report.refusal_warning(args.convert_charset.map(Into::into), args.keep_charset)
            {
                warning = format!("{}: warning: {refusal}\n", input.display_path().display());
            }
            (report, Written::Unchanged)
        }
        Destination::Stdout => {
            let out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let stdout = Path::new("<stdout>");
            let report = match log {
                Some(log) => log.fix_dump_input(input, out, stdout, &options, engine)?,
                None => dump::fix_dump(scanner, input, out, stdout, &options, engine, None)?,
            };
            (report, Written::Replaced)
        }
        Destination::Path(target) => {
            create_parent(&target)?;
            match log {
                Some(log) => log.fix_dump_to_path(input, &target, &options, engine)?,
                None => {
                    let replacing = replacing(args);
                    dump::fix_dump_to_path(scanner, input, &target, replacing, &options, engine)?
                }
            }
        }
    };
    let more = report.text(scanner.readings(), true);
    // PostgreSQL columns declare no character set: only MySQL's are left behind.
    let charsets_in_schema_dump = options.convert_charset.is_some()
        && options.dialect == SqlDialect::MySql
        && report.has_rows_of_schema_dump_tables();
    Ok(Repaired {
        counts: std::mem::take(&mut report.counts),
        written,
        more,
        warning,
        charsets_in_schema_dump,
    })
}
