//! Undo: puts back, byte for byte, every file an audit log says `fix` rewrote.
//!
//! A file is only replaced when three things hold, so that an undo can never make things worse:
//! the file is exactly what the fix left (its size and SHA-256 are the log's "after"); every
//! replacement the log lists is found where it says; and the rebuilt content is exactly what the
//! fix read (the log's "before"). The rebuild goes to a temporary file beside the target, which
//! takes the target's place atomically only then; on any doubt the file is left as it is, the
//! refusal names it, and the other files are still restored.
//!
//! The check and the rebuild are one pass over the file: it is hashed while it is copied, and
//! the hash is compared before anything is renamed. Memory does not grow with the log: a first
//! pass over the log notes where each file's change records begin, and the second reads them
//! from there, one at a time. Files are restored in the reverse order of the log, so a file a
//! run rewrote twice is taken back through its later state first.
//!
//! A change record holds the offset of the bytes it changed in the original. Between two changes
//! the file is as it was, so a walk in log order copies the bytes between the end of one
//! change's original and the start of the next, then swaps the next replacement back for its
//! original: a replacement may be shorter than its original (a repair) or longer (a character
//! set name), and the walk counts both files' positions from what it reads, never from a
//! difference of lengths.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::hash::Hashing;
use super::record::{AuditLevel, Change, FileRecord, Fingerprint, OLDEST_SCHEMA, Record, SCHEMA};
use crate::engine::replace::Replacement;
use crate::report::hex;

/// What an undo did (or, for [`check_undo`], would do) to each file the log says was rewritten.
#[derive(Debug)]
pub struct UndoReport {
    /// In the order they were handled: the reverse of the log's.
    pub files: Vec<FileUndo>,
}

impl UndoReport {
    /// True when every file was restored (or could be).
    pub fn all_restored(&self) -> bool {
        self.files.iter().all(|file| file.result.is_ok())
    }
}

/// One file an undo handled.
#[derive(Debug)]
pub struct FileUndo {
    pub path: PathBuf,
    /// How many changes the log records for it.
    pub changes: u64,
    /// `Ok` when restored; otherwise why it was refused and left as it is.
    pub result: Result<(), AuditError>,
}

/// A line of an audit log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub log: PathBuf,
    pub line: u64,
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.log.display(), self.line)
    }
}

/// A file that is not what the fix left.
#[derive(Debug)]
pub struct ChangedSince {
    pub path: PathBuf,
    /// The line of its `file` record.
    pub at: LogLine,
    /// What the log says the fix left.
    pub expected: Fingerprint,
    /// What the file is now.
    pub found: Fingerprint,
}

/// Why an audit log cannot be used, or why one file was not restored.
#[derive(Debug)]
pub enum AuditError {
    /// The log could not be read.
    ReadLog { log: PathBuf, source: io::Error },
    /// A line of the log does not follow the schema, or the log contradicts itself.
    BadLog { at: LogLine, problem: String },
    /// The log was written at the summary level: it records no single change to take back.
    SummaryOnly { log: PathBuf },
    /// The file changed since the fix: restoring it would lose that change.
    Modified(Box<ChangedSince>),
    /// The file is not what the log says the fix made of it, in a way its hash did not show.
    Mismatch {
        path: PathBuf,
        at: LogLine,
        problem: String,
    },
    /// Reading or replacing the file failed.
    File {
        path: PathBuf,
        doing: &'static str,
        source: io::Error,
    },
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::ReadLog { log, source } => {
                write!(f, "{}: cannot read the audit log: {source}", log.display())
            }
            AuditError::BadLog { at, problem } => write!(f, "{at}: {problem}"),
            AuditError::SummaryOnly { log } => write!(
                f,
                "{}: the audit log was written with --audit-level summary; it records no single \
                 change, so the fix cannot be undone from it",
                log.display()
            ),
            AuditError::Modified(changed) => write!(
                f,
                "{}: refused: the file changed since the fix (it has {}; the audit log says the \
                 fix left {}, {})",
                changed.path.display(),
                changed.found,
                changed.expected,
                changed.at
            ),
            AuditError::Mismatch { path, at, problem } => {
                write!(f, "{}: refused: {problem} ({at})", path.display())
            }
            AuditError::File {
                path,
                doing,
                source,
            } => write!(f, "cannot {doing} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for AuditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AuditError::ReadLog { source, .. } | AuditError::File { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Restores every file the audit log at `log` says was rewritten to its content before the fix.
///
/// An error is a log that cannot be used at all; a file that cannot be restored is reported in
/// the [`UndoReport`] and the others are restored all the same.
pub fn undo(log: &Path) -> Result<UndoReport, AuditError> {
    undo_log(log, Mode::Restore)
}

/// Checks, like [`undo`], that every file could be restored, and changes nothing.
///
/// Each file is checked against what it is now; a file a run rewrote twice is refused here for
/// its earlier rewrite, which only the undo of the later one would make possible.
pub fn check_undo(log: &Path) -> Result<UndoReport, AuditError> {
    undo_log(log, Mode::Check)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Restore,
    Check,
}

/// Where a line starts in the log.
#[derive(Clone, Copy, Debug)]
struct Position {
    offset: u64,
    line: u64,
}

/// A rewritten file, as the first pass over the log found it.
struct Plan {
    record: FileRecord,
    path: PathBuf,
    /// The line of its `file` record.
    at: LogLine,
    /// Where its change records begin.
    changes: Position,
}

fn undo_log(log: &Path, mode: Mode) -> Result<UndoReport, AuditError> {
    let mut lines = LogLines::open(log)?;
    let plans = plan(&mut lines)?;
    let mut files = Vec::with_capacity(plans.len());
    for plan in plans.into_iter().rev() {
        let result = restore(&plan, &mut lines, mode);
        files.push(FileUndo {
            path: plan.path,
            changes: plan.record.change_records,
            result,
        });
    }
    Ok(UndoReport { files })
}

/// The first pass: checks the header and the shape of the log, and lists the rewritten files.
fn plan(lines: &mut LogLines) -> Result<Vec<Plan>, AuditError> {
    let mut header_seen = false;
    let mut changes_start = None;
    let mut changes_seen = 0u64;
    let mut plans = Vec::new();
    while let Some((position, record)) = lines.next_record()? {
        let bad = |problem: String| AuditError::BadLog {
            at: lines.at(position),
            problem,
        };
        match record {
            Record::Header(header) => {
                if header_seen {
                    return Err(bad("a second header record".into()));
                }
                if !readable(u64::from(header.schema)) {
                    return Err(bad(unknown_schema(u64::from(header.schema))));
                }
                if header.level == AuditLevel::Summary {
                    return Err(AuditError::SummaryOnly {
                        log: lines.log.clone(),
                    });
                }
                header_seen = true;
            }
            _ if !header_seen => {
                return Err(bad(
                    "the audit log does not start with a header record".into()
                ));
            }
            Record::Change(_) => {
                changes_start.get_or_insert(position);
                changes_seen += 1;
            }
            Record::Sequence(_) => {}
            Record::File(record) => {
                if record.change_records != changes_seen {
                    return Err(bad(format!(
                        "the file record counts {} change records, but {changes_seen} precede it",
                        record.change_records
                    )));
                }
                if record.rewritten {
                    let path = record.file.to_path_buf().ok_or_else(|| {
                        bad(format!(
                            "the path {:?} cannot name a file on this system",
                            record.file.path
                        ))
                    })?;
                    plans.push(Plan {
                        at: lines.at(position),
                        changes: changes_start.unwrap_or(position),
                        path,
                        record,
                    });
                }
                changes_start = None;
                changes_seen = 0;
            }
        }
    }
    if !header_seen {
        return Err(AuditError::BadLog {
            at: lines.at(Position { offset: 0, line: 1 }),
            problem: "the audit log is empty".into(),
        });
    }
    Ok(plans)
}

/// Whether this build reads logs of `schema`.
fn readable(schema: u64) -> bool {
    (u64::from(OLDEST_SCHEMA)..=u64::from(SCHEMA)).contains(&schema)
}

fn unknown_schema(schema: u64) -> String {
    format!(
        "the audit log has schema {schema}; this undouble reads schemas {OLDEST_SCHEMA} to {SCHEMA}"
    )
}

/// Restores (or checks) one file; it is replaced only when everything checked out.
fn restore(plan: &Plan, lines: &mut LogLines, mode: Mode) -> Result<(), AuditError> {
    let path = &plan.path;
    let file_error = |doing| {
        move |source| AuditError::File {
            path: path.clone(),
            doing,
            source,
        }
    };
    let file = File::open(path).map_err(file_error("open"))?;
    let permissions = file.metadata().map_err(file_error("read"))?.permissions();
    let mut current = Hashing::new(BufReader::with_capacity(1 << 20, file));
    lines.seek(plan.changes)?;
    match mode {
        Mode::Check => rebuild_checked(plan, &mut current, lines, io::sink()),
        Mode::Restore => {
            let replacement =
                Replacement::beside(path).map_err(file_error("create a temporary file beside"))?;
            let out = BufWriter::with_capacity(1 << 20, replacement.file());
            rebuild_checked(plan, &mut current, lines, out)?;
            replacement
                .commit(Some(permissions))
                .map_err(file_error("replace"))
        }
    }
}

/// Rebuilds the original of `current` into `out`, then checks the file against the log's
/// "after" and the rebuilt content against its "before".
fn rebuild_checked<R: Read, W: Write>(
    plan: &Plan,
    current: &mut Hashing<R>,
    lines: &mut LogLines,
    out: W,
) -> Result<(), AuditError> {
    let mut out = Hashing::new(out);
    let rebuilt = rebuild(plan, current, lines, &mut out);
    // Whatever stopped the rebuild, the whole file is hashed: a file that changed since the fix
    // is refused as such, whatever else is wrong.
    let drained = copy(current, &mut io::sink(), u64::MAX, &plan.path);
    let found = current.fingerprint();
    let expected = plan.record.after();
    if drained.is_ok() && found != expected {
        return Err(AuditError::Modified(Box::new(ChangedSince {
            path: plan.path.clone(),
            at: plan.at.clone(),
            expected,
            found,
        })));
    }
    rebuilt?;
    drained?;
    out.flush()
        .map_err(|source| write_error(&plan.path, source))?;
    let restored = out.fingerprint();
    let before = plan.record.before();
    if restored != before {
        return Err(AuditError::Mismatch {
            path: plan.path.clone(),
            at: plan.at.clone(),
            problem: format!(
                "the rebuilt content has {restored}, but the fix read {before}; the file is \
                 left as it is"
            ),
        });
    }
    Ok(())
}

/// Walks the change records of `plan`, copying `current` to `out` with every replacement
/// swapped back for the original bytes, up to the end of the file.
fn rebuild<R: Read, W: Write>(
    plan: &Plan,
    current: &mut R,
    lines: &mut LogLines,
    out: &mut W,
) -> Result<(), AuditError> {
    let path = &plan.path;
    let mut original_done = 0u64; // bytes of the original before the fix accounted for
    let mut current_done = 0u64; // bytes of the current file consumed
    let mut found = Vec::new();
    for _ in 0..plan.record.change_records {
        let (at, change) = lines.next_change(plan)?;
        let mismatch = |problem: String| AuditError::Mismatch {
            path: path.clone(),
            at: at.clone(),
            problem,
        };
        let original = &change.substitution.original_hex.0;
        let replacement = &change.substitution.replacement_hex.0;
        let gap = change.offset.checked_sub(original_done).ok_or_else(|| {
            mismatch(format!(
                "the change at offset {} overlaps the one before it",
                change.offset
            ))
        })?;
        let ends_early = || {
            mismatch(format!(
                "the file ends before the change at offset {}",
                change.offset
            ))
        };
        if copy(current, out, gap, path)? < gap {
            return Err(ends_early());
        }
        found.resize(replacement.len(), 0);
        current.read_exact(&mut found).map_err(|source| {
            if source.kind() == io::ErrorKind::UnexpectedEof {
                ends_early()
            } else {
                read_error(path, source)
            }
        })?;
        if found != *replacement {
            return Err(mismatch(format!(
                "byte {} holds {}, where the fix wrote {} (in place of {} at offset {})",
                current_done + gap,
                hex(&found, " "),
                hex(replacement, " "),
                hex(original, " "),
                change.offset
            )));
        }
        out.write_all(original)
            .map_err(|source| write_error(path, source))?;
        original_done = change.offset + original.len() as u64;
        current_done += gap + replacement.len() as u64;
    }
    copy(current, out, u64::MAX, path)?;
    Ok(())
}

/// Copies up to `limit` bytes; returns how many there were.
fn copy<R: Read, W: Write>(
    from: &mut R,
    to: &mut W,
    limit: u64,
    path: &Path,
) -> Result<u64, AuditError> {
    let mut buffer = vec![0u8; 1 << 16];
    let mut copied = 0u64;
    while copied < limit {
        let want = usize::try_from(limit - copied).map_or(buffer.len(), |n| n.min(buffer.len()));
        let read = match from.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(read_error(path, source)),
        };
        to.write_all(&buffer[..read])
            .map_err(|source| write_error(path, source))?;
        copied += read as u64;
    }
    Ok(copied)
}

fn read_error(path: &Path, source: io::Error) -> AuditError {
    AuditError::File {
        path: path.to_path_buf(),
        doing: "read",
        source,
    }
}

fn write_error(path: &Path, source: io::Error) -> AuditError {
    AuditError::File {
        path: path.to_path_buf(),
        doing: "write the restored copy of",
        source,
    }
}

/// The records of a log, read line by line from any position.
struct LogLines {
    reader: BufReader<File>,
    log: PathBuf,
    next: Position,
    text: String,
}

impl LogLines {
    fn open(log: &Path) -> Result<LogLines, AuditError> {
        let file = File::open(log).map_err(|source| AuditError::ReadLog {
            log: log.to_path_buf(),
            source,
        })?;
        Ok(LogLines {
            reader: BufReader::with_capacity(1 << 16, file),
            log: log.to_path_buf(),
            next: Position { offset: 0, line: 1 },
            text: String::new(),
        })
    }

    fn at(&self, position: Position) -> LogLine {
        LogLine {
            log: self.log.clone(),
            line: position.line,
        }
    }

    fn read_error(&self, source: io::Error) -> AuditError {
        AuditError::ReadLog {
            log: self.log.clone(),
            source,
        }
    }

    fn seek(&mut self, to: Position) -> Result<(), AuditError> {
        self.reader
            .seek(SeekFrom::Start(to.offset))
            .map_err(|source| self.read_error(source))?;
        self.next = to;
        Ok(())
    }

    /// The next record and where it is; `None` at the end of the log. Blank lines are skipped,
    /// and so is a last line cut short: a run that stopped while writing it had not replaced
    /// the file it was about, since a file's records are complete before it is replaced.
    fn next_record(&mut self) -> Result<Option<(Position, Record)>, AuditError> {
        loop {
            self.text.clear();
            let read = self
                .reader
                .read_line(&mut self.text)
                .map_err(|source| self.read_error(source))?;
            if read == 0 {
                return Ok(None);
            }
            let position = self.next;
            self.next = Position {
                offset: position.offset + read as u64,
                line: position.line + 1,
            };
            if self.text.trim().is_empty() {
                continue;
            }
            return match serde_json::from_str::<Record>(&self.text) {
                Ok(record) => Ok(Some((position, record))),
                Err(_) if !self.text.ends_with('\n') => Ok(None),
                Err(error) => Err(AuditError::BadLog {
                    at: self.at(position),
                    problem: self.parse_problem(error),
                }),
            };
        }
    }

    /// Why the current line is no record: a header of another schema, or what JSON says.
    fn parse_problem(&self, error: serde_json::Error) -> String {
        let value: Option<serde_json::Value> = serde_json::from_str(&self.text).ok();
        let header_schema = value
            .filter(|value| value["type"] == "header")
            .and_then(|value| value["schema"].as_u64());
        match header_schema {
            Some(schema) if !readable(schema) => unknown_schema(schema),
            _ => format!("not an audit record: {error}"),
        }
    }

    /// The next change record, which must be one of `plan`'s file.
    fn next_change(&mut self, plan: &Plan) -> Result<(LogLine, Change), AuditError> {
        let (position, problem) = match self.next_record()? {
            Some((position, Record::Change(change))) if change.file == plan.record.file => {
                return Ok((self.at(position), change));
            }
            Some((position, Record::Change(change))) => (
                position,
                format!(
                    "a change record of {:?} among those of {:?}",
                    change.file.path, plan.record.file.path
                ),
            ),
            other => (
                other.map_or(self.next, |(position, _)| position),
                format!(
                    "expected {} change records of {:?} here",
                    plan.record.change_records, plan.record.file.path
                ),
            ),
        };
        Err(AuditError::BadLog {
            at: self.at(position),
            problem,
        })
    }
}
