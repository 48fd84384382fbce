//! [`Fixer`]: repairs one input at a time into a [`Target`], with the settings of its builder.
//!
//! Every input is judged from its head before any of it is written, for every target and
//! whether it is a file or a stream (`engine::classify::classify`, or for a dump
//! `dump::classify`, which leaves its blobs out): what is skipped can then be passed on
//! whole. An input that is not UTF-8 has nothing to repair: it is skipped, or converted to
//! UTF-8 through the same targets and atomic writes as a repair ([`NotUtf8`]). A dump is repaired as a dump (only the values of its text columns), anything else as
//! text. With an audit log, every repair is recorded in it, in the order of the calls.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Settings, dump_options, settings_setters};
use crate::audit::{AuditLevel, AuditLog};
use crate::charset::KnownEncoding;
use crate::dump::{self, Charset, ColumnKind, ColumnReport, DumpOptions, DumpReport};
use crate::engine::classify::{self, Legacy, TextKind};
use crate::engine::transcode::{self, OnMalformed, Transcoded};
use crate::engine::{self, EngineOptions, Input, Replacing, Written};
use crate::error::Error;
use crate::mojibake::counts::Sequences;
use crate::mojibake::{Counts, Readings, Scanner};
use crate::sql::SqlDialect;

/// Where one input's repair goes.
pub enum Target<'a> {
    /// Into a stream (standard output, a buffer), named in errors and in the audit log as the
    /// builder's [`FixerBuilder::stream_name`] says. It is flushed, not closed.
    Stream(&'a mut dyn Write),
    /// Into a file, replaced atomically; when it is the input itself and nothing changes, it is
    /// left as it was. With `backup`, the file replaced is kept beside it under its name plus
    /// that suffix (never over a file that exists).
    Path {
        path: &'a Path,
        backup: Option<&'a str>,
    },
    /// Nowhere: tell what the repair would do, and write nothing.
    Nowhere,
}

/// What a fixer does with an input that is not UTF-8 ([`FixerBuilder::not_utf8`]).
#[derive(Clone, Copy, Debug, Default)]
pub enum NotUtf8 {
    /// Skip it: passed on unchanged, and told as [`Skip::Legacy`] (the default).
    #[default]
    Skip,
    /// Convert it to UTF-8.
    Transcode(Transcode),
    /// Repair it as UTF-8 all the same, its invalid bytes kept as they are: for a program that
    /// knows its bytes are UTF-8 whatever they look like.
    Repair,
}

/// How files that are not UTF-8 are converted to it ([`NotUtf8::Transcode`]).
#[derive(Clone, Copy, Debug)]
pub struct Transcode {
    /// Their encoding, when it is known: otherwise a byte order mark or a confident guess
    /// decides (a weak guess is refused). A byte order mark still wins over it.
    pub from: Option<KnownEncoding>,
    /// Refuse a file with a sequence its encoding cannot decode, or write U+FFFD for each.
    pub on_malformed: OnMalformed,
}

/// What became of one input.
#[derive(Debug)]
pub enum FixOutcome {
    /// Repaired as UTF-8 (or found with nothing to repair).
    Repaired(Box<Repaired>),
    /// Converted to UTF-8.
    Transcoded(Box<Transcoding>),
    /// Not repaired, and passed on unchanged: to the stream, or to the target file (left as it
    /// is when that is the input itself).
    Skipped { why: Skip, written: Written },
}

/// An input repaired (or that would be, into [`Target::Nowhere`]).
#[derive(Debug)]
pub struct Repaired {
    /// What was (or would be) repaired, and what was left alone.
    pub counts: Counts,
    /// What became of the target.
    pub written: Written,
    /// A SQL dump's tables and columns.
    pub dump: Option<DumpReport>,
    /// Into [`Target::Nowhere`], of a dump: why writing the repair would be refused, if it
    /// would (a repair into columns stored in a single-byte character set).
    pub refusal: Option<String>,
    /// A dump fixed with a character set to convert, with rows of tables that only a schema
    /// dump defines: their character sets are out of the fix's reach.
    pub charsets_in_schema_dump: bool,
}

/// An input converted to UTF-8.
#[derive(Debug)]
pub struct Transcoding {
    /// What the conversion did.
    pub done: Transcoded,
    /// What became of the target.
    pub written: Written,
    /// The input is a SQL dump, whose declarations still name its old encoding.
    pub dump: bool,
}

/// Why an input was not repaired.
#[derive(Debug)]
pub enum Skip {
    /// It looks binary, and the builder's [`FixerBuilder::binary`] was not set.
    Binary,
    /// Not UTF-8, and [`NotUtf8::Skip`].
    Legacy(Legacy),
}

/// The audit log a fixer is built with.
#[derive(Clone, Debug)]
struct AuditSettings {
    path: PathBuf,
    level: AuditLevel,
    command_line: Vec<String>,
}

/// Builds a [`Fixer`].
///
/// ```
/// use undouble::{FixOutcome, Fixer, Input, Strictness, Target};
///
/// let fixer = Fixer::builder().strictness(Strictness::Strict).build()?;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("menu.txt");
/// std::fs::write(&path, "crÃ¨me brÃ»lÃ©e\n")?;
/// let target = Target::Path { path: &path, backup: Some(".orig") };
/// let FixOutcome::Repaired(repaired) = fixer.fix(&Input::File(path.clone()), target)? else {
///     panic!("UTF-8 text is repaired");
/// };
/// assert_eq!(repaired.counts.double_encoded, 3);
/// assert_eq!(std::fs::read_to_string(&path)?, "crème brûlée\n");
/// assert_eq!(std::fs::read_to_string(dir.path().join("menu.txt.orig"))?, "crÃ¨me brÃ»lÃ©e\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FixerBuilder {
    settings: Settings,
    convert_charset: Option<Charset>,
    keep_charset: bool,
    not_utf8: NotUtf8,
    break_hard_links: bool,
    page_cache: bool,
    create_dirs: bool,
    stream_name: PathBuf,
    audit: Option<AuditSettings>,
    count_sequences: bool,
}

impl Default for FixerBuilder {
    fn default() -> FixerBuilder {
        FixerBuilder {
            settings: Settings::default(),
            convert_charset: None,
            keep_charset: false,
            not_utf8: NotUtf8::Skip,
            break_hard_links: false,
            page_cache: false,
            create_dirs: false,
            stream_name: PathBuf::from("<stream>"),
            audit: None,
            count_sequences: true,
        }
    }
}

impl FixerBuilder {
    settings_setters!();

    /// With a SQL dump, also rewrite the `latin1` character set of its text columns, their
    /// tables and the connection to this one, so that the repaired dump loads as UTF-8.
    pub fn convert_charset(&mut self, charset: Option<Charset>) -> &mut Self {
        self.convert_charset = charset;
        self
    }

    /// With a SQL dump, write repaired text into text columns stored in a single-byte character
    /// set and keep that set, instead of refusing to ([`DumpOptions::loads_into`]).
    pub fn keep_charset(&mut self, keep: bool) -> &mut Self {
        self.keep_charset = keep;
        self
    }

    /// What to do with inputs that are not UTF-8 (default: skip them).
    pub fn not_utf8(&mut self, policy: NotUtf8) -> &mut Self {
        self.not_utf8 = policy;
        self
    }

    /// Replace a target file that has other hard links (they keep the old content) instead of
    /// refusing it.
    pub fn break_hard_links(&mut self, yes: bool) -> &mut Self {
        self.break_hard_links = yes;
        self
    }

    /// Write repaired files through the page cache instead of with `O_DIRECT` (default:
    /// direct, where the file system takes it): for a file system whose direct I/O misbehaves,
    /// or to compare the two.
    pub fn page_cache(&mut self, yes: bool) -> &mut Self {
        self.page_cache = yes;
        self
    }

    /// Create the missing directories a target file goes into (default: a target in a
    /// directory that does not exist is an error naming it).
    pub fn create_dirs(&mut self, yes: bool) -> &mut Self {
        self.create_dirs = yes;
        self
    }

    /// Count what is repaired by garbled form too ([`Counts::top_sequences`] of the outcome),
    /// not only the totals (default: yes). Without, a hash-map update per repaired character
    /// is saved, for a caller that lists no sequences. An audit log counts them either way.
    pub fn count_sequences(&mut self, yes: bool) -> &mut Self {
        self.count_sequences = yes;
        self
    }

    /// How a [`Target::Stream`] is named in errors and in the audit log (default `<stream>`).
    pub fn stream_name(&mut self, name: impl Into<PathBuf>) -> &mut Self {
        self.stream_name = name.into();
        self
    }

    /// Record every change in an audit log at `path`, which must not exist yet, at `level`;
    /// `command_line` is written in its header. Audited inputs must be fixed one after the
    /// other (the log is one stream in the order of the calls).
    pub fn audit(
        &mut self,
        path: impl Into<PathBuf>,
        level: AuditLevel,
        command_line: impl IntoIterator<Item = String>,
    ) -> &mut Self {
        self.audit = Some(AuditSettings {
            path: path.into(),
            level,
            command_line: command_line.into_iter().collect(),
        });
        self
    }

    /// The fixer; with an audit log, the log is created and its header written.
    pub fn build(&self) -> Result<Fixer, Error> {
        let scanner = self.settings.scanner()?;
        let audit = match &self.audit {
            None => None,
            Some(settings) => {
                let AuditSettings {
                    path,
                    level,
                    command_line,
                } = settings;
                let log = AuditLog::create(path, &scanner, *level, command_line.iter().cloned())?;
                Some(Mutex::new(log))
            }
        };
        let fix_sequences = match self.count_sequences {
            true => Sequences::Counted,
            false => Sequences::Uncounted,
        };
        Ok(Fixer {
            scanner,
            engine: EngineOptions {
                fix_sequences,
                ..self.settings.engine()
            },
            options: self.clone(),
            audit,
        })
    }
}

/// Repairs inputs, one call per input, with the settings it was built with
/// ([`Fixer::builder`]). Without an audit log it may be called from several threads at once.
///
/// ```
/// use undouble::{FixOutcome, Fixer, Input, Target};
///
/// let fixer = Fixer::builder().build()?;
/// let input = Input::from_bytes("Ãœber cafÃ© society\n");
/// let mut out = Vec::new();
/// match fixer.fix(&input, Target::Stream(&mut out))? {
///     FixOutcome::Repaired(repaired) => assert_eq!(repaired.counts.double_encoded, 2),
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(String::from_utf8(out)?, "Über café society\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Fixer {
    scanner: Scanner,
    engine: EngineOptions,
    /// What it was built with.
    options: FixerBuilder,
    audit: Option<Mutex<AuditLog>>,
}

impl Fixer {
    /// A builder with the defaults: each buffer read through the page its evidence chooses
    /// (the Western pair unless another explains more), balanced strictness, dumps
    /// read as dumps when their header says so, legacy and binary inputs skipped, no audit log.
    pub fn builder() -> FixerBuilder {
        FixerBuilder::default()
    }

    /// The code pages the fixer reads text through (to name them in a report).
    pub fn readings(&self) -> &Readings {
        self.scanner.readings()
    }

    /// Whether an audit log records the fixes (then inputs go one after the other).
    pub fn audited(&self) -> bool {
        self.audit.is_some()
    }

    /// Repairs `input` into `target`.
    pub fn fix(&self, input: &Input, target: Target<'_>) -> Result<FixOutcome, Error> {
        let dialect = dump::dialect_of(input, self.options.settings.format)?;
        if self.options.settings.range.is_some() {
            refuse_range(input)?;
            if let Target::Path { path, .. } = &target
                && *path == input.display_path()
            {
                return Err(Error::Usage(format!(
                    "{}: a range is written to another file or to standard output, never in place",
                    path.display()
                )));
            }
        }
        let dump = dialect.map(|dialect| self.dump_options(dialect));
        let kind = match &dump {
            Some(options) => dump::classify(input, options)?,
            None => classify::classify(input)?,
        };
        match kind {
            TextKind::Binary if !self.options.settings.binary => {
                self.skip(input, target, Skip::Binary)
            }
            TextKind::Legacy(legacy) => match self.options.not_utf8 {
                NotUtf8::Transcode(_) if self.options.settings.range.is_some() => {
                    Err(Error::Usage(format!(
                        "{}: a range is not transcoded: transcode the whole file",
                        input.display_path().display()
                    )))
                }
                NotUtf8::Transcode(policy) => {
                    self.transcode(input, target, dialect, legacy, policy)
                }
                NotUtf8::Skip => self.skip(input, target, Skip::Legacy(legacy)),
                NotUtf8::Repair => self.repair(input, target, dump),
            },
            // A binary input (when asked) is repaired as UTF-8: it is no legacy text.
            TextKind::Utf8 | TextKind::Binary => self.repair(input, target, dump),
        }
    }

    /// Ends the run: an audit log gets its `end` record and is synced. Without one, nothing.
    pub fn finish(self) -> Result<(), Error> {
        match self.audit {
            None => Ok(()),
            Some(log) => log
                .into_inner()
                .map_err(|_| Error::Internal("the audit log was poisoned by a crash".into()))
                .and_then(AuditLog::finish),
        }
    }

    fn dump_options(&self, dialect: SqlDialect) -> DumpOptions {
        DumpOptions {
            convert_charset: self.options.convert_charset,
            keep_charset: self.options.keep_charset,
            ..dump_options(dialect, &self.options.settings.schema)
        }
    }

    fn replacing<'a>(&self, backup: Option<&'a str>) -> Replacing<'a> {
        Replacing {
            backup,
            break_hard_links: self.options.break_hard_links,
            page_cache: self.options.page_cache,
        }
    }

    /// Makes sure the directory `target` goes into exists: created if the builder says so,
    /// an error naming it otherwise.
    fn prepare_parent(&self, target: &Path) -> Result<(), Error> {
        let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) else {
            return Ok(());
        };
        if self.options.create_dirs {
            return std::fs::create_dir_all(parent).map_err(|source| Error::Write {
                path: parent.to_path_buf(),
                source,
            });
        }
        match parent.is_dir() {
            true => Ok(()),
            false => Err(Error::NoDirectory {
                path: parent.to_path_buf(),
            }),
        }
    }

    /// Passes a skipped input on unchanged, so that an output that was to hold it holds every
    /// byte of it: copied to the stream, or to its target file (atomically, as a repair is
    /// written); left as it is in place; nothing into nowhere.
    fn skip(&self, input: &Input, target: Target<'_>, why: Skip) -> Result<FixOutcome, Error> {
        let readings = self.scanner.readings();
        let engine = &self.engine;
        let written = match target {
            Target::Nowhere => Written::Unchanged,
            Target::Stream(out) => {
                engine::copy_input(input, readings, out, &self.options.stream_name, engine)?;
                Written::Replaced
            }
            Target::Path { path, .. } if matches!(input, Input::File(p) if p == path) => {
                Written::Unchanged
            }
            Target::Path { path, .. } => {
                self.prepare_parent(path)?;
                let copy =
                    |out: &mut dyn Write| engine::copy_input(input, readings, out, path, engine);
                let (_, written) =
                    engine::write_to_path(input, path, self.replacing(None), copy, |_| true)?;
                written
            }
        };
        Ok(FixOutcome::Skipped { why, written })
    }

    /// Repairs one UTF-8 input (a dump as a dump) into `target`, logged if there is a log.
    fn repair(
        &self,
        input: &Input,
        target: Target<'_>,
        dump: Option<DumpOptions>,
    ) -> Result<FixOutcome, Error> {
        let mut log = match self.audit.as_ref().map(Mutex::lock) {
            None => None,
            Some(Ok(log)) => Some(log),
            Some(Err(_)) => return Err(Error::Internal("the audit log was poisoned".into())),
        };
        let log = log.as_deref_mut();
        let repaired = match dump {
            Some(options) => self.repair_dump(input, target, options, log)?,
            None if self.options.convert_charset.is_some() => {
                let message = format!(
                    "{}: --convert-charset needs a SQL dump, and this input has no dump header \
                     (--format sql reads it as one)",
                    input.display_path().display()
                );
                return Err(Error::Usage(message));
            }
            None => self.repair_text(input, target, log)?,
        };
        Ok(FixOutcome::Repaired(Box::new(repaired)))
    }

    fn repair_text(
        &self,
        input: &Input,
        target: Target<'_>,
        log: Option<&mut AuditLog>,
    ) -> Result<Repaired, Error> {
        let (scanner, engine) = (&self.scanner, &self.engine);
        let (counts, written) = match target {
            Target::Nowhere => (
                engine::scan_input(scanner, input, engine)?,
                Written::Unchanged,
            ),
            Target::Stream(out) => {
                let name = &self.options.stream_name;
                let counts = match log {
                    Some(log) => log.fix_input(input, out, name, engine)?,
                    None => engine::fix_input(scanner, input, out, name, engine)?,
                };
                (counts, Written::Replaced)
            }
            Target::Path { path, backup } => {
                self.prepare_parent(path)?;
                let replacing = self.replacing(backup);
                match log {
                    Some(log) => log.fix_to_path(input, path, engine, replacing)?,
                    None => engine::fix_to_path(scanner, input, path, replacing, engine)?,
                }
            }
        };
        Ok(Repaired {
            counts,
            written,
            dump: None,
            refusal: None,
            charsets_in_schema_dump: false,
        })
    }

    /// Repairs one SQL dump: only the values of its text columns.
    fn repair_dump(
        &self,
        input: &Input,
        target: Target<'_>,
        options: DumpOptions,
        log: Option<&mut AuditLog>,
    ) -> Result<Repaired, Error> {
        let pass = dump::DumpPass {
            scanner: &self.scanner,
            options: &options,
            engine: &self.engine,
        };
        let mut refusal = None;
        let (report, written) = match target {
            Target::Nowhere => {
                let (report, _) = dump::scan_dump(&pass, input, 0)?;
                refusal = report.refusal_warning(options.convert_charset, options.keep_charset);
                (report, Written::Unchanged)
            }
            Target::Stream(out) => {
                let name = &self.options.stream_name;
                let report = match log {
                    Some(log) => log.fix_dump_input(input, out, name, &options, pass.engine)?,
                    None => {
                        let mut out = out;
                        let output = dump::DumpOutput {
                            out: &mut out,
                            path: name,
                            audit: None,
                        };
                        dump::fix_dump(&pass, input, output)?
                    }
                };
                (report, Written::Replaced)
            }
            Target::Path { path, backup } => {
                self.prepare_parent(path)?;
                let replacing = self.replacing(backup);
                match log {
                    Some(log) => {
                        log.fix_dump_to_path(input, path, &options, pass.engine, replacing)?
                    }
                    None => dump::fix_dump_to_path(&pass, input, path, replacing)?,
                }
            }
        };
        // PostgreSQL columns declare no character set: only MySQL's are left behind.
        let charsets_in_schema_dump = options.convert_charset.is_some()
            && options.dialect == SqlDialect::MySql
            && report.has_rows_of_schema_dump_tables();
        Ok(Repaired {
            counts: report.counts.clone(),
            written,
            dump: Some(report),
            refusal,
            charsets_in_schema_dump,
        })
    }

    /// Converts one legacy input to UTF-8 into `target`: from the encoding of its byte order
    /// mark, the policy's, or a confident guess (a weak guess is refused).
    fn transcode(
        &self,
        input: &Input,
        target: Target<'_>,
        dialect: Option<SqlDialect>,
        legacy: Legacy,
        policy: Transcode,
    ) -> Result<FixOutcome, Error> {
        if let Some(dialect) = dialect {
            let columns = self.binary_columns_with_values(input, dialect)?;
            if !columns.is_empty() {
                return Err(Error::Usage(format!(
                    "{}: not UTF-8 ({}); a SQL dump whose binary columns hold values ({}) is not \
                     converted: their bytes would be converted as if they were text. Dump it \
                     again with --default-character-set=utf8mb4 instead",
                    input.display_path().display(),
                    legacy.describe(),
                    columns.join(", ")
                )));
            }
        }
        let from = legacy.source_encoding(policy.from).map_err(|why| {
            let name = input.display_path();
            Error::Usage(format!(
                "{}: not UTF-8 ({}); {why}",
                name.display(),
                legacy.describe()
            ))
        })?;
        let pass = transcode::TranscodePass {
            from,
            on_malformed: policy.on_malformed,
            readings: self.scanner.readings(),
            engine: &self.engine,
        };
        let convert = |out: &mut dyn Write, out_path: &Path| {
            transcode::transcode_input(&pass, input, out, out_path)
        };
        let (done, written) = match target {
            Target::Nowhere => (
                convert(&mut io::sink(), Path::new("<nowhere>"))?,
                Written::Unchanged,
            ),
            Target::Stream(out) => (convert(out, &self.options.stream_name)?, Written::Replaced),
            Target::Path { path, backup } => {
                self.prepare_parent(path)?;
                // A converted file always differs from its original.
                let replacing = self.replacing(backup);
                engine::write_to_path(input, path, replacing, |out| convert(out, path), |_| true)?
            }
        };
        Ok(FixOutcome::Transcoded(Box::new(Transcoding {
            done,
            written,
            dump: dialect.is_some(),
        })))
    }

    /// The binary columns of the dump `input` that hold values other than NULL (`table.column`),
    /// from a scan of the whole dump: what a conversion of the whole file would damage.
    fn binary_columns_with_values(
        &self,
        input: &Input,
        dialect: SqlDialect,
    ) -> Result<Vec<String>, Error> {
        let options = dump_options(dialect, &self.options.settings.schema);
        // A look ahead of the conversion: it moves no progress bar.
        let engine = engine::EngineOptions {
            progress: None,
            ..self.engine.clone()
        };
        let pass = dump::DumpPass {
            scanner: &self.scanner,
            options: &options,
            engine: &engine,
        };
        let (report, _) = dump::scan_dump(&pass, input, 0)?;
        let columns = report.tables.iter().flat_map(|table| {
            let holding =
                |c: &&ColumnReport| c.kind == ColumnKind::Binary && c.cells > c.null_cells;
            let named = |c: &ColumnReport| format!("{}.{}", table.name, c.name);
            table.columns.iter().filter(holding).map(named)
        });
        Ok(columns.collect())
    }
}

/// Refuses a range of standard input, which has no offsets to start at.
pub(crate) fn refuse_range(input: &Input) -> Result<(), Error> {
    match input.is_stdin() {
        false => Ok(()),
        true => Err(Error::Usage(format!(
            "{}: no range of it: standard input has no offsets to start at",
            input.display_path().display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixer told that no sequences are listed writes the same bytes and the same totals,
    /// and counts no garbled form: of text, and of a dump, whose cells go another way.
    #[test]
    fn sequences_are_counted_unless_the_caller_lists_none() {
        let text = "CafÃ© crÃ¨me, naÃ¯ve â€™ and Ã©tÃ©\n";
        let dump = format!(
            "-- MySQL dump 10.13\nSET NAMES utf8mb4;\nCREATE TABLE t (id int, s text) DEFAULT CHARSET=utf8mb4;\n\
             INSERT INTO t VALUES (1,'{}');\n",
            text.trim_end()
        );
        for (input, repaired) in [
            (
                text.to_string(),
                "Café crème, naïve ’ and été\n".to_string(),
            ),
            (
                dump.clone(),
                dump.replace(text.trim_end(), "Café crème, naïve ’ and été"),
            ),
        ] {
            let fix = |count: bool| {
                let input = Input::from_bytes(input.as_bytes());
                let fixer = Fixer::builder().count_sequences(count).build().unwrap();
                let mut out = Vec::new();
                let FixOutcome::Repaired(repaired) =
                    fixer.fix(&input, Target::Stream(&mut out)).unwrap()
                else {
                    panic!("UTF-8 text is repaired");
                };
                (out, repaired.counts, repaired.dump.is_some())
            };
            let (counted_out, counted, counted_as_dump) = fix(true);
            let (plain_out, plain, plain_as_dump) = fix(false);
            assert_eq!(counted_out, repaired.as_bytes());
            assert_eq!(plain_out, counted_out);
            assert_eq!(counted_as_dump, input == dump);
            assert_eq!(plain_as_dump, counted_as_dump);
            let totals = |c: &Counts| {
                (
                    c.double_encoded,
                    c.garbled_chars,
                    c.left_alone,
                    c.non_ascii_chars,
                    c.by_layers(),
                )
            };
            assert_eq!(totals(&plain), totals(&counted));
            assert_eq!(counted.double_encoded, 6);
            assert_eq!(counted.distinct_sequences(), 4);
            assert_eq!(plain.distinct_sequences(), 0);
        }
    }
}
