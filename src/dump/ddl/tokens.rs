//! Finding one's way in a statement's tokens: where an item of a parenthesised list ends,
//! which `)` closes a `(`, the names of a list, the `CHARACTER SET` and `COLLATE` clauses, and
//! the name a table is known by. What every statement reader of this module walks with.

use crate::sql::tokens::{Kind, Token};

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
pub(super) fn item_end(tokens: &[Token], from: usize) -> usize {
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
pub(super) fn closing(tokens: &[Token], open: usize) -> usize {
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
pub(super) fn charset_clause(buf: &[u8], tokens: &[Token], at: usize) -> Option<(usize, bool)> {
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
