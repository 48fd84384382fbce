//! `undouble fix`: repairs inputs to standard output, to a file, in place, or into a mirror of
//! the input tree.
//!
//! The arguments become a [`Fixer`] and a [`Target`] per input; what the fixer makes of each
//! (repaired, skipped because it is not UTF-8 or looks binary, or converted with `--transcode`)
//! is told on standard error.
//!
//! The exit status is that of `sed` and `iconv`, so that `set -e` scripts and pipelines can use
//! it: 0 when every input was repaired (or needed nothing), whether or not anything changed; 1
//! when some input was skipped (binary, or legacy without `--transcode`) and so passed on
//! unchanged instead of being processed as asked; 2 on an error, which wins.

use std::io;
use std::path::{Path, PathBuf};

use clap::Args;
use encoding_rs::Encoding;

use crate::charset::{KnownEncoding, OemCodePage};

use super::inputs::{Listing, Prepared, Reported, Selection, Stopped};
use super::values::{AuditLevelArg, CharsetArg, FormatArg};
use super::{Detection, Outcome};
use crate::Error;
use crate::api::{
    FixOutcome, Fixer, NotUtf8, Repaired, Settings, Skip, Target, Transcode, Transcoding,
};
use crate::dump::Definitions;
use crate::engine::transcode::{OnMalformed, Transcoded};
use crate::engine::walk::{Found, RunOutputs};
use crate::engine::{self, Input, Written};
use crate::mojibake::{Counts, Readings};
use crate::report::{self, thousands};

#[derive(Args, Clone, Debug)]
pub(crate) struct FixArgs {
    #[command(flatten)]
    selection: Selection,
    /// Write the repaired text to this file (one input only), atomically; `-` is standard
    /// output.
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
    /// Write repaired files through the page cache instead of with direct I/O (`O_DIRECT`,
    /// used where the file system takes it): for a file system whose direct I/O misbehaves, or
    /// to compare the two. Either way a file is synced before it replaces the old one.
    #[arg(long)]
    no_direct_io: bool,
    /// Write every repaired file under this directory, mirroring the input tree: its
    /// subdirectories are created as needed, and the directory itself if its parent exists.
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// Repair only the bytes of one file from START to END (`START-` to its end), as an
    /// input split gives them: whole blocks of the whole file's run, so that the outputs of
    /// ranges that tile the file concatenate to its fix. A dump is lexed from its start.
    /// With `--audit`, the log of the range; `merge --audit` joins the parts over the file.
    #[arg(long, value_name = "START-END", value_parser = super::values::parse_range,
          conflicts_with_all = ["in_place", "output_dir"])]
    range: Option<std::ops::Range<u64>>,
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
    /// (windows-1252, iso-8859-2, shift_jis, utf-16le, ...; latin1 means windows-1252) or a
    /// DOS page encoding_rs lacks (ibm855, cp737). A UTF-16 byte order mark still wins.
    #[arg(long, requires = "transcode", value_name = "ENCODING", value_parser = legacy_encoding)]
    from: Option<KnownEncoding>,
    /// With --transcode, write U+FFFD for each sequence the encoding cannot decode (and count
    /// them) instead of refusing the file.
    #[arg(long, requires = "transcode")]
    lossy: bool,
    #[command(flatten)]
    detection: Detection,
}

/// The encoding a `--from` label names; UTF-8 is refused (those files are repaired, not
/// converted).
fn legacy_encoding(label: &str) -> Result<KnownEncoding, String> {
    let whatwg = Encoding::for_label_no_replacement(label.trim().as_bytes());
    match whatwg
        .map(KnownEncoding::Whatwg)
        .or_else(|| OemCodePage::for_label(label).map(KnownEncoding::Oem))
    {
        Some(KnownEncoding::Whatwg(encoding)) if encoding == encoding_rs::UTF_8 => {
            Err("UTF-8 files are repaired, not transcoded: name the legacy encoding".into())
        }
        Some(encoding) => Ok(encoding),
        None => Err(format!(
            "unknown encoding '{label}' (a WHATWG label: windows-1252, iso-8859-2, shift_jis, \
             utf-16le, ...; or ibm855, cp737)"
        )),
    }
}

/// A `--backup` suffix: empty, it would name the file itself.
fn backup_suffix(suffix: &str) -> Result<String, String> {
    engine::backup_path(Path::new("f"), suffix)
        .map(|_| suffix.to_owned())
        .map_err(|error| error.to_string())
}

/// Where one input's repair goes, as the arguments say.
enum Destination {
    Stdout,
    Path(PathBuf),
    Nowhere,
}

pub(crate) fn run(args: &FixArgs) -> Outcome {
    // Parsing lets an option that conflicts with --in-place (-o) lift --backup's requirement of
    // it; an option that would do nothing is refused all the same.
    if args.backup.is_some() && !args.in_place {
        return Outcome::failed(&Error::Usage(
            "--backup keeps the original of each file replaced in place: it needs --in-place \
             (-o and --output-dir replace no input)"
                .into(),
        ));
    }
    let mut outcome = Outcome::default();
    let mut selection = args.selection.clone();
    selection.outputs = RunOutputs {
        output_dir: args.output_dir.clone(),
        backup_suffix: args.backup.clone(),
    };
    // Every input is checked before any is written: a backup path taken, several inputs
    // for one output.
    let started = selection.start(
        &args.detection,
        args.format.into(),
        Listing::Whole,
        &mut outcome,
    );
    let (mut settings, prepared) = match started {
        Ok(started) => started,
        Err(error) => return Outcome::failed(&error),
    };
    // Listed whole, as asked above.
    let inputs = prepared.listed().unwrap_or_default();
    if args.range.is_some()
        && let Err(error) = super::values::one_range_input(inputs.len())
    {
        return Outcome::failed(&error);
    }
    settings.range = args.range.clone();
    if let Err(error) = check_backups(args, inputs) {
        return Outcome::failed(&error);
    }
    if let Err(error) = check_single_output(args, inputs) {
        outcome.error(&error);
        return outcome;
    }
    if let Some(dir) = &args.output_dir
        && let Err(error) = check_output_dir(dir)
    {
        return Outcome::failed(&error);
    }
    let schema = settings.schema.clone();
    let fixer = match fixer(args, settings) {
        Ok(fixer) => fixer,
        Err(error) => return Outcome::failed(&error),
    };
    let mut tally = Tally::default();
    tally.fix_all(args, &fixer, &prepared, &mut outcome);
    prepared.finish();
    if tally.charsets_in_schema_dump
        && let Some(definitions) = &schema
        && definitions.latin1_declarations() > 0
    {
        eprint!("{}", schema_dump_charsets_note(definitions));
    }
    tally.tell_total(args, fixer.readings());
    if let Err(error) = fixer.finish() {
        outcome.error(&error);
    }
    outcome
}

/// Refuses, with `--backup`, a backup path that exists or is another input, before anything
/// is written (a dry run writes no backup).
fn check_backups(args: &FixArgs, inputs: &[Found]) -> Result<(), Error> {
    let Some(suffix) = &args.backup else {
        return Ok(());
    };
    if args.dry_run {
        return Ok(());
    }
    let files = inputs.iter().filter_map(|found| match &found.input {
        Input::File(path) => Some(path.as_path()),
        Input::Stream(_) => None,
    });
    engine::check_backups(files, suffix)
}

/// Refuses several inputs for the one output (`-o` or standard output).
fn check_single_output(args: &FixArgs, inputs: &[Found]) -> Result<(), Error> {
    let single_output = !args.in_place && args.output_dir.is_none() && !args.dry_run;
    if single_output && inputs.len() > 1 {
        return Err(Error::Usage(
            "several inputs need --in-place or --output-dir (one output cannot hold them apart)"
                .into(),
        ));
    }
    Ok(())
}

/// What `fix` made of its inputs so far, for the total line.
#[derive(Default)]
struct Tally {
    total: Counts,
    files: u64,
    rewritten: u64,
    skipped: u64,
    transcoded: u64,
    /// Some dump fixed with `--convert-charset` has tables a `--schema` dump defines.
    charsets_in_schema_dump: bool,
}

impl Tally {
    /// Fixes every input on the pool, and tells what became of each, in input order; stops
    /// when the output is closed.
    fn fix_all(
        &mut self,
        args: &FixArgs,
        fixer: &Fixer,
        prepared: &Prepared,
        outcome: &mut Outcome,
    ) {
        let readings = fixer.readings();
        let fix = |found: &Found| fix_one(args, fixer, found);
        let mut report_one = |reported: Reported<'_, Result<FixOutcome, Error>>| {
            let (found, result) = match reported {
                Reported::Input(found, result) => (found, result),
                // Not met: the inputs are listed whole, and the walk's errors told then.
                Reported::WalkFailed(error) => {
                    outcome.error(&error);
                    return Ok(());
                }
            };
            let name = found.input.display_path().display().to_string();
            match result {
                Ok(FixOutcome::Repaired(repaired)) => {
                    self.repaired(args, readings, &name, *repaired);
                }
                Ok(FixOutcome::Transcoded(transcoding)) => {
                    self.transcoded(args, &name, &transcoding);
                }
                Ok(FixOutcome::Skipped { why, written }) => {
                    // Not processed as asked: the exit status says so, and the warning is
                    // told even with -q, which silences summaries, not warnings.
                    self.skipped += 1;
                    outcome.found = true;
                    eprintln!("{}", skipped_text(&name, &why, written, args.dry_run));
                }
                Err(error) => {
                    if outcome.stop_or_report(&error) {
                        return Err(Stopped);
                    }
                }
            }
            Ok(())
        };
        // The log is one stream, in input order: audited files go one after the other (each
        // file's blocks are still scanned on the pool's threads). A stop is in `outcome`
        // already.
        let _stopped = match fixer.audited() {
            // Listed whole: every input is in the list.
            true => (prepared.listed().unwrap_or_default().iter()).try_for_each(|found| {
                prepared.show(&found.input);
                let result = prepared.pool.install(|| fix(found));
                report_one(Reported::Input(found, result))
            }),
            false => prepared.each_in_order(fix, report_one),
        };
    }

    /// Counts and tells an input repaired (or with nothing to repair).
    fn repaired(&mut self, args: &FixArgs, readings: &Readings, name: &str, repaired: Repaired) {
        let Repaired {
            counts,
            written,
            dump,
            refusal,
            charsets_in_schema_dump: out_of_reach,
        } = repaired;
        self.charsets_in_schema_dump |= out_of_reach;
        self.files += 1;
        self.rewritten += u64::from(written == Written::Replaced && !args.dry_run);
        let what = match (args.dry_run, written) {
            (true, _) if counts.changes() > 0 => "would repair ",
            (true, _) => "nothing to repair in ",
            (false, Written::Unchanged) => "unchanged ",
            (false, Written::Replaced) => "",
        };
        if !args.selection.quiet {
            eprint!("{what}{}", report::counts_text(readings, name, &counts, 5));
            if let Some(dump) = &dump {
                eprint!("{}", dump.text(readings, true));
            }
        }
        if let Some(refusal) = refusal {
            // Told even with -q: what `fix` would refuse.
            eprintln!("{name}: warning: {refusal}");
        }
        self.total.merge(counts);
    }

    /// Counts and tells an input converted to UTF-8.
    fn transcoded(&mut self, args: &FixArgs, name: &str, transcoding: &Transcoding) {
        self.files += 1;
        self.transcoded += 1;
        let written = transcoding.written;
        self.rewritten += u64::from(written == Written::Replaced && !args.dry_run);
        if !args.selection.quiet {
            let note = match transcoding.dump {
                true => DUMP_AFTER_TRANSCODING,
                false => "",
            };
            let done = &transcoding.done;
            eprint!("{}{note}", transcoded_text(name, done, args.dry_run));
        }
    }

    /// The total line, after more than one input.
    fn tell_total(&self, args: &FixArgs, readings: &Readings) {
        if self.files + self.skipped <= 1 || args.selection.quiet {
            return;
        }
        let converted = match args.transcode {
            true => format!("{} transcoded, ", self.transcoded),
            false => String::new(),
        };
        let name = format!(
            "total ({}, {} written, {converted}{} skipped)",
            report::count(self.files, "file"),
            self.rewritten,
            self.skipped
        );
        eprint!("{}", report::counts_text(readings, &name, &self.total, 5));
    }
}

/// The fixer the arguments ask for, judging and reading inputs as `settings` say.
fn fixer(args: &FixArgs, settings: Settings) -> Result<Fixer, Error> {
    let not_utf8 = match args.transcode {
        true => NotUtf8::Transcode(Transcode {
            from: args.from,
            on_malformed: match args.lossy {
                true => OnMalformed::Replace,
                false => OnMalformed::Refuse,
            },
        }),
        false => NotUtf8::Skip,
    };
    let mut builder = Fixer::builder();
    builder
        .settings(settings)
        .convert_charset(args.convert_charset.map(Into::into))
        .keep_charset(args.keep_charset)
        .not_utf8(not_utf8)
        .break_hard_links(args.break_hard_links)
        .page_cache(args.no_direct_io)
        // A mirror makes the tree of its inputs; one output file goes where it is told.
        .create_dirs(args.output_dir.is_some())
        // The sequences are listed in the summaries only, which `-q` leaves out.
        .count_sequences(!args.selection.quiet)
        .stream_name("<stdout>");
    if let Some(path) = &args.audit {
        let command_line = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
        builder.audit(path, args.audit_level.into(), command_line);
    }
    builder.build()
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

/// Refuses an `--output-dir` whose parent does not exist: the mirror creates its own tree, under
/// a directory that is there, so that a mistyped path creates no tree of directories elsewhere.
fn check_output_dir(dir: &Path) -> Result<(), Error> {
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match dir.is_dir() || parent.is_dir() {
        true => Ok(()),
        false => Err(Error::NoDirectory {
            path: parent.to_path_buf(),
        }),
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
        // `-` is standard output, as for inputs and for `report -o`.
        return Ok(match output.as_os_str() == "-" {
            true => Destination::Stdout,
            false => Destination::Path(output.clone()),
        });
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

/// Fixes one input into the destination the arguments give it.
fn fix_one(args: &FixArgs, fixer: &Fixer, found: &Found) -> Result<FixOutcome, Error> {
    let backup = args.backup.as_deref();
    match destination(args, found)? {
        Destination::Nowhere => fixer.fix(&found.input, Target::Nowhere),
        Destination::Stdout => {
            let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            fixer.fix(&found.input, Target::Stream(&mut out))
        }
        Destination::Path(path) => fixer.fix(
            &found.input,
            Target::Path {
                path: &path,
                backup,
            },
        ),
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
