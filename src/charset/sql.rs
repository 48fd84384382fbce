//! Encoding declarations in SQL dumps.
//!
//! A dump says which encoding its bytes are in the way an HTML page does, only in SQL: the
//! statements that set the connection's character set before the data is sent. Before a
//! migration the question is whether that declaration is true, so this module finds them:
//!
//! - MySQL/MariaDB `SET NAMES x [COLLATE y]`, `SET CHARACTER SET x` and
//!   `SET character_set_client = x`, plain or inside version comments (`/*!40101 ... */`,
//!   `/*!50503 ... */`, MariaDB's `/*M!100100 ... */`), as `mysqldump` writes them;
//! - PostgreSQL `SET client_encoding = 'x'` (or `TO 'x'`), as `pg_dump` writes it.
//!
//! These *connection* declarations describe the file's own bytes. They are only looked for in
//! the first [`SQL_CONNECTION_SCAN_LIMIT`] bytes, where dump tools put them. The *storage*
//! declarations — `CREATE DATABASE ... DEFAULT CHARACTER SET x` (PostgreSQL `ENCODING 'x'`),
//! `CREATE TABLE (...) DEFAULT CHARSET=x` and a column's `CHARACTER SET x` — say how the server
//! stores the text, not how the file encodes it (the server converts between the two), and
//! come with every table, so they are found anywhere in the file. They are reported
//! separately: `latin1` tables in a `utf8mb4` dump are normal, but they are also how UTF-8
//! bytes end up double-encoded.
//!
//! Finding statements is line-driven and cheap on a multi-gigabyte dump: `memchr` jumps from
//! line to line, and only a line that starts (after blanks and a version-comment opener) with
//! `SET` or `CREATE` is tokenised, up to its `;` (at most [`MAX_STATEMENT_BYTES`]). Dump tools
//! start every statement on its own line and escape line breaks inside strings, so a data
//! row never starts a line with a statement. Statements in the middle of a line, and `ALTER`
//! statements, are not read.
//!
//! Names are mapped to canonical (WHATWG) encodings per dialect, because the same name means
//! different things: MySQL's `latin1` *is* windows-1252, PostgreSQL's `LATIN1` is true
//! ISO-8859-1 (compared as windows-1252 like every ISO-8859-1 label in this crate, see
//! `labels.rs`); MySQL's `utf8` is UTF-8 limited to three bytes a character (`utf8mb3`) but
//! UTF-8 all the same; `binary` and `SQL_ASCII` are no encoding at all.

use crate::byte_search::pairs::{ANY_BYTE, Bigrams, ByteSet, Then, pairs};
use memchr::memchr;
use serde::{Deserialize, Serialize};

use super::labels::LabelMeaning;
use crate::sql::tokens::{Kind, Token, Tokenizer, qualified_name_by};
use crate::sql::{MAX_STATEMENT_BYTES, NOT_A_COLUMN, SqlDialect, charset_label, created_object};

/// How far into a dump connection declarations are looked for: 64 KiB. `mysqldump` and
/// `pg_dump` write them in the first few hundred bytes; a dump that changes its connection
/// character set later is rare, and reading only a head keeps a multi-gigabyte dump cheap.
pub const SQL_CONNECTION_SCAN_LIMIT: usize = 64 * 1024;

/// Which statement a SQL declaration comes from; serialises as the kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SqlDeclarationKind {
    /// MySQL `SET NAMES x`: client, connection and results character set.
    SetNames,
    /// MySQL `SET CHARACTER SET x` (or `SET CHARSET x`): client and results character set.
    SetCharacterSet,
    /// MySQL `SET character_set_client = x`: how the server reads the statements.
    SetCharacterSetClient,
    /// PostgreSQL `SET client_encoding = 'x'`.
    SetClientEncoding,
    /// MySQL `CREATE DATABASE ... DEFAULT CHARACTER SET x`.
    DatabaseDefault,
    /// PostgreSQL `CREATE DATABASE ... ENCODING = 'x'`.
    DatabaseEncoding,
    /// MySQL `CREATE TABLE (...) DEFAULT CHARSET=x`.
    TableDefault,
    /// MySQL `CHARACTER SET x` in a column definition of `CREATE TABLE`.
    Column,
}

impl SqlDeclarationKind {
    /// Whether the declaration describes the dump's own bytes (a connection setting) rather
    /// than how the server stores the text.
    pub(crate) fn is_connection(self) -> bool {
        matches!(
            self,
            Self::SetNames
                | Self::SetCharacterSet
                | Self::SetCharacterSetClient
                | Self::SetClientEncoding
        )
    }

    /// The dialect whose character set names the statement takes.
    pub(crate) fn dialect(self) -> SqlDialect {
        match self {
            Self::SetClientEncoding | Self::DatabaseEncoding => SqlDialect::PostgreSql,
            _ => SqlDialect::MySql,
        }
    }

    /// The statement as a person would name it.
    pub(crate) fn statement(self) -> &'static str {
        match self {
            Self::SetNames => "SET NAMES",
            Self::SetCharacterSet => "SET CHARACTER SET",
            Self::SetCharacterSetClient => "SET character_set_client",
            Self::SetClientEncoding => "SET client_encoding",
            Self::DatabaseDefault => "CREATE DATABASE DEFAULT CHARACTER SET",
            Self::DatabaseEncoding => "CREATE DATABASE ENCODING",
            Self::TableDefault => "DEFAULT CHARSET",
            Self::Column => "column CHARACTER SET",
        }
    }
}

/// Where a SQL declaration is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlPlace {
    /// The statement.
    #[serde(rename = "statement")]
    pub kind: SqlDeclarationKind,
    /// The line of the character set name, counted from 1.
    pub line: u64,
    /// The byte offset of the character set name in the file.
    pub offset: u64,
}

impl std::fmt::Display for SqlPlace {
    /// `SET NAMES, line 12`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, line {}", self.kind.statement(), self.line)
    }
}

/// One encoding declaration in a SQL dump.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlDeclaration {
    /// The statement, line and offset.
    #[serde(flatten)]
    pub place: SqlPlace,
    /// The character set name as written, quotes removed.
    pub label: String,
    /// The canonical name of the encoding it means, or `None` for an unknown name and for
    /// `binary`/`SQL_ASCII` (see [`SqlDeclaration::meaning`]).
    pub encoding: Option<String>,
    /// The `COLLATE` that goes with it, if any.
    pub collation: Option<String>,
    /// For database, table and column declarations: the database or table name.
    pub table: Option<String>,
    /// For column declarations: the column name.
    pub column: Option<String>,
}

impl SqlDeclaration {
    fn new(place: SqlPlace, label: String) -> Self {
        let encoding = sql_charset(place.kind.dialect(), &label)
            .encoding()
            .map(|e| e.name().to_owned());
        Self {
            place,
            label,
            encoding,
            collation: None,
            table: None,
            column: None,
        }
    }

    /// What the declared name means in the statement's dialect.
    pub fn meaning(&self) -> LabelMeaning {
        sql_charset(self.place.kind.dialect(), &self.label)
    }
}

/// What a character set name means in a SQL dialect (the tables are `crate::sql`'s).
pub fn sql_charset(dialect: SqlDialect, name: &str) -> LabelMeaning {
    match charset_label(dialect, name) {
        None => LabelMeaning::Unknown,
        Some(None) => LabelMeaning::Uninterpreted,
        Some(Some(label)) => LabelMeaning::of_label(label),
    }
}

/// What a MySQL/MariaDB character set name means (case-insensitive).
pub fn mysql_charset(name: &str) -> LabelMeaning {
    sql_charset(SqlDialect::MySql, name)
}

/// What a PostgreSQL encoding name means (`UTF8`, `utf-8`, `LATIN1`, `SQL_ASCII`, ...).
pub fn postgresql_encoding(name: &str) -> LabelMeaning {
    sql_charset(SqlDialect::PostgreSql, name)
}

/// Every encoding declaration in `dump`, in file order: connection declarations from the first
/// [`SQL_CONNECTION_SCAN_LIMIT`] bytes (each distinct statement and name once, where it first
/// appears: `mysqldump` repeats `SET character_set_client` before every table), database,
/// table and column declarations from anywhere. Offsets and lines count from the start of
/// `dump`; a leading UTF-8 BOM is skipped.
pub fn sql_declarations(dump: &[u8]) -> Vec<SqlDeclaration> {
    let mut found: Vec<SqlDeclaration> = Vec::new();
    let mut line_start = if dump.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let mut line = 1u64;
    while let Some(rest) = dump.get(line_start..).filter(|rest| !rest.is_empty()) {
        let line_length = memchr(b'\n', rest).map_or(rest.len(), |at| at + 1);
        let mut next = line_start + line_length;
        let mut lines_spanned = 1;
        match leading_keyword(rest.get(..line_length).unwrap_or(rest)) {
            Some(Keyword::Set) if line_start < SQL_CONNECTION_SCAN_LIMIT => {
                let statement = Statement::read(dump, line_start, Keyword::Set);
                for declaration in statement.set_declarations(dump, line_start, line) {
                    let repeated = found.iter().any(|seen| {
                        seen.place.kind == declaration.place.kind
                            && seen.label.eq_ignore_ascii_case(&declaration.label)
                    });
                    if !repeated {
                        found.push(declaration);
                    }
                }
            }
            Some(Keyword::Create) => {
                let statement = Statement::read(dump, line_start, Keyword::Create);
                found.extend(statement.create_declarations(dump, line_start, line));
                if statement.end > next {
                    let last_line_start = dump
                        .get(..statement.end)
                        .and_then(|head| memchr::memrchr(b'\n', head))
                        .map_or(0, |at| at + 1);
                    let spanned = dump.get(line_start..last_line_start).unwrap_or_default();
                    lines_spanned = memchr::memchr_iter(b'\n', spanned).count() as u64;
                    next = last_line_start;
                }
            }
            _ => {}
        }
        line += lines_spanned;
        line_start = next;
    }
    found
}

/// Whether `head` looks like a SQL dump: it does not start with markup, and some line starts
/// with a connection declaration, `CREATE TABLE`, `INSERT INTO` or `COPY ... FROM stdin;` (any
/// case).
pub fn looks_like_sql(head: &[u8]) -> bool {
    let head = head.get(..SQL_CONNECTION_SCAN_LIMIT).unwrap_or(head);
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
        return false;
    }
    // One walk over the lines that start with a byte a statement can start with (every file
    // a scan reads is asked this about its head, and heads of word lists and catalogues are
    // thousands of short lines, most of which start with another): a dump statement answers
    // at once; a line that starts with `SET` is what a connection declaration needs, and
    // only then are the declarations read.
    let mut sets = false;
    // The first line has no newline before it: its first bytes are looked at here; the
    // search has looked at every other line's.
    let first_line = may_open_statement(body).then_some(0);
    let line_starts = pairs(
        &NEWLINE,
        Then::Bigram(&STATEMENT_OPENINGS),
        body,
        0..body.len(),
    );
    for start in first_line.into_iter().chain(line_starts) {
        let rest = &body[start..];
        if !may_start_statement(rest) {
            continue;
        }
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        let line = after_line_opener(line);
        let copy = || {
            starts_with_words(line, &["COPY"])
                && line
                    .trim_ascii_end()
                    .to_ascii_lowercase()
                    .ends_with(b"from stdin;")
        };
        if starts_with_words(line, &["CREATE", "TABLE"])
            || starts_with_words(line, &["INSERT", "INTO"])
            || copy()
        {
            return true;
        }
        sets |= starts_with_words(line, &["SET"]);
    }
    sets && may_declare_connection(head)
        && sql_declarations(head)
            .iter()
            .any(|declaration| declaration.place.kind.is_connection())
}

/// Whether `head` holds, in any case, one of the words a connection declaration needs
/// (`NAMES`, `CHARSET`, `CHARACTER SET`, `character_set_client`, `client_encoding`): where
/// it holds none, its `SET` lines (a word list's `set`, a script's `set -e`) need not be read
/// as statements.
fn may_declare_connection(head: &[u8]) -> bool {
    let lower = head.to_ascii_lowercase();
    ["names", "charset", "character", "client_encoding"]
        .iter()
        .any(|word| memchr::memmem::find(&lower, word.as_bytes()).is_some())
}

/// The first two bytes of a line that can start with what [`looks_like_sql`] looks for: white
/// space or a version comment before it, or the first two letters of `CREATE`, `COPY`,
/// `INSERT` or `SET` in any case. Two bytes, not one: in a text, a line in ten starts with
/// `c`, `i` or `s`.
const STATEMENT_OPENINGS: Bigrams = Bigrams::new(&[
    (b"\t\x0C\r", &ANY_BYTE),
    (b" /", &ANY_BYTE),
    (b"cC", b"rR"),
    (b"cC", b"oO"),
    (b"iI", b"nN"),
    (b"sS", b"eE"),
]);
const NEWLINE: ByteSet = ByteSet::new(b'\n', b'\n', &[]);

/// Whether `line`, from its first byte on, can start with what [`looks_like_sql`] looks for,
/// by its first two bytes.
#[inline]
fn may_open_statement(line: &[u8]) -> bool {
    match *line {
        [first, second, ..] => STATEMENT_OPENINGS.holds(first, second),
        _ => false,
    }
}

/// Whether `rest`, from a line's first byte on, can start with what [`looks_like_sql`] looks
/// for, by its first three bytes: in a word list, a line in four or five starts with one of
/// the letters of a statement, and its word is passed over without looking for the line's end.
#[inline]
fn may_start_statement(rest: &[u8]) -> bool {
    match rest {
        [first, ..] if first.is_ascii_whitespace() || *first == b'/' => true,
        [a, b, c, ..] => matches!(
            [
                a.to_ascii_lowercase(),
                b.to_ascii_lowercase(),
                c.to_ascii_lowercase()
            ],
            [b'c', b'r', b'e'] | [b'i', b'n', b's'] | [b'c', b'o', b'p'] | [b's', b'e', b't']
        ),
        _ => false,
    }
}

/// The first word of a line that can start a declaration.
#[derive(Clone, Copy)]
enum Keyword {
    Set,
    Create,
}

/// `line` after leading blanks and a version-comment opener (`/*!40101 `, `/*M!100100 `).
fn after_line_opener(line: &[u8]) -> &[u8] {
    let line = line.trim_ascii_start();
    let opener = line
        .strip_prefix(b"/*!")
        .or_else(|| line.strip_prefix(b"/*M!"));
    match opener {
        Some(rest) => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            rest.get(digits..).unwrap_or_default().trim_ascii_start()
        }
        None => line,
    }
}

/// Whether `text` starts with `words` (any case), separated and followed by white space.
fn starts_with_words(text: &[u8], words: &[&str]) -> bool {
    let mut rest = text;
    for word in words {
        let Some(head) = rest.get(..word.len()) else {
            return false;
        };
        let after = rest.get(word.len()..).unwrap_or_default();
        if !head.eq_ignore_ascii_case(word.as_bytes())
            || !after.first().is_some_and(u8::is_ascii_whitespace)
        {
            return false;
        }
        rest = after.trim_ascii_start();
    }
    true
}

/// Whether `token` of `bytes` (a statement's, from a line's start) is the `SET` that starts a
/// line after the first, as [`leading_keyword`] reads lines.
fn opens_set_line(bytes: &[u8], token: &Token) -> bool {
    if !token.is(bytes, "SET") {
        return false;
    }
    let Some(line_start) = memchr::memrchr(b'\n', &bytes[..token.span.start]) else {
        return false;
    };
    let line = &bytes[line_start + 1..];
    matches!(leading_keyword(line), Some(Keyword::Set))
        && after_line_opener(line).as_ptr() == bytes[token.span.start..].as_ptr()
}

fn leading_keyword(line: &[u8]) -> Option<Keyword> {
    let line = after_line_opener(line);
    if starts_with_words(line, &["SET"]) {
        Some(Keyword::Set)
    } else if starts_with_words(line, &["CREATE"]) {
        Some(Keyword::Create)
    } else {
        None
    }
}

/// One statement's tokens, up to its `;`, read by the tokenizer the dump lexer uses, with
/// MySQL's rules whatever the dump: version comments (`/*!40101 ... */`) are read as SQL and
/// `#` starts a comment, as a MySQL server reads them, and PostgreSQL's `SET client_encoding`
/// and `CREATE DATABASE` read alike under either dialect's rules.
///
/// A `SET` statement also ends where a line that starts with `SET` begins: each such line is
/// read as a statement of its own, and in text that is not SQL (a shell script's `set -e`
/// lines, a manual's prose) no `;` may come, so that reading each to its `;` would read the
/// rest of the head once per line.
struct Statement<'a> {
    /// The statement's bytes, from its start, at most [`MAX_STATEMENT_BYTES`]: the spans of
    /// `tokens` are offsets in them.
    bytes: &'a [u8],
    /// Where `bytes` starts in the dump.
    start: usize,
    tokens: Vec<Token>,
    /// The offset just past the statement (past its `;`, or where reading stopped).
    end: usize,
}

impl<'a> Statement<'a> {
    /// Tokenises the statement starting at `start` (a line's start, with the line's `keyword`),
    /// up to its `;` or [`MAX_STATEMENT_BYTES`] (or, for `SET`, the next line that starts with
    /// `SET`).
    fn read(dump: &'a [u8], start: usize, keyword: Keyword) -> Self {
        let rest = dump.get(start..).unwrap_or_default();
        let bytes = rest.get(..MAX_STATEMENT_BYTES).unwrap_or(rest);
        let mut tokenizer = Tokenizer::new(SqlDialect::MySql);
        let mut at = 0;
        let mut tokens = Vec::new();
        loop {
            match tokenizer.next(bytes, &mut at, true) {
                Ok(Some(token)) if token.kind == Kind::Delimiter => break,
                Ok(Some(token))
                    if matches!(keyword, Keyword::Set) && opens_set_line(bytes, &token) =>
                {
                    at = token.span.start;
                    break;
                }
                Ok(Some(token)) => tokens.push(token),
                Ok(None) => break,
                // A quoted name that never closes: the statement runs on to where reading
                // stops, as an unterminated string does.
                Err(_) => {
                    at = bytes.len();
                    break;
                }
            }
        }
        Self {
            bytes,
            start,
            tokens,
            end: start + at,
        }
    }

    /// Whether the token at `index` is the keyword `keyword` (any case).
    fn is(&self, index: usize, keyword: &str) -> bool {
        self.tokens
            .get(index)
            .is_some_and(|token| token.is(self.bytes, keyword))
    }

    fn is_punct(&self, index: usize, byte: u8) -> bool {
        self.tokens
            .get(index)
            .is_some_and(|token| token.is_punct(byte))
    }

    /// A name or value: a word or the inside of quotes (as written), not a variable and not
    /// `DEFAULT`.
    fn value_of(&self, token: &Token) -> Option<String> {
        let text = self.bytes.get(token.span.clone()).unwrap_or_default();
        let accepted = match token.kind {
            Kind::Word => !text.starts_with(b"@") && !token.is(self.bytes, "DEFAULT"),
            Kind::Ident | Kind::Str { .. } => true,
            Kind::Punct(_) | Kind::Delimiter => false,
        };
        let text = String::from_utf8_lossy(text.trim_ascii()).into_owned();
        (accepted && !text.is_empty()).then_some(text)
    }

    fn value(&self, index: usize) -> Option<String> {
        self.value_of(self.tokens.get(index)?)
    }

    /// A session variable at `index`, its parts joined (`@@session.character_set_client`, with
    /// no blank around the dots), and the index after it.
    fn variable(&self, index: usize) -> Option<(String, usize)> {
        let first = self.tokens.get(index).filter(|t| t.kind == Kind::Word)?;
        let mut span = first.span.clone();
        let mut next = index + 1;
        while let (Some(dot), Some(part)) = (self.tokens.get(next), self.tokens.get(next + 1)) {
            if !dot.is_punct(b'.')
                || part.kind != Kind::Word
                || dot.span.start != span.end
                || part.span.start != dot.span.end
            {
                break;
            }
            span.end = part.span.end;
            next += 2;
        }
        let text = self.bytes.get(span).unwrap_or_default();
        Some((String::from_utf8_lossy(text).to_ascii_lowercase(), next))
    }

    fn declaration(
        &self,
        dump: &[u8],
        line_start: usize,
        line: u64,
        kind: SqlDeclarationKind,
        value_index: usize,
    ) -> Option<SqlDeclaration> {
        let label = self.value(value_index)?;
        let token = self.tokens.get(value_index)?;
        // Where the name is written: a quoted one from its opening quote, which the spans of
        // quoted tokens leave out.
        let quote = usize::from(matches!(token.kind, Kind::Ident | Kind::Str { .. }));
        let offset = self.start + token.span.start - quote;
        let before = dump.get(line_start..offset).unwrap_or_default();
        let place = SqlPlace {
            kind,
            line: line + memchr::memchr_iter(b'\n', before).count() as u64,
            offset: offset as u64,
        };
        Some(SqlDeclaration::new(place, label))
    }

    /// The value after `index`, skipping one `=` (or PostgreSQL's `TO`): its index.
    fn after_equals(&self, index: usize) -> usize {
        if self.is_punct(index, b'=') || self.is(index, "TO") {
            index + 1
        } else {
            index
        }
    }

    /// `COLLATE [=] name` at `index`, if there.
    fn collation_at(&self, index: usize) -> Option<String> {
        if !self.is(index, "COLLATE") {
            return None;
        }
        self.value(self.after_equals(index + 1))
    }

    /// `CHARACTER SET` or `CHARSET` at `index`: the index of its value (after any `=`).
    fn charset_value_index(&self, index: usize) -> Option<usize> {
        if self.is(index, "CHARSET") {
            Some(self.after_equals(index + 1))
        } else if self.is(index, "CHARACTER") && self.is(index + 1, "SET") {
            Some(self.after_equals(index + 2))
        } else {
            None
        }
    }

    /// The connection declarations of a `SET` statement (one per assignment).
    fn set_declarations(&self, dump: &[u8], line_start: usize, line: u64) -> Vec<SqlDeclaration> {
        let mut found = Vec::new();
        let mut index = 1; // after SET
        while index < self.tokens.len() {
            let assignment_end = (index..self.tokens.len())
                .find(|&i| self.is_punct(i, b','))
                .unwrap_or(self.tokens.len());
            if let Some((kind, value_index)) = self.set_assignment(index) {
                let declared = self.declaration(dump, line_start, line, kind, value_index);
                found.extend(declared.map(|mut declaration| {
                    declaration.collation = self.collation_at(value_index + 1);
                    declaration
                }));
            }
            index = assignment_end + 1;
        }
        found
    }

    /// The kind of the assignment at `index` and the index of its value, if it sets a
    /// character set.
    fn set_assignment(&self, index: usize) -> Option<(SqlDeclarationKind, usize)> {
        if self.is(index, "NAMES") {
            return Some((SqlDeclarationKind::SetNames, index + 1));
        }
        if let Some(value_index) = self.charset_value_index(index) {
            return Some((SqlDeclarationKind::SetCharacterSet, value_index));
        }
        let scoped = ["SESSION", "LOCAL"]
            .iter()
            .any(|scope| self.is(index, scope));
        let variable_index = if scoped { index + 1 } else { index };
        let (variable, after_variable) = self.variable(variable_index)?;
        let variable = variable.trim_start_matches("@@");
        let variable = ["session.", "local."]
            .iter()
            .find_map(|scope| variable.strip_prefix(scope))
            .unwrap_or(variable);
        let kind = match variable {
            "character_set_client" => SqlDeclarationKind::SetCharacterSetClient,
            "client_encoding" => SqlDeclarationKind::SetClientEncoding,
            _ => return None,
        };
        let value_index = self.after_equals(after_variable);
        (value_index > after_variable).then_some((kind, value_index))
    }

    /// The database, table and column declarations of a `CREATE` statement.
    fn create_declarations(
        &self,
        dump: &[u8],
        line_start: usize,
        line: u64,
    ) -> Vec<SqlDeclaration> {
        let Some(mut index) = created_object(self.bytes, &self.tokens) else {
            return Vec::new();
        };
        let database = self.is(index, "DATABASE") || self.is(index, "SCHEMA");
        if !database && !self.is(index, "TABLE") {
            return Vec::new();
        }
        index += 1;
        for word in ["IF", "NOT", "EXISTS"] {
            if self.is(index, word) {
                index += 1;
            }
        }
        // The last part of a possibly qualified name (`db`.`t`, `db.t`, `"t"`).
        let (mut parts, after_name) =
            qualified_name_by(&self.tokens, index, |token| self.value_of(token));
        let name = parts.pop();
        let mut found = Vec::new();
        let mut depth = 0usize;
        let mut column: Option<String> = None;
        let mut item_starts = false;
        index = after_name;
        while let Some(token) = self.tokens.get(index) {
            match token.kind {
                Kind::Punct(b'(') => {
                    depth += 1;
                    item_starts = depth == 1;
                }
                Kind::Punct(b')') => depth = depth.saturating_sub(1),
                Kind::Punct(b',') if depth == 1 => item_starts = true,
                _ => {
                    if item_starts {
                        column = self.column_name(index);
                        item_starts = false;
                    }
                    let kind = match (database, depth) {
                        (true, _) => SqlDeclarationKind::DatabaseDefault,
                        (false, 0) => SqlDeclarationKind::TableDefault,
                        (false, 1) => SqlDeclarationKind::Column,
                        (false, _) => {
                            index += 1;
                            continue;
                        }
                    };
                    let value_index = match self.charset_value_index(index) {
                        Some(value_index) => Some((kind, value_index)),
                        None if database && self.is(index, "ENCODING") => Some((
                            SqlDeclarationKind::DatabaseEncoding,
                            self.after_equals(index + 1),
                        )),
                        None => None,
                    };
                    if let Some((kind, value_index)) = value_index {
                        let declared = self.declaration(dump, line_start, line, kind, value_index);
                        if let Some(mut declaration) = declared {
                            declaration.collation = self.collation_at(value_index + 1);
                            declaration.table.clone_from(&name);
                            if kind == SqlDeclarationKind::Column {
                                declaration.column.clone_from(&column);
                            }
                            found.push(declaration);
                        }
                        index = value_index + 1;
                        continue;
                    }
                }
            }
            index += 1;
        }
        found
    }

    /// The column an item of a `CREATE TABLE` defines, from its first token (at `index`);
    /// `None` for keys and constraints.
    fn column_name(&self, index: usize) -> Option<String> {
        if NOT_A_COLUMN.iter().any(|keyword| self.is(index, keyword)) {
            return None;
        }
        self.value(index)
    }
}

#[cfg(test)]
mod tests;
