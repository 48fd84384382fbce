//! Audit logs combined into one: the logs of the ranges of a file, whose parts are joined over
//! the file, and the logs of whole files, whose records are carried over. `undo` of the
//! combined log restores every file.
//!
//! A range fix (`fix --range`) writes its part to another file and its own log, whose `file`
//! record says where in the file the part belongs (`part_offset`). The parts are one fix of
//! the file only once they replace it, and a log can only say a file was rewritten once
//! something replaced it; SHA-256 does not compose, so no log of a range can give the whole
//! file's hashes either. So the merge of range logs is the step that replaces the file, and
//! it writes the log of that replacement: one ordinary log, with the whole file's hashes, that
//! `undo` reads like any other.
//!
//! The logs are read as hostile input, through the reader `undo` uses ([`read`](super::read)):
//! every chain must hold and every log end with its `end` record; the parts of a file must
//! tile it, from its first byte to its last, without gap or overlap; and all the logs must have
//! been written with the same readings and strictness, which the combined header names. While
//! the joined content is written to a temporary file beside the file, each segment of the file
//! is checked against its part's "before" and each part against its "after", each part with
//! its changes walked back (as `undo` walks them) must rebuild its segment exactly, and the
//! whole file's hashes come from the same pass. Hashes alone would not do: anyone can write a
//! log whose chain and hashes hold and whose changes are wrong, and its join could then never
//! be undone. The file and the parts are reached only under the
//! roots the user names ([`Roots`]), as `undo` writes. A file's change records wait in a spool
//! beside the combined log while they are checked, so that a file refused leaves nothing in it;
//! they are in the combined log, on disk, before the joined content takes the file's place
//! atomically, keeping its owner, mode and attributes; on any doubt the file is left as it is, the refusal names it,
//! and the other files are still joined.
//!
//! A change's `line` in a range log counts from its part's first byte: it is given its number
//! in the whole file from the newlines of the segments before it, counted in the same pass. So
//! when the ranges were cut from one run's settings, the combined log holds the very change
//! records an audited fix of the whole file would have written.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::chain::ChainedLog;
use super::hash::{ContentHasher, Hashing};
use super::read::{LogLines, Next, Position, Shape, Stopped, read_through};
use super::rebuild::{ChangeWalk, rebuild};
use super::record::{AuditLevel, Change, Checksum, End, FileRecord, Header, LoggedPath, Record};
use super::roots::Roots;
use super::undo::{AuditError, LogLine};
use crate::mojibake::Strictness;

/// What a merge of audit logs did, file by file, in the order of the combined log.
#[derive(Debug)]
pub struct CombineReport {
    pub files: Vec<CombinedFile>,
}

impl CombineReport {
    /// True when every file went into the combined log.
    pub fn all_combined(&self) -> bool {
        self.files.iter().all(|file| file.result.is_ok())
    }
}

/// One file of a merge of audit logs.
#[derive(Debug)]
pub struct CombinedFile {
    /// The path as the logs name it (for a log of whole files that changed while it was read,
    /// and was left out, the log's own path).
    pub path: PathBuf,
    /// How many logs of ranges held parts of it (0 for a file a log recorded whole).
    pub parts: usize,
    /// Its change records in the combined log.
    pub changes: u64,
    /// What became of it; an error is why it was refused (the file is left as it is).
    pub result: Result<Combined, AuditError>,
}

/// A file a merge of audit logs did not refuse.
#[derive(Debug, PartialEq, Eq)]
pub enum Combined {
    /// Its parts were joined over it, at this path (the log's, resolved under its root).
    Joined(PathBuf),
    /// Its parts are exactly the file: nothing was repaired, so nothing was replaced.
    Unchanged,
    /// A log of the whole file: its records were carried over as they are.
    Carried,
}

/// Combines the audit logs `logs` into a new log at `out` (which must not exist yet): the parts
/// of every file fixed in ranges are joined over it, under `roots`, and the records of whole
/// files carried over; `command_line` is written in the combined log's header.
///
/// An error is a set of logs that cannot be combined at all, or a combined log that cannot be
/// written; a file that cannot be joined is reported in the [`CombineReport`], and the others
/// are joined all the same.
pub fn combine(
    logs: &[PathBuf],
    out: &Path,
    roots: &Roots,
    command_line: impl IntoIterator<Item = String>,
) -> Result<CombineReport, AuditError> {
    let mut read = logs
        .iter()
        .map(|log| read_log(log))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = read.first() else {
        return Err(AuditError::ReadLog {
            log: out.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "no audit log to combine"),
        });
    };
    let settings = Settings::of(&first.header);
    for log in &read[1..] {
        if Settings::of(&log.header) != settings {
            return Err(log.lines.bad(
                Position { offset: 0, line: 1 },
                format!(
                    "the log was written with readings {:?} and strictness {:?}, the first with \
                     {:?} and {:?}: logs of different settings are not combined",
                    log.header.readings,
                    log.header.strictness,
                    settings.readings,
                    settings.strictness
                ),
            ));
        }
    }
    let mut combined = CombinedLog::create(out, settings, command_line)?;
    let mut files = Vec::new();
    // The logs of whole files first, in the order given; then the files fixed in ranges, each
    // once, in the order its first part was given.
    for log in read.iter_mut().filter(|log| !log.is_range()) {
        match combined.carry(log)? {
            Ok(carried) => files.extend(carried),
            Err(error) => files.push(CombinedFile {
                path: log.lines.log.clone(),
                parts: 0,
                changes: 0,
                result: Err(error),
            }),
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<&LoggedPath, usize> = HashMap::new();
    for (index, log) in read.iter().enumerate() {
        if let Some(file) = log.range_file() {
            let group = *group_of.entry(&file.record.file).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[group].push(index);
        }
    }
    for parts in groups {
        files.push(combined.join(&mut read, &parts, roots)?);
    }
    combined.finish()?;
    Ok(CombineReport { files })
}

/// What the combined header says of the runs: all the logs must agree on it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Settings {
    readings: Vec<String>,
    strictness: Strictness,
}

impl Settings {
    fn of(header: &Header) -> Settings {
        Settings {
            readings: header.readings.clone(),
            strictness: header.strictness,
        }
    }
}

/// A log read through once: its header, its files, and its end.
struct ReadLog {
    lines: LogLines,
    header: Header,
    files: Vec<LoggedFile>,
    end: End,
}

impl ReadLog {
    /// Whether it is the log of a range: one file, with the offset of its part.
    fn is_range(&self) -> bool {
        self.range_file().is_some()
    }

    fn range_file(&self) -> Option<&LoggedFile> {
        match self.files.as_slice() {
            [file] if file.record.part_offset.is_some() => Some(file),
            _ => None,
        }
    }
}

/// A `file` record, and where the change records it closes begin.
struct LoggedFile {
    record: FileRecord,
    at: LogLine,
    changes: Position,
    changes_link: Option<Checksum>,
    closing_link: Option<Checksum>,
}

/// The first pass over a log: its chain, its shape, and its files. Only whole logs of the full
/// level with an integrity chain are combined.
fn read_log(log: &Path) -> Result<ReadLog, AuditError> {
    let mut lines = LogLines::open(log)?;
    let mut header: Option<Header> = None;
    let mut files = Vec::new();
    let mut shape = Shape::default();
    let unfinished = "the log stops before the `end` record that closes a run: only logs of \
                      runs that finished are combined";
    loop {
        let (position, record, link) = match lines.next_record()? {
            Next::Record(position, record, link) => (position, record, link),
            Next::Cut(position) => return Err(lines.bad(position, unfinished.into())),
            Next::End if header.is_none() => {
                let start = Position { offset: 0, line: 1 };
                return Err(lines.bad(start, "the audit log is empty".into()));
            }
            Next::End => return Err(lines.bad(lines.next, unfinished.into())),
        };
        let bad = |problem: String| lines.bad(position, problem);
        match (*record, &header) {
            (Record::Header(found), None) => {
                lines.take_header(&found, position, link)?;
                if !lines.chained {
                    return Err(lines.bad(
                        position,
                        format!(
                            "a log of schema {} has no integrity chain: undo it by itself",
                            found.schema
                        ),
                    ));
                }
                header = Some(found);
            }
            (Record::Header(_), Some(_)) => return Err(bad("a second header record".into())),
            (_, None) => {
                return Err(bad(
                    "the audit log does not start with a header record".into()
                ));
            }
            (Record::Change(_), _) => shape.change(position, link),
            (Record::Sequence(_), _) => {
                return Err(bad("a sequence record in a log of the full level".into()));
            }
            (Record::File(record), _) => {
                let (changes, changes_link) = shape.file(&record, position, link).map_err(bad)?;
                files.push(LoggedFile {
                    record,
                    at: lines.at(position),
                    changes,
                    changes_link,
                    closing_link: link,
                });
            }
            (Record::End(end), Some(_)) => {
                shape.end(end).map_err(bad)?;
                let after = lines.next;
                if !matches!(lines.next_record()?, Next::End) {
                    return Err(lines.bad(after, "a line after the `end` record".into()));
                }
                // The arm matched a header; an error, not a panic, if that ever changes.
                let Some(header) = header else {
                    return Err(lines.bad(position, "an `end` record before any header".into()));
                };
                let log = ReadLog {
                    lines,
                    header,
                    files,
                    end,
                };
                return check_shape(log);
            }
        }
    }
}

/// A log is of a range (one file, with its part's offset, not rewritten) or of whole files
/// (no part offset anywhere).
fn check_shape(log: ReadLog) -> Result<ReadLog, AuditError> {
    let ranges = log.files.iter().filter(|f| f.record.part_offset.is_some());
    match (ranges.count(), log.files.len()) {
        (0, _) => Ok(log),
        (1, 1) if !log.files[0].record.rewritten => Ok(log),
        (1, 1) => Err(bad_at(
            &log.files[0].at,
            "the log of a range says its file was rewritten, which a range never is".into(),
        )),
        _ => Err(bad_at(
            &log.files[0].at,
            "a log of a range holds one file record only".into(),
        )),
    }
}

fn bad_at(at: &LogLine, problem: String) -> AuditError {
    AuditError::BadLog {
        at: at.clone(),
        problem,
    }
}

/// The combined log being written.
struct CombinedLog {
    out: ChainedLog<BufWriter<File>>,
    path: PathBuf,
    closed: End,
}

impl CombinedLog {
    /// Creates the log at `path`, which must not exist, and writes its header.
    fn create(
        path: &Path,
        settings: Settings,
        command_line: impl IntoIterator<Item = String>,
    ) -> Result<CombinedLog, AuditError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| AuditError::File {
                path: path.to_path_buf(),
                doing: match source.kind() {
                    io::ErrorKind::AlreadyExists => {
                        "create (a log is never written over) the combined log"
                    }
                    _ => "create the combined log",
                },
                source,
            })?;
        let mut log = CombinedLog {
            out: ChainedLog::new(BufWriter::with_capacity(1 << 16, file)),
            path: path.to_path_buf(),
            closed: End {
                files: 0,
                rewritten: 0,
            },
        };
        let header = Header::now(
            AuditLevel::Full,
            settings.readings,
            settings.strictness,
            command_line,
        );
        log.write(&Record::Header(header))?;
        Ok(log)
    }

    fn write(&mut self, record: &Record) -> Result<(), AuditError> {
        self.out
            .write(record)
            .map_err(|source| self.write_error(source))
    }

    fn write_error(&self, source: io::Error) -> AuditError {
        AuditError::File {
            path: self.path.clone(),
            doing: "write the combined log",
            source,
        }
    }

    /// Flushes and syncs what is written, so that a file replaced next has its records on disk.
    fn sync(&mut self) -> Result<(), AuditError> {
        let out = self.out.get_mut();
        out.flush()
            .and_then(|()| out.get_ref().sync_data())
            .map_err(|source| self.write_error(source))
    }

    /// A log of change records that goes on from this one's last line, in an unnamed file
    /// beside it: what [`CombinedLog::append`] adds once the file they are of has joined.
    fn spool(&self) -> Result<ChainedLog<BufWriter<File>>, AuditError> {
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let file = tempfile::tempfile_in(dir).map_err(|source| self.write_error(source))?;
        let out = BufWriter::with_capacity(1 << 16, file);
        Ok(ChainedLog::continuing(out, self.out.last()))
    }

    /// Appends the records of `spool`, made by [`CombinedLog::spool`] since the last record
    /// written here.
    fn append(&mut self, spool: ChainedLog<BufWriter<File>>) -> Result<(), AuditError> {
        let last = spool.last();
        let mut file = spool
            .into_inner()
            .into_inner()
            .map_err(|error| self.write_error(error.into_error()))?;
        file.rewind()
            .and_then(|()| self.out.append(&mut file, last))
            .map_err(|source| self.write_error(source))
    }

    /// Ends the combined log with its `end` record, synced.
    fn finish(mut self) -> Result<(), AuditError> {
        self.write(&Record::End(self.closed))?;
        self.sync()
    }

    /// Carries the records of `log`, a log of whole files, over as they are (but their links),
    /// reading them again through their chain: into a spool first, appended when the whole log
    /// was read as it was the first time. The outer error is a combined log that cannot be
    /// written; the inner one a log that changed while it was read, which is left out.
    fn carry(
        &mut self,
        log: &mut ReadLog,
    ) -> Result<Result<Vec<CombinedFile>, AuditError>, AuditError> {
        let mut spool = self.spool()?;
        let lines = &mut log.lines;
        let changed = |lines: &LogLines, position| {
            Ok(Err(
                lines.bad(position, "the log changed while it was read".into())
            ))
        };
        if let Err(error) = lines.seek(Position { offset: 0, line: 1 }, None) {
            return Ok(Err(error));
        }
        let mut files = Vec::new();
        let mut closed = End::default();
        loop {
            let (position, record) = match lines.next_record() {
                Ok(Next::Record(position, record, _)) => (position, record),
                Ok(Next::Cut(position)) => return changed(lines, position),
                Ok(Next::End) => return changed(lines, lines.next),
                Err(error) => return Ok(Err(error)),
            };
            match *record {
                Record::Header(_) => {}
                Record::End(end) if end == log.end => {
                    self.append(spool)?;
                    self.closed.files += closed.files;
                    self.closed.rewritten += closed.rewritten;
                    return Ok(Ok(files));
                }
                Record::End(_) => return changed(lines, position),
                record => {
                    if let Record::File(file) = &record {
                        closed.files += 1;
                        closed.rewritten += u64::from(file.rewritten);
                        files.push(CombinedFile {
                            path: file.file.to_path_buf().unwrap_or_default(),
                            parts: 0,
                            changes: file.change_records,
                            result: Ok(Combined::Carried),
                        });
                    }
                    spool
                        .write(&record)
                        .map_err(|source| self.write_error(source))?;
                }
            }
        }
    }

    /// Joins the parts the range logs `parts` of `logs` hold of one file over it, and writes
    /// the file's records. An error here is a combined log that cannot be written, or a log
    /// that changed while it was read; the refusal of the file itself is in its result.
    fn join(
        &mut self,
        logs: &mut [ReadLog],
        parts: &[usize],
        roots: &Roots,
    ) -> Result<CombinedFile, AuditError> {
        let mut tiles: Vec<Tile> = parts
            .iter()
            .filter_map(|&log| {
                let file = logs[log].range_file()?;
                Some(Tile {
                    log,
                    start: file.record.part_offset?,
                    record: file.record.clone(),
                    at: file.at.clone(),
                    newlines_before: 0,
                })
            })
            .collect();
        tiles.sort_by_key(|tile| tile.start);
        let logged = tiles[0].record.file.clone();
        let mut combined = CombinedFile {
            path: logged.to_path_buf().unwrap_or_default(),
            parts: tiles.len(),
            changes: tiles.iter().fold(0, |total, tile| {
                total.saturating_add(tile.record.change_records)
            }),
            result: Ok(Combined::Unchanged),
        };
        // The file's change records, as the walk back checks them, wait here until the file
        // is known to join: a file refused leaves nothing in the combined log.
        let mut spool = self.spool()?;
        let checked = check_tiling(&mut tiles).and_then(|()| {
            let path = logged.to_path_buf().ok_or_else(|| {
                bad_at(
                    &tiles[0].at,
                    format!(
                        "the path {:?} cannot name a file on this system",
                        logged.path
                    ),
                )
            })?;
            JoinedFile::write(&path, &mut tiles, logs, roots, &mut spool)
        });
        let joined = match checked {
            Ok(joined) => joined,
            Err(error) => {
                combined.result = Err(error);
                return Ok(combined);
            }
        };
        self.append(spool)?;
        let record = joined.record(&tiles);
        self.closed.files += 1;
        self.closed.rewritten += u64::from(record.rewritten);
        self.write(&Record::File(record))?;
        self.sync()?;
        combined.result = joined.commit();
        Ok(combined)
    }
}

/// One part of a file: which log holds it, and where it lies.
struct Tile {
    log: usize,
    start: u64,
    record: FileRecord,
    at: LogLine,
    /// Newlines in the file before the part: filled in while the file is read.
    newlines_before: u64,
}

/// Checks that `tiles` (in order of their starts) cover a file from its first byte without gap
/// or overlap; a part with no byte must have nothing in it either, and is left out.
fn check_tiling(tiles: &mut Vec<Tile>) -> Result<(), AuditError> {
    for tile in tiles.iter() {
        let record = &tile.record;
        if record.bytes_before == 0 && (record.bytes_after != 0 || record.change_records != 0) {
            return Err(bad_at(
                &tile.at,
                "a part that read no byte cannot have written any, nor changed any".into(),
            ));
        }
    }
    let first = tiles.first().map(|tile| tile.at.clone());
    tiles.retain(|tile| tile.record.bytes_before > 0);
    let mut covered = 0u64;
    for tile in tiles.iter() {
        if tile.start != covered {
            return Err(bad_at(
                &tile.at,
                format!(
                    "the part starts at byte {}, but the parts before it end at byte {covered}: \
                     the ranges do not tile the file (a range is missing, given twice, or was \
                     cut by other settings)",
                    tile.start
                ),
            ));
        }
        covered = covered
            .checked_add(tile.record.bytes_before)
            .ok_or_else(|| bad_at(&tile.at, "the part ends past any file".into()))?;
    }
    if tiles.is_empty()
        && let Some(at) = first
    {
        return Err(bad_at(&at, "no part of the file holds a byte".into()));
    }
    Ok(())
}

/// A file whose parts were joined into a temporary file beside it, checked, not yet in its
/// place.
struct JoinedFile {
    target: super::roots::Target,
    logged: PathBuf,
    at: LogLine,
    replacement: crate::engine::replace::Replacement,
    permissions: std::fs::Permissions,
    before: super::record::Fingerprint,
    after: super::record::Fingerprint,
}

impl JoinedFile {
    /// Reads the file at `path` (under `roots`) segment by segment and each part after it,
    /// checking both against the logs, and writes the parts to a temporary file beside it.
    fn write<S: Write>(
        path: &Path,
        tiles: &mut [Tile],
        logs: &mut [ReadLog],
        roots: &Roots,
        spool: &mut ChainedLog<S>,
    ) -> Result<JoinedFile, AuditError> {
        let at = tiles[0].at.clone();
        let target = roots.target(path, &at)?;
        let (file, metadata) = target.open(path, &at)?;
        // Summed without overflow by the tiling's check already.
        let covered = tiles.iter().fold(0u64, |total, tile| {
            total.saturating_add(tile.record.bytes_before)
        });
        let mismatch = |problem: String, at: &LogLine| AuditError::Mismatch {
            path: path.to_path_buf(),
            at: at.clone(),
            problem,
        };
        if metadata.len() != covered {
            return Err(mismatch(
                format!(
                    "the parts cover {covered} bytes, but the file has {}: it changed since the \
                     ranges were fixed, or the last range is missing",
                    metadata.len()
                ),
                &at,
            ));
        }
        let replacement = target.replacement().map_err(|source| AuditError::File {
            path: target.path.clone(),
            doing: "create a temporary file beside",
            source,
        })?;
        let mut original = BufReader::with_capacity(1 << 20, file);
        let mut joined = Hashing::new(BufWriter::with_capacity(1 << 20, replacement.file()));
        let mut whole_before = ContentHasher::default();
        let mut buffer = vec![0u8; 1 << 20];
        let mut newlines = 0u64;
        for tile in tiles.iter_mut() {
            tile.newlines_before = newlines;
            let mut segment = ContentHasher::default();
            let read = read_through(
                &mut original,
                tile.record.bytes_before,
                &mut buffer,
                |bytes| {
                    whole_before.update(bytes);
                    segment.update(bytes);
                    newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
                    Ok::<(), io::Error>(())
                },
            )
            .map_err(|stopped| stopped.into_error(path, WRITING, &target.path))?;
            let found = segment.fingerprint();
            if read < tile.record.bytes_before || found != tile.record.before() {
                return Err(mismatch(
                    format!(
                        "bytes {}..{} of the file have {found}, but the range fix read {}: the \
                         file changed since",
                        tile.start,
                        tile.start + tile.record.bytes_before,
                        tile.record.before()
                    ),
                    &tile.at,
                ));
            }
            let part = Path::new(&tile.record.output);
            if !part.is_absolute() {
                return Err(bad_at(
                    &tile.at,
                    format!(
                        "the part went to {:?}, not to a file: merge --audit joins the parts \
                         that `fix --range --audit -o FILE` writes",
                        tile.record.output
                    ),
                ));
            }
            let part_target = roots.target(part, &tile.at)?;
            let (part_file, _) = part_target.open(part, &tile.at)?;
            // The part goes into the joined copy as it is read, while its change records,
            // walked back, rebuild what the range read: so the combined log is known to undo
            // the join, not only to name the right hashes.
            let mut part_copy = Tee {
                from: BufReader::with_capacity(1 << 20, part_file),
                to: &mut joined,
                written: ContentHasher::default(),
            };
            let mut rebuilt = Hashing::new(io::sink());
            let log = &mut logs[tile.log];
            let Some(logged) = log.range_file() else {
                return Err(bad_at(&tile.at, "the log changed while it was read".into()));
            };
            let (changes, changes_link, closing_link) =
                (logged.changes, logged.changes_link, logged.closing_link);
            log.lines.seek(changes, changes_link)?;
            let walk = ChangeWalk {
                path: part,
                file: &tile.record.file,
                count: tile.record.change_records,
                closing_link,
                at: &tile.at,
                base: tile.start,
            };
            let segment = tile.start..tile.start + tile.record.bytes_before;
            let mut next = segment.start;
            let carry = |at: &LogLine, mut change: Change| {
                // Within its part and after the change before it, as `undo` reads the whole
                // file; its line counted in the whole file.
                let length = change.substitution.original_hex.0.len() as u64;
                let end = change.offset.checked_add(length);
                if change.offset < next || end.is_none_or(|end| end > segment.end) {
                    return Err(bad_at(
                        at,
                        format!(
                            "the change at offset {} lies outside its part (bytes {}..{}) or \
                             before the change ahead of it",
                            change.offset, segment.start, segment.end
                        ),
                    ));
                }
                next = change.offset + length;
                change.line = change
                    .line
                    .checked_add(tile.newlines_before)
                    .ok_or_else(|| {
                        bad_at(at, format!("the line {} is past any file", change.line))
                    })?;
                spool
                    .write(&Record::Change(change))
                    .map_err(|source| AuditError::File {
                        path: path.to_path_buf(),
                        doing: "write the change records of",
                        source,
                    })
            };
            rebuild(
                &walk,
                &mut part_copy,
                &mut log.lines,
                &mut rebuilt,
                &mut buffer,
                carry,
            )?;
            let found = part_copy.written.fingerprint();
            if found != tile.record.after() {
                return Err(mismatch(
                    format!(
                        "the part {} has {found}, but its range fix wrote {}",
                        part.display(),
                        tile.record.after()
                    ),
                    &tile.at,
                ));
            }
            let rebuilt = rebuilt.fingerprint();
            if rebuilt != tile.record.before() {
                return Err(mismatch(
                    format!(
                        "the part {} with its changes taken back has {rebuilt}, but its range \
                         read {}: the log's changes do not undo its part",
                        part.display(),
                        tile.record.before()
                    ),
                    &tile.at,
                ));
            }
        }
        let grew = read_through(&mut original, 1, &mut buffer, |_| Ok::<(), io::Error>(()))
            .map_err(|stopped| stopped.into_error(path, WRITING, &target.path))?;
        if grew > 0 {
            return Err(mismatch("the file grew while it was read".into(), &at));
        }
        joined
            .flush()
            .map_err(|source| Stopped::Each(source).into_error(path, WRITING, &target.path))?;
        let after = joined.fingerprint();
        drop(joined);
        Ok(JoinedFile {
            logged: path.to_path_buf(),
            at,
            permissions: metadata.permissions(),
            before: whole_before.fingerprint(),
            after,
            target,
            replacement,
        })
    }

    /// The `file` record of the whole file, from the records of its parts.
    fn record(&self, tiles: &[Tile]) -> FileRecord {
        let first = &tiles[0].record;
        // The counts are the logs' word: summed without overflowing, whatever they say.
        let sum = |field: fn(&FileRecord) -> u64| {
            tiles
                .iter()
                .fold(0u64, |total, t| total.saturating_add(field(&t.record)))
        };
        let keyed = |field: fn(&FileRecord) -> &BTreeMap<String, u64>| {
            let mut total = BTreeMap::new();
            for tile in tiles {
                for (key, count) in field(&tile.record) {
                    let entry = total.entry(key.clone()).or_insert(0u64);
                    *entry = entry.saturating_add(*count);
                }
            }
            total
        };
        FileRecord {
            file: first.file.clone(),
            output: first.file.path.clone(),
            rewritten: self.changed(),
            bytes_before: self.before.bytes,
            sha256_before: self.before.sha256,
            bytes_after: self.after.bytes,
            sha256_after: self.after.sha256,
            valid_utf8: tiles.iter().all(|tile| tile.record.valid_utf8),
            double_encoded: sum(|record| record.double_encoded),
            left_alone: sum(|record| record.left_alone),
            by_reading: keyed(|record| &record.by_reading),
            by_layers: keyed(|record| &record.by_layers),
            change_records: sum(|record| record.change_records),
            part_offset: None,
        }
    }

    fn changed(&self) -> bool {
        self.before != self.after
    }

    /// Puts the joined content in the file's place, if it differs from the file.
    fn commit(self) -> Result<Combined, AuditError> {
        if !self.changed() {
            return Ok(Combined::Unchanged);
        }
        self.target.recheck(&self.logged, &self.at)?;
        let path = self.target.path.clone();
        self.replacement
            .commit(Some(self.permissions))
            .map_err(|source| AuditError::File {
                path: path.clone(),
                doing: "replace",
                source,
            })?;
        Ok(Combined::Joined(path))
    }
}

/// A reader of a part that copies what it reads into the joined copy, hashing it.
struct Tee<'w, R, W> {
    from: R,
    to: &'w mut W,
    written: ContentHasher,
}

impl<R: Read, W: Write> Read for Tee<'_, R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.from.read(buf)?;
        self.to
            .write_all(&buf[..read])
            .map_err(|error| io::Error::other(format!("writing the joined copy: {error}")))?;
        self.written.update(&buf[..read]);
        Ok(read)
    }
}

/// What the merge writes, for its errors.
const WRITING: &str = "write the joined copy of";
