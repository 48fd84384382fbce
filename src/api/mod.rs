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
//! - [`Settings`]: what both builders take, so that a fix and a scan of the same inputs judge
//!   and read them alike.

pub mod fixer;
pub mod inspector;

use std::sync::Arc;

pub use fixer::{
    FixOutcome, Fixer, FixerBuilder, NotUtf8, Repaired, Skip, Target, Transcode, Transcoding,
};
pub use inspector::{Inspection, Inspector, InspectorBuilder, Scanned};

use crate::dump::{Definitions, DumpOptions, Format};
use crate::engine::{EngineOptions, Progress};
use crate::error::Error;
use crate::mojibake::{LostBytes, RawBytes, Readings, Scanner, Strictness};
use crate::sql::SqlDialect;

/// How text is judged and how inputs are read: what a [`FixerBuilder`] and an
/// [`InspectorBuilder`] both take ([`FixerBuilder::settings`], [`InspectorBuilder::settings`]),
/// so that a program that scans and fixes the same inputs sets them once.
///
/// ```
/// use undouble::api::Settings;
/// use undouble::{Fixer, Format, Input, Inspection, Inspector, Strictness, Target};
///
/// let settings = Settings {
///     strictness: Strictness::Strict,
///     format: Format::Text,
///     ..Settings::default()
/// };
/// let inspector = Inspector::builder().settings(settings.clone()).build()?;
/// let Inspection::Scanned(scanned) = inspector.inspect(&Input::from_bytes("caf\u{c3}\u{a9}"))?
/// else {
///     panic!("text is scanned");
/// };
/// assert_eq!(scanned.counts.double_encoded, 1);
/// let fixer = Fixer::builder().settings(settings).build()?;
/// let mut out = Vec::new();
/// fixer.fix(&Input::from_bytes("caf\u{c3}\u{a9}"), Target::Stream(&mut out))?;
/// assert_eq!(out, "café".as_bytes());
/// # Ok::<(), undouble::Error>(())
/// ```
#[derive(Clone)]
pub struct Settings {
    /// The code pages the text may have been read through (default: every page this build
    /// knows, [`Readings::all`]).
    pub readings: Readings,
    /// Whether each buffer is read through the page its own evidence chooses among those of
    /// `readings` (the Western pair together, any other page alone; [`Scanner::choosing`])
    /// rather than through all of `readings` at once (default: yes).
    pub choose_reading: bool,
    /// How much evidence a sequence needs before it is repaired (default: balanced).
    pub strictness: Strictness,
    /// What becomes of bytes that are not UTF-8 (default: read through Windows-1252, one of
    /// the default readings).
    pub raw_bytes: RawBytes,
    /// What becomes of garbled characters that lost a byte (default: repaired where exactly
    /// one character fits, on the evidence of their field; [`LostBytes`]).
    pub lost_bytes: LostBytes,
    /// How inputs are read: as a SQL dump, as text, or as a dump when its header says so (the
    /// default).
    pub format: Format,
    /// The tables of dumps of the schema, for dumps that hold only data (default: none).
    pub schema: Option<Arc<Definitions>>,
    /// Memory-map regular files (the default) or read them like a pipe.
    pub mmap: bool,
    /// Told how many bytes are done as inputs are processed (a progress bar; default: none).
    pub progress: Option<Arc<dyn Progress>>,
    /// Process inputs that look binary (a NUL byte in their first 8 KiB) as text instead of
    /// skipping them (default: skipped).
    pub binary: bool,
    /// Only the bytes of each input from `start` to `end`, as an engine's input split gives
    /// them (default: all): the whole input's blocks that start in the range, each whole, so
    /// that the fixed outputs of any tiling of an input concatenate to its whole fix and
    /// their counts sum to its counts. A dump's blocks are lexed from its start, as the whole
    /// run lexes them, and only those in the range are scanned.
    pub range: Option<std::ops::Range<u64>>,
}

impl Default for Settings {
    fn default() -> Settings {
        let engine = EngineOptions::default();
        Settings {
            readings: Readings::all(),
            choose_reading: true,
            strictness: Strictness::default(),
            raw_bytes: RawBytes::default(),
            lost_bytes: LostBytes::default(),
            format: Format::Auto,
            schema: None,
            mmap: engine.mmap,
            progress: engine.progress,
            binary: false,
            range: None,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("readings", &self.readings)
            .field("choose_reading", &self.choose_reading)
            .field("strictness", &self.strictness)
            .field("raw_bytes", &self.raw_bytes)
            .field("lost_bytes", &self.lost_bytes)
            .field("format", &self.format)
            .field("schema", &self.schema)
            .field("mmap", &self.mmap)
            .field("progress", &self.progress.is_some())
            .field("binary", &self.binary)
            .field("range", &self.range)
            .finish()
    }
}

impl Settings {
    /// The scanner these settings judge text with; fails when the page asked for bytes that
    /// are not UTF-8 is not one of the readings.
    pub(crate) fn scanner(&self) -> Result<Scanner, Error> {
        let scanner = match self.choose_reading {
            true => Scanner::choosing(self.readings.pages(), self.strictness)
                .map_err(|e| Error::Usage(e.to_string()))?,
            false => Scanner::new(self.readings.clone(), self.strictness),
        };
        scanner
            .with_lost_bytes(self.lost_bytes)
            .with_raw_bytes(self.raw_bytes)
            .map_err(|e| Error::Usage(e.to_string()))
    }

    /// How the engine reads inputs.
    fn engine(&self) -> EngineOptions {
        EngineOptions {
            mmap: self.mmap,
            progress: self.progress.clone(),
            range: self.range.clone(),
            ..EngineOptions::default()
        }
    }
}

/// The options of a dump read in `dialect` with `schema`: what a scan asks, and a
/// fix with no character set to convert or keep.
fn dump_options(dialect: SqlDialect, schema: &Option<Arc<Definitions>>) -> DumpOptions {
    DumpOptions {
        dialect,
        convert_charset: None,
        schema: schema.clone(),
        keep_charset: false,
    }
}

/// The setters both builders share, written once: the whole [`Settings`], or the few of its
/// fields programs set one by one.
macro_rules! settings_setters {
    () => {
        /// How text is judged and inputs are read, all at once (replacing what the setters
        /// below set).
        pub fn settings(&mut self, settings: crate::api::Settings) -> &mut Self {
            self.settings = settings;
            self
        }

        /// The code pages the text may have been read through ([`Settings::readings`]).
        ///
        /// [`Settings::readings`]: crate::api::Settings::readings
        pub fn readings(&mut self, readings: crate::mojibake::Readings) -> &mut Self {
            self.settings.readings = readings;
            self
        }

        /// How much evidence a sequence needs before it is repaired
        /// ([`Settings::strictness`]).
        ///
        /// [`Settings::strictness`]: crate::api::Settings::strictness
        pub fn strictness(&mut self, strictness: crate::mojibake::Strictness) -> &mut Self {
            self.settings.strictness = strictness;
            self
        }

        /// What becomes of bytes that are not UTF-8 ([`Settings::raw_bytes`]).
        ///
        /// [`Settings::raw_bytes`]: crate::api::Settings::raw_bytes
        pub fn raw_bytes(&mut self, raw_bytes: crate::mojibake::RawBytes) -> &mut Self {
            self.settings.raw_bytes = raw_bytes;
            self
        }

        /// What becomes of garbled characters that lost a byte ([`Settings::lost_bytes`]).
        ///
        /// [`Settings::lost_bytes`]: crate::api::Settings::lost_bytes
        pub fn lost_bytes(&mut self, lost_bytes: crate::mojibake::LostBytes) -> &mut Self {
            self.settings.lost_bytes = lost_bytes;
            self
        }

        /// How inputs are read ([`Settings::format`]).
        ///
        /// [`Settings::format`]: crate::api::Settings::format
        pub fn format(&mut self, format: crate::dump::Format) -> &mut Self {
            self.settings.format = format;
            self
        }

        /// Process inputs that look binary as text instead of skipping them
        /// ([`Settings::binary`]).
        ///
        /// [`Settings::binary`]: crate::api::Settings::binary
        pub fn binary(&mut self, binary: bool) -> &mut Self {
            self.settings.binary = binary;
            self
        }

        /// Only the bytes of each input from `start` to `end`, as an input split gives them
        /// ([`Settings::range`]).
        ///
        /// [`Settings::range`]: crate::api::Settings::range
        pub fn range(&mut self, range: Option<std::ops::Range<u64>>) -> &mut Self {
            self.settings.range = range;
            self
        }
    };
}
pub(crate) use settings_setters;
