//! `undouble scan`: counts double-encoded text per input and in total; changes nothing.

use std::io::{self, Write};

use clap::Args;
use rayon::prelude::*;

use super::inputs::Prepared;
use super::inputs::{FILE_WINDOW, Selection};
use super::{Detection, Outcome};
use crate::Error;
use crate::charset::{FileFacts, Survey, survey};
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
    #[command(flatten)]
    detection: Detection,
}

/// What became of one input.
enum Scanned {
    Counts(Box<Counts>, Box<Survey>),
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
                        Ok(false) => match scan_and_survey(&scanner, &found.input, &prepared) {
                            Ok((counts, survey)) => {
                                Scanned::Counts(Box::new(counts), Box::new(survey))
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
                Scanned::Counts(counts, survey) => {
                    files += 1;
                    outcome.found |= counts.double_encoded > 0;
                    let line = if args.json {
                        let mut body = report::counts_json(readings, &counts, args.top);
                        body["encoding"] = serde_json::to_value(&survey).unwrap_or_default();
                        format!("{}\n", report::record("file", Some(&name), body))
                    } else {
                        let mut text = report::counts_text(readings, &name, &counts, args.top);
                        for diagnostic in &survey.diagnostics {
                            text += &format!("  {}\n", diagnostic.message);
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
            let _ = out.write_all(line.as_bytes());
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
    let _ = out.write_all(line.as_bytes());
    outcome
}

/// How much of a file the encoding survey reads: declarations sit at the start of a document
/// or dump, and a SQL dump's table charsets are read this far (the scan itself reads it all).
const SURVEY_LIMIT: usize = engine::blocks::BLOCK_SIZE;

/// Scans one input, then surveys its declared and actual encoding from its start and what the
/// scan counted.
fn scan_and_survey(
    scanner: &Scanner,
    input: &Input,
    prepared: &Prepared,
) -> Result<(Counts, Survey), Error> {
    let (counts, head) =
        engine::scan_input_keeping_head(scanner, input, &prepared.engine, SURVEY_LIMIT)?;
    let facts = FileFacts {
        first_invalid_offset: counts.first_invalid_offset,
        non_ascii_chars: counts.non_ascii_chars,
        double_encoded: counts.double_encoded,
    };
    let survey = survey(&head, &facts);
    Ok((counts, survey))
}
