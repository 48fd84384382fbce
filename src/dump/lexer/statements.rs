//! Statement dispatch: between statements the lexer reads tokens until it knows what a
//! statement is, then reads it whole (the DDL, `SET`, `USE`, `COPY` heads), hands an `INSERT`
//! head on to the rows, or skips it to its delimiter. It is apart from the rows because it
//! reads tokens, statement by statement, where the rows are read byte by byte; the DDL it reads
//! whole is turned into tables and edits here, through [`crate::dump::ddl`].

use std::mem;
use std::ops::Range;

use super::{Lexed, Lexer, Mode, Phase, Place, Value, unexpected};
use crate::dump::ddl;
use crate::dump::schema::{Column, ColumnKind, Table};
use crate::sql::tokens::{Kind, Stop, Token};
use crate::sql::{MAX_STATEMENT_BYTES, is_create_modifier};

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

/// Where a PostgreSQL `CREATE FUNCTION` or `CREATE PROCEDURE` being skipped stands in a
/// SQL-standard body (`BEGIN ATOMIC ... END`), whose statements end in delimiters of their own.
/// The rule is psql's, which is how the dump is loaded: outside parentheses, `BEGIN` opens a
/// block, `CASE` opens one inside a block, `END` closes one, and the statement ends at the
/// first delimiter outside blocks and parentheses. Without it an `INSERT` in such a body would
/// be read as table data, and repaired.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RoutineBody {
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

/// What a statement's first tokens say it is.
enum Class {
    Undecided,
    /// Read whole, then handled.
    Whole,
    /// An `INSERT` whose head runs up to `VALUES`.
    Insert,
}

impl Lexer {
    /// Between statements: skips comments, then reads the next statement's start.
    pub(super) fn statement(
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
    pub(super) fn skip(&mut self, buf: &[u8], mut at: usize, last: bool) -> Result<usize, Stop> {
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
}
