//! `undouble explain`: how one text was garbled, what undouble made of each run, the repair.
//!
//! The text is the arguments, or the bytes of standard input (`-`, or no argument when standard
//! input is not a terminal): the exact bytes, so that a text that is not UTF-8, or holds
//! control characters a shell would mangle, can be explained as it is.

use std::io::{IsTerminal, Read, Write};

use clap::Args;

use super::{Detection, Outcome, color};
use crate::Error;
use crate::mojibake::explain;
use crate::report;

/// The most of standard input `explain` reads: it explains a text, not a file (`scan` counts
/// files of any size).
const MAX_INPUT: u64 = 1 << 20;

#[derive(Args, Clone, Debug)]
pub(crate) struct ExplainArgs {
    /// The text to explain (several arguments are joined by spaces); `-`, or nothing when
    /// standard input is not a terminal, reads standard input (up to 1 MiB; a final line break
    /// is dropped).
    text: Vec<String>,
    /// One JSON object per run found, then one for the whole text (JSON Lines).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    detection: Detection,
}

pub(crate) fn run(args: &ExplainArgs) -> Outcome {
    let scanner = match args.detection.scanner() {
        Ok(scanner) => scanner,
        Err(error) => return Outcome::failed(&error),
    };
    let text = match text(args) {
        Ok(text) => text,
        Err(error) => return Outcome::failed(&error),
    };
    let explanation = explain::explain(&scanner, &text);
    let mut outcome = Outcome {
        found: explanation.repaired_chars() > 0,
        ..Outcome::default()
    };
    let shown = match args.json {
        true => report::explain_records(&explanation)
            .iter()
            .map(report::json_line)
            .collect(),
        false => color::explain_text(&explanation.to_string()),
    };
    let written = std::io::stdout().lock().write_all(shown.as_bytes());
    if let Err(source) = written {
        let path = "<stdout>".into();
        outcome.stop_or_report(&Error::Write { path, source });
    }
    outcome
}

/// The bytes to explain: the arguments, or standard input.
fn text(args: &ExplainArgs) -> Result<Vec<u8>, Error> {
    let from_stdin = match args.text.as_slice() {
        [only] if only == "-" => true,
        [] if std::io::stdin().is_terminal() => {
            return Err(Error::Usage(
                "explain needs a text: as arguments, or `-` to read standard input".into(),
            ));
        }
        [] => true,
        _ => false,
    };
    if !from_stdin {
        return Ok(args.text.join(" ").into_bytes());
    }
    let mut bytes = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes);
    if let Err(source) = read {
        return Err(Error::Read {
            path: "-".into(),
            offset: 0,
            source,
        });
    }
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_INPUT {
        return Err(Error::Usage(
            "standard input holds more than 1 MiB: explain shows one text; scan counts files"
                .into(),
        ));
    }
    // `echo` and a typed line end with a line break that is not part of the text.
    if bytes.ends_with(b"\r\n") {
        bytes.truncate(bytes.len() - 2);
    } else if bytes.ends_with(b"\n") {
        bytes.pop();
    }
    Ok(bytes)
}
