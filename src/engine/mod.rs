//! From inputs to results: opens files (or standard input), feeds them through the scanner in
//! blocks, and collects counts or writes the repaired bytes.
//!
//! This is the sequential engine: one input at a time, one block at a time, memory bounded by
//! the block size.

pub mod blocks;

use std::convert::Infallible;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::mojibake::counts::CountingSink;
use crate::mojibake::{Counts, RepairWriter, Run, Scanner, Sink};

/// Where bytes come from: a file, or standard input (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn from_arg(arg: &Path) -> Input {
        if arg == Path::new("-") {
            Input::Stdin
        } else {
            Input::File(arg.to_path_buf())
        }
    }

    /// The name used in reports: the path, or `-` for standard input.
    pub fn display_path(&self) -> PathBuf {
        match self {
            Input::Stdin => PathBuf::from("-"),
            Input::File(path) => path.clone(),
        }
    }

    fn open(&self) -> Result<Box<dyn Read>, Error> {
        match self {
            Input::Stdin => Ok(Box::new(io::stdin().lock())),
            Input::File(path) => File::open(path)
                .map(|f| Box::new(f) as Box<dyn Read>)
                .map_err(|source| Error::Open {
                    path: path.clone(),
                    source,
                }),
        }
    }
}

/// Passes every run to two sinks: one that may fail, and one that never does.
struct Tee<A, B> {
    first: A,
    second: B,
}

impl<A: Sink, B: Sink<Error = Infallible>> Sink for Tee<A, B> {
    type Error = A::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), A::Error> {
        self.first.run(input, run)?;
        let Ok(()) = self.second.run(input, run);
        Ok(())
    }

    fn end(&mut self, input: &[u8]) -> Result<(), A::Error> {
        self.first.end(input)?;
        let Ok(()) = self.second.end(input);
        Ok(())
    }
}

/// Scans one input and counts what it holds; changes nothing.
pub fn scan_input(scanner: &Scanner, input: &Input) -> Result<Counts, Error> {
    scan_reader(scanner, input.open()?, &input.display_path())
}

/// Scans everything `reader` yields; `path` names it in errors.
pub fn scan_reader<R: Read>(scanner: &Scanner, reader: R, path: &Path) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    blocks::for_each_block(
        reader,
        scanner.readings(),
        blocks::BLOCK_SIZE,
        |block, base| {
            counts.observe_bytes(block, base);
            let mut sink = CountingSink {
                counts: &mut counts,
                base,
            };
            let Ok(()) = scanner.scan(block, &mut sink);
            Ok(())
        },
        |offset, source| Error::Read {
            path: path.to_path_buf(),
            offset,
            source,
        },
    )?;
    Ok(counts)
}

/// Repairs everything `reader` yields into `out`, and counts what it repaired. `path` and
/// `out_path` name the two ends in errors.
pub fn fix_reader<R: Read, W: Write>(
    scanner: &Scanner,
    reader: R,
    path: &Path,
    out: W,
    out_path: &Path,
) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    let mut writer = RepairWriter::new(out);
    let write_error = |source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    blocks::for_each_block(
        reader,
        scanner.readings(),
        blocks::BLOCK_SIZE,
        |block, base| {
            counts.observe_bytes(block, base);
            let mut tee = Tee {
                first: &mut writer,
                second: CountingSink {
                    counts: &mut counts,
                    base,
                },
            };
            scanner.scan(block, &mut tee).map_err(write_error)
        },
        |offset, source| Error::Read {
            path: path.to_path_buf(),
            offset,
            source,
        },
    )?;
    writer.into_inner().flush().map_err(write_error)?;
    Ok(counts)
}

/// Repairs one input into `out`.
pub fn fix_input<W: Write>(
    scanner: &Scanner,
    input: &Input,
    out: W,
    out_path: &Path,
) -> Result<Counts, Error> {
    fix_reader(scanner, input.open()?, &input.display_path(), out, out_path)
}

/// Repairs the file at `path` in place: the repaired bytes go to a temporary file in the same
/// directory, which is synced and given the original's permissions, then renamed over the
/// original in one step. Until that rename the original is untouched; a file with nothing to
/// repair is never rewritten. Returns the counts and whether the file was replaced.
pub fn fix_in_place(scanner: &Scanner, path: &Path) -> Result<(Counts, bool), Error> {
    let write_error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let original = File::open(path).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let permissions = original.metadata().map_err(write_error)?.permissions();
    let temp = tempfile::Builder::new()
        .prefix(".undouble-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(write_error)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, temp.as_file());
    let counts = fix_reader(scanner, original, path, &mut out, path)?;
    drop(out);
    if counts.double_encoded == 0 {
        return Ok((counts, false)); // the temporary file is removed on drop
    }
    let file = temp.as_file();
    file.set_permissions(permissions).map_err(write_error)?;
    file.sync_all().map_err(write_error)?;
    temp.persist(path).map_err(|e| write_error(e.error))?;
    // The rename itself is durable only once the directory is synced.
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(write_error)?;
    Ok((counts, true))
}
