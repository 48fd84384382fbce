//! SQL as both readers of dumps see it: the two dialects, their lexical rules (`tokens`), the
//! words and limits the statement readers share, and what a character set name means in each
//! dialect ([`charset_label`]).
//!
//! Two readers build on it: [`charset`](crate::charset) finds the encoding a dump declares
//! (`SET NAMES`, `CREATE TABLE ... CHARSET=`), and [`dump`](crate::dump) lexes a whole dump to
//! repair the values of its text columns. Both read statements with the same tokenizer, so a
//! comment, a string or a version comment is the same thing to both. The module is pure (bytes
//! in, tokens and names out) and depends on nothing else in the crate.

mod names;
pub(crate) mod tokens;

pub(crate) use names::charset_label;
#[cfg(test)]
pub(crate) use names::{MYSQL_CHARSETS, POSTGRESQL_ENCODINGS};
use tokens::Token;

/// The SQL dialect of a dump: whose lexical rules, statements and character set names it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    /// MySQL and MariaDB.
    MySql,
    /// PostgreSQL.
    PostgreSql,
}

/// The longest statement tokenised: 1 MiB, far more than any `CREATE TABLE`. A line that only
/// looks like the start of one (a stray `CREATE` in a data file) cannot make the scan read on
/// to the end of the file.
pub const MAX_STATEMENT_BYTES: usize = 1 << 20;

/// Keywords that start an item of `CREATE TABLE` defining no column: keys, constraints,
/// periods, `LIKE` (MySQL, MariaDB and PostgreSQL).
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

/// The words that may stand between `CREATE` and the kind of object it creates.
pub(crate) const CREATE_MODIFIERS: [&str; 7] = [
    "OR",
    "REPLACE",
    "TEMPORARY",
    "TEMP",
    "UNLOGGED",
    "GLOBAL",
    "LOCAL",
];

/// The index of the object keyword of a `CREATE` statement (`TABLE` in `CREATE TEMPORARY
/// TABLE`), if the statement has one.
pub(crate) fn created_object(buf: &[u8], tokens: &[Token]) -> Option<usize> {
    (1..tokens.len()).find(|&i| !is_create_modifier(buf, &tokens[i]))
}

/// Whether `token` is one of the [`CREATE_MODIFIERS`].
pub(crate) fn is_create_modifier(buf: &[u8], token: &Token) -> bool {
    CREATE_MODIFIERS.iter().any(|m| token.is(buf, m))
}
