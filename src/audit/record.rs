//! The records of an audit log: one JSON object per line (JSON Lines), each with a `"type"`.
//!
//! The log is written for two readers: a person (or a script) who wants to know what `fix`
//! changed, and [`undo`](super::undo()), which must rebuild every changed file to its exact
//! original bytes and prove it did. So every record carries both the readable text and the exact
//! bytes (as lower-case hexadecimal), and the schema is versioned: `undo` refuses a log whose
//! header names a schema it does not know rather than guess.
//!
//! A log is one `header` record, then for every file the fix read: its `change` records (at the
//! `full` level) or its `sequence` records (at the `summary` level), then its `file` record, which
//! closes them; then, when the run finished, one `end` record. Every record after the header
//! carries `prev`, the SHA-256 of the line before it (see [`chain`](super::chain)).
//!
//! # `header` (first line, once per run)
//!
//! - `schema`: `3`, the version of this layout. `undo` also reads schemas 1 and 2, which had no
//!   integrity chain (no `prev`, no `end` record); schema 1 also had no `kind`, `table`, `column`
//!   or `row` in its `change` records (all its changes were repairs).
//! - `tool`, `version`: `"undouble"` and its version.
//! - `command_line`: the arguments the run was started with, the program first.
//! - `time`, `unix_time`: when the run started, as RFC 3339 UTC and as seconds since 1970.
//! - `level`: `"full"` (one `change` record per repaired character) or `"summary"`.
//! - `readings`: the code pages the text was assumed to have been read through (`latin1`,
//!   `cp1252`), in the order they were given.
//! - `strictness`: `pattern`, `lenient`, `balanced` or `strict`.
//!
//! # `change` (one per change, `full` level only)
//!
//! - `path` (and `path_hex`, see below): the file.
//! - `offset`: byte offset of the bytes changed in the file as it was *before* the fix.
//! - `line`: 1-based line number of that offset, before the fix.
//! - `kind`: `repair` (a repaired character) or `charset` (a character set or collation name
//!   that `--convert-charset` rewrote in a SQL dump).
//! - `table`, `column`, `row`: for a repair inside a value of a SQL dump, the table and
//!   column it lies in, and the row (see [`RowId`](crate::dump::RowId)): the primary key as an object of columns
//!   and values, or the row's number in the table's data. Absent for plain text, for the DDL
//!   (a comment, a default) and for `charset` changes.
//! - `original`, `original_hex`: the bytes that were there (for a repair, the garbled form),
//!   as text and exactly.
//! - `replacement`, `replacement_hex`: the bytes written in their place (for a repair, the
//!   character). A replacement may be longer than the original (`latin1` → `utf8mb4`).
//! - `reading` (repairs only): the code page that explains the garbling: `latin1`, `cp1252`,
//!   `either` (both do) or `mixed` (no single page does).
//! - `layers` (repairs only): layers of double encoding removed (1 double-encoded, 2
//!   triple-encoded, ...); 0 for bytes that were not UTF-8, decoded as a character of
//!   `reading` (or as the overlong or CESU-8 form of one), which `undo` restores like any
//!   other change.
//! - `inferred` (repairs only, present only when true): the garbled form had lost a byte (a
//!   no-break space turned into a space, or a byte replaced by U+FFFD or `?`), so the
//!   character was inferred from what is left, or written as U+FFFD where it cannot be known.
//!
//! Changes of one file come in increasing `offset` order and never overlap.
//!
//! # `sequence` (one per distinct garbled form and file, `summary` level only)
//!
//! - `path`, `path_hex`, `original`, `original_hex`, `replacement`, `replacement_hex`, `reading`,
//!   `layers`, `inferred`: as in `change` (repairs only: character set rewrites have no summary).
//! - `count`: how many times it was repaired in the file.
//! - `first_offset`: byte offset of its first occurrence, before the fix.
//!
//! Sequences come most frequent first.
//!
//! # `file` (one per file read, after its changes or sequences)
//!
//! - `path`, `path_hex`: the file read; `-` for standard input.
//! - `output`: where the repaired bytes went: the same path when the file was fixed in place,
//!   another file, or `-` for standard output.
//! - `rewritten`: whether the file at `path` was replaced by its repaired version. Only such
//!   files are touched by `undo`; the record is written before the replacement happens, so a
//!   run that stops in between leaves a record whose `sha256_after` the file does not match.
//! - `bytes_before`, `sha256_before`: size and SHA-256 of the content read.
//! - `bytes_after`, `sha256_after`: size and SHA-256 of the repaired content written.
//! - `valid_utf8`: whether the content read was well-formed UTF-8 throughout.
//! - `double_encoded`: repaired characters (`charset` changes are not counted here).
//! - `left_alone`: runs the byte pattern matched that the plausibility rule left as they were.
//! - `by_reading`, `by_layers`: the repaired characters by reading and by layers removed.
//! - `change_records`: how many `change` records precede this one for the file (0 at the
//!   `summary` level); `undo` checks it, so a log cut short is noticed.
//! - `part_offset` (only in the log of a range, `fix --range`): the offset in `path` of the first
//!   byte the range read. The part it wrote to `output` takes the place of the bytes
//!   `part_offset .. part_offset + bytes_before`, which `bytes_before` and `sha256_before`
//!   describe. Change offsets are offsets in the whole file, but a change's `line` counts from
//!   the part's first byte (line 1), since a range never reads the bytes before it; `undouble
//!   merge --audit` joins the parts of a file over it and gives each line its number in the
//!   whole file.
//!
//! # `end` (last line, once, when the run finished)
//!
//! - `files`: how many `file` records the log holds.
//! - `rewritten`: how many of them say `rewritten`.
//!
//! A log without it was written by a run that did not finish, or was cut.
//!
//! # `prev` (every record but the header)
//!
//! The SHA-256 of the line before, as 64 hexadecimal digits; the last field of the record.
//!
//! # Paths
//!
//! Paths are stored absolute, resolved against the directory the fix ran in (symbolic links
//! are not resolved), so that `undo` finds the files from any directory. JSON holds Unicode
//! text only: a path that is not valid UTF-8 is stored lossily in `path` for people, and exactly,
//! as the hexadecimal of its bytes, in `path_hex` (Unix only), which `undo` then uses.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::dump::Cell;
use crate::format::hex;
use crate::mojibake::{Scanner, Strictness};

/// The version of the record layout this build writes: 2 added `change` records of the
/// `charset` kind (which have no `reading` or `layers`, so a reader of schema 1 cannot read
/// them) and the `table`, `column` and `row` of repairs in a SQL dump; 3 added the integrity
/// chain (`prev`) and the `end` record.
pub const SCHEMA: u32 = 3;

/// The oldest layout this build still reads (and undoes).
pub(crate) const OLDEST_SCHEMA: u32 = 1;

/// The first layout with an integrity chain: older logs are read without one.
pub(crate) const CHAINED_SCHEMA: u32 = 3;

/// How much an audit log records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditLevel {
    /// One `change` record per repaired character: enough to undo the fix.
    #[default]
    Full,
    /// Only `sequence` and `file` records: small even for millions of changes, but no undo.
    Summary,
}

/// One line of an audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Record {
    Header(Header),
    Change(Change),
    Sequence(Sequence),
    File(FileRecord),
    End(End),
}

/// What the run was: the first record of every log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub schema: u32,
    pub tool: String,
    pub version: String,
    pub command_line: Vec<String>,
    pub time: String,
    pub unix_time: u64,
    pub level: AuditLevel,
    pub readings: Vec<String>,
    pub strictness: Strictness,
}

impl Header {
    /// The header of a run starting now with `scanner`'s settings.
    pub(crate) fn new(
        scanner: &Scanner,
        level: AuditLevel,
        command_line: impl IntoIterator<Item = String>,
    ) -> Header {
        let readings = scanner.readings().pages().iter();
        Header::now(
            level,
            readings.map(|page| page.name.to_owned()).collect(),
            scanner.strictness(),
            command_line,
        )
    }

    /// The header of a run starting now that reads text through `readings` (named) with
    /// `strictness`.
    pub(crate) fn now(
        level: AuditLevel,
        readings: Vec<String>,
        strictness: Strictness,
        command_line: impl IntoIterator<Item = String>,
    ) -> Header {
        let unix_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Header {
            schema: SCHEMA,
            tool: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            command_line: command_line.into_iter().collect(),
            time: utc_timestamp(unix_time),
            unix_time,
            level,
            readings,
            strictness,
        }
    }
}

/// A file a record is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoggedPath {
    /// The path as text (lossy when the path is not valid UTF-8).
    pub path: String,
    /// The exact bytes of a path that is not valid UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<Hex>,
}

impl LoggedPath {
    /// Records `path` as it is (callers make it absolute first).
    pub(crate) fn new(path: &Path) -> LoggedPath {
        match path.to_str() {
            Some(text) => LoggedPath {
                path: text.to_owned(),
                path_hex: None,
            },
            None => LoggedPath {
                path: path.to_string_lossy().into_owned(),
                path_hex: path_bytes(path).map(Hex),
            },
        }
    }

    /// The path the record names, or `None` when its bytes cannot name a file on this platform.
    pub(crate) fn to_path_buf(&self) -> Option<PathBuf> {
        match &self.path_hex {
            None => Some(PathBuf::from(&self.path)),
            Some(Hex(bytes)) => path_from_bytes(bytes),
        }
    }
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    Some(path.as_os_str().as_bytes().to_vec())
}

#[cfg(not(unix))]
fn path_bytes(_path: &Path) -> Option<Vec<u8>> {
    None
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(_bytes: &[u8]) -> Option<PathBuf> {
    None
}

/// The bytes a change took out, and those it wrote in their place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Substitution {
    pub original: String,
    pub original_hex: Hex,
    pub replacement: String,
    pub replacement_hex: Hex,
}

impl Substitution {
    pub(crate) fn new(original: &[u8], replacement: &[u8]) -> Substitution {
        Substitution {
            original: String::from_utf8_lossy(original).into_owned(),
            original_hex: Hex(original.to_vec()),
            replacement: String::from_utf8_lossy(replacement).into_owned(),
            replacement_hex: Hex(replacement.to_vec()),
        }
    }

    /// The garbled form `garbled` repaired to the character `repaired`.
    pub fn repair(garbled: &[u8], repaired: char) -> Substitution {
        let mut utf8 = [0u8; 4];
        Substitution::new(garbled, repaired.encode_utf8(&mut utf8).as_bytes())
    }
}

/// How a repaired character had been garbled: what a person needs to judge the repair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Garbling {
    /// `latin1`, `cp1252`, `either` or `mixed`.
    pub reading: String,
    /// Layers of double encoding removed.
    pub layers: u8,
    /// The garbled form had lost a byte: the character was inferred, or is U+FFFD for one
    /// that cannot be known ([`crate::mojibake::lost`]). Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inferred: bool,
}

/// What a change did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A double-encoded character repaired (all a schema 1 log holds, without saying so).
    #[default]
    Repair,
    /// A character set or collation name rewritten by `--convert-charset` in a SQL dump.
    Charset,
}

/// One change: a repaired character, or a rewritten character set name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    #[serde(flatten)]
    pub file: LoggedPath,
    pub offset: u64,
    pub line: u64,
    #[serde(default)]
    pub kind: ChangeKind,
    /// Only for a repair in a value of a SQL dump.
    #[serde(flatten)]
    pub cell: Option<Cell>,
    #[serde(flatten)]
    pub substitution: Substitution,
    /// Only for a repair.
    #[serde(flatten)]
    pub garbling: Option<Garbling>,
}

/// One distinct garbled form repaired in a file, and how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sequence {
    #[serde(flatten)]
    pub file: LoggedPath,
    #[serde(flatten)]
    pub substitution: Substitution,
    #[serde(flatten)]
    pub garbling: Garbling,
    pub count: u64,
    pub first_offset: u64,
}

/// What the fix did to one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    #[serde(flatten)]
    pub file: LoggedPath,
    pub output: String,
    pub rewritten: bool,
    pub bytes_before: u64,
    pub sha256_before: Checksum,
    pub bytes_after: u64,
    pub sha256_after: Checksum,
    pub valid_utf8: bool,
    pub double_encoded: u64,
    pub left_alone: u64,
    pub by_reading: BTreeMap<String, u64>,
    pub by_layers: BTreeMap<String, u64>,
    pub change_records: u64,
    /// Only in the log of a range: where in the file its part starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_offset: Option<u64>,
}

impl FileRecord {
    /// Size and hash of the content before the fix.
    pub(crate) fn before(&self) -> Fingerprint {
        Fingerprint {
            bytes: self.bytes_before,
            sha256: self.sha256_before,
        }
    }

    /// Size and hash of the content the fix wrote.
    pub(crate) fn after(&self) -> Fingerprint {
        Fingerprint {
            bytes: self.bytes_after,
            sha256: self.sha256_after,
        }
    }
}

/// The record that closes a run that finished: what the log holds, so that a log missing records
/// is seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    /// `file` records in the log.
    pub files: u64,
    /// Those of them that say `rewritten`.
    pub rewritten: u64,
}

/// Size and SHA-256 of a content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub bytes: u64,
    pub sha256: Checksum,
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes, SHA-256 {}", self.bytes, self.sha256)
    }
}

/// A SHA-256 digest, written as 64 hexadecimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Checksum(pub [u8; 32]);

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex(&self.0, ""))
    }
}

impl Serialize for Checksum {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Checksum {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Checksum, D::Error> {
        let Hex(bytes) = Hex::deserialize(deserializer)?;
        let digest = <[u8; 32]>::try_from(bytes.as_slice())
            .map_err(|_| D::Error::custom("a SHA-256 digest is 64 hexadecimal digits"))?;
        Ok(Checksum(digest))
    }
}

/// Bytes, written as lower-case hexadecimal (two digits a byte, no separator).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Hex(pub Vec<u8>);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex(&self.0, ""))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Hex, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_hex(&text)
            .map(Hex)
            .ok_or_else(|| D::Error::custom(format!("not hexadecimal bytes: {text:?}")))
    }
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let value = |digit: u8| char::from(digit).to_digit(16);
    digits
        .chunks_exact(2)
        .map(|pair| Some((value(pair[0])? * 16 + value(pair[1])?) as u8))
        .collect()
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_timestamp(unix_time: u64) -> String {
    let (year, month, day) = civil_from_days(unix_time / 86_400);
    let seconds = unix_time % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let shifted = days + 719_468; // days since 0000-03-01
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::RowId;
    use crate::mojibake::{Readings, Strictness};

    fn logged(path: &str) -> LoggedPath {
        LoggedPath::new(Path::new(path))
    }

    /// The change record of `garbled` repaired to `repaired`, in a dump's cell or not.
    fn repair(garbled: &str, repaired: char, reading: &str, cell: Option<Cell>) -> Change {
        Change {
            file: logged("/data/a b\\c:d.sql"),
            offset: 17,
            line: 2,
            kind: ChangeKind::Repair,
            cell,
            substitution: Substitution::repair(garbled.as_bytes(), repaired),
            garbling: Some(Garbling {
                reading: reading.into(),
                layers: 1,
                inferred: false,
            }),
        }
    }

    fn charset() -> Change {
        Change {
            file: logged("/dump.sql"),
            offset: 120,
            line: 4,
            kind: ChangeKind::Charset,
            cell: None,
            substitution: Substitution::new(b"latin1", b"utf8mb4"),
            garbling: None,
        }
    }

    fn cell(row: RowId) -> Option<Cell> {
        Some(Cell {
            table: "shop.t".into(),
            column: "name".into(),
            row,
        })
    }

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(utc_timestamp(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn hex_round_trips_and_rejects_non_hex() {
        assert_eq!(parse_hex("00ff7fC3"), Some(vec![0x00, 0xff, 0x7f, 0xc3]));
        assert_eq!(parse_hex(""), Some(vec![]));
        assert_eq!(parse_hex("abc"), None);
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(parse_hex("+1"), None);
    }

    #[test]
    fn records_carry_their_type_and_round_trip() {
        let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
        let header = Header::new(&scanner, AuditLevel::Full, ["undouble".to_owned()]);
        assert_eq!(header.readings, ["latin1", "cp1252"]);
        assert_eq!(header.strictness, Strictness::Balanced);
        let key = vec![("a".to_owned(), "1".to_owned()), ("b".into(), "x".into())];
        let changes = [
            repair("Ã©", 'é', "either", None),
            repair("Ã©", 'é', "either", cell(RowId::Key(key))),
            repair("Ã©", 'é', "either", cell(RowId::Ordinal(3))),
            charset(),
        ];
        let file = FileRecord {
            file: logged("/data/a b\\c:d.sql"),
            output: "/data/a b\\c:d.sql".into(),
            rewritten: true,
            bytes_before: 30,
            sha256_before: Checksum([1; 32]),
            bytes_after: 28,
            sha256_after: Checksum([2; 32]),
            valid_utf8: true,
            double_encoded: 1,
            left_alone: 0,
            by_reading: BTreeMap::from([("either".to_owned(), 1)]),
            by_layers: BTreeMap::from([("1".to_owned(), 1)]),
            change_records: 1,
            part_offset: None,
        };
        let part = FileRecord {
            rewritten: false,
            part_offset: Some(8 << 20),
            ..file.clone()
        };
        let end = End {
            files: 1,
            rewritten: 1,
        };
        let records = [
            Record::Header(header),
            Record::File(file),
            Record::File(part),
            Record::End(end),
        ]
        .into_iter()
        .chain(changes.into_iter().map(Record::Change));
        for record in records {
            let line = serde_json::to_vec(&record).unwrap();
            assert!(!line.contains(&b'\n'));
            let back: Record = serde_json::from_slice(&line).unwrap();
            assert_eq!(back, record);
        }
    }

    #[test]
    fn change_records_spell_out_bytes_and_text() {
        let change = Record::Change(repair("â€™", '’', "cp1252", None));
        let json: serde_json::Value = serde_json::to_value(&change).unwrap();
        assert_eq!(json["type"], "change");
        assert_eq!(json["kind"], "repair");
        assert_eq!(json["original"], "â€™");
        assert_eq!(json["original_hex"], "c3a2e282ace284a2");
        assert_eq!(json["replacement"], "’");
        assert_eq!(json["replacement_hex"], "e28099");
        assert_eq!(json["reading"], "cp1252");
        for absent in ["path_hex", "table", "column", "row"] {
            assert!(json.get(absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn dump_changes_name_their_cell_and_charset_changes_have_no_garbling() {
        let key = vec![("id".to_owned(), "42".to_owned())];
        let json = serde_json::to_string(&Record::Change(repair(
            "Ã©",
            'é',
            "either",
            cell(RowId::Key(key)),
        )))
        .unwrap();
        assert!(
            json.contains(r#""kind":"repair","table":"shop.t","column":"name","row":{"id":"42"},"original":"Ã©""#),
            "{json}"
        );
        let json: serde_json::Value = serde_json::to_value(Record::Change(charset())).unwrap();
        assert_eq!(json["kind"], "charset");
        assert_eq!(json["original_hex"], "6c6174696e31");
        assert_eq!(json["replacement"], "utf8mb4");
        for absent in ["reading", "layers", "table", "row"] {
            assert!(json.get(absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn a_schema_1_change_reads_as_a_repair() {
        let line = r#"{"type":"change","path":"/x","offset":3,"line":1,"original":"Ã©","original_hex":"c383c2a9","replacement":"é","replacement_hex":"c3a9","reading":"either","layers":1}"#;
        let Ok(Record::Change(change)) = serde_json::from_str(line) else {
            panic!("a change record");
        };
        assert_eq!(change.kind, ChangeKind::Repair);
        assert_eq!(change.cell, None);
        assert_eq!(change.garbling.map(|g| g.layers), Some(1));
        assert_eq!(
            change.substitution.replacement_hex,
            Hex("é".as_bytes().to_vec())
        );
    }

    #[cfg(unix)]
    #[test]
    fn paths_that_are_not_utf8_are_kept_exactly() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/tmp/caf\xe9.txt"));
        let logged = LoggedPath::new(path);
        assert_eq!(logged.path, "/tmp/caf\u{fffd}.txt");
        assert_eq!(logged.to_path_buf().as_deref(), Some(path));
    }

    #[test]
    fn a_checksum_must_be_32_bytes() {
        let short: Result<Checksum, _> = serde_json::from_str("\"abcd\"");
        assert!(short.is_err());
    }
}
