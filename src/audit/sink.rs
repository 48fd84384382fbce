//! The audit sink: watches the scan of one file and writes what the repair changes to the log.
//!
//! It sits next to the [`RepairWriter`](crate::mojibake::RepairWriter) on the same scan (see
//! [`Both`]), so the log describes exactly the runs the writer replaced: the scanner reports
//! each run once, to both. It also takes in every block whole when the scanner ends it, which
//! gives it, without a second pass over the file: the block's offset in the file (the sum of
//! the blocks before), the line count (newlines counted with `memchr` between changes and to
//! the end of the block, each byte once), the SHA-256 of the content before the fix, and the
//! same [`Counts`] that `scan` reports.
//!
//! Feed it every block of one file, in order, through [`Scanner::scan`](crate::mojibake::Scanner::scan);
//! then [`AuditSink::finish`] writes the file's closing records. A SQL dump is fed by the dump
//! mode's own sink instead, which passes on each run as it treats it (repaired only inside a
//! text value) with the cell it lies in ([`AuditSink::run_in`]), and each character set name
//! it rewrites ([`AuditSink::rewrite`]), in the order of the file.

use std::io::{self, Write};
use std::ops::Range;

use super::chain::ChainedLog;
use super::hash::ContentHasher;
use super::record::{
    AuditLevel, Cell, Change, ChangeKind, FileRecord, Fingerprint, Garbling, LoggedPath, Record,
    Sequence, Substitution,
};
use crate::mojibake::counts::{CountingSink, Sequences};
use crate::mojibake::lost::is_lost_form;
use crate::mojibake::{Counts, Readings, Run, Sink};

/// Writes the `change` records of one file (at the `full` level) and collects what its
/// `sequence` and `file` records need.
pub struct AuditSink<'r, W> {
    out: &'r mut ChainedLog<W>,
    file: LoggedPath,
    level: AuditLevel,
    readings: &'r Readings,
    counts: Counts,
    before: ContentHasher,
    /// Offset in the file of the block being scanned.
    block_offset: u64,
    /// Newlines in the file before `counted_to`.
    newlines: u64,
    /// How far into the current block newlines have been counted.
    counted_to: usize,
    change_records: u64,
    /// For a range of the file: where its first block starts (see `FileRecord::part_offset`).
    part_offset: Option<u64>,
}

impl<'r, W: Write> AuditSink<'r, W> {
    /// A sink for the file `file`, writing to `out`; `readings` names the code pages.
    pub(crate) fn new(
        out: &'r mut ChainedLog<W>,
        file: LoggedPath,
        level: AuditLevel,
        readings: &'r Readings,
    ) -> AuditSink<'r, W> {
        AuditSink {
            out,
            file,
            level,
            readings,
            counts: Counts::default(),
            before: ContentHasher::default(),
            block_offset: 0,
            newlines: 0,
            counted_to: 0,
            change_records: 0,
            part_offset: None,
        }
    }

    /// Makes this the sink of the range of the file that starts at `start`: its records say
    /// where its part lies, and a part with no block in it lies at `start`.
    pub(crate) fn in_range(&mut self, start: u64) {
        self.part_offset = Some(start);
        self.block_offset = start;
    }

    /// Says where the next block starts in the file. The blocks of a range start where the
    /// range's first block does, not at the file's start; after the first, blocks follow each
    /// other, so a block elsewhere is a broken caller, not bad input.
    pub(crate) fn block_at(&mut self, offset: u64) {
        if self.part_offset.is_some() && self.before.bytes() == 0 {
            self.part_offset = Some(offset);
            self.block_offset = offset;
        }
        debug_assert_eq!(offset, self.block_offset, "blocks given out of order");
    }

    /// What the scan found so far, as `scan` counts it.
    pub(crate) fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Size and SHA-256 of the blocks scanned so far: at the end, of the file before the fix.
    pub fn before(&self) -> Fingerprint {
        self.before.fingerprint()
    }

    /// Ends the file: writes its `sequence` records (at the `summary` level) and its `file`
    /// record. `after` is the repaired content, `output` where it went, `rewritten` whether it
    /// replaced the file.
    pub(crate) fn finish(
        self,
        after: Fingerprint,
        output: &str,
        rewritten: bool,
    ) -> io::Result<Counts> {
        if self.level == AuditLevel::Summary {
            for (garbled, seq) in self.counts.top_sequences(usize::MAX) {
                self.out.write(&Record::Sequence(Sequence {
                    file: self.file.clone(),
                    substitution: Substitution::repair(garbled, seq.original),
                    garbling: Garbling {
                        reading: self.readings.reading_name(seq.mask).to_owned(),
                        layers: seq.layers,
                        inferred: is_lost_form(self.readings, garbled),
                    },
                    count: seq.count,
                    first_offset: seq.first_offset,
                }))?;
            }
        }
        let before = self.before.fingerprint();
        let counts = self.counts;
        self.out.write(&Record::File(FileRecord {
            file: self.file,
            output: output.to_owned(),
            rewritten,
            bytes_before: before.bytes,
            sha256_before: before.sha256,
            bytes_after: after.bytes,
            sha256_after: after.sha256,
            valid_utf8: counts.valid_utf8(),
            double_encoded: counts.double_encoded,
            left_alone: counts.left_alone,
            by_reading: counts.by_reading_keyed(self.readings),
            by_layers: counts.by_layers_keyed(),
            change_records: self.change_records,
            part_offset: self.part_offset,
        }))?;
        Ok(counts)
    }

    /// Takes in `run` of `block`, as [`Sink::run`] does, and names `cell` (the value of a dump
    /// it lies in, if any) in its change records.
    pub(crate) fn run_in(
        &mut self,
        block: &[u8],
        run: &Run<'_>,
        cell: Option<&Cell>,
    ) -> io::Result<()> {
        let mut counting = CountingSink {
            counts: &mut self.counts,
            base: self.block_offset,
            sequences: Sequences::Counted,
        };
        let Ok(()) = counting.run(block, run);
        if run.repaired && self.level == AuditLevel::Full {
            for repaired in run.chars {
                let garbling = Garbling {
                    reading: self.readings.reading_name(repaired.mask).to_owned(),
                    layers: repaired.layers,
                    inferred: run.is_lost_byte(),
                };
                let substitution =
                    Substitution::repair(&block[repaired.span.clone()], repaired.original);
                let kind = ChangeKind::Repair;
                self.write_change(
                    block,
                    repaired.span.start,
                    kind,
                    cell,
                    substitution,
                    Some(garbling),
                )?;
            }
        }
        Ok(())
    }

    /// Records that `block[span]`, a character set or collation name, was rewritten as
    /// `replacement` (`--convert-charset`). Rewrites and runs come in the order of the block.
    pub(crate) fn rewrite(
        &mut self,
        block: &[u8],
        span: Range<usize>,
        replacement: &[u8],
    ) -> io::Result<()> {
        if self.level != AuditLevel::Full {
            return Ok(());
        }
        let substitution = Substitution::new(&block[span.clone()], replacement);
        self.write_change(
            block,
            span.start,
            ChangeKind::Charset,
            None,
            substitution,
            None,
        )
    }

    /// Counts the newlines of `block` up to `to` that are not counted yet.
    fn count_newlines_to(&mut self, block: &[u8], to: usize) {
        let uncounted = block.get(self.counted_to..to).unwrap_or_default();
        self.newlines += memchr::memchr_iter(b'\n', uncounted).count() as u64;
        self.counted_to = self.counted_to.max(to);
    }

    fn write_change(
        &mut self,
        block: &[u8],
        at: usize,
        kind: ChangeKind,
        cell: Option<&Cell>,
        substitution: Substitution,
        garbling: Option<Garbling>,
    ) -> io::Result<()> {
        self.count_newlines_to(block, at);
        self.out.write(&Record::Change(Change {
            file: self.file.clone(),
            offset: self.block_offset + at as u64,
            line: self.newlines + 1,
            kind,
            cell: cell.cloned(),
            substitution,
            garbling,
        }))?;
        self.change_records += 1;
        Ok(())
    }
}

impl<W: Write> Sink for AuditSink<'_, W> {
    type Error = io::Error;

    fn run(&mut self, block: &[u8], run: &Run<'_>) -> io::Result<()> {
        self.run_in(block, run, None)
    }

    fn end(&mut self, block: &[u8]) -> io::Result<()> {
        self.counts.observe_bytes(block, self.block_offset);
        self.before.update(block);
        if self.level == AuditLevel::Full {
            self.count_newlines_to(block, block.len());
        }
        self.block_offset += block.len() as u64;
        self.counted_to = 0;
        Ok(())
    }
}

/// Passes every run to two sinks in turn, and says which of them failed.
pub(crate) struct Both<A, B> {
    pub first: A,
    pub second: B,
}

/// The error of one of the two sinks of [`Both`].
#[derive(Debug)]
pub(crate) enum EitherFailed<A, B> {
    First(A),
    Second(B),
}

impl<A: Sink, B: Sink> Sink for Both<A, B> {
    type Error = EitherFailed<A::Error, B::Error>;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Self::Error> {
        self.first.run(input, run).map_err(EitherFailed::First)?;
        self.second.run(input, run).map_err(EitherFailed::Second)
    }

    fn end(&mut self, input: &[u8]) -> Result<(), Self::Error> {
        self.first.end(input).map_err(EitherFailed::First)?;
        self.second.end(input).map_err(EitherFailed::Second)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::engine::blocks::for_each_block_in;
    use crate::mojibake::{Scanner, Strictness};

    fn scanner() -> Scanner {
        Scanner::new(Readings::western(), Strictness::Balanced)
    }

    /// The records written for `input` scanned in blocks of `block_size`.
    fn audit(input: &[u8], block_size: usize, level: AuditLevel) -> Vec<Record> {
        let scanner = scanner();
        let mut log = ChainedLog::new(Vec::new());
        let mut sink = AuditSink::new(
            &mut log,
            LoggedPath::new(Path::new("/t")),
            level,
            scanner.readings(),
        );
        let scanned: io::Result<()> =
            for_each_block_in(input, scanner.readings(), block_size, |block, _| {
                scanner.scan(block, &mut sink)
            });
        scanned.unwrap();
        let after = sink.before(); // the hashes are not under test here
        sink.finish(after, "/t", false).unwrap();
        log.into_inner()
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    fn changes(records: &[Record]) -> Vec<&Change> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::Change(change) => Some(change),
                _ => None,
            })
            .collect()
    }

    const TEXT: &str = "plain line\nCafÃ© crÃ¨me, Ã§a coÃ»te 5 â‚¬\n\nnaÃ¯ve\r\nÃƒÂ©tÃƒÂ© ok\nend";

    #[test]
    fn changes_name_their_offset_line_and_bytes() {
        let records = audit(TEXT.as_bytes(), 1 << 20, AuditLevel::Full);
        let changes = changes(&records);
        assert_eq!(changes.len(), 8);
        for change in &changes {
            let at = change.offset as usize;
            let garbled = &change.substitution.original_hex.0;
            assert_eq!(&TEXT.as_bytes()[at..at + garbled.len()], garbled.as_slice());
            let line = 1 + TEXT[..at].matches('\n').count() as u64;
            assert_eq!(change.line, line, "{change:?}");
        }
        let triple = changes.last().unwrap();
        assert_eq!(triple.substitution.replacement, "é");
        assert_eq!(triple.garbling.as_ref().map(|g| g.layers), Some(2));
        assert_eq!(triple.line, 5);
        let Some(Record::File(file)) = records.last() else {
            panic!("the file record comes last")
        };
        assert_eq!(file.change_records, 8);
        assert_eq!(file.double_encoded, 8);
        assert_eq!(file.bytes_before, TEXT.len() as u64);
    }

    #[test]
    fn blocks_give_the_same_records_as_one_pass() {
        let whole = audit(TEXT.as_bytes(), 1 << 20, AuditLevel::Full);
        // Blocks end after a newline when they can; each holds whole lines from 45 bytes on.
        for block_size in [45, 50, 64] {
            assert_eq!(audit(TEXT.as_bytes(), block_size, AuditLevel::Full), whole);
        }
    }

    #[test]
    fn the_summary_level_writes_sequences_instead_of_changes() {
        let records = audit(TEXT.as_bytes(), 64, AuditLevel::Summary);
        assert!(changes(&records).is_empty());
        let sequences: Vec<&Sequence> = records
            .iter()
            .filter_map(|r| match r {
                Record::Sequence(seq) => Some(seq),
                _ => None,
            })
            .collect();
        assert_eq!(sequences.len(), 7);
        assert_eq!(sequences.iter().map(|s| s.count).sum::<u64>(), 8);
        assert_eq!(sequences[0].substitution.original, "ÃƒÂ©");
        assert_eq!(sequences[0].garbling.layers, 2);
        assert_eq!(sequences[0].count, 2);
        assert_eq!(sequences[0].first_offset, 65);
        let Some(Record::File(file)) = records.last() else {
            panic!("the file record comes last")
        };
        assert_eq!(file.change_records, 0);
        assert_eq!(file.double_encoded, 8);
    }

    #[test]
    fn rewrites_are_changes_of_their_own_kind_in_file_order() {
        let block = "SET NAMES latin1;\nINSERT INTO t VALUES ('CafÃ©');\n".as_bytes();
        let scanner = scanner();
        let records = |level| {
            let path = LoggedPath::new(Path::new("/t"));
            let mut log = ChainedLog::new(Vec::new());
            let mut sink = AuditSink::new(&mut log, path, level, scanner.readings());
            // As the dump mode does: a rewrite before the runs that follow it.
            sink.rewrite(block, 10..16, b"utf8mb4").unwrap();
            scanner.scan(block, &mut sink).unwrap();
            let after = sink.before();
            sink.finish(after, "/t", false).unwrap();
            let log = log.into_inner();
            let lines = log.split(|&b| b == b'\n').filter(|line| !line.is_empty());
            lines
                .map(|line| serde_json::from_slice(line).unwrap())
                .collect::<Vec<Record>>()
        };
        let full = records(AuditLevel::Full);
        let changes = changes(&full);
        let found: Vec<(ChangeKind, u64, u64, &str, &str)> = changes
            .iter()
            .map(|c| {
                let swap = &c.substitution;
                (
                    c.kind,
                    c.offset,
                    c.line,
                    swap.original.as_str(),
                    swap.replacement.as_str(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (ChangeKind::Charset, 10, 1, "latin1", "utf8mb4"),
                (ChangeKind::Repair, 44, 2, "Ã©", "é"),
            ]
        );
        assert_eq!(changes[0].garbling, None);
        let Some(Record::File(file)) = full.last() else {
            panic!("the file record comes last")
        };
        assert_eq!((file.change_records, file.double_encoded), (2, 1));
        // The summary has no record of a rewrite.
        let summary = records(AuditLevel::Summary);
        assert_eq!(summary.len(), 2, "{summary:?}");
    }

    #[test]
    fn runs_left_alone_write_nothing() {
        // Correct text that has the shape of a double-encoded character (`É®` is `®`).
        let records = audit("CAFÉ® menu".as_bytes(), 64, AuditLevel::Full);
        assert!(changes(&records).is_empty());
        let Some(Record::File(file)) = records.last() else {
            panic!("the file record comes last")
        };
        assert_eq!(file.double_encoded, 0);
        assert_eq!(file.left_alone, 1);
    }
}
