//! Which string literals of a definition are text, to be repaired as the values are: a text
//! column's default, checks and enum values, any comment, and the literals of a check (or a
//! partial index's predicate) that compares a text column.

use std::ops::Range;

use rustc_hash::FxHashSet as HashSet;

use super::Context;
use super::create::column_type;
use super::tokens::closing;
use crate::dump::schema::{Column, ColumnKind};
use crate::sql::tokens::{Kind, Token};

/// The string literals of a column's item that are text: all of them (its default, its
/// checks, MySQL's enum values) for a `text` column, its comment in any case.
pub(super) fn push_text_literals(
    buf: &[u8],
    item: &[Token],
    text: bool,
    into: &mut Vec<Range<usize>>,
) {
    for (j, token) in item.iter().enumerate() {
        let is_comment = j > 0 && item[j - 1].is(buf, "COMMENT");
        if matches!(token.kind, Kind::Str { .. }) && (text || is_comment) {
            into.push(token.span.clone());
        }
    }
}

/// The index of the `CHECK` of a constraint (an item of `CREATE TABLE`, or what follows the
/// `ADD` of an `ALTER TABLE`), if it is `[CONSTRAINT name] CHECK (...)`.
pub(super) fn check_of(buf: &[u8], constraint: &[Token]) -> Option<usize> {
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
pub(super) fn check_text_literals(
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
