//! The dump lexer: walks a dump buffer by buffer, in order, and says where the values of text
//! columns are, to which table, column and row each belongs, and which bytes of the DDL
//! `--convert-charset` rewrites.
//!
//! Statements are read three ways. `CREATE TABLE`, PostgreSQL's `CREATE TYPE`, `CREATE
//! DOMAIN` and `CREATE INDEX` (for the text literals of a partial index), `CREATE DATABASE`, `ALTER TABLE` (for a primary key added after the table, and the
//! text literals of a check or a default), MySQL's `ALTER DATABASE`, `SET`, `USE`, `COPY` heads
//! and `COMMENT ON` are read whole, from their tokens ([`super::ddl`]): they are small, and a
//! buffer that ends inside one is cut before it, so that it is read again whole with the next
//! buffer (and its edits land in the buffer being written). The rows of `INSERT ... VALUES` and
//! of a `COPY` block hold nearly all the bytes of a dump and have a fixed shape, so they are
//! read by a loop of their own that jumps from quote to quote (or tab to tab) with `memchr`,
//! and that carries a value on from one buffer into the next: a line of many megabytes is cut
//! anywhere.
//! Every other statement is skipped to its delimiter, token by token (past the `BEGIN ATOMIC
//! ... END` body of a PostgreSQL routine, whose statements end in delimiters of their own). A
//! statement the lexer does not know, a row with more or fewer values than its table has
//! columns, data for a table no `CREATE TABLE` defined: each is an error naming the line,
//! because guessing where values are is how a repair would reach into a blob. A dump that holds
//! only data is read with the tables of a dump of its schema lent to it ([`Schema::lend`]); a
//! full `pg_dump` read from a file, with the primary keys it declares after its data
//! ([`LaterKeys`]), which a table without a key of its own takes when it is defined.
//!
//! This file holds the mode machine between buffers and the types the other files share; the
//! statements are read in [`statements`], the rows both formats share in [`rows`], and the
//! formats of the rows in [`insert`] and [`copy`].

mod copy;
mod insert;
mod rows;
mod statements;

use std::ops::Range;

use super::ddl::Edit;
use super::later_keys::LaterKeys;
use super::schema::Schema;
use crate::sql::tokens::{Stop, Token, Tokenizer};
use crate::sql::{MAX_STATEMENT_BYTES, SqlDialect};
use statements::RoutineBody;

/// What the lexer found in one buffer. Offsets are the buffer's; every list is in order.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    /// The insides of the values of text and binary columns, and of the DDL's text literals.
    pub values: Vec<Value>,
    /// The rows those values belong to.
    pub rows: Vec<RowRef>,
    /// The primary keys of those rows, one after the other (parts separated by NUL).
    pub keys: Vec<u8>,
    /// Character set rewrites (`--convert-charset`).
    pub edits: Vec<Edit>,
}

impl Lexed {
    /// The value that holds the whole of `span`, if any, for spans asked in input order:
    /// `next` is where the last search stopped, and never goes back.
    pub(crate) fn value_holding(&self, next: &mut usize, span: &Range<usize>) -> Option<&Value> {
        while let Some(value) = self.values.get(*next)
            && value.span.end <= span.start
        {
            *next += 1;
        }
        self.values
            .get(*next)
            .filter(|v| v.span.start <= span.start && span.end <= v.span.end)
    }

    fn clear(&mut self) {
        self.values.clear();
        self.rows.clear();
        self.keys.clear();
        self.edits.clear();
    }
}

/// A value (or the piece of one in this buffer) of a text or binary column, or a text literal
/// of the DDL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    pub span: Range<usize>,
    /// Whether its runs may be repaired: it is text (a blob, or a `_binary` string, is not).
    pub text: bool,
    /// Numbers the values of the dump, so that the pieces of one are counted as one.
    pub cell: u64,
    pub place: Place,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A cell of a table: indexes into the schema's tables and their columns, and into
    /// [`Lexed::rows`].
    Cell { table: u32, column: u32, row: u32 },
    /// A string literal of the DDL that is text (a comment, a text column's default, a
    /// literal of a check on text columns).
    Definition,
}

/// A row, by its number in its table (from 1) and its primary key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowRef {
    pub ordinal: u64,
    /// Where its key lies in [`Lexed::keys`].
    pub key: Range<usize>,
}

/// A dump the lexer does not understand.
#[derive(Debug, PartialEq, Eq)]
pub struct LexError {
    /// Counted from 1.
    pub line: u64,
    /// Of the byte where the dump stops making sense, counted from 0 at the dump's start.
    pub offset: u64,
    pub message: String,
    /// Whether it holds data for a table that neither it nor a schema lent to it defines: a
    /// dump of data only, read without the dump of its schema (or with another one).
    pub undefined_table: bool,
}

/// Where the lexer is between buffers.
enum Mode {
    /// Between statements.
    Idle,
    /// Inside a statement skipped to its delimiter (with a PostgreSQL routine's body, which
    /// may hold delimiters of its own).
    Skip(Option<RoutineBody>),
    /// In the tuples of an `INSERT`.
    Values(Rows),
    /// In the data of a `COPY ... FROM stdin`.
    Copy(Rows),
}

/// The rows of one `INSERT` or `COPY` being read.
struct Rows {
    table: usize,
    /// What each value of a row is, in order.
    positions: Vec<Position>,
    phase: Phase,
    /// The value being read when it runs on past the end of a buffer.
    open: Option<OpenValue>,
    /// Rows of the table before this statement.
    rows_before: u64,
    /// Rows started by this statement.
    started: u64,
}

#[derive(Clone, Copy, Debug)]
struct Position {
    column: u32,
    /// Whether the value is text (repaired) ...
    text: bool,
    /// ... or at least worth reporting on: text or binary.
    kept: bool,
    key: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// `INSERT`: before `(`.
    BeforeRow,
    /// At the start of the value at this position (`COPY`: of the field).
    Value(usize),
    /// `INSERT`: after a value, before `,` or `)`.
    AfterValue(usize),
    /// `INSERT`: after `)`, before `,` or the delimiter.
    AfterRow,
    /// `COPY`: the rest of the line of `COPY ... FROM stdin;`.
    Header,
    /// `COPY`: at the start of a line (a row, or `\.`).
    LineStart,
}

/// A value that runs on past the end of a buffer.
#[derive(Clone, Copy, Debug)]
struct OpenValue {
    position: usize,
    cell: u64,
    /// Whether it is text (a `_binary` string in a text column is not).
    text: bool,
    /// How it ends: a quoted string (`quote`, with `backslash` escapes), a `COPY` field
    /// (`quote` 0: at a tab or a newline), or a long bare literal such as `0x...` (`quote` 1).
    quote: u8,
    backslash: bool,
}

const FIELD: u8 = 0;
const BARE: u8 = 1;

/// Reads a dump buffer by buffer; see the module documentation.
pub(crate) struct Lexer {
    tokens: Tokenizer,
    mode: Mode,
    pub schema: Schema,
    /// The primary keys the dump declares after its data ([`LaterKeys`]): a table its `CREATE
    /// TABLE` gives no key takes the first declared after it.
    pub later_keys: LaterKeys,
    database: Option<String>,
    convert: bool,
    /// Lines before the current buffer.
    line: u64,
    /// Bytes before the current buffer.
    offset: u64,
    /// Values read so far.
    cells: u64,
    /// The number of the current row in its table.
    ordinal: u64,
    /// The primary key of the current row, as read so far, and how many of its parts.
    key: Vec<u8>,
    key_parts: usize,
    /// The current row's entry in this buffer's [`Lexed::rows`], once it has a text value here.
    row_in_buffer: Option<usize>,
    statement: Vec<Token>,
}

impl Lexer {
    /// A lexer for a dump in `dialect`; with `convert`, it finds the `latin1` declarations
    /// that `--convert-charset` rewrites.
    pub(crate) fn new(dialect: SqlDialect, convert: bool) -> Lexer {
        Lexer {
            tokens: Tokenizer::new(dialect),
            mode: Mode::Idle,
            schema: Schema::default(),
            later_keys: LaterKeys::default(),
            database: None,
            convert,
            line: 0,
            offset: 0,
            cells: 0,
            ordinal: 0,
            key: Vec::new(),
            key_parts: 0,
            row_in_buffer: None,
            statement: Vec::new(),
        }
    }

    fn mysql(&self) -> bool {
        self.tokens.dialect == SqlDialect::MySql
    }

    /// Lexes `buf`, the next bytes of the dump (`last`: the final ones), into `out`. Returns
    /// how many bytes were read: the rest, if any, could not be read without what follows and
    /// must come again at the front of the next buffer.
    pub(crate) fn lex(
        &mut self,
        buf: &[u8],
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, LexError> {
        out.clear();
        self.row_in_buffer = None;
        let mut at = 0;
        let stop = loop {
            if at == buf.len() {
                break None;
            }
            let step = match self.mode {
                Mode::Idle => self.statement(buf, at, last, out),
                Mode::Skip(_) => self.skip(buf, at, last),
                Mode::Values(_) | Mode::Copy(_) => self.rows(buf, at, last, out),
            };
            match step {
                Ok(next) => at = next,
                Err(stop) => break Some(stop),
            }
        };
        let consumed = match stop {
            None => buf.len(),
            Some(Stop::NeedMore(p)) if !last && buf.len() - p <= MAX_STATEMENT_BYTES => p,
            Some(Stop::NeedMore(p)) => {
                let message = "a statement, name or literal longer than 1 MiB (or cut short)";
                return Err(self.error(buf, p, message.into()));
            }
            Some(Stop::Error(p, message)) => return Err(self.error(buf, p, message)),
            Some(Stop::Undefined(p, message)) => {
                return Err(LexError {
                    undefined_table: true,
                    ..self.error(buf, p, message)
                });
            }
        };
        // A row cut by the end of the buffer: its key only if all of it was read.
        let complete = match &self.mode {
            Mode::Values(rows) | Mode::Copy(rows) => {
                let parts = rows.positions.iter().filter(|p| p.key).count();
                let key_open = rows
                    .open
                    .is_some_and(|open| rows.positions[open.position].key);
                self.key_parts >= parts && !key_open
            }
            _ => true,
        };
        self.end_row_piece(out, complete);
        if last {
            let unfinished = match &self.mode {
                Mode::Idle => self.tokens.unfinished(),
                Mode::Skip(_) => Some("a statement (no delimiter)"),
                Mode::Values(_) => Some("an INSERT"),
                Mode::Copy(_) => Some("COPY data (no `\\.` line)"),
            };
            if let Some(what) = unfinished {
                let message = format!("the dump ends inside {what}");
                return Err(self.error(buf, buf.len(), message));
            }
        }
        self.line += memchr::memchr_iter(b'\n', &buf[..consumed]).count() as u64;
        self.offset += consumed as u64;
        Ok(consumed)
    }

    fn error(&self, buf: &[u8], at: usize, message: String) -> LexError {
        let before = &buf[..at.min(buf.len())];
        LexError {
            line: self.line + memchr::memchr_iter(b'\n', before).count() as u64 + 1,
            offset: self.offset + before.len() as u64,
            message,
            undefined_table: false,
        }
    }
}

fn unexpected(byte: u8, place: &str) -> String {
    match byte {
        0x21..=0x7E => format!("unexpected `{}` {place}", byte as char),
        _ => format!("unexpected byte 0x{byte:02x} {place}"),
    }
}

#[cfg(test)]
mod tests;
