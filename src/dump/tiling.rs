//! Ranges that tile a dump: their fixes, concatenated, are the whole dump's fix byte for byte,
//! and their reports, joined as `merge` joins them, are the whole dump's report, wherever the
//! cuts fall: inside a character, a quoted value, a comment, a `CREATE TABLE`, a MySQL extended
//! `INSERT`, a PostgreSQL `COPY` block. Blocks are made small so that small dumps have many.

use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;

use super::{
    Charset, Definitions, DumpOptions, DumpOutput, DumpPass, DumpRecord, fix_dump, scan_dump,
};
use crate::engine::tiling::{summary, tiling};
use crate::engine::{EngineOptions, Input};
use crate::error::Error;
use crate::mojibake::{Counts, Readings, Scanner, Strictness};
use crate::sql::SqlDialect;

fn scanner() -> Scanner {
    Scanner::new(Readings::western(), Strictness::default())
}

/// A MySQL dump as `mariadb-dump` writes one, with what a range may be cut inside of.
const MYSQL_HEAD: &str = "-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB\n\
    /*!40101 SET NAMES latin1 */;\n\
    DROP TABLE IF EXISTS `t`;\n\
    CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `name` varchar(50) DEFAULT 'CafÃ©' COMMENT 'naÃ¯ve',\n  `data` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n";

/// Statements of a MySQL dump, after [`MYSQL_HEAD`]; `{n}` is replaced by a row number.
const MYSQL_PIECES: &[&str] = &[
    "INSERT INTO `t` VALUES ({n},'CafÃ© crÃ¨me','Ã©\\0'),({n}1,'it\\'s Ã¢â‚¬â„¢ fine; (yes)',NULL);\n",
    "INSERT INTO `t` VALUES ({n},'clean café 日本語',_binary 'Ã©\\Z'),({n}2,'Ð¸',NULL),({n}3,'ÃƒÂ© twice','');\n",
    "/* a comment with CafÃ© and 'quotes' */\n",
    "-- a line comment: naÃ¯ve\n",
    "INSERT INTO `t` VALUES ({n},'a value\nover two lines Ã¨','x');\n",
    "DROP TABLE IF EXISTS `u{n}`;\nCREATE TABLE `u{n}` (\n  `k` varchar(9) NOT NULL,\n  `note` text,\n  PRIMARY KEY (`k`)\n) DEFAULT CHARSET=latin1;\n\
     INSERT INTO `u{n}` VALUES ('a{n}','Ã¼ber'),('b{n}',NULL);\n",
];

/// A PostgreSQL dump as `pg_dump` writes one.
const POSTGRES_HEAD: &str = "--\n-- PostgreSQL database dump\n--\n\n\
    SET client_encoding = 'UTF8';\n\
    CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text,\n    data bytea\n);\n\
    COMMENT ON COLUMN public.t.name IS 'naÃ¯ve';\n";

/// Statements of a PostgreSQL dump, after [`POSTGRES_HEAD`].
const POSTGRES_PIECES: &[&str] = &[
    "COPY public.t (id, name, data) FROM stdin;\n{n}\tCafÃ© crÃ¨me\t\\\\x00ff\n{n}1\t\\N\t\\\\x\n{n}2\tline\\nbreak Ã¢â‚¬â„¢\t\\\\xc3a9\n\\.\n",
    "INSERT INTO public.t VALUES ({n}, 'Ã©tÃ© ''quoted''', '\\x00');\n",
    "/* a comment: CafÃ© */\n-- and one more: Ã¼\n",
    "COPY public.t (id, name, data) FROM stdin;\n{n}\tclean café 日本語\t\\N\n{n}3\tÃƒÂ© twice\t\\\\x41\n\\.\n",
    "CREATE TABLE public.u{n} (\n    note text\n);\nCOPY public.u{n} (note) FROM stdin;\nÐ¸ and Ã¼ber\n\\.\n",
];

/// The dump made of `head` and the pieces at `chosen`, each numbered by its place.
fn dump(head: &str, pieces: &[&str], chosen: &[usize]) -> Vec<u8> {
    let mut text = head.to_owned();
    for (at, &piece) in chosen.iter().enumerate() {
        text.push_str(&pieces[piece % pieces.len()].replace("{n}", &(at + 1).to_string()));
    }
    text.into_bytes()
}

/// How the dumps are read: charsets converted (so that the DDL's edits are tiled too), and the
/// tables of `schema` dumps, if any.
fn options(dialect: SqlDialect, schema: Option<Arc<Definitions>>) -> DumpOptions {
    DumpOptions {
        dialect,
        convert_charset: Some(Charset::Utf8mb4),
        schema,
        keep_charset: true,
    }
}

/// The repair of the dump `file` (read with `options`) in `range`, and the scan's report of it, as
/// `scan --json` writes it, with the counts.
fn run(
    file: &Path,
    options: &DumpOptions,
    block_size: usize,
    range: Option<Range<u64>>,
) -> Result<(Vec<u8>, DumpRecord, Counts), Error> {
    let scanner = scanner();
    let engine = EngineOptions {
        range,
        block_size,
        ..EngineOptions::default()
    };
    let pass = DumpPass {
        scanner: &scanner,
        options,
        engine: &engine,
    };
    let input = Input::from_arg(file);
    let mut fixed = Vec::new();
    let output = DumpOutput {
        out: &mut fixed,
        path: "out".as_ref(),
        audit: None,
    };
    let repaired = fix_dump(&pass, &input, output)?;
    let (scanned, _) = scan_dump(&pass, &input, 0)?;
    assert_eq!(summary(&repaired.counts), summary(&scanned.counts));
    let record = scanned.record(scanner.readings());
    Ok((fixed, record, scanned.counts))
}

/// Checks the tiling property for the dump `bytes` cut at `cuts`.
fn check(bytes: &[u8], options: &DumpOptions, block_size: usize, cuts: &[u64]) {
    // A file: a scan reads it twice, for the keys a dump declares after its data.
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
    let file = file.path();
    let (whole, record, counts) = run(file, options, block_size, None).unwrap();
    let mut joined = Vec::new();
    let mut records = Vec::new();
    let mut sum = Counts::default();
    for range in tiling(cuts) {
        let (fixed, part, counts) = run(file, options, block_size, Some(range)).unwrap();
        joined.extend(fixed);
        records.push(part);
        sum.merge(counts);
    }
    assert!(
        joined == whole,
        "the ranges' fixes at {cuts:?}, concatenated:\n{}\nthe whole fix:\n{}",
        String::from_utf8_lossy(&joined),
        String::from_utf8_lossy(&whole)
    );
    assert_eq!(
        summary(&sum),
        summary(&counts),
        "the ranges' counts at {cuts:?}"
    );
    let parts: Vec<&DumpRecord> = records.iter().collect();
    let joined = DumpRecord::join(&parts).map(|mut joined| {
        // What only a range's record carries.
        joined.broken_cell_ends = None;
        joined
    });
    assert_eq!(joined, Ok(record), "the ranges' reports at {cuts:?}");
}

/// A dump of every piece, twice.
fn every_piece(head: &str, pieces: &[&str]) -> Vec<u8> {
    let chosen: Vec<usize> = (0..pieces.len() * 2).collect();
    dump(head, pieces, &chosen)
}

/// Checks one cut at every offset of a dump of every piece.
fn every_cut(head: &str, pieces: &[&str], dialect: SqlDialect) {
    let bytes = every_piece(head, pieces);
    for cut in 0..=bytes.len() as u64 + 1 {
        check(&bytes, &options(dialect, None), 64, &[cut]);
    }
}

#[test]
fn one_cut_at_every_offset_of_a_mysql_dump_tiles() {
    every_cut(MYSQL_HEAD, MYSQL_PIECES, SqlDialect::MySql);
}

#[test]
fn one_cut_at_every_offset_of_a_postgres_dump_tiles() {
    every_cut(POSTGRES_HEAD, POSTGRES_PIECES, SqlDialect::PostgreSql);
}

/// Where `needle` is in `bytes`, plus `into`: an offset inside it.
fn inside(bytes: &[u8], needle: &str, into: usize) -> u64 {
    let at = memchr::memmem::find(bytes, needle.as_bytes()).unwrap();
    (at + into) as u64
}

#[test]
fn ranges_that_start_and_end_inside_what_a_dump_is_made_of() {
    let mysql = every_piece(MYSQL_HEAD, MYSQL_PIECES);
    // Inside a two-byte character, a quoted value, a comment, and an extended INSERT's tuples.
    let cuts = [
        inside(&mysql, "Ã©", 1),
        inside(&mysql, "'it\\'s", 4),
        inside(&mysql, "/* a comment", 7),
        inside(&mysql, "),(2", 2),
        inside(&mysql, "over two lines", 3),
    ];
    for block_size in [16, 64, 200] {
        check(&mysql, &options(SqlDialect::MySql, None), block_size, &cuts);
    }
    let postgres = every_piece(POSTGRES_HEAD, POSTGRES_PIECES);
    // Inside a COPY block's rows (in a value, after an escape) and its header, a comment, and a
    // quoted value of an INSERT.
    let cuts = [
        inside(&postgres, "CafÃ© crÃ¨me", 4),
        inside(&postgres, "\\nbreak", 1),
        inside(&postgres, "COPY public.t", 3),
        inside(&postgres, "/* a comment", 5),
        inside(&postgres, "''quoted''", 2),
    ];
    for block_size in [16, 64, 200] {
        check(
            &postgres,
            &options(SqlDialect::PostgreSql, None),
            block_size,
            &cuts,
        );
    }
}

/// A dump of data only, read with the tables of a dump of its schema (`--schema`): one of them
/// has rows, one has none, and the data dump defines a table of its own.
#[test]
fn ranges_of_a_data_only_dump_read_with_its_schema_tile() {
    let mut schema_file = tempfile::NamedTempFile::new().unwrap();
    schema_file
        .write_all(
            "-- MariaDB dump 10.19\n\
             CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `name` text,\n  PRIMARY KEY (`id`)\n) DEFAULT CHARSET=utf8mb4;\n\
             CREATE TABLE `unused` (\n  `note` text\n) DEFAULT CHARSET=utf8mb4;\n"
                .as_bytes(),
        )
        .unwrap();
    schema_file.flush().unwrap();
    let readings = Readings::western();
    let paths = [schema_file.path().to_path_buf()];
    let definitions = Definitions::read(&paths, &readings, &EngineOptions::default())
        .unwrap()
        .map(Arc::new);
    assert!(definitions.is_some());
    let mut data = String::from("-- MariaDB dump 10.19\n");
    for n in 1..=12 {
        data += &format!("INSERT INTO `t` VALUES ({n},'CafÃ© {n}'),({n}00,'clean {n}');\n");
        if n == 6 {
            data += "CREATE TABLE `own` (\n  `v` text\n) DEFAULT CHARSET=utf8mb4;\n\
                     INSERT INTO `own` VALUES ('Ã¼ber'),(NULL);\n";
        }
    }
    let options = options(SqlDialect::MySql, definitions);
    for cut in 0..=data.len() as u64 + 1 {
        check(data.as_bytes(), &options, 48, &[cut]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn any_tiling_of_a_dump_gives_the_whole_fix_and_report(
        postgres in any::<bool>(),
        chosen in prop::collection::vec(0usize..8, 0..24),
        block_size in 8usize..300,
        cuts in prop::collection::vec(0u64..6000, 0..4),
    ) {
        let (head, pieces, dialect) = match postgres {
            true => (POSTGRES_HEAD, POSTGRES_PIECES, SqlDialect::PostgreSql),
            false => (MYSQL_HEAD, MYSQL_PIECES, SqlDialect::MySql),
        };
        let bytes = dump(head, pieces, &chosen);
        let len = bytes.len() as u64 + 2;
        let cuts: Vec<u64> = cuts.iter().map(|cut| cut % len).collect();
        check(&bytes, &options(dialect, None), block_size, &cuts);
    }
}

/// Pieces of SQL that make lexers stumble, for dumps that may not be dumps at all.
const SOUP: &[&str] = &[
    "'",
    "''",
    "\\",
    "\\'",
    "\"",
    "`",
    ";",
    "(",
    ")",
    ",",
    "/*",
    "*/",
    "-- ",
    "#",
    "\n",
    "\t",
    "\\.\n",
    "\\N",
    "$$",
    "E'",
    "_binary '",
    "X'",
    "INSERT INTO `t` VALUES (",
    "INSERT INTO public.t VALUES (",
    "),(",
    ");\n",
    "COPY public.t (id, name, data) FROM stdin;\n",
    "CREATE TABLE `x` (`a` text);\n",
    "Ã©",
    "Ã¢â‚¬â„¢",
    "\u{e9}",
    "NULL",
    "1",
    " ",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the bytes, no range panics; and when the whole dump is read, its ranges tile.
    #[test]
    fn ranges_of_any_sql_soup_never_panic_and_tile_when_the_whole_is_read(
        postgres in any::<bool>(),
        tokens in prop::collection::vec(0usize..SOUP.len() + 64, 0..40),
        block_size in 8usize..200,
        cuts in prop::collection::vec(0u64..3000, 0..4),
    ) {
        let (head, pieces, dialect) = match postgres {
            true => (POSTGRES_HEAD, POSTGRES_PIECES, SqlDialect::PostgreSql),
            false => (MYSQL_HEAD, MYSQL_PIECES, SqlDialect::MySql),
        };
        // Whole statements, most of the time, and stumbling blocks between them.
        let mut text = head.to_owned();
        for (at, token) in tokens.into_iter().enumerate() {
            match token.checked_sub(64) {
                Some(soup) => text.push_str(SOUP[soup]),
                None => text.push_str(&pieces[token % pieces.len()].replace("{n}", &at.to_string())),
            }
        }
        let bytes = text.into_bytes();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&bytes).unwrap();
        file.flush().unwrap();
        let options = options(dialect, None);
        let len = bytes.len() as u64 + 2;
        let cuts: Vec<u64> = cuts.iter().map(|cut| cut % len).collect();
        match run(file.path(), &options, block_size, None) {
            Ok(_) => check(&bytes, &options, block_size, &cuts),
            // A dump the lexer refuses: its ranges may be refused too, but never panic.
            Err(_) => {
                for range in tiling(&cuts) {
                    let _ = run(file.path(), &options, block_size, Some(range));
                }
            }
        }
    }
}
