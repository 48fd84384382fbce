//! The errors a run can end in: each names the file, and the byte offset where it has one.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::engine::transcode::Legacy;

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
    /// The file became shorter than `len` bytes while it was being read.
    Truncated { path: PathBuf, len: u64 },
    /// Writing the output failed.
    Write { path: PathBuf, source: io::Error },
    /// A directory could not be walked completely.
    Walk { path: PathBuf, message: String },
    /// The command line asks for something that cannot be done.
    Usage(String),
    /// The input is not UTF-8 but in another encoding, found while it was processed (see
    /// [`crate::engine::Utf8Gate`]); nothing was written from it.
    NotUtf8 { path: PathBuf, legacy: Legacy },
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
            Error::Truncated { path, len } => write!(
                f,
                "{}: the file was truncated to {len} bytes while it was being read",
                path.display()
            ),
            Error::Write { path, source } => {
                write!(f, "{}: cannot write: {source}", path.display())
            }
            Error::Walk { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Usage(message) => write!(f, "{message}"),
            Error::NotUtf8 { path, legacy } => {
                write!(f, "{}: not UTF-8 ({})", path.display(), legacy.describe())
            }
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
            | Error::Truncated { .. }
            | Error::Walk { .. }
            | Error::NotUtf8 { .. } => None,
        }
    }
}
