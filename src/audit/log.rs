//! The audit log of one `fix` run, and the repairs that write to it.
//!
//! [`AuditLog`] owns the log file and the scanner of the run, so the header it writes once at
//! the start always describes the settings every file was repaired with. Its repairs mirror
//! `engine::fix_input` and `engine::fix_to_path` for plain text, [`dump::fix_dump`] and
//! `dump::fix_dump_to_path` for SQL dumps, with an [`AuditSink`] beside the repair on the
//! same single pass, and the same atomic write (`engine::write_to_path`); they return the
//! same results and [`Error`]s, so that [`crate::Fixer`] calls one or the other. A dump's repair
//! is the dump mode's own (blobs stay byte-identical), which tells the sink the table, column
//! and row of each repair and each character set name it rewrites.
//!
//! The log is the only way back from an in-place fix, so it is treated as carefully as the files:
//! it is never created over an existing file, a file's records are on disk (flushed and synced)
//! before the file is replaced, every record is linked to the one before it
//! ([`ChainedLog`]), and `AuditLog::finish` closes the run with an `end` record, so that a log
//! missing its last records is seen as such.
//!
//! The audited repairs read their input sequentially, block by block as the engine cuts it,
//! rather than in parallel: line numbers and offsets are counted in order, and the log is one
//! stream.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::chain::ChainedLog;
use super::hash::Hashing;
use super::record::{AuditLevel, Cell, End, Header, LoggedPath, Record};
use super::sink::{AuditSink, Both, EitherFailed};
use crate::dump::{self, DumpAudit, DumpOptions, DumpReport};
use crate::engine::{self, EngineOptions};
use crate::engine::{Input, Written};
use crate::error::Error;
use crate::mojibake::{Counts, RepairWriter, Run, Scanner, Sink};

/// An audit log being written: a header, then the records of every file repaired through it.
pub struct AuditLog {
    out: ChainedLog<BufWriter<File>>,
    path: PathBuf,
    scanner: Scanner,
    level: AuditLevel,
    /// What the `end` record counts: `file` records written, and those that say `rewritten`.
    closed: End,
}

impl AuditLog {
    /// Creates the log at `path` (which must not exist yet) for a run that repairs with
    /// `scanner`, and writes its header; `command_line` is recorded in it.
    pub(crate) fn create(
        path: &Path,
        scanner: &Scanner,
        level: AuditLevel,
        command_line: impl IntoIterator<Item = String>,
    ) -> Result<AuditLog, Error> {
        let log_error = |source| Error::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| match source.kind() {
                io::ErrorKind::AlreadyExists => Error::Usage(format!(
                    "{}: the audit log exists already, and a log is never written over (it may \
                     be the only way back from an earlier fix): name a new file, or move this \
                     one away; nothing was fixed",
                    path.display()
                )),
                _ => log_error(source),
            })?;
        let mut out = ChainedLog::new(BufWriter::with_capacity(1 << 16, file));
        out.write(&Record::Header(Header::new(scanner, level, command_line)))
            .map_err(log_error)?;
        Ok(AuditLog {
            out,
            path: path.to_path_buf(),
            scanner: scanner.clone(),
            level,
            closed: End {
                files: 0,
                rewritten: 0,
            },
        })
    }

    /// Repairs `input` into `out` (named `out_path` in errors and in the log), like
    /// [`engine::fix_input`], and logs what changed. The input itself
    /// is not touched, so its `file` record says it was not rewritten.
    pub(crate) fn fix_input<W: Write>(
        &mut self,
        input: &Input,
        mut out: W,
        out_path: &Path,
        engine: &EngineOptions,
    ) -> Result<Counts, Error> {
        let repair = PlainText { engine };
        let ((), counts) = self.log_stream(repair, input, &mut out, out_path)?;
        Ok(counts)
    }

    /// Repairs `input` into the file `target` atomically, like
    /// [`engine::fix_to_path`], and logs what changed. When `target`
    /// is the input itself (a fix in place) and there is nothing to repair, the file is logged
    /// but never rewritten; only a file fixed in place is `rewritten` in the log, and so undone.
    pub(crate) fn fix_to_path(
        &mut self,
        input: &Input,
        target: &Path,
        engine: &EngineOptions,
        replacing: engine::Replacing<'_>,
    ) -> Result<(Counts, Written), Error> {
        let repair = PlainText { engine };
        let (((), counts), written) = self.log_to_path(repair, input, target, replacing)?;
        Ok((counts, written))
    }

    /// Repairs the SQL dump `input` into `out`, like [`dump::fix_dump`] (only the values of its
    /// text columns, and with `options.convert_charset` its `latin1` declarations), and logs
    /// every change with the table, column and row it lies in.
    pub(crate) fn fix_dump_input<W: Write>(
        &mut self,
        input: &Input,
        mut out: W,
        out_path: &Path,
        options: &DumpOptions,
        engine: &EngineOptions,
    ) -> Result<DumpReport, Error> {
        let repair = Dump { options, engine };
        let (report, _) = self.log_stream(repair, input, &mut out, out_path)?;
        Ok(report)
    }

    /// Repairs the SQL dump `input` into the file `target` atomically, like
    /// [`dump::fix_dump_to_path`], and logs every change as [`AuditLog::fix_dump_input`] does.
    /// A dump fixed in place is rewritten (and logged so) when anything changed: a repair, or a
    /// character set declaration.
    pub(crate) fn fix_dump_to_path(
        &mut self,
        input: &Input,
        target: &Path,
        options: &DumpOptions,
        engine: &EngineOptions,
        replacing: engine::Replacing<'_>,
    ) -> Result<(DumpReport, Written), Error> {
        let repair = Dump { options, engine };
        let ((report, _), written) = self.log_to_path(repair, input, target, replacing)?;
        Ok((report, written))
    }

    /// Repairs `input` into the stream `out` with `repair`, and logs it.
    fn log_stream<R: AuditedRepair>(
        &mut self,
        repair: R,
        input: &Input,
        out: &mut dyn Write,
        out_path: &Path,
    ) -> Result<(R::Done, Counts), Error> {
        let output = out_path.display().to_string();
        self.log_file(repair, input, out, out_path, &output, false)
    }

    /// Repairs `input` into the file `target` atomically with `repair`, replacing it as
    /// `replacing` says, and logs it: the file's records are on disk before `target` is
    /// replaced.
    fn log_to_path<R: AuditedRepair>(
        &mut self,
        repair: R,
        input: &Input,
        target: &Path,
        replacing: engine::Replacing<'_>,
    ) -> Result<((R::Done, Counts), Written), Error> {
        let in_place = matches!(input, Input::File(path) if path == target);
        let output = std::path::absolute(target).map_err(|source| write_error(target, source))?;
        let output = output.to_string_lossy();
        engine::write_to_path(
            input,
            target,
            replacing,
            |out| {
                let logged = self.log_file(repair, input, out, target, &output, in_place)?;
                // A replaced file always has its records on disk, however the run ends.
                let log = self.out.get_mut();
                log.flush()
                    .and_then(|()| log.get_ref().sync_data())
                    .map_err(|source| write_error(&self.path, source))?;
                Ok(logged)
            },
            |(done, counts)| R::changed(done, counts),
        )
    }

    /// Repairs `input` into `out` (named `out_path` in errors, `output` in the log) with
    /// `repair` and an [`AuditSink`] beside it, then writes the file's closing records; a file
    /// repaired `in_place` is logged as rewritten when the repair changed anything.
    fn log_file<R: AuditedRepair>(
        &mut self,
        repair: R,
        input: &Input,
        out: &mut dyn Write,
        out_path: &Path,
        output: &str,
        in_place: bool,
    ) -> Result<(R::Done, Counts), Error> {
        let AuditLog {
            out: log,
            path: log_path,
            scanner,
            level,
            closed,
        } = self;
        let mut sink = AuditSink::new(log, logged_input(input)?, *level, scanner.readings());
        if let Some(range) = &repair.engine().range {
            sink.in_range(range.start);
        }
        let mut repaired = Hashing::new(out);
        let done = repair.repair(scanner, input, &mut sink, &mut repaired, out_path, log_path)?;
        repaired
            .flush()
            .map_err(|source| write_error(out_path, source))?;
        let rewritten = in_place && R::changed(&done, sink.counts());
        let counts = sink
            .finish(repaired.fingerprint(), output, rewritten)
            .map_err(|source| write_error(log_path, source))?;
        closed.files += 1;
        closed.rewritten += u64::from(rewritten);
        Ok((done, counts))
    }

    /// Ends the run: the `end` record is written, and the log flushed and synced.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        self.out
            .write(&Record::End(self.closed))
            .and_then(|()| self.out.get_mut().flush())
            .and_then(|()| self.out.get_ref().get_ref().sync_all())
            .map_err(|source| write_error(&self.path, source))
    }
}

/// How a file read is named in the log: its absolute path, or `-` for standard input.
fn logged_input(input: &Input) -> Result<LoggedPath, Error> {
    match input {
        Input::Stream(stream) => Ok(LoggedPath::new(stream.name())),
        Input::File(path) => logged_path(path)
            .map(|absolute| LoggedPath::new(&absolute))
            .map_err(|source| Error::Open {
                path: path.clone(),
                source,
            }),
    }
}

/// The absolute path of `path` as the log names it, without `..`: `undo` refuses a path that
/// climbs, so a path that does has its directory resolved (symbolic links too, since `..` after
/// a link is not the directory the link is in); any other path keeps its links as written.
fn logged_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let climbs = absolute
        .components()
        .any(|part| part == std::path::Component::ParentDir);
    match (climbs, absolute.parent(), absolute.file_name()) {
        (true, Some(dir), Some(name)) => Ok(dir.canonicalize()?.join(name)),
        _ => Ok(absolute),
    }
}

fn write_error(path: &Path, source: io::Error) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// A way of repairing one file with an [`AuditSink`] beside it, so that one audited path
/// serves plain text and SQL dumps.
trait AuditedRepair {
    /// What the repair reports besides the sink's counts.
    type Done;

    /// Repairs `input` into `out` (named `out_path` in errors), telling `sink` every run and
    /// every change in order, and every block once, as [`Sink::end`] takes them; the sink's
    /// errors are the log's (`log_path`).
    fn repair<L: Write>(
        self,
        scanner: &Scanner,
        input: &Input,
        sink: &mut AuditSink<'_, L>,
        out: &mut dyn Write,
        out_path: &Path,
        log_path: &Path,
    ) -> Result<Self::Done, Error>;

    /// Whether the repair changed anything, so that a file fixed in place is replaced.
    fn changed(done: &Self::Done, counts: &Counts) -> bool;

    /// How the input is read: its blocks, and the range of them repaired.
    fn engine(&self) -> &EngineOptions;
}

/// The plain repair: every run the rule accepts, wherever it is.
struct PlainText<'o> {
    engine: &'o EngineOptions,
}

impl AuditedRepair for PlainText<'_> {
    type Done = ();

    fn repair<L: Write>(
        self,
        scanner: &Scanner,
        input: &Input,
        sink: &mut AuditSink<'_, L>,
        out: &mut dyn Write,
        out_path: &Path,
        log_path: &Path,
    ) -> Result<(), Error> {
        let mut writer = RepairWriter::new(out);
        let each = |block: &[u8], offset: u64| {
            sink.block_at(offset);
            let mut both = Both {
                first: &mut writer,
                second: &mut *sink,
            };
            scanner
                .scan(block, &mut both)
                .map_err(|failed| match failed {
                    EitherFailed::First(source) => write_error(out_path, source),
                    EitherFailed::Second(source) => write_error(log_path, source),
                })
        };
        engine::for_each_block_in_order(input, scanner.readings(), self.engine, each)?;
        writer
            .into_inner()
            .flush()
            .map_err(|source| write_error(out_path, source))
    }

    fn changed((): &(), counts: &Counts) -> bool {
        counts.changes() > 0
    }

    fn engine(&self) -> &EngineOptions {
        self.engine
    }
}

/// The dump-aware repair: only the values of text columns, and `--convert-charset`.
struct Dump<'o> {
    options: &'o DumpOptions,
    engine: &'o EngineOptions,
}

impl AuditedRepair for Dump<'_> {
    type Done = DumpReport;

    fn repair<L: Write>(
        self,
        scanner: &Scanner,
        input: &Input,
        sink: &mut AuditSink<'_, L>,
        out: &mut dyn Write,
        out_path: &Path,
        log_path: &Path,
    ) -> Result<DumpReport, Error> {
        let mut audit = DumpLog { sink, log_path };
        let pass = dump::DumpPass {
            scanner,
            options: self.options,
            engine: self.engine,
        };
        let mut out = out;
        let output = dump::DumpOutput {
            out: &mut out,
            path: out_path,
            audit: Some(&mut audit),
        };
        dump::fix_dump(&pass, input, output)
    }

    fn changed(report: &DumpReport, _counts: &Counts) -> bool {
        report.changed()
    }

    fn engine(&self) -> &EngineOptions {
        self.engine
    }
}

/// An [`AuditSink`] as the dump mode tells it what it does.
struct DumpLog<'s, 'r, L> {
    sink: &'s mut AuditSink<'r, L>,
    log_path: &'s Path,
}

impl<L: Write> DumpAudit for DumpLog<'_, '_, L> {
    fn begin(&mut self, base: u64) {
        self.sink.block_at(base);
    }

    fn run(&mut self, buffer: &[u8], run: &Run<'_>, cell: Option<&Cell>) -> Result<(), Error> {
        self.sink
            .run_in(buffer, run, cell)
            .map_err(|source| write_error(self.log_path, source))
    }

    fn rewrite(
        &mut self,
        buffer: &[u8],
        span: Range<usize>,
        replacement: &[u8],
    ) -> Result<(), Error> {
        self.sink
            .rewrite(buffer, span, replacement)
            .map_err(|source| write_error(self.log_path, source))
    }

    fn end(&mut self, buffer: &[u8]) -> Result<(), Error> {
        self.sink
            .end(buffer)
            .map_err(|source| write_error(self.log_path, source))
    }
}
