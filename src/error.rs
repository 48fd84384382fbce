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
    /// The command line asks for something that cannot be done.
    Usage(String),
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
