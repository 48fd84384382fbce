//! `undouble scan`: counts double-encoded text per input and in total; changes nothing.

use std::io::{self, Write};

use clap::Args;
use rayon::prelude::*;

use super::inputs::Prepared;
use super::inputs::{FILE_WINDOW, Selection};
use super::values::FormatArg;
use super::{Detection, Outcome};
use crate::Error;
use crate::charset::{FileFacts, Survey, survey};
use crate::dump::{self, DumpOptions, DumpReport};
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
    /// Counts, the encoding survey, and for a dump its tables and columns.
    Counts(Box<Counts>, Box<Survey>, Option<Box<DumpReport>>),
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
                            Ok((counts, survey, tables)) => {
                                Scanned::Counts(Box::new(counts), Box::new(survey), tables)
                            }
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
                Scanned::Counts(counts, survey, tables) => {
                    files += 1;
                    outcome.found |= counts.double_encoded > 0;
                    let line = if args.json {
                        let mut body = report::counts_json(readings, &counts, args.top);
                        body["encoding"] = serde_json::to_value(&survey).unwrap_or_default();
                        if let Some(tables) = &tables {
                            body["dump"] = tables.json(readings);
                        }
                        format!("{}\n", report::record("file", Some(&name), body))
                    } else {
                        let mut text = report::counts_text(readings, &name, &counts, args.top);
                        for diagnostic in &survey.diagnostics {
                            text += &format!("  {}\n", diagnostic.message);
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
        let name = format!("total ({files} files, {skipped} skipped)");
        report::counts_text(readings, &name, &total, args.top)
    } else {
        String::new()
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
) -> Result<(Counts, Survey, Option<Box<DumpReport>>), Error> {
    let (counts, head, tables) = match dump::dialect_of(input, args.format.into())? {
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
            (counts, head, Some(Box::new(tables)))
        }
        None => {
            let (counts, head) =
                engine::scan_input_keeping_head(scanner, input, &prepared.engine, SURVEY_LIMIT)?;
            (counts, head, None)
        }
    };
    let facts = FileFacts {
        first_invalid_offset: counts.first_invalid_offset,
        non_ascii_chars: counts.non_ascii_chars,
        double_encoded: counts.double_encoded,
    };
    let survey = survey(&head, &facts);
    Ok((counts, survey, tables))
}
