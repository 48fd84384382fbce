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
use crate::mojibake::{Counts, Readings, RepairWriter, Run, Scanner, Sink};

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

    /// Opens the input: a non-empty regular file is memory-mapped, anything else is read.
    fn open(&self) -> Result<Source, Error> {
        let path = match self {
            Input::Stdin => return Ok(Source::Reader(Box::new(io::stdin().lock()))),
            Input::File(path) => path,
        };
        let open_error = |source| Error::Open {
            path: path.clone(),
            source,
        };
        let file = File::open(path).map_err(open_error)?;
        let metadata = file.metadata().map_err(open_error)?;
        if !metadata.is_file() || metadata.len() == 0 {
            return Ok(Source::Reader(Box::new(file)));
        }
        // SAFETY: the map is only ever read. If another process changes the file while it is
        // mapped, the bytes we read may mix old and new content (what a concurrent `read`
        // would also give); if it truncates the file, touching a page past the new end raises
        // SIGBUS and the process dies. `fix` writes to a temporary file and renames it over the
        // target only after a complete, synced write, so such a death leaves every target
        // either untouched or completely written, never half-written.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(open_error)?;
        // Only a hint to the kernel's read-ahead: failing to give it changes nothing.
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Source::Map(map))
    }

    /// Calls `each` with every block of the input and its offset.
    fn for_each_block(
        &self,
        readings: &Readings,
        mut each: impl FnMut(&[u8], u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match self.open()? {
            Source::Map(map) => blocks::for_each_block_in(&map, readings, blocks::BLOCK_SIZE, each),
            Source::Reader(reader) => {
                for_each_block_of(reader, &self.display_path(), readings, &mut each)
            }
        }
    }
}

/// An opened input.
enum Source {
    Map(memmap2::Mmap),
    Reader(Box<dyn Read>),
}

fn for_each_block_of<R: Read>(
    reader: R,
    path: &Path,
    readings: &Readings,
    each: impl FnMut(&[u8], u64) -> Result<(), Error>,
) -> Result<(), Error> {
    blocks::for_each_block_read(
        reader,
        readings,
        blocks::BLOCK_SIZE,
        each,
        |offset, source| Error::Read {
            path: path.to_path_buf(),
            offset,
            source,
        },
    )
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
    let mut counts = Counts::default();
    input.for_each_block(scanner.readings(), |block, base| {
        scan_block(scanner, block, base, &mut counts);
        Ok(())
    })?;
    Ok(counts)
}

/// Scans everything `reader` yields; `path` names it in errors.
pub fn scan_reader<R: Read>(scanner: &Scanner, reader: R, path: &Path) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    for_each_block_of(reader, path, scanner.readings(), |block, base| {
        scan_block(scanner, block, base, &mut counts);
        Ok(())
    })?;
    Ok(counts)
}

fn scan_block(scanner: &Scanner, block: &[u8], base: u64, counts: &mut Counts) {
    counts.observe_bytes(block, base);
    let Ok(()) = scanner.scan(block, &mut CountingSink { counts, base });
}

/// Repairs one input into `out` (named `out_path` in errors), and counts what it repaired.
pub fn fix_input<W: Write>(
    scanner: &Scanner,
    input: &Input,
    out: W,
    out_path: &Path,
) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    let mut writer = RepairWriter::new(out);
    input.for_each_block(scanner.readings(), |block, base| {
        fix_block(scanner, block, base, &mut writer, &mut counts, out_path)
    })?;
    finish(writer, out_path)?;
    Ok(counts)
}

/// Repairs everything `reader` yields (named `path` in errors) into `out`.
pub fn fix_reader<R: Read, W: Write>(
    scanner: &Scanner,
    reader: R,
    path: &Path,
    out: W,
    out_path: &Path,
) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    let mut writer = RepairWriter::new(out);
    for_each_block_of(reader, path, scanner.readings(), |block, base| {
        fix_block(scanner, block, base, &mut writer, &mut counts, out_path)
    })?;
    finish(writer, out_path)?;
    Ok(counts)
}

fn fix_block<W: Write>(
    scanner: &Scanner,
    block: &[u8],
    base: u64,
    writer: &mut RepairWriter<W>,
    counts: &mut Counts,
    out_path: &Path,
) -> Result<(), Error> {
    counts.observe_bytes(block, base);
    let mut tee = Tee {
        first: writer,
        second: CountingSink { counts, base },
    };
    scanner
        .scan(block, &mut tee)
        .map_err(|source| Error::Write {
            path: out_path.to_path_buf(),
            source,
        })
}

fn finish<W: Write>(writer: RepairWriter<W>, out_path: &Path) -> Result<(), Error> {
    writer.into_inner().flush().map_err(|source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    })
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
    let permissions = std::fs::metadata(path)
        .map_err(|source| Error::Open {
            path: path.to_path_buf(),
            source,
        })?
        .permissions();
    let temp = tempfile::Builder::new()
        .prefix(".undouble-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(write_error)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, temp.as_file());
    let counts = fix_input(scanner, &Input::File(path.to_path_buf()), &mut out, path)?;
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
