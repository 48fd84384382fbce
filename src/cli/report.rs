//! `undouble report INPUT... -o report.html`: reads `scan --json` outputs and audit logs,
//! merges them and writes one self-contained HTML page (`crate::report::html`).

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Outcome;
use crate::Error;
use crate::engine::replace::Replacement;
use crate::report::html;
use crate::report::records::Merged;

#[derive(Args, Clone, Debug)]
pub(crate) struct ReportArgs {
    /// Outputs of `scan --json` and audit logs of `fix --audit` (JSON Lines), merged; `-`
    /// reads standard input.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The HTML file to write (its directory must exist); `-` writes standard output.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

pub(crate) fn run(args: &ReportArgs) -> Outcome {
    let mut merged = Merged::default();
    for input in &args.inputs {
        let name = input.display().to_string();
        let text = match read(input) {
            Ok(text) => text,
            Err(error) => return Outcome::failed(&error),
        };
        if let Err(error) = merged.read(&name, &text) {
            return Outcome::failed(&Error::Usage(format!("{name}: {error}")));
        }
    }
    let invocation: Vec<String> = std::env::args().collect();
    let mut words = vec!["undouble".to_owned()];
    words.extend(invocation.into_iter().skip(1));
    let page = html::render(&merged, &words);
    let written = match args.output.as_os_str() == "-" {
        true => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(page.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|source| Error::Write {
                    path: "<stdout>".into(),
                    source,
                })
        }
        false => write_page(&args.output, page.as_bytes()),
    };
    match written {
        Ok(()) => Outcome::default(),
        Err(error) => {
            let mut outcome = Outcome::default();
            outcome.stop_or_report(&error);
            outcome
        }
    }
}

/// The text of one input: the file, or standard input for `-`.
pub(super) fn read(input: &PathBuf) -> Result<String, Error> {
    let mut bytes = Vec::new();
    let result = match input.as_os_str() == "-" {
        true => std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ()),
        false => std::fs::File::open(input).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ())),
    };
    if let Err(source) = result {
        return Err(Error::Read {
            path: input.clone(),
            offset: 0,
            source,
        });
    }
    // undouble writes its records in UTF-8; a path that was not is written lossily in them.
    String::from_utf8(bytes).map_err(|e| {
        Error::Usage(format!(
            "{}: not UTF-8 at byte {}: not the output of scan --json or an audit log",
            input.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Writes the page as `fix -o` writes a file: to a temporary file beside `path`, synced, then
/// renamed over it, so that a reader never sees half a page and a failure leaves the old one.
/// A new page is readable by all (`0644`), as a document to hand on; one that exists keeps its
/// owner and mode.
pub(super) fn write_page(path: &Path, page: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let replacement = Replacement::beside(path).map_err(error)?;
    let mut file = replacement.file();
    file.write_all(page).map_err(error)?;
    replacement
        .commit(Some(std::fs::Permissions::from_mode(0o644)))
        .map_err(error)
}
