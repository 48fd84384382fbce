//! What a person or a program reads: a text summary per input, or JSON Lines; and, read back
//! from those records ([`records`]), one HTML page ([`html`]) or the records one scan of all
//! the inputs would have printed ([`merge`]).
//!
//! Every JSON record is one of the types here, serialized with its keys in alphabetical order
//! (as `serde_json` writes a map), and documented field by field in `docs/json.md`; each
//! carries a `type` so that a consumer can read the stream line by line, and each can be read
//! back into its type ([`ScanRecord`], [`DetectRecord`], [`ExplainRecord`], [`LearnRecord`]).

pub mod explain;
pub mod html;
pub mod learn;
pub mod merge;
pub mod records;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::charset::{Determination, SurveyBasis, SurveyRecord};
use crate::dump::DumpRecord;
use crate::format::{Counted, Grouped};
pub use crate::format::{count, hex, thousands, visible, visible_bytes};
use crate::mojibake::counts::SequenceCount;
use crate::mojibake::{Counts, Readings};
pub use explain::{ExplainRecord, explain_records};
pub use learn::LearnRecord;

/// How many distinct sequences a report lists.
pub const TOP_SEQUENCES: usize = 10;

/// One distinct garbled sequence and what it repairs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequenceRecord {
    pub mojibake: String,
    pub mojibake_hex: String,
    pub repaired: String,
    pub repaired_hex: String,
    pub reading: String,
    pub layers: u8,
    pub count: u64,
    pub first_offset: u64,
}

impl SequenceRecord {
    fn new(readings: &Readings, garbled: &[u8], seq: &SequenceCount) -> SequenceRecord {
        let mut utf8 = [0u8; 4];
        let repaired = seq.original.encode_utf8(&mut utf8);
        SequenceRecord {
            mojibake: String::from_utf8_lossy(garbled).into_owned(),
            mojibake_hex: hex(garbled, ""),
            repaired: repaired.to_owned(),
            repaired_hex: hex(repaired.as_bytes(), ""),
            reading: readings.reading_name(seq.mask).to_owned(),
            layers: seq.layers,
            count: seq.count,
            first_offset: seq.first_offset,
        }
    }
}

/// The counts of one input (or of all of them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountsRecord {
    pub bytes: u64,
    pub valid_utf8: bool,
    pub first_invalid_offset: Option<u64>,
    pub double_encoded: u64,
    pub by_reading: BTreeMap<String, u64>,
    /// By number of layers, written as a string (`"1"`, `"2"`): JSON keys are strings.
    pub by_layers: BTreeMap<String, u64>,
    pub fine_non_ascii: u64,
    pub top_sequences: Vec<SequenceRecord>,
    /// Characters decoded from bytes that were not UTF-8, and pieces of them kept; absent
    /// from records written before they were counted.
    #[serde(default)]
    pub not_utf8: u64,
    #[serde(default)]
    pub not_utf8_kept: u64,
    pub left_alone: u64,
    pub top_left_alone: Vec<SequenceRecord>,
    /// How many distinct sequences `top_sequences` and `top_left_alone` are the most frequent
    /// of, so that a reader knows whether a list is whole ([`merge`] needs whole lists to
    /// rank exactly); absent, and so 0, from records written before they were counted.
    #[serde(default)]
    pub distinct_sequences: u64,
    #[serde(default)]
    pub distinct_left_alone: u64,
    /// Garbled characters that lost a byte ("partly lost"), those of them repaired (to an
    /// inferred character or U+FFFD, and counted in `double_encoded`), and the offsets of the
    /// first of them; absent from records written before they were counted.
    #[serde(default)]
    pub lost_bytes: u64,
    #[serde(default)]
    pub lost_bytes_repaired: u64,
    #[serde(default)]
    pub lost_byte_offsets: Vec<u64>,
}

impl CountsRecord {
    /// The record of `counts`, with at most `top` sequences of each list.
    pub fn new(readings: &Readings, counts: &Counts, top: usize) -> CountsRecord {
        let sequences = |list: Vec<(&[u8], &SequenceCount)>| {
            let record = |(garbled, seq)| SequenceRecord::new(readings, garbled, seq);
            list.into_iter().map(record).collect()
        };
        CountsRecord {
            bytes: counts.bytes,
            valid_utf8: counts.valid_utf8(),
            first_invalid_offset: counts.first_invalid_offset,
            double_encoded: counts.double_encoded,
            by_reading: counts.by_reading_keyed(readings),
            by_layers: counts.by_layers_keyed(),
            fine_non_ascii: counts.fine_non_ascii(),
            top_sequences: sequences(counts.top_sequences(top)),
            not_utf8: counts.not_utf8,
            not_utf8_kept: counts.not_utf8_kept,
            left_alone: counts.left_alone,
            top_left_alone: sequences(counts.top_left_alone(top)),
            distinct_sequences: counts.distinct_sequences() as u64,
            distinct_left_alone: counts.distinct_left_alone() as u64,
            lost_bytes: counts.lost_bytes,
            lost_bytes_repaired: counts.lost_bytes_repaired,
            lost_byte_offsets: counts.lost_byte_offsets.clone(),
        }
    }
}

/// A `scan --json` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ScanRecord {
    /// Boxed: a survey and a dump's tables make it much larger than the other records.
    File(Box<ScannedFile>),
    /// Boxed: its counts are several times larger than a skipped input's or an error's.
    Total(Box<ScanTotal>),
    Skipped(Skipped),
    Error(Failed),
}

/// One input scanned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScannedFile {
    pub path: String,
    #[serde(flatten)]
    pub counts: CountsRecord,
    /// The encoding survey ([`crate::charset::Survey`]), with `fix`: what `fix` will do with
    /// an input that is not UTF-8.
    pub encoding: SurveyRecord,
    /// A SQL dump's tables and columns ([`crate::dump::DumpReport::record`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dump: Option<DumpRecord>,
    /// For `scan --range`: the range asked for; absent for a whole input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<RangeRecord>,
}

/// The bytes a `scan --range` was asked for, and the file's size: the counts are those of the
/// whole file's blocks that start in the range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeRecord {
    pub start: u64,
    pub end: u64,
    /// The size of the file, or `null` when it could not be known.
    pub file_bytes: Option<u64>,
    /// What the survey read off the file's head: `merge` finishes it with the summed counts
    /// of the ranges, so that the merged survey is the whole file's, word for word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey_basis: Option<SurveyBasis>,
}

/// The totals of a scan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanTotal {
    #[serde(flatten)]
    pub counts: CountsRecord,
    pub files: u64,
    pub skipped: u64,
    pub errors: u64,
    /// The input the total's `first_invalid_offset` is in.
    pub first_invalid_path: Option<String>,
}

/// An input skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    /// Why: `binary`.
    pub reason: String,
}

/// An input that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    pub path: String,
    pub message: String,
}

/// A `detect --json` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum DetectRecord {
    Detect(Detected),
    Total(DetectTotal),
    Skipped(Skipped),
    Error(Failed),
}

/// One document's encoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Detected {
    pub path: String,
    #[serde(flatten)]
    pub determination: Determination,
}

/// The totals of `detect` over a tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DetectTotal {
    pub files: u64,
    /// Documents per encoding found.
    pub encodings: BTreeMap<String, u64>,
    /// Of those, the documents whose encoding was a guess, per encoding.
    pub guesses: BTreeMap<String, u64>,
    pub undetermined: u64,
    pub skipped: u64,
    pub errors: u64,
}

/// One JSON Lines record as it is printed: its keys in alphabetical order, as `serde_json`
/// writes a map, whatever order the type declares its fields in.
pub fn json_line<T: Serialize>(record: &T) -> String {
    match serde_json::to_value(record) {
        Ok(value) => format!("{value}\n"),
        // The records hold strings, numbers and maps with string keys: nothing that fails.
        Err(error) => unprintable(&error),
    }
}

/// The line printed in place of a record that cannot be written: an `error` record without
/// a path, its fields in alphabetical order as [`json_line`] writes them.
fn unprintable(error: &serde_json::Error) -> String {
    #[derive(Serialize)]
    struct Unprintable {
        message: String,
        #[serde(rename = "type")]
        kind: &'static str,
    }
    let record = Unprintable {
        message: error.to_string(),
        kind: "error",
    };
    // Two strings: nothing that fails either.
    serde_json::to_string(&record).unwrap_or_default() + "\n"
}

/// A few lines for a person: the headline, then the most frequent sequences.
pub fn counts_text(readings: &Readings, name: &str, counts: &Counts, top: usize) -> String {
    // Written into one string as it goes: a tree of many files writes one of these for each.
    let mut out = String::with_capacity(name.len() + 160);
    let _ = write_counts_text(&mut out, readings, name, counts, top);
    out
}

/// [`counts_text`], into `out`.
fn write_counts_text(
    out: &mut String,
    readings: &Readings,
    name: &str,
    counts: &Counts,
    top: usize,
) -> std::fmt::Result {
    // The parts every line has are appended without `write!`: a tree of many files writes a
    // line for each.
    out.push_str(name);
    out.push_str(": ");
    Counted(counts.double_encoded, "double-encoded character").push_to(out);
    if counts.double_encoded > 0 {
        out.push_str(" (");
        for (i, (reading, n)) in counts.by_reading_names(readings).iter().enumerate() {
            let separator = if i > 0 { ", " } else { "" };
            write!(out, "{separator}{reading} {}", Grouped(*n))?;
        }
        out.push_str("; ");
        for (i, (layers, n)) in counts.by_layers().iter().enumerate() {
            let separator = if i > 0 { ", " } else { "" };
            let layers = Counted(u64::from(*layers), "layer");
            write!(out, "{separator}{layers} {}", Grouped(*n))?;
        }
        out.push(')');
    }
    if counts.not_utf8 > 0 {
        let characters = Counted(counts.not_utf8, "character");
        write!(out, ", {characters} from bytes not UTF-8")?;
    }
    if counts.not_utf8_kept > 0 {
        let pieces = Counted(counts.not_utf8_kept, "piece");
        write!(out, ", {pieces} of bytes not UTF-8 kept")?;
    }
    if counts.lost_bytes > 0 {
        write!(
            out,
            ", {} partly lost ({} repaired",
            Counted(counts.lost_bytes, "character"),
            Grouped(counts.lost_bytes_repaired)
        )?;
        if let Some(at) = counts.lost_byte_offsets.first() {
            write!(out, ", the first at offset {at}")?;
        }
        out.push(')');
    }
    out.push_str(", ");
    Counted(counts.left_alone, "look-alike").push_to(out);
    out.push_str(" left alone, ");
    Counted(counts.fine_non_ascii(), "non-ASCII character").push_to(out);
    out.push_str(" fine, ");
    Counted(counts.bytes, "byte").push_to(out);
    out.push_str(", ");
    match counts.first_invalid_offset {
        None => out.push_str("valid UTF-8"),
        Some(offset) => write!(
            out,
            "not valid UTF-8 (first invalid byte at offset {offset})"
        )?,
    }
    out.push('\n');
    for (garbled, seq) in counts.top_sequences(top) {
        let how = match seq.layers {
            0 => "not UTF-8".to_owned(),
            layers => count(u64::from(layers), "layer"),
        };
        writeln!(
            out,
            "  {} → {} × {} ({}, {how})",
            visible_bytes(garbled),
            visible(seq.original.encode_utf8(&mut [0; 4])),
            Grouped(seq.count),
            readings.reading_name(seq.mask),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separates_groups() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
