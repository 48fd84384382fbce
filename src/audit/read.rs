//! The lines of an audit log, read as hostile input: one record at a time, each checked
//! against the link it carries once the header has said the log is chained
//! ([`chain`](super::chain)), every line bounded in length, and a position kept so that a
//! second pass can go back to where a file's records begin. `undo` and the merge of logs read
//! through it, so a log is held to the same rules wherever it is read. Both also read the files
//! the logs name piece by piece, through one loop ([`read_through`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::chain::{Link, line_hash};
use super::record::{
    AuditLevel, CHAINED_SCHEMA, Change, Checksum, End, FileRecord, Header, LoggedPath,
    OLDEST_SCHEMA, Record, SCHEMA,
};
use super::undo::{AuditError, LogLine};

/// The longest line a log may have. No record the fix writes comes near it (the longest is a
/// header naming a long command line), and reading a line never takes more memory than this.
pub const MAX_LINE: u64 = 64 << 20;

/// Where a line starts in the log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Position {
    pub offset: u64,
    pub line: u64,
}

/// Whether this build reads logs of `schema`.
pub(crate) fn readable(schema: u64) -> bool {
    (u64::from(OLDEST_SCHEMA)..=u64::from(SCHEMA)).contains(&schema)
}

pub(crate) fn unknown_schema(schema: u64) -> String {
    format!(
        "the audit log has schema {schema}; this undouble reads schemas {OLDEST_SCHEMA} to {SCHEMA}"
    )
}

/// What the log holds next.
pub(crate) enum Next {
    /// A record, where its line starts, and the link it carries.
    Record(Position, Box<Record>, Option<Checksum>),
    /// A last line without its newline: the log was cut there, or its writer stopped.
    Cut(Position),
    /// The end of the log.
    End,
}

/// The records of a log, read line by line from any position, each checked against its link
/// once the header has said the log is chained.
pub(crate) struct LogLines {
    reader: BufReader<File>,
    pub log: PathBuf,
    pub next: Position,
    bytes: Vec<u8>,
    /// Whether every record after the header carries a link (schema 3 on).
    pub chained: bool,
    /// Whether blank lines are skipped: after the header of a log without a chain, as before
    /// there was one.
    pub blank_lines: bool,
    /// The hash of the line before the next one: the link the next record must carry.
    pub expect: Option<Checksum>,
}

impl LogLines {
    pub(crate) fn open(log: &Path) -> Result<LogLines, AuditError> {
        let read_error = |source| AuditError::ReadLog {
            log: log.to_path_buf(),
            source,
        };
        let file = File::open(log).map_err(read_error)?;
        // The log is read twice, the second time from where each file's records begin.
        if !file.metadata().map_err(read_error)?.is_file() {
            return Err(read_error(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (undo reads the log twice)",
            )));
        }
        Ok(LogLines {
            reader: BufReader::with_capacity(1 << 16, file),
            log: log.to_path_buf(),
            next: Position { offset: 0, line: 1 },
            bytes: Vec::new(),
            chained: false,
            blank_lines: false,
            expect: None,
        })
    }

    pub(crate) fn at(&self, position: Position) -> LogLine {
        LogLine {
            log: self.log.clone(),
            line: position.line,
        }
    }

    pub(crate) fn bad(&self, position: Position, problem: String) -> AuditError {
        AuditError::BadLog {
            at: self.at(position),
            problem,
        }
    }

    pub(crate) fn read_error(&self, source: io::Error) -> AuditError {
        AuditError::ReadLog {
            log: self.log.clone(),
            source,
        }
    }

    /// Checks the header at `position`, which carries `link`: a schema this build reads, a
    /// level that records every change, and no link (a header starts the chain). Then the
    /// records after it are checked against their links when the schema has them.
    pub(crate) fn take_header(
        &mut self,
        header: &Header,
        position: Position,
        link: Option<Checksum>,
    ) -> Result<(), AuditError> {
        let version = u64::from(header.schema);
        if !readable(version) {
            return Err(self.bad(position, unknown_schema(version)));
        }
        if header.level == AuditLevel::Summary {
            return Err(AuditError::SummaryOnly {
                log: self.log.clone(),
            });
        }
        if link.is_some() {
            let problem = "the header carries a `prev` link, but a header starts the chain";
            return Err(self.bad(position, problem.into()));
        }
        self.chained = version >= u64::from(CHAINED_SCHEMA);
        self.blank_lines = !self.chained;
        Ok(())
    }

    /// Goes back to `to`, whose record must carry the link `expect`.
    pub(crate) fn seek(
        &mut self,
        to: Position,
        expect: Option<Checksum>,
    ) -> Result<(), AuditError> {
        self.reader
            .seek(SeekFrom::Start(to.offset))
            .map_err(|source| self.read_error(source))?;
        self.next = to;
        self.expect = expect;
        Ok(())
    }

    /// The next line. Blank lines are skipped in a log without a chain; a fix writes none, so
    /// anywhere else one is refused.
    pub(crate) fn next_record(&mut self) -> Result<Next, AuditError> {
        loop {
            self.bytes.clear();
            let read = (&mut self.reader)
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut self.bytes)
                .map_err(|source| self.read_error(source))?;
            if read == 0 {
                return Ok(Next::End);
            }
            let position = self.next;
            self.next = Position {
                offset: position.offset + read as u64,
                line: position.line + 1,
            };
            if self.bytes.last() != Some(&b'\n') {
                if read as u64 > MAX_LINE {
                    let problem = format!(
                        "the line is longer than {} MiB, which no audit record is",
                        MAX_LINE >> 20
                    );
                    return Err(self.bad(position, problem));
                }
                return Ok(Next::Cut(position));
            }
            let hash = line_hash(&self.bytes);
            if self.bytes.trim_ascii().is_empty() {
                if !self.blank_lines {
                    let problem = "an empty line, which a fix never writes".into();
                    return Err(self.bad(position, problem));
                }
                self.expect = Some(hash);
                continue;
            }
            let record = match serde_json::from_slice::<Record>(&self.bytes) {
                Ok(record) => record,
                Err(error) => return Err(self.bad(position, self.parse_problem(error))),
            };
            let link = match serde_json::from_slice::<Link>(&self.bytes) {
                Ok(link) => link.prev,
                Err(error) => return Err(self.bad(position, format!("a bad `prev` link: {error}"))),
            };
            if self.chained && link != self.expect {
                let problem = match link {
                    None => "the record has no `prev` link, which every record after the \
                             header carries: the integrity chain breaks here"
                        .to_owned(),
                    Some(_) => format!(
                        "the integrity chain breaks here: the record does not follow line {} as \
                         the fix wrote it (a line was edited, removed, added or moved)",
                        position.line.saturating_sub(1)
                    ),
                };
                return Err(self.bad(position, problem));
            }
            self.expect = Some(hash);
            return Ok(Next::Record(position, Box::new(record), link));
        }
    }

    /// Why the current line is no record: a header of another schema, or what JSON says.
    fn parse_problem(&self, error: serde_json::Error) -> String {
        let value: Option<serde_json::Value> = serde_json::from_slice(&self.bytes).ok();
        let header_schema = value
            .filter(|value| value["type"] == "header")
            .and_then(|value| value["schema"].as_u64());
        match header_schema {
            Some(schema) if !readable(schema) => unknown_schema(schema),
            _ => format!("not an audit record: {error}"),
        }
    }

    /// The next change record, which must be one of `file`'s `count` (for messages).
    pub(crate) fn next_change(
        &mut self,
        file: &LoggedPath,
        count: u64,
    ) -> Result<(LogLine, Change), AuditError> {
        let expected = || format!("expected {count} change records of {:?} here", file.path);
        let (position, problem) = match self.next_record()? {
            Next::Record(position, record, _) => match *record {
                Record::Change(change) if change.file == *file => {
                    return Ok((self.at(position), change));
                }
                Record::Change(change) => (
                    position,
                    format!(
                        "a change record of {:?} among those of {:?}",
                        change.file.path, file.path
                    ),
                ),
                _ => (position, expected()),
            },
            Next::Cut(position) => (position, expected()),
            Next::End => (self.next, expected()),
        };
        Err(self.bad(position, problem))
    }

    /// Checks that the change records just read are those the file record at `at` closed
    /// (its link is `closing_link`) when the log was first read: the log did not change in
    /// between.
    pub(crate) fn check_closed(
        &self,
        closing_link: Option<Checksum>,
        at: &LogLine,
    ) -> Result<(), AuditError> {
        if self.chained && self.expect != closing_link {
            return Err(AuditError::BadLog {
                at: at.clone(),
                problem: "the change records before this file record changed while the log \
                          was read"
                    .into(),
            });
        }
        Ok(())
    }
}

/// The shape a first pass over a log checks: the change records before a `file` record are
/// its, and it counts them; the `end` record counts the `file` records.
#[derive(Default)]
pub(crate) struct Shape {
    /// The first change record of the file being read, and its link.
    group: Option<(Position, Option<Checksum>)>,
    changes_seen: u64,
    counted: End,
}

impl Shape {
    /// A change record at `position`, carrying `link`.
    pub(crate) fn change(&mut self, position: Position, link: Option<Checksum>) {
        self.group.get_or_insert((position, link));
        self.changes_seen += 1;
    }

    /// The `file` record at `position`, carrying `link`, which closes the changes before it:
    /// where they begin, and the link the first of them carries (the record's own without
    /// changes). An error is the problem with the record.
    pub(crate) fn file(
        &mut self,
        record: &FileRecord,
        position: Position,
        link: Option<Checksum>,
    ) -> Result<(Position, Option<Checksum>), String> {
        if record.change_records != self.changes_seen {
            return Err(format!(
                "the file record counts {} change records, but {} precede it",
                record.change_records, self.changes_seen
            ));
        }
        self.counted.files += 1;
        self.counted.rewritten += u64::from(record.rewritten);
        self.changes_seen = 0;
        Ok(self.group.take().unwrap_or((position, link)))
    }

    /// The `end` record: it must count what the log holds. An error is the problem with it.
    pub(crate) fn end(&self, end: End) -> Result<(), String> {
        if self.changes_seen > 0 {
            return Err(format!(
                "{} change records before it have no file record",
                self.changes_seen
            ));
        }
        if end != self.counted {
            return Err(format!(
                "the `end` record counts {} file records ({} rewritten), but the log holds {} \
                 ({} rewritten)",
                end.files, end.rewritten, self.counted.files, self.counted.rewritten
            ));
        }
        Ok(())
    }
}

/// Why [`read_through`] stopped early.
pub(crate) enum Stopped<E> {
    Read(io::Error),
    Each(E),
}

impl Stopped<io::Error> {
    /// The error of a copy from `read` into `written` that stopped; `writing` says what the
    /// copy was ("write the restored copy of").
    pub(crate) fn into_error(
        self,
        read: &Path,
        writing: &'static str,
        written: &Path,
    ) -> AuditError {
        let (path, doing, source) = match self {
            Stopped::Read(source) => (read, "read", source),
            Stopped::Each(source) => (written, writing, source),
        };
        AuditError::File {
            path: path.to_path_buf(),
            doing,
            source,
        }
    }
}

/// Reads up to `limit` bytes of `from` through `buffer`, giving each piece to `each`; returns
/// how many there were (fewer at the end of `from`).
pub(crate) fn read_through<R: Read, E>(
    from: &mut R,
    limit: u64,
    buffer: &mut [u8],
    mut each: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, Stopped<E>> {
    let mut done = 0u64;
    while done < limit {
        let want = usize::try_from(limit - done).map_or(buffer.len(), |n| n.min(buffer.len()));
        let read = match from.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Stopped::Read(e)),
        };
        each(&buffer[..read]).map_err(Stopped::Each)?;
        done += read as u64;
    }
    Ok(done)
}
