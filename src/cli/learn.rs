//! `undouble learn BAD GOOD`: the chain of recodings that turned the correct text into the
//! garbled sample, the `fix` options that undo it, and whether they give the correct text
//! back.
//!
//! Garbled text need not be valid UTF-8, so the arguments are taken as bytes (on Unix) or,
//! with `--from-files`, read from files.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::Path;

use clap::Args;

use super::Outcome;
use crate::Error;
use crate::engine::classify::{TextKind, classify_head};
use crate::mojibake::learn::{self, Advice, Chain, Check, Unfixable};
use crate::report::{self, LearnRecord};

/// The most of a file `--from-files` reads: `learn` looks at a sample, not a file (`scan`
/// and `fix` take files of any size).
const MAX_INPUT: u64 = 1 << 20;

#[derive(Args, Clone, Debug)]
pub(crate) struct LearnArgs {
    /// The garbled sample (with --from-files, a file holding it).
    bad: OsString,
    /// Its correct form (with --from-files, a file holding it).
    good: OsString,
    /// Read BAD and GOOD from files, byte for byte (for samples that are not UTF-8).
    #[arg(long)]
    from_files: bool,
    /// The most layers to search for.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=3))]
    max_layers: u8,
    /// One JSON object: the chain, its layers and the fix.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &LearnArgs) -> Outcome {
    let texts = sample(args, &args.bad).and_then(|bad| Ok((bad, sample(args, &args.good)?)));
    let (bad, good) = match texts {
        Ok(texts) => texts,
        Err(error) => return Outcome::failed(&error),
    };
    let chain = learn::learn(&bad, &good, usize::from(args.max_layers));
    let undo = chain
        .as_ref()
        .map(|chain| learn::advise(chain, &bad, &good));
    let transcoded = undo.as_ref().and_then(|undo| sample_transcoded(undo, &bad));
    let shown = match args.json {
        true => report::json_line(&LearnRecord::new(
            &bad,
            &good,
            args.max_layers,
            chain.as_ref(),
            undo.as_ref(),
            transcoded,
        )),
        false => text(args.max_layers, chain.as_ref(), undo.as_ref(), transcoded),
    };
    // Exit 1 when nothing explains the sample: the search's "not found", as `detect` answers
    // 1 when its answer comes with a notice; 0 when a chain does, whether or not undouble can
    // undo it (that is part of the answer, not a failure of the run).
    let mut outcome = Outcome {
        found: chain.is_none(),
        ..Outcome::default()
    };
    if let Err(source) = std::io::stdout().lock().write_all(shown.as_bytes()) {
        let path = "<stdout>".into();
        outcome.stop_or_report(&Error::Write { path, source });
    }
    outcome
}

/// Whether `fix --transcode` converts a file holding only the sample, when the advice is to
/// transcode: a few invalid sequences are taken for damaged UTF-8 and kept as they are, so a
/// short sample can be too little for it, where the whole file it comes from is not.
fn sample_transcoded(undo: &Result<Advice, Unfixable>, bad: &[u8]) -> Option<bool> {
    let advice = undo.as_ref().ok()?;
    advice.transcode_from?;
    Some(matches!(classify_head(bad), TextKind::Legacy(_)))
}

/// The bytes of one argument: itself, or the file it names.
fn sample(args: &LearnArgs, arg: &OsStr) -> Result<Vec<u8>, Error> {
    if args.from_files {
        return read_file(Path::new(arg));
    }
    arg_bytes(arg)
}

#[cfg(unix)]
fn arg_bytes(arg: &OsStr) -> Result<Vec<u8>, Error> {
    Ok(std::os::unix::ffi::OsStrExt::as_bytes(arg).to_vec())
}

#[cfg(not(unix))]
fn arg_bytes(arg: &OsStr) -> Result<Vec<u8>, Error> {
    match arg.to_str() {
        Some(text) => Ok(text.as_bytes().to_vec()),
        None => Err(Error::Usage(
            "an argument is not valid Unicode: give the sample with --from-files".into(),
        )),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let open = std::fs::File::open(path);
    let file = open.map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut bytes = Vec::new();
    let read = file.take(MAX_INPUT + 1).read_to_end(&mut bytes);
    read.map_err(|source| Error::Read {
        path: path.to_path_buf(),
        offset: 0,
        source,
    })?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_INPUT {
        return Err(Error::Usage(format!(
            "{} holds more than 1 MiB: learn takes a sample; scan and fix take files",
            path.display()
        )));
    }
    Ok(bytes)
}

/// What a person reads: the chain, the fix and its check.
fn text(
    max_layers: u8,
    chain: Option<&Chain>,
    undo: Option<&Result<Advice, Unfixable>>,
    transcoded: Option<bool>,
) -> String {
    let Some(chain) = chain else {
        let layers = match max_layers {
            1 => "one layer".to_owned(),
            n => format!("up to {n} layers"),
        };
        return format!(
            "No chain of {layers} turns the correct text into the garbled one: the two are \
             not the same text recoded through single-byte code pages.\n"
        );
    };
    let mut out = String::new();
    if chain.steps.is_empty() {
        out.push_str("The texts are equal: nothing was recoded.\n");
    } else {
        out.push_str(&format!("Chain: {chain}\n"));
    }
    match undo {
        Some(Ok(advice)) => out.push_str(&advice_text(advice, chain.steps.is_empty())),
        Some(Err(why)) => out.push_str(&format!("Undo: {why}.\n")),
        None => {}
    }
    if transcoded == Some(false) {
        out.push_str(
            "Note: a file holding only this sample is not converted by --transcode: its few \
             invalid sequences are taken for UTF-8 with raw bytes, which fix reads as \
             characters of the raw-byte reading (Windows-1252 by default; --raw-bytes). A \
             whole file in that encoding is converted.\n",
        );
    }
    out
}

fn advice_text(advice: &Advice, equal: bool) -> String {
    let options = advice.options();
    let command = match options.is_empty() {
        true => "undouble fix".to_owned(),
        false => format!("undouble fix {options}"),
    };
    let check = match (advice.check, equal) {
        (Check::Repairs, true) => return String::new(),
        (_, true) => format!("Note: `{command}` would change this text.\n"),
        (Check::Repairs, false) => {
            format!("Check: `{command}` turns the garbled sample into the correct text.\n")
        }
        (Check::RepairsWhenLenient, false) => format!(
            "Check: `{command}` turns the garbled sample into the correct text; at the default \
             strictness the rule holds part of the repair back as text that may be correct.\n"
        ),
        (Check::DoesNotRepair, false) => format!(
            "Check: `{command}` does not give the correct text back, even with --strictness \
             lenient: the rule takes part of the sample for correct text, or the readings \
             together read a character another way than its layer did.\n"
        ),
    };
    format!("Undo: {command}\n{check}")
}
