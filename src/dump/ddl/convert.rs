//! The `--convert-charset` edits of the statements read whole: the `latin1` character sets,
//! collations and encodings of `CREATE DATABASE`, MySQL's `ALTER DATABASE` and `SET`, and of
//! the clauses of `CREATE TABLE`. They are apart because they change bytes of the DDL, where
//! the rest of the reading only learns from it; a reader of the schema need not know them.

use std::ops::Range;

use super::Edit;
use super::tokens::{after_equals, charset_clauses, text_of};
use crate::charset::{postgresql_encoding, sql_declarations};
use crate::dump::schema;
use crate::sql::SqlDialect;
use crate::sql::tokens::{Kind, Token};

/// The `--convert-charset` edit of the character set or collation name at `token`, if it is
/// `latin1`'s.
pub(super) fn convert_edit(buf: &[u8], token: &Token, collation: bool) -> Option<Edit> {
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

/// The `--convert-charset` edits of a `CREATE DATABASE` (or `CREATE SCHEMA`) statement, or of
/// MySQL's `ALTER DATABASE` (its tokens, without the delimiter). `None` when the statement is
/// about something else.
///
/// MySQL: its default character set and collation where they are `latin1`'s, as in
/// mysqldump's `/*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_swedish_ci */` (a version
/// comment is read as SQL), and in the `ALTER DATABASE db CHARACTER SET latin1 ...` that
/// mariadb-dump `--routines` writes around every routine created under that default. New
/// tables and routines take the database's default: left `latin1`, a table the dump creates
/// without a character set of its own would still store its text as `latin1`.
///
/// PostgreSQL (`pg_dump --create`): `ENCODING = 'LATIN1'` (or `WIN1252`), which would make the
/// loaded database unable to hold what `latin1` lacks, and with it a locale whose codeset is
/// `latin1`'s (`LC_COLLATE = 'de_DE.ISO-8859-1'`), which PostgreSQL refuses for a UTF8 database.
pub(crate) fn database_edits(
    buf: &[u8],
    tokens: &[Token],
    dialect: SqlDialect,
) -> Option<Vec<Edit>> {
    let object = tokens.get(1)?;
    if !object.is(buf, "DATABASE") && !object.is(buf, "SCHEMA") {
        return None;
    }
    Some(match dialect {
        SqlDialect::MySql => charset_clauses(buf, tokens, 2)
            .filter_map(|(value, collation)| convert_edit(buf, &tokens[value], collation))
            .collect(),
        SqlDialect::PostgreSql => encoding_edits(buf, tokens),
    })
}

/// The edits of PostgreSQL's `CREATE DATABASE ... ENCODING = 'LATIN1'`, in order: the
/// encoding, and the codesets of its locales (see [`database_edits`]).
fn encoding_edits(buf: &[u8], tokens: &[Token]) -> Vec<Edit> {
    let latin1 = option_value(buf, tokens, "ENCODING")
        .filter(|value| postgresql_latin1(&text_of(buf, value)));
    let Some(encoding) = latin1 else {
        return Vec::new();
    };
    let mut edits = vec![Edit {
        span: encoding.span.clone(),
        text: "UTF8",
    }];
    for option in ["LOCALE", "LC_COLLATE", "LC_CTYPE"] {
        if let Some(value) = option_value(buf, tokens, option)
            && let Some(span) = latin1_codeset(buf, value.span.clone())
        {
            edits.push(Edit {
                span,
                text: "UTF-8",
            });
        }
    }
    edits.sort_by_key(|edit| edit.span.start);
    edits
}

/// The value of the option `name` (`ENCODING = 'LATIN1'`, `=` optional) of a statement.
fn option_value<'t>(buf: &[u8], tokens: &'t [Token], name: &str) -> Option<&'t Token> {
    let at = tokens.iter().position(|t| t.is(buf, name))?;
    tokens
        .get(after_equals(tokens, at + 1))
        .filter(|t| matches!(t.kind, Kind::Word | Kind::Str { .. }))
}

/// Whether a PostgreSQL encoding name is `latin1` as `--convert-charset` means it: `LATIN1`,
/// `WIN1252` and their aliases, which decode alike.
fn postgresql_latin1(name: &str) -> bool {
    postgresql_encoding(name)
        .encoding()
        .is_some_and(|encoding| encoding.name() == "windows-1252")
}

/// Where the codeset of the locale name `buf[span]` lies (`ISO-8859-1` in
/// `de_DE.ISO-8859-1@euro`), if it is `latin1`'s.
fn latin1_codeset(buf: &[u8], span: Range<usize>) -> Option<Range<usize>> {
    let name = &buf[span.clone()];
    let start = memchr::memchr(b'.', name)? + 1;
    let end = memchr::memchr(b'@', &name[start..]).map_or(name.len(), |k| start + k);
    let codeset: Vec<u8> = name[start..end]
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect();
    matches!(codeset.as_slice(), b"iso88591" | b"latin1")
        .then(|| span.start + start..span.start + end)
}

/// The `--convert-charset` edits of a `SET` statement (`buf[statement]`, `tokens`), in order:
/// `SET NAMES latin1`, `SET CHARACTER SET latin1`, `SET character_set_client = latin1`, the
/// other session variables of [`SESSION_CHARSETS`], and PostgreSQL's `SET client_encoding =
/// 'LATIN1'`.
pub(crate) fn set_edits(buf: &[u8], statement: Range<usize>, tokens: &[Token]) -> Vec<Edit> {
    let text = &buf[statement.clone()];
    let mut edits = Vec::new();
    for declaration in sql_declarations(text) {
        if !declaration.place.kind.is_connection() {
            continue;
        }
        let postgresql = declaration.place.kind.dialect() == SqlDialect::PostgreSql;
        let latin1 = match postgresql {
            true => postgresql_latin1(&declaration.label),
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
    edits.extend(session_charset_edits(buf, tokens));
    edits.sort_by_key(|edit| edit.span.start);
    edits
}

/// MySQL session variables naming a character set (`false`) or a collation (`true`) that
/// [`sql_declarations`] leaves out, since they do not say how the dump's bytes are read:
/// how results are sent back, and which character set the literals of the statements are
/// converted to (mysqldump sets `collation_connection` to the one a routine was created with,
/// around it: left `latin1`, the routine's literals would lose what `latin1` lacks).
const SESSION_CHARSETS: [(&str, bool); 3] = [
    ("character_set_results", false),
    ("character_set_connection", false),
    ("collation_connection", true),
];

/// The `--convert-charset` edits of the assignments of [`SESSION_CHARSETS`] in a `SET`
/// statement's `tokens` (`@@` and `SESSION` allowed).
fn session_charset_edits<'t>(
    buf: &'t [u8],
    tokens: &'t [Token],
) -> impl Iterator<Item = Edit> + 't {
    tokens.iter().enumerate().filter_map(move |(i, token)| {
        if token.kind != Kind::Word || !tokens.get(i + 1)?.is_punct(b'=') {
            return None;
        }
        let variable = text_of(buf, token).to_ascii_lowercase();
        let variable = variable.trim_start_matches("@@");
        let &(_, collation) = SESSION_CHARSETS.iter().find(|(v, _)| *v == variable)?;
        convert_edit(buf, tokens.get(i + 2)?, collation)
    })
}
