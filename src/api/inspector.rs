//! [`Inspector`]: what `scan` reports of one input, with the settings of its builder: the
//! double-encoded text it holds, its declared and actual encoding, what a fix would make of it,
//! and for a SQL dump its tables and columns. Nothing is written.

use std::sync::Arc;

use super::{Settings, dump_options, settings_setters};
use crate::charset::{Confidence, FileFacts, Survey, SurveyBasis};
use crate::dump::{self, DumpReport};
use crate::engine::classify::{self, Basis, TextKind};
use crate::engine::{self, EngineOptions, Input};
use crate::error::Error;
use crate::mojibake::{CodePage, Counts, Readings, Scanner};

/// How much of a file the encoding survey reads: declarations sit at the start of a document
/// or dump, and a SQL dump's table charsets are read this far (the scan itself reads it all).
const SURVEY_LIMIT: usize = engine::blocks::BLOCK_SIZE;

/// A file shorter than this is read once, whole, with its head (which the binary sniff and
/// the dump's header need anyway), and scanned from memory: a tree of small files costs one
/// open and one read per file. At least what those two look at.
const SMALL_FILE: usize = 64 << 10;
const _: () = assert!(SMALL_FILE >= engine::SNIFF_LIMIT && SMALL_FILE >= dump::HEADER_LIMIT);
// A small file is all of its survey's head.
const _: () = assert!(SMALL_FILE <= SURVEY_LIMIT);

/// What became of one input.
#[derive(Debug)]
pub enum Inspection {
    Scanned(Box<Scanned>),
    /// It looks binary, and the builder's [`InspectorBuilder::binary`] was not set.
    SkippedBinary,
}

/// An input scanned.
#[derive(Debug)]
pub struct Scanned {
    /// What it holds: for a dump, of its text values only.
    pub counts: Counts,
    /// Its declared and actual encoding.
    pub survey: Survey,
    /// What the survey read off the file's head, which `merge` finishes with the counts of
    /// all the ranges of a file ([`SurveyBasis`]).
    pub survey_basis: SurveyBasis,
    /// What `fix` will do with it when it is not UTF-8, by the rule it judges files with
    /// (`windows-1252 (guess, 0.93): use --transcode`), or that a few stray bytes are kept.
    pub fix: Option<String>,
    /// A SQL dump's tables and columns (its counts are in [`Scanned::counts`]).
    pub dump: Option<DumpReport>,
}

/// Builds an [`Inspector`].
///
/// ```
/// use undouble::{Input, Inspection, Inspector};
///
/// let inspector = Inspector::builder().build()?;
/// let Inspection::Scanned(scanned) = inspector.inspect(&Input::from_bytes("caf\u{c3}\u{a9}"))?
/// else {
///     panic!("text is scanned");
/// };
/// assert_eq!(scanned.counts.double_encoded, 1);
/// # Ok::<(), undouble::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct InspectorBuilder {
    settings: Settings,
}

impl InspectorBuilder {
    settings_setters!();

    /// The inspector; fails when the settings contradict each other (a page for bytes that
    /// are not UTF-8 that is not one of the readings).
    pub fn build(&self) -> Result<Inspector, Error> {
        Ok(Inspector {
            scanner: self.settings.scanner()?,
            engine: self.settings.engine(),
            settings: self.settings.clone(),
        })
    }
}

/// Reports on inputs, one call per input ([`Inspector::builder`]); it may be called from
/// several threads at once.
pub struct Inspector {
    scanner: Scanner,
    engine: EngineOptions,
    settings: Settings,
}

impl Inspector {
    /// A builder with the defaults: each buffer read through the page its evidence chooses
    /// (the Western pair unless another explains more), balanced strictness, dumps
    /// read as dumps when their header says so, binary inputs skipped.
    pub fn builder() -> InspectorBuilder {
        InspectorBuilder::default()
    }

    /// The code pages the inspector reads text through (to name them in a report).
    pub fn readings(&self) -> &Readings {
        self.scanner.readings()
    }

    /// Scans `input` (as a dump, with its tables and columns, when it is one), then surveys its
    /// declared and actual encoding from its start and what the scan counted.
    pub fn inspect(&self, input: &Input) -> Result<Inspection, Error> {
        // One read of the head serves the binary sniff and the dump's header; a small file's
        // head is all of it, and the file is scanned from it, not opened again (but a dump,
        // which a file lets read twice, to name rows by keys declared after them).
        let head = input.head(SMALL_FILE)?;
        if !self.settings.binary && engine::is_binary_head(&head) {
            return Ok(Inspection::SkippedBinary);
        }
        let engine = &self.engine;
        let dialect = dump::dialect_in(&head, self.settings.format);
        let whole;
        let small = input.is_file() && head.len() < SMALL_FILE;
        // A small file's bytes, shared by its scan and its survey rather than copied.
        let mut held = None;
        let input = match small && dialect.is_none() && self.settings.range.is_none() {
            true => {
                let bytes = Arc::new(head);
                whole = Input::in_memory(input.display_path().to_path_buf(), Arc::clone(&bytes));
                held = Some(bytes);
                &whole
            }
            false => input,
        };
        if self.settings.range.is_some() {
            super::fixer::refuse_range(input)?;
        }
        let (counts, head, tables, kind) = match dialect {
            Some(dialect) => {
                let options = dump_options(dialect, &self.settings.schema);
                let pass = dump::DumpPass {
                    scanner: &self.scanner,
                    options: &options,
                    engine,
                };
                let (mut tables, head) = dump::scan_dump(&pass, input, SURVEY_LIMIT)?;
                let counts = std::mem::take(&mut tables.counts);
                // `fix` judges a dump by its text, leaving its blobs out: asked again only of a
                // dump that is not UTF-8, and of a file (a stream cannot be read twice). A
                // range is judged by the file's head, as the whole file is: what the range
                // holds says nothing of the file's validity.
                let ranged = self.settings.range.is_some();
                let kind = match counts.first_invalid_offset {
                    _ if ranged => Some(dump::classify(input, &options)?),
                    Some(_) if !input.is_stdin() => Some(dump::classify(input, &options)?),
                    _ => None,
                };
                (counts, Arc::new(head), Some(tables), kind)
            }
            None => {
                let (counts, head) = match held {
                    // All of it: shorter than the survey's limit.
                    Some(bytes) => (engine::scan_input(&self.scanner, input, engine)?, bytes),
                    None => {
                        let (counts, head) = engine::scan_input_keeping_head(
                            &self.scanner,
                            input,
                            engine,
                            SURVEY_LIMIT,
                        )?;
                        (counts, Arc::new(head))
                    }
                };
                let (head, kind) = match (&self.settings.range, counts.first_invalid_offset) {
                    // A range is judged by the file's head, as the whole file is: what the
                    // range holds says nothing of the file's validity.
                    (Some(_), _) => {
                        let readings = self.scanner.readings();
                        let head = engine::first_block_head(input, readings, engine, SURVEY_LIMIT)?;
                        let kind = classify::classify_head(&head);
                        (Arc::new(head), kind)
                    }
                    // A head the scan found valid is judged by its structure only, not read
                    // again.
                    (None, None) => {
                        let kind = classify::classify_valid_head(&head);
                        (head, kind)
                    }
                    (None, Some(_)) => {
                        let kind = classify::classify_head(&head);
                        (head, kind)
                    }
                };
                (counts, head, None, Some(kind))
            }
        };
        let counts = match kind {
            Some(TextKind::Legacy(_)) => counts.without_not_utf8(),
            _ => counts,
        };
        let facts = FileFacts {
            first_invalid_offset: counts.first_invalid_offset,
            non_ascii_chars: counts.non_ascii_chars,
            double_encoded: counts.double_encoded,
        };
        let survey_basis = SurveyBasis::read(&head, facts.first_invalid_offset);
        let survey = survey_basis.finish(&facts);
        let raw = self.scanner.raw_bytes();
        let fix = kind.and_then(|kind| what_fix_does(&kind, &survey, &facts, raw));
        Ok(Inspection::Scanned(Box::new(Scanned {
            counts,
            survey,
            survey_basis,
            fix,
            dump: tables,
        })))
    }

    /// Whether `input` holds anything a fix changes (an input skipped as binary holds none),
    /// found as cheaply as it can be: only the count, no survey, no per-column view, and
    /// nothing read after the first block that holds a change.
    pub fn holds_any(&self, input: &Input) -> Result<bool, Error> {
        let head = input.head(engine::SNIFF_LIMIT.max(dump::HEADER_LIMIT))?;
        if !self.settings.binary && engine::is_binary_head(&head) {
            return Ok(false);
        }
        let engine = &self.engine;
        match dump::dialect_in(&head, self.settings.format) {
            Some(dialect) => {
                let options = dump_options(dialect, &self.settings.schema);
                let pass = dump::DumpPass {
                    scanner: &self.scanner,
                    options: &options,
                    engine,
                };
                dump::dump_changes(&pass, input)
            }
            None => engine::input_changes(&self.scanner, input, engine),
        }
    }
}

/// What `fix` will do with a file that is not UTF-8, by the rule it judges files with:
/// `windows-1252 (guess, 0.93): use --transcode`, `UTF-16LE by its byte order mark: use
/// --transcode`, or why it cannot convert it unasked. `None` for a UTF-8 file; a file with
/// a few stray bytes is repaired as UTF-8, and says so.
fn what_fix_does(
    kind: &TextKind,
    survey: &Survey,
    facts: &FileFacts,
    raw: Option<&CodePage>,
) -> Option<String> {
    match kind {
        TextKind::Legacy(legacy) => {
            let name = legacy.encoding.name();
            let what = match legacy.basis {
                Basis::ByteOrderMark => format!("{name} by its byte order mark"),
                Basis::FirstCharacters => format!("{name} by its first characters"),
                Basis::ZeroBytes => format!("{name} by where its zero bytes fall"),
                Basis::Guess { confidence, .. } => {
                    let score = survey
                        .actual
                        .detected
                        .as_ref()
                        .filter(|d| d.guess && d.encoding.as_deref() == Some(name))
                        .and_then(|d| d.confidence);
                    match (score, confidence) {
                        (Some(score), _) => format!("{name} (guess, {score})"),
                        (None, Confidence::High) => format!("{name} (guess, high)"),
                        (None, Confidence::Low) => format!("{name} (guess, low)"),
                    }
                }
            };
            let action = match legacy.source_encoding(None) {
                Ok(_) => "use --transcode".to_owned(),
                Err(why) => why.to_owned(),
            };
            Some(format!("{what}: {action}"))
        }
        TextKind::Utf8 => facts.first_invalid_offset.map(|offset| match raw {
            Some(page) => format!(
                "UTF-8 with bytes that are not UTF-8 (the first at offset {offset}): fix repairs \
                 it as UTF-8 and reads them as {} characters",
                page.name
            ),
            None => format!(
                "UTF-8 with bytes that are not UTF-8 (the first at offset {offset}): fix repairs \
                 it as UTF-8 and keeps them as they are"
            ),
        }),
        TextKind::Binary => None,
    }
}
