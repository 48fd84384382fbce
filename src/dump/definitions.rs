//! The tables of dumps of a schema (`--schema`), lent to dumps that hold only data.
//!
//! `mariadb-dump --no-create-info` and `pg_dump --data-only` write rows without the `CREATE
//! TABLE` statements that say which columns hold text, and so where a repair may land; a
//! database is often dumped that way, its schema apart (`--no-data`, `--schema-only`). The
//! schema dumps are read here by the dump lexer itself, before the data, and only their tables
//! (columns, kinds, primary keys) are lent to the data dump's lexer, which starts from them as
//! if the data dump had defined them first; with them, the PostgreSQL types they create
//! (`CREATE TYPE`, `CREATE DOMAIN`), for a table the data dump defines itself with one of them.
//! A primary key that `pg_dump --schema-only` adds after its tables (`ALTER TABLE ONLY t ADD
//! CONSTRAINT t_pkey PRIMARY KEY (id)`) is the table's key, so that the data dump's rows are
//! named by it. Nothing else of a schema dump carries over: its `SET NAMES`, `USE`,
//! `DELIMITER` and `standard_conforming_strings` are its own, as they are for the client that
//! loads it. A schema dump is read, never changed.

use std::path::{Path, PathBuf};

use super::lexer::Lexer;
use super::schema::Schema;
use super::{BlockLexer, Format, LexedBuffer, ReadFor, dialect_of, lex_error};
use crate::engine::{self, EngineOptions, Input};
use crate::error::Error;
use crate::mojibake::Readings;
use crate::sql::SqlDialect;

/// The tables that dumps of a schema define, ready to be lent to dumps of its data.
#[derive(Debug)]
pub struct Definitions {
    dialect: SqlDialect,
    /// Every table, borrowed ([`Schema::lend`]).
    schema: Schema,
    paths: Vec<PathBuf>,
    latin1_declarations: u64,
}

impl Definitions {
    /// Reads the tables (and types) that the dumps at `paths` define, in order: a table defined
    /// again replaces the earlier definition, as it would in one dump. `None` without paths. A dump
    /// that defines no table is refused (it is likely the data dump, given twice), and so are
    /// dumps of two dialects.
    pub fn read(
        paths: &[PathBuf],
        readings: &Readings,
        engine: &EngineOptions,
    ) -> Result<Option<Definitions>, Error> {
        let mut first: Option<(SqlDialect, &Path)> = None;
        let mut schema = Schema::default();
        let mut latin1_declarations = 0;
        for path in paths {
            // One input for both looks, so that a schema piped in (`<(zcat schema.sql.gz)`)
            // is read once, its head kept for the second.
            let input = Input::from_arg(path);
            let this = dialect_of(&input, Format::Sql)?.unwrap_or(SqlDialect::MySql);
            let (dialect, first_path) = *first.get_or_insert((this, path));
            if this != dialect {
                let message = format!(
                    "--schema dumps of two dialects: {} is a {} dump, {} a {} one",
                    first_path.display(),
                    dialect_title(dialect),
                    path.display(),
                    dialect_title(this)
                );
                return Err(Error::Usage(message));
            }
            let (defined, latin1) = read_schema(&input, dialect, readings, engine)?;
            if defined.tables.is_empty() {
                let message = format!(
                    "{}: no CREATE TABLE in it; --schema reads a dump of the schema \
                     (mariadb-dump --no-data, pg_dump --schema-only)",
                    path.display()
                );
                return Err(Error::Usage(message));
            }
            schema.extend(defined);
            latin1_declarations += latin1;
        }
        Ok(first.map(|(dialect, _)| Definitions {
            dialect,
            schema: schema.lend(),
            paths: paths.to_vec(),
            latin1_declarations,
        }))
    }

    /// The dumps read.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// How many `latin1` character sets and collations the schema dumps declare, which
    /// `--convert-charset` rewrites in a dump it fixes, but cannot in these: they are read,
    /// not fixed.
    pub fn latin1_declarations(&self) -> u64 {
        self.latin1_declarations
    }

    /// The tables, for the dump `input` in `dialect`. A schema of another dialect is refused:
    /// its types would be misread.
    pub(super) fn lend_to(&self, input: &Input, dialect: SqlDialect) -> Result<Schema, Error> {
        if dialect != self.dialect {
            let message = format!(
                "{}: a {} dump, and the --schema dump is a {} one",
                input.display_path().display(),
                dialect_title(dialect),
                dialect_title(self.dialect)
            );
            return Err(Error::Usage(message));
        }
        Ok(self.schema.clone())
    }
}

/// Lexes the dump `input` to its end; returns what it defines (every table definition, in
/// order, and the types) and how many `latin1` declarations `--convert-charset` would rewrite
/// in it.
fn read_schema(
    input: &Input,
    dialect: SqlDialect,
    readings: &Readings,
    engine: &EngineOptions,
) -> Result<(Schema, u64), Error> {
    let path = &input.display_path();
    let mut lexing = BlockLexer::new(Lexer::new(dialect, true));
    let mut buffer = LexedBuffer::new();
    let mut latin1 = 0;
    let mut step = |block: &[u8], base: u64, last: bool| -> Result<(), Error> {
        let lexed = lexing
            .lex(block, base, last, &mut buffer)
            .map_err(|error| lex_error(path, error, ReadFor::Schema))?;
        if lexed {
            latin1 += buffer.lexed.edits.len() as u64;
        }
        Ok(())
    };
    engine::for_each_block_in_order(input, readings, engine, |block, base| {
        step(block, base, false)
    })?;
    step(&[], 0, true)?;
    Ok((lexing.lexer.schema, latin1))
}

fn dialect_title(dialect: SqlDialect) -> &'static str {
    match dialect {
        SqlDialect::MySql => "MySQL/MariaDB",
        SqlDialect::PostgreSql => "PostgreSQL",
    }
}
