//! undouble: find, count and repair double-encoded UTF-8 ("mojibake"), and tell which
//! character encoding a document declares and which it really uses.
//!
//! The crate is a library with a thin binary: everything the command line does is a call into
//! one of these modules.
//!
//! - [`mojibake`]: the pure byte maths: code-page tables, the matcher, layers, the plausibility
//!   rule, scanning, counting and repair of a byte slice.
//! - [`charset`]: the HTML::Encoding routines and the priority/conflict policy on top of them.
//! - [`sql`]: what both dump readers share: the dialects, the tokenizer, the meaning of
//!   character set names.
//! - [`engine`]: inputs to results: files or standard input, fed to the scanner in blocks.
//! - [`dump`]: dump-aware mode: `mysqldump`/`pg_dump` files lexed so that only the values of
//!   text columns are repaired (blobs stay byte-identical), with a per-table, per-column report.
//! - [`audit`]: the audit log of `fix` (JSON Lines), and `undo` from it.
//! - [`report`]: what a person or a program reads: text summaries and JSON Lines.
//! - `cli` (with the default `cli` feature): the command line, one module per command.
//!
//! # Layers
//!
//! The modules depend on each other one way only, each on those before it in this order:
//!
//! 1. [`format`](mod@format): small formatting helpers, depending on nothing.
//! 2. [`sql`], then [`mojibake`] and [`charset`]: the pure core. Bytes in, answers out: no
//!    files, threads or terminals; `mojibake` and `charset` know nothing of each other.
//! 3. [`error`]: the errors of the layers above, which read files.
//! 4. [`engine`], then [`dump`] (which reads its inputs through the engine), then [`audit`]
//!    (which logs what the engine and the dump repair).
//! 5. [`report`], then `cli`: what people and programs read, and the command line. Only `cli`
//!    uses `clap` and `indicatif`; the library reports progress through [`engine::Progress`].
//!
//! `tests/layers.rs` checks the order on every test run.

pub mod audit;
pub mod charset;
#[cfg(feature = "cli")]
pub mod cli;
pub mod dump;
pub mod engine;
pub mod error;
pub mod format;
pub mod mojibake;
pub mod report;
pub mod sql;

pub use error::Error;
