//! Statements read whole, from their tokens: `CREATE TABLE` (columns, their kinds, the primary
//! key, the character set declarations `--convert-charset` rewrites, the string literals that
//! are text: of comments, of text columns' defaults, of checks on text columns), PostgreSQL's
//! `CREATE TYPE` and `CREATE DOMAIN` (what the columns declared with them hold) and `CREATE
//! INDEX` (the text literals of a partial index's predicate), `ALTER TABLE`
//! (a primary key it adds, and the text literals of a check it adds or a default it sets),
//! `CREATE DATABASE` and MySQL's `ALTER DATABASE` (the default character set or encoding, for
//! `--convert-charset`), the heads of `INSERT` and `COPY` (which table, which columns), `SET`
//! (connection character sets, PostgreSQL's `standard_conforming_strings`), `USE` and `COMMENT
//! ON`.
//!
//! The `SET NAMES` family is found by [`crate::charset::sql_declarations`], the same reader that
//! reports a dump's declared encoding; `CREATE TABLE` needs more than that reader keeps (types,
//! keys, every `COLLATE`), so it is read here, and so are the session variables that reader
//! does not report (`collation_connection`, which mysqldump sets around every routine).
//!
//! The bytes `--convert-charset` rewrites are chosen in [`convert`]; this file reads what a
//! statement says, for the lexer and the schema.

mod convert;

use std::ops::Range;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::schema::{self, Column, ColumnKind, Schema, Table, Types};
use crate::sql::tokens::{Kind, Token, qualified_name};
use crate::sql::{NOT_A_COLUMN, SqlDialect, created_object};
use convert::convert_edit;
pub(crate) use convert::{database_edits, set_edits};

/// A change of a few bytes in the DDL, for `--convert-charset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub span: Range<usize>,
    pub text: &'static str,
}

/// What a statement is read with: the dump's dialect, whether `--convert-charset` edits are
/// wanted, the database of the last `USE`, and the types the dump created before it.
pub(crate) struct Context<'a> {
    pub dialect: SqlDialect,
    pub convert: bool,
    pub database: Option<&'a str>,
    pub types: &'a Types,
}

/// What a `CREATE TABLE` defines and what of it `fix` may change.
#[derive(Debug)]
pub(crate) struct Definition {
    pub table: Table,
    pub edits: Vec<Edit>,
    /// The insides of string literals that are text: comments, defaults and enum values of
    /// text columns, and the literals of table-level `CHECK` constraints that name a text
    /// column ([`check_text_literals`]).
    pub text_literals: Vec<Range<usize>>,
    /// Tables whose columns come first (`LIKE u`, PostgreSQL's `PARTITION OF p` and
    /// `INHERITS (p)`), as [`table_key`] names them.
    pub parents: Vec<String>,
    /// The first column of each name among the first `indexed` columns ([`Self::column_index`]).
    column_names: HashMap<String, usize>,
    indexed: usize,
}

impl Definition {
    /// The index of the column `name` (the first column of that name), through a map that
    /// takes in the columns added since the last call: the items of a table of many
    /// columns are read in linear time.
    fn column_index(&mut self, name: &str) -> Option<usize> {
        let columns = &self.table.columns;
        for (i, column) in columns.iter().enumerate().skip(self.indexed) {
            self.column_names.entry(column.name.clone()).or_insert(i);
        }
        self.indexed = columns.len();
        self.column_names.get(name).copied()
    }

    fn new(name: String) -> Definition {
        Definition {
            table: Table {
                name,
                columns: Vec::new(),
                primary_key: Vec::new(),
                rows: 0,
                unknown_type: None,
                charset: None,
            },
            edits: Vec::new(),
            text_literals: Vec::new(),
            parents: Vec::new(),
            column_names: HashMap::default(),
            indexed: 0,
        }
    }
}

/// What a PostgreSQL `CREATE TYPE` creates: a composite type (`AS (a text, b integer)`), with
/// its attributes, or another (an enum, a range, a base type), whose values are no text.
#[derive(Debug)]
pub(crate) struct TypeDefinition {
    pub name: String,
    pub attributes: Option<Vec<Column>>,
}

/// What a PostgreSQL `CREATE DOMAIN` creates: a type whose values hold what its base type's
/// hold, and, over text, the string literals (its default, its checks) that are text.
#[derive(Debug)]
pub(crate) struct Domain {
    pub name: String,
    pub kind: ColumnKind,
    pub text_literals: Vec<Range<usize>>,
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
    let value = after_equals(tokens, value);
    tokens.get(value)?;
    Some((value, collation))
}

/// `at`, or the index after it if `tokens[at]` is `=`.
pub(super) fn after_equals(tokens: &[Token], at: usize) -> usize {
    match tokens.get(at) {
        Some(t) if t.is_punct(b'=') => at + 1,
        _ => at,
    }
}

/// Every `CHARACTER SET`, `CHARSET` and `COLLATE` clause of `tokens` from `from` on: the index
/// of its value, and whether it is a collation.
pub(super) fn charset_clauses<'t>(
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
pub(super) fn text_of(buf: &[u8], token: &Token) -> String {
    String::from_utf8_lossy(&buf[token.span.clone()]).into_owned()
}

/// Takes in a `CHARACTER SET x` (or, with `collation`, `COLLATE x`) clause whose value is
/// `token` into `charset`, the character set declared so far: a character set wins over the one
/// a collation implies, which only fills in when none is named.
fn declare_charset(charset: &mut Option<String>, buf: &[u8], token: &Token, collation: bool) {
    let label = text_of(buf, token).to_ascii_lowercase();
    match collation {
        false => *charset = Some(label),
        true if charset.is_none() => {
            *charset = Some(schema::charset_of_collation(&label).to_owned());
        }
        true => {}
    }
}

/// Reads a `CREATE TABLE` statement (its tokens, without the delimiter). `None` when the
/// statement creates something else.
pub(crate) fn create_table(buf: &[u8], tokens: &[Token], context: &Context) -> Option<Definition> {
    let mut i = created_object(buf, tokens)?;
    if !tokens[i].is(buf, "TABLE") {
        return None;
    }
    i += 1;
    for word in ["IF", "NOT", "EXISTS"] {
        if tokens.get(i).is_some_and(|t| t.is(buf, word)) {
            i += 1;
        }
    }
    let (parts, after_name) = qualified_name(buf, tokens, i);
    let mut definition = Definition::new(table_key(&parts, context.database));
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
        definition
            .parents
            .push(table_key(&parent, context.database));
        i = after;
    } else if tokens.get(i).is_some_and(|t| t.is(buf, "OF")) {
        i = take_type_columns(buf, tokens, i + 1, context, &mut definition.table);
    }
    let mut key_names = Vec::new();
    if tokens.get(i).is_some_and(|t| t.is_punct(b'(')) {
        i = read_items(buf, tokens, i, context, &mut definition, &mut key_names);
    }
    let table = &mut definition.table;
    if table.unknown_type.is_some() {
        // Its items name columns of the type, which are unknown: they define none.
        table.columns.clear();
    }
    table.primary_key = table
        .column_indexes(&key_names)
        .into_iter()
        .flatten()
        .collect();
    read_table_options(buf, tokens, i, context, &mut definition);
    Some(definition)
}

/// A typed table's columns (`CREATE TABLE t OF some_type`), from the composite type named at
/// `tokens[at]`, or the type, as unknown, when the dump did not create it before; returns the
/// index after the type's name.
fn take_type_columns(
    buf: &[u8],
    tokens: &[Token],
    at: usize,
    context: &Context,
    table: &mut Table,
) -> usize {
    let (parts, after) = qualified_name(buf, tokens, at);
    let name = table_key(&parts, None);
    match context.types.attributes(&name) {
        Some(attributes) => table.columns = attributes.to_vec(),
        None => table.unknown_type = Some(name),
    }
    after
}

/// Reads the items of the parenthesised list at `tokens[open]` (columns and constraints) into
/// `definition`; returns the index after the list.
fn read_items(
    buf: &[u8],
    tokens: &[Token],
    open: usize,
    context: &Context,
    definition: &mut Definition,
    key_names: &mut Vec<String>,
) -> usize {
    let mut i = open + 1;
    loop {
        let end = item_end(tokens, i);
        let item = &tokens[i.min(end)..end];
        read_item(buf, item, context, definition, key_names);
        i = end + 1;
        if !tokens.get(end).is_some_and(|t| t.is_punct(b',')) {
            return i;
        }
    }
}

/// Reads the table options after the column list, from `tokens[from]`: character sets and
/// collations (`--convert-charset`, for a table with text), `INHERITS (p)` and the comment.
fn read_table_options(
    buf: &[u8],
    tokens: &[Token],
    from: usize,
    context: &Context,
    definition: &mut Definition,
) {
    let has_text = definition.table.has_text();
    let mut j = from;
    while j < tokens.len() {
        if let Some((value, collation)) = charset_clause(buf, tokens, j) {
            if context.dialect == SqlDialect::MySql {
                let table = &mut definition.table;
                declare_charset(&mut table.charset, buf, &tokens[value], collation);
            }
            if context.convert && has_text && context.dialect == SqlDialect::MySql {
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
                definition
                    .parents
                    .push(table_key(&parent, context.database));
                k = after + 1;
            }
        }
        if tokens[j].is(buf, "COMMENT") {
            let value = after_equals(tokens, j + 1);
            if let Some(t) = tokens.get(value)
                && matches!(t.kind, Kind::Str { .. })
            {
                definition.text_literals.push(t.span.clone());
            }
        }
        j += 1;
    }
}

/// Reads one item of the column list: a column, a constraint (a primary key, and the text
/// literals of a check), or the options of a column the table already has (a typed table's `b
/// WITH OPTIONS NOT NULL`).
fn read_item(
    buf: &[u8],
    item: &[Token],
    context: &Context,
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
        // Both dialects' dumps list the columns before the constraints: the columns a check
        // names are known by now.
        if let Some(check) = check_of(buf, item) {
            let columns = &definition.table.columns;
            check_text_literals(
                buf,
                item,
                check,
                columns,
                context,
                &mut definition.text_literals,
            );
        }
        return;
    }
    let Some(name) = first.name(buf) else {
        return;
    };
    if primary.is_some() {
        *key_names = vec![name.clone()];
    }
    if let Some(column) = definition.column_index(&name) {
        let text = definition.table.columns[column].kind == ColumnKind::Text;
        push_text_literals(buf, item, text, &mut definition.text_literals);
        return;
    }
    let (mut kind, after_type) = column_type(buf, item, 1, context);
    let type_start = item.get(1).map_or(0, |t| t.span.start);
    let type_end = item
        .get(after_type.saturating_sub(1))
        .map_or(0, |t| t.span.end);
    let declared = buf
        .get(type_start..type_end.max(type_start))
        .unwrap_or_default();
    let declared = String::from_utf8_lossy(&declared[..declared.len().min(64)]).to_lowercase();
    let mut edits = Vec::new();
    let mut charset = None;
    for (value, collation) in charset_clauses(buf, item, after_type) {
        let label = text_of(buf, &item[value]);
        if !collation && label.eq_ignore_ascii_case("binary") {
            kind = ColumnKind::Binary;
        }
        if context.dialect == SqlDialect::MySql {
            declare_charset(&mut charset, buf, &item[value], collation);
        }
        if context.convert && context.dialect == SqlDialect::MySql {
            edits.extend(convert_edit(buf, &item[value], collation));
        }
    }
    if kind == ColumnKind::Text {
        definition.edits.extend(edits);
    }
    push_text_literals(
        buf,
        item,
        kind == ColumnKind::Text,
        &mut definition.text_literals,
    );
    definition.table.columns.push(Column {
        name,
        declared,
        kind,
        cells: 0,
        nulls: 0,
        charset,
    });
}

/// The string literals of a column's item that are text: all of them (its default, its
/// checks, MySQL's enum values) for a `text` column, its comment in any case.
fn push_text_literals(buf: &[u8], item: &[Token], text: bool, into: &mut Vec<Range<usize>>) {
    for (j, token) in item.iter().enumerate() {
        let is_comment = j > 0 && item[j - 1].is(buf, "COMMENT");
        if matches!(token.kind, Kind::Str { .. }) && (text || is_comment) {
            into.push(token.span.clone());
        }
    }
}

/// The index of the `CHECK` of a constraint (an item of `CREATE TABLE`, or what follows the
/// `ADD` of an `ALTER TABLE`), if it is `[CONSTRAINT name] CHECK (...)`.
fn check_of(buf: &[u8], constraint: &[Token]) -> Option<usize> {
    let check = match constraint.first()? {
        t if t.is(buf, "CONSTRAINT") => 2,
        _ => 0,
    };
    constraint.get(check)?.is(buf, "CHECK").then_some(check)
}

/// The string literals of the check at `tokens[check]` (the `CHECK` keyword, its expression in
/// the parentheses after it) that are text, for a table of `columns`: when the expression names
/// a text column, every literal but those whose own tokens say they hold no text
/// ([`literal_is_text`]: bytes, an enum's label).
///
/// Why: a schema created through the same wrong connection as the data holds its check's
/// literals as garbled as the values (`CHECK (status IN ('payÃ©'))`). Repairing the values and
/// not the literal makes the repaired dump fail to load, on the first row the check now
/// refuses; a check on text columns compares them with text, so its literals are repaired as
/// the values are. A check on other columns alone (numbers, dates, bytes) compares no text and
/// is left as it is.
///
/// Column names compare without case: MySQL's column names ignore it, and PostgreSQL folds an
/// unquoted name to lower case (a table with columns `"A"` and `a` of different kinds would be
/// taken as having both as text). A name right after `::` is a type, not a column.
fn check_text_literals(
    buf: &[u8],
    tokens: &[Token],
    check: usize,
    columns: &[Column],
    context: &Context,
    into: &mut Vec<Range<usize>>,
) {
    let open = check + 1;
    if !tokens.get(open).is_some_and(|t| t.is_punct(b'(')) {
        return;
    }
    let close = closing(tokens, open);
    let expression = tokens.get(open..close).unwrap_or_default();
    let is_cast =
        |i: usize| i >= 2 && expression[i - 1].is_punct(b':') && expression[i - 2].is_punct(b':');
    // The names first, then one pass over the columns: a check naming many columns of a
    // table of many is read in linear time.
    let named: HashSet<String> = expression
        .iter()
        .enumerate()
        .filter(|&(i, _)| !is_cast(i))
        .filter_map(|(_, token)| token.name(buf))
        .map(|name| name.to_ascii_lowercase())
        .collect();
    let names_text = columns
        .iter()
        .any(|c| c.kind == ColumnKind::Text && named.contains(&c.name.to_ascii_lowercase()));
    if !names_text {
        return;
    }
    for (i, token) in expression.iter().enumerate() {
        if matches!(token.kind, Kind::Str { .. }) && literal_is_text(buf, expression, i, context) {
            into.push(token.span.clone());
        }
    }
}

/// Whether the string literal at `tokens[at]` holds text, as far as its own tokens tell: not if
/// it is a binary or bit string (MySQL's `_binary'...'` introducer, glued or not, and `X'...'`
/// or `B'...'` in either dialect), nor if it is cast right after to a type that holds no text
/// (PostgreSQL's `'...'::bytea`, or `'...'::public.mood`, an enum, whose label stays as the
/// `CREATE TYPE` has it, so a repaired literal would name no label).
fn literal_is_text(buf: &[u8], tokens: &[Token], at: usize, context: &Context) -> bool {
    let Some(Token {
        kind: Kind::Str { prefix, .. },
        ..
    }) = tokens.get(at)
    else {
        return false;
    };
    let binary_prefix = |word: &[u8]| {
        word.eq_ignore_ascii_case(b"_binary")
            || word.eq_ignore_ascii_case(b"x")
            || word.eq_ignore_ascii_case(b"b")
    };
    let introducer = match prefix.is_empty() {
        false => buf.get(prefix.clone()),
        true => at
            .checked_sub(1)
            .and_then(|p| tokens.get(p))
            .filter(|t| t.is(buf, "_binary"))
            .and_then(|t| buf.get(t.span.clone())),
    };
    if introducer.is_some_and(binary_prefix) {
        return false;
    }
    let cast = tokens.get(at + 1).is_some_and(|t| t.is_punct(b':'))
        && tokens.get(at + 2).is_some_and(|t| t.is_punct(b':'));
    !cast || column_type(buf, tokens, at + 3, context).0 == ColumnKind::Text
}

/// The kind of the type named at `tokens[at]`, and the index after the type with its
/// arguments and the words that go on with it (`character varying(40)`, `timestamp(3) without
/// time zone`, `int(10) unsigned`, `text[]`). A type the dump created (a domain, an enum, a
/// composite) is what [`Types`] says; any other is known by its last name (`public.citext`).
fn column_type(buf: &[u8], tokens: &[Token], at: usize, context: &Context) -> (ColumnKind, usize) {
    let (type_parts, mut after_type) = qualified_name(buf, tokens, at);
    let type_name = type_parts
        .last()
        .cloned()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let next = tokens
        .get(after_type)
        .filter(|t| t.kind == Kind::Word)
        .map(|t| text_of(buf, t).to_ascii_lowercase())
        .unwrap_or_default();
    let kind = context
        .types
        .kind(&table_key(&type_parts, None))
        .unwrap_or_else(|| schema::kind_of_type(context.dialect, &type_name, &next));
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
        match tokens.get(after_type) {
            Some(t) if t.is_punct(b'(') => after_type = closing(tokens, after_type) + 1,
            Some(t)
                if t.is_punct(b'[')
                    && tokens.get(after_type + 1).is_some_and(|t| t.is_punct(b']')) =>
            {
                after_type += 2
            }
            Some(t) if continuation.iter().any(|w| t.is(buf, w)) => after_type += 1,
            _ => break,
        }
    }
    (kind, after_type)
}

/// Reads a PostgreSQL `CREATE TYPE` statement (its tokens, without the delimiter). `None`
/// when the statement creates something else.
pub(crate) fn create_type(
    buf: &[u8],
    tokens: &[Token],
    context: &Context,
) -> Option<TypeDefinition> {
    if !tokens.get(1)?.is(buf, "TYPE") {
        return None;
    }
    let (parts, after) = qualified_name(buf, tokens, 2);
    if parts.is_empty() {
        return None;
    }
    let name = table_key(&parts, None);
    let composite = tokens.get(after).is_some_and(|t| t.is(buf, "AS"))
        && tokens.get(after + 1).is_some_and(|t| t.is_punct(b'('));
    let attributes = composite.then(|| {
        let mut definition = Definition::new(name.clone());
        read_items(
            buf,
            tokens,
            after + 1,
            context,
            &mut definition,
            &mut Vec::new(),
        );
        definition.table.columns
    });
    Some(TypeDefinition { name, attributes })
}

/// Reads a PostgreSQL `CREATE DOMAIN` statement (its tokens, without the delimiter). `None`
/// when the statement creates something else.
pub(crate) fn create_domain(buf: &[u8], tokens: &[Token], context: &Context) -> Option<Domain> {
    if !tokens.get(1)?.is(buf, "DOMAIN") {
        return None;
    }
    let (parts, mut at) = qualified_name(buf, tokens, 2);
    if parts.is_empty() {
        return None;
    }
    if tokens.get(at).is_some_and(|t| t.is(buf, "AS")) {
        at += 1;
    }
    let (kind, after_type) = column_type(buf, tokens, at, context);
    let mut text_literals = Vec::new();
    let rest = tokens.get(after_type..).unwrap_or_default();
    push_text_literals(buf, rest, kind == ColumnKind::Text, &mut text_literals);
    Some(Domain {
        name: table_key(&parts, None),
        kind,
        text_literals,
    })
}

/// What an `ALTER TABLE` does that the dump mode needs to know.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Alteration {
    /// The table, as [`table_key`] names it.
    pub table: String,
    /// The columns of the primary key it adds, if it adds one.
    pub primary_key: Option<Vec<String>>,
    /// The insides of its string literals that are text: those of the checks it adds that name
    /// a text column ([`check_text_literals`]), and the defaults it sets on text columns.
    pub text_literals: Vec<Range<usize>>,
}

/// Reads `ALTER TABLE [IF EXISTS] [ONLY] t [*] action, ...` (its tokens, without the
/// delimiter), `None` for any other `ALTER`. The actions that matter:
///
/// - `ADD [CONSTRAINT c] PRIMARY KEY (columns)`, what `pg_dump` writes after the data, and
///   phpMyAdmin after its `CREATE TABLE`: the key names the table's rows.
/// - `ADD [CONSTRAINT c] CHECK (...)`, what `pg_dump` writes for a check declared `NOT VALID`:
///   its literals are text by the rule of a check in `CREATE TABLE`, the table's columns as
///   `tables` holds them (the dump's definitions so far).
/// - `ALTER [COLUMN] c SET DEFAULT '...'`, what `pg_dump` writes for a default that is not
///   dumped with its column (a column a child table inherits, a view's): on a text column, its
///   literal is text, as the default of a text column in `CREATE TABLE` is.
pub(crate) fn alter_table(
    buf: &[u8],
    tokens: &[Token],
    context: &Context,
    tables: &Schema,
) -> Option<Alteration> {
    if !tokens.get(1)?.is(buf, "TABLE") {
        return None;
    }
    let mut i = 2;
    for word in ["IF", "EXISTS", "ONLY"] {
        if tokens.get(i).is_some_and(|t| t.is(buf, word)) {
            i += 1;
        }
    }
    let (parts, mut at) = qualified_name(buf, tokens, i);
    if parts.is_empty() {
        return None;
    }
    // `ALTER TABLE t * ...`: t and the tables that inherit from it.
    if tokens.get(at).is_some_and(|t| t.is_punct(b'*')) {
        at += 1;
    }
    let table = table_key(&parts, context.database);
    let columns = columns_of(tables, &table);
    let mut alteration = Alteration {
        table,
        primary_key: None,
        text_literals: Vec::new(),
    };
    while at < tokens.len() {
        let end = item_end(tokens, at);
        let action = &tokens[at..end];
        if let Some(added) = action
            .first()
            .filter(|t| t.is(buf, "ADD"))
            .and(action.get(1..))
        {
            if let Some(key) = primary_key_of(buf, added) {
                alteration.primary_key = Some(key);
            } else if let Some(check) = check_of(buf, added) {
                let into = &mut alteration.text_literals;
                check_text_literals(buf, added, check, columns, context, into);
            }
        } else if let Some(default) = default_set_on_text(buf, action, columns) {
            push_text_literals(buf, default, true, &mut alteration.text_literals);
        }
        at = end + 1;
    }
    Some(alteration)
}

/// The columns of `table` (as [`table_key`] names it) among `tables`; none for a table it does
/// not hold.
fn columns_of<'s>(tables: &'s Schema, table: &str) -> &'s [Column] {
    tables
        .find(table)
        .and_then(|index| tables.tables.get(index))
        .map_or(&[][..], |t| t.columns.as_slice())
}

/// The text literals of a PostgreSQL partial index, `CREATE [UNIQUE] INDEX [CONCURRENTLY] [[IF
/// NOT EXISTS] name] ON [ONLY] t ... WHERE (predicate)` (its tokens, without the delimiter),
/// what `pg_dump` writes after the data; `None` for any other statement. The predicate is read
/// by the rule of a check ([`check_text_literals`]), the table's columns as `tables` holds
/// them: created through the same wrong connection as the data, `WHERE ((status)::text =
/// 'payÃ©'::text)` left garbled would no longer cover the repaired rows (a unique index that
/// no longer holds them unique, a query plan that no longer uses it), without an error to say
/// so.
pub(crate) fn create_index(
    buf: &[u8],
    tokens: &[Token],
    context: &Context,
    tables: &Schema,
) -> Option<Vec<Range<usize>>> {
    let mut i = created_object(buf, tokens)?;
    if tokens[i].is(buf, "UNIQUE") {
        i += 1;
    }
    if !tokens.get(i)?.is(buf, "INDEX") {
        return None;
    }
    let on = (i..tokens.len()).find(|&j| tokens[j].is(buf, "ON"))?;
    let mut at = on + 1;
    if tokens.get(at).is_some_and(|t| t.is(buf, "ONLY")) {
        at += 1;
    }
    let (parts, after) = qualified_name(buf, tokens, at);
    let columns = columns_of(tables, &table_key(&parts, context.database));
    // The `WHERE` outside the parentheses of the indexed columns and their options.
    let mut depth = 0usize;
    let mut predicate = None;
    for (j, token) in tokens.iter().enumerate().skip(after) {
        if token.is_punct(b'(') {
            depth += 1;
        } else if token.is_punct(b')') {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && token.is(buf, "WHERE") {
            predicate = Some(j);
            break;
        }
    }
    let mut literals = Vec::new();
    if let Some(predicate) = predicate {
        check_text_literals(buf, tokens, predicate, columns, context, &mut literals);
    }
    Some(literals)
}

/// The columns of the primary key a constraint declares (what follows the `ADD` of an `ALTER
/// TABLE`), if it is `[CONSTRAINT c] PRIMARY KEY (columns)`.
fn primary_key_of(buf: &[u8], constraint: &[Token]) -> Option<Vec<String>> {
    let mut i = 0;
    if constraint.first()?.is(buf, "CONSTRAINT") {
        i += 2;
    }
    if !constraint.get(i)?.is(buf, "PRIMARY") || !constraint.get(i + 1)?.is(buf, "KEY") {
        return None;
    }
    let (names, _) = name_list(buf, constraint, i + 2);
    (!names.is_empty()).then_some(names)
}

/// The tokens after `DEFAULT` of an `ALTER TABLE` action `ALTER [COLUMN] c SET DEFAULT ...`, if
/// `c` is one of the text columns of `columns` (its name compared as a check's are, without
/// case).
fn default_set_on_text<'t>(
    buf: &[u8],
    action: &'t [Token],
    columns: &[Column],
) -> Option<&'t [Token]> {
    if !action.first()?.is(buf, "ALTER") {
        return None;
    }
    let mut i = 1;
    if action.get(i)?.is(buf, "COLUMN") {
        i += 1;
    }
    let name = action.get(i)?.name(buf)?;
    let set_default = action.get(i + 1)?.is(buf, "SET") && action.get(i + 2)?.is(buf, "DEFAULT");
    action
        .get(i + 3..)
        .filter(|_| set_default && is_text_column(columns, &name))
}

/// Whether `name` is that of a text column of `columns`, compared without case (see
/// [`check_text_literals`]).
fn is_text_column(columns: &[Column], name: &str) -> bool {
    columns
        .iter()
        .any(|c| c.kind == ColumnKind::Text && c.name.eq_ignore_ascii_case(name))
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
mod tests;
