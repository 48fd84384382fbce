//! Undo: puts back, byte for byte, every file an audit log says `fix` rewrote.
//!
//! A log may come from elsewhere, so it is read as hostile input. It must hold together: its
//! integrity chain links every record to the one before ([`chain`](super::chain)), and a log
//! whose chain breaks is refused whole, naming the first line that is not as the fix wrote it.
//! A log that stops before the `end` record of its run (a fix that was interrupted, or a log
//! that was cut) is undone for the files it records whole, and reported as such, so that undo
//! never says everything is restored when it cannot know. Every line is bounded in length, and
//! every number checked, so any bytes at all give an error naming the line, in one pass.
//!
//! A file is only written where the user allows ([`Roots`]): a regular file under one of the
//! roots, reached without a symbolic link. And it is only replaced when three things hold, so
//! that an undo can never make things worse: the file is exactly what the fix left (its size and
//! SHA-256 are the log's "after"); every replacement the log lists is found where it says; and the
//! rebuilt content is exactly what the fix read (the log's "before"). The rebuild goes to a
//! temporary file beside the target, which takes the target's place atomically only then; on any
//! doubt the file is left as it is, the refusal names it, and the other files are still restored.
//! A file that is exactly the "before" of the last record of an interrupted run is the original
//! the fix never got to replace: it is said so, and left alone.
//!
//! The check and the rebuild are one pass over the file: it is hashed while it is copied, and
//! the hash is compared before anything is renamed. Memory does not grow with the log: a first
//! pass over the log notes where each file's change records begin, and the second reads them
//! from there, one at a time, checking their links again. Files are restored in the reverse
//! order of the log, so a file a run rewrote twice is taken back through its later state first.
//!
//! The original is rebuilt by a walk of the change records in log order (the `rebuild`
//! module): between two changes the file is as it was, and every replacement must be found
//! where the log puts it.

use std::fmt;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::hash::Hashing;
pub use super::read::MAX_LINE;
use super::read::{LogLines, Next, Position, Shape};
use super::rebuild::{ChangeWalk, copy, rebuild};
use super::record::{Checksum, FileRecord, Fingerprint, Record};
use super::roots::Roots;

/// What an undo did (or, for [`check_undo`], would do) to each file the log says was rewritten.
#[derive(Debug)]
pub struct UndoReport {
    /// In the order they were handled: the reverse of the log's.
    pub files: Vec<FileUndo>,
    /// Why the log does not show the whole run ([`AuditError::Unfinished`]): the files it
    /// records whole were handled all the same.
    pub unfinished: Option<AuditError>,
}

impl UndoReport {
    /// True when every file was restored (or could be), and the log shows the whole run.
    pub fn all_restored(&self) -> bool {
        self.unfinished.is_none() && self.files.iter().all(|file| file.result.is_ok())
    }
}

/// One file an undo handled.
#[derive(Debug)]
pub struct FileUndo {
    /// The path as the log names it.
    pub path: PathBuf,
    /// How many changes the log records for it.
    pub changes: u64,
    /// What became of it; an error is why it was refused and left as it is.
    pub result: Result<Restored, AuditError>,
}

/// A file an undo did not refuse.
#[derive(Debug, PartialEq, Eq)]
pub enum Restored {
    /// Restored (or, in a dry run, it would be) by replacing the file at this path: the path of
    /// the log resolved under its root.
    Replaced(PathBuf),
    /// The last file of a run that was interrupted between its records and its replacement:
    /// the fix never replaced it, and it is still the original the log describes at `at`.
    NeverReplaced { at: LogLine, original: Fingerprint },
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
    /// What the log says the fix read.
    pub before: Fingerprint,
    /// What the file is now.
    pub found: Fingerprint,
}

/// Why an audit log cannot be used, or why one file was not restored.
#[derive(Debug)]
pub enum AuditError {
    /// The log could not be read.
    ReadLog { log: PathBuf, source: io::Error },
    /// A line of the log does not follow the schema, breaks the integrity chain, or the log
    /// contradicts itself.
    BadLog { at: LogLine, problem: String },
    /// The log stops before the `end` record of its run, at `at`.
    Unfinished { at: LogLine },
    /// The log was written at the summary level: it records no single change to take back.
    SummaryOnly { log: PathBuf },
    /// A directory given as a root cannot be one.
    Root { dir: PathBuf, source: io::Error },
    /// The log names a file undo must not write: outside the roots, not a regular file, or
    /// reached through a symbolic link.
    Forbidden {
        path: PathBuf,
        at: LogLine,
        problem: String,
    },
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
            AuditError::BadLog { at, problem } => {
                write!(f, "{at}: the audit log is refused: {problem}")
            }
            AuditError::Unfinished { at } => write!(
                f,
                "{at}: the audit log stops here, without the `end` record that closes a run: \
                 the fix that wrote it did not finish, or the log was cut; a file rewritten \
                 after this point would not be in it, so undo cannot say all is restored"
            ),
            AuditError::SummaryOnly { log } => write!(
                f,
                "{}: the audit log was written with --audit-level summary; it records no single \
                 change, so the fix cannot be undone from it",
                log.display()
            ),
            AuditError::Root { dir, source } => {
                write!(f, "{}: cannot be a root for undo: {source}", dir.display())
            }
            AuditError::Forbidden { path, at, problem } => {
                write!(f, "{}: refused: {problem} ({at})", path.display())
            }
            AuditError::Modified(changed) if changed.found == changed.before => write!(
                f,
                "{}: refused: the file is already as the fix found it (it has {}, the log's \
                 before): it was restored already, or the fix never replaced it ({})",
                changed.path.display(),
                changed.found,
                changed.at
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
            AuditError::ReadLog { source, .. }
            | AuditError::File { source, .. }
            | AuditError::Root { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Restores every file the audit log at `log` says was rewritten to its content before the fix,
/// if it lies under `roots`.
///
/// An error is a log that cannot be used at all (nothing is written then); a file that cannot
/// be restored is reported in the [`UndoReport`] and the others are restored all the same.
pub fn undo(log: &Path, roots: &Roots) -> Result<UndoReport, AuditError> {
    undo_log(log, roots, Mode::Restore)
}

/// Checks, like [`undo`], that every file could be restored, and changes nothing.
///
/// Each file is checked against what it is now; a file a run rewrote twice is refused here for
/// its earlier rewrite, which only the undo of the later one would make possible.
pub fn check_undo(log: &Path, roots: &Roots) -> Result<UndoReport, AuditError> {
    undo_log(log, roots, Mode::Check)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Restore,
    Check,
}

/// A rewritten file, as the first pass over the log found it.
struct Plan {
    record: FileRecord,
    path: PathBuf,
    /// The line of its `file` record.
    at: LogLine,
    /// Where its change records begin.
    changes: Position,
    /// The link the first of them carries (or, without changes, the file record).
    changes_link: Option<Checksum>,
    /// The link the file record carries: the hash of the last change record.
    closing_link: Option<Checksum>,
    /// Whether it is the last record of a log that stops before its `end` record: the fix may
    /// have stopped before it replaced the file.
    last_of_unfinished: bool,
}

/// The first pass: the rewritten files, and whether the log stops before its end.
struct Planned {
    plans: Vec<Plan>,
    unfinished: Option<AuditError>,
}

fn undo_log(log: &Path, roots: &Roots, mode: Mode) -> Result<UndoReport, AuditError> {
    let mut lines = LogLines::open(log)?;
    let Planned { plans, unfinished } = plan(&mut lines)?;
    let mut files = Vec::with_capacity(plans.len());
    for plan in plans.into_iter().rev() {
        let result = restore(&plan, &mut lines, roots, mode);
        files.push(FileUndo {
            path: plan.path,
            changes: plan.record.change_records,
            result,
        });
    }
    Ok(UndoReport { files, unfinished })
}

/// The first pass: checks the header, the chain and the shape of the log, and lists the
/// rewritten files.
fn plan(lines: &mut LogLines) -> Result<Planned, AuditError> {
    let mut schema = None;
    let mut shape = Shape::default();
    let mut plans = Vec::new();
    let mut ended = false;
    let mut last_is_plan = false;
    let stop = loop {
        let (position, record, link) = match lines.next_record()? {
            Next::Record(position, record, link) => (position, record, link),
            Next::Cut(position) if schema.is_none() => {
                return Err(lines.bad(position, "the log is cut short in its first line".into()));
            }
            // The fix went on past the last file record, so it replaced that file.
            Next::Cut(position) if lines.chained => {
                last_is_plan = false;
                break Some(position);
            }
            // A log of an older schema that stops inside a line: as before the chain, its
            // last line is not read.
            Next::Cut(_) => break None,
            Next::End if ended || !lines.chained => break None,
            Next::End => break Some(lines.next),
        };
        let bad = |problem: String| lines.bad(position, problem);
        if ended {
            return Err(bad(
                "a record after the `end` record that closes the run".into()
            ));
        }
        let is_plan = matches!(&*record, Record::File(file) if file.rewritten);
        match (*record, schema) {
            (Record::Header(header), None) => {
                lines.take_header(&header, position, link)?;
                schema = Some(header.schema);
            }
            (Record::Header(_), Some(_)) => return Err(bad("a second header record".into())),
            (_, None) => {
                return Err(bad(
                    "the audit log does not start with a header record".into()
                ));
            }
            (_, Some(version)) if !lines.chained && link.is_some() => {
                return Err(bad(format!(
                    "a `prev` link in a log of schema {version}, which has no integrity chain"
                )));
            }
            (Record::End(_), Some(version)) if !lines.chained => {
                return Err(bad(format!(
                    "an `end` record in a log of schema {version}, which has none"
                )));
            }
            (Record::Change(_), _) => shape.change(position, link),
            (Record::Sequence(_), _) => {}
            (Record::File(record), _) => {
                let (changes, changes_link) = shape.file(&record, position, link).map_err(bad)?;
                if record.rewritten {
                    let path = record.file.to_path_buf().ok_or_else(|| {
                        bad(format!(
                            "the path {:?} cannot name a file on this system",
                            record.file.path
                        ))
                    })?;
                    plans.push(Plan {
                        at: lines.at(position),
                        changes,
                        changes_link,
                        closing_link: link,
                        path,
                        record,
                        last_of_unfinished: false,
                    });
                }
            }
            (Record::End(end), _) => {
                shape.end(end).map_err(bad)?;
                ended = true;
            }
        }
        last_is_plan = is_plan;
    };
    if schema.is_none() {
        return Err(lines.bad(
            Position { offset: 0, line: 1 },
            "the audit log is empty".into(),
        ));
    }
    let unfinished = stop.map(|position| AuditError::Unfinished {
        at: lines.at(position),
    });
    if unfinished.is_some()
        && last_is_plan
        && let Some(last) = plans.last_mut()
    {
        last.last_of_unfinished = true;
    }
    Ok(Planned { plans, unfinished })
}

/// Restores (or checks) one file; it is replaced only when everything checked out.
fn restore(
    plan: &Plan,
    lines: &mut LogLines,
    roots: &Roots,
    mode: Mode,
) -> Result<Restored, AuditError> {
    let target = roots.target(&plan.path, &plan.at)?;
    let path = &target.path;
    let file_error = |doing| {
        move |source| AuditError::File {
            path: path.clone(),
            doing,
            source,
        }
    };
    let (file, metadata) = target.open(&plan.path, &plan.at)?;
    let mut current = Hashing::new(BufReader::with_capacity(1 << 20, file));
    lines.seek(plan.changes, plan.changes_link)?;
    let untouched = match mode {
        Mode::Check => rebuild_checked(plan, &mut current, lines, io::sink())?,
        Mode::Restore => {
            let replacement = target
                .replacement()
                .map_err(file_error("create a temporary file beside"))?;
            let out = BufWriter::with_capacity(1 << 20, replacement.file());
            let untouched = rebuild_checked(plan, &mut current, lines, out)?;
            if untouched.is_none() {
                target.recheck(&plan.path, &plan.at)?;
                replacement
                    .commit(Some(metadata.permissions()))
                    .map_err(file_error("replace"))?;
            }
            untouched
        }
    };
    Ok(untouched.unwrap_or_else(|| Restored::Replaced(target.path.clone())))
}

/// Rebuilds the original of `current` into `out`, then checks the file against the log's
/// "after" and the rebuilt content against its "before". `Some` is a file to leave as it is
/// without refusing it: the original an interrupted fix never replaced.
fn rebuild_checked<R: Read, W: Write>(
    plan: &Plan,
    current: &mut Hashing<R>,
    lines: &mut LogLines,
    out: W,
) -> Result<Option<Restored>, AuditError> {
    let mut out = Hashing::new(out);
    // One buffer for every copy between two changes, however many there are.
    let mut buffer = vec![0u8; 1 << 16];
    let walk = ChangeWalk {
        path: &plan.path,
        file: &plan.record.file,
        count: plan.record.change_records,
        closing_link: plan.closing_link,
        at: &plan.at,
        base: 0,
    };
    let rebuilt = rebuild(&walk, current, lines, &mut out, &mut buffer, |_, _| Ok(()));
    // Whatever stopped the rebuild, the whole file is hashed: a file that changed since the fix
    // is refused as such, whatever else is wrong.
    let drained = copy(current, &mut io::sink(), u64::MAX, &plan.path, &mut buffer);
    let found = current.fingerprint();
    let expected = plan.record.after();
    let before = plan.record.before();
    if drained.is_ok() && found != expected {
        if plan.last_of_unfinished && found == before {
            return Ok(Some(Restored::NeverReplaced {
                at: plan.at.clone(),
                original: found,
            }));
        }
        return Err(AuditError::Modified(Box::new(ChangedSince {
            path: plan.path.clone(),
            at: plan.at.clone(),
            expected,
            before,
            found,
        })));
    }
    rebuilt?;
    drained?;
    out.flush()
        .map_err(|source| write_error(&plan.path, source))?;
    let restored = out.fingerprint();
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
    Ok(None)
}

fn write_error(path: &Path, source: io::Error) -> AuditError {
    AuditError::File {
        path: path.to_path_buf(),
        doing: "write the restored copy of",
        source,
    }
}
