//! Several `scan --json` outputs (of separate runs: other files, other machines) merged into
//! the records one scan of all their inputs would have printed.
//!
//! The records are read with [`records::json_lines`](super::records) into the types scan
//! writes ([`ScanRecord`]), so that every field is carried, and written back by the caller
//! with [`json_line`](super::json_line) as scan writes them. Each input keeps its own
//! `file`, `skipped` and `error` record, in the order the parts give them; the `total` is
//! recomputed from the `file` records, as scan computes it from the files it read.
//!
//! A top list is a file's most frequent sequences only. Ranked again from the parts' lists,
//! the merged list is exact when every part's list is whole (as many sequences as its
//! `distinct_*` count: scan the parts with a `--top` at least that large); when one is not,
//! the merge still ranks what it has and says which part and input fall short
//! ([`ScanMerge::shortfalls`]), as a count cannot be restored from a list that left it out.

use std::collections::{BTreeMap, HashMap};

use super::records::{ReadError, json_lines, parse};
use super::{CountsRecord, RangeRecord, ScanRecord, ScanTotal, ScannedFile, SequenceRecord};
use crate::charset::FileFacts;
use crate::dump::{DumpRecord, add_keyed};
use crate::mojibake::counts::first_offsets;

/// Inputs whose sequence lists a merge had to rank without all their sequences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortfall {
    /// The part, as named to [`ScanMerge::read`].
    pub part: String,
    /// The input whose record lists fewer sequences than it counted.
    pub path: String,
}

/// One input's record, or the records of the ranges of one file (`scan --range`).
#[derive(Clone, Debug)]
enum Entry {
    Pieces(Vec<ScannedFile>),
    /// Boxed: a `total` is larger than a list of records.
    Other(Box<ScanRecord>),
}

/// The `scan --json` outputs read so far, merged.
#[derive(Clone, Debug, Default)]
pub struct ScanMerge {
    top: usize,
    /// Every `file`, `skipped` and `error` record, in the order read.
    entries: Vec<Entry>,
    /// The index in `entries` of each path's `file` records.
    files: HashMap<String, usize>,
    /// Errors the parts' totals told (walk errors have no record of their own).
    errors: u64,
    shortfalls: Vec<Shortfall>,
}

impl ScanMerge {
    /// A merge that lists at most `top` sequences per list, as `scan --top`.
    pub fn new(top: usize) -> ScanMerge {
        ScanMerge {
            top,
            ..ScanMerge::default()
        }
    }

    /// Reads one part, `text` being its content and `name` what to call it in errors.
    pub fn read(&mut self, name: &str, text: &str) -> Result<(), ReadError> {
        let mut told_errors = None;
        let mut error_records = 0u64;
        let mut seen = 0usize;
        for line in json_lines(text) {
            let (number, kind, value) = line?;
            seen += 1;
            if kind == "header" && seen == 1 {
                return Err(ReadError {
                    line: number,
                    message: "an audit log, not the output of scan --json".into(),
                });
            }
            let record: ScanRecord = parse(value, number)?;
            match record {
                ScanRecord::File(file) => self.add_file(name, *file, number)?,
                ScanRecord::Total(total) => told_errors = Some(total.errors),
                ScanRecord::Error(failed) => {
                    error_records += 1;
                    self.entries
                        .push(Entry::Other(Box::new(ScanRecord::Error(failed))));
                }
                skipped @ ScanRecord::Skipped(_) => {
                    self.entries.push(Entry::Other(Box::new(skipped)))
                }
            }
        }
        if seen == 0 {
            return Err(ReadError {
                line: 0,
                message: "no records: not the output of scan --json".into(),
            });
        }
        self.errors += told_errors.unwrap_or(error_records);
        Ok(())
    }

    fn add_file(&mut self, part: &str, file: ScannedFile, line: usize) -> Result<(), ReadError> {
        if !whole(&file.counts) {
            self.shortfalls.push(Shortfall {
                part: part.to_owned(),
                path: file.path.clone(),
            });
        }
        let Some(&index) = self.files.get(&file.path) else {
            self.files.insert(file.path.clone(), self.entries.len());
            self.entries.push(Entry::Pieces(vec![file]));
            return Ok(());
        };
        let twice = || ReadError {
            line,
            message: format!(
                "{} is in another part too: each input must be scanned once (or in ranges, \
                 scan --range)",
                file.path
            ),
        };
        match &mut self.entries[index] {
            Entry::Pieces(pieces)
                if file.range.is_some() && pieces.iter().all(|p| p.range.is_some()) =>
            {
                pieces.push(file);
                Ok(())
            }
            _ => Err(twice()),
        }
    }

    /// The inputs whose lists were not whole, so that the merged lists may miss counts.
    pub fn shortfalls(&self) -> &[Shortfall] {
        &self.shortfalls
    }

    /// The records one scan would have printed: each input's, then the total.
    ///
    /// Fails when the ranges of a file overlap or leave a gap: their sum would not be the
    /// file's.
    pub fn records(&self) -> Result<Vec<ScanRecord>, ReadError> {
        let mut out = Vec::with_capacity(self.entries.len() + 1);
        let mut total: Option<CountsRecord> = None;
        let (mut files, mut skipped) = (0u64, 0u64);
        let mut first_invalid_path = None;
        for entry in &self.entries {
            let record = match entry {
                Entry::Pieces(pieces) => ScanRecord::File(Box::new(join_ranges(pieces)?)),
                Entry::Other(record) => (**record).clone(),
            };
            let record = &record;
            match record {
                ScanRecord::File(file) => {
                    files += 1;
                    if let Some(offset) = file.counts.first_invalid_offset
                        && total
                            .as_ref()
                            .and_then(|t| t.first_invalid_offset)
                            .is_none_or(|first| offset < first)
                    {
                        first_invalid_path = Some(file.path.clone());
                    }
                    total = Some(match total {
                        None => file.counts.clone(),
                        Some(sum) => add_counts(sum, &file.counts),
                    });
                }
                ScanRecord::Skipped(_) => skipped += 1,
                ScanRecord::Error(_) | ScanRecord::Total(_) => {}
            }
            out.push(record.clone());
        }
        let mut counts = total.unwrap_or_else(empty_counts);
        // Offsets are of one input: a total, as scan writes it, has none.
        counts.lost_byte_offsets.clear();
        counts.top_sequences.truncate(self.top);
        counts.top_left_alone.truncate(self.top);
        for record in &mut out {
            if let ScanRecord::File(file) = record {
                file.counts.top_sequences.truncate(self.top);
                file.counts.top_left_alone.truncate(self.top);
            }
        }
        out.push(ScanRecord::Total(Box::new(ScanTotal {
            counts,
            files,
            skipped,
            errors: self.errors,
            first_invalid_path,
        })));
        Ok(out)
    }
}

/// The record of one input from the records of its ranges, in any order: counts summed, the
/// survey of the range at the lowest offset (it read the file's head, as every range did)
/// with the facts of the sum. A range record that covers the whole file is a whole file's
/// record, without its `range`.
fn join_ranges(pieces: &[ScannedFile]) -> Result<ScannedFile, ReadError> {
    let mut sorted: Vec<&ScannedFile> = pieces.iter().collect();
    sorted.sort_by_key(|p| p.range.as_ref().map_or(0, |r| r.start));
    let Some((first, rest)) = sorted.split_first() else {
        return Err(ReadError {
            line: 0,
            message: "an input without a record".into(),
        });
    };
    let mut joined = (*first).clone();
    for piece in rest {
        let (Some(so_far), Some(next)) = (&joined.range, &piece.range) else {
            break;
        };
        if so_far.end != next.start {
            return Err(ReadError {
                line: 0,
                message: format!(
                    "the ranges of {} {} at {}: they must tile the file",
                    joined.path,
                    if so_far.end > next.start {
                        "overlap"
                    } else {
                        "leave a gap"
                    },
                    so_far.end.min(next.start)
                ),
            });
        }
        joined.counts = add_counts(joined.counts, &piece.counts);
        let actual = &mut joined.encoding.survey.actual;
        actual.non_ascii_chars += piece.encoding.survey.actual.non_ascii_chars;
        joined.encoding.survey.double_encoded += piece.encoding.survey.double_encoded;
        joined.range = Some(RangeRecord {
            start: so_far.start,
            end: next.end,
            file_bytes: so_far.file_bytes.or(next.file_bytes),
            survey_basis: None,
        });
    }
    let dumps: Option<Vec<&DumpRecord>> = sorted.iter().map(|p| p.dump.as_ref()).collect();
    joined.dump = match dumps {
        Some(dumps) => Some(DumpRecord::join(&dumps).map_err(|message| ReadError {
            line: 0,
            message: format!("the ranges of {}: {message}", joined.path),
        })?),
        None if sorted.iter().all(|p| p.dump.is_none()) => None,
        None => {
            return Err(ReadError {
                line: 0,
                message: format!(
                    "the ranges of {} were read as a dump and as text: scan them alike",
                    joined.path
                ),
            });
        }
    };
    finish_survey(&mut joined, &sorted);
    if let Some(range) = &joined.range
        && range.start == 0
        && range.file_bytes.is_some_and(|bytes| range.end >= bytes)
    {
        joined.range = None;
        // What only a range's record carries.
        if let Some(dump) = &mut joined.dump {
            dump.broken_cell_ends = None;
        }
    }
    Ok(joined)
}

/// The survey of the record `joined` of the ranges `pieces`: the basis of the range that holds
/// the file's first invalid byte (the lowest range when none does), finished with the summed
/// facts, as one scan of the file surveys it; and that range's `fix`, which the file's head and
/// its first invalid byte decide. Ranges without a basis (written before ranges carried one)
/// keep the lowest range's wording with the summed figures.
fn finish_survey(joined: &mut ScannedFile, pieces: &[&ScannedFile]) {
    let facts = FileFacts {
        first_invalid_offset: joined.counts.first_invalid_offset,
        non_ascii_chars: joined.encoding.survey.actual.non_ascii_chars,
        double_encoded: joined.encoding.survey.double_encoded,
    };
    let holder = pieces
        .iter()
        .find(|p| {
            facts.first_invalid_offset.is_some()
                && p.counts.first_invalid_offset == facts.first_invalid_offset
        })
        .or(pieces.first());
    let basis = holder.and_then(|p| p.range.as_ref()?.survey_basis.as_ref());
    match (holder, basis) {
        (Some(holder), Some(basis)) => {
            joined.encoding.survey = basis.finish(&facts);
            joined.encoding.fix = holder.encoding.fix.clone();
            if let Some(range) = &mut joined.range {
                range.survey_basis = Some(basis.clone());
            }
        }
        _ => {
            let actual = &mut joined.encoding.survey.actual;
            actual.first_invalid_offset = facts.first_invalid_offset;
            actual.valid_utf8 = facts.first_invalid_offset.is_none();
        }
    }
}

/// Whether a record's lists hold every sequence it counted.
fn whole(counts: &CountsRecord) -> bool {
    counts.top_sequences.len() as u64 == counts.distinct_sequences
        && counts.top_left_alone.len() as u64 == counts.distinct_left_alone
}

/// The counts of no input, as scan totals an empty walk.
fn empty_counts() -> CountsRecord {
    CountsRecord {
        bytes: 0,
        valid_utf8: true,
        first_invalid_offset: None,
        double_encoded: 0,
        by_reading: BTreeMap::new(),
        by_layers: BTreeMap::new(),
        fine_non_ascii: 0,
        top_sequences: Vec::new(),
        not_utf8: 0,
        not_utf8_kept: 0,
        left_alone: 0,
        top_left_alone: Vec::new(),
        distinct_sequences: 0,
        distinct_left_alone: 0,
        lost_bytes: 0,
        lost_bytes_repaired: 0,
        lost_byte_offsets: Vec::new(),
    }
}

/// `a` and `b` summed, as `Counts::merge` sums the counts they were written from; the lists
/// keep every sequence (the caller cuts them to its top).
pub(crate) fn add_counts(a: CountsRecord, b: &CountsRecord) -> CountsRecord {
    let whole_lists = whole(&a) && whole(b);
    let top_sequences = add_sequences(a.top_sequences, &b.top_sequences);
    let top_left_alone = add_sequences(a.top_left_alone, &b.top_left_alone);
    // Distinct sequences of two inputs are known only from whole lists; otherwise the
    // most that is known is that the sum has at least as many as either.
    let (distinct_sequences, distinct_left_alone) = match whole_lists {
        true => (top_sequences.len() as u64, top_left_alone.len() as u64),
        false => (
            a.distinct_sequences.max(b.distinct_sequences),
            a.distinct_left_alone.max(b.distinct_left_alone),
        ),
    };
    CountsRecord {
        bytes: a.bytes + b.bytes,
        valid_utf8: a.valid_utf8 && b.valid_utf8,
        first_invalid_offset: match (a.first_invalid_offset, b.first_invalid_offset) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
        double_encoded: a.double_encoded + b.double_encoded,
        by_reading: add_keyed(a.by_reading, &b.by_reading),
        by_layers: add_keyed(a.by_layers, &b.by_layers),
        fine_non_ascii: a.fine_non_ascii + b.fine_non_ascii,
        top_sequences,
        not_utf8: a.not_utf8 + b.not_utf8,
        not_utf8_kept: a.not_utf8_kept + b.not_utf8_kept,
        left_alone: a.left_alone + b.left_alone,
        top_left_alone,
        distinct_sequences,
        distinct_left_alone,
        lost_bytes: a.lost_bytes + b.lost_bytes,
        lost_bytes_repaired: a.lost_bytes_repaired + b.lost_bytes_repaired,
        lost_byte_offsets: first_offsets(a.lost_byte_offsets, &b.lost_byte_offsets),
    }
}

/// Two lists summed by garbled bytes (the key scan counts them by), ranked as scan ranks
/// them: most frequent first, ties by garbled bytes (their hexadecimal sorts as they do).
fn add_sequences(a: Vec<SequenceRecord>, b: &[SequenceRecord]) -> Vec<SequenceRecord> {
    let mut by_bytes: BTreeMap<String, SequenceRecord> = BTreeMap::new();
    for seq in a.into_iter().chain(b.iter().cloned()) {
        match by_bytes.get_mut(&seq.mojibake_hex) {
            Some(known) => {
                known.count += seq.count;
                known.first_offset = known.first_offset.min(seq.first_offset);
            }
            None => {
                by_bytes.insert(seq.mojibake_hex.clone(), seq);
            }
        }
    }
    let mut all: Vec<SequenceRecord> = by_bytes.into_values().collect();
    all.sort_by(|x, y| {
        y.count
            .cmp(&x.count)
            .then_with(|| x.mojibake_hex.cmp(&y.mojibake_hex))
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json_line;

    fn file(path: &str, bytes: u64, seqs: &[(&str, u64, u64)]) -> String {
        let top: Vec<String> = seqs
            .iter()
            .map(|(hex, count, first)| {
                format!(
                    r#"{{"mojibake":"x","mojibake_hex":"{hex}","repaired":"y","repaired_hex":"79","reading":"either","layers":1,"count":{count},"first_offset":{first}}}"#
                )
            })
            .collect();
        let n: u64 = seqs.iter().map(|s| s.1).sum();
        format!(
            r#"{{"type":"file","path":"{path}","bytes":{bytes},"valid_utf8":true,"first_invalid_offset":null,"double_encoded":{n},"by_reading":{{"either":{n}}},"by_layers":{{"1":{n}}},"fine_non_ascii":0,"top_sequences":[{}],"not_utf8":0,"not_utf8_kept":0,"left_alone":0,"top_left_alone":[],"distinct_sequences":{},"distinct_left_alone":0,"encoding":{{"format":"text","declared":[],"storage":[],"actual":{{"valid_utf8":true,"first_invalid_offset":null,"non_ascii_chars":0,"bom":null,"detected":null}},"double_encoded":{n},"diagnostics":[]}}}}"#,
            top.join(","),
            seqs.len()
        )
    }

    #[test]
    fn totals_sum_the_files_and_rank_their_sequences_again() {
        let mut merge = ScanMerge::new(2);
        let a = file("a", 10, &[("c3", 2, 5), ("c4", 1, 1)]);
        let b = file("b", 7, &[("c4", 2, 0), ("c5", 3, 2)]);
        assert!(merge.read("one", &a).is_ok());
        assert!(
            merge
                .read(
                    "two",
                    &format!(
                        "{b}\n{{\"type\":\"skipped\",\"path\":\"c\",\"reason\":\"binary\"}}\n"
                    )
                )
                .is_ok()
        );
        assert!(merge.shortfalls().is_empty());
        let Ok(records) = merge.records() else {
            panic!("no records");
        };
        assert_eq!(records.len(), 4);
        let ScanRecord::Total(total) = &records[3] else {
            panic!("the last record is no total: {}", json_line(&records[3]));
        };
        assert_eq!((total.files, total.skipped, total.counts.bytes), (2, 1, 17));
        assert_eq!(total.counts.double_encoded, 8);
        assert_eq!(total.counts.distinct_sequences, 3);
        let top: Vec<(&str, u64, u64)> = total
            .counts
            .top_sequences
            .iter()
            .map(|s| (s.mojibake_hex.as_str(), s.count, s.first_offset))
            .collect();
        // c4 and c5 tie on 3: the lower bytes first; c3 falls off the top two.
        assert_eq!(top, [("c4", 3, 0), ("c5", 3, 2)]);
    }

    #[test]
    fn a_path_twice_and_an_audit_log_are_errors_and_short_lists_are_told() {
        let mut merge = ScanMerge::new(10);
        let short = file("a", 1, &[("c3", 1, 0)])
            .replace("\"distinct_sequences\":1", "\"distinct_sequences\":4");
        assert!(merge.read("one", &short).is_ok());
        assert_eq!(merge.shortfalls().len(), 1);
        let Err(error) = merge.read("two", &format!("\n{short}")) else {
            panic!("merged a path twice");
        };
        assert_eq!(error.line, 2);
        assert!(merge.read("log", "{\"type\":\"header\"}").is_err());
        assert!(merge.read("empty", "").is_err());
    }
}
