//! The original of a fixed content, rebuilt from it and the change records of its log: the walk
//! `undo` makes to restore a file, and the check `merge --audit` makes that a part and its
//! changes give back the bytes its range read.
//!
//! A change record holds the offset of the bytes it changed in the original. Between two changes
//! the content is as it was, so a walk in log order copies the bytes between the end of one
//! change's original and the start of the next, then swaps the next replacement back for its
//! original: a replacement may be shorter than its original (a repair) or longer (a character
//! set name), and the walk counts both contents' positions from what it reads, never from a
//! difference of lengths. Every replacement must be found where the log puts it.

use std::io::{self, Read, Write};
use std::path::Path;

use super::read::{LogLines, read_through};
use super::record::{Change, Checksum, LoggedPath};
use super::undo::{AuditError, LogLine};
use crate::format::hex;

/// What a walk reads from a log: the change records of one `file` record.
pub(crate) struct ChangeWalk<'a> {
    /// The content walked, for messages.
    pub path: &'a Path,
    /// The file the change records name.
    pub file: &'a LoggedPath,
    /// How many change records there are.
    pub count: u64,
    /// The link the `file` record carries: the hash of the last change record.
    pub closing_link: Option<Checksum>,
    /// The line of the `file` record.
    pub at: &'a LogLine,
    /// The offset in the original of the content's first byte (a range's part starts there).
    pub base: u64,
}

/// Walks the change records `walk` names, read from `lines` (placed at the first of them),
/// copying `current` to `out` with every replacement swapped back for the original bytes, up
/// to the end of `current`. Each change found where the log puts it is then given to `each`,
/// with its line in the log.
pub(crate) fn rebuild<R: Read, W: Write>(
    walk: &ChangeWalk<'_>,
    current: &mut R,
    lines: &mut LogLines,
    out: &mut W,
    buffer: &mut [u8],
    mut each: impl FnMut(&LogLine, Change) -> Result<(), AuditError>,
) -> Result<(), AuditError> {
    let path = walk.path;
    let mut original_done = walk.base; // bytes of the original accounted for
    let mut current_done = 0u64; // bytes of the current content consumed
    let mut found = Vec::new();
    for _ in 0..walk.count {
        let (at, change) = lines.next_change(walk.file, walk.count)?;
        let mismatch = |problem: String| AuditError::Mismatch {
            path: path.to_path_buf(),
            at: at.clone(),
            problem,
        };
        let original = &change.substitution.original_hex.0;
        let replacement = &change.substitution.replacement_hex.0;
        let gap = change.offset.checked_sub(original_done).ok_or_else(|| {
            mismatch(format!(
                "the change at offset {} overlaps the one before it, or lies before the content",
                change.offset
            ))
        })?;
        let end = change
            .offset
            .checked_add(original.len() as u64)
            .ok_or_else(|| mismatch(format!("the offset {} is past any file", change.offset)))?;
        let ends_early = || {
            mismatch(format!(
                "the content ends before the change at offset {}",
                change.offset
            ))
        };
        if copy(current, out, gap, path, buffer)? < gap {
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
        original_done = end;
        current_done += gap + replacement.len() as u64;
        each(&at, change)?;
    }
    lines.check_closed(walk.closing_link, walk.at)?;
    copy(current, out, u64::MAX, path, buffer)?;
    Ok(())
}

/// Copies up to `limit` bytes through `buffer`; returns how many there were.
pub(crate) fn copy<R: Read, W: Write>(
    from: &mut R,
    to: &mut W,
    limit: u64,
    path: &Path,
    buffer: &mut [u8],
) -> Result<u64, AuditError> {
    read_through(from, limit, buffer, |bytes| to.write_all(bytes))
        .map_err(|stopped| stopped.into_error(path, WRITING, path))
}

/// What a rebuild writes, for its errors.
const WRITING: &str = "write the rebuilt copy of";

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
        doing: WRITING,
        source,
    }
}
