//! The byte maths of double-encoded UTF-8: pure functions of bytes, no files, threads or
//! terminals.
//!
//! - [`codepage`]: the single-byte code pages as tables, and their reverse index.
//! - [`candidates`]: where a run may start, found with `memchr` and three table lookups.
//! - [`matcher`]: the strict byte pattern.
//! - [`pattern`]: the same pattern as a regular expression generated from the code pages: the
//!   specification the matcher is tested against, and one users can take to other tools.
//! - [`controls`]: C1 controls that stand for Windows-1252 characters.
//! - [`classes`]: what kind of character a code point is (data: a table of ranges).
//! - `plausibility`: the rule that tells double encoding from correct look-alike text.
//! - `field`: the evidence beyond the run: what the other runs and the clean text of its
//!   field say.
//! - [`raw`]: bytes that are not UTF-8 inside UTF-8 text, and what each stands for.
//! - `scanner`: the loop that finds runs, peels layers, judges and reports to a [`Sink`].
//! - [`learn`]: the chain of recodings that turns a correct text into a garbled sample, and
//!   the `fix` options that undo it.
//! - `repair`, [`counts`], `explain`: the sinks behind `fix`, `scan` and `explain`;
//!   `sequences`: the table `scan` counts garbled forms in.

pub mod candidates;
mod choice;
mod choice_bound;
pub mod classes;
pub mod codepage;
mod codepage_tables;
pub mod controls;
pub mod counts;
pub(crate) mod explain;
pub(crate) mod field;
pub mod learn;
pub mod lost;
mod lost_slots;
pub mod matcher;
pub mod pattern;
pub(crate) mod plausibility;
pub mod raw;
pub(crate) mod recorded;
pub(crate) mod repair;
pub(crate) mod scanner;
pub mod scope;
pub(crate) mod sequences;
pub(crate) mod text_scope;

pub use codepage::{CodePage, ReadingMask, Readings};
pub(crate) use counts::Counts;
pub use field::{FieldEvidence, KeptBecause};
pub use matcher::{DoubleEncodedMatch, RepairedChar};
pub use plausibility::{Evidence, Strictness, Verdict};
pub use recorded::RecordedScan;
pub use repair::{RepairPatches, RepairWriter, repair};
pub(crate) use scanner::Utf8;
pub use scanner::{LostBytes, NotAReading, RawBytes, Run, Scanner, Sink};
pub(crate) use scope::ScopedValue;
