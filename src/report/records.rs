//! Reading back what undouble wrote: the JSON Lines of `scan --json` (with the tables and
//! columns of dumps) and the audit logs of `fix --audit`, several of them merged into one
//! [`Merged`] summary that [`html`](super::html) turns into a page.
//!
//! The reader is the one place that knows the records' layout: small `Deserialize` structs
//! that take the fields the page shows and ignore the rest, so that a record with more fields
//! (a newer build) still reads. It is pure: text in, a summary out; the caller reads files.
//!
//! Totals are the sums of the per-file records, never the `total` records, so that several
//! scans merged count each file once per scan and the page's figures add up.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Counts by name (`by_reading`, `by_layers`).
pub type ByName = BTreeMap<String, u64>;

/// What kind of file an input is, told by its first record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// `scan --json` output.
    Scan,
    /// An audit log of `fix --audit`.
    Audit,
}

/// One input of the report.
#[derive(Clone, Debug)]
pub struct Source {
    /// Its name as given on the command line.
    pub name: String,
    pub kind: SourceKind,
    /// The records read from it.
    pub records: u64,
    /// For an audit log: the command line of the fix that wrote it.
    pub command_line: Vec<String>,
    /// For an audit log: whether it ends with its `end` record (the fix finished).
    pub finished: bool,
    /// The paths its records name, in order, each once.
    pub paths: Vec<String>,
}

/// One file a scan read or a fix repaired.
#[derive(Clone, Debug, Default)]
pub struct FileRow {
    pub path: String,
    /// The index of its [`Source`].
    pub source: usize,
    pub bytes: u64,
    pub double_encoded: u64,
    pub left_alone: u64,
    /// Correct non-ASCII characters (scans only).
    pub fine_non_ascii: Option<u64>,
    pub valid_utf8: bool,
    pub by_reading: ByName,
    pub by_layers: ByName,
    /// The encoding its first declaration names, if any (scans only).
    pub declared: Option<String>,
    /// The encoding its bytes are (scans only).
    pub actual: Option<String>,
    /// Whether `actual` is a statistical guess.
    pub guessed: bool,
    /// The character sets a dump stores its tables in, each once.
    pub storage: Vec<String>,
    /// The survey's diagnostics and what `fix` would do with a file that is not UTF-8.
    pub notes: Vec<String>,
    /// For a fix: whether the file was replaced by its repair.
    pub rewritten: Option<bool>,
    /// For a dump: its dialect.
    pub dialect: Option<String>,
}

/// One column of a table of a dump.
#[derive(Clone, Debug, Default)]
pub struct ColumnRow {
    pub path: String,
    pub table: String,
    pub column: String,
    /// Its declared type (scans only).
    pub declared: String,
    /// Its cells (scans only: an audit log records changes, not cells).
    pub cells: Option<u64>,
    /// Its cells that hold double-encoded text (scans only).
    pub damaged_cells: Option<u64>,
    pub double_encoded: u64,
    pub left_alone: u64,
}

/// One distinct garbled sequence and what it repairs to, summed over the inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceRow {
    pub mojibake: String,
    pub repaired: String,
    pub reading: String,
    pub layers: u64,
    pub count: u64,
}

/// An input a scan skipped, or could not read.
#[derive(Clone, Debug)]
pub struct Problem {
    pub path: String,
    pub source: usize,
    /// `skipped` or `error`.
    pub kind: String,
    pub message: String,
}

/// The sums over every file.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub files: u64,
    pub bytes: u64,
    pub double_encoded: u64,
    pub left_alone: u64,
    pub fine_non_ascii: u64,
    pub damaged_files: u64,
    pub damaged_columns: u64,
    pub by_reading: ByName,
    pub by_layers: ByName,
}

/// Every input read, merged.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    pub sources: Vec<Source>,
    pub files: Vec<FileRow>,
    pub columns: Vec<ColumnRow>,
    sequences: HashMap<(String, String, String, u64), u64>,
    pub problems: Vec<Problem>,
    /// Whether a scan's sequences are its files' top lists only (`scan --top`), not all.
    pub sequences_are_tops: bool,
}

/// A line that is not a record undouble writes.
#[derive(Debug)]
pub struct ReadError {
    /// The 1-based line.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ReadError {}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanSequence {
    mojibake: String,
    repaired: String,
    reading: String,
    layers: u64,
    count: u64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanColumn {
    column: String,
    #[serde(rename = "type")]
    declared: String,
    cells: u64,
    double_encoded_cells: u64,
    double_encoded: u64,
    left_alone: u64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanTable {
    table: String,
    columns: Vec<ScanColumn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanDump {
    dialect: String,
    tables: Vec<ScanTable>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Named {
    encoding: Option<String>,
    label: Option<String>,
    message: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Detected {
    encoding: Option<String>,
    guess: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Actual {
    detected: Option<Detected>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Encoding {
    declared: Vec<Named>,
    actual: Actual,
    storage: Vec<Named>,
    diagnostics: Vec<Named>,
    fix: Option<String>,
}

/// A scan's `file` record.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanFile {
    path: String,
    bytes: u64,
    valid_utf8: bool,
    double_encoded: u64,
    left_alone: u64,
    fine_non_ascii: u64,
    by_reading: ByName,
    by_layers: ByName,
    top_sequences: Vec<ScanSequence>,
    encoding: Option<Encoding>,
    dump: Option<ScanDump>,
}

/// A scan's `skipped` or `error` record.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ScanProblem {
    path: String,
    reason: Option<String>,
    message: Option<String>,
}

/// An audit log's `header`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct AuditHeader {
    command_line: Vec<String>,
}

/// An audit log's `change` (full level) or `sequence` (summary level).
#[derive(Deserialize, Default)]
#[serde(default)]
struct AuditChange {
    path: String,
    kind: Option<String>,
    table: Option<String>,
    column: Option<String>,
    original: String,
    replacement: String,
    reading: String,
    layers: u64,
    /// `sequence` records only; a change is one.
    count: Option<u64>,
}

/// An audit log's `file` record.
#[derive(Deserialize, Default)]
#[serde(default)]
struct AuditFile {
    path: String,
    rewritten: bool,
    bytes_before: u64,
    valid_utf8: bool,
    double_encoded: u64,
    left_alone: u64,
    by_reading: ByName,
    by_layers: ByName,
}

/// The records of a JSON Lines text, blank lines left out: each with its 1-based line, its
/// `type` (empty when it has none) and its value.
pub(crate) fn json_lines(
    text: &str,
) -> impl Iterator<Item = Result<(usize, String, Value), ReadError>> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(at, line)| {
            let number = at + 1;
            let value: Value = serde_json::from_str(line).map_err(|e| ReadError {
                line: number,
                message: format!("not JSON: {e}"),
            })?;
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Ok((number, kind, value))
        })
}

pub(crate) fn parse<T: DeserializeOwned>(value: Value, line: usize) -> Result<T, ReadError> {
    serde_json::from_value(value).map_err(|e| ReadError {
        line,
        message: format!("not a record undouble writes: {e}"),
    })
}

impl Merged {
    /// Reads one input, `text` being its content and `name` what to call it, and merges its
    /// records into the others'.
    pub fn read(&mut self, name: &str, text: &str) -> Result<(), ReadError> {
        let index = self.sources.len();
        let mut source = Source {
            name: name.to_owned(),
            kind: SourceKind::Scan,
            records: 0,
            command_line: Vec::new(),
            finished: false,
            paths: Vec::new(),
        };
        // Columns of an audit log, summed per (path, table, column) as the changes come.
        let mut audit_columns: BTreeMap<(String, String, String), u64> = BTreeMap::new();
        for line in json_lines(text) {
            let (number, kind, value) = line?;
            if source.records == 0 && kind == "header" {
                source.kind = SourceKind::Audit;
            }
            source.records += 1;
            match (source.kind, kind.as_str()) {
                (SourceKind::Scan, "file") => {
                    let file: ScanFile = parse(value, number)?;
                    self.scan_file(file, index, &mut source);
                }
                (SourceKind::Scan, "skipped" | "error") => {
                    let problem: ScanProblem = parse(value, number)?;
                    note_path(&mut source.paths, &problem.path);
                    let message = problem
                        .message
                        .or(problem.reason.map(|reason| format!("looks {reason}")))
                        .unwrap_or_default();
                    self.problems.push(Problem {
                        path: problem.path,
                        source: index,
                        kind,
                        message,
                    });
                }
                (SourceKind::Scan, "total") => {}
                (SourceKind::Audit, "header") => {
                    let header: AuditHeader = parse(value, number)?;
                    source.command_line = header.command_line;
                }
                (SourceKind::Audit, "change" | "sequence") => {
                    let change: AuditChange = parse(value, number)?;
                    if change.kind.as_deref().unwrap_or("repair") != "repair" {
                        continue;
                    }
                    let count = change.count.unwrap_or(1);
                    if let (Some(table), Some(column)) = (&change.table, &change.column) {
                        let key = (change.path.clone(), table.clone(), column.clone());
                        *audit_columns.entry(key).or_default() += count;
                    }
                    self.add_sequence(
                        change.original,
                        change.replacement,
                        change.reading,
                        change.layers,
                        count,
                    );
                }
                (SourceKind::Audit, "file") => {
                    let file: AuditFile = parse(value, number)?;
                    note_path(&mut source.paths, &file.path);
                    self.files.push(FileRow {
                        path: file.path,
                        source: index,
                        bytes: file.bytes_before,
                        double_encoded: file.double_encoded,
                        left_alone: file.left_alone,
                        valid_utf8: file.valid_utf8,
                        by_reading: file.by_reading,
                        by_layers: file.by_layers,
                        rewritten: Some(file.rewritten),
                        ..FileRow::default()
                    });
                }
                (SourceKind::Audit, "end") => source.finished = true,
                (_, other) => {
                    return Err(ReadError {
                        line: number,
                        message: format!(
                            "a record of type '{other}', which {} does not write",
                            match source.kind {
                                SourceKind::Scan => "scan --json",
                                SourceKind::Audit => "an audit log",
                            }
                        ),
                    });
                }
            }
        }
        if source.records == 0 {
            return Err(ReadError {
                line: 0,
                message: "no records: not the output of scan --json or an audit log".into(),
            });
        }
        for ((path, table, column), double_encoded) in audit_columns {
            self.columns.push(ColumnRow {
                path,
                table,
                column,
                double_encoded,
                ..ColumnRow::default()
            });
        }
        self.sources.push(source);
        Ok(())
    }

    fn scan_file(&mut self, file: ScanFile, index: usize, source: &mut Source) {
        note_path(&mut source.paths, &file.path);
        self.sequences_are_tops = true;
        for seq in file.top_sequences {
            self.add_sequence(
                seq.mojibake,
                seq.repaired,
                seq.reading,
                seq.layers,
                seq.count,
            );
        }
        let mut row = FileRow {
            path: file.path.clone(),
            source: index,
            bytes: file.bytes,
            double_encoded: file.double_encoded,
            left_alone: file.left_alone,
            fine_non_ascii: Some(file.fine_non_ascii),
            valid_utf8: file.valid_utf8,
            by_reading: file.by_reading,
            by_layers: file.by_layers,
            ..FileRow::default()
        };
        if let Some(encoding) = file.encoding {
            row.declared = encoding
                .declared
                .iter()
                .find_map(|d| d.encoding.clone().or(d.label.clone()));
            if let Some(detected) = encoding.actual.detected {
                row.actual = detected.encoding;
                row.guessed = detected.guess;
            }
            for storage in encoding.storage {
                if let Some(label) = storage.label.or(storage.encoding)
                    && !row.storage.contains(&label)
                {
                    row.storage.push(label);
                }
            }
            row.notes = encoding
                .diagnostics
                .into_iter()
                .filter_map(|d| d.message)
                .chain(encoding.fix)
                .collect();
        }
        if let Some(dump) = file.dump {
            row.dialect = Some(dump.dialect);
            for table in dump.tables {
                for column in table.columns {
                    self.columns.push(ColumnRow {
                        path: file.path.clone(),
                        table: table.table.clone(),
                        column: column.column,
                        declared: column.declared,
                        cells: Some(column.cells),
                        damaged_cells: Some(column.double_encoded_cells),
                        double_encoded: column.double_encoded,
                        left_alone: column.left_alone,
                    });
                }
            }
        }
        self.files.push(row);
    }

    fn add_sequence(
        &mut self,
        mojibake: String,
        repaired: String,
        reading: String,
        layers: u64,
        count: u64,
    ) {
        *self
            .sequences
            .entry((mojibake, repaired, reading, layers))
            .or_default() += count;
    }

    /// The `top` most frequent sequences, most frequent first (ties in the order of their
    /// text, so that the page is the same on every run).
    pub fn top_sequences(&self, top: usize) -> Vec<SequenceRow> {
        let mut rows: Vec<SequenceRow> = self
            .sequences
            .iter()
            .map(
                |((mojibake, repaired, reading, layers), count)| SequenceRow {
                    mojibake: mojibake.clone(),
                    repaired: repaired.clone(),
                    reading: reading.clone(),
                    layers: *layers,
                    count: *count,
                },
            )
            .collect();
        rows.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.mojibake.cmp(&b.mojibake))
                .then_with(|| a.reading.cmp(&b.reading))
                .then_with(|| a.layers.cmp(&b.layers))
        });
        rows.truncate(top);
        rows
    }

    /// How many distinct sequences the inputs hold.
    pub fn distinct_sequences(&self) -> usize {
        self.sequences.len()
    }

    /// The sums over every file and column.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals::default();
        for file in &self.files {
            totals.files += 1;
            totals.bytes += file.bytes;
            totals.double_encoded += file.double_encoded;
            totals.left_alone += file.left_alone;
            totals.fine_non_ascii += file.fine_non_ascii.unwrap_or(0);
            totals.damaged_files += u64::from(file.double_encoded > 0);
            add_all(&mut totals.by_reading, &file.by_reading);
            add_all(&mut totals.by_layers, &file.by_layers);
        }
        totals.damaged_columns = self
            .columns
            .iter()
            .filter(|column| column.double_encoded > 0)
            .count() as u64;
        totals
    }
}

fn add_all(into: &mut ByName, from: &ByName) {
    for (name, n) in from {
        *into.entry(name.clone()).or_default() += n;
    }
}

fn note_path(paths: &mut Vec<String>, path: &str) {
    if !paths.iter().any(|p| p == path) {
        paths.push(path.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCAN: &str = r#"{"type":"file","path":"a.sql","bytes":10,"valid_utf8":true,"double_encoded":3,"left_alone":1,"fine_non_ascii":2,"by_reading":{"either":3},"by_layers":{"1":3},"top_sequences":[{"mojibake":"Ã©","repaired":"é","reading":"either","layers":1,"count":3}],"encoding":{"declared":[{"encoding":"UTF-8","label":"utf8mb4"}],"actual":{"detected":{"encoding":"UTF-8","guess":false}},"storage":[{"label":"latin1"},{"label":"latin1"}],"diagnostics":[]},"dump":{"dialect":"mysql","tables":[{"table":"t","columns":[{"column":"c","type":"text","cells":4,"double_encoded_cells":2,"double_encoded":3,"left_alone":1}]}]},"future_field":1}
{"type":"skipped","path":"b.bin","reason":"binary"}
{"type":"total","double_encoded":3,"files":1}
"#;

    const AUDIT: &str = r#"{"type":"header","schema":3,"command_line":["undouble","fix","a.sql"]}
{"type":"change","path":"/x/a.sql","kind":"charset","original":"latin1","replacement":"utf8mb4"}
{"type":"change","path":"/x/a.sql","kind":"repair","table":"t","column":"c","original":"Ã©","replacement":"é","reading":"either","layers":1}
{"type":"file","path":"/x/a.sql","rewritten":true,"bytes_before":10,"double_encoded":1,"by_reading":{"either":1}}
{"type":"end","files":1,"rewritten":1}
"#;

    #[test]
    fn scans_and_audit_logs_merge() {
        let mut merged = Merged::default();
        assert!(merged.read("scan.jsonl", SCAN).is_ok());
        assert!(merged.read("fix.jsonl", AUDIT).is_ok());
        assert_eq!(merged.sources[0].kind, SourceKind::Scan);
        assert_eq!(merged.sources[1].kind, SourceKind::Audit);
        assert!(merged.sources[1].finished);
        assert_eq!(merged.sources[1].command_line, ["undouble", "fix", "a.sql"]);
        let totals = merged.totals();
        assert_eq!(totals.files, 2);
        assert_eq!(totals.double_encoded, 4);
        assert_eq!(totals.by_reading.get("either"), Some(&4));
        assert_eq!(merged.files[0].storage, ["latin1"]);
        assert_eq!(merged.files[0].declared.as_deref(), Some("UTF-8"));
        assert_eq!(merged.files[1].rewritten, Some(true));
        assert_eq!(merged.columns.len(), 2);
        assert_eq!(merged.columns[1].double_encoded, 1);
        assert_eq!(merged.problems.len(), 1);
        // The charset rewrite is no sequence; the repair adds to the scan's.
        let top = merged.top_sequences(10);
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].count, 4);
    }

    #[test]
    fn a_line_that_is_not_a_record_is_an_error_with_its_line() {
        let mut merged = Merged::default();
        let Err(error) = merged.read("x", "{\"type\":\"file\",\"path\":\"a\"}\nnot json\n") else {
            panic!("read a line that is not JSON");
        };
        assert_eq!(error.line, 2);
        let Err(error) = merged.read("x", "{\"type\":\"file\",\"bytes\":\"many\"}") else {
            panic!("read a count that is not a number");
        };
        assert_eq!(error.line, 1);
        assert!(merged.read("empty", "\n").is_err());
        assert!(merged.read("other", "{\"type\":\"weather\"}").is_err());
    }
}
