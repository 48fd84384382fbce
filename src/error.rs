//! The errors a run can end in: each names the file, and the byte offset where it has one.

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// The input could not be opened.
    Open { path: PathBuf, source: io::Error },
    /// Reading the input failed after `offset` bytes.
    Read {
        path: PathBuf,
        offset: u64,
        source: io::Error,
    },
    /// The file changed while it was being read: what was read from it cannot be trusted, and
    /// nothing computed from it was written in its place.
    Changed { path: PathBuf, seen: Change },
    /// Writing the output failed.
    Write { path: PathBuf, source: io::Error },
    /// The directory a file was to be written into does not exist (and was not to be created).
    NoDirectory { path: PathBuf },
    /// A directory could not be walked completely.
    Walk { path: PathBuf, message: String },
    /// A SQL dump the dump mode cannot read: where it stops making sense (`line` from 1, the
    /// byte `offset` from 0), and why.
    Dump {
        path: PathBuf,
        line: u64,
        offset: u64,
        kind: DumpErrorKind,
    },
    /// Something that cannot happen did: a worker thread stopped or crashed, a lock was
    /// poisoned. A bug, not a fault of the input or the command line.
    Internal(String),
    /// The command line asks for something that cannot be done.
    Usage(String),
}

/// Why a SQL dump cannot be read ([`Error::Dump`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DumpErrorKind {
    /// It holds data for a table that neither it nor a schema dump defines (a dump of data
    /// only, read without the dump of its schema, or with another one).
    UndefinedTable { message: String, hint: &'static str },
    /// The lexer does not understand it (or it ends inside a comment, a string, a `COPY`).
    NotUnderstood { message: String, hint: &'static str },
}

impl DumpErrorKind {
    /// What the lexer says, and what to do about it (empty, or starting with `; `).
    pub(crate) fn parts(&self) -> (&str, &'static str) {
        match self {
            DumpErrorKind::UndefinedTable { message, hint }
            | DumpErrorKind::NotUnderstood { message, hint } => (message, hint),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Open { path, source } => write!(f, "{}: cannot open: {source}", path.display()),
            Error::Read {
                path,
                offset,
                source,
            } => write!(
                f,
                "{}: read error at byte offset {offset}: {source}",
                path.display()
            ),
            Error::Changed { path, seen } => {
                write!(f, "{}: changed while being read ({seen})", path.display())
            }
            Error::Write { path, source } => {
                write!(f, "{}: cannot write: {source}", path.display())
            }
            Error::NoDirectory { path } => write!(
                f,
                "{}: no such directory (create it first: nothing is written into a directory \
                 that does not exist)",
                path.display()
            ),
            Error::Walk { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Dump {
                path,
                line,
                offset,
                kind,
            } => {
                let (message, hint) = kind.parts();
                let path = path.display();
                write!(f, "{path}: line {line} (byte {offset}): {message}{hint}")
            }
            Error::Internal(message) => write!(f, "internal error: {message}"),
            Error::Usage(message) => write!(f, "{message}"),
        }
    }
}

impl Error {
    /// True for a write into a pipe whose reader has gone (`undouble fix big | head`).
    pub fn is_closed_output(&self) -> bool {
        matches!(self, Error::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Open { source, .. }
            | Error::Read { source, .. }
            | Error::Write { source, .. } => Some(source),
            Error::Usage(_)
            | Error::Dump { .. }
            | Error::Internal(_)
            | Error::Changed { .. }
            | Error::NoDirectory { .. }
            | Error::Walk { .. } => None,
        }
    }
}

/// What showed that a file changed while it was being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// It became shorter than what was being read: `len` bytes.
    Truncated { len: u64 },
    /// A page of its memory map could not be read: the file lost it while it was mapped.
    PageLost,
    /// Its path now names another file.
    Replaced,
    /// Its size or time of last modification is no longer what it was when it was opened.
    Modified,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Truncated { len } => write!(f, "truncated to {len} bytes"),
            Change::PageLost => f.write_str("a page of its memory map could not be read"),
            Change::Replaced => f.write_str("its path now names another file"),
            Change::Modified => f.write_str("modified since it was opened"),
        }
    }
}
