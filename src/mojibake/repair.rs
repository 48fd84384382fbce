//! The repair sink: copies the input, putting the original text in place of every repaired run.
//!
//! Every byte outside a repaired run is copied as it is — invalid UTF-8, NUL, CR/LF and all — so
//! a repair changes exactly what the scan reported and nothing else.

use std::borrow::Cow;
use std::io::{self, Write};

use super::scanner::{Run, Scanner, Sink};

/// Writes the repaired buffer to `out`.
pub struct RepairWriter<W> {
    out: W,
    copied_to: usize,
    scratch: Vec<u8>,
    changed: bool,
    copy_unchanged: bool,
}

impl<W: Write> RepairWriter<W> {
    pub fn new(out: W) -> RepairWriter<W> {
        RepairWriter {
            out,
            copied_to: 0,
            scratch: Vec::new(),
            changed: false,
            copy_unchanged: true,
        }
    }

    /// A writer that writes nothing at all for a buffer with nothing to repair, for callers
    /// that can use the input itself instead of a copy ([`RepairWriter::changed`] tells).
    pub fn only_if_changed(out: W) -> RepairWriter<W> {
        RepairWriter {
            copy_unchanged: false,
            ..RepairWriter::new(out)
        }
    }

    /// Whether any run was repaired.
    pub fn changed(&self) -> bool {
        self.changed
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for RepairWriter<W> {
    type Error = io::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> io::Result<()> {
        if !run.repaired {
            return Ok(());
        }
        self.out.write_all(&input[self.copied_to..run.span.start])?;
        self.scratch.clear();
        run.write_replacement(&mut self.scratch);
        self.out.write_all(&self.scratch)?;
        self.copied_to = run.span.end;
        self.changed = true;
        Ok(())
    }

    fn end(&mut self, input: &[u8]) -> io::Result<()> {
        if self.changed || self.copy_unchanged {
            self.out.write_all(&input[self.copied_to..])?;
        }
        // The next buffer starts from its own beginning.
        self.copied_to = 0;
        Ok(())
    }
}

/// Repairs `input` in memory; borrows it back unchanged when there is nothing to repair.
pub fn repair<'a>(scanner: &Scanner, input: &'a [u8]) -> Cow<'a, [u8]> {
    let mut writer = RepairWriter::new(Vec::with_capacity(input.len()));
    match scanner.scan(input, &mut writer) {
        Ok(()) if writer.changed() => Cow::Owned(writer.into_inner()),
        // Writing to a Vec cannot fail.
        _ => Cow::Borrowed(input),
    }
}
