//! The audit log of one `fix` run, and the repairs that write to it.
//!
//! [`AuditLog`] owns the log file and the scanner of the run, so the header it writes once at
//! the start always describes the settings every file was repaired with. Its two repairs mirror
//! [`engine::fix_input`] and
//! [`engine::fix_to_path`], with an [`AuditSink`] beside the
//! [`RepairWriter`] on the same single pass, and the same atomic write
//! ([`engine::write_to_path`]); they return the same [`Counts`]
//! and [`Error`]s, so the command line can call one or the other.
//!
//! The log is the only way back from an in-place fix, so it is treated as carefully as the files:
//! it is never created over an existing file, and a file's records are on disk (flushed and
//! synced) before the file is replaced.
//!
//! The audited repairs read their input sequentially, block by block as the engine cuts it,
//! rather than in parallel: line numbers and offsets are counted in order, and the log is one
//! stream.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::hash::Hashing;
use super::record::{AuditLevel, Fingerprint, Header, LoggedPath, Record};
use super::sink::{AuditSink, Both, EitherFailed};
use crate::engine::{self, EngineOptions};
use crate::engine::{Input, Written};
use crate::error::Error;
use crate::mojibake::{Counts, RepairWriter, Scanner};

/// An audit log being written: a header, then the records of every file repaired through it.
pub struct AuditLog {
    out: BufWriter<File>,
    path: PathBuf,
    scanner: Scanner,
    level: AuditLevel,
}

impl AuditLog {
    /// Creates the log at `path` (which must not exist yet) for a run that repairs with
    /// `scanner`, and writes its header; `command_line` is recorded in it.
    pub fn create(
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
            .map_err(log_error)?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        Record::Header(Header::new(scanner, level, command_line))
            .write_line(&mut out)
            .map_err(log_error)?;
        Ok(AuditLog {
            out,
            path: path.to_path_buf(),
            scanner: scanner.clone(),
            level,
        })
    }

    /// Repairs `input` into `out` (named `out_path` in errors and in the log), like
    /// [`engine::fix_input`], and logs what changed. The input itself
    /// is not touched, so its `file` record says it was not rewritten.
    pub fn fix_input<W: Write>(
        &mut self,
        input: &Input,
        out: W,
        out_path: &Path,
    ) -> Result<Counts, Error> {
        let AuditLog {
            out: log,
            path: log_path,
            scanner,
            level,
        } = self;
        let mut sink = AuditSink::new(log, logged_input(input)?, *level, scanner.readings());
        let after = repair_into(scanner, input, &mut sink, out, out_path, log_path)?;
        let (_, counts) = sink
            .finish(after, &out_path.display().to_string(), false)
            .map_err(|source| write_error(log_path, source))?;
        Ok(counts)
    }

    /// Repairs `input` into the file `target` atomically, like
    /// [`engine::fix_to_path`], and logs what changed. When `target`
    /// is the input itself (a fix in place) and there is nothing to repair, the file is logged
    /// but never rewritten; only a file fixed in place is `rewritten` in the log, and so undone.
    pub fn fix_to_path(
        &mut self,
        input: &Input,
        target: &Path,
    ) -> Result<(Counts, Written), Error> {
        let in_place = matches!(input, Input::File(path) if path == target);
        let output = std::path::absolute(target).map_err(|source| write_error(target, source))?;
        let AuditLog {
            out: log,
            path: log_path,
            scanner,
            level,
        } = self;
        let logged = logged_input(input)?;
        engine::write_to_path(
            input,
            target,
            None,
            |out| {
                let mut sink = AuditSink::new(log, logged, *level, scanner.readings());
                let after = repair_into(scanner, input, &mut sink, out, target, log_path)?;
                let rewrites_input = in_place && sink.counts().double_encoded > 0;
                let (log, counts) = sink
                    .finish(after, &output.to_string_lossy(), rewrites_input)
                    .map_err(|source| write_error(log_path, source))?;
                // A replaced file always has its records on disk, however the run ends.
                log.flush()
                    .and_then(|()| log.get_ref().sync_data())
                    .map_err(|source| write_error(log_path, source))?;
                Ok(counts)
            },
            |counts| counts.double_encoded > 0,
        )
    }

    /// Ends the run: the log is flushed and synced.
    pub fn finish(mut self) -> Result<(), Error> {
        self.out
            .flush()
            .and_then(|()| self.out.get_ref().sync_all())
            .map_err(|source| write_error(&self.path, source))
    }
}

/// How a file read is named in the log: its absolute path, or `-` for standard input.
fn logged_input(input: &Input) -> Result<LoggedPath, Error> {
    match input {
        Input::Stdin => Ok(LoggedPath::new(Path::new("-"))),
        Input::File(path) => std::path::absolute(path)
            .map(|absolute| LoggedPath::new(&absolute))
            .map_err(|source| Error::Open {
                path: path.clone(),
                source,
            }),
    }
}

fn write_error(path: &Path, source: io::Error) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Repairs `input` into `out` in one pass, with `sink` on the same scan; returns the
/// fingerprint of the repaired content.
fn repair_into<W: Write, L: Write>(
    scanner: &Scanner,
    input: &Input,
    sink: &mut AuditSink<'_, L>,
    out: W,
    out_path: &Path,
    log_path: &Path,
) -> Result<Fingerprint, Error> {
    let mut writer = RepairWriter::new(Hashing::new(out));
    let each = |block: &[u8], _offset: u64| {
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
    let options = EngineOptions::default();
    engine::for_each_block_in_order(input, scanner.readings(), &options, each)?;
    let mut repaired = writer.into_inner();
    repaired
        .flush()
        .map_err(|source| write_error(out_path, source))?;
    Ok(repaired.fingerprint())
}
