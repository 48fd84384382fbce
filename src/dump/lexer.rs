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

use std::mem;
use std::ops::Range;

use super::ddl::{self, Edit};
use super::later_keys::LaterKeys;
use super::schema::{Column, ColumnKind, Schema, Table};
use crate::sql::tokens::{
    Body, Kind, Stop, Token, Tokenizer, copy_field_body, is_word_byte, string_body,
};
use crate::sql::{MAX_STATEMENT_BYTES, SqlDialect, is_create_modifier};

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
    pub fn value_holding(&self, next: &mut usize, span: &Range<usize>) -> Option<&Value> {
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

/// Statement keywords that are skipped to their delimiter: they hold no table data.
const SKIPPED: &[&str] = &[
    "ABORT",
    "ANALYZE",
    "BEGIN",
    "CALL",
    "CHANGE",
    "CHECKPOINT",
    "CHECKSUM",
    "CLOSE",
    "CLUSTER",
    "COMMIT",
    "DEALLOCATE",
    "DECLARE",
    "DELETE",
    "DISCARD",
    "DO",
    "DROP",
    "END",
    "EXECUTE",
    "FETCH",
    "FLUSH",
    "GRANT",
    "HANDLER",
    "IMPORT",
    "INSTALL",
    "LISTEN",
    "LOAD",
    "LOCK",
    "NOTIFY",
    "OPTIMIZE",
    "PREPARE",
    "PURGE",
    "REFRESH",
    "REINDEX",
    "RELEASE",
    "RENAME",
    "REPAIR",
    "RESET",
    "REVOKE",
    "ROLLBACK",
    "SAVEPOINT",
    "SECURITY",
    "SELECT",
    "SHOW",
    "START",
    "STOP",
    "TRUNCATE",
    "UNINSTALL",
    "UNLOCK",
    "UPDATE",
    "VACUUM",
    "WITH",
    "XA",
];

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

/// Where a PostgreSQL `CREATE FUNCTION` or `CREATE PROCEDURE` being skipped stands in a
/// SQL-standard body (`BEGIN ATOMIC ... END`), whose statements end in delimiters of their own.
/// The rule is psql's, which is how the dump is loaded: outside parentheses, `BEGIN` opens a
/// block, `CASE` opens one inside a block, `END` closes one, and the statement ends at the
/// first delimiter outside blocks and parentheses. Without it an `INSERT` in such a body would
/// be read as table data, and repaired.
#[derive(Clone, Copy, Debug, Default)]
struct RoutineBody {
    blocks: u32,
    parens: u32,
}

impl RoutineBody {
    /// Takes in the next token of the statement; returns whether it ends the statement.
    fn ends_at(&mut self, buf: &[u8], token: &Token) -> bool {
        match token.kind {
            Kind::Punct(b'(') => self.parens += 1,
            Kind::Punct(b')') => self.parens = self.parens.saturating_sub(1),
            Kind::Word if self.parens == 0 => {
                if token.is(buf, "BEGIN") || (self.blocks > 0 && token.is(buf, "CASE")) {
                    self.blocks += 1;
                } else if token.is(buf, "END") {
                    self.blocks = self.blocks.saturating_sub(1);
                }
            }
            Kind::Delimiter => return self.blocks == 0 && self.parens == 0,
            _ => {}
        }
        false
    }
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

/// What a statement's first tokens say it is.
enum Class {
    Undecided,
    /// Read whole, then handled.
    Whole,
    /// An `INSERT` whose head runs up to `VALUES`.
    Insert,
}

impl Lexer {
    /// A lexer for a dump in `dialect`; with `convert`, it finds the `latin1` declarations
    /// that `--convert-charset` rewrites.
    pub fn new(dialect: SqlDialect, convert: bool) -> Lexer {
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
    pub fn lex(&mut self, buf: &[u8], last: bool, out: &mut Lexed) -> Result<usize, LexError> {
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

    /// Between statements: skips comments, then reads the next statement's start.
    fn statement(
        &mut self,
        buf: &[u8],
        mut at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        self.tokens.skip_trivia(buf, &mut at, last, false)?;
        if at == buf.len() {
            return Ok(at);
        }
        let start = at;
        if let Some(end) = self.client_command(buf, start, last)? {
            return Ok(end);
        }
        self.statement.clear();
        let in_version_comment = self.tokens.in_version_comment();
        let read = self.read_statement(buf, start, last, out);
        if let Err(Stop::NeedMore(_)) = read {
            // Read again whole, from its start, with the next buffer.
            self.tokens.restart(in_version_comment);
            return Err(Stop::NeedMore(start));
        }
        read
    }

    /// A client command at `start` (a line of the `mysql` or `psql` client, not SQL):
    /// `DELIMITER x`, or a backslash command (`\connect`, MariaDB's `\-` sandbox line, inside a
    /// version comment). Returns where the line ends.
    fn client_command(
        &mut self,
        buf: &[u8],
        start: usize,
        last: bool,
    ) -> Result<Option<usize>, Stop> {
        let mut i = start;
        if self.mysql() {
            let opener = match &buf[start..] {
                [b'/', b'*', b'!', ..] => 3,
                [b'/', b'*', b'M', b'!', ..] => 4,
                _ => 0,
            };
            if opener > 0 {
                i += opener;
                i += buf[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                i += buf[i..].iter().take_while(|&&b| b == b' ').count();
            }
        }
        let word = b"DELIMITER";
        let delimiter = self.mysql()
            && i == start
            && buf.len() > start + word.len()
            && buf[start..start + word.len()].eq_ignore_ascii_case(word)
            && buf[start + word.len()].is_ascii_whitespace();
        if buf.get(i) != Some(&b'\\') && !delimiter {
            return Ok(None);
        }
        let end = match memchr::memchr(b'\n', &buf[i..]) {
            Some(k) => i + k + 1,
            None if last => buf.len(),
            None => return Err(Stop::NeedMore(start)),
        };
        if delimiter {
            let argument = buf[start + word.len()..end]
                .split(|b| b.is_ascii_whitespace())
                .find(|part| !part.is_empty());
            match argument {
                Some(argument) => self.tokens.delimiter = argument.to_vec(),
                None => return Err(Stop::Error(start, "DELIMITER without a delimiter".into())),
            }
        }
        self.tokens.reset();
        Ok(Some(end))
    }

    /// Reads a statement's tokens from `start`: until its class is known, then on to its end
    /// (a statement read whole), to `VALUES` (an `INSERT`), or no further (a skipped one).
    fn read_statement(
        &mut self,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        let mut at = start;
        let mut class = Class::Undecided;
        let mut depth = 0usize;
        loop {
            let Some(token) = self.tokens.next(buf, &mut at, last)? else {
                return match last {
                    true => Err(Stop::Error(
                        buf.len(),
                        "the dump ends inside a statement".into(),
                    )),
                    false => Err(Stop::NeedMore(start)),
                };
            };
            if at - start > MAX_STATEMENT_BYTES {
                return Err(Stop::NeedMore(start));
            }
            if token.kind == Kind::Delimiter {
                return match class {
                    Class::Whole => self.whole_statement(buf, start..token.span.start, out),
                    Class::Insert => Err(Stop::Error(start, "an INSERT without VALUES".into())),
                    Class::Undecided => Ok(at), // an empty statement
                };
            }
            match token.kind {
                Kind::Punct(b'(') => depth += 1,
                Kind::Punct(b')') => depth = depth.saturating_sub(1),
                _ => {}
            }
            let is_word = token.kind == Kind::Word;
            let is_values = token.is(buf, "VALUES") || (self.mysql() && token.is(buf, "VALUE"));
            let span = token.span.clone();
            self.statement.push(token);
            match class {
                Class::Undecided => match self.classify(buf) {
                    Some(decided) => class = decided,
                    // Another CREATE than CREATE TABLE.
                    None if self.statement.len() > 1 => {
                        self.mode = Mode::Skip(self.routine_body(buf));
                        return Ok(at);
                    }
                    None => {
                        // A statement that does not start with a word is named by its first
                        // byte: a string may not be whole in this buffer.
                        if !is_word {
                            let message = unexpected(buf[start], "at the start of a statement");
                            return Err(Stop::Error(start, message));
                        }
                        let keyword = String::from_utf8_lossy(&buf[span.clone()]);
                        if !SKIPPED.iter().any(|k| k.eq_ignore_ascii_case(&keyword)) {
                            let message = format!("unexpected statement `{keyword}`");
                            return Err(Stop::Error(span.start, message));
                        }
                        self.mode = Mode::Skip(None);
                        return Ok(at);
                    }
                },
                Class::Insert => {
                    if depth == 0 && is_values {
                        self.start_insert(buf, start)?;
                        return Ok(at);
                    }
                }
                Class::Whole => {}
            }
        }
    }

    /// What the statement read so far is; `None` when it is to be skipped (or, for a first
    /// token, unknown), `Some(Class::Undecided)` when more tokens are needed.
    fn classify(&self, buf: &[u8]) -> Option<Class> {
        let tokens = &self.statement;
        let first = tokens.first()?;
        if first.kind != Kind::Word {
            return None;
        }
        if first.is(buf, "INSERT") || first.is(buf, "REPLACE") {
            return Some(Class::Insert);
        }
        if ["SET", "USE", "COPY", "COMMENT"]
            .iter()
            .any(|k| first.is(buf, k))
        {
            return Some(Class::Whole);
        }
        if first.is(buf, "CREATE") {
            // Asked again after each token while undecided, so every token before the last is
            // already known to be a modifier: only the last is looked at (a statement of
            // modifiers is read in linear time).
            let object = tokens.len() - 1;
            if object == 0 || is_create_modifier(buf, &tokens[object]) {
                return Some(Class::Undecided);
            }
            let postgresql = !self.mysql();
            let object = &tokens[object];
            let whole = ["TABLE", "DATABASE", "SCHEMA"]
                .iter()
                .any(|o| object.is(buf, o))
                || (postgresql
                    && ["TYPE", "DOMAIN", "INDEX", "UNIQUE"]
                        .iter()
                        .any(|o| object.is(buf, o)));
            return whole.then_some(Class::Whole);
        }
        if first.is(buf, "ALTER") {
            let Some(object) = tokens.get(1) else {
                return Some(Class::Undecided);
            };
            let database = self.mysql() && (object.is(buf, "DATABASE") || object.is(buf, "SCHEMA"));
            return (object.is(buf, "TABLE") || database).then_some(Class::Whole);
        }
        None
    }

    /// Handles a statement read whole (`buf[statement]`, without its delimiter).
    fn whole_statement(
        &mut self,
        buf: &[u8],
        statement: Range<usize>,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        let end = statement.end + self.tokens.delimiter.len();
        let tokens = mem::take(&mut self.statement);
        let first = &tokens[0];
        if first.is(buf, "CREATE") {
            self.create_statement(buf, &tokens, out);
        } else if first.is(buf, "ALTER") {
            self.alter_statement(buf, &tokens, out);
        } else if first.is(buf, "SET") {
            if self.convert {
                out.edits
                    .extend(ddl::set_edits(buf, statement.clone(), &tokens));
            }
            if !self.mysql()
                && let Some(backslash) = ddl::backslash_strings(buf, &tokens)
            {
                self.tokens.backslash_strings = backslash;
            }
        } else if first.is(buf, "USE") {
            self.database = tokens.get(1).and_then(|t| t.name(buf));
        } else if first.is(buf, "COPY") {
            if let Some((table, columns)) = ddl::copy_head(buf, &tokens) {
                let rows = self.rows_of(&table, columns, Phase::Header, statement.start)?;
                self.mode = Mode::Copy(rows);
            }
        } else if first.is(buf, "COMMENT")
            && let Some(span) = ddl::comment_literal(buf, &tokens)
        {
            self.text_literal(span, out);
        }
        self.statement = tokens;
        Ok(end)
    }

    /// What the statements read whole are read with ([`ddl::Context`]).
    fn context(&self) -> ddl::Context<'_> {
        ddl::Context {
            dialect: self.tokens.dialect,
            convert: self.convert,
            database: self.database.as_deref(),
            types: &self.schema.types,
        }
    }

    /// A `CREATE` read whole: a table, a PostgreSQL type, domain or index, a database.
    fn create_statement(&mut self, buf: &[u8], tokens: &[Token], out: &mut Lexed) {
        let dialect = self.tokens.dialect;
        let context = self.context();
        if let Some(definition) = ddl::create_table(buf, tokens, &context) {
            out.edits.extend(definition.edits);
            for span in definition.text_literals {
                self.text_literal(span, out);
            }
            let table = self.inherit(definition.table, &definition.parents);
            let at = self.offset + tokens.first().map_or(0, |t| t.span.start) as u64;
            let later_key = match table.primary_key.is_empty() {
                true => self.later_keys.after(&table.name, at),
                false => None,
            };
            let index = self.schema.define(table);
            if let Some(key) = later_key {
                self.schema.add_primary_key(index, key);
            }
        } else if let Some(domain) = ddl::create_domain(buf, tokens, &context) {
            for span in domain.text_literals {
                self.text_literal(span, out);
            }
            self.schema.types.define(domain.name, domain.kind);
        } else if let Some(literals) = ddl::create_index(buf, tokens, &context, &self.schema) {
            for span in literals {
                self.text_literal(span, out);
            }
        } else if let Some(created) = ddl::create_type(buf, tokens, &context) {
            match created.attributes {
                Some(attributes) => self.schema.types.define_composite(created.name, attributes),
                None => self.schema.types.define(created.name, ColumnKind::Other),
            }
        } else if self.convert
            && let Some(edits) = ddl::database_edits(buf, tokens, dialect)
        {
            out.edits.extend(edits);
        }
    }

    /// An `ALTER TABLE` (which may add a primary key, and hold text literals: of a check it
    /// adds, of a default it sets) or MySQL's `ALTER DATABASE` (whose character set
    /// `--convert-charset` rewrites), read whole.
    fn alter_statement(&mut self, buf: &[u8], tokens: &[Token], out: &mut Lexed) {
        if let Some(alteration) = ddl::alter_table(buf, tokens, &self.context(), &self.schema) {
            if let Some(key) = alteration.primary_key
                && let Some(index) = self.schema.find(&alteration.table)
            {
                self.schema.add_primary_key(index, &key);
            }
            for span in alteration.text_literals {
                self.text_literal(span, out);
            }
        } else if self.convert
            && let Some(edits) = ddl::database_edits(buf, tokens, self.tokens.dialect)
        {
            out.edits.extend(edits);
        }
    }

    /// A string literal of the DDL that is text, at `span`: a value of its own.
    fn text_literal(&mut self, span: Range<usize>, out: &mut Lexed) {
        self.cells += 1;
        out.values.push(Value {
            span,
            text: true,
            cell: self.cells,
            place: Place::Definition,
        });
    }

    /// `table` with the columns of its `parents` first (a column defined again is one column),
    /// and their primary key if it declares none.
    fn inherit(&self, mut table: Table, parents: &[String]) -> Table {
        if parents.is_empty() {
            return table;
        }
        let mut key: Vec<String> = table
            .primary_key
            .iter()
            .map(|&c| table.columns[c].name.clone())
            .collect();
        let mut columns: Vec<Column> = Vec::new();
        for parent in parents.iter().filter_map(|p| self.schema.find(p)) {
            let parent = &self.schema.tables[parent];
            if key.is_empty() {
                key = parent
                    .primary_key
                    .iter()
                    .map(|&c| parent.columns[c].name.clone())
                    .collect();
            }
            for column in &parent.columns {
                if !columns.iter().any(|c| c.name == column.name) {
                    columns.push(Column {
                        cells: 0,
                        nulls: 0,
                        ..column.clone()
                    });
                }
            }
        }
        for column in mem::take(&mut table.columns) {
            if !columns.iter().any(|c| c.name == column.name) {
                columns.push(column);
            }
        }
        table.columns = columns;
        table.primary_key = table.column_indexes(&key).into_iter().flatten().collect();
        table
    }

    /// Starts reading the tuples of the `INSERT` whose head is in `self.statement`. PostgreSQL's
    /// `INSERT INTO t DEFAULT VALUES` (what `pg_dump --inserts` writes for a row of a table
    /// without columns) is one row without values: counted, and skipped to its end.
    fn start_insert(&mut self, buf: &[u8], start: usize) -> Result<(), Stop> {
        let (table, columns) = ddl::insert_head(buf, &self.statement, self.database.as_deref())
            .map_err(|message| Stop::Error(start, message))?;
        let rows = self.rows_of(&table, columns, Phase::BeforeRow, start)?;
        let before_values = self.statement.len().checked_sub(2);
        let defaults = before_values.is_some_and(|i| self.statement[i].is(buf, "DEFAULT"));
        self.mode = match defaults {
            true => {
                self.schema.tables[rows.table].rows += 1;
                Mode::Skip(None)
            }
            false => Mode::Values(rows),
        };
        Ok(())
    }

    /// How the rows of `table` are read, given the columns an `INSERT` or `COPY` (that starts
    /// at `start`) lists.
    fn rows_of(
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

    /// The body tracker of the statement just classified as skipped, when it is PostgreSQL's
    /// `CREATE [OR REPLACE] FUNCTION` or `PROCEDURE` (the heads psql looks for).
    fn routine_body(&self, buf: &[u8]) -> Option<RoutineBody> {
        let (create, object) = match self.statement.as_slice() {
            [create, or, replace, object] if or.is(buf, "OR") && replace.is(buf, "REPLACE") => {
                (create, object)
            }
            [create, object] => (create, object),
            _ => return None,
        };
        let routine = !self.mysql()
            && create.is(buf, "CREATE")
            && (object.is(buf, "FUNCTION") || object.is(buf, "PROCEDURE"));
        routine.then(RoutineBody::default)
    }

    /// Skips a statement to its delimiter.
    fn skip(&mut self, buf: &[u8], mut at: usize, last: bool) -> Result<usize, Stop> {
        while let Some(token) = self.tokens.next(buf, &mut at, last)? {
            let ends = match &mut self.mode {
                Mode::Skip(Some(body)) => body.ends_at(buf, &token),
                _ => token.kind == Kind::Delimiter,
            };
            if ends {
                self.mode = Mode::Idle;
                return Ok(at);
            }
        }
        Ok(buf.len())
    }

    /// Reads rows of an `INSERT` or a `COPY` from `at`.
    fn rows(&mut self, buf: &[u8], at: usize, last: bool, out: &mut Lexed) -> Result<usize, Stop> {
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
    fn start_row(&mut self, rows: &mut Rows) {
        rows.started += 1;
        self.ordinal = rows.rows_before + rows.started;
        self.key.clear();
        self.key_parts = 0;
        self.row_in_buffer = None;
    }

    /// Ends the current row's presence in this buffer: its entry gets its key, when the key
    /// is `complete` (a row cut by the end of a buffer may not have reached it yet).
    fn end_row_piece(&mut self, out: &mut Lexed, complete: bool) {
        if let Some(row) = self.row_in_buffer.take()
            && complete
        {
            let start = out.keys.len();
            out.keys.extend_from_slice(&self.key);
            out.rows[row].key = start..out.keys.len();
        }
    }

    /// Numbers a new value at `position` (cells are counted per row, when the statement ends).
    fn new_cell(&mut self, position: Position) -> u64 {
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
    fn null_cell(&mut self, rows: &Rows, position: Position) {
        let column = position.column as usize;
        self.schema.tables[rows.table].columns[column].nulls += 1;
    }

    /// Takes in the piece `span` of the value `cell` at `position`.
    fn piece(
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
    fn continue_value(
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

    /// Reads `INSERT` tuples: `(v, v, ...), (...)` up to the delimiter. `Ok(Some(end))` when
    /// the statement ends, `Ok(None)` at the end of the buffer.
    fn tuples(
        &mut self,
        rows: &mut Rows,
        buf: &[u8],
        mut at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Option<usize>, Stop> {
        loop {
            if let Some(open) = rows.open {
                match self.continue_value(rows, open, buf, at, last, out)? {
                    Some(next) => at = next,
                    None => return Ok(None),
                }
            }
            let Some(&byte) = buf.get(at) else {
                return Ok(None);
            };
            if matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                at += 1;
                continue;
            }
            match rows.phase {
                Phase::BeforeRow if byte == b'(' => {
                    self.start_row(rows);
                    rows.phase = Phase::Value(0);
                    at += 1;
                }
                Phase::Value(p) => {
                    at = self.value(rows, p, buf, at, last, out)?;
                    // The usual case, `v,v` and `v),(`, without going round the loop.
                    if rows.open.is_none() {
                        match buf.get(at) {
                            Some(b',') => {
                                rows.phase = Phase::Value(p + 1);
                                at += 1;
                            }
                            Some(b')') if p + 1 == rows.positions.len() => {
                                self.end_row_piece(out, true);
                                at += 1;
                                rows.phase = Phase::AfterRow;
                                if buf.get(at) == Some(&b',') && buf.get(at + 1) == Some(&b'(') {
                                    self.start_row(rows);
                                    rows.phase = Phase::Value(0);
                                    at += 2;
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Phase::AfterValue(p) if byte == b',' => {
                    rows.phase = Phase::Value(p + 1);
                    at += 1;
                }
                Phase::AfterValue(p) if byte == b')' => {
                    if p + 1 != rows.positions.len() {
                        let message = format!(
                            "a row of {} values for {} columns",
                            p + 1,
                            rows.positions.len()
                        );
                        return Err(Stop::Error(at, message));
                    }
                    self.end_row_piece(out, true);
                    rows.phase = Phase::AfterRow;
                    at += 1;
                }
                Phase::AfterRow if byte == b',' => {
                    rows.phase = Phase::BeforeRow;
                    at += 1;
                }
                Phase::AfterRow => {
                    let delimiter = self.tokens.delimiter.as_slice();
                    let available = &buf[at..buf.len().min(at + delimiter.len())];
                    if available == delimiter {
                        return Ok(Some(at + delimiter.len()));
                    }
                    if delimiter.starts_with(available) && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    return Err(Stop::Error(at, unexpected(byte, "after a row")));
                }
                _ => {
                    return Err(Stop::Error(
                        at,
                        unexpected(byte, "in the VALUES of an INSERT"),
                    ));
                }
            }
        }
    }

    /// Reads the value at position `p` of a tuple, starting at `buf[at]`; returns where
    /// reading goes on (after the value, or at the end of the buffer with the value open).
    fn value(
        &mut self,
        rows: &mut Rows,
        p: usize,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        let Some(&position) = rows.positions.get(p) else {
            let message = format!("a row of more than {} values", rows.positions.len());
            return Err(Stop::Error(at, message));
        };
        let byte = buf[at];
        // A string: where its body starts, its quote, its escapes, and whether it is text.
        let string = match byte {
            b'\'' => Some((at + 1, b'\'', self.tokens.backslash_strings, true)),
            b'"' if self.mysql() => Some((at + 1, b'"', true, true)),
            b'X' | b'x' | b'B' | b'b' | b'N' | b'n' | b'E' | b'e' | b'_' => {
                self.prefixed_string(buf, at, last)?
            }
            _ => None,
        };
        let Some((body, quote, backslash, text)) = string else {
            return self.bare_value(rows, p, position, buf, at, last);
        };
        let position = Position {
            text: position.text && text,
            ..position
        };
        let cell = self.new_cell(position);
        let (end, resume, closed) = match string_body(buf, body, quote, backslash, last) {
            Body::Closed { content_end, next } => (content_end, next, true),
            Body::Open if last => return Err(Stop::Error(at, "an unterminated string".into())),
            Body::Open => (buf.len(), buf.len(), false),
            Body::NeedMore(k) => (k, k, false),
        };
        self.piece(rows, position, cell, buf, body..end, out);
        if closed {
            rows.phase = Phase::AfterValue(p);
        } else {
            rows.open = Some(OpenValue {
                position: p,
                cell,
                text: position.text,
                quote,
                backslash,
            });
            if resume < buf.len() {
                return Err(Stop::NeedMore(resume));
            }
        }
        Ok(resume)
    }

    /// A string with a prefix at `buf[at]`: `X'...'` and `B'...'` (not text), `N'...'`,
    /// PostgreSQL's `E'...'`, MySQL's `_binary '...'` (not text) and `_utf8mb4'...'`. Returns
    /// where its body starts, its quote, its escapes and whether it is text; `None` when the
    /// byte starts no string.
    fn prefixed_string(
        &self,
        buf: &[u8],
        at: usize,
        last: bool,
    ) -> Result<Option<(usize, u8, bool, bool)>, Stop> {
        let mysql = self.mysql();
        if buf[at] == b'_' && mysql {
            let word = buf[at..].iter().take_while(|&&b| is_word_byte(b)).count();
            let quote = at + word + buf[at + word..].iter().take_while(|&&b| b == b' ').count();
            return match buf.get(quote) {
                None if !last => Err(Stop::NeedMore(at)),
                Some(&q @ (b'\'' | b'"')) => {
                    let binary = buf[at..at + word].eq_ignore_ascii_case(b"_binary");
                    Ok(Some((quote + 1, q, true, !binary)))
                }
                _ => Err(Stop::Error(
                    at,
                    "a character set introducer without a string".into(),
                )),
            };
        }
        match buf.get(at + 1) {
            None if !last => Err(Stop::NeedMore(at)),
            Some(b'\'') => Ok(match buf[at] {
                b'X' | b'x' | b'B' | b'b' => Some((at + 2, b'\'', false, false)),
                b'N' | b'n' => Some((at + 2, b'\'', self.tokens.backslash_strings, true)),
                b'E' | b'e' if !mysql => Some((at + 2, b'\'', true, true)),
                _ => None,
            }),
            _ => Ok(None),
        }
    }

    /// A literal that is not a string: a number, `NULL`, `DEFAULT`, `TRUE`, a hexadecimal or
    /// binary literal (`0x4142`, `0b101`), which can be megabytes long.
    fn bare_value(
        &mut self,
        rows: &mut Rows,
        p: usize,
        position: Position,
        buf: &[u8],
        at: usize,
        last: bool,
    ) -> Result<usize, Stop> {
        let mut end = None;
        let mut stray = None;
        for (k, &b) in buf[at..].iter().enumerate() {
            if ends_bare(b) {
                end = Some(at + k);
                break;
            }
            if stray.is_none() && !is_literal_byte(b) {
                stray = Some(at + k);
            }
        }
        let token = &buf[at..end.unwrap_or(buf.len())];
        let numeric = matches!(token.first(), Some(b'0'..=b'9' | b'-' | b'+' | b'.'));
        // A number is judged byte by byte, at the first byte that cannot be part of it, so that
        // one cut into pieces by buffer ends (a long `0x...` is read on in the next buffer) is
        // refused at the same byte with the same words as one read whole.
        if let Some(k) = stray.filter(|_| numeric) {
            return Err(Stop::Error(k, unexpected(buf[k], "in a number")));
        }
        if end.is_none() && !last && (!numeric || token.len() < 8) {
            return Err(Stop::NeedMore(at));
        }
        let keyword = || {
            ["NULL", "DEFAULT", "TRUE", "FALSE"]
                .iter()
                .any(|k| token.eq_ignore_ascii_case(k.as_bytes()))
        };
        if !numeric && !keyword() {
            let shown = String::from_utf8_lossy(&token[..token.len().min(20)]).into_owned();
            return Err(Stop::Error(at, format!("unexpected value `{shown}`")));
        }
        if token.eq_ignore_ascii_case(b"NULL") {
            self.null_cell(rows, position);
        }
        let position = Position {
            text: false,
            ..position
        };
        let cell = self.new_cell(position);
        if position.key {
            self.key.extend_from_slice(token);
        }
        match end {
            Some(end) => {
                rows.phase = Phase::AfterValue(p);
                Ok(end)
            }
            None => {
                rows.open = Some(OpenValue {
                    position: p,
                    cell,
                    text: false,
                    quote: BARE,
                    backslash: false,
                });
                Ok(buf.len())
            }
        }
    }

    /// Reads `COPY` rows: lines of tab-separated fields, up to the line `\.`. `Ok(Some(end))`
    /// when the block ends, `Ok(None)` at the end of the buffer.
    fn copy_rows(
        &mut self,
        rows: &mut Rows,
        buf: &[u8],
        mut at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Option<usize>, Stop> {
        loop {
            if let Some(open) = rows.open {
                match self.continue_value(rows, open, buf, at, last, out)? {
                    Some(next) => at = self.field_end(rows, open.position, buf, next, out)?,
                    None => return Ok(None),
                }
            }
            let Some(&byte) = buf.get(at) else {
                return Ok(None);
            };
            match rows.phase {
                Phase::Header => match byte {
                    b' ' | b'\t' | b'\r' => at += 1,
                    b'\n' => {
                        rows.phase = Phase::LineStart;
                        at += 1;
                    }
                    _ => {
                        return Err(Stop::Error(
                            at,
                            unexpected(byte, "after COPY ... FROM stdin;"),
                        ));
                    }
                },
                Phase::LineStart if byte == b'\\' => {
                    let rest = &buf[at..];
                    if rest.len() < 4 && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    let end_mark = [&b"\\.\n"[..], b"\\.\r\n", b"\\."]
                        .into_iter()
                        .find(|mark| rest.starts_with(mark) && (mark.len() > 2 || rest.len() == 2));
                    match end_mark {
                        Some(mark) => return Ok(Some(at + mark.len())),
                        None => {
                            self.start_row(rows);
                            rows.phase = Phase::Value(0);
                        }
                    }
                }
                // A row of a table without columns (`CREATE TABLE t ()`) is an empty line.
                Phase::LineStart if byte == b'\n' && rows.positions.is_empty() => {
                    self.start_row(rows);
                    self.end_row_piece(out, true);
                    at += 1;
                }
                Phase::LineStart => {
                    self.start_row(rows);
                    rows.phase = Phase::Value(0);
                }
                Phase::Value(p) => {
                    let Some(&position) = rows.positions.get(p) else {
                        let message = format!("a row of more than {} fields", rows.positions.len());
                        return Err(Stop::Error(at, message));
                    };
                    // Where the field ends, or where this buffer's piece of it does.
                    let (end, open) = match copy_field_body(buf, at, last) {
                        Body::Closed { content_end, .. } => (content_end, false),
                        Body::Open => (buf.len(), true),
                        Body::NeedMore(k) => (k, true),
                    };
                    if open && buf.len() - at < 3 && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    let null = &buf[at..end] == b"\\N";
                    if null {
                        self.null_cell(rows, position);
                    }
                    let position = Position {
                        text: position.text && !null,
                        kept: position.kept && !null,
                        ..position
                    };
                    let cell = self.new_cell(position);
                    self.piece(rows, position, cell, buf, at..end, out);
                    if !open {
                        at = self.field_end(rows, p, buf, end, out)?;
                        continue;
                    }
                    rows.open = Some(OpenValue {
                        position: p,
                        cell,
                        text: position.text,
                        quote: FIELD,
                        backslash: false,
                    });
                    return match end < buf.len() {
                        true => Err(Stop::NeedMore(end)),
                        false => Ok(None),
                    };
                }
                _ => return Err(Stop::Error(at, unexpected(byte, "in COPY data"))),
            }
        }
    }

    /// After the field at position `p`, ended by the tab or newline at `buf[end]`.
    fn field_end(
        &mut self,
        rows: &mut Rows,
        p: usize,
        buf: &[u8],
        end: usize,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        if buf[end] == b'\t' {
            rows.phase = Phase::Value(p + 1);
            return Ok(end + 1);
        }
        if p + 1 != rows.positions.len() {
            let message = format!(
                "a row of {} fields for {} columns",
                p + 1,
                rows.positions.len()
            );
            return Err(Stop::Error(end, message));
        }
        self.end_row_piece(out, true);
        rows.phase = Phase::LineStart;
        Ok(end + 1)
    }
}

/// Whether `byte` ends a bare literal in a tuple.
fn ends_bare(byte: u8) -> bool {
    matches!(byte, b',' | b')' | b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes of a bare literal: a number such as `-1.5e+3`, `0x4142` or `0b101`, or a keyword.
fn is_literal_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'+')
}

fn unexpected(byte: u8, place: &str) -> String {
    match byte {
        0x21..=0x7E => format!("unexpected `{}` {place}", byte as char),
        _ => format!("unexpected byte 0x{byte:02x} {place}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value as the tests see it: its table and column (or `ddl`), its row label and its
    /// bytes (pieces joined).
    type Found = (String, String, Vec<u8>);

    /// An edit as the tests see it: the bytes replaced, and by what.
    type Edited = (String, &'static str);

    /// Lexes `input` cut into buffers at `cuts`, carrying what a buffer leaves over to the
    /// next, as the driver does; returns the text values and the edited bytes.
    fn lex_cut(
        dialect: SqlDialect,
        convert: bool,
        input: &[u8],
        cuts: &[usize],
    ) -> Result<(Vec<Found>, Vec<Edited>, Lexer), LexError> {
        lex_cut_with(Lexer::new(dialect, convert), input, cuts)
    }

    /// [`lex_cut`] with a lexer made ready beforehand.
    fn lex_cut_with(
        mut lexer: Lexer,
        input: &[u8],
        cuts: &[usize],
    ) -> Result<(Vec<Found>, Vec<Edited>, Lexer), LexError> {
        let mut lexed = Lexed::default();
        let mut found: Vec<(u64, Found)> = Vec::new();
        let mut edits = Vec::new();
        let mut tail: Vec<u8> = Vec::new();
        let mut bounds: Vec<usize> = cuts.to_vec();
        bounds.push(input.len());
        let mut from = 0;
        for (i, &to) in bounds.iter().enumerate() {
            let last = i + 1 == bounds.len();
            let mut buffer = std::mem::take(&mut tail);
            buffer.extend_from_slice(&input[from..to.max(from)]);
            from = to.max(from);
            let consumed = lexer.lex(&buffer, last, &mut lexed)?;
            for value in &lexed.values {
                let bytes = buffer[value.span.clone()].to_vec();
                let (table, row) = match value.place {
                    Place::Cell { table, column, row } => {
                        let table = &lexer.schema.tables[table as usize];
                        let column = &table.columns[column as usize].name;
                        let kept = if value.text { "" } else { " (kept)" };
                        let name = format!("{}.{column}{kept}", table.name);
                        let row = &lexed.rows[row as usize];
                        let key = String::from_utf8_lossy(&lexed.keys[row.key.clone()]);
                        (name, format!("{}:{key}", row.ordinal))
                    }
                    Place::Definition => ("ddl".into(), String::new()),
                };
                match found.last_mut() {
                    Some((cell, (_, _, joined))) if *cell == value.cell => joined.extend(bytes),
                    _ => found.push((value.cell, (table, row, bytes))),
                }
            }
            for edit in &lexed.edits {
                edits.push((
                    String::from_utf8_lossy(&buffer[edit.span.clone()]).into_owned(),
                    edit.text,
                ));
            }
            tail = buffer[consumed..].to_vec();
        }
        Ok((found.into_iter().map(|(_, f)| f).collect(), edits, lexer))
    }

    fn lex_whole(dialect: SqlDialect, input: &str) -> Result<Vec<Found>, LexError> {
        lex_cut(dialect, false, input.as_bytes(), &[]).map(|(found, _, _)| found)
    }

    /// Lexes `input` whole, checks that a buffer ending at any byte finds the same values, and
    /// returns them, with the lexer that read it whole.
    fn lex_at_every_cut(dialect: SqlDialect, input: &[u8]) -> (Vec<Found>, Lexer) {
        let (got, _, lexer) = match lex_cut(dialect, false, input, &[]) {
            Ok(whole) => whole,
            Err(error) => panic!("{error:?}"),
        };
        for cut in 1..input.len() {
            let cut_up = lex_cut(dialect, false, input, &[cut]);
            assert_eq!(
                cut_up.map(|(found, _, _)| found).as_ref(),
                Ok(&got),
                "cut at {cut}"
            );
        }
        (got, lexer)
    }

    fn found(table: &str, row: &str, bytes: &str) -> Found {
        (table.into(), row.into(), bytes.as_bytes().to_vec())
    }

    const MYSQL: &str = "-- MariaDB dump 10.19
/*M!999999\\- enable the sandbox mode */ 
/*!40101 SET NAMES latin1 */;
CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `name` varchar(100) DEFAULT NULL COMMENT 'nÃ©',
  `data` blob,
  `code` char(2) CHARACTER SET latin1 COLLATE latin1_bin,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO `t` VALUES (1,'a\\\\b\\'c\\\"d\\0e\\nf\\rg\\Zh''i','Ã©\\'\\0',NULL),(2,_binary 'Ã©',0x41C3A9,'x'),
(-3,_utf8mb4'cafÃ©',X'C3A9',DEFAULT),(4,\"dq\",b'101','é');
INSERT INTO `t` (`code`, `id`, `data`, `name`) VALUES ('c',5,'Ã©','n');
DELIMITER ;;
/*!50003 CREATE*/ /*!50003 TRIGGER `x` BEFORE INSERT ON `t` FOR EACH ROW SET NEW.name = 'a;b' */;;
DELIMITER ;
LOCK TABLES `t` WRITE;
UNLOCK TABLES;
-- Dump completed
";

    fn mysql_expected() -> Vec<Found> {
        vec![
            found("ddl", "", "nÃ©"),
            found("t.name", "1:1", "a\\\\b\\'c\\\"d\\0e\\nf\\rg\\Zh''i"),
            found("t.code", "2:2", "x"),
            found("t.data (kept)", "1:1", "Ã©\\'\\0"),
            found("t.name (kept)", "2:2", "Ã©"),
            found("t.data (kept)", "3:-3", "C3A9"),
            found("t.data (kept)", "4:4", "101"),
            found("t.data (kept)", "5:5", "Ã©"),
            found("t.code", "4:4", "é"),
            found("t.name", "4:4", "dq"),
            found("t.name", "3:-3", "cafÃ©"),
            found("t.code", "5:5", "c"),
            found("t.name", "5:5", "n"),
        ]
    }

    #[test]
    fn mysql_values_of_text_columns_only() {
        let mut got = match lex_whole(SqlDialect::MySql, MYSQL) {
            Ok(got) => got,
            Err(error) => panic!("{error:?}"),
        };
        let mut expected = mysql_expected();
        got.sort();
        expected.sort();
        assert_eq!(got, expected);
    }

    /// The values and edits found with `input` cut at `cuts`, rows named by number only: a
    /// row cut by the end of a buffer before its key was read is reported without it.
    fn by_number(input: &[u8], cuts: &[usize]) -> Result<(Vec<Found>, Vec<Edited>), LexError> {
        let (found, edits, _) = lex_cut(SqlDialect::MySql, true, input, cuts)?;
        let found = found
            .into_iter()
            .map(|(table, row, bytes)| {
                (table, row.split(':').next().unwrap_or("").to_owned(), bytes)
            })
            .collect();
        Ok((found, edits))
    }

    #[test]
    fn every_cut_gives_the_same_values() {
        let input = MYSQL.as_bytes();
        let whole = by_number(input, &[]);
        for cut in 1..input.len() {
            assert_eq!(by_number(input, &[cut]), whole, "cut at {cut}");
        }
        let cuts: Vec<usize> = (3..input.len()).step_by(7).collect();
        assert_eq!(by_number(input, &cuts), whole);
    }

    #[test]
    fn convert_finds_the_latin1_declarations() {
        let (_, edits, _) = match lex_cut(SqlDialect::MySql, true, MYSQL.as_bytes(), &[]) {
            Ok(result) => result,
            Err(error) => panic!("{error:?}"),
        };
        let edits: Vec<(&str, &str)> = edits.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        assert_eq!(
            edits,
            [
                ("latin1", "utf8mb4"),
                ("latin1", "utf8mb4"),
                ("latin1_bin", "utf8mb4_bin"),
                ("latin1", "utf8mb4"),
            ]
        );
    }

    #[test]
    fn counts_rows_and_cells() {
        let Ok((_, _, lexer)) = lex_cut(SqlDialect::MySql, false, MYSQL.as_bytes(), &[40, 400])
        else {
            panic!("lexes");
        };
        let table = &lexer.schema.tables[0];
        assert_eq!(table.rows, 5);
        assert!(table.columns.iter().all(|c| c.cells == 5));
        assert_eq!(table.primary_key, [0]);
        // `NULL` once in `code` (row 1); `DEFAULT` (row 3) is no `NULL`.
        let nulls: Vec<u64> = table.columns.iter().map(|c| c.nulls).collect();
        assert_eq!(nulls, [0, 0, 0, 1]);
    }

    #[test]
    fn nulls_are_counted_once_wherever_a_buffer_ends() {
        let input = POSTGRESQL.as_bytes();
        for cut in 1..input.len() {
            let Ok((_, _, lexer)) = lex_cut(SqlDialect::PostgreSql, false, input, &[cut]) else {
                panic!("lexes with a cut at {cut}");
            };
            // `\N` in COPY (note of row 1, name and data of row 2), `NULL` nowhere else.
            let nulls: Vec<u64> = lexer.schema.tables[0]
                .columns
                .iter()
                .map(|c| c.nulls)
                .collect();
            assert_eq!(nulls, [0, 1, 1, 1], "cut at {cut}");
        }
        let input =
            "CREATE TABLE t (a int, b text);\nINSERT INTO t VALUES (NULL,null),(1,'NULL');\n";
        for cut in 1..input.len() {
            let Ok((_, _, lexer)) = lex_cut(SqlDialect::MySql, false, input.as_bytes(), &[cut])
            else {
                panic!("lexes with a cut at {cut}");
            };
            let nulls: Vec<u64> = lexer.schema.tables[0]
                .columns
                .iter()
                .map(|c| c.nulls)
                .collect();
            assert_eq!(nulls, [1, 1], "cut at {cut}");
        }
    }

    #[test]
    fn data_only_reads_with_a_lent_schema_and_its_own_definitions_win() {
        let Ok((_, _, schema_dump)) = lex_cut(
            SqlDialect::MySql,
            false,
            b"CREATE TABLE `t` (`id` int, `a` text, `b` text, PRIMARY KEY (`id`));\n\
              USE `elsewhere`;\nDELIMITER ;;\n",
            &[],
        ) else {
            panic!("the schema lexes");
        };
        let mut lexer = Lexer::new(SqlDialect::MySql, false);
        lexer.schema = schema_dump.schema.lend();
        let data = b"INSERT INTO `t` VALUES (7,'x','y');\n\
                     CREATE TABLE `t` (`id` int, `a` text, `b` blob);\nINSERT INTO `t` VALUES (8,'p','q');\n";
        let mut lexed = Lexed::default();
        // Neither the `USE` nor the `DELIMITER` of the schema dump carries over.
        assert_eq!(lexer.lex(data, true, &mut lexed), Ok(data.len()));
        let kinds: Vec<bool> = lexed.values.iter().map(|v| v.text).collect();
        assert_eq!(kinds, [true, true, true, false]);
        assert_eq!(lexed.keys, b"7");
        let undefined = Lexer::new(SqlDialect::MySql, false).lex(data, true, &mut lexed);
        assert!(undefined.is_err_and(|e| e.undefined_table && e.line == 1));
    }

    #[test]
    fn lines_of_many_megabytes() {
        let text = "Ã©".repeat(1 << 20);
        let hex = "41".repeat(3 << 20);
        let input = format!(
            "CREATE TABLE t (id int, a text, b blob, PRIMARY KEY (id));\n\
             INSERT INTO t VALUES (1,'{text}',0x{hex}),(2,'x\\'y','{text}');\n"
        );
        let bytes = input.as_bytes();
        let cuts: Vec<usize> = (1..bytes.len()).step_by(1 << 20).map(|c| c + 13).collect();
        let Ok((got, _, _)) = lex_cut(SqlDialect::MySql, false, bytes, &cuts) else {
            panic!("lexes");
        };
        let texts: Vec<&Found> = got.iter().filter(|f| !f.0.ends_with("(kept)")).collect();
        assert!(texts.len() == 2 && texts[0] == &found("t.a", "1:1", &text));
        assert_eq!(texts[1], &found("t.a", "2:2", "x\\'y"));
        // The blob of row 2 is kept, whole; the hexadecimal literal of row 1 is no string.
        let kept: Vec<&Found> = got.iter().filter(|f| f.0.ends_with("(kept)")).collect();
        assert!(kept.len() == 1 && kept[0] == &found("t.b (kept)", "2:2", &text));
    }

    #[test]
    fn a_row_key_is_whole_or_missing() {
        let input = "CREATE TABLE t (a int, note text, b varchar(5), PRIMARY KEY (a, b));\n\
                     INSERT INTO t VALUES (1,'x','k'),(2,'y','l');\n";
        for cut in 0..=input.len() {
            let Ok((found, _, _)) = lex_cut(SqlDialect::MySql, false, input.as_bytes(), &[cut])
            else {
                panic!("lexes with a cut at {cut}");
            };
            let notes: Vec<&str> = found
                .iter()
                .filter(|f| f.0 == "t.note")
                .map(|f| f.1.as_str())
                .collect();
            assert_eq!(notes.len(), 2, "cut at {cut}");
            assert!(
                ["1:1\0k", "1:"].contains(&notes[0]),
                "cut at {cut}: {notes:?}"
            );
            assert!(
                ["2:2\0l", "2:"].contains(&notes[1]),
                "cut at {cut}: {notes:?}"
            );
        }
    }

    const POSTGRESQL: &str = "--
-- PostgreSQL database dump
--

\\restrict abc
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
CREATE FUNCTION public.f() RETURNS text LANGUAGE sql AS $_$ SELECT 'x;y' $_$;
CREATE TABLE public.t (
    id integer NOT NULL,
    name text,
    data bytea,
    note character varying(20)
);
COMMENT ON COLUMN public.t.name IS 'cafÃ©';
COPY public.t (id, name, data, note) FROM stdin;
1\tcafÃ©\\tx\t\\\\x43c3a9\t\\N
2\t\\N\t\\N\tÃ©
\\.
INSERT INTO public.t VALUES (3, 'it''s', '\\xC3A9', E'a\\'b');
\\unrestrict abc
";

    #[test]
    fn postgresql_copy_and_inserts() {
        let got = lex_whole(SqlDialect::PostgreSql, POSTGRESQL);
        let expected = vec![
            found("ddl", "", "cafÃ©"),
            found("public.t.name", "1:", "cafÃ©\\tx"),
            found("public.t.data (kept)", "1:", "\\\\x43c3a9"),
            found("public.t.note", "2:", "Ã©"),
            found("public.t.name", "3:", "it''s"),
            found("public.t.data (kept)", "3:", "\\xC3A9"),
            found("public.t.note", "3:", "a\\'b"),
        ];
        assert_eq!(got, Ok(expected));
        let input = POSTGRESQL.as_bytes();
        for cut in (1..input.len()).step_by(3) {
            let cut_up = lex_cut(SqlDialect::PostgreSql, false, input, &[cut]).map(|(f, _, _)| f);
            assert_eq!(
                cut_up,
                lex_whole(SqlDialect::PostgreSql, POSTGRESQL),
                "cut at {cut}"
            );
        }
    }

    /// What pg_dump writes that MySQL has no counterpart for: a SQL-standard routine body
    /// (statements ending in `;` between `BEGIN ATOMIC` and `END`, a `CASE ... END` among
    /// them), a table without columns (its rows are empty lines in COPY, `DEFAULT VALUES` with
    /// `--inserts`), and COPY fields where a backslash comes before a raw tab or newline (data,
    /// as COPY FROM reads it) or before another backslash (then the tab ends the field).
    const POSTGRESQL_ROUTINES_AND_ESCAPES: &str = "SET standard_conforming_strings = on;
CREATE TABLE public.t (
    id integer NOT NULL,
    name text,
    note text
);
CREATE PROCEDURE public.ins(IN x text)
    LANGUAGE sql
    BEGIN ATOMIC
 SELECT 1;
 INSERT INTO public.t (id, name, note)
   VALUES (1, 'cafÃ©'::text, x);
 SELECT
         CASE
             WHEN (x = 'a'::text) THEN 1
             ELSE 2
         END AS \"case\";
END;
CREATE OR REPLACE FUNCTION public.plus1(a integer) RETURNS integer
    LANGUAGE sql
    RETURN (a + 1);
CREATE TABLE public.e (
);
COPY public.e  FROM stdin;


\\.
INSERT INTO public.e DEFAULT VALUES;
COPY public.t (id, name, note) FROM stdin;
1\tx\\\ty\tÃ©
2\tl1\\\nl2\tn
3\t\\\\\tz
\\.
";

    #[test]
    fn postgresql_routine_bodies_empty_tables_and_escaped_copy_fields() {
        let input = POSTGRESQL_ROUTINES_AND_ESCAPES.as_bytes();
        let (got, lexer) = lex_at_every_cut(SqlDialect::PostgreSql, input);
        assert_eq!(
            got,
            vec![
                found("public.t.name", "1:", "x\\\ty"),
                found("public.t.note", "1:", "Ã©"),
                found("public.t.name", "2:", "l1\\\nl2"),
                found("public.t.note", "2:", "n"),
                found("public.t.name", "3:", "\\\\"),
                found("public.t.note", "3:", "z"),
            ]
        );
        let rows: Vec<(&str, u64)> = lexer
            .schema
            .tables
            .iter()
            .map(|t| (t.name.as_str(), t.rows))
            .collect();
        assert_eq!(rows, [("public.t", 3), ("public.e", 3)]);
    }

    #[test]
    fn partitions_and_like_tables_take_their_parents_columns() {
        let input = "CREATE TABLE public.m (id integer, city text, data bytea) PARTITION BY RANGE (id);\n\
                     CREATE TABLE public.m_1 PARTITION OF public.m FOR VALUES FROM (1) TO (9);\n\
                     COPY public.m_1 (id, city, data) FROM stdin;\n1\tOsl\\\\o\t\\\\x00\n\\.\n";
        let got = lex_whole(SqlDialect::PostgreSql, input);
        assert_eq!(
            got,
            Ok(vec![
                found("public.m_1.city", "1:", "Osl\\\\o"),
                found("public.m_1.data (kept)", "1:", "\\\\x00"),
            ])
        );
        let input = "CREATE TABLE `a` (`id` int, `t` text, PRIMARY KEY (`id`));\n\
                     CREATE TABLE `b` LIKE `a`;\nINSERT INTO `b` VALUES (7,'x');\n";
        assert_eq!(
            lex_whole(SqlDialect::MySql, input),
            Ok(vec![found("b.t", "1:7", "x")])
        );
    }

    fn error_of(dialect: SqlDialect, input: &str) -> (u64, String) {
        match lex_whole(dialect, input) {
            Err(LexError { line, message, .. }) => (line, message),
            Ok(found) => panic!("no error: {found:?}"),
        }
    }

    /// Runs `f` on a thread of its own and fails if it is not done within a few seconds: a
    /// lexer that loops forever must fail its test, not hang the suite.
    fn finishes<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        use std::sync::mpsc::RecvTimeoutError;
        let (send, receive) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || send.send(f()));
        match receive.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(result) => result,
            Err(RecvTimeoutError::Disconnected) => match thread.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(_) => unreachable!("a thread that sent nothing ended"),
            },
            Err(RecvTimeoutError::Timeout) => panic!("{what}: no answer within 10 s"),
        }
    }

    #[test]
    fn a_comment_cut_by_a_buffer_end_is_read_on_in_the_next_buffer() {
        // No `*` between the cut and the comment's end: the buffer ends inside it.
        let input =
            b"/* a comment with no star before its end */\nCREATE TABLE t (id int, a text);\n\
            /* another\n one */ INSERT INTO t VALUES (1,'x');\n/* a ** / * b */\n";
        for dialect in [SqlDialect::MySql, SqlDialect::PostgreSql] {
            let (got, _) = finishes("lexing", move || lex_at_every_cut(dialect, input));
            assert_eq!(got, [found("t.a", "1:", "x")], "{dialect:?}");
        }
        let nested = b"/* a /* nested */ comment */ SELECT 1;\n";
        let (got, _) = finishes("lexing", || {
            lex_at_every_cut(SqlDialect::PostgreSql, nested)
        });
        assert!(got.is_empty());
    }

    #[test]
    fn a_create_of_many_modifiers_is_read_in_linear_time() {
        // Each token of a statement not yet classified is looked at once, not once per token
        // after it.
        let input = format!("CREATE {}TABLE t (a text);\n", "OR ".repeat(300_000));
        let found = finishes("lexing", move || lex_whole(SqlDialect::MySql, &input));
        assert_eq!(found, Ok(vec![]));
    }

    #[test]
    fn a_dump_that_ends_inside_a_comment_is_an_error_wherever_buffers_end() {
        for dialect in [SqlDialect::MySql, SqlDialect::PostgreSql] {
            for input in [
                "/*",
                "/* x",
                "/* x *",
                "/**",
                "SELECT 1;\n/* x\n",
                "/* a */ /* b",
            ] {
                let lines = 1 + input.matches('\n').count() as u64;
                for cut in 0..=input.len() {
                    let cuts = if cut == 0 { vec![] } else { vec![cut] };
                    let result = finishes("lexing", move || {
                        lex_cut(dialect, false, input.as_bytes(), &cuts).map(|(found, ..)| found)
                    });
                    let error = LexError {
                        line: lines,
                        offset: input.len() as u64,
                        message: "the dump ends inside a comment".into(),
                        undefined_table: false,
                    };
                    assert_eq!(result, Err(error), "{dialect:?} {input:?} cut at {cut}");
                }
            }
        }
    }

    #[test]
    fn what_is_not_understood_is_an_error_naming_the_line() {
        let table = "CREATE TABLE t (id int, a text);\n";
        let mysql = SqlDialect::MySql;
        let (line, message) = error_of(mysql, &format!("{table}\nFROBNICATE t;\n"));
        assert_eq!(
            (line, message.as_str()),
            (3, "unexpected statement `FROBNICATE`")
        );
        let (line, message) = error_of(mysql, "\nINSERT INTO u VALUES (1,'a');\n");
        assert_eq!(line, 2);
        assert!(message.contains("no CREATE TABLE"), "{message}");
        let (line, message) = error_of(
            mysql,
            &format!("{table}INSERT INTO t VALUES (1,'a'),\n(2);\n"),
        );
        assert_eq!(
            (line, message.as_str()),
            (3, "a row of 1 values for 2 columns")
        );
        let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t VALUES (1,'a',3);\n"));
        assert_eq!((line, message.as_str()), (2, "a row of more than 2 values"));
        let (line, message) = error_of(
            mysql,
            &format!("{table}INSERT INTO t VALUES (1,'a');\nINSERT INTO t VALUES (1,'a\n"),
        );
        assert_eq!(line, 3);
        assert!(message.contains("unterminated"), "{message}");
        let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t VALUES (1,a);\n"));
        assert_eq!((line, message.as_str()), (2, "unexpected value `a`"));
        let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t (b) VALUES (1);\n"));
        assert_eq!((line, message.as_str()), (2, "table `t` has no column `b`"));
        let postgresql = SqlDialect::PostgreSql;
        let copy = "CREATE TABLE t (id int, a text);\nCOPY t (id, a) FROM stdin;\n";
        let (line, message) = error_of(postgresql, &format!("{copy}1\tx\n2\n\\.\n"));
        assert_eq!(
            (line, message.as_str()),
            (4, "a row of 1 fields for 2 columns")
        );
        let (line, message) = error_of(postgresql, &format!("{copy}1\tx\n"));
        assert_eq!(line, 4);
        assert!(message.contains("COPY data"), "{message}");
    }

    #[test]
    fn a_key_added_before_the_data_names_its_rows_and_one_added_after_it_none() {
        let pg = SqlDialect::PostgreSql;
        let table = "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n";
        let key = "ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n";
        let data = "COPY public.t (id, name) FROM stdin;\n7\tx\n\\.\n";
        // pg_dump --schema-only, lent to pg_dump --data-only (as --schema does).
        let Ok((_, _, schema_dump)) = lex_cut(pg, false, format!("{table}{key}").as_bytes(), &[])
        else {
            panic!("the schema lexes");
        };
        let mut lexer = Lexer::new(pg, false);
        lexer.schema = schema_dump.schema.lend();
        let mut lexed = Lexed::default();
        assert_eq!(lexer.lex(data.as_bytes(), true, &mut lexed), Ok(data.len()));
        assert_eq!(lexed.keys, b"7");
        // One full pg_dump: the key comes after the data, which stays named by number.
        let full = format!("{table}{data}{key}");
        for cut in 0..=full.len() {
            let Ok((values, _, lexer)) = lex_cut(pg, false, full.as_bytes(), &[cut]) else {
                panic!("lexes with a cut at {cut}");
            };
            assert_eq!(values, [found("public.t.name", "1:", "x")], "cut at {cut}");
            assert!(
                lexer.schema.tables[0].primary_key.is_empty(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn keys_declared_after_the_data_name_its_rows_unless_the_table_declares_its_own() {
        let pg = SqlDialect::PostgreSql;
        let key = |table: &str, columns: &str| {
            format!(
                "--\n-- Name: {table} {table}_pkey; Type: CONSTRAINT; Schema: public; Owner: o\n\
                 --\n\nALTER TABLE ONLY public.{table}\n    \
                 ADD CONSTRAINT {table}_pkey PRIMARY KEY ({columns});\n\n"
            )
        };
        // `own` declares a key of its own; `gone`'s later key names a column it lacks.
        let full = format!(
            "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n\
             CREATE TABLE public.own (\n    id integer PRIMARY KEY,\n    name text\n);\n\
             CREATE TABLE public.gone (\n    id integer,\n    name text\n);\n\
             COPY public.t (id, name) FROM stdin;\n7\tx\n\\.\n\
             COPY public.own (id, name) FROM stdin;\n8\ty\n\\.\n\
             COPY public.gone (id, name) FROM stdin;\n9\tz\n\\.\n\
             {}{}{}",
            key("t", "id"),
            key("own", "name"),
            key("gone", "nowhere")
        );
        let expected = [
            found("public.t.name", "1:7", "x"),
            found("public.own.name", "1:8", "y"),
            found("public.gone.name", "1:", "z"),
        ];
        for cut in 0..=full.len() {
            let mut lexer = Lexer::new(pg, false);
            lexer.later_keys = LaterKeys::in_window(full.as_bytes(), 0);
            let Ok((values, _, _)) = lex_cut_with(lexer, full.as_bytes(), &[cut]) else {
                panic!("lexes with a cut at {cut}");
            };
            assert_eq!(values, expected, "cut at {cut}");
        }
    }

    /// A typed table as pg_dump writes it, its type first, and a domain over text: their
    /// values and the domain's check are text, an enum's label is not.
    const POSTGRESQL_TYPES: &str = "CREATE DOMAIN public.lang AS text
\tCONSTRAINT lang_check CHECK ((VALUE <> 'cafÃ©'::text));
CREATE TYPE public.mood AS ENUM (
    'naÃ¯ve'
);
CREATE TYPE public.pair AS (
\ta text,
\tb integer,
\tl public.lang,
\tm public.mood
);
CREATE TABLE public.typed OF public.pair (
    b NOT NULL
);
COPY public.typed (a, b, l, m) FROM stdin;
GrÃ¼Ãe\t1\tnaÃ¯ve\tnaÃ¯ve
\\.
ALTER TABLE ONLY public.typed
    ADD CONSTRAINT typed_pkey PRIMARY KEY (b);
";

    #[test]
    fn typed_tables_and_domains_over_text() {
        let input = POSTGRESQL_TYPES.as_bytes();
        let (got, _) = lex_at_every_cut(SqlDialect::PostgreSql, input);
        assert_eq!(
            got,
            vec![
                found("ddl", "", "cafÃ©"),
                found("public.typed.a", "1:", "GrÃ¼Ãe"),
                found("public.typed.l", "1:", "naÃ¯ve"),
            ]
        );
        // Without its type (pg_dump -t leaves it out), the table's data cannot be read.
        let typed_at = POSTGRESQL_TYPES.find("CREATE TABLE").unwrap_or_default();
        let (line, message) = error_of(SqlDialect::PostgreSql, &POSTGRESQL_TYPES[typed_at..]);
        assert_eq!(line, 4);
        assert!(
            message.starts_with(
                "data for table `public.typed`, a typed table (OF public.pair) whose columns are \
                 those of the type `public.pair`, which no CREATE TYPE before it defines"
            ),
            "{message}"
        );
    }

    /// A pg_dump whose checks and a child's default went through a LATIN1 client, garbled:
    /// a check in the table, one `NOT VALID` added after the data, the default of a column the
    /// child inherits, set apart from it (the literals of the check on a number stay).
    const POSTGRESQL_CHECKS: &str = "CREATE TABLE public.orders (
    id integer NOT NULL,
    status character varying(20),
    n integer,
    CONSTRAINT orders_status_check CHECK (((status)::text = ANY ((ARRAY['payÃ©'::character varying, 'annulÃ©'::character varying])::text[]))),
    CONSTRAINT orders_n_check CHECK (((n)::text <> 'Ã©'::text))
);
CREATE TABLE public.child (
)
INHERITS (public.orders);
COPY public.orders (id, status, n) FROM stdin;
1\tpayÃ©\t2
\\.
ALTER TABLE ONLY public.child ALTER COLUMN status SET DEFAULT 'reÃ§u'::character varying;
ALTER TABLE ONLY public.child ALTER COLUMN n SET DEFAULT 0;
ALTER TABLE public.orders
    ADD CONSTRAINT orders_later_check CHECK (((status)::text <> 'dÃ»'::text)) NOT VALID;
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
";

    #[test]
    fn the_text_literals_of_checks_and_defaults_in_and_after_create_table() {
        let input = POSTGRESQL_CHECKS.as_bytes();
        let (got, _) = lex_at_every_cut(SqlDialect::PostgreSql, input);
        assert_eq!(
            got,
            vec![
                found("ddl", "", "payÃ©"),
                found("ddl", "", "annulÃ©"),
                found("public.orders.status", "1:", "payÃ©"),
                found("ddl", "", "reÃ§u"),
                found("ddl", "", "dÃ»"),
            ]
        );
    }
}
