//! The statements read for a fact or two: the heads of `INSERT` and `COPY` (which table,
//! which columns), PostgreSQL's `SET standard_conforming_strings` and the string of its
//! `COMMENT ON`.

use std::ops::Range;

use super::tokens::{name_list, table_key, text_of};
use crate::sql::tokens::{Kind, Token, qualified_name};

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
