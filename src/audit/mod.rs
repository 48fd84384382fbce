//! The audit log: what `fix` changed, written so that it can be read, summarised and undone.
//!
//! A fix that rewrites files in place must be able to prove what it did and to take it back
//! exactly. The log is JSON Lines (schema in `record` and in the README): a header for
//! the run, one record per change (a repaired character, with its table, column and row in a
//! SQL dump, or a character set name `--convert-charset` rewrote; at the summary level, one
//! per distinct garbled form instead), and one record per file with its size and SHA-256
//! before and after.
//!
//! - `record`: the record types, documented field by field.
//! - `sink`: the [`AuditSink`] that sits beside the repair on the scan and writes the records.
//! - `hash`: SHA-256 of what streams past, so nothing is reread to be hashed.
//! - `log`: the [`AuditLog`] of a run, and the repairs (to a stream, or in place) that write to
//!   it; `fix --audit` goes through them.
//! - [`chain`]: the integrity chain that links every record to the one before it.
//! - `combine`: logs of ranges joined with their parts over the file, and logs of whole
//!   files carried over, into one log that `undo` reads ([`combine()`]).
//! - `read`: the lines of a log, read as hostile input, for `undo` and `combine`.
//! - `rebuild`: the original rebuilt from a fixed content and its change records.
//! - `roots`: where `undo` may write (regular files under the roots the user names).
//! - [`undo`](mod@undo): restores every rewritten file from a log, checking hashes before and after.
//!
//! Files are replaced atomically by `crate::engine::replace`, as every fix does.

pub mod chain;
pub(crate) mod combine;
pub(crate) mod hash;
pub(crate) mod log;
pub(crate) mod read;
pub(crate) mod rebuild;
pub(crate) mod record;
pub(crate) mod roots;
pub(crate) mod sink;
pub mod undo;

pub use combine::{CombineReport, Combined, CombinedFile, combine};
pub use hash::Hashing;
pub use log::AuditLog;
pub use record::{AuditLevel, Fingerprint, Record, SCHEMA};
pub use roots::Roots;
pub use sink::AuditSink;
pub use undo::{
    AuditError, ChangedSince, FileUndo, LogLine, Restored, UndoReport, check_undo, undo,
};
