//! The statements that define: `CREATE TABLE` (columns, their kinds, the primary key, the
//! character set declarations `--convert-charset` rewrites, the string literals that are text)
//! and PostgreSQL's `CREATE TYPE` and `CREATE DOMAIN`, whose columns and values the tables
//! declared with them hold.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

use super::convert::convert_edit;
use super::literals::{check_of, check_text_literals, push_text_literals};
use super::tokens::{
    after_equals, charset_clause, charset_clauses, closing, item_end, name_list, table_key, text_of,
};
use super::{Context, Edit};
use crate::dump::schema::{self, Column, ColumnKind, Table};
use crate::sql::tokens::{Kind, Token, qualified_name};
use crate::sql::{NOT_A_COLUMN, SqlDialect, created_object};

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

/// The kind of the type named at `tokens[at]`, and the index after the type with its
/// arguments and the words that go on with it (`character varying(40)`, `timestamp(3) without
/// time zone`, `int(10) unsigned`, `text[]`). A type the dump created (a domain, an enum, a
/// composite) is what [`Types`](crate::dump::schema::Types) says; any other is known by its last name (`public.citext`).
pub(super) fn column_type(
    buf: &[u8],
    tokens: &[Token],
    at: usize,
    context: &Context,
) -> (ColumnKind, usize) {
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
