//! The repair sinks: [`RepairWriter`] copies the input, putting the original text in place of
//! every repaired run; [`RepairPatches`] only notes those replacements, for a caller that writes
//! the input itself later and should not copy it twice.
//!
//! Every byte outside a repaired run is copied as it is — invalid UTF-8, NUL, CR/LF and all — so
//! a repair changes exactly what the scan reported and nothing else.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::{self, Write};
use std::ops::Range;

use super::scanner::{Run, Scanner, Sink};

/// Writes the repaired buffer to `out`.
pub struct RepairWriter<W> {
    out: W,
    copied_to: usize,
    scratch: Vec<u8>,
    changed: bool,
}

impl<W: Write> RepairWriter<W> {
    pub fn new(out: W) -> RepairWriter<W> {
        RepairWriter {
            out,
            copied_to: 0,
            scratch: Vec::new(),
            changed: false,
        }
    }

    /// Whether any run was repaired.
    pub(crate) fn changed(&self) -> bool {
        self.changed
    }

    pub(crate) fn into_inner(self) -> W {
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
        self.out.write_all(&input[self.copied_to..])?;
        // The next buffer starts from its own beginning.
        self.copied_to = 0;
        Ok(())
    }
}

/// The repairs of one buffer as patches: each repaired run's span and its replacement, in
/// order. A buffer is scanned into patches where it is in cache (on any thread), and written
/// later, by [`RepairPatches::write_patched`], from the input and the patches: the input is
/// copied once, into the output, instead of into a repaired copy first, and the patches of
/// mostly clean text take a few bytes instead of a buffer's worth. Where repairs are dense
/// (a column garbled whole), patches would take several times the buffer's size: past
/// `PATCHES_KEPT` of them, the buffer's repaired bytes are written out instead, so that a
/// buffer's repair never takes more memory than the buffer itself.
#[derive(Debug, Default)]
pub struct RepairPatches {
    /// A repaired run's span in the buffer, and where its replacement is in `replacements`.
    patches: Vec<(Range<usize>, Range<usize>)>,
    replacements: Vec<u8>,
    /// Once repairs are dense: the buffer repaired up to `written_to`, an offset in the buffer.
    repaired: Vec<u8>,
    written_to: Option<usize>,
}

/// How many patches a buffer keeps before it writes its repaired bytes out instead.
pub(crate) const PATCHES_KEPT: usize = 1 << 15;

impl RepairPatches {
    /// Whether any run was repaired.
    pub fn changed(&self) -> bool {
        !self.patches.is_empty() || self.written_to.is_some()
    }

    /// Writes `input`, the buffer these patches were made from, with every patch applied.
    pub fn write_patched(&self, input: &[u8], out: &mut impl Write) -> io::Result<()> {
        if let Some(written_to) = self.written_to {
            out.write_all(&self.repaired)?;
            return out.write_all(&input[written_to..]);
        }
        let mut copied_to = 0;
        for (span, replacement) in &self.patches {
            out.write_all(&input[copied_to..span.start])?;
            out.write_all(&self.replacements[replacement.clone()])?;
            copied_to = span.end;
        }
        out.write_all(&input[copied_to..])
    }

    /// Turns the patches into repaired bytes of `input`; returns where they stop.
    fn write_out(&mut self, input: &[u8]) -> usize {
        let mut repaired = Vec::with_capacity(input.len());
        let mut copied_to = 0;
        for (span, replacement) in self.patches.drain(..) {
            repaired.extend_from_slice(&input[copied_to..span.start]);
            repaired.extend_from_slice(&self.replacements[replacement]);
            copied_to = span.end;
        }
        self.replacements = Vec::new();
        self.patches = Vec::new();
        self.repaired = repaired;
        copied_to
    }
}

impl Sink for RepairPatches {
    type Error = Infallible;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Infallible> {
        if !run.repaired {
            return Ok(());
        }
        if self.written_to.is_none() && self.patches.len() < PATCHES_KEPT {
            let start = self.replacements.len();
            run.write_replacement(&mut self.replacements);
            let replacement = start..self.replacements.len();
            self.patches.push((run.span.clone(), replacement));
            return Ok(());
        }
        let written_to = match self.written_to {
            Some(at) => at,
            None => self.write_out(input),
        };
        self.repaired
            .extend_from_slice(&input[written_to..run.span.start]);
        run.write_replacement(&mut self.repaired);
        self.written_to = Some(run.span.end);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::{Readings, Strictness, codepage};

    fn scanner() -> Scanner {
        let pages = [codepage::by_name("latin1"), codepage::by_name("cp1252")];
        let pages: Vec<_> = pages.into_iter().flatten().collect();
        Scanner::new(Readings::new(&pages).unwrap(), Strictness::Balanced)
    }

    /// Patches, kept or written out once they are many, give the bytes a repair in one pass
    /// gives.
    #[test]
    fn dense_repairs_are_written_out_and_give_the_same_bytes() {
        let scanner = scanner();
        for words in [
            0,
            10,
            PATCHES_KEPT - 1,
            PATCHES_KEPT,
            PATCHES_KEPT + 1,
            3 * PATCHES_KEPT,
        ] {
            let input = "café ok crème\n"
                .repeat(words)
                .replace('é', "Ã©")
                .replace('è', "Ã¨");
            let mut patches = RepairPatches::default();
            let Ok(()) = scanner.scan(input.as_bytes(), &mut patches);
            assert_eq!(
                patches.written_to.is_some(),
                2 * words > PATCHES_KEPT,
                "{words}"
            );
            let mut out = Vec::new();
            patches.write_patched(input.as_bytes(), &mut out).unwrap();
            assert!(out == *repair(&scanner, input.as_bytes()), "{words} words");
            assert_eq!(patches.changed(), words > 0);
        }
    }
}
