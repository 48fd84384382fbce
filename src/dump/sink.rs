//! The sink of a dump scan: it lets through, as found, only the runs that lie inside the value
//! of a text column (or a text literal of the DDL); every other run — in a number, an
//! identifier, a comment — goes on as a run left alone, except the runs inside binary values
//! (a blob, a `bytea`, a `_binary` string), which are bytes, never text the rule judged: they
//! are counted apart ([`Findings::binary_runs`]), not as look-alikes left alone. It counts the
//! runs in the values of text and binary columns per table and column, and with an output it
//! writes the repaired dump: the bytes of the buffer, the repair in place of each repaired run,
//! and the `--convert-charset` edits of the DDL. With a [`DumpAudit`], it tells the audit log the same
//! runs, each with the table, column and row it lies in, and the same edits, in the order it
//! writes them: the log describes exactly what was written.
//!
//! The scanner still judges every run on all the bytes around it, exactly as without dump
//! mode; the lexer only decides where a repair may land, so the dump-aware repair of a value
//! is the plain repair of that value, and nothing outside values ever changes.

use std::convert::Infallible;
use std::io::{self, Write};
use std::ops::Range;

use super::lexer::{Lexed, Place, Value};
use super::report::{BrokenCell, BrokenCellEnds};
use super::report::{Cell, RowId, key_names_in_row_order};
use super::schema::Table;
use crate::error::Error;
use crate::mojibake::counts::{CountingSink, Sequences};
use crate::mojibake::{Counts, Run, Sink};

/// What the audit log of a dump fix is told, in the order of the dump's bytes: every run as
/// the dump mode treats it (repaired only inside a text value), with the cell of a repaired
/// one, but for the runs inside binary values, which it does not count as left alone either;
/// every `--convert-charset` rewrite; the end of every buffer. A buffer is what the scanner
/// was given, and the buffers follow each other without gap or overlap.
pub trait DumpAudit {
    /// The next buffer starts at `base` in the dump (a range's first buffer is not at 0).
    fn begin(&mut self, base: u64);
    fn run(&mut self, buffer: &[u8], run: &Run<'_>, cell: Option<&Cell>) -> Result<(), Error>;
    /// `buffer[span]` was written as `replacement`.
    fn rewrite(
        &mut self,
        buffer: &[u8],
        span: Range<usize>,
        replacement: &[u8],
    ) -> Result<(), Error>;
    fn end(&mut self, buffer: &[u8]) -> Result<(), Error>;
}

/// A table as the audit log names its cells, taken from the lexer's schema when the table is
/// defined: the scanning thread cannot read the schema, which the lexing thread is growing.
#[derive(Debug)]
pub(crate) struct TableNames {
    pub name: String,
    columns: Vec<String>,
    /// In the order a row gives their values.
    primary_key: Vec<String>,
    /// For each column, the single-byte character set it stores text in, if it is a text
    /// column stored in one (see [`Table::storage`]).
    pub single_byte: Vec<Option<String>>,
}

impl TableNames {
    pub(crate) fn of(table: &Table) -> TableNames {
        let single_byte = (0..table.columns.len())
            .map(|c| table.single_byte_text(c).map(str::to_owned))
            .collect();
        TableNames {
            name: table.name.clone(),
            columns: table.columns.iter().map(|c| c.name.clone()).collect(),
            primary_key: key_names_in_row_order(table),
            single_byte,
        }
    }

    /// The name of the column at `index`.
    pub(crate) fn column(&self, index: usize) -> Option<&str> {
        self.columns.get(index).map(String::as_str)
    }
}

/// Why a dump could not be written: the output failed, or the audit log did.
#[derive(Debug)]
pub(crate) enum Failed {
    Output(io::Error),
    Audit(Error),
}

/// What was found in one column.
#[derive(Debug, Default)]
pub(crate) struct ColumnFindings {
    /// Cells with at least one repaired run.
    pub broken_cells: u64,
    /// The runs inside the column's values, as `scan` counts them.
    pub counts: Counts,
    /// The first row with a repaired run: its number in the table and its primary key.
    pub example: Option<(u64, Vec<u8>)>,
}

/// What the sink found in the whole dump.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// The runs outside binary values, as `scan` counts a file.
    pub counts: Counts,
    /// Runs inside binary values: kept as they are, whatever the rule would make of them.
    pub binary_runs: u64,
    /// By table, then column (indexes of the lexer's schema).
    pub columns: Vec<Vec<ColumnFindings>>,
    /// Character set declarations rewritten.
    pub edits: u64,
    /// The first and the last cell with a repaired run, and the column of the first: a cell
    /// cut between two buffers is one broken cell, though both buffers' findings saw it.
    first_broken_cell: Option<(u64, usize, usize)>,
    last_broken_cell: Option<u64>,
}

impl Findings {
    /// Adds the findings of the buffers that follow those of `self`, as if one sink had seen
    /// them all: the examples stay the earliest, and a broken cell that both saw counts once.
    pub(crate) fn merge(&mut self, later: Findings) {
        if let Some((cell, table, column)) = later.first_broken_cell {
            let first = &mut self.first_broken_cell;
            first.get_or_insert((cell, table, column));
            if self.last_broken_cell == Some(cell) {
                let counted_twice = self.column(table, column);
                counted_twice.broken_cells = counted_twice.broken_cells.saturating_sub(1);
            }
        }
        self.last_broken_cell = later.last_broken_cell.or(self.last_broken_cell);
        self.counts.merge(later.counts);
        self.binary_runs += later.binary_runs;
        self.edits += later.edits;
        for (table, columns) in later.columns.into_iter().enumerate() {
            for (column, found) in columns.into_iter().enumerate() {
                let into = self.column(table, column);
                into.broken_cells += found.broken_cells;
                into.counts.merge(found.counts);
                if into.example.is_none() {
                    into.example = found.example;
                }
            }
        }
    }

    /// The first cell with a repaired run (with its table and column) and the last: what a
    /// range's report carries, so that a cell cut between two ranges counts once when their
    /// reports are joined, as [`Findings::merge`] counts it once.
    pub(crate) fn broken_cell_ends(&self) -> Option<BrokenCellEnds> {
        let (cell, table, column) = self.first_broken_cell?;
        Some(BrokenCellEnds {
            first: BrokenCell {
                cell,
                table,
                column,
            },
            last: self.last_broken_cell.unwrap_or(cell),
        })
    }

    fn column(&mut self, table: usize, column: usize) -> &mut ColumnFindings {
        if self.columns.len() <= table {
            self.columns.resize_with(table + 1, Vec::new);
        }
        let columns = &mut self.columns[table];
        if columns.len() <= column {
            columns.resize_with(column + 1, ColumnFindings::default);
        }
        &mut columns[column]
    }
}

/// Filters, counts and (with an output) writes the runs of one buffer, and tells an audit log.
pub(crate) struct DumpSink<'a, W> {
    lexed: &'a Lexed,
    findings: &'a mut Findings,
    /// Offset of the buffer in the dump.
    base: u64,
    /// The first value that can still hold a run.
    next_value: usize,
    out: Option<&'a mut W>,
    audit: Option<&'a mut dyn DumpAudit>,
    /// Every table defined so far, by index in the lexer's schema.
    tables: &'a [TableNames],
    copied_to: usize,
    next_edit: usize,
    scratch: Vec<u8>,
    /// Whether the dump's counts list its garbled forms, or only their totals.
    sequences: Sequences,
}

impl<'a, W: Write> DumpSink<'a, W> {
    pub(crate) fn new(
        lexed: &'a Lexed,
        findings: &'a mut Findings,
        base: u64,
        out: Option<&'a mut W>,
        audit: Option<&'a mut dyn DumpAudit>,
        tables: &'a [TableNames],
        sequences: Sequences,
    ) -> DumpSink<'a, W> {
        DumpSink {
            lexed,
            findings,
            base,
            next_value: 0,
            out,
            audit,
            tables,
            copied_to: 0,
            next_edit: 0,
            scratch: Vec::new(),
            sequences,
        }
    }

    /// The table, column and row of a value, as the audit log names them.
    fn cell(&self, table: u32, column: u32, row: u32) -> Option<Cell> {
        let names = self.tables.get(table as usize)?;
        let row = self.lexed.rows.get(row as usize)?;
        let key = self.lexed.keys.get(row.key.clone()).unwrap_or_default();
        Some(Cell {
            table: names.name.clone(),
            column: names.columns.get(column as usize)?.clone(),
            row: RowId::new(&names.primary_key, row.ordinal, key),
        })
    }

    /// Counts `run` in the column of `value`, if it is a cell; the cell is counted as broken at
    /// its first repaired run, and the first row with a broken cell is kept as an example.
    fn count_in_column(&mut self, input: &[u8], run: &Run<'_>, value: &Value) {
        let (cell, Place::Cell { table, column, row }) = (value.cell, value.place) else {
            return;
        };
        let first_in_cell = run.repaired && self.findings.last_broken_cell != Some(cell);
        if first_in_cell {
            self.findings.last_broken_cell = Some(cell);
            let place = (cell, table as usize, column as usize);
            self.findings.first_broken_cell.get_or_insert(place);
        }
        let findings = self.findings.column(table as usize, column as usize);
        // The report lists no sequences by column: only their totals are counted.
        findings
            .counts
            .add_run(input, run, self.base, Sequences::Uncounted);
        if first_in_cell {
            findings.broken_cells += 1;
            if findings.example.is_none()
                && let Some(row) = self.lexed.rows.get(row as usize)
            {
                let key = self.lexed.keys.get(row.key.clone()).unwrap_or_default();
                findings.example = Some((row.ordinal, key.to_vec()));
            }
        }
    }

    /// The value that holds the whole of `run`, if any (text, or binary).
    fn value_of(&mut self, run: &Run<'_>) -> Option<&'a Value> {
        let lexed: &'a Lexed = self.lexed;
        lexed.value_holding(&mut self.next_value, &run.span)
    }

    /// Writes the input up to `to`, with the edits that lie before it (and logs them).
    fn copy_to(&mut self, input: &[u8], to: usize) -> Result<(), Failed> {
        while let Some(edit) = self.lexed.edits.get(self.next_edit)
            && edit.span.start < to
        {
            if let Some(audit) = self.audit.as_deref_mut() {
                let replacement = edit.text.as_bytes();
                audit
                    .rewrite(input, edit.span.clone(), replacement)
                    .map_err(Failed::Audit)?;
            }
            if let Some(out) = self.out.as_deref_mut() {
                out.write_all(&input[self.copied_to..edit.span.start])
                    .and_then(|()| out.write_all(edit.text.as_bytes()))
                    .map_err(Failed::Output)?;
            }
            self.copied_to = edit.span.end;
            self.next_edit += 1;
        }
        if let Some(out) = self.out.as_deref_mut() {
            out.write_all(&input[self.copied_to..to])
                .map_err(Failed::Output)?;
        }
        self.copied_to = to;
        Ok(())
    }
}

impl<W: Write> Sink for DumpSink<'_, W> {
    type Error = Failed;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Failed> {
        let value = self.value_of(run);
        let run = Run {
            span: run.span.clone(),
            chars: run.chars,
            verdict: run.verdict,
            repaired: run.repaired && value.is_some_and(|v| v.text),
            field: run.field,
        };
        if let Some(value) = value {
            self.count_in_column(input, &run, value);
        }
        if value.is_some_and(|v| !v.text) {
            self.findings.binary_runs += 1;
            return Ok(());
        }
        let counted: Result<(), Infallible> = CountingSink {
            counts: &mut self.findings.counts,
            base: self.base,
            sequences: self.sequences,
        }
        .run(input, &run);
        let Ok(()) = counted;
        if run.repaired {
            self.copy_to(input, run.span.start)?;
        }
        let cell = match value {
            Some(&Value {
                place: Place::Cell { table, column, row },
                ..
            }) if run.repaired && self.audit.is_some() => self.cell(table, column, row),
            _ => None,
        };
        if let Some(audit) = self.audit.as_deref_mut() {
            audit
                .run(input, &run, cell.as_ref())
                .map_err(Failed::Audit)?;
        }
        if run.repaired {
            if let Some(out) = self.out.as_deref_mut() {
                self.scratch.clear();
                run.write_replacement(&mut self.scratch);
                out.write_all(&self.scratch).map_err(Failed::Output)?;
            }
            self.copied_to = run.span.end;
        }
        Ok(())
    }

    fn end(&mut self, input: &[u8]) -> Result<(), Failed> {
        self.copy_to(input, input.len())?;
        match self.audit.as_deref_mut() {
            Some(audit) => audit.end(input).map_err(Failed::Audit),
            None => Ok(()),
        }
    }
}
