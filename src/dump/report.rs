//! The per-table, per-column view of a dump: which columns hold double-encoded text, how much,
//! read how and how many times, and one row to look at — what a DBA needs to plan a repair.

use serde_json::{Map, Value, json};

use super::schema::{ColumnKind, Schema};
use super::sink::Findings;
use crate::charset::SqlDialect;
use crate::mojibake::{Counts, Readings};
use crate::report::thousands;

/// One column of a dump.
#[derive(Debug)]
pub struct ColumnReport {
    pub name: String,
    /// The type as declared (`varchar(255)`).
    pub declared: String,
    pub kind: ColumnKind,
    /// Values read (`NULL` included).
    pub cells: u64,
    /// Values with at least one repaired run.
    pub double_encoded_cells: u64,
    /// What the runs inside the column's values hold, as `scan` counts a file.
    pub counts: Counts,
    /// The first row with double-encoded text: `id=42` (its primary key), or `row 17` (its
    /// number in the table's data, from 1) when the table declares no key.
    pub example_row: Option<String>,
}

/// One table of a dump.
#[derive(Debug)]
pub struct TableReport {
    pub name: String,
    pub rows: u64,
    pub primary_key: Vec<String>,
    pub columns: Vec<ColumnReport>,
}

/// What a dump holds, as a whole and per table and column.
#[derive(Debug)]
pub struct DumpReport {
    pub dialect: SqlDialect,
    /// The whole file, as `scan` counts it (runs outside text values count as left alone).
    pub counts: Counts,
    pub tables: Vec<TableReport>,
    /// Character set declarations rewritten by `--convert-charset`.
    pub charset_edits: u64,
}

/// How a row is shown: `id=42`, `a=1, b=x`, or `row 17`.
fn row_label(key_names: &[String], ordinal: u64, key: &[u8]) -> String {
    if key_names.is_empty() || key.is_empty() {
        return format!("row {ordinal}");
    }
    let parts: Vec<String> = key_names
        .iter()
        .zip(key.split(|&b| b == 0))
        .map(|(name, value)| format!("{name}={}", String::from_utf8_lossy(value)))
        .collect();
    parts.join(", ")
}

pub(crate) fn dialect_name(dialect: SqlDialect) -> &'static str {
    match dialect {
        SqlDialect::MySql => "mysql",
        SqlDialect::PostgreSql => "postgresql",
    }
}

impl DumpReport {
    pub(crate) fn new(dialect: SqlDialect, schema: Schema, mut findings: Findings) -> DumpReport {
        let mut tables = Vec::with_capacity(schema.tables.len());
        for (t, table) in schema.tables.into_iter().enumerate() {
            let primary_key: Vec<String> = table
                .primary_key
                .iter()
                .map(|&c| table.columns[c].name.clone())
                .collect();
            let mut found = match findings.columns.get_mut(t) {
                Some(columns) => std::mem::take(columns),
                None => Vec::new(),
            };
            found.resize_with(table.columns.len(), Default::default);
            let columns = table
                .columns
                .into_iter()
                .zip(found)
                .map(|(column, found)| ColumnReport {
                    name: column.name,
                    declared: column.declared,
                    kind: column.kind,
                    cells: column.cells,
                    double_encoded_cells: found.broken_cells,
                    counts: found.counts,
                    example_row: found
                        .example
                        .map(|(ordinal, key)| row_label(&primary_key, ordinal, &key)),
                })
                .collect();
            tables.push(TableReport {
                name: table.name,
                rows: table.rows,
                primary_key,
                columns,
            });
        }
        DumpReport {
            dialect,
            counts: findings.counts,
            tables,
            charset_edits: findings.edits,
        }
    }

    /// Whether a fix changes anything: a repair, or a character set rewrite.
    pub fn changed(&self) -> bool {
        self.counts.double_encoded > 0 || self.charset_edits > 0
    }

    /// The tables and columns as JSON: `{"dialect", "charset_edits", "tables": [{"table",
    /// "rows", "primary_key", "columns": [{"column", "type", "kind", "cells",
    /// "double_encoded_cells", "double_encoded", "by_reading", "by_layers", "left_alone",
    /// "example_row"}]}]}`.
    pub fn json(&self, readings: &Readings) -> Value {
        let tables: Vec<Value> = self
            .tables
            .iter()
            .map(|table| {
                let columns: Vec<Value> = table
                    .columns
                    .iter()
                    .map(|c| {
                        let by_layers: Map<String, Value> = c
                            .counts
                            .by_layers()
                            .iter()
                            .map(|(layers, n)| (layers.to_string(), json!(n)))
                            .collect();
                        json!({
                            "column": c.name,
                            "type": c.declared,
                            "kind": c.kind,
                            "cells": c.cells,
                            "double_encoded_cells": c.double_encoded_cells,
                            "double_encoded": c.counts.double_encoded,
                            "by_reading": c.counts.by_reading_names(readings),
                            "by_layers": by_layers,
                            "left_alone": c.counts.left_alone,
                            "example_row": c.example_row,
                        })
                    })
                    .collect();
                json!({
                    "table": table.name,
                    "rows": table.rows,
                    "primary_key": table.primary_key,
                    "columns": columns,
                })
            })
            .collect();
        json!({
            "dialect": dialect_name(self.dialect),
            "charset_edits": self.charset_edits,
            "tables": tables,
        })
    }

    /// The tables and columns for a person, one line per column; with `damaged_only`, only
    /// the columns that hold double-encoded text.
    pub fn text(&self, readings: &Readings, damaged_only: bool) -> String {
        let mut out = String::new();
        for table in &self.tables {
            let columns: Vec<&ColumnReport> = table
                .columns
                .iter()
                .filter(|c| !damaged_only || c.double_encoded_cells > 0)
                .collect();
            if columns.is_empty() {
                continue;
            }
            out += &format!("  table {}: {} rows\n", table.name, thousands(table.rows));
            for c in columns {
                out += &format!(
                    "    {} ({}, {}): {} cells",
                    c.name,
                    c.declared,
                    match c.kind {
                        ColumnKind::Text => "text",
                        ColumnKind::Binary => "binary",
                        ColumnKind::Other => "other",
                    },
                    thousands(c.cells)
                );
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
                        ", {} with double-encoded text ({} characters: {}; layers {})",
                        thousands(c.double_encoded_cells),
                        thousands(c.counts.double_encoded),
                        readings_part.join(", "),
                        layers_part.join(", ")
                    );
                    if let Some(row) = &c.example_row {
                        out += &format!(", e.g. {row}");
                    }
                }
                let left_alone = thousands(c.counts.left_alone);
                match (c.counts.left_alone, c.kind) {
                    (0, _) => {}
                    (_, ColumnKind::Text) => {
                        out += &format!(", {left_alone} look-alikes left alone")
                    }
                    (_, _) => {
                        out += &format!(
                            ", {left_alone} runs that look double-encoded, kept as they are"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_labels() {
        assert_eq!(row_label(&[], 17, b""), "row 17");
        assert_eq!(row_label(&["id".into()], 17, b"42"), "id=42");
        assert_eq!(row_label(&["a".into(), "b".into()], 1, b"1\0x"), "a=1, b=x");
        assert_eq!(row_label(&["id".into()], 3, b""), "row 3");
    }
}
