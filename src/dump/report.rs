//! The per-table, per-column view of a dump: which columns hold double-encoded text, how much,
//! read how and how many times, and one row to look at — what a DBA needs to plan a repair.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::schema::{ColumnKind, Schema, Table};
use super::sink::Findings;
use super::{Charset, Unloadable};
use crate::format::{count, thousands};
use crate::mojibake::{Counts, Readings};
use crate::sql::SqlDialect;

/// One column of a dump.
#[derive(Debug)]
pub struct ColumnReport {
    pub name: String,
    /// The type as declared (`varchar(255)`).
    pub declared: String,
    pub kind: ColumnKind,
    /// Values read (`NULL` included).
    pub cells: u64,
    /// Those of them that are `NULL`.
    pub null_cells: u64,
    /// Values with at least one repaired run.
    pub double_encoded_cells: u64,
    /// What the runs inside the column's values hold, as `scan` counts a file.
    pub counts: Counts,
    /// The first row with double-encoded text: `id=42` (its primary key), or `row 17` (its
    /// number in the table's data, from 1) when the table's key is not known (see [`RowId`]).
    pub example_row: Option<String>,
    /// For a text column stored in a single-byte character set (MySQL's `latin1`, `cp1251`,
    /// ...), that set.
    pub single_byte: Option<String>,
}

/// One table of a dump.
#[derive(Debug)]
pub struct TableReport {
    pub name: String,
    pub rows: u64,
    pub primary_key: Vec<String>,
    pub columns: Vec<ColumnReport>,
    /// Whether a `--schema` dump defines it, not the dump itself.
    pub from_schema_dump: bool,
}

/// What a dump holds, as a whole and per table and column: the tables it defines, and those of
/// the `--schema` dumps it has rows for.
#[derive(Debug)]
pub struct DumpReport {
    pub dialect: SqlDialect,
    /// The whole file, as `scan` counts it (runs outside text values count as left alone),
    /// but for the runs inside binary values.
    pub counts: Counts,
    /// Runs inside binary values (a blob, a `bytea`, a `_binary` string): bytes that look
    /// double-encoded, kept as they are. The rule did not leave them alone, it never judged
    /// them: they are no look-alikes.
    pub binary_runs: u64,
    pub tables: Vec<TableReport>,
    /// Character set declarations rewritten by `--convert-charset`.
    pub charset_edits: u64,
    /// Of a range ([`crate::Settings::range`]): its first and last cells with a repair.
    pub broken_cell_ends: Option<BrokenCellEnds>,
}

/// A value of a dump with a repair, as a range's report names it: the lexer's number for the
/// value (counted from the dump's start, the same in every range), its table (its place in the
/// report's list, which a range's report keeps whole) and its column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenCell {
    pub cell: u64,
    pub table: usize,
    pub column: usize,
}

/// The first and the last value with a repair in a range of a dump (the first's column too):
/// a value cut between two ranges is one double-encoded cell, though both ranges count it, and
/// `merge` takes one off when the earlier range's last is the later range's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenCellEnds {
    pub first: BrokenCell,
    pub last: u64,
}

/// A dump's tables and columns as `scan --json` prints them (the `dump` of a `file` record):
/// [`DumpReport::record`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpRecord {
    /// `mysql` or `postgresql`.
    pub dialect: String,
    pub charset_edits: u64,
    pub binary_runs: u64,
    pub tables: Vec<TableRecord>,
    /// Of a range: its first and last cells with a repair, for `merge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken_cell_ends: Option<BrokenCellEnds>,
}

/// One table of a [`DumpRecord`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRecord {
    pub table: String,
    pub rows: u64,
    pub primary_key: Vec<String>,
    pub from_schema_dump: bool,
    pub columns: Vec<ColumnRecord>,
}

/// One column of a [`TableRecord`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnRecord {
    pub column: String,
    /// The type as declared (`varchar(255)`).
    #[serde(rename = "type")]
    pub declared: String,
    pub kind: ColumnKind,
    pub cells: u64,
    pub null_cells: u64,
    pub double_encoded_cells: u64,
    pub double_encoded: u64,
    pub by_reading: BTreeMap<String, u64>,
    /// By number of layers, written as a string (`"1"`, `"2"`): JSON keys are strings.
    pub by_layers: BTreeMap<String, u64>,
    pub left_alone: u64,
    /// A row that holds double-encoded text (`id=42`, `row 17`).
    pub example_row: Option<String>,
}

/// Where a repair in a SQL dump lies: the value of a table's column in one row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub table: String,
    pub column: String,
    pub row: RowId,
}

/// Which row of a table a value belongs to: its primary key where the key is known as the
/// table's data is read (the `CREATE TABLE` declares it, or an `ALTER TABLE` before the data,
/// or a `--schema` dump; or the `ALTER TABLE` after the data of a full `pg_dump` read from a
/// file, found ahead of it), its number in the table's data otherwise. `scan` shows it as an example row (`id=42`,
/// `a=1, b=x`, `row 17`) and the audit log records it for every change in a dump
/// (`{"id":"42"}`, `17`), so that both name a row the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowId {
    /// The key's columns and their values as the dump writes them (escapes kept), in the
    /// key's order.
    Key(Vec<(String, String)>),
    /// The row's number in its table's data, from 1: the table's primary key is not known
    /// (none is declared, or a full `pg_dump`'s comes through a pipe, after the data), or the
    /// key was not read with the value (it lies after it, beyond the buffer being read).
    Ordinal(u64),
}

impl RowId {
    /// The row numbered `ordinal` whose key is `key`: the values of the columns `key_names`, in
    /// that order, separated by NUL (empty when the table has no key or it was not read).
    pub(crate) fn new(key_names: &[String], ordinal: u64, key: &[u8]) -> RowId {
        if key_names.is_empty() || key.is_empty() {
            return RowId::Ordinal(ordinal);
        }
        let parts = key_names
            .iter()
            .zip(key.split(|&b| b == 0))
            .map(|(name, value)| (name.clone(), String::from_utf8_lossy(value).into_owned()))
            .collect();
        RowId::Key(parts)
    }
}

impl fmt::Display for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowId::Ordinal(ordinal) => write!(f, "row {ordinal}"),
            RowId::Key(parts) => {
                for (i, (name, value)) in parts.iter().enumerate() {
                    let separator = if i == 0 { "" } else { ", " };
                    write!(f, "{separator}{name}={value}")?;
                }
                Ok(())
            }
        }
    }
}

/// A key as a JSON object (its columns in the key's order), a number as a number.
impl Serialize for RowId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RowId::Ordinal(ordinal) => serializer.serialize_u64(*ordinal),
            RowId::Key(parts) => {
                let mut map = serializer.serialize_map(Some(parts.len()))?;
                for (name, value) in parts {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for RowId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RowId, D::Error> {
        struct RowIdVisitor;

        impl<'de> Visitor<'de> for RowIdVisitor {
            type Value = RowId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a row number or an object of key columns and values")
            }

            fn visit_u64<E: de::Error>(self, ordinal: u64) -> Result<RowId, E> {
                Ok(RowId::Ordinal(ordinal))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RowId, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = map.next_entry::<String, String>()? {
                    parts.push(part);
                }
                Ok(RowId::Key(parts))
            }
        }

        deserializer.deserialize_any(RowIdVisitor)
    }
}

/// The names of the columns of `table`'s primary key, in the key's order.
fn primary_key_names(table: &Table) -> Vec<String> {
    names_of(table, &table.primary_key)
}

/// The names of the columns of `table`'s primary key in the order a row gives their values,
/// which is how the lexer reads a key: the table's order (`mysqldump` and `pg_dump` write the
/// values of every row in it), not necessarily the key's (`PRIMARY KEY (b, a)`).
pub(crate) fn key_names_in_row_order(table: &Table) -> Vec<String> {
    let mut columns = table.primary_key.clone();
    columns.sort_unstable();
    names_of(table, &columns)
}

fn names_of(table: &Table, columns: &[usize]) -> Vec<String> {
    columns
        .iter()
        .filter_map(|&c| table.columns.get(c))
        .map(|column| column.name.clone())
        .collect()
}

pub(crate) fn dialect_name(dialect: SqlDialect) -> &'static str {
    match dialect {
        SqlDialect::MySql => "mysql",
        SqlDialect::PostgreSql => "postgresql",
    }
}

impl DumpReport {
    /// The report of what the lexer read into `schema` and the sink found; the tables of the
    /// `--schema` dumps the dump has no rows for are left out, unless `every_table` is asked.
    pub(crate) fn new(
        dialect: SqlDialect,
        schema: Schema,
        mut findings: Findings,
        every_table: bool,
    ) -> DumpReport {
        let broken_cell_ends = every_table.then(|| findings.broken_cell_ends()).flatten();
        let mut tables = Vec::with_capacity(schema.tables.len());
        for (t, table) in schema.tables.into_iter().enumerate() {
            let from_schema_dump = t < schema.borrowed;
            if from_schema_dump && table.rows == 0 && !every_table {
                continue;
            }
            let primary_key = primary_key_names(&table);
            let key_in_row_order = key_names_in_row_order(&table);
            let mut found = match findings.columns.get_mut(t) {
                Some(columns) => std::mem::take(columns),
                None => Vec::new(),
            };
            found.resize_with(table.columns.len(), Default::default);
            let single_byte: Vec<Option<String>> = (0..table.columns.len())
                .map(|c| table.single_byte_text(c).map(str::to_owned))
                .collect();
            let columns = table
                .columns
                .into_iter()
                .zip(found)
                .zip(single_byte)
                .map(|((column, found), single_byte)| ColumnReport {
                    name: column.name,
                    declared: column.declared,
                    kind: column.kind,
                    cells: column.cells,
                    null_cells: column.nulls,
                    double_encoded_cells: found.broken_cells,
                    counts: found.counts,
                    example_row: found.example.map(|(ordinal, key)| {
                        RowId::new(&key_in_row_order, ordinal, &key).to_string()
                    }),
                    single_byte,
                })
                .collect();
            tables.push(TableReport {
                name: table.name,
                rows: table.rows,
                primary_key,
                columns,
                from_schema_dump,
            });
        }
        DumpReport {
            dialect,
            counts: findings.counts,
            binary_runs: findings.binary_runs,
            charset_edits: findings.edits,
            broken_cell_ends,
            tables,
        }
    }

    /// Whether a fix changes anything: a repair, or a character set rewrite.
    pub(crate) fn changed(&self) -> bool {
        self.counts.changes() > 0 || self.charset_edits > 0
    }

    /// The columns into which a fix with `convert_charset` and `keep_charset` repairs text that
    /// stays stored in a single-byte character set: what makes `fix` refuse to write the dump.
    pub(crate) fn unloadable(
        &self,
        convert_charset: Option<Charset>,
        keep_charset: bool,
    ) -> Vec<Unloadable> {
        let columns = self.tables.iter().flat_map(|table| {
            table.columns.iter().map(|c| {
                let charset = c.single_byte.as_deref();
                (
                    table.name.as_str(),
                    c.name.as_str(),
                    charset,
                    c.counts.double_encoded,
                )
            })
        });
        let loads_into = |charset: &str| super::loads_into(convert_charset, keep_charset, charset);
        super::unloadable(columns, loads_into)
    }

    /// The warning of `scan` and `fix --dry-run` when a fix with `convert_charset` and
    /// `keep_charset` would refuse to write the dump ([`DumpReport::unloadable`]).
    pub(crate) fn refusal_warning(
        &self,
        convert_charset: Option<Charset>,
        keep_charset: bool,
    ) -> Option<String> {
        let columns = self.unloadable(convert_charset, keep_charset);
        let verb = match convert_charset.is_some() || keep_charset {
            true => "fix with these options",
            false => "fix",
        };
        (!columns.is_empty()).then(|| {
            format!(
                "{verb} would refuse to write this dump: {}",
                super::unloadable_text(&columns)
            )
        })
    }

    /// Whether the dump has rows for tables that only a `--schema` dump defines: their
    /// character sets are declared there, out of reach of `--convert-charset` on this dump.
    pub(crate) fn has_rows_of_schema_dump_tables(&self) -> bool {
        self.tables.iter().any(|table| table.from_schema_dump)
    }

    /// The tables and columns as `scan --json` prints them, reading names taken from
    /// `readings`.
    pub fn record(&self, readings: &Readings) -> DumpRecord {
        let column = |c: &ColumnReport| ColumnRecord {
            column: c.name.clone(),
            declared: c.declared.clone(),
            kind: c.kind,
            cells: c.cells,
            null_cells: c.null_cells,
            double_encoded_cells: c.double_encoded_cells,
            double_encoded: c.counts.double_encoded,
            by_reading: c.counts.by_reading_keyed(readings),
            by_layers: c.counts.by_layers_keyed(),
            left_alone: c.counts.left_alone,
            example_row: c.example_row.clone(),
        };
        let table = |t: &TableReport| TableRecord {
            table: t.name.clone(),
            rows: t.rows,
            primary_key: t.primary_key.clone(),
            from_schema_dump: t.from_schema_dump,
            columns: t.columns.iter().map(column).collect(),
        };
        DumpRecord {
            dialect: dialect_name(self.dialect).to_owned(),
            charset_edits: self.charset_edits,
            binary_runs: self.binary_runs,
            tables: self.tables.iter().map(table).collect(),
            broken_cell_ends: self.broken_cell_ends,
        }
    }

    /// The tables and columns for a person, one line per column; with `damaged_only`, only
    /// the columns that hold double-encoded text.
    pub fn text(&self, readings: &Readings, damaged_only: bool) -> String {
        let mut out = String::new();
        if self.binary_runs > 0 {
            out += &format!(
                "  {} of double-encoded shape in binary values: kept as they are, \
                 byte for byte, and not counted as look-alikes\n",
                count(self.binary_runs, "run")
            );
        }
        for table in &self.tables {
            let columns: Vec<&ColumnReport> = table
                .columns
                .iter()
                .filter(|c| !damaged_only || c.double_encoded_cells > 0)
                .collect();
            if columns.is_empty() {
                continue;
            }
            let defined_by = match table.from_schema_dump {
                true => " (as the --schema dump defines it)",
                false => "",
            };
            out += &format!(
                "  table {}: {}{defined_by}\n",
                table.name,
                count(table.rows, "row")
            );
            for c in columns {
                out += &format!(
                    "    {} ({}, {}): {}",
                    c.name,
                    c.declared,
                    match c.kind {
                        ColumnKind::Text => "text",
                        ColumnKind::Binary => "binary",
                        ColumnKind::Other => "other",
                    },
                    count(c.cells, "cell")
                );
                if c.null_cells > 0 {
                    out += &format!(" ({} NULL)", thousands(c.null_cells));
                }
                if c.double_encoded_cells > 0 {
                    let readings_part: Vec<String> = c
                        .counts
                        .by_reading_names(readings)
                        .iter()
                        .map(|(r, n)| format!("{r} {}", thousands(*n)))
                        .collect();
                    let layers_part: Vec<String> = c
                        .counts
                        .by_layers()
                        .iter()
                        .map(|(l, n)| format!("{l}× {}", thousands(*n)))
                        .collect();
                    out += &format!(
                        ", {} with double-encoded text ({}: {}; layers {})",
                        thousands(c.double_encoded_cells),
                        count(c.counts.double_encoded, "character"),
                        readings_part.join(", "),
                        layers_part.join(", ")
                    );
                    if let Some(row) = &c.example_row {
                        out += &format!(", e.g. {row}");
                    }
                }
                let left_alone = count(c.counts.left_alone, "look-alike");
                match (c.counts.left_alone, c.kind) {
                    (0, _) => {}
                    (_, ColumnKind::Text) => out += &format!(", {left_alone} left alone"),
                    (_, _) => {
                        out += &format!(
                            ", {} of double-encoded shape, kept as they are",
                            count(c.counts.left_alone, "run")
                        )
                    }
                }
                out.push('\n');
            }
        }
        if self.charset_edits > 0 {
            out += &format!(
                "  {} character set declarations rewritten\n",
                thousands(self.charset_edits)
            );
        }
        out
    }
}

impl DumpRecord {
    /// The dump record of a whole dump from those of its ranges, in input order: what a whole run
    /// reports. The tables of `--schema` dumps that no range has rows for are left out, as a whole
    /// run leaves them out.
    pub fn join(ranges: &[&DumpRecord]) -> Result<DumpRecord, String> {
        let Some((first, rest)) = ranges.split_first() else {
            return Err("no range".into());
        };
        let mut joined = (*first).clone();
        for next in rest {
            joined = join_two(joined, next)?;
        }
        joined
            .tables
            .retain(|table| !table.from_schema_dump || table.rows > 0);
        Ok(joined)
    }
}

/// The dump record of two ranges of a dump, `so_far` before `next`. The tables of a range's
/// record are every table defined before its end, in the order they were defined (and their
/// columns, in theirs): the later range's list goes on from the earlier's, and its view of a
/// table (the key, the types) is the later one, which a whole run reports. Counts are summed;
/// the example row is the earlier range's, as the whole run's is the first it met.
fn join_two(so_far: DumpRecord, next: &DumpRecord) -> Result<DumpRecord, String> {
    if so_far.dialect != next.dialect {
        return Err(format!(
            "read as {} and as {}",
            so_far.dialect, next.dialect
        ));
    }
    if so_far.tables.len() > next.tables.len() {
        return Err("a later range knows fewer tables than an earlier one".into());
    }
    let mut earlier = so_far.tables.into_iter();
    let mut tables = Vec::with_capacity(next.tables.len());
    for later in &next.tables {
        let Some(before) = earlier.next() else {
            tables.push(later.clone());
            continue;
        };
        tables.push(join_tables(before, later)?);
    }
    // A value cut between the two, with a repair on both sides: one double-encoded cell.
    let ends = match (so_far.broken_cell_ends, next.broken_cell_ends) {
        (Some(before), Some(after)) => {
            let first = after.first;
            if before.last == first.cell
                && let Some(column) = tables
                    .get_mut(first.table)
                    .and_then(|table| table.columns.get_mut(first.column))
            {
                column.double_encoded_cells = column.double_encoded_cells.saturating_sub(1);
            }
            Some(BrokenCellEnds {
                first: before.first,
                last: after.last,
            })
        }
        (before, after) => before.or(after),
    };
    Ok(DumpRecord {
        dialect: so_far.dialect,
        charset_edits: so_far.charset_edits + next.charset_edits,
        binary_runs: so_far.binary_runs + next.binary_runs,
        tables,
        broken_cell_ends: ends,
    })
}

/// One table of [`DumpRecord::join`].
fn join_tables(before: TableRecord, later: &TableRecord) -> Result<TableRecord, String> {
    if before.table != later.table || before.columns.len() > later.columns.len() {
        return Err(format!(
            "table {} in one range is {} in the next",
            before.table, later.table
        ));
    }
    let mut earlier = before.columns.into_iter();
    let mut columns = Vec::with_capacity(later.columns.len());
    for column in &later.columns {
        let Some(c) = earlier.next() else {
            columns.push(column.clone());
            continue;
        };
        if c.column != column.column {
            return Err(format!(
                "column {}.{} in one range is {} in the next",
                before.table, c.column, column.column
            ));
        }
        columns.push(ColumnRecord {
            cells: c.cells + column.cells,
            null_cells: c.null_cells + column.null_cells,
            double_encoded_cells: c.double_encoded_cells + column.double_encoded_cells,
            double_encoded: c.double_encoded + column.double_encoded,
            by_reading: add_keyed(c.by_reading, &column.by_reading),
            by_layers: add_keyed(c.by_layers, &column.by_layers),
            left_alone: c.left_alone + column.left_alone,
            example_row: c.example_row.or_else(|| column.example_row.clone()),
            ..column.clone()
        });
    }
    Ok(TableRecord {
        rows: before.rows + later.rows,
        columns,
        ..later.clone()
    })
}

/// `b`'s counts added to `a`'s, key by key.
pub(crate) fn add_keyed(
    mut a: BTreeMap<String, u64>,
    b: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    for (key, n) in b {
        *a.entry(key.clone()).or_default() += n;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key_names: &[&str], ordinal: u64, key: &[u8]) -> RowId {
        let names: Vec<String> = key_names.iter().map(|&n| n.to_owned()).collect();
        RowId::new(&names, ordinal, key)
    }

    #[test]
    fn rows_are_named_by_key_or_number() {
        assert_eq!(row(&[], 17, b"").to_string(), "row 17");
        assert_eq!(row(&["id"], 17, b"42").to_string(), "id=42");
        assert_eq!(row(&["a", "b"], 1, b"1\0x").to_string(), "a=1, b=x");
        // A key not read with the value: the row's number.
        assert_eq!(row(&["id"], 3, b""), RowId::Ordinal(3));
    }

    #[test]
    fn a_key_is_read_in_the_order_of_the_columns() {
        let column = |name: &str| super::super::schema::Column {
            name: name.into(),
            declared: "int".into(),
            kind: ColumnKind::Other,
            cells: 0,
            nulls: 0,
            charset: None,
        };
        let table = Table {
            name: "t".into(),
            columns: vec![column("note"), column("a"), column("b")],
            primary_key: vec![2, 1],
            rows: 0,
            unknown_type: None,
            charset: None,
        };
        assert_eq!(primary_key_names(&table), ["b", "a"]);
        assert_eq!(key_names_in_row_order(&table), ["a", "b"]);
    }

    #[test]
    fn rows_in_json_keep_the_key_order_and_round_trip() {
        let composite = row(&["z", "a"], 1, b"1\0O\\'Brien");
        let json = serde_json::to_string(&composite).unwrap();
        assert_eq!(json, r#"{"z":"1","a":"O\\'Brien"}"#);
        assert_eq!(serde_json::from_str::<RowId>(&json).unwrap(), composite);
        let ordinal = row(&[], 17, b"");
        assert_eq!(serde_json::to_string(&ordinal).unwrap(), "17");
        assert_eq!(serde_json::from_str::<RowId>("17").unwrap(), ordinal);
        assert!(serde_json::from_str::<RowId>("\"17\"").is_err());
    }
}
