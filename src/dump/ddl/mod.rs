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
//! One job per file:
//!
//! - [`create`]: what `CREATE TABLE`, `CREATE TYPE` and `CREATE DOMAIN` define.
//! - [`alter`]: what `ALTER TABLE` and `CREATE INDEX` change in a table defined before.
//! - [`literals`]: which string literals of a definition are text (defaults, comments, the
//!   literals of checks on text columns), for the readers of both.
//! - [`heads`]: the statements read for a fact or two (`INSERT` and `COPY` heads, `SET
//!   standard_conforming_strings`, `COMMENT ON`).
//! - [`tokens`]: the walk through a statement's tokens that all of them share.
//! - [`convert`]: the bytes `--convert-charset` rewrites; the others only read what a
//!   statement says, for the lexer and the schema.

mod alter;
mod convert;
mod create;
mod heads;
mod literals;
mod tokens;

use std::ops::Range;

use super::schema::Types;
use crate::sql::SqlDialect;
pub(crate) use alter::{alter_table, create_index};
pub(crate) use convert::{database_edits, set_edits};
pub(crate) use create::{create_domain, create_table, create_type};
pub(crate) use heads::{backslash_strings, comment_literal, copy_head, insert_head};

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

#[cfg(test)]
mod tests;
