//! The library's front door: a [`Fixer`] repairs inputs, an [`Inspector`] reports on them, each
//! built once with a builder and then called once per input, as ripgrep's searcher is.
//!
//! Everything `fix` and `scan` decide about an input lives here, so that a program does what
//! the command line does by the same calls: whether it is read as a SQL dump or as text,
//! whether it is skipped (binary, or not UTF-8), converted (`--transcode`) or repaired, where
//! the result goes ([`Target`]), and whether an audit log records it. The command line only
//! turns its arguments into a builder and the outcomes into text and exit codes.
//!
//! The scanning side is called an inspector, not a scanner: [`crate::mojibake::Scanner`] is
//! the byte-level matcher both sides use, and [`crate::charset::Survey`] is the encoding survey
//! an inspection holds.
//!
//! - [`fixer`]: [`FixerBuilder`], [`Fixer`], [`Target`] and [`FixOutcome`].
//! - [`inspector`]: [`InspectorBuilder`], [`Inspector`] and [`Inspection`].

pub mod fixer;
pub mod inspector;

use std::sync::Arc;

pub use fixer::{
    FixOutcome, Fixer, FixerBuilder, NotUtf8, Repaired, Skip, Target, Transcode, Transcoding,
};
pub use inspector::{Inspection, Inspector, InspectorBuilder, Scanned};

use crate::dump::{Definitions, DumpOptions, Format};
use crate::engine::EngineOptions;
use crate::mojibake::{Readings, Scanner, Strictness};
use crate::sql::SqlDialect;

/// What both builders set: how text is judged and how inputs are read.
#[derive(Clone, Debug)]
struct Reading {
    readings: Readings,
    strictness: Strictness,
    format: Format,
    schema: Option<Arc<Definitions>>,
    engine: EngineOptions,
    binary: bool,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            readings: Readings::western(),
            strictness: Strictness::default(),
            format: Format::Auto,
            schema: None,
            engine: EngineOptions::default(),
            binary: false,
        }
    }
}

impl Reading {
    fn scanner(&self) -> Scanner {
        Scanner::new(self.readings.clone(), self.strictness)
    }
}

/// The options of a dump read in `dialect` with `reading`'s schema: what a scan asks, and a
/// fix with no character set to convert or keep.
fn dump_options(dialect: SqlDialect, schema: &Option<Arc<Definitions>>) -> DumpOptions {
    DumpOptions {
        dialect,
        convert_charset: None,
        schema: schema.clone(),
        keep_charset: false,
    }
}

/// The setters both builders share, written once: each sets one field of their [`Reading`].
macro_rules! reading_setters {
    () => {
        /// The code pages the text may have been read through (default: latin1 and cp1252).
        pub fn readings(&mut self, readings: crate::mojibake::Readings) -> &mut Self {
            self.reading.readings = readings;
            self
        }

        /// How much evidence a sequence needs before it is repaired (default: balanced).
        pub fn strictness(&mut self, strictness: crate::mojibake::Strictness) -> &mut Self {
            self.reading.strictness = strictness;
            self
        }

        /// How inputs are read: as a SQL dump, as text, or as a dump when its header says so
        /// (the default).
        pub fn format(&mut self, format: crate::dump::Format) -> &mut Self {
            self.reading.format = format;
            self
        }

        /// The tables of dumps of the schema, for dumps that hold only data.
        pub fn schema(
            &mut self,
            schema: Option<std::sync::Arc<crate::dump::Definitions>>,
        ) -> &mut Self {
            self.reading.schema = schema;
            self
        }

        /// Memory-map regular files (the default) or read them like a pipe.
        pub fn mmap(&mut self, mmap: bool) -> &mut Self {
            self.reading.engine.mmap = mmap;
            self
        }

        /// Told how many bytes are done as inputs are processed (a progress bar).
        pub fn progress(
            &mut self,
            progress: Option<std::sync::Arc<dyn crate::engine::Progress>>,
        ) -> &mut Self {
            self.reading.engine.progress = progress;
            self
        }

        /// Process inputs that look binary (a NUL byte in their first 8 KiB) as text instead
        /// of skipping them (default: skipped).
        pub fn binary(&mut self, binary: bool) -> &mut Self {
            self.reading.binary = binary;
            self
        }
    };
}
pub(crate) use reading_setters;
