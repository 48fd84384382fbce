//! The statements that change a table the dump defined before: `ALTER TABLE` (a primary key
//! it adds, the text literals of a check it adds or a default it sets) and `CREATE INDEX` (the
//! text literals of a partial index's predicate), read against the definitions so far.

use std::ops::Range;

use super::Context;
use super::literals::{check_of, check_text_literals, push_text_literals};
use super::tokens::{item_end, name_list, table_key};
use crate::dump::schema::{Column, ColumnKind, Schema};
use crate::sql::created_object;
use crate::sql::tokens::{Token, qualified_name};

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
