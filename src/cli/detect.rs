//! `undouble detect`: which encoding each document declares, which one to use, and every way
//! the sources disagree — validome's policy (`charset::policy`) on the command line, one text
//! block or one JSON object per input.
//!
//! A document is read whole, because the policy looks at the body as a whole (is it valid
//! UTF-8?) and documents are small; anything over [`MAX_DOCUMENT_BYTES`] is refused rather
//! than loaded: a multi-gigabyte dump is `scan`'s job.
//!
//! Exit codes: 0 every input determined without a diagnostic; 1 every input answered, some
//! with conflicts or notices (a guess, ASCII); 3 some input not determinable (`no-charset`),
//! which wins over 1; 2 some input not readable, or a usage error, which wins over 3.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use clap::Args;

use super::Outcome;
use super::inputs::{Listing, Reported, Selection, Stopped, report_output};
use super::report_text::ReportText;
use crate::Error;
use crate::charset::{
    DEFAULT_MIN_CONFIDENCE, Declaration, Determination, HttpMessage, KnownEncoding, PolicyOptions,
    Score, determine, determine_http_message, determine_whatwg,
};
use crate::engine::Input;
use crate::engine::walk::Found;
use crate::report::{self, DetectRecord, DetectTotal, Detected, Skipped};
use encoding_rs::Encoding;

/// The largest document `detect` reads: 256 MiB (268,435,456 bytes).
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 256 << 20;

#[derive(Args, Clone, Debug)]
pub(crate) struct DetectArgs {
    /// Documents and directories, walked as `scan` walks them (`--schema` and `--no-mmap`
    /// change nothing here; files that look binary are skipped in a walk unless they are
    /// UTF-16/32).
    #[command(flatten)]
    selection: Selection,
    /// The `Content-Type` header the documents were served with, e.g.
    /// 'text/html; charset=utf-8'.
    #[arg(long, value_name = "CONTENT_TYPE", conflicts_with = "http")]
    content_type: Option<String>,
    /// Each input is a raw HTTP response (status line, headers, empty line, body), as
    /// `curl -i` saves it; its `Content-Type` header counts as the protocol's charset.
    #[arg(long)]
    http: bool,
    /// The encoding to use when nothing determines one, instead of a guess or the
    /// `no-charset` error.
    #[arg(long, value_name = "ENCODING")]
    assume: Option<String>,
    /// The confidence (0 to 1) a statistical guess needs to be the answer when nothing
    /// declares the encoding; a weaker one leaves the document undetermined (`no-charset`).
    /// 1 refuses every guess.
    #[arg(long, value_name = "SCORE", default_value_t = DEFAULT_MIN_CONFIDENCE)]
    min_confidence: f64,
    /// Answer as a browser does (the HTML Standard): BOM, HTTP header, `<meta>` prescan, a
    /// `<meta>` found later, UTF-16 in a `<meta>` read as UTF-8, then windows-1252 (or
    /// `--assume`); the bytes are compared, never obeyed.
    #[arg(long)]
    whatwg: bool,
    /// One JSON object per input (JSON Lines).
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &DetectArgs) -> Outcome {
    if let Some(label) = &args.assume
        && KnownEncoding::for_label(label).is_none()
    {
        return Outcome::failed(&Error::Usage(format!(
            "--assume: '{label}' is not a known encoding label"
        )));
    }
    let Some(min_confidence) = Score::from_value(args.min_confidence) else {
        return Outcome::failed(&Error::Usage(format!(
            "--min-confidence: {} is not a number from 0 to 1",
            args.min_confidence
        )));
    };
    let options = PolicyOptions {
        assume: args.assume.clone(),
        min_confidence,
        ..PolicyOptions::default()
    };
    let mut outcome = Outcome::default();
    let prepared = match args.selection.prepare(Listing::AsProcessed, &mut outcome) {
        Ok(prepared) => prepared,
        Err(error) => return Outcome::failed(&error),
    };
    // A tree gets one line per file and a summary; documents named one by one get the whole
    // report each.
    let tree = prepared.tree;
    let mut totals = Totals::default();
    let mut out = report_output();
    let determine = |found: &Found| -> Result<DocumentReport, Error> {
        let document = read_document(&found.input)?;
        // The progress shown on a terminal counts the bytes of the documents read.
        if let Some(progress) = &prepared.engine.progress {
            progress.advance(document.len() as u64);
        }
        let determination = determine_document(args, &document, &options);
        let skipped = found.root.is_some()
            && prepared.skip_binary
            && looks_binary(&document)
            && !is_wide_unicode(&determination);
        let name = found.input.display_path().display().to_string();
        Ok(match skipped {
            true => DocumentReport::skipped(args, name),
            false => DocumentReport::new(args, tree, name, determination),
        })
    };
    let report_one = |reported: Reported<'_, Result<DocumentReport, Error>>| {
        let (found, result) = match reported {
            Reported::Input(found, result) => (found, result),
            Reported::WalkFailed(error) => {
                totals.errors += 1;
                outcome.told_in_place(&mut out, &error);
                return Ok(());
            }
        };
        let text = match result {
            Ok(DocumentReport {
                line,
                answer: Some(answer),
            }) => {
                outcome.found |= answer.diagnostics;
                outcome.undetermined |= answer.undetermined;
                totals.add(&answer);
                line
            }
            Ok(DocumentReport { line, answer: None }) => {
                totals.skipped += 1;
                line
            }
            Err(error) => {
                totals.errors += 1;
                let name = found.input.display_path().display().to_string();
                match outcome.input_failed(&mut out, name, &error, args.json) {
                    Some(failed) => report::json_line(&DetectRecord::Error(failed)).into(),
                    None => return Ok(()),
                }
            }
        };
        if let Err(source) = out.write_all(text.as_bytes()) {
            outcome.stop_or_report(&Error::Write {
                path: "<stdout>".into(),
                source,
            });
            return Err(Stopped);
        }
        Ok(())
    };
    if let Err(Stopped) = prepared.each_in_order(determine, report_one) {
        prepared.finish();
        return outcome;
    }
    prepared.finish();
    if tree {
        let text = if args.json {
            report::json_line(&DetectRecord::Total(totals.record()))
        } else {
            totals.text()
        };
        if let Err(source) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            outcome.stop_or_report(&Error::Write {
                path: "<stdout>".into(),
                source,
            });
        }
    }
    outcome
}

/// One document's report, made on the thread that read it, and what the outcome and the
/// totals need of its answer. The determination is freed there too, as `scan` frees its
/// inspections: glibc's allocator takes a lock to free memory that another thread's arena
/// holds.
struct DocumentReport {
    line: ReportText,
    /// None for a document skipped as binary.
    answer: Option<Answer>,
}

/// What the outcome and the totals need of a determination.
struct Answer {
    /// It told something to act on.
    diagnostics: bool,
    /// No encoding, or an error among its diagnostics.
    undetermined: bool,
    encoding: Option<String>,
    guess: bool,
}

impl DocumentReport {
    /// The report of the document `name`: one line in a tree, the whole report otherwise.
    fn new(args: &DetectArgs, tree: bool, name: String, determination: Determination) -> Self {
        let answer = Answer {
            diagnostics: !determination.diagnostics.is_empty(),
            undetermined: determination.encoding.is_none() || determination.has_errors(),
            encoding: determination.encoding.clone(),
            guess: determination.guess,
        };
        let line = if args.json {
            report::json_line(&DetectRecord::Detect(Detected {
                path: name,
                determination,
            }))
        } else if tree {
            format!("{}\n", one_line(&name, &determination))
        } else {
            text_block(&name, &determination)
        };
        DocumentReport {
            line: line.into(),
            answer: Some(answer),
        }
    }

    /// The report of the document `name`, skipped as binary.
    fn skipped(args: &DetectArgs, name: String) -> Self {
        let line = match args.json {
            true => report::json_line(&DetectRecord::Skipped(Skipped {
                path: name,
                reason: "binary".into(),
            })),
            false => format!("{name}: skipped (looks binary; --binary reads it)\n"),
        };
        DocumentReport {
            line: line.into(),
            answer: None,
        }
    }
}

/// Whether the first 8 KiB hold a NUL byte, as `scan` judges binary files.
fn looks_binary(document: &[u8]) -> bool {
    let head = document.get(..8 << 10).unwrap_or(document);
    memchr::memchr(0, head).is_some()
}

/// Whether the answer is UTF-16/32, whose text is full of NUL bytes.
fn is_wide_unicode(determination: &Determination) -> bool {
    determination
        .encoding
        .as_deref()
        .and_then(KnownEncoding::for_label)
        .is_some_and(|encoding| !encoding.is_ascii_compatible())
}

/// What a tree holds: files per encoding, and how many were guesses, undetermined, skipped or
/// unreadable.
#[derive(Default)]
struct Totals {
    files: u64,
    encodings: BTreeMap<String, u64>,
    guesses: BTreeMap<String, u64>,
    undetermined: u64,
    skipped: u64,
    errors: u64,
}

impl Totals {
    fn add(&mut self, answer: &Answer) {
        self.files += 1;
        match &answer.encoding {
            Some(encoding) => {
                *self.encodings.entry(encoding.clone()).or_default() += 1;
                if answer.guess {
                    *self.guesses.entry(encoding.clone()).or_default() += 1;
                }
            }
            None => self.undetermined += 1,
        }
    }

    /// The encodings, most files first (then by name).
    fn by_count(&self) -> Vec<(&str, u64)> {
        let mut all: Vec<(&str, u64)> = self
            .encodings
            .iter()
            .map(|(name, n)| (name.as_str(), *n))
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        all
    }

    /// `total (12 files, 1 skipped, 0 unreadable): UTF-8 8, windows-1252 3 (2 guesses),
    /// undetermined 1`.
    fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .by_count()
            .into_iter()
            .map(|(name, n)| match self.guesses.get(name) {
                Some(&guesses) => format!("{name} {n} ({})", report::count(guesses, "guess")),
                None => format!("{name} {n}"),
            })
            .collect();
        if self.undetermined > 0 {
            parts.push(format!("undetermined {}", self.undetermined));
        }
        if parts.is_empty() {
            parts.push("nothing".to_owned());
        }
        format!(
            "total ({}, {} skipped, {} unreadable): {}\n",
            report::count(self.files, "file"),
            self.skipped,
            self.errors,
            parts.join(", ")
        )
    }

    fn record(&self) -> DetectTotal {
        DetectTotal {
            files: self.files,
            encodings: self
                .by_count()
                .into_iter()
                .map(|(name, n)| (name.to_owned(), n))
                .collect(),
            guesses: self.guesses.clone(),
            undetermined: self.undetermined,
            skipped: self.skipped,
            errors: self.errors,
        }
    }
}

/// The policy the arguments ask for, applied to one document.
fn determine_document(
    args: &DetectArgs,
    document: &[u8],
    options: &PolicyOptions,
) -> Determination {
    let content_type = args.content_type.as_deref().map(str::as_bytes);
    if args.whatwg {
        let default = options
            .assume
            .as_deref()
            .and_then(|label| Encoding::for_label(label.as_bytes()));
        if args.http {
            let message = HttpMessage::parse(document);
            let content_type = message.header("Content-Type");
            return determine_whatwg(message.body, content_type.as_deref(), default);
        }
        return determine_whatwg(document, content_type, default);
    }
    if args.http {
        return determine_http_message(&HttpMessage::parse(document), options);
    }
    determine(document, content_type, options)
}

/// The whole input, or an error naming it if it cannot be read or is too large.
fn read_document(input: &Input) -> Result<Vec<u8>, Error> {
    let path = input.display_path();
    match input {
        Input::Stream(stream) => read_bounded(stream.read_once()?, path, MAX_DOCUMENT_BYTES),
        Input::File(path) => {
            let open_error = |source| Error::Open {
                path: path.clone(),
                source,
            };
            let file = File::open(path).map_err(open_error)?;
            let size = file.metadata().map_err(open_error)?.len();
            if size > MAX_DOCUMENT_BYTES {
                return Err(too_large(path, MAX_DOCUMENT_BYTES));
            }
            read_bounded(file, path, MAX_DOCUMENT_BYTES)
        }
    }
}

/// Reads `reader` to the end, refusing more than `limit` bytes (a file can grow after its size
/// was checked; standard input has none).
fn read_bounded(reader: impl Read, path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    let mut document = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut document)
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            offset: document.len() as u64,
            source,
        })?;
    if document.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(document)
}

fn too_large(path: &Path, limit: u64) -> Error {
    Error::Usage(format!(
        "{}: larger than the {} bytes `detect` reads; `scan` surveys files of any size",
        path.display(),
        report::thousands(limit)
    ))
}

/// `sql "latin1" (windows-1252; SET NAMES, line 12)`, `meta "bogus" (unknown)`.
fn declaration_text(declaration: &Declaration) -> String {
    let encoding = declaration
        .encoding
        .as_deref()
        .unwrap_or("no known encoding");
    let place = declaration
        .place
        .as_ref()
        .map(|place| format!("; {place}"))
        .unwrap_or_default();
    format!(
        "{} \"{}\" ({encoding}{place})",
        declaration.source, declaration.label
    )
}

/// `page.html: UTF-8 from meta "utf-8"`, `legacy.txt: windows-1252 (guess, 0.93)`,
/// `x: not determined`.
fn answer_line(name: &str, found: &Determination) -> String {
    match (&found.encoding, found.source, &found.label) {
        (Some(encoding), Some(_), Some(_)) if found.guess => {
            let confidence = found.confidence.unwrap_or_default();
            format!("{name}: {encoding} (guess, {confidence})")
        }
        (Some(encoding), Some(source), Some(label)) => {
            format!("{name}: {encoding} from {source} \"{label}\"")
        }
        _ => format!("{name}: not determined"),
    }
}

/// `page.html: UTF-8 from meta "utf-8"; warning conflict, notice not-declared`: the answer
/// and what the diagnostics are about, for a file of a tree.
fn one_line(name: &str, found: &Determination) -> String {
    let mut line = answer_line(name, found);
    let codes: Vec<String> = found
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.level.as_str(), d.code.as_str()))
        .collect();
    if !codes.is_empty() {
        line = format!("{line}; {}", codes.join(", "));
    }
    line
}

/// The text report of one input: the answer, the declarations, the bytes, the diagnostics.
fn text_block(name: &str, found: &Determination) -> String {
    let mut out = format!("{}\n", answer_line(name, found));
    let declared: Vec<String> = found.declared.iter().map(declaration_text).collect();
    if declared.is_empty() {
        out += "  declared: nothing\n";
    } else {
        out += &format!("  declared: {}\n", declared.join(", "));
    }
    if let Some(detected) = &found.detected {
        out += &format!("  bytes: {}\n", detected.evidence);
    }
    for diagnostic in &found.diagnostics {
        out += &format!(
            "  {} {}: {}\n",
            diagnostic.level.as_str(),
            diagnostic.code.as_str(),
            diagnostic.message
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charset::{PolicyOptions, determine};

    #[test]
    fn text_block_names_everything() {
        let found = determine(
            "<meta charset=iso-8859-1><p>\u{E4}".as_bytes(),
            Some(b"text/html; charset=utf-8"),
            &PolicyOptions::default(),
        );
        let text = text_block("page.html", &found);
        assert!(
            text.starts_with("page.html: UTF-8 from protocol \"utf-8\"\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "  declared: protocol \"utf-8\" (UTF-8), meta \"iso-8859-1\" (windows-1252)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("  bytes: valid UTF-8 with 2 non-ASCII bytes\n"),
            "{text}"
        );
        assert!(text.contains("  warning conflict: protocol"), "{text}");
    }

    #[test]
    fn text_block_of_nothing() {
        let found = determine(b"Stra\xDFe", None, &PolicyOptions::default());
        let text = text_block("-", &found);
        assert!(
            text.starts_with("-: not determined\n  declared: nothing\n"),
            "{text}"
        );
        assert!(text.contains("  error no-charset: "), "{text}");
    }

    #[test]
    fn reading_is_bounded() {
        let exact = read_bounded(&b"abc"[..], Path::new("x"), 3);
        assert_eq!(exact.ok().as_deref(), Some(&b"abc"[..]));
        let error = read_bounded(std::io::repeat(b'a'), Path::new("big.html"), 1000)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            error,
            "big.html: larger than the 1,000 bytes `detect` reads; `scan` surveys files of any size"
        );
    }
}
