//! undouble: find, count and repair double-encoded UTF-8 ("mojibake"), and tell which
//! character encoding a document declares and which it really uses.
//!
//! The crate is a library with a thin binary: everything the command line does is a call into
//! one of these modules.
//!
//! - [`mojibake`]: the pure byte maths: code-page tables, the matcher, layers, the plausibility
//!   rule, scanning, counting and repair of a byte slice.
//! - [`engine`]: inputs to results: files or standard input, fed to the scanner in blocks.
//! - [`audit`]: the audit log of `fix` (JSON Lines), and `undo` from it.
//! - [`report`]: what a person or a program reads: text summaries and JSON Lines.
//! - [`cli`]: the command line, one module per command.
//! - [`charset`]: the HTML::Encoding routines and the priority/conflict policy on top of them.
//! - [`dump`]: dump-aware mode: `mysqldump`/`pg_dump` files lexed so that only the values of
//!   text columns are repaired (blobs stay byte-identical), with a per-table, per-column report.

pub mod audit;
pub mod charset;
#[cfg(feature = "cli")]
pub mod cli;
pub mod dump;
pub mod engine;
pub mod error;
pub mod mojibake;
pub mod report;

pub use error::Error;
