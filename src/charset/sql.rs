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

use memchr::memchr;
use serde::Serialize;

use super::labels::LabelMeaning;

/// How far into a dump connection declarations are looked for: 64 KiB. `mysqldump` and
/// `pg_dump` write them in the first few hundred bytes; a dump that changes its connection
/// character set later is rare, and reading only a head keeps a multi-gigabyte dump cheap.
pub const SQL_CONNECTION_SCAN_LIMIT: usize = 64 * 1024;

/// The longest statement tokenised: 1 MiB, far more than any `CREATE TABLE`. A line that only
/// looks like the start of one (a stray `CREATE` in a data file) cannot make the scan read on
/// to the end of the file.
pub const MAX_STATEMENT_BYTES: usize = 1 << 20;

/// Which statement a SQL declaration comes from; serialises as the kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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

/// The SQL dialect whose names a declaration uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    /// MySQL and MariaDB.
    MySql,
    /// PostgreSQL.
    PostgreSql,
}

impl SqlDeclarationKind {
    /// Whether the declaration describes the dump's own bytes (a connection setting) rather
    /// than how the server stores the text.
    pub fn is_connection(self) -> bool {
        matches!(
            self,
            Self::SetNames
                | Self::SetCharacterSet
                | Self::SetCharacterSetClient
                | Self::SetClientEncoding
        )
    }

    /// The dialect whose character set names the statement takes.
    pub fn dialect(self) -> SqlDialect {
        match self {
            Self::SetClientEncoding | Self::DatabaseEncoding => SqlDialect::PostgreSql,
            _ => SqlDialect::MySql,
        }
    }

    /// The statement as a person would name it.
    pub fn statement(self) -> &'static str {
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// What a character set name means in a SQL dialect.
pub fn sql_charset(dialect: SqlDialect, name: &str) -> LabelMeaning {
    match dialect {
        SqlDialect::MySql => mysql_charset(name),
        SqlDialect::PostgreSql => postgresql_encoding(name),
    }
}

/// What a WHATWG label, or `None` for "no encoding", decodes as.
fn meaning_of(target: Option<&str>) -> LabelMeaning {
    target.map_or(LabelMeaning::Uninterpreted, LabelMeaning::of_label)
}

/// MySQL/MariaDB character sets (`SHOW CHARACTER SET`) and the WHATWG label that decodes alike;
/// `None` is `binary`. Left out, so unknown: `armscii8`, `cp850`, `cp852`, `dec8`, `geostd8`,
/// `hp8`, `keybcs2`, `macce`, `swe7`, which no WHATWG encoding matches.
const MYSQL_CHARSETS: &[(&str, Option<&str>)] = &[
    ("ascii", Some("us-ascii")),
    ("big5", Some("big5")),
    ("binary", None),
    ("cp1250", Some("windows-1250")),
    ("cp1251", Some("windows-1251")),
    ("cp1256", Some("windows-1256")),
    ("cp1257", Some("windows-1257")),
    ("cp866", Some("ibm866")),
    ("cp932", Some("shift_jis")),
    ("eucjpms", Some("euc-jp")),
    ("euckr", Some("euc-kr")),
    ("gb18030", Some("gb18030")),
    ("gb2312", Some("gbk")),
    ("gbk", Some("gbk")),
    ("greek", Some("iso-8859-7")),
    ("hebrew", Some("iso-8859-8")),
    ("koi8r", Some("koi8-r")),
    ("koi8u", Some("koi8-u")),
    // MySQL's latin1 is windows-1252 with 0x81, 0x8D, 0x8F, 0x90 and 0x9D as C1 controls:
    // exactly the WHATWG windows-1252 decoder.
    ("latin1", Some("windows-1252")),
    ("latin2", Some("iso-8859-2")),
    ("latin5", Some("iso-8859-9")),
    ("latin7", Some("iso-8859-13")),
    ("macroman", Some("macintosh")),
    ("sjis", Some("shift_jis")),
    ("tis620", Some("windows-874")),
    ("ucs2", Some("utf-16be")),
    ("ujis", Some("euc-jp")),
    ("utf16", Some("utf-16be")),
    ("utf16le", Some("utf-16le")),
    ("utf32", Some("utf-32be")),
    ("utf8", Some("utf-8")),
    ("utf8mb3", Some("utf-8")),
    ("utf8mb4", Some("utf-8")),
];

/// What a MySQL/MariaDB character set name means (case-insensitive).
pub fn mysql_charset(name: &str) -> LabelMeaning {
    let name = name.trim().to_ascii_lowercase();
    MYSQL_CHARSETS
        .iter()
        .find(|(known, _)| *known == name)
        .map_or(LabelMeaning::Unknown, |(_, target)| meaning_of(*target))
}

/// PostgreSQL encodings and aliases (`encnames.c`), in PostgreSQL's normal form (lower case,
/// letters and digits only; `windowsNNN` is first shortened to `winNNN`), and the WHATWG label
/// that decodes alike; `None` is `SQL_ASCII`. Left out, so unknown: `EUC_TW`, `EUC_JIS_2004`,
/// `SHIFT_JIS_2004`, `JOHAB`, `MULE_INTERNAL`.
const POSTGRESQL_ENCODINGS: &[(&str, Option<&str>)] = &[
    ("abc", Some("windows-1258")),
    ("alt", Some("ibm866")),
    ("big5", Some("big5")),
    ("euccn", Some("gbk")),
    ("eucjp", Some("euc-jp")),
    ("euckr", Some("euc-kr")),
    ("gb18030", Some("gb18030")),
    ("gbk", Some("gbk")),
    ("iso88591", Some("iso-8859-1")),
    ("iso885910", Some("iso-8859-10")),
    ("iso885913", Some("iso-8859-13")),
    ("iso885914", Some("iso-8859-14")),
    ("iso885915", Some("iso-8859-15")),
    ("iso885916", Some("iso-8859-16")),
    ("iso88592", Some("iso-8859-2")),
    ("iso88593", Some("iso-8859-3")),
    ("iso88594", Some("iso-8859-4")),
    ("iso88595", Some("iso-8859-5")),
    ("iso88596", Some("iso-8859-6")),
    ("iso88597", Some("iso-8859-7")),
    ("iso88598", Some("iso-8859-8")),
    ("iso88599", Some("iso-8859-9")),
    ("koi8", Some("koi8-r")),
    ("koi8r", Some("koi8-r")),
    ("koi8u", Some("koi8-u")),
    // True ISO-8859-1 (0x80-0x9F are C1 controls), unlike MySQL's latin1.
    ("latin1", Some("iso-8859-1")),
    ("latin10", Some("iso-8859-16")),
    ("latin2", Some("iso-8859-2")),
    ("latin3", Some("iso-8859-3")),
    ("latin4", Some("iso-8859-4")),
    ("latin5", Some("iso-8859-9")),
    ("latin6", Some("iso-8859-10")),
    ("latin7", Some("iso-8859-13")),
    ("latin8", Some("iso-8859-14")),
    ("latin9", Some("iso-8859-15")),
    ("mskanji", Some("shift_jis")),
    ("shiftjis", Some("shift_jis")),
    ("sjis", Some("shift_jis")),
    ("sqlascii", None),
    ("tcvn", Some("windows-1258")),
    ("tcvn5712", Some("windows-1258")),
    ("uhc", Some("euc-kr")),
    ("unicode", Some("utf-8")),
    ("utf8", Some("utf-8")),
    ("vscii", Some("windows-1258")),
    ("win", Some("windows-1251")),
    ("win1250", Some("windows-1250")),
    ("win1251", Some("windows-1251")),
    ("win1252", Some("windows-1252")),
    ("win1253", Some("windows-1253")),
    ("win1254", Some("windows-1254")),
    ("win1255", Some("windows-1255")),
    ("win1256", Some("windows-1256")),
    ("win1257", Some("windows-1257")),
    ("win1258", Some("windows-1258")),
    ("win866", Some("ibm866")),
    ("win874", Some("windows-874")),
    ("win932", Some("shift_jis")),
    ("win936", Some("gbk")),
    ("win949", Some("euc-kr")),
    ("win950", Some("big5")),
];

/// What a PostgreSQL encoding name means (`UTF8`, `utf-8`, `LATIN1`, `SQL_ASCII`, ...).
pub fn postgresql_encoding(name: &str) -> LabelMeaning {
    let normal: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let normal = match normal.strip_prefix("windows") {
        Some(number) => format!("win{number}"),
        None => normal,
    };
    POSTGRESQL_ENCODINGS
        .iter()
        .find(|(known, _)| *known == normal)
        .map_or(LabelMeaning::Unknown, |(_, target)| meaning_of(*target))
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
                let statement = Statement::read(dump, line_start);
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
                let statement = Statement::read(dump, line_start);
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
    let first = head
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(head)
        .iter()
        .find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'<') {
        return false;
    }
    let is_dump_statement = |line: &[u8]| {
        let line = after_line_opener(line);
        starts_with_words(line, &["CREATE", "TABLE"])
            || starts_with_words(line, &["INSERT", "INTO"])
            || (starts_with_words(line, &["COPY"])
                && line
                    .trim_ascii_end()
                    .to_ascii_lowercase()
                    .ends_with(b"from stdin;"))
    };
    head.split(|&b| b == b'\n').any(is_dump_statement)
        || sql_declarations(head)
            .iter()
            .any(|declaration| declaration.place.kind.is_connection())
}

/// The first word of a line that can start a declaration.
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

/// A SQL token: a word (keyword, identifier, number, `@variable`), the inside of a quoted
/// string or identifier, or one punctuation byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a [u8]),
    Quoted(&'a [u8]),
    Punct(u8),
}

impl Token<'_> {
    fn is(self, keyword: &str) -> bool {
        matches!(self, Token::Word(word) if word.eq_ignore_ascii_case(keyword.as_bytes()))
    }

    /// A name or value: a word or the inside of quotes, not a variable and not `DEFAULT`.
    fn value(self) -> Option<String> {
        let bytes = match self {
            Token::Word(word) if !word.starts_with(b"@") && !self.is("DEFAULT") => word,
            Token::Quoted(inner) => inner,
            _ => return None,
        };
        let text = String::from_utf8_lossy(bytes.trim_ascii()).into_owned();
        (!text.is_empty()).then_some(text)
    }
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'@' | b'.') || byte >= 0x80
}

/// Splits SQL into tokens with their offsets. Comments are skipped; the inside of a
/// version comment (`/*!40101 ... */`) is read as ordinary SQL, as the server does.
struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
    in_version_comment: bool,
}

impl Lexer<'_> {
    fn skip_past(&mut self, rest: &[u8], terminator: &[u8]) {
        self.at +=
            memchr::memmem::find(rest, terminator).map_or(rest.len(), |at| at + terminator.len());
    }

    /// The inside of the quoted string or identifier that starts `rest` (backslash escapes
    /// and doubled quotes kept as written), and its length with the quotes; an unterminated
    /// one runs to the end.
    fn quoted(rest: &[u8]) -> (&[u8], usize) {
        let Some(&quote) = rest.first() else {
            return (rest, 0);
        };
        let mut at = 1;
        while let Some(&byte) = rest.get(at) {
            let escaped = byte == b'\\' && quote != b'`';
            let doubled = byte == quote && rest.get(at + 1) == Some(&quote);
            if escaped || doubled {
                at += 2;
            } else if byte == quote {
                return (rest.get(1..at).unwrap_or_default(), at + 1);
            } else {
                at += 1;
            }
        }
        (rest.get(1..).unwrap_or_default(), rest.len())
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = (usize, Token<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let start = self.at;
            let rest = self.bytes.get(start..)?;
            let &first = rest.first()?;
            if first.is_ascii_whitespace() {
                self.at += 1;
            } else if rest.starts_with(b"/*!") || rest.starts_with(b"/*M!") {
                let opener = if rest.starts_with(b"/*!") { 3 } else { 4 };
                let digits = rest
                    .get(opener..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                self.at += opener + digits;
                self.in_version_comment = true;
            } else if rest.starts_with(b"*/") && self.in_version_comment {
                self.at += 2;
                self.in_version_comment = false;
            } else if rest.starts_with(b"/*") {
                self.skip_past(rest, b"*/");
            } else if first == b'#'
                || (rest.starts_with(b"--") && rest.get(2).is_none_or(u8::is_ascii_whitespace))
            {
                self.skip_past(rest, b"\n");
            } else if matches!(first, b'\'' | b'"' | b'`') {
                let (inner, length) = Self::quoted(rest);
                self.at += length;
                return Some((start, Token::Quoted(inner)));
            } else if is_word_byte(first) {
                let length = rest.iter().take_while(|&&b| is_word_byte(b)).count();
                self.at += length;
                return Some((start, Token::Word(rest.get(..length).unwrap_or_default())));
            } else {
                self.at += 1;
                return Some((start, Token::Punct(first)));
            }
        }
    }
}

/// One statement's tokens (offsets from the start of the dump), up to its `;`.
struct Statement<'a> {
    tokens: Vec<(usize, Token<'a>)>,
    /// The offset just past the statement (past its `;`, or where reading stopped).
    end: usize,
}

impl<'a> Statement<'a> {
    /// Tokenises the statement starting at `start`, up to its `;` or
    /// [`MAX_STATEMENT_BYTES`].
    fn read(dump: &'a [u8], start: usize) -> Self {
        let rest = dump.get(start..).unwrap_or_default();
        let bounded = rest.get(..MAX_STATEMENT_BYTES).unwrap_or(rest);
        let mut lexer = Lexer {
            bytes: bounded,
            at: 0,
            in_version_comment: false,
        };
        let mut tokens = Vec::new();
        for (at, token) in lexer.by_ref() {
            if token == Token::Punct(b';') {
                break;
            }
            tokens.push((start + at, token));
        }
        Self {
            tokens,
            end: start + lexer.at,
        }
    }

    fn token(&self, index: usize) -> Option<Token<'a>> {
        self.tokens.get(index).map(|&(_, token)| token)
    }

    fn declaration(
        &self,
        dump: &[u8],
        line_start: usize,
        line: u64,
        kind: SqlDeclarationKind,
        value_index: usize,
    ) -> Option<SqlDeclaration> {
        let (offset, token) = *self.tokens.get(value_index)?;
        let label = token.value()?;
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
        match self.token(index) {
            Some(Token::Punct(b'=')) => index + 1,
            Some(token) if token.is("TO") => index + 1,
            _ => index,
        }
    }

    /// `COLLATE [=] name` at `index`, if there.
    fn collation_at(&self, index: usize) -> Option<String> {
        self.token(index)
            .filter(|token| token.is("COLLATE"))
            .and_then(|_| self.token(self.after_equals(index + 1)))
            .and_then(Token::value)
    }

    /// `CHARACTER SET` or `CHARSET` at `index`: the index of its value (after any `=`).
    fn charset_value_index(&self, index: usize) -> Option<usize> {
        let token = self.token(index)?;
        if token.is("CHARSET") {
            Some(self.after_equals(index + 1))
        } else if token.is("CHARACTER") && self.token(index + 1)?.is("SET") {
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
                .find(|&i| self.token(i) == Some(Token::Punct(b',')))
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
        let first = self.token(index)?;
        if first.is("NAMES") {
            return Some((SqlDeclarationKind::SetNames, index + 1));
        }
        if let Some(value_index) = self.charset_value_index(index) {
            return Some((SqlDeclarationKind::SetCharacterSet, value_index));
        }
        let scoped = ["SESSION", "LOCAL"].iter().any(|scope| first.is(scope));
        let variable_index = if scoped { index + 1 } else { index };
        let Token::Word(variable) = self.token(variable_index)? else {
            return None;
        };
        let variable = String::from_utf8_lossy(variable).to_ascii_lowercase();
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
        let value_index = self.after_equals(variable_index + 1);
        (value_index > variable_index + 1).then_some((kind, value_index))
    }

    /// The database, table and column declarations of a `CREATE` statement.
    fn create_declarations(
        &self,
        dump: &[u8],
        line_start: usize,
        line: u64,
    ) -> Vec<SqlDeclaration> {
        let mut index = 1; // after CREATE
        while self.token(index).is_some_and(|token| {
            crate::dump::ddl::CREATE_MODIFIERS
                .iter()
                .any(|m| token.is(m))
        }) {
            index += 1;
        }
        let Some(object) = self.token(index) else {
            return Vec::new();
        };
        let database = object.is("DATABASE") || object.is("SCHEMA");
        if !database && !object.is("TABLE") {
            return Vec::new();
        }
        index += 1;
        for word in ["IF", "NOT", "EXISTS"] {
            if self.token(index).is_some_and(|token| token.is(word)) {
                index += 1;
            }
        }
        let (name, after_name) = self.qualified_name(index);
        let mut found = Vec::new();
        let mut depth = 0usize;
        let mut column: Option<String> = None;
        let mut item_starts = false;
        index = after_name;
        while let Some(token) = self.token(index) {
            match token {
                Token::Punct(b'(') => {
                    depth += 1;
                    item_starts = depth == 1;
                }
                Token::Punct(b')') => depth = depth.saturating_sub(1),
                Token::Punct(b',') if depth == 1 => item_starts = true,
                _ => {
                    if item_starts {
                        column = column_name(token);
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
                        None if database && token.is("ENCODING") => Some((
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

    /// The last part of a possibly qualified name at `index` (`db`.`t`, `db.t`, `"t"`), and
    /// the index after it.
    fn qualified_name(&self, mut index: usize) -> (Option<String>, usize) {
        let mut name = None;
        while let Some(part) = self.token(index).and_then(Token::value) {
            name = Some(part.rsplit('.').next().unwrap_or_default().to_owned());
            index += 1;
            if self.token(index) != Some(Token::Punct(b'.')) {
                break;
            }
            index += 1;
        }
        (name, index)
    }
}

/// Keywords that start an item of `CREATE TABLE` defining no column: keys, constraints,
/// periods, `LIKE` (MySQL, MariaDB and PostgreSQL). The dump lexer reads tables with them too.
pub(crate) const NOT_A_COLUMN: &[&str] = &[
    "PRIMARY",
    "KEY",
    "INDEX",
    "UNIQUE",
    "CONSTRAINT",
    "FOREIGN",
    "FULLTEXT",
    "SPATIAL",
    "CHECK",
    "PERIOD",
    "EXCLUDE",
    "LIKE",
];

/// The column an item of a `CREATE TABLE` defines, from its first token; `None` for keys and
/// constraints.
fn column_name(first: Token<'_>) -> Option<String> {
    if NOT_A_COLUMN.iter().any(|keyword| first.is(keyword)) {
        return None;
    }
    first.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MYSQLDUMP_HEAD: &str = "\
-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version\t8.0.36

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8 */;
/*!50503 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;

CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET latin1 */;

--
-- Table structure for table `countries`
--

DROP TABLE IF EXISTS `countries`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `countries` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci DEFAULT NULL,
  `note` text COMMENT 'a ; inside, and CHARACTER SET koi8r',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB AUTO_INCREMENT=250 DEFAULT CHARSET=latin1;
/*!40101 SET character_set_client = @saved_cs_client */;

INSERT INTO `countries` VALUES (1,'CREATE TABLE x'),(2,'SET NAMES koi8r');
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `t2` (`a` int) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
";

    fn summary(found: &[SqlDeclaration]) -> Vec<(SqlDeclarationKind, u64, &str, Option<&str>)> {
        found
            .iter()
            .map(|d| {
                (
                    d.place.kind,
                    d.place.line,
                    d.label.as_str(),
                    d.encoding.as_deref(),
                )
            })
            .collect()
    }

    #[test]
    fn mysqldump_head() {
        use SqlDeclarationKind::*;
        let found = sql_declarations(MYSQLDUMP_HEAD.as_bytes());
        assert_eq!(
            summary(&found),
            [
                (SetNames, 10, "utf8", Some("UTF-8")),
                (SetNames, 11, "utf8mb4", Some("UTF-8")),
                (DatabaseDefault, 14, "latin1", Some("windows-1252")),
                (SetCharacterSetClient, 22, "utf8mb4", Some("UTF-8")),
                (Column, 25, "utf8mb4", Some("UTF-8")),
                (TableDefault, 28, "latin1", Some("windows-1252")),
                (TableDefault, 33, "utf8mb4", Some("UTF-8")),
            ]
        );
        let column = &found[4];
        assert_eq!(column.table.as_deref(), Some("countries"));
        assert_eq!(column.column.as_deref(), Some("name"));
        assert_eq!(column.collation.as_deref(), Some("utf8mb4_0900_ai_ci"));
        assert_eq!(found[2].table.as_deref(), Some("shop"));
        assert_eq!(found[5].table.as_deref(), Some("countries"));
        assert_eq!(found[5].column, None);
        assert_eq!(found[6].collation.as_deref(), Some("utf8mb4_0900_ai_ci"));
        for declaration in &found {
            let at = usize::try_from(declaration.place.offset).unwrap_or(usize::MAX);
            let text = MYSQLDUMP_HEAD.get(at..).unwrap_or_default();
            assert!(text.starts_with(&declaration.label), "{declaration:?}");
            let line = MYSQLDUMP_HEAD.get(..at).unwrap_or_default().lines().count();
            assert_eq!(declaration.place.line as usize, line, "{declaration:?}");
        }
    }

    #[test]
    fn pg_dump_head() {
        let head = "--\n-- PostgreSQL database dump\n--\n\n\
            SET statement_timeout = 0;\nSET lock_timeout = 0;\n\
            SET client_encoding = 'SQL_ASCII';\nSET standard_conforming_strings = on;\n\
            SELECT pg_catalog.set_config('search_path', '', false);\n\
            CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'LATIN1' LOCALE = 'C';\n\
            set client_encoding to \"utf-8\";\n";
        let found = sql_declarations(head.as_bytes());
        assert_eq!(
            summary(&found),
            [
                (SqlDeclarationKind::SetClientEncoding, 7, "SQL_ASCII", None),
                (
                    SqlDeclarationKind::DatabaseEncoding,
                    10,
                    "LATIN1",
                    Some("windows-1252")
                ),
                (
                    SqlDeclarationKind::SetClientEncoding,
                    11,
                    "utf-8",
                    Some("UTF-8")
                ),
            ]
        );
        assert_eq!(found[0].meaning(), LabelMeaning::Uninterpreted);
        assert_eq!(found[1].table.as_deref(), Some("shop"));
    }

    #[test]
    fn set_variants() {
        let dump = b"SET NAMES 'latin1' COLLATE 'latin1_swedish_ci';\n\
            SET CHARACTER SET cp1251;\n\
            SET SESSION character_set_client = koi8r, @@session.character_set_client = DEFAULT;\n\
            set names @x;\n";
        let found = sql_declarations(dump);
        assert_eq!(
            summary(&found),
            [
                (
                    SqlDeclarationKind::SetNames,
                    1,
                    "latin1",
                    Some("windows-1252")
                ),
                (
                    SqlDeclarationKind::SetCharacterSet,
                    2,
                    "cp1251",
                    Some("windows-1251")
                ),
                (
                    SqlDeclarationKind::SetCharacterSetClient,
                    3,
                    "koi8r",
                    Some("KOI8-R")
                ),
            ]
        );
        assert_eq!(found[0].collation.as_deref(), Some("latin1_swedish_ci"));
    }

    #[test]
    fn connection_declarations_only_in_the_head() {
        let mut dump = "-- x\n".repeat(SQL_CONNECTION_SCAN_LIMIT / 5 + 1);
        dump.push_str("SET NAMES latin1;\nCREATE TABLE t (a int) DEFAULT CHARSET=latin1;\n");
        let found = sql_declarations(dump.as_bytes());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].place.kind, SqlDeclarationKind::TableDefault);
        assert_eq!(
            found[0].place.line,
            SQL_CONNECTION_SCAN_LIMIT as u64 / 5 + 3
        );
    }

    #[test]
    fn mapping_per_dialect() {
        let name = |meaning: LabelMeaning| match meaning {
            LabelMeaning::Encoding(encoding) => encoding.name(),
            LabelMeaning::Uninterpreted => "no encoding",
            LabelMeaning::Unknown => "unknown",
        };
        assert_eq!(name(mysql_charset("UTF8MB4")), "UTF-8");
        assert_eq!(name(mysql_charset("utf8mb3")), "UTF-8");
        assert_eq!(name(mysql_charset("latin1")), "windows-1252");
        assert_eq!(name(mysql_charset("ascii")), "windows-1252");
        assert_eq!(name(mysql_charset("ucs2")), "UTF-16BE");
        assert_eq!(name(mysql_charset("utf32")), "UTF-32BE");
        assert_eq!(name(mysql_charset("binary")), "no encoding");
        assert_eq!(name(mysql_charset("keybcs2")), "unknown");
        assert_eq!(name(mysql_charset("UTF-8")), "unknown");
        assert_eq!(name(postgresql_encoding("UTF8")), "UTF-8");
        assert_eq!(name(postgresql_encoding("Unicode")), "UTF-8");
        assert_eq!(name(postgresql_encoding("ISO_8859_5")), "ISO-8859-5");
        assert_eq!(name(postgresql_encoding("WIN1252")), "windows-1252");
        assert_eq!(name(postgresql_encoding("Windows1251")), "windows-1251");
        assert_eq!(name(postgresql_encoding("LATIN9")), "ISO-8859-15");
        assert_eq!(name(postgresql_encoding("SQL_ASCII")), "no encoding");
        assert_eq!(name(postgresql_encoding("MULE_INTERNAL")), "unknown");
        for (mysql, _) in MYSQL_CHARSETS {
            assert_ne!(mysql_charset(mysql), LabelMeaning::Unknown, "{mysql}");
        }
        for (postgresql, _) in POSTGRESQL_ENCODINGS {
            assert_ne!(
                postgresql_encoding(postgresql),
                LabelMeaning::Unknown,
                "{postgresql}"
            );
        }
    }

    #[test]
    fn looks_like_sql_or_not() {
        assert!(looks_like_sql(MYSQLDUMP_HEAD.as_bytes()));
        assert!(looks_like_sql(b"insert into t values (1);\n"));
        assert!(looks_like_sql(
            b"\xEF\xBB\xBFSET client_encoding = 'UTF8';\n"
        ));
        assert!(!looks_like_sql(b"<html>\nSET NAMES latin1;\n"));
        assert!(!looks_like_sql(b"Set the table, then create something.\n"));
        assert!(!looks_like_sql(b""));
    }

    #[test]
    fn odd_input_does_not_panic() {
        for dump in [
            &b"CREATE"[..],
            b"CREATE TABLE",
            b"CREATE TABLE `unterminated",
            b"SET NAMES",
            b"SET NAMES '",
            b"/*!",
            b"/*!40101 SET NAMES x",
            b"CREATE TABLE t (a char CHARACTER SET",
            b"CREATE TABLE t (((((",
            b"SET character_set_client",
            b"\xEF\xBB\xBF",
            b"\n\n\nCREATE TABLE t (a int);",
        ] {
            let _ = sql_declarations(dump);
            let _ = looks_like_sql(dump);
        }
    }

    #[test]
    fn serialises_place_flat() {
        let found = sql_declarations(b"SET NAMES latin1;\n");
        let json = serde_json::to_value(&found).unwrap_or_default();
        assert_eq!(json[0]["statement"], "set-names");
        assert_eq!(json[0]["line"], 1);
        assert_eq!(json[0]["offset"], 10);
        assert_eq!(json[0]["label"], "latin1");
        assert_eq!(json[0]["encoding"], "windows-1252");
    }
}
