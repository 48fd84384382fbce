//! What `INSERT` tuples and `COPY` rows share: how a table's values are laid out in its rows,
//! the row and cell counts, the pieces of a value handed out buffer by buffer, and a value
//! carried on from one buffer into the next. It is apart from [`super::insert`] and
//! [`super::copy`] so that both formats number rows, cells and keys by one piece of code.

use std::mem;
use std::ops::Range;

use super::insert::{ends_bare, is_literal_byte};
use super::{
    BARE, FIELD, Lexed, Lexer, Mode, OpenValue, Phase, Place, Position, RowRef, Rows, Value,
    unexpected,
};
use crate::dump::schema::ColumnKind;
use crate::sql::tokens::{Body, Stop, copy_field_body, string_body};

impl Lexer {
    /// How the rows of `table` are read, given the columns an `INSERT` or `COPY` (that starts
    /// at `start`) lists.
    pub(super) fn rows_of(
        &self,
        table: &str,
        columns: Option<Vec<String>>,
        phase: Phase,
        start: usize,
    ) -> Result<Rows, Stop> {
        let index = self
            .schema
            .find(table)
            .ok_or_else(|| Stop::Undefined(start, self.undefined(table)))?;
        let definition = &self.schema.tables[index];
        if let Some(unknown) = &definition.unknown_type {
            return Err(Stop::Undefined(start, self.untyped(table, unknown)));
        }
        let indexes: Vec<usize> = match columns {
            None => (0..definition.columns.len()).collect(),
            Some(names) => names
                .iter()
                .zip(definition.column_indexes(&names))
                .map(|(name, index)| {
                    index.ok_or_else(|| {
                        Stop::Error(start, format!("table `{table}` has no column `{name}`"))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let positions = indexes
            .iter()
            .map(|&column| Position {
                column: column as u32,
                text: definition.columns[column].kind == ColumnKind::Text,
                kept: definition.columns[column].kind != ColumnKind::Other,
                key: definition.primary_key.contains(&column),
            })
            .collect();
        Ok(Rows {
            table: index,
            positions,
            phase,
            open: None,
            rows_before: definition.rows,
            started: 0,
        })
    }

    /// Why data for `table` cannot be read: neither the dump nor the schema lent to it defines
    /// it. A table the schema has under another qualification is named: the likely mix-up.
    fn undefined(&self, table: &str) -> String {
        let mut message = format!("data for table `{table}`, which no CREATE TABLE before it");
        if self.schema.borrowed == 0 {
            return message + " defines";
        }
        message += " nor the schema dump defines";
        if let Some(namesake) = self.schema.namesake(table) {
            let alike = match self.mysql() {
                true => ": were both dumps made alike, with or without --databases?",
                false => "",
            };
            message += &format!(" (it defines `{namesake}`{alike})");
        }
        message
    }

    /// Why data for the typed table `table` cannot be read: its columns are those of the
    /// composite type `unknown`, which neither the dump nor the schema lent to it creates
    /// (`pg_dump -t` leaves a table's type out).
    fn untyped(&self, table: &str, unknown: &str) -> String {
        let nor = match self.schema.borrowed {
            0 => "",
            _ => " nor the schema dump",
        };
        format!(
            "data for table `{table}`, a typed table (OF {unknown}) whose columns are those of \
             the type `{unknown}`, which no CREATE TYPE before it{nor} defines"
        )
    }

    /// Reads rows of an `INSERT` or a `COPY` from `at`.
    pub(super) fn rows(
        &mut self,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        let (mut rows, copy) = match mem::replace(&mut self.mode, Mode::Idle) {
            Mode::Values(rows) => (rows, false),
            Mode::Copy(rows) => (rows, true),
            other => {
                self.mode = other;
                return Ok(at);
            }
        };
        let read = match copy {
            true => self.copy_rows(&mut rows, buf, at, last, out),
            false => self.tuples(&mut rows, buf, at, last, out),
        };
        match read {
            // The statement (or the COPY block) is over: every row has all its values.
            Ok(Some(next)) => {
                let table = &mut self.schema.tables[rows.table];
                table.rows += rows.started;
                for position in &rows.positions {
                    table.columns[position.column as usize].cells += rows.started;
                }
                Ok(next)
            }
            Ok(None) => {
                self.mode = if copy {
                    Mode::Copy(rows)
                } else {
                    Mode::Values(rows)
                };
                Ok(buf.len())
            }
            Err(stop) => {
                self.mode = if copy {
                    Mode::Copy(rows)
                } else {
                    Mode::Values(rows)
                };
                Err(stop)
            }
        }
    }

    /// Starts a row of `rows`' table.
    pub(super) fn start_row(&mut self, rows: &mut Rows) {
        rows.started += 1;
        self.ordinal = rows.rows_before + rows.started;
        self.key.clear();
        self.key_parts = 0;
        self.row_in_buffer = None;
    }

    /// Ends the current row's presence in this buffer: its entry gets its key, when the key
    /// is `complete` (a row cut by the end of a buffer may not have reached it yet).
    pub(super) fn end_row_piece(&mut self, out: &mut Lexed, complete: bool) {
        if let Some(row) = self.row_in_buffer.take()
            && complete
        {
            let start = out.keys.len();
            out.keys.extend_from_slice(&self.key);
            out.rows[row].key = start..out.keys.len();
        }
    }

    /// Numbers a new value at `position` (cells are counted per row, when the statement ends).
    pub(super) fn new_cell(&mut self, position: Position) -> u64 {
        self.cells += 1;
        if position.key {
            if self.key_parts > 0 {
                self.key.push(0);
            }
            self.key_parts += 1;
        }
        self.cells
    }

    /// Counts a `NULL` at `position`. Cells are counted per row when the statement ends; a
    /// `NULL` is known only value by value, and is counted as it is read (once: a value cut
    /// by the end of a buffer is read again whole before it is known to be `NULL`).
    pub(super) fn null_cell(&mut self, rows: &Rows, position: Position) {
        let column = position.column as usize;
        self.schema.tables[rows.table].columns[column].nulls += 1;
    }

    /// Takes in the piece `span` of the value `cell` at `position`.
    pub(super) fn piece(
        &mut self,
        rows: &Rows,
        position: Position,
        cell: u64,
        buf: &[u8],
        span: Range<usize>,
        out: &mut Lexed,
    ) {
        if position.key {
            self.key.extend_from_slice(&buf[span.clone()]);
        }
        if !position.kept || span.is_empty() {
            return;
        }
        let row = *self.row_in_buffer.get_or_insert_with(|| {
            out.rows.push(RowRef {
                ordinal: self.ordinal,
                key: 0..0,
            });
            out.rows.len() - 1
        });
        out.values.push(Value {
            span,
            text: position.text,
            cell,
            place: Place::Cell {
                table: rows.table as u32,
                column: position.column,
                row: row as u32,
            },
        });
    }

    /// Reads on a value that ran past the end of the last buffer; returns where it ends and
    /// whether it ended in this buffer.
    pub(super) fn continue_value(
        &mut self,
        rows: &mut Rows,
        open: OpenValue,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Option<usize>, Stop> {
        let column = rows.positions[open.position];
        let position = Position {
            text: open.text,
            kept: column.kept && open.quote != BARE,
            ..column
        };
        let body = match open.quote {
            BARE => match buf[at..]
                .iter()
                .position(|&b| ends_bare(b) || !is_literal_byte(b))
            {
                Some(k) if !ends_bare(buf[at + k]) => {
                    return Err(Stop::Error(at + k, unexpected(buf[at + k], "in a number")));
                }
                Some(k) => Body::Closed {
                    content_end: at + k,
                    next: at + k,
                },
                None => Body::Open,
            },
            FIELD => copy_field_body(buf, at, last),
            quote => string_body(buf, at, quote, open.backslash, last),
        };
        let (end, next) = match body {
            Body::Closed { content_end, next } => (content_end, Some(next)),
            Body::Open => (buf.len(), None),
            Body::NeedMore(k) => {
                self.piece(rows, position, open.cell, buf, at..k, out);
                return Err(Stop::NeedMore(k));
            }
        };
        self.piece(rows, position, open.cell, buf, at..end, out);
        if next.is_some() {
            rows.open = None;
            if open.quote != FIELD {
                rows.phase = Phase::AfterValue(open.position);
            }
        }
        Ok(next)
    }
}
