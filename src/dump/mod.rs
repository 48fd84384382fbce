//! Dump-aware mode: `scan` and `fix` of `mysqldump`/`mariadb-dump` and `pg_dump` (plain
//! format) files that repair only the values of text columns.
//!
//! A dump is more than text. Its BLOB, BINARY, VARBINARY and `bytea` columns hold bytes, and
//! bytes may look double-encoded by pure chance (or because they are UTF-8 text stored as a
//! blob): repairing them would corrupt the data. Its numbers, names, comments and DDL are not
//! what a latin1 connection garbled. So in a dump, the scanner judges runs as it always does,
//! but a repair only lands inside the value of a text column (`ColumnKind::Text`, as the
//! `CREATE TABLE` declares it) or a string literal of the DDL that is text; every other byte is
//! written as it was read. The DDL's text literals are those a schema created through the same
//! wrong connection holds as garbled as the data, and that must be repaired with it for the
//! repaired dump to load and mean what it meant: comments (`COMMENT '...'`, `COMMENT ON`); a
//! text column's default (in its `CREATE TABLE`, or set by `ALTER TABLE ... ALTER COLUMN c SET
//! DEFAULT`), and its MySQL `ENUM` and `SET` values; the literals of a check that names a text
//! column (on a column, a table-level `CONSTRAINT c CHECK (...)`, or one added by `ALTER TABLE
//! ... ADD CONSTRAINT`: left garbled, it would refuse the repaired rows), but not those that
//! hold bytes (`_binary'...'`, `X'...'`, `'...'::bytea`) or name an enum's label
//! (`'...'::public.mood`, left alone with the label); the predicate of a PostgreSQL partial
//! index, by the same rule (left garbled, it would no longer cover the repaired rows); and a
//! PostgreSQL domain over text's default and checks.
//!
//! - `lexer.rs`: walks the dump in order, block by block, keeping its state from one block to
//!   the next (a `CREATE TABLE` over several lines, a `COPY` block, a value in a line of many
//!   megabytes), and says where each value is and to which table, column and row it belongs.
//!   Built on `crate::sql`'s tokenizer (the two dialects' lexical rules), `ddl` (statements read whole)
//!   and `schema.rs` (tables and column kinds).
//! - `sink.rs`: between the scanner and the output: passes runs inside text values on as
//!   found, and every other run as left alone; counts per column; writes the repair; tells the
//!   audit log ([`DumpAudit`]) every change with the table, column and row it lies in.
//! - `report`: the per-table, per-column view of `scan` (text and JSON), and [`RowId`] and
//!   [`Cell`], the way both `scan` and the audit log name a row and a value in it.
//! - `later_keys.rs`: a look at the end of a full `pg_dump` file, before it is lexed, for the
//!   primary keys it declares only after its data, so that `scan` and the audit log name its
//!   rows by key too (a `fix` without audit log names none, and does not look).
//!
//! A dump is recognised from its header (`-- MySQL dump`, `-- MariaDB dump`, `-- PostgreSQL
//! database dump`) or forced with `--format sql`; what the lexer does not understand is an
//! error naming the line, never a silent fallback to the plain repair. With
//! `--convert-charset utf8mb4`, `fix` also rewrites, so that the repaired dump loads as UTF-8,
//! every `latin1` the dump declares for what it creates or how it is read: the character sets
//! and collations of MySQL databases (`CREATE DATABASE`, and the `ALTER DATABASE` that
//! `mariadb-dump --routines` writes), of tables with text columns and of those columns; the
//! connection's (`SET NAMES latin1 [COLLATE ...]`, `SET CHARACTER SET latin1`) and the session
//! variables `character_set_client`, `character_set_results`, `character_set_connection` and
//! `collation_connection` (`SET character_set_client = latin1`); and in a PostgreSQL dump, with
//! `UTF8` for `utf8mb4`, `SET client_encoding = 'LATIN1'` (or `WIN1252`) and `CREATE DATABASE
//! ... ENCODING = 'LATIN1'` with the `latin1` codeset of its locales (`de_DE.ISO-8859-1` becomes
//! `de_DE.UTF-8`).
//!
//! A repair written into a MySQL text column stored in a single-byte character set (`latin1`,
//! `cp1251` and the others `schema.rs` lists; the column's own or its table's) is converted
//! into that set by the server that loads the dump, which turns every character the set lacks
//! into `?`, silently. So `fix` refuses to write such a repair unless `--convert-charset`
//! rewrites the set or `--keep-charset` says it is to stay ([`DumpOptions::loads_into`]). It
//! decides buffer by buffer, in order, before a buffer is written: the refusal comes before any
//! repaired byte of such a column, a file target is left as it was, and standard output stops
//! at the end of the last buffer written. PostgreSQL columns have no character set of their
//! own, and a server that cannot store a character refuses the row loudly: nothing is refused.
//!
//! A dump that holds only data (`mariadb-dump --no-create-info`, `pg_dump --data-only`) has no
//! `CREATE TABLE` to say which columns hold text: `Definitions` reads them from dumps of its
//! schema (`--schema`), and the lexer starts from those tables.
//!
//! The dump is read sequentially (the lexer's state runs from one block to the next): on two
//! threads, one reading and lexing, the other scanning and writing.

pub(crate) mod ddl;
mod definitions;
mod later_keys;
mod lexer;
pub(crate) mod report;
mod schema;
mod sink;
#[cfg(test)]
mod tiling;

use std::io::{self, Write};
use std::ops::{ControlFlow, Range};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, mpsc};

pub use definitions::Definitions;
pub use report::{
    BrokenCell, BrokenCellEnds, Cell, ColumnRecord, ColumnReport, DumpRecord, DumpReport, RowId,
    TableRecord, TableReport,
};
pub(crate) use schema::ColumnKind;
pub use sink::DumpAudit;

use crate::engine::blocks::BLOCK_SIZE;
use crate::engine::classify::{self, TextKind};
use crate::engine::{self, EngineOptions, Input, Written};
use crate::error::{DumpErrorKind, Error};
use crate::mojibake::counts::Sequences;
use crate::mojibake::{Counts, RecordedScan, Scanner, ScopedValue, Utf8};
use crate::sql::SqlDialect;
pub use lexer::LexError;
use lexer::{Lexed, Lexer, Place};
pub(crate) use report::add_keyed;
use schema::Schema;
use sink::{DumpSink, Failed, Findings, TableNames};

/// How an input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// A SQL dump if its header says so, plain text otherwise.
    #[default]
    Auto,
    /// A SQL dump (MySQL/MariaDB, or PostgreSQL when it looks like one), header or not.
    Sql,
    /// Plain text, even a dump: every run the rule accepts is repaired, wherever it is.
    Text,
}

/// The character set `--convert-charset` gives repaired text columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    Utf8mb4,
}

/// How a dump is read and repaired.
#[derive(Clone, Debug)]
pub struct DumpOptions {
    pub dialect: SqlDialect,
    /// Rewrite the `latin1` declarations of the dump (of databases, text columns and their
    /// tables, the connection and the session; see the module documentation) to this.
    pub convert_charset: Option<Charset>,
    /// The tables of dumps of the schema (`--schema`), for a dump that holds only data; a table
    /// the dump defines itself is read as it defines it.
    pub schema: Option<Arc<Definitions>>,
    /// Write repaired text into text columns that stay stored in a single-byte character set
    /// (`--keep-charset`) instead of refusing to (see [`DumpOptions::loads_into`]).
    pub keep_charset: bool,
}

impl DumpOptions {
    /// Whether repaired text may be written into a text column stored in the single-byte
    /// character set `charset`. Loaded into such a column, the repaired UTF-8 is converted by
    /// the server into that set, and every character the set lacks becomes `?` (or, read
    /// through `SET NAMES latin1`, the text is stored as garbled as before): so only when the
    /// user says the set is to stay (`--keep-charset`), or `--convert-charset` rewrites it
    /// (`latin1`; the columns of a table a `--schema` dump defines are out of its reach, and
    /// `fix` says so in a note of its own).
    pub fn loads_into(&self, charset: &str) -> bool {
        loads_into(self.convert_charset, self.keep_charset, charset)
    }
}

/// [`DumpOptions::loads_into`], of a fix with `convert_charset` and `keep_charset`.
fn loads_into(convert_charset: Option<Charset>, keep_charset: bool, charset: &str) -> bool {
    keep_charset || (convert_charset.is_some() && schema::is_latin1(charset))
}

/// A text column stored in a single-byte character set, into which a fix writes repaired text
/// that the character set may not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unloadable {
    pub table: String,
    pub column: String,
    pub charset: String,
}

/// How many columns a message about them names, before "and N more".
const COLUMNS_NAMED: usize = 4;

/// Of `columns` (table, column, the single-byte character set the column stores text in if
/// any, double-encoded characters a fix repairs in it), those that make a fix refuse to write
/// the dump: whose character set it does not load into ([`DumpOptions::loads_into`]).
fn unloadable<'a>(
    columns: impl Iterator<Item = (&'a str, &'a str, Option<&'a str>, u64)>,
    loads_into: impl Fn(&str) -> bool,
) -> Vec<Unloadable> {
    columns
        .filter_map(|(table, column, charset, repaired)| {
            let charset = charset.filter(|&charset| repaired > 0 && !loads_into(charset))?;
            Some(Unloadable {
                table: table.to_owned(),
                column: column.to_owned(),
                charset: charset.to_owned(),
            })
        })
        .collect()
}

/// [`unloadable`] of what `findings` repair in `tables` (the lexer's, by index).
fn unloadable_in(
    findings: &Findings,
    tables: &[TableNames],
    options: &DumpOptions,
) -> Vec<Unloadable> {
    let columns = tables
        .iter()
        .zip(&findings.columns)
        .flat_map(|(table, columns)| {
            columns.iter().enumerate().map(move |(index, column)| {
                let charset = table.single_byte.get(index).and_then(Option::as_deref);
                let name = table.column(index).unwrap_or_default();
                (
                    table.name.as_str(),
                    name,
                    charset,
                    column.counts.double_encoded,
                )
            })
        });
    unloadable(columns, |charset| options.loads_into(charset))
}

/// Why a fix of a dump holding repairs into `columns` (not empty) is refused, and what to do:
/// the text of the refusal, and of `--dry-run`'s warning.
pub(crate) fn unloadable_text(columns: &[Unloadable]) -> String {
    let mut named: Vec<String> = columns
        .iter()
        .take(COLUMNS_NAMED)
        .map(|c| format!("{}.{} ({})", c.table, c.column, c.charset))
        .collect();
    if columns.len() > COLUMNS_NAMED {
        named.push(format!("and {} more", columns.len() - COLUMNS_NAMED));
    }
    let all_latin1 = columns.iter().all(|c| schema::is_latin1(&c.charset));
    let remedy = match all_latin1 {
        true => {
            "run `undouble fix --convert-charset utf8mb4 ...` instead: it also rewrites their \
             latin1 declarations and the dump's SET NAMES to utf8mb4, so that the repaired dump \
             loads as UTF-8"
        }
        false => {
            "--convert-charset rewrites latin1 only: change the other sets to utf8mb4 in the \
             dump first (then --convert-charset utf8mb4 for latin1)"
        }
    };
    format!(
        "the repair would write UTF-8 text into columns stored in a single-byte character set: \
         {}. Loaded, the server converts it into that set, and every character the set lacks \
         becomes `?`; {remedy}. --keep-charset keeps the set: right only when the dump is \
         loaded through SET NAMES utf8mb4 and every repaired character exists in the set",
        named.join(", ")
    )
}

/// How far into an input its header is looked for: dump tools write it on the first lines
/// (MariaDB's after a `/*M!999999\- enable the sandbox mode */` line).
pub(crate) const HEADER_LIMIT: usize = 4096;

/// The dialect a dump's header names, if the head of the input is one.
pub fn dialect_from_header(head: &[u8]) -> Option<SqlDialect> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let head = &head[..head.len().min(HEADER_LIMIT)];
    // Every file a scan reads is asked this: a head without the comment opener every header
    // line starts with is answered by one search, and the lines of the others are found
    // with `memchr`, not byte by byte.
    static COMMENT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"-- "));
    COMMENT.find(head)?;
    let mut ends = memchr::memchr_iter(b'\n', head).chain([head.len()]);
    let mut start = 0;
    for _ in 0..16 {
        let Some(end) = ends.next() else {
            break;
        };
        let line = head[start..end].trim_ascii();
        if line.starts_with(b"-- MySQL dump") || line.starts_with(b"-- MariaDB dump") {
            return Some(SqlDialect::MySql);
        } else if line.starts_with(b"-- PostgreSQL database") {
            return Some(SqlDialect::PostgreSql);
        }
        start = end + 1;
    }
    None
}

/// The dialect of a dump without a header (`--format sql`): PostgreSQL if its head has the
/// marks of `pg_dump` output, MySQL otherwise.
fn guess_dialect(head: &[u8]) -> SqlDialect {
    let postgresql = head.split(|&b| b == b'\n').any(|line| {
        line.starts_with(b"\\connect")
            || line.starts_with(b"SET client_encoding")
            || (line.starts_with(b"COPY ") && line.trim_ascii_end().ends_with(b"FROM stdin;"))
            || memchr::memmem::find(line, b"pg_catalog.").is_some()
    });
    match postgresql {
        true => SqlDialect::PostgreSql,
        false => SqlDialect::MySql,
    }
}

/// Whether `input` is read as a dump under `format`, and in which dialect.
pub(crate) fn dialect_of(input: &Input, format: Format) -> Result<Option<SqlDialect>, Error> {
    if format == Format::Text {
        return Ok(None);
    }
    Ok(dialect_in(&input.head(HEADER_LIMIT)?, format))
}

/// [`dialect_of`] the input whose first bytes are `head` (all of them, or at least
/// [`HEADER_LIMIT`]), for a caller that has read them already.
pub(crate) fn dialect_in(head: &[u8], format: Format) -> Option<SqlDialect> {
    let head = &head[..head.len().min(HEADER_LIMIT)];
    match (format, dialect_from_header(head)) {
        (Format::Text, _) => None,
        (_, Some(dialect)) => Some(dialect),
        (Format::Sql, None) => Some(guess_dialect(head)),
        (_, None) => None,
    }
}

/// Tells what the dump `input` is, as [`classify::classify`] tells any input, by the same rule
/// on the same head, except that the bytes inside its binary values are not text: a dump
/// whose blobs hold raw bytes (`mariadb-dump` without `--hex-blob`) is still UTF-8 where it
/// holds text. The head is lexed as the dump's own pass would lex it (with the tables of the
/// `--schema` dumps), so the verdict comes before any output is written, for every
/// destination, and the same for a file and for a stream. A head the lexer cannot read is left
/// for the pass, which reports where it stops.
pub(crate) fn classify(input: &Input, options: &DumpOptions) -> Result<TextKind, Error> {
    if let Some(kind) = classify::classify_structure(input)? {
        return Ok(kind);
    }
    let head = input.head(classify::JUDGED_HEAD)?;
    if simdutf8::basic::from_utf8(&head).is_ok() {
        return Ok(TextKind::Utf8);
    }
    let mut lexing = BlockLexer::new(lexer_for(input, options, false)?);
    let mut buffer = LexedBuffer::new();
    let mut observed = Counts::default();
    // The whole dump when the head is shorter than its limit: then it is lexed to its end.
    let whole = head.len() < classify::JUDGED_HEAD;
    for (bytes, last) in [(&head[..], false), (&[][..], true)] {
        if last && !whole {
            break;
        }
        match lexing.lex(bytes, 0, last, &mut buffer) {
            Ok(true) => {
                observe_text(&mut observed, &buffer);
            }
            Ok(false) => {}
            Err(_) => return Ok(TextKind::Utf8),
        }
    }
    Ok(match observed.first_invalid_offset {
        None => TextKind::Utf8,
        Some(first_invalid) => classify::judge_head(&head, first_invalid),
    })
}

/// A buffer lexed and ready to be scanned: its bytes, where they start in the dump, what the
/// lexer found in them, and the tables it defined while lexing them.
struct LexedBuffer {
    bytes: Vec<u8>,
    base: u64,
    lexed: Lexed,
    tables: Vec<TableNames>,
    /// Its scan, and its repaired bytes (when they are written), once it is scanned; recycled
    /// with the rest, so that fresh memory is not faulted in for every buffer.
    scan: RecordedScan,
    repaired: Vec<u8>,
}

impl LexedBuffer {
    fn new() -> LexedBuffer {
        LexedBuffer {
            bytes: Vec::with_capacity(BLOCK_SIZE + 4096),
            base: 0,
            lexed: Lexed::default(),
            tables: Vec::new(),
            scan: RecordedScan::default(),
            repaired: Vec::new(),
        }
    }
}

/// A lexer fed an input block by block: each block is lexed after what the lexer could not
/// read of the one before it (a statement, or the start of a value, that goes on in it).
struct BlockLexer {
    lexer: Lexer,
    tail: Vec<u8>,
    /// Where `tail` starts in the input.
    tail_base: u64,
}

impl BlockLexer {
    fn new(lexer: Lexer) -> BlockLexer {
        BlockLexer {
            lexer,
            tail: Vec::new(),
            tail_base: 0,
        }
    }

    /// Where the buffer the next call makes starts in the input, called with the same `base` and
    /// `last`: after what the last call left unread, if anything.
    fn next_base(&self, base: u64, last: bool) -> u64 {
        match self.tail.is_empty() && !last {
            true => base,
            false => self.tail_base,
        }
    }

    /// Lexes `block`, which starts at `base` in the input, into `buffer`, after what the last
    /// call left unread; with `last` (and no block), lexes what is left, to the end. Returns
    /// whether there was anything to lex (`buffer` is left as it was when not).
    fn lex(
        &mut self,
        block: &[u8],
        base: u64,
        last: bool,
        buffer: &mut LexedBuffer,
    ) -> Result<bool, LexError> {
        if self.tail.is_empty() && block.is_empty() && !last {
            return Ok(false);
        }
        buffer.bytes.clear();
        buffer.bytes.extend_from_slice(&self.tail);
        buffer.bytes.extend_from_slice(block);
        // The final call carries no block: what is left starts at `tail_base`.
        buffer.base = self.next_base(base, last);
        let consumed = self.lexer.lex(&buffer.bytes, last, &mut buffer.lexed)?;
        self.tail.clear();
        self.tail.extend_from_slice(&buffer.bytes[consumed..]);
        self.tail_base = buffer.base + consumed as u64;
        buffer.bytes.truncate(consumed);
        Ok(true)
    }
}

/// What a dump is read for, which decides what an error in it suggests: its data (with the
/// dumps of its schema, if any), or the tables it defines (`--schema`).
#[derive(Clone, Copy)]
enum ReadFor {
    Data { with_schema: bool },
    Schema,
}

/// The error of a dump (named `path`) the lexer stopped in.
fn lex_error(path: &Path, error: LexError, read_for: ReadFor) -> Error {
    let hint = match (read_for, error.undefined_table) {
        (ReadFor::Data { with_schema: false }, true) => {
            "; a dump of data only? --schema FILE reads its tables from a dump of its schema \
             (mariadb-dump --no-data, pg_dump --schema-only)"
        }
        (ReadFor::Data { with_schema: true }, true) => "",
        (ReadFor::Data { .. }, false) => {
            "; not understood as a SQL dump (--format text repairs it as plain text)"
        }
        (ReadFor::Schema, true) => {
            "; --schema reads a dump of the schema (mariadb-dump --no-data, pg_dump \
             --schema-only), not one of data only"
        }
        (ReadFor::Schema, false) => "; not understood as a SQL dump (read for --schema)",
    };
    let message = error.message;
    let kind = match error.undefined_table {
        true => DumpErrorKind::UndefinedTable { message, hint },
        false => DumpErrorKind::NotUnderstood { message, hint },
    };
    Error::Dump {
        path: path.to_path_buf(),
        line: error.line,
        offset: error.offset,
        kind,
    }
}

/// The lexer of the dump `input`, read with `options`: it starts with the tables of the dumps
/// of its schema, if any, and, when its rows are to be named (`names_rows`), with the primary
/// keys that a full `pg_dump` declares only after its data ([`later_keys`]).
fn lexer_for(input: &Input, options: &DumpOptions, names_rows: bool) -> Result<Lexer, Error> {
    let mut lexer = Lexer::new(options.dialect, options.convert_charset.is_some());
    if let Some(definitions) = &options.schema {
        lexer.schema = definitions.lend_to(input, options.dialect)?;
    }
    if names_rows {
        lexer.later_keys = later_keys::later_keys(input, options.dialect)?;
    }
    Ok(lexer)
}

/// Reads the dump and lexes it, buffer by buffer, sending each to `scan`; returns the lexer,
/// with the schema it read. With `names_rows`, its rows are named by key wherever it can tell
/// ([`lexer_for`]).
///
/// A range ([`EngineOptions::range`]) is read as the whole dump is, from its start: its buffers
/// are those of the whole run that start in the range, each lexed with the state the whole run
/// has there (the tables defined before it, the statement or `COPY` block it is in, the rows
/// read), so that the ranges of a tiling repair and count every value once, as the whole run
/// does. The buffers before it are lexed, not sent; the reading stops at the first buffer past
/// it. The rows and cells the returned schema counts are the range's own.
#[allow(clippy::too_many_arguments)]
fn read_and_lex(
    scanner: &Scanner,
    input: &Input,
    options: &DumpOptions,
    engine: &EngineOptions,
    names_rows: bool,
    send: mpsc::SyncSender<LexedBuffer>,
    recycle: mpsc::Receiver<LexedBuffer>,
    head: &mut Vec<u8>,
    head_limit: usize,
    stop: &AtomicBool,
) -> Result<Lexer, Error> {
    let path = input.display_path();
    let read_for = ReadFor::Data {
        with_schema: options.schema.is_some(),
    };
    let lexer = lexer_for(input, options, names_rows)?;
    let mut lexing = BlockLexer::new(lexer);
    let range = engine.range.clone();
    let reading = EngineOptions {
        range: None,
        ..engine.clone()
    };
    // What the lexer had counted when the range began.
    let mut before: Option<Tallies> = None;
    // Tables of the schema already sent.
    let mut tables_sent = 0;
    // A buffer lexed before the range, kept for the next.
    let mut spare: Option<LexedBuffer> = None;
    let mut step = |block: &[u8], base: u64, last: bool| -> Result<ControlFlow<()>, Error> {
        // The scanning side has its answer: nothing more is read.
        if stop.load(Ordering::Relaxed) {
            return Ok(ControlFlow::Break(()));
        }
        let start = lexing.next_base(base, last);
        let in_range = match &range {
            None => true,
            Some(range) if start >= range.end => return Ok(ControlFlow::Break(())),
            Some(range) => start >= range.start,
        };
        if in_range && before.is_none() {
            before = Some(Tallies::of(&lexing.lexer.schema));
        }
        // A buffer from the pool, or a new one while the pool fills.
        let mut buffer = spare
            .take()
            .or_else(|| recycle.try_recv().ok())
            .unwrap_or_else(LexedBuffer::new);
        let lexed = lexing
            .lex(block, base, last, &mut buffer)
            .map_err(|error| lex_error(path, error, read_for))?;
        if !lexed || !in_range {
            spare = Some(buffer);
            return Ok(ControlFlow::Continue(()));
        }
        let defined = &lexing.lexer.schema.tables;
        buffer.tables.clear();
        buffer
            .tables
            .extend(defined[tables_sent..].iter().map(TableNames::of));
        tables_sent = defined.len();
        // The scanning side stops early when it has its answer, or on an error, which it
        // reports itself.
        match (send.send(buffer), stop.load(Ordering::Relaxed)) {
            (Ok(()), _) => Ok(ControlFlow::Continue(())),
            (Err(_), true) => Ok(ControlFlow::Break(())),
            (Err(_), false) => Err(Error::Internal("the dump writer stopped".into())),
        }
    };
    let each = |block: &[u8], base: u64| -> Result<ControlFlow<()>, Error> {
        if base == 0 {
            head.extend_from_slice(&block[..block.len().min(head_limit)]);
        }
        step(block, base, false)
    };
    let read = engine::for_each_block_in_order_while(input, scanner.readings(), &reading, each)?;
    if read.is_continue() {
        // The last buffer ends the input: nothing is read after it either way.
        let _end = step(&[], 0, true)?;
    }
    let mut lexer = lexing.lexer;
    if range.is_some() {
        let before = before.unwrap_or_else(|| Tallies::of(&lexer.schema));
        before.take_from(&mut lexer.schema);
    }
    Ok(lexer)
}

/// What the lexer has counted of each table: its rows, and each column's cells and `NULL`s.
struct Tallies(Vec<(u64, Vec<(u64, u64)>)>);

impl Tallies {
    fn of(schema: &Schema) -> Tallies {
        let table = |t: &schema::Table| {
            (
                t.rows,
                t.columns.iter().map(|c| (c.cells, c.nulls)).collect(),
            )
        };
        Tallies(schema.tables.iter().map(table).collect())
    }

    /// Leaves in `schema` only what it counted after these tallies were taken.
    fn take_from(&self, schema: &mut Schema) {
        for (table, (rows, columns)) in schema.tables.iter_mut().zip(&self.0) {
            table.rows = table.rows.saturating_sub(*rows);
            for (column, (cells, nulls)) in table.columns.iter_mut().zip(columns) {
                column.cells = column.cells.saturating_sub(*cells);
                column.nulls = column.nulls.saturating_sub(*nulls);
            }
        }
    }
}

/// Where a dump's repair goes: an output (named `path` in errors), and the audit log that
/// records it, if any.
pub struct DumpOutput<'a, 'd, W> {
    /// Where the repaired dump goes.
    pub out: &'a mut W,
    /// Its name in errors.
    pub path: &'a Path,
    /// Told every change, in order, when the fix is audited.
    pub audit: Option<&'a mut (dyn DumpAudit + 'd)>,
}

/// What every pass over a dump reads and judges it with: the rule, the dump's dialect and
/// charset edits, and how the engine reads the input.
#[derive(Clone, Copy)]
pub struct DumpPass<'a> {
    pub scanner: &'a Scanner,
    pub options: &'a DumpOptions,
    pub engine: &'a EngineOptions,
}

/// Reads, lexes, scans and (with `repair`) repairs a dump; returns its report and its first
/// `head_limit` bytes.
fn process<W: Write>(
    pass: &DumpPass<'_>,
    input: &Input,
    repair: Option<DumpOutput<'_, '_, W>>,
    head_limit: usize,
    reach: Reach,
) -> Result<(DumpReport, Vec<u8>), Error> {
    let DumpPass {
        scanner,
        options,
        engine,
    } = *pass;
    let out_path = repair.as_ref().map_or(Path::new("-"), |r| r.path);
    // Rows are named in a scan's report (its example rows) and in the audit log's records.
    // A fix without a log writes no name: the key of a row changes no byte it writes, so it
    // pays for no look for keys ahead of the data (its summary, which shows an example row,
    // may name it by number).
    let names_rows = repair.as_ref().is_none_or(|r| r.audit.is_some());
    let mut consumer = Consumer::new(input, options, engine.fix_sequences, out_path, repair);
    let (writes, audited) = (consumer.out.is_some(), consumer.audit.is_some());
    let (send, receive) = mpsc::sync_channel::<LexedBuffer>(1);
    // Room for every buffer that can be alive at once (being lexed, sent, scanned ahead), so
    // that none is dropped and another allocated, its pages faulted in afresh.
    let alive = rayon::current_num_threads().max(1) + 2;
    let (give_back, recycle) = mpsc::sync_channel::<LexedBuffer>(alive);
    let mut head = Vec::new();
    let head_out = &mut head;
    // Set when the answer is known before the end ([`Reach::FirstChange`]).
    let stop = AtomicBool::new(false);
    let stop = &stop;
    let (read, written) = std::thread::scope(|scope| {
        // The reader owns the sending end: when it stops, for whatever reason, the loop
        // below ends.
        let reader = scope.spawn(move || {
            read_and_lex(
                scanner, input, options, engine, names_rows, send, recycle, head_out, head_limit,
                stop,
            )
        });
        let written = engine::in_order_in_parallel(
            // The stop is looked at before waiting for the next buffer.
            std::iter::from_fn(|| {
                (!stop.load(Ordering::Relaxed))
                    .then(|| receive.recv().ok())
                    .flatten()
            }),
            // One buffer per thread: each is much larger than its bytes (a span per value),
            // so they are most of the memory, and two per thread measured no faster.
            1,
            |buffer| {
                // A buffer taken before the stop is not scanned after it: it is dropped.
                if stop.load(Ordering::Relaxed) {
                    return Ok((buffer, Counts::default(), None));
                }
                let sequences = engine.fix_sequences;
                scan_buffer(scanner, buffer, writes, audited, sequences, out_path)
            },
            |scanned| {
                // Buffers started before the stop are dropped.
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let buffer = consumer.take(scanned)?;
                // A buffer's findings are its own: what comes after cannot undo a change.
                if reach == Reach::FirstChange && consumer.findings.counts.changes() > 0 {
                    stop.store(true, Ordering::Relaxed);
                }
                let _ = give_back.try_send(buffer);
                Ok(())
            },
        );
        drop(receive);
        let read = reader
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("the dump reader crashed".into())));
        (read, written.map(|()| consumer))
    });
    let consumer = written?;
    let schema = match read {
        Ok(lexer) => lexer.schema,
        // The answer was known before the reader failed: what it read after does not matter,
        // as a file that fails after its first find does not change `grep -q`'s answer.
        Err(_) if stop.load(Ordering::Relaxed) => Schema::default(),
        Err(error) => return Err(error),
    };
    let findings = consumer.finish()?;
    // A range's report keeps every table it knows of, rows or not, so that the reports of a
    // tiling list the same tables in the same order and are joined table by table.
    let every_table = engine.range.is_some();
    let report = DumpReport::new(options.dialect, schema, findings, every_table);
    Ok((report, head))
}

/// A buffer as the pool's threads leave it: what its text holds, and, unless an audit log is
/// told, its findings (its repaired bytes, when they are written, in `repaired`).
type Scanned = (LexedBuffer, Counts, Option<Box<Findings>>);

/// The scanner's work on a buffer, the dearest part, done on the pool's threads, buffers in
/// parallel; and so is the sink's unless it tells an audit log: into findings and an output of
/// the buffer's own, merged and written in order by the [`Consumer`]. An audit log is told
/// from start to end, in order, with the names of the cells: then the scan's runs are replayed
/// there into the one sink.
fn scan_buffer(
    scanner: &Scanner,
    mut buffer: LexedBuffer,
    writes: bool,
    audited: bool,
    sequences: Sequences,
    out_path: &Path,
) -> Result<Scanned, Error> {
    let mut observed = Counts::default();
    let utf8 = Utf8::known(observe_text(&mut observed, &buffer));
    buffer.scan.record_again(scanner, &buffer.bytes, utf8);
    lend_columns(scanner, &mut buffer);
    if audited {
        return Ok((buffer, observed, None));
    }
    buffer.repaired.clear();
    let out = writes.then_some(&mut buffer.repaired);
    let part = findings_of(
        &buffer.lexed,
        &buffer.scan,
        &buffer.bytes,
        buffer.base,
        out,
        sequences,
    )
    .map_err(|failed| failure(failed, out_path))?;
    Ok((buffer, observed, Some(Box::new(part))))
}

/// The error of a failed write to `out_path`.
fn write_error(out_path: &Path, source: io::Error) -> Error {
    Error::Write {
        path: out_path.to_path_buf(),
        source,
    }
}

/// The error of a dump that could not be written to `out_path`, or logged.
fn failure(failed: Failed, out_path: &Path) -> Error {
    match failed {
        Failed::Output(source) => write_error(out_path, source),
        Failed::Audit(error) => error,
    }
}

/// The end of a dump's processing on the thread that writes: the buffers come scanned, in
/// input order, and are merged, checked, written and logged here.
struct Consumer<'a, 'd, W> {
    input: &'a Input,
    options: &'a DumpOptions,
    out_path: &'a Path,
    out: Option<&'a mut W>,
    audit: Option<&'a mut (dyn DumpAudit + 'd)>,
    findings: Findings,
    tables: Vec<TableNames>,
    /// Whether the findings list the garbled forms, or only their totals.
    sequences: Sequences,
}

impl<'a, 'd, W: Write> Consumer<'a, 'd, W> {
    /// Nothing merged yet; writing to the output of `repair` (named `out_path`) and telling its
    /// log, if any.
    fn new(
        input: &'a Input,
        options: &'a DumpOptions,
        sequences: Sequences,
        out_path: &'a Path,
        repair: Option<DumpOutput<'a, 'd, W>>,
    ) -> Self {
        let (out, audit) = match repair {
            Some(DumpOutput { out, audit, .. }) => (Some(out), audit),
            None => (None, None),
        };
        Consumer {
            input,
            options,
            out_path,
            out,
            audit,
            findings: Findings::default(),
            tables: Vec::new(),
            sequences,
        }
    }

    /// Takes in the next buffer: its counts and tables, then its findings and repaired bytes,
    /// or the replay of its runs into the audited sink. Gives the buffer back, to be reused.
    fn take(&mut self, (mut buffer, observed, sunk): Scanned) -> Result<LexedBuffer, Error> {
        self.findings.counts.merge(observed);
        self.findings.edits += buffer.lexed.edits.len() as u64;
        self.tables.append(&mut buffer.tables);
        // Nothing of a buffer that repairs text into a column that cannot hold it is
        // written: the fix stops before it.
        if self.out.is_some() {
            self.refuse_unloadable(&buffer, sunk.as_deref())?;
        }
        match sunk {
            Some(part) => {
                self.findings.merge(*part);
                if let Some(out) = self.out.as_deref_mut() {
                    out.write_all(&buffer.repaired)
                        .map_err(|source| write_error(self.out_path, source))?;
                }
            }
            None => self.replay(&buffer)?,
        }
        Ok(buffer)
    }

    /// Refuses `buffer` (whose findings are `sunk`, when the pool made them) if it repairs
    /// text into a column whose character set cannot hold it.
    fn refuse_unloadable(
        &self,
        buffer: &LexedBuffer,
        sunk: Option<&Findings>,
    ) -> Result<(), Error> {
        let unloadable = match sunk {
            Some(part) => unloadable_in(part, &self.tables, self.options),
            None if refusable(&self.tables, self.options) => {
                let part = findings_of(
                    &buffer.lexed,
                    &buffer.scan,
                    &buffer.bytes,
                    buffer.base,
                    None,
                    // Only the columns' totals are looked at.
                    Sequences::Uncounted,
                )
                .map_err(|failed| failure(failed, self.out_path))?;
                unloadable_in(&part, &self.tables, self.options)
            }
            None => Vec::new(),
        };
        if unloadable.is_empty() {
            return Ok(());
        }
        Err(Error::Usage(format!(
            "{}: refused: {}; nothing of these columns was written",
            self.input.display_path().display(),
            unloadable_text(&unloadable)
        )))
    }

    /// Replays the runs of `buffer` into the one sink that tells the audit log, in order.
    fn replay(&mut self, buffer: &LexedBuffer) -> Result<(), Error> {
        if let Some(audit) = self.audit.as_deref_mut() {
            audit.begin(buffer.base);
        }
        let mut sink = DumpSink::new(
            &buffer.lexed,
            &mut self.findings,
            buffer.base,
            self.out.as_deref_mut(),
            // A shorter borrow of the log, for this buffer only.
            self.audit
                .as_mut()
                .map(|audit| &mut **audit as &mut dyn DumpAudit),
            &self.tables,
            self.sequences,
        );
        buffer
            .scan
            .replay(&buffer.bytes, &mut sink)
            .map_err(|failed| failure(failed, self.out_path))
    }

    /// Flushes the output; the findings of the whole dump.
    fn finish(self) -> Result<Findings, Error> {
        if let Some(out) = self.out {
            out.flush()
                .map_err(|source| write_error(self.out_path, source))?;
        }
        Ok(self.findings)
    }
}

/// Whether any column of `tables` is one a repair into would be refused under `options`.
fn refusable(tables: &[TableNames], options: &DumpOptions) -> bool {
    let charsets = tables
        .iter()
        .flat_map(|table| table.single_byte.iter().flatten());
    charsets
        .into_iter()
        .any(|charset| !options.loads_into(charset))
}

/// What a buffer's recorded scan finds, replayed into a sink of its own (no audit log, no
/// names of cells), its repaired bytes written to `out` when given: the work that can be done
/// on any thread, buffer by buffer.
fn findings_of(
    lexed: &Lexed,
    scan: &RecordedScan,
    bytes: &[u8],
    base: u64,
    out: Option<&mut Vec<u8>>,
    sequences: Sequences,
) -> Result<Findings, Failed> {
    let mut findings = Findings::default();
    let mut sink = DumpSink::new(lexed, &mut findings, base, out, None, &[], sequences);
    scan.replay(bytes, &mut sink)?;
    Ok(findings)
}

/// Lends the evidence of each text column to the lone letters of its cells
/// ([`crate::mojibake::scope`]): the column is the scope of its cells, as far as the buffer
/// holds them.
fn lend_columns(scanner: &Scanner, buffer: &mut LexedBuffer) {
    let lexed = &buffer.lexed;
    let mut next = 0;
    let scope_of = |run: &Range<usize>| {
        let value = lexed.value_holding(&mut next, run)?;
        let Place::Cell { table, column, .. } = value.place else {
            return None;
        };
        value.text.then(|| ScopedValue {
            scope: u64::from(table) << 32 | u64::from(column),
            value: value.cell,
            span: value.span.clone(),
        })
    };
    buffer
        .scan
        .lend_scopes(&buffer.bytes, scanner.strictness(), scope_of);
}

/// Takes in the bytes of a lexed buffer as `Counts::observe_bytes` does, except that the insides
/// of binary values count as bytes read and nothing else: they hold bytes, not characters
/// (`mariadb-dump` without `--hex-blob` writes a blob's bytes as they are), so a dump whose
/// blobs are not UTF-8 is still UTF-8 where it holds text, and their bytes are no characters.
/// Returns whether the whole buffer, binary values included, is well-formed UTF-8.
fn observe_text(counts: &mut Counts, buffer: &LexedBuffer) -> bool {
    let binary = buffer.lexed.values.iter().filter(|value| !value.text);
    counts.observe_bytes_except(
        &buffer.bytes,
        buffer.base,
        binary.map(|value| value.span.clone()),
    )
}

/// Scans a dump and reports on it per table and column; changes nothing. Also returns the
/// first `head_limit` bytes of the input (for the encoding survey).
pub(crate) fn scan_dump(
    pass: &DumpPass<'_>,
    input: &Input,
    head_limit: usize,
) -> Result<(DumpReport, Vec<u8>), Error> {
    process::<io::Sink>(pass, input, None, head_limit, Reach::Whole)
}

/// Whether a fix changes anything in the dump `input`: it is read only as far as the first
/// buffer that holds a change.
pub(crate) fn dump_changes(pass: &DumpPass<'_>, input: &Input) -> Result<bool, Error> {
    let (report, _) = process::<io::Sink>(pass, input, None, 0, Reach::FirstChange)?;
    Ok(report.counts.changes() > 0)
}

/// How far a pass over a dump reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// To its end.
    Whole,
    /// To the first buffer that holds a change: all a yes or no needs.
    FirstChange,
}

/// Repairs the text values of a dump into `output`, telling its audit every change, in order. This is the dump mode alone, on any bytes, without the
/// judgement of the whole input that [`crate::Fixer`] makes first (a file that is not UTF-8 is
/// skipped there): what checks of the lexer and the sink on arbitrary dumps need.
pub fn fix_dump<W: Write>(
    pass: &DumpPass<'_>,
    input: &Input,
    output: DumpOutput<'_, '_, W>,
) -> Result<DumpReport, Error> {
    let (report, _) = process(pass, input, Some(output), 0, Reach::Whole)?;
    Ok(report)
}

/// Repairs a dump into the file `target`, atomically, through
/// [`engine::write_to_path`] as text repairs are: a dump fixed in
/// place with nothing to change is not rewritten; `replacing` tells whether to keep a backup.
pub(crate) fn fix_dump_to_path(
    pass: &DumpPass<'_>,
    input: &Input,
    target: &Path,
    replacing: engine::Replacing<'_>,
) -> Result<(DumpReport, Written), Error> {
    let fix = |mut out: &mut dyn Write| {
        let output = DumpOutput {
            out: &mut out,
            path: target,
            audit: None,
        };
        fix_dump(pass, input, output)
    };
    engine::write_to_path(input, target, replacing, fix, DumpReport::changed)
}

/// A value the lexer found ([`lex_values`]): where its bytes lie in the dump, and whether
/// they are text (a binary value's are left alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexedValue {
    pub span: std::ops::Range<u64>,
    pub text: bool,
    /// Whether it is a text literal of the DDL rather than the value of a cell.
    pub definition: bool,
}

/// The values of text and binary columns and the DDL's text literals that the lexer finds in
/// the dump `input`, read in buffers that end at `cuts` (offsets in `input`, in order) as a
/// file is read in blocks, each after what the lexer could not read of the one before it.
/// The answer must not depend on the cuts: this is how tests and fuzzing check the lexer
/// without files of many blocks. The pieces of a value cut by a buffer's end are joined.
pub fn lex_values(
    dialect: SqlDialect,
    input: &[u8],
    cuts: &[usize],
) -> Result<Vec<LexedValue>, LexError> {
    let mut lexing = BlockLexer::new(Lexer::new(dialect, false));
    let mut buffer = LexedBuffer::new();
    let mut values: Vec<(u64, LexedValue)> = Vec::new();
    let mut from = 0;
    let ends = cuts.iter().map(|&cut| (cut, false));
    for (to, last) in ends.chain([(input.len(), true)]) {
        let to = to.clamp(from, input.len());
        let block = &input[from..to];
        let base = from as u64;
        from = to;
        // The final block is followed by the call that lexes what is left.
        let calls = match last {
            true => vec![(block, false), (&[][..], true)],
            false => vec![(block, false)],
        };
        for (block, last) in calls {
            if !lexing.lex(block, base, last, &mut buffer)? {
                continue;
            }
            for value in &buffer.lexed.values {
                let span =
                    buffer.base + value.span.start as u64..buffer.base + value.span.end as u64;
                match values.last_mut() {
                    Some((cell, joined))
                        if *cell == value.cell && joined.span.end == span.start =>
                    {
                        joined.span.end = span.end;
                    }
                    _ => values.push((
                        value.cell,
                        LexedValue {
                            span,
                            text: value.text,
                            definition: value.place == Place::Definition,
                        },
                    )),
                }
            }
        }
    }
    Ok(values.into_iter().map(|(_, value)| value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The header's dialect by its definition: the first 16 lines, split one by one.
    fn dialect_by_lines(head: &[u8]) -> Option<SqlDialect> {
        let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let head = &head[..head.len().min(HEADER_LIMIT)];
        head.split(|&b| b == b'\n').take(16).find_map(|line| {
            let line = line.trim_ascii();
            if line.starts_with(b"-- MySQL dump") || line.starts_with(b"-- MariaDB dump") {
                Some(SqlDialect::MySql)
            } else if line.starts_with(b"-- PostgreSQL database") {
                Some(SqlDialect::PostgreSql)
            } else {
                None
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Lines found with `memchr` are the lines split one by one: the sixteenth line is
        /// looked at and the seventeenth is not, wherever the headers and newlines fall.
        #[test]
        fn the_header_is_found_in_the_first_sixteen_lines(
            pieces in proptest::collection::vec(prop::sample::select(vec![
                "\n", "\n\n", " ", "x", "-- MySQL dump 10.13", "-- MariaDB dump",
                "-- PostgreSQL database dump", "--", "\u{feff}", "\r\n",
            ]), 0..40),
        ) {
            let head = pieces.concat();
            prop_assert_eq!(dialect_from_header(head.as_bytes()), dialect_by_lines(head.as_bytes()));
        }
    }

    #[test]
    fn the_header_is_looked_for_in_sixteen_lines_only() {
        let at = |line: usize| format!("{}-- MySQL dump\n", "\n".repeat(line - 1));
        assert_eq!(
            dialect_from_header(at(16).as_bytes()),
            Some(SqlDialect::MySql)
        );
        assert_eq!(dialect_from_header(at(17).as_bytes()), None);
        let past_the_limit = format!("{}\n-- MySQL dump", "x".repeat(HEADER_LIMIT));
        assert_eq!(dialect_from_header(past_the_limit.as_bytes()), None);
    }
}
