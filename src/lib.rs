//! undouble: find, count and repair double-encoded UTF-8 ("mojibake"), and tell which
//! character encoding a document declares and which it really uses.
//!
//! The crate is a library with a thin binary: everything the command line does is a call into
//! it. A [`Fixer`] repairs inputs and an [`Inspector`] reports on them, each built once and
//! called once per input:
//!
//! ```
//! use undouble::{FixOutcome, Fixer, Input, Target};
//!
//! let fixer = Fixer::builder().build()?;
//! let mut out = Vec::new();
//! let input = Input::from_bytes("NaÃ¯ve cafÃ© crÃ¨me\n");
//! let FixOutcome::Repaired(repaired) = fixer.fix(&input, Target::Stream(&mut out))? else {
//!     panic!("UTF-8 text is repaired, not skipped");
//! };
//! assert_eq!(repaired.counts.double_encoded, 3);
//! assert_eq!(out, "Naïve café crème\n".as_bytes());
//! # Ok::<(), undouble::Error>(())
//! ```
//!
//! A file is repaired in place (atomically, and only when something changes), here with a
//! backup beside it and an audit log that `undo` can take the fix back from:
//!
//! ```
//! use undouble::{AuditLevel, FixOutcome, Fixer, Input, Target, Written};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("names.txt");
//! std::fs::write(&path, "ZoÃ« and RenÃ©e\n")?;
//! let log = dir.path().join("audit.jsonl");
//! let fixer = Fixer::builder()
//!     .audit(&log, AuditLevel::Full, ["my-program".to_owned()])
//!     .build()?;
//! let target = Target::Path { path: &path, backup: None };
//! match fixer.fix(&Input::File(path.clone()), target)? {
//!     FixOutcome::Repaired(repaired) => assert_eq!(repaired.written, Written::Replaced),
//!     other => panic!("{other:?}"),
//! }
//! fixer.finish()?;
//! assert_eq!(std::fs::read_to_string(&path)?, "Zoë and Renée\n");
//! assert!(std::fs::read_to_string(&log)?.lines().count() > 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`mojibake`]: the pure byte maths: code-page tables, the matcher, layers, the plausibility
//!   rule, scanning, counting and repair of a byte slice.
//! - [`charset`]: the HTML::Encoding routines and the priority/conflict policy on top of them.
//! - `sql`: what both dump readers share: the dialects, the tokenizer, the meaning of
//!   character set names.
//! - [`engine`]: inputs to results: files or standard input, fed to the scanner in blocks.
//! - [`dump`]: dump-aware mode: `mysqldump`/`pg_dump` files lexed so that only the values of
//!   text columns are repaired (blobs stay byte-identical), with a per-table, per-column report.
//! - [`audit`]: the audit log of `fix` (JSON Lines), and `undo` from it.
//! - [`api`]: the [`Fixer`] and the [`Inspector`], which decide what becomes of each input.
//! - [`report`]: what a person or a program reads: text summaries and JSON Lines.
//! - `cli` (with the default `cli` feature): the command line, one module per command.
//!
//! # Layers
//!
//! The modules depend on each other one way only, each on those before it in this order:
//!
//! 1. [`format`](mod@format): small formatting helpers, and `byte_search`: vector searches
//!    through bytes; both depend on nothing.
//! 2. `sql`, then [`mojibake`] and [`charset`]: the pure core. Bytes in, answers out: no
//!    files, threads or terminals; `mojibake` and `charset` know nothing of each other.
//! 3. `error`: the errors of the layers above, which read files.
//! 4. [`engine`], then [`dump`] (which reads its inputs through the engine), then [`audit`]
//!    (which logs what the engine and the dump repair), then [`api`] (which chooses among
//!    them for each input).
//! 5. [`report`], then `cli`: what people and programs read, and the command line. Only `cli`
//!    uses `clap` and `indicatif`; the library reports progress through [`engine::Progress`].
//!
//! `tests/layers.rs` checks the order on every test run.

pub mod api;
pub mod audit;
mod byte_search;
pub mod charset;
#[cfg(feature = "cli")]
pub mod cli;
pub mod dump;
pub mod engine;
mod error;
pub mod format;
pub mod mojibake;
pub mod report;
mod sql;

pub use api::{
    FixOutcome, Fixer, FixerBuilder, Inspection, Inspector, InspectorBuilder, NotUtf8, Settings,
    Target, Transcode,
};
pub use audit::AuditLevel;
pub use dump::{Charset, Format};
pub use engine::transcode::OnMalformed;
pub use engine::{Input, Written};
pub use error::{DumpErrorKind, Error};
pub use mojibake::{Readings, Strictness};
