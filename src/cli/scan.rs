//! `undouble scan`: counts double-encoded text per input and in total; changes nothing.

use std::io::{self, Write};

use clap::Args;
use rayon::prelude::*;

use super::inputs::Prepared;
use super::inputs::{FILE_WINDOW, Selection};
use super::values::FormatArg;
use super::{Detection, Outcome};
use crate::Error;
use crate::charset::Confidence;
use crate::charset::{FileFacts, Survey, survey};
use crate::dump::{self, DumpOptions, DumpReport};
use crate::engine::transcode::{self, Basis, TextKind};
use crate::engine::{self, Input};
use crate::mojibake::{Counts, Scanner};
use crate::report;

#[derive(Args, Clone, Debug)]
pub(crate) struct ScanArgs {
    #[command(flatten)]
    selection: Selection,
    /// One JSON object per file and one for the totals (JSON Lines).
    #[arg(long)]
    json: bool,
    /// How many distinct sequences to list per file.
    #[arg(long, default_value_t = report::TOP_SEQUENCES)]
    top: usize,
    /// How inputs are read: a SQL dump (`sql`: only the values of text columns count, and
    /// every table and column is reported), plain text (`text`), or a dump when its header
    /// says so.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    #[command(flatten)]
    detection: Detection,
}

/// What became of one input.
enum Scanned {
    /// Counts, the encoding survey, what `fix` would make of a file that is not UTF-8, and
    /// for a dump its tables and columns.
    Counts(
        Box<Counts>,
        Box<Survey>,
        Option<String>,
        Option<Box<DumpReport>>,
    ),
    SkippedBinary,
    Failed(Error),
}

pub(crate) fn run(args: &ScanArgs) -> Outcome {
    let mut outcome = Outcome::default();
    let (scanner, prepared) = match args.selection.start(&args.detection, &mut outcome) {
        Ok(started) => started,
        Err(error) => return Outcome::failed(&error),
    };
    let readings = scanner.readings();
    let mut total = Counts::default();
    let (mut files, mut skipped) = (0u64, 0u64);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for window in prepared.found.chunks(FILE_WINDOW) {
        let results: Vec<Scanned> = prepared.pool.install(|| {
            window
                .par_iter()
                .map(|found| {
                    prepared.show(&found.input);
                    match prepared.is_skipped_binary(&found.input) {
                        Ok(true) => Scanned::SkippedBinary,
                        Ok(false) => match scan_and_survey(args, &scanner, &found.input, &prepared)
                        {
                            Ok(scanned) => scanned,
                            Err(error) => Scanned::Failed(error),
                        },
                        Err(error) => Scanned::Failed(error),
                    }
                })
                .collect()
        });
        for (found, result) in window.iter().zip(results) {
            let name = found.input.display_path().display().to_string();
            let line = match result {
                Scanned::Counts(counts, survey, fix, tables) => {
                    files += 1;
                    outcome.found |= counts.double_encoded > 0;
                    let line = if args.json {
                        let mut body = report::counts_json(readings, &counts, args.top);
                        body["encoding"] = serde_json::to_value(&survey).unwrap_or_default();
                        if let Some(fix) = &fix {
                            body["encoding"]["fix"] = fix.as_str().into();
                        }
                        if let Some(tables) = &tables {
                            body["dump"] = tables.json(readings);
                        }
                        format!("{}\n", report::record("file", Some(&name), body))
                    } else {
                        let mut text = report::counts_text(readings, &name, &counts, args.top);
                        for diagnostic in &survey.diagnostics {
                            text += &format!("  {}\n", diagnostic.message);
                        }
                        if let Some(fix) = &fix {
                            text += &format!("  {fix}\n");
                        }
                        if let Some(tables) = &tables {
                            text += &tables.text(readings, false);
                            if let Some(refusal) = tables.refusal_warning(None, false) {
                                text += &format!("  warning: {refusal}\n");
                            }
                        }
                        text
                    };
                    total.merge(*counts);
                    line
                }
                Scanned::SkippedBinary => {
                    skipped += 1;
                    if args.json {
                        let body = serde_json::json!({ "reason": "binary" });
                        format!("{}\n", report::record("skipped", Some(&name), body))
                    } else {
                        format!("{name}: skipped (looks binary; --binary scans it)\n")
                    }
                }
                Scanned::Failed(error) => {
                    outcome.error(&error);
                    if !args.json {
                        continue;
                    }
                    let body = serde_json::json!({ "message": error.to_string() });
                    format!("{}\n", report::record("error", Some(&name), body))
                }
            };
            let line = if args.json {
                line
            } else {
                super::color::scan_text(&line)
            };
            if let Err(source) = out.write_all(line.as_bytes()) {
                let path = "<stdout>".into();
                outcome.stop_or_report(&Error::Write { path, source });
                prepared.finish();
                return outcome;
            }
        }
    }
    prepared.finish();
    let line = if args.json {
        let mut body = report::counts_json(readings, &total, args.top);
        body["files"] = files.into();
        body["skipped"] = skipped.into();
        format!("{}\n", report::record("total", None, body))
    } else if files + skipped > 1 {
        let name = format!(
            "total ({}, {skipped} skipped)",
            report::count(files, "file")
        );
        report::counts_text(readings, &name, &total, args.top)
    } else {
        String::new()
    };
    let line = if args.json {
        line
    } else {
        super::color::scan_text(&line)
    };
    if let Err(source) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
        outcome.stop_or_report(&Error::Write {
            path: "<stdout>".into(),
            source,
        });
    }
    outcome
}

/// How much of a file the encoding survey reads: declarations sit at the start of a document
/// or dump, and a SQL dump's table charsets are read this far (the scan itself reads it all).
const SURVEY_LIMIT: usize = engine::blocks::BLOCK_SIZE;

/// Scans one input (as a dump, with its tables and columns, when it is one), then surveys its
/// declared and actual encoding from its start and what the scan counted.
fn scan_and_survey(
    args: &ScanArgs,
    scanner: &Scanner,
    input: &Input,
    prepared: &Prepared,
) -> Result<Scanned, Error> {
    let (counts, head, tables, kind) = match dump::dialect_of(input, args.format.into())? {
        Some(dialect) => {
            let options = DumpOptions {
                dialect,
                convert_charset: None,
                schema: prepared.definitions.clone(),
                keep_charset: false,
            };
            let (mut tables, head) =
                dump::scan_dump(scanner, input, &options, &prepared.engine, SURVEY_LIMIT)?;
            let counts = std::mem::take(&mut tables.counts);
            // `fix` judges a dump by its text, leaving its blobs out: asked again only of a
            // dump that is not UTF-8, and of a file (a stream cannot be read twice).
            let kind = match counts.first_invalid_offset {
                Some(_) if !input.is_stdin() => Some(dump::classify(input, &options)?),
                _ => None,
            };
            (counts, head, Some(Box::new(tables)), kind)
        }
        None => {
            let (counts, head) =
                engine::scan_input_keeping_head(scanner, input, &prepared.engine, SURVEY_LIMIT)?;
            let kind = match counts.first_invalid_offset {
                None => transcode::classify_valid_head(&head),
                Some(_) => transcode::classify_head(&head),
            };
            (counts, head, None, Some(kind))
        }
    };
    let facts = FileFacts {
        first_invalid_offset: counts.first_invalid_offset,
        non_ascii_chars: counts.non_ascii_chars,
        double_encoded: counts.double_encoded,
    };
    let survey = survey(&head, &facts);
    let fix = kind.and_then(|kind| what_fix_does(&kind, &survey, &facts));
    Ok(Scanned::Counts(
        Box::new(counts),
        Box::new(survey),
        fix,
        tables,
    ))
}

/// What `fix` will do with a file that is not UTF-8, by the rule it judges files with:
/// `windows-1252 (guess, 0.93): use --transcode`, `UTF-16LE by its byte order mark: use
/// --transcode`, or why it cannot convert it unasked. `None` for a UTF-8 file; a file with
/// a few stray bytes is repaired as UTF-8, and says so.
fn what_fix_does(kind: &TextKind, survey: &Survey, facts: &FileFacts) -> Option<String> {
    match kind {
        TextKind::Legacy(legacy) => {
            let name = legacy.encoding.name();
            let what = match legacy.basis {
                Basis::ByteOrderMark => format!("{name} by its byte order mark"),
                Basis::FirstCharacters => format!("{name} by its first characters"),
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
        TextKind::Utf8 => facts.first_invalid_offset.map(|offset| {
            format!(
                "UTF-8 with stray bytes (the first at offset {offset}): fix repairs it as UTF-8 \
                 and keeps them as they are"
            )
        }),
        TextKind::Binary => None,
    }
}
