//! Statements read whole, from their tokens: `CREATE TABLE` (columns, their kinds, the primary
//! key, the character set declarations `--convert-charset` rewrites, the string literals that
//! are text), `CREATE DATABASE` (its default character set, for `--convert-charset`), the
//! heads of `INSERT` and `COPY` (which table, which columns), `SET` (connection character
//! sets, PostgreSQL's `standard_conforming_strings`), `USE` and `COMMENT ON`.
//!
//! The `SET NAMES` family is found by [`crate::charset::sql_declarations`], the same reader that
//! reports a dump's declared encoding; `CREATE TABLE` needs more than that reader keeps (types,
//! keys, every `COLLATE`), so it is read here.

use std::ops::Range;

use super::schema::{self, Column, ColumnKind, Table};
use super::tokens::{Kind, Token};
use crate::charset::NOT_A_COLUMN;
use crate::charset::{SqlDialect, sql_declarations};

/// A change of a few bytes in the DDL, for `--convert-charset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub span: Range<usize>,
    pub text: &'static str,
}

/// What a `CREATE TABLE` defines and what of it `fix` may change.
#[derive(Debug)]
pub(crate) struct Definition {
    pub table: Table,
    pub edits: Vec<Edit>,
    /// The insides of string literals that are text: comments, and defaults and enum values of
    /// text columns.
    pub text_literals: Vec<Range<usize>>,
    /// Tables whose columns come first (`LIKE u`, PostgreSQL's `PARTITION OF p` and
    /// `INHERITS (p)`), as [`table_key`] names them.
    pub parents: Vec<String>,
}

/// A possibly qualified name at `tokens[at]` (`db`.`t`, `public.t`): its parts, and the index
/// after it.
pub(crate) fn qualified_name(buf: &[u8], tokens: &[Token], at: usize) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    let mut i = at;
    while let Some(part) = tokens.get(i).and_then(|t| t.name(buf)) {
        parts.push(part);
        i += 1;
        if !tokens.get(i).is_some_and(|t| t.is_punct(b'.')) {
            break;
        }
        i += 1;
    }
    (parts, i)
}

/// The name a table is known by: as written, qualified with the database of the last `USE`
/// when the dump does not qualify it.
pub(crate) fn table_key(parts: &[String], database: Option<&str>) -> String {
    match (parts, database) {
        ([name], Some(database)) => format!("{database}.{name}"),
        _ => parts.join("."),
    }
}

/// Where the item of a parenthesised list that starts at `from` ends: the index of the `,` or
/// `)` that closes it at its own depth (or the end of `tokens`).
fn item_end(tokens: &[Token], from: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(from) {
        match token.kind {
            Kind::Punct(b'(') => depth += 1,
            Kind::Punct(b')') if depth == 0 => return i,
            Kind::Punct(b')') => depth -= 1,
            Kind::Punct(b',') if depth == 0 => return i,
            _ => {}
        }
    }
    tokens.len()
}

/// The index of the `)` that closes the `(` at `tokens[open]` (or the end of `tokens`).
fn closing(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.kind {
            Kind::Punct(b'(') => depth += 1,
            Kind::Punct(b')') if depth <= 1 => return i,
            Kind::Punct(b')') => depth -= 1,
            _ => {}
        }
    }
    tokens.len()
}

/// The names in the parenthesised list at `tokens[at]` (key parts such as `name`(10) and
/// `ASC` ignored), and the index after it.
pub(crate) fn name_list(buf: &[u8], tokens: &[Token], at: usize) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    if !tokens.get(at).is_some_and(|t| t.is_punct(b'(')) {
        return (names, at);
    }
    let mut i = at + 1;
    loop {
        let end = item_end(tokens, i);
        if let Some(name) = tokens.get(i).and_then(|t| t.name(buf)) {
            names.push(name);
        }
        i = end + 1;
        if !tokens.get(end).is_some_and(|t| t.is_punct(b',')) {
            return (names, i);
        }
    }
}

/// The index of the value of `CHARACTER SET x`, `CHARSET x` or `COLLATE x` at `tokens[at]`
/// (after an optional `=`), and whether it is a collation.
fn charset_clause(buf: &[u8], tokens: &[Token], at: usize) -> Option<(usize, bool)> {
    let token = tokens.get(at)?;
    let (value, collation) = if token.is(buf, "CHARSET") {
        (at + 1, false)
    } else if token.is(buf, "CHARACTER") && tokens.get(at + 1)?.is(buf, "SET") {
        (at + 2, false)
    } else if token.is(buf, "COLLATE") {
        (at + 1, true)
    } else {
        return None;
    };
    let value = match tokens.get(value) {
        Some(t) if t.is_punct(b'=') => value + 1,
        _ => value,
    };
    tokens.get(value)?;
    Some((value, collation))
}

/// Every `CHARACTER SET`, `CHARSET` and `COLLATE` clause of `tokens` from `from` on: the index
/// of its value, and whether it is a collation.
fn charset_clauses<'t>(
    buf: &'t [u8],
    tokens: &'t [Token],
    from: usize,
) -> impl Iterator<Item = (usize, bool)> + 't {
    let mut j = from;
    std::iter::from_fn(move || {
        while j < tokens.len() {
            if let Some((value, collation)) = charset_clause(buf, tokens, j) {
                j = value + 1;
                return Some((value, collation));
            }
            j += 1;
        }
        None
    })
}

/// The text of a name or string token.
fn text_of(buf: &[u8], token: &Token) -> String {
    String::from_utf8_lossy(&buf[token.span.clone()]).into_owned()
}

/// The `--convert-charset` edit of the character set or collation name at `token`, if it is
/// `latin1`'s.
fn convert_edit(buf: &[u8], token: &Token, collation: bool) -> Option<Edit> {
    let name = text_of(buf, token);
    let text = match collation {
        true => schema::utf8mb4_collation(&name)?,
        false if schema::is_latin1(&name) => "utf8mb4",
        false => return None,
    };
    Some(Edit {
        span: token.span.clone(),
        text,
    })
}

/// Reads a `CREATE TABLE` statement (its tokens, without the delimiter). `None` when the
/// statement creates something else.
pub(crate) fn create_table(
    buf: &[u8],
    tokens: &[Token],
    dialect: SqlDialect,
    convert: bool,
    database: Option<&str>,
) -> Option<Definition> {
    let modifiers = [
        "OR",
        "REPLACE",
        "TEMPORARY",
        "TEMP",
        "UNLOGGED",
        "GLOBAL",
        "LOCAL",
    ];
    let mut i = 1;
    while tokens
        .get(i)
        .is_some_and(|t| modifiers.iter().any(|m| t.is(buf, m)))
    {
        i += 1;
    }
    if !tokens.get(i)?.is(buf, "TABLE") {
        return None;
    }
    i += 1;
    for word in ["IF", "NOT", "EXISTS"] {
        if tokens.get(i).is_some_and(|t| t.is(buf, word)) {
            i += 1;
        }
    }
    let (parts, after_name) = qualified_name(buf, tokens, i);
    let mut definition = Definition {
        table: Table {
            name: table_key(&parts, database),
            columns: Vec::new(),
            primary_key: Vec::new(),
            rows: 0,
        },
        edits: Vec::new(),
        text_literals: Vec::new(),
        parents: Vec::new(),
    };
    i = after_name;
    let parent_at = match tokens.get(i) {
        Some(t) if t.is(buf, "LIKE") => Some(i + 1),
        Some(t) if t.is(buf, "PARTITION") && tokens.get(i + 1).is_some_and(|t| t.is(buf, "OF")) => {
            Some(i + 2)
        }
        _ => None,
    };
    if let Some(at) = parent_at {
        let (parent, after) = qualified_name(buf, tokens, at);
        definition.parents.push(table_key(&parent, database));
        i = after;
    }
    let mut key_names = Vec::new();
    if tokens.get(i).is_some_and(|t| t.is_punct(b'(')) {
        i += 1;
        loop {
            let end = item_end(tokens, i);
            let item = &tokens[i.min(end)..end];
            read_item(buf, item, dialect, convert, &mut definition, &mut key_names);
            i = end + 1;
            if !tokens.get(end).is_some_and(|t| t.is_punct(b',')) {
                break;
            }
        }
    }
    let table = &mut definition.table;
    table.primary_key = key_names
        .iter()
        .filter_map(|name| table.column_index(name))
        .collect();
    // Table options.
    let has_text = table.has_text();
    let mut j = i;
    while j < tokens.len() {
        if let Some((value, collation)) = charset_clause(buf, tokens, j) {
            if convert && has_text && dialect == SqlDialect::MySql {
                definition
                    .edits
                    .extend(convert_edit(buf, &tokens[value], collation));
            }
            j = value + 1;
            continue;
        }
        if tokens[j].is(buf, "INHERITS") {
            let mut k = j + 2;
            while let (parent, after) = qualified_name(buf, tokens, k)
                && !parent.is_empty()
            {
                definition.parents.push(table_key(&parent, database));
                k = after + 1;
            }
        }
        if tokens[j].is(buf, "COMMENT") {
            let value = match tokens.get(j + 1) {
                Some(t) if t.is_punct(b'=') => j + 2,
                _ => j + 1,
            };
            if let Some(t) = tokens.get(value)
                && matches!(t.kind, Kind::Str { .. })
            {
                definition.text_literals.push(t.span.clone());
            }
        }
        j += 1;
    }
    Some(definition)
}

/// Reads one item of the column list: a column, or a constraint (only a primary key matters).
fn read_item(
    buf: &[u8],
    item: &[Token],
    dialect: SqlDialect,
    convert: bool,
    definition: &mut Definition,
    key_names: &mut Vec<String>,
) {
    let Some(first) = item.first() else {
        return;
    };
    let primary = item
        .iter()
        .position(|t| t.is(buf, "PRIMARY"))
        .filter(|&p| item.get(p + 1).is_some_and(|t| t.is(buf, "KEY")));
    if first.kind == Kind::Word && NOT_A_COLUMN.iter().any(|c| first.is(buf, c)) {
        if let Some(p) = primary {
            *key_names = name_list(buf, item, p + 2).0;
        }
        return;
    }
    let Some(name) = first.name(buf) else {
        return;
    };
    // The type: a possibly qualified name (`public.citext`), then its arguments.
    let (type_parts, mut after_type) = qualified_name(buf, item, 1);
    let type_name = type_parts
        .last()
        .cloned()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let next = item
        .get(after_type)
        .filter(|t| t.kind == Kind::Word)
        .map(|t| text_of(buf, t).to_ascii_lowercase())
        .unwrap_or_default();
    let mut kind = schema::kind_of_type(dialect, &type_name, &next);
    // The rest of the type: arguments, and the words of `character varying(40)`,
    // `timestamp(3) without time zone`, `int(10) unsigned`, `text[]`.
    let continuation = [
        "varying",
        "precision",
        "without",
        "with",
        "time",
        "zone",
        "unsigned",
        "zerofill",
    ];
    loop {
        match item.get(after_type) {
            Some(t) if t.is_punct(b'(') => after_type = closing(item, after_type) + 1,
            Some(t)
                if t.is_punct(b'[')
                    && item.get(after_type + 1).is_some_and(|t| t.is_punct(b']')) =>
            {
                after_type += 2
            }
            Some(t) if continuation.iter().any(|w| t.is(buf, w)) => after_type += 1,
            _ => break,
        }
    }
    let type_start = item.get(1).map_or(0, |t| t.span.start);
    let type_end = item
        .get(after_type.saturating_sub(1))
        .map_or(0, |t| t.span.end);
    let declared = buf
        .get(type_start..type_end.max(type_start))
        .unwrap_or_default();
    let declared = String::from_utf8_lossy(&declared[..declared.len().min(64)]).to_lowercase();
    if primary.is_some() {
        *key_names = vec![name.clone()];
    }
    let mut edits = Vec::new();
    for (value, collation) in charset_clauses(buf, item, after_type) {
        let label = text_of(buf, &item[value]);
        if !collation && label.eq_ignore_ascii_case("binary") {
            kind = ColumnKind::Binary;
        }
        if convert && dialect == SqlDialect::MySql {
            edits.extend(convert_edit(buf, &item[value], collation));
        }
    }
    if kind == ColumnKind::Text {
        definition.edits.extend(edits);
    }
    for (j, token) in item.iter().enumerate() {
        let is_comment = j > 0 && item[j - 1].is(buf, "COMMENT");
        if matches!(token.kind, Kind::Str { .. }) && (kind == ColumnKind::Text || is_comment) {
            definition.text_literals.push(token.span.clone());
        }
    }
    definition.table.columns.push(Column {
        name,
        declared,
        kind,
        cells: 0,
        nulls: 0,
    });
}

/// The `--convert-charset` edits of a `CREATE DATABASE` (or `CREATE SCHEMA`) statement (its
/// tokens, without the delimiter): its default character set and collation where they are
/// `latin1`'s, as in mysqldump's `/*!40100 DEFAULT CHARACTER SET latin1 COLLATE
/// latin1_swedish_ci */` (a version comment is read as SQL). New tables take the database's
/// default: left `latin1`, a table the dump creates without a character set of its own would
/// still store its text as `latin1`. `None` when the statement creates something else.
pub(crate) fn create_database_edits(buf: &[u8], tokens: &[Token]) -> Option<Vec<Edit>> {
    let object = tokens.get(1)?;
    if !object.is(buf, "DATABASE") && !object.is(buf, "SCHEMA") {
        return None;
    }
    let edits = charset_clauses(buf, tokens, 2)
        .filter_map(|(value, collation)| convert_edit(buf, &tokens[value], collation))
        .collect();
    Some(edits)
}

/// The table and explicit column list of an `INSERT` head (its tokens up to `VALUES`).
pub(crate) fn insert_head(
    buf: &[u8],
    tokens: &[Token],
    database: Option<&str>,
) -> Result<(String, Option<Vec<String>>), String> {
    let modifiers = ["LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO"];
    let mut i = 1;
    while tokens
        .get(i)
        .is_some_and(|t| modifiers.iter().any(|m| t.is(buf, m)))
    {
        i += 1;
    }
    let (parts, mut after) = qualified_name(buf, tokens, i);
    if parts.is_empty() {
        return Err("INSERT without a table name".into());
    }
    if tokens.get(after).is_some_and(|t| t.is(buf, "PARTITION")) {
        after = name_list(buf, tokens, after + 1).1;
    }
    let columns = tokens
        .get(after)
        .is_some_and(|t| t.is_punct(b'('))
        .then(|| name_list(buf, tokens, after).0);
    Ok((table_key(&parts, database), columns))
}

/// The table and column list of `COPY table (columns) FROM stdin`; `None` for a `COPY` that
/// carries no data in the dump (to or from a file or a program).
pub(crate) fn copy_head(buf: &[u8], tokens: &[Token]) -> Option<(String, Option<Vec<String>>)> {
    let (parts, after) = qualified_name(buf, tokens, 1);
    let from_stdin = tokens
        .windows(2)
        .any(|pair| pair[0].is(buf, "FROM") && pair[1].is(buf, "stdin"));
    if parts.is_empty() || !from_stdin {
        return None;
    }
    let columns = tokens
        .get(after)
        .is_some_and(|t| t.is_punct(b'('))
        .then(|| name_list(buf, tokens, after).0);
    Some((table_key(&parts, None), columns))
}

/// The `--convert-charset` edits of a `SET` statement (`buf[statement]`): `SET NAMES latin1`,
/// `SET CHARACTER SET latin1`, `SET character_set_client = latin1` and PostgreSQL's
/// `SET client_encoding = 'LATIN1'`.
pub(crate) fn set_edits(buf: &[u8], statement: Range<usize>) -> Vec<Edit> {
    let text = &buf[statement.clone()];
    let mut edits = Vec::new();
    for declaration in sql_declarations(text) {
        if !declaration.place.kind.is_connection() {
            continue;
        }
        let postgresql = declaration.place.kind.dialect() == SqlDialect::PostgreSql;
        let latin1 = match postgresql {
            true => declaration.encoding.as_deref() == Some("windows-1252"),
            false => schema::is_latin1(&declaration.label),
        };
        if !latin1 {
            continue;
        }
        let mut start = usize::try_from(declaration.place.offset).unwrap_or(usize::MAX);
        if matches!(text.get(start), Some(b'\'' | b'"' | b'`')) {
            start += 1;
        }
        let end = start + declaration.label.len();
        if text.get(start..end) != Some(declaration.label.as_bytes()) {
            continue;
        }
        let base = statement.start;
        edits.push(Edit {
            span: base + start..base + end,
            text: if postgresql { "UTF8" } else { "utf8mb4" },
        });
        let collation = declaration.collation.as_deref();
        if let Some((name, with)) = collation.and_then(|c| Some((c, schema::utf8mb4_collation(c)?)))
            && let Some(at) = memchr::memmem::find(&text[end..], name.as_bytes())
        {
            let at = base + end + at;
            edits.push(Edit {
                span: at..at + name.len(),
                text: with,
            });
        }
    }
    edits
}

/// PostgreSQL's `SET standard_conforming_strings = on|off`: whether it turns backslash escapes
/// in plain strings on (`Some(true)`) or off.
pub(crate) fn backslash_strings(buf: &[u8], tokens: &[Token]) -> Option<bool> {
    let i = match tokens.get(1)? {
        t if t.is(buf, "SESSION") || t.is(buf, "LOCAL") => 2,
        _ => 1,
    };
    if !tokens.get(i)?.is(buf, "standard_conforming_strings") {
        return None;
    }
    let value = match tokens.get(i + 1)? {
        t if t.is_punct(b'=') || t.is(buf, "TO") => tokens.get(i + 2)?,
        _ => return None,
    };
    let value = text_of(buf, value).to_ascii_lowercase();
    match value.as_str() {
        "off" | "false" => Some(true),
        "on" | "true" => Some(false),
        _ => None,
    }
}

/// The string of PostgreSQL's `COMMENT ON ... IS 'text'`.
pub(crate) fn comment_literal(buf: &[u8], tokens: &[Token]) -> Option<Range<usize>> {
    let is = tokens.iter().rposition(|t| t.is(buf, "IS"))?;
    let value = tokens.get(is + 1)?;
    matches!(value.kind, Kind::Str { .. }).then(|| value.span.clone())
}

#[cfg(test)]
mod tests {
    use super::super::tokens::Tokenizer;
    use super::*;

    fn tokens_of(dialect: SqlDialect, sql: &str) -> Vec<Token> {
        let mut tokenizer = Tokenizer::new(dialect);
        let mut at = 0;
        let mut found = Vec::new();
        while let Ok(Some(token)) = tokenizer.next(sql.as_bytes(), &mut at, true) {
            if token.kind != Kind::Delimiter {
                found.push(token);
            }
        }
        found
    }

    const CREATE: &str = "CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `name` varchar(100) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'Ã©' COMMENT 'cÃ©',
  `data` blob DEFAULT NULL COMMENT 'the bytes',
  `raw` varchar(10) CHARACTER SET binary DEFAULT 'x',
  `e` enum('a','b') DEFAULT NULL,
  `u` text CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
  PRIMARY KEY (`id`),
  UNIQUE KEY `k` (`name`(10))
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci COMMENT='tbl';";

    #[test]
    fn create_table_columns_kinds_keys_and_edits() {
        let tokens = tokens_of(SqlDialect::MySql, CREATE);
        let buf = CREATE.as_bytes();
        let definition = create_table(buf, &tokens, SqlDialect::MySql, true, Some("shop"));
        let Some(definition) = definition else {
            panic!("a table");
        };
        let table = &definition.table;
        assert_eq!(table.name, "shop.t");
        let columns: Vec<(&str, &str, ColumnKind)> = table
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.declared.as_str(), c.kind))
            .collect();
        use ColumnKind::*;
        assert_eq!(
            columns,
            [
                ("id", "int(11)", Other),
                ("name", "varchar(100)", Text),
                ("data", "blob", Binary),
                ("raw", "varchar(10)", Binary),
                ("e", "enum('a','b')", Text),
                ("u", "text", Text),
            ]
        );
        assert_eq!(table.primary_key, [0]);
        let edits: Vec<(&str, &str)> = definition
            .edits
            .iter()
            .map(|e| (&CREATE[e.span.clone()], e.text))
            .collect();
        assert_eq!(
            edits,
            [
                ("latin1", "utf8mb4"),
                ("latin1_bin", "utf8mb4_bin"),
                ("latin1", "utf8mb4"),
                ("latin1_swedish_ci", "utf8mb4_general_ci"),
            ]
        );
        let literals: Vec<&str> = definition
            .text_literals
            .iter()
            .map(|r| &CREATE[r.clone()])
            .collect();
        assert_eq!(literals, ["Ã©", "cÃ©", "the bytes", "a", "b", "tbl"]);
    }

    #[test]
    fn postgresql_create_table() {
        let sql = "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name character varying(20) DEFAULT 'x'::character varying,\n    data bytea,\n    \"Tags\" text[]\n);";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let definition = create_table(sql.as_bytes(), &tokens, SqlDialect::PostgreSql, true, None);
        let Some(definition) = definition else {
            panic!("a table");
        };
        let kinds: Vec<(&str, ColumnKind)> = definition
            .table
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("id", ColumnKind::Other),
                ("name", ColumnKind::Text),
                ("data", ColumnKind::Binary),
                ("Tags", ColumnKind::Text),
            ]
        );
        let declared: Vec<&str> = definition
            .table
            .columns
            .iter()
            .map(|c| c.declared.as_str())
            .collect();
        assert_eq!(
            declared,
            ["integer", "character varying(20)", "bytea", "text[]"]
        );
        let sql = "CREATE TABLE public.t_2024 PARTITION OF public.t FOR VALUES FROM (1) TO (9);";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let partition = create_table(sql.as_bytes(), &tokens, SqlDialect::PostgreSql, true, None);
        assert_eq!(partition.map(|d| d.parents), Some(vec!["public.t".into()]));
        let sql = "CREATE TABLE public.c (x text) INHERITS (public.a, public.b);";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let child = create_table(sql.as_bytes(), &tokens, SqlDialect::PostgreSql, true, None);
        assert_eq!(
            child.map(|d| d.parents),
            Some(vec!["public.a".into(), "public.b".into()])
        );
        assert_eq!(definition.table.name, "public.t");
        assert!(definition.edits.is_empty());
    }

    #[test]
    fn create_database_defaults() {
        let edited = |sql: &str| -> Option<Vec<(String, &str)>> {
            let tokens = tokens_of(SqlDialect::MySql, sql);
            let edits = create_database_edits(sql.as_bytes(), &tokens)?;
            Some(
                edits
                    .iter()
                    .map(|e| (sql[e.span.clone()].to_owned(), e.text))
                    .collect(),
            )
        };
        let mysqldump = "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `latin1` /*!40100 DEFAULT \
                         CHARACTER SET latin1 COLLATE latin1_swedish_ci */ /*!80016 DEFAULT \
                         ENCRYPTION='N' */";
        assert_eq!(
            edited(mysqldump),
            Some(vec![
                ("latin1".into(), "utf8mb4"),
                ("latin1_swedish_ci".into(), "utf8mb4_general_ci")
            ])
        );
        assert_eq!(
            edited("CREATE SCHEMA s DEFAULT CHARSET = LATIN1 DEFAULT COLLATE latin1_bin"),
            Some(vec![
                ("LATIN1".into(), "utf8mb4"),
                ("latin1_bin".into(), "utf8mb4_bin")
            ])
        );
        assert_eq!(
            edited("CREATE DATABASE d CHARACTER SET utf8mb4"),
            Some(vec![])
        );
        assert_eq!(edited("CREATE TABLE t (a text) CHARSET=latin1"), None);
    }

    #[test]
    fn heads() {
        let sql = "INSERT IGNORE INTO `db`.`t` (`a`, `b`) VALUES";
        let tokens = tokens_of(SqlDialect::MySql, sql);
        assert_eq!(
            insert_head(sql.as_bytes(), &tokens, Some("x")),
            Ok(("db.t".into(), Some(vec!["a".into(), "b".into()])))
        );
        let sql = "COPY public.t (id, \"Name\") FROM stdin";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        assert_eq!(
            copy_head(sql.as_bytes(), &tokens),
            Some(("public.t".into(), Some(vec!["id".into(), "Name".into()])))
        );
        let sql = "COPY public.t TO '/tmp/x'";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        assert_eq!(copy_head(sql.as_bytes(), &tokens), None);
    }

    #[test]
    fn set_statements() {
        let sql = "/*!40101 SET NAMES latin1 COLLATE latin1_general_ci */";
        let edits = set_edits(sql.as_bytes(), 0..sql.len());
        let found: Vec<(&str, &str)> = edits
            .iter()
            .map(|e| (&sql[e.span.clone()], e.text))
            .collect();
        assert_eq!(
            found,
            [
                ("latin1", "utf8mb4"),
                ("latin1_general_ci", "utf8mb4_general_ci")
            ]
        );
        let sql = "SET client_encoding = 'LATIN1'";
        let edits = set_edits(sql.as_bytes(), 0..sql.len());
        assert_eq!(edits.len(), 1);
        assert_eq!(&sql[edits[0].span.clone()], "LATIN1");
        assert!(set_edits(b"SET NAMES utf8mb4", 0..17).is_empty());
        let sql = "SET standard_conforming_strings = off";
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        assert_eq!(backslash_strings(sql.as_bytes(), &tokens), Some(true));
    }
}
