//! `undouble scan`: counts double-encoded text per input and in total; changes nothing.

use std::io::Write;

use clap::Args;

use super::inputs::{Listing, Prepared, Reported, Selection, Stopped, report_output};
use super::report_text::ReportText;
use super::values::FormatArg;
use super::{Detection, Outcome};
use crate::Error;
use crate::api::{Inspection, Inspector, Scanned};
use crate::charset::SurveyRecord;
use crate::engine::walk::Found;
use crate::mojibake::{Counts, Readings};
use crate::report::{self, CountsRecord, RangeRecord, ScanRecord, ScanTotal, ScannedFile, Skipped};

#[derive(Args, Clone, Debug)]
#[command(mut_arg("quiet", |arg| arg.help(QUIET_HELP)))]
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
    /// Scan only the bytes of one file from START to END (`START-` to its end), as an input
    /// split gives them: whole blocks of the whole file's run, so that the counts of ranges
    /// that tile the file sum to its counts (`undouble merge` sums them). A dump is lexed from
    /// its start.
    #[arg(long, value_name = "START-END", value_parser = super::values::parse_range)]
    range: Option<std::ops::Range<u64>>,
    #[command(flatten)]
    detection: Detection,
}

/// `scan -q`, as `grep -q`: nothing on standard output, nothing on standard error but errors.
const QUIET_HELP: &str = "Print nothing (errors aside): the exit status alone says whether \
    anything was found (1) or not (0), as with grep -q. Stops reading at the first block that \
    holds double-encoded text, and a find wins over an error (2)";

pub(crate) fn run(args: &ScanArgs) -> Outcome {
    let mut outcome = Outcome::default();
    // A range names one file, which is checked before it is read.
    let listing = match args.range {
        Some(_) => Listing::Whole,
        None => Listing::AsProcessed,
    };
    let started =
        (args.selection).start(&args.detection, args.format.into(), listing, &mut outcome);
    let (mut settings, prepared) = match started {
        Ok(started) => started,
        Err(error) => return Outcome::failed(&error),
    };
    if args.range.is_some()
        && let Err(error) =
            super::values::one_range_input(prepared.listed().map_or(0, <[Found]>::len))
    {
        return Outcome::failed(&error);
    }
    settings.range = args.range.clone();
    let inspector = match Inspector::builder().settings(settings).build() {
        Ok(inspector) => inspector,
        Err(error) => return Outcome::failed(&error),
    };
    if args.selection.quiet {
        return run_quiet(&inspector, &prepared, outcome);
    }
    let readings = inspector.readings();
    let mut total = Counts::default();
    let (mut files, mut skipped) = (0u64, 0u64);
    // The input the total's first invalid byte is in: the earliest offset, first on a tie.
    let mut first_invalid_path: Option<String> = None;
    let mut out = report_output();
    let report_one = |reported: Reported<'_, Result<FileReport, Error>>| {
        let (found, result) = match reported {
            Reported::Input(found, result) => (found, result),
            Reported::WalkFailed(error) => {
                outcome.told_in_place(&mut out, &error);
                return Ok(());
            }
        };
        let line = match result {
            Ok(FileReport {
                line,
                counts: Some(counts),
            }) => {
                files += 1;
                outcome.found |= counts.changes() > 0;
                if let Some(offset) = counts.first_invalid_offset
                    && total
                        .first_invalid_offset
                        .is_none_or(|first| offset < first)
                {
                    first_invalid_path = Some(found.input.display_path().display().to_string());
                }
                total.merge(counts);
                line
            }
            Ok(FileReport { line, counts: None }) => {
                skipped += 1;
                line
            }
            Err(error) => {
                let name = found.input.display_path().display().to_string();
                match outcome.input_failed(&mut out, name, &error, args.json) {
                    Some(failed) => report::json_line(&ScanRecord::Error(failed)).into(),
                    None => return Ok(()),
                }
            }
        };
        if let Err(source) = out.write_all(line.as_bytes()) {
            let path = "<stdout>".into();
            outcome.stop_or_report(&Error::Write { path, source });
            return Err(Stopped);
        }
        Ok(())
    };
    let inspect = |found: &Found| {
        let inspection = inspector.inspect(&found.input)?;
        Ok(file_report(args, readings, found, inspection))
    };
    if let Err(Stopped) = prepared.each_in_order(inspect, report_one) {
        prepared.finish();
        return outcome;
    }
    prepared.finish();
    let line = if args.json {
        // Offsets are of one input: a total has none.
        let mut counts = CountsRecord::new(readings, &total, args.top);
        counts.lost_byte_offsets.clear();
        report::json_line(&ScanRecord::Total(Box::new(ScanTotal {
            counts,
            files,
            skipped,
            errors: outcome.error_count,
            first_invalid_path,
        })))
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

/// One input's report, made on the thread that scanned it, and what the total needs of it.
/// What the scan made is freed there too, not on the thread that writes the reports: glibc's
/// allocator takes a lock to free memory that another thread's arena holds, and a tree of
/// small files would take it, and wait for it, a few times per file.
struct FileReport {
    line: ReportText,
    /// What it holds, for the total; none for an input skipped as binary.
    counts: Option<Counts>,
}

/// The report of the input `found` on what its inspection found, as `scan` writes it (JSON,
/// or text for a person).
fn file_report(
    args: &ScanArgs,
    readings: &Readings,
    found: &Found,
    inspection: Inspection,
) -> FileReport {
    let name = found.input.display_path().display().to_string();
    let scanned = match inspection {
        Inspection::Scanned(scanned) => scanned,
        Inspection::SkippedBinary => {
            let line = match args.json {
                true => report::json_line(&ScanRecord::Skipped(Skipped {
                    path: name,
                    reason: "binary".into(),
                })),
                false => super::color::scan_text(&format!(
                    "{name}: skipped (looks binary; --binary scans it)\n"
                )),
            };
            return FileReport {
                line: line.into(),
                counts: None,
            };
        }
    };
    let Scanned {
        counts,
        survey,
        survey_basis,
        fix,
        dump: tables,
    } = *scanned;
    let line = if args.json {
        report::json_line(&ScanRecord::File(Box::new(ScannedFile {
            path: name,
            counts: CountsRecord::new(readings, &counts, args.top),
            encoding: SurveyRecord { survey, fix },
            dump: tables.as_ref().map(|tables| tables.record(readings)),
            range: args.range.as_ref().map(|range| RangeRecord {
                start: range.start,
                end: range.end,
                file_bytes: std::fs::metadata(found.input.display_path())
                    .ok()
                    .map(|meta| meta.len()),
                survey_basis: Some(survey_basis),
            }),
        })))
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
        super::color::scan_text(&text)
    };
    FileReport {
        line: line.into(),
        counts: Some(counts),
    }
}

/// `scan -q`: the inputs in parallel, answered in the walk's order, until the first that
/// holds double-encoded text; what the rest hold cannot change the answer. An error of an
/// input before it is told.
fn run_quiet(inspector: &Inspector, prepared: &Prepared, mut outcome: Outcome) -> Outcome {
    let answered = prepared.each_in_order(
        |found| inspector.holds_any(&found.input),
        |reported| match reported {
            Reported::Input(_, Ok(true)) => Err(Stopped),
            Reported::Input(_, Ok(false)) => Ok(()),
            Reported::Input(_, Err(error)) | Reported::WalkFailed(error) => {
                outcome.error(&error);
                Ok(())
            }
        },
    );
    prepared.finish();
    if answered.is_err() {
        // As with grep -q: the answer is known, whatever went wrong on the way.
        return Outcome {
            found: true,
            ..Outcome::default()
        };
    }
    outcome
}
