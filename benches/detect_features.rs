//! Prints, for each file named in the list given on the command line (one path a line), a JSON
//! line with chardetng's guess and every byte table's score (`charset::guess_features`): what
//! `benches/train_detect.py` fits the statistical guess's bonus and confidence to. A bench
//! target only so that it is built with the library's release profile and never installed.
//!
//!     cargo bench --bench detect_features -- LIST

use std::io::{self, BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` adds `--bench`; the list is the first argument that is not an option.
    let Some(list) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        return Err("usage: detect_features LIST (a file naming one path a line)".into());
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for path in std::fs::read_to_string(&list)?.lines() {
        if path.is_empty() {
            continue;
        }
        let bytes = std::fs::read(path)?;
        let features = undouble::charset::guess_features(&bytes);
        let mut record = serde_json::to_value(&features)?;
        if let Some(object) = record.as_object_mut() {
            object.insert("path".to_owned(), path.into());
        }
        writeln!(out, "{record}")?;
    }
    out.flush()?;
    Ok(())
}
