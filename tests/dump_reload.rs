//! Runs the built `undouble` binary on MySQL dumps whose text columns are stored in a
//! single-byte character set (`latin1`, `cp1251`, ...): a fix that would write repaired UTF-8
//! into them is refused (to a file, to standard output, audited) unless `--convert-charset
//! utf8mb4` rewrites the set or `--keep-charset` keeps it; `--dry-run` and `scan` warn instead;
//! a dump with nothing to repair in such columns, and PostgreSQL dumps, are not refused.

mod binary;

use binary::*;

use std::path::{Path, PathBuf};

/// `é` garbled by a latin1 connection.
const GARBLED: &str = "cafÃ©";
const REPAIRED: &str = "café";

/// A MySQL dump of one table `t` (`columns` between `id int` and the table's options, each
/// `name type ...`, `default_charset` its `DEFAULT CHARSET`) holding `rows`.
fn mysql_dump(columns: &[&str], default_charset: &str, rows: &str) -> String {
    let mut dump = String::from(
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
         /*!50503 SET NAMES utf8mb4 */;\n",
    );
    dump += &table("t", columns, default_charset, rows);
    dump
}

/// The `CREATE TABLE` and `INSERT` of a table `name` (see [`mysql_dump`]).
fn table(name: &str, columns: &[&str], default_charset: &str, rows: &str) -> String {
    let mut sql = format!("CREATE TABLE `{name}` (\n  `id` int NOT NULL,\n");
    for column in columns {
        sql += &format!("  {column},\n");
    }
    sql += &format!(
        "  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET={default_charset};\n\
         INSERT INTO `{name}` VALUES {rows};\n"
    );
    sql
}

fn temp_dump(content: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("dump.sql");
    std::fs::write(&path, content).expect("written");
    (dir, path)
}

/// The names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("listed")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

fn latin1_dump() -> String {
    let rows = format!("(1,'{GARBLED}'),(2,'plain')");
    mysql_dump(&["`name` varchar(100) DEFAULT NULL"], "latin1", &rows)
}

#[test]
fn a_fix_into_latin1_columns_to_a_path_is_refused_and_writes_nothing() {
    let (dir, path) = temp_dump(&latin1_dump());
    let out = dir.path().join("fixed.sql");
    let output = run(&["fix", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("refused"), "{message}");
    assert!(message.contains("t.name (latin1)"), "{message}");
    assert!(
        message.contains("undouble fix --convert-charset utf8mb4"),
        "{message}"
    );
    assert!(message.contains("--keep-charset"), "{message}");
    // No target, and no temporary file left beside it.
    assert_eq!(listing(dir.path()), ["dump.sql"]);
    // An existing target stays as it was.
    std::fs::write(&out, "old").expect("written");
    let output = run(&["fix", "-q", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read(&out).expect("kept"), b"old");
    assert_eq!(listing(dir.path()), ["dump.sql", "fixed.sql"]);
    // In place, the file stays as it was.
    let output = run(&["fix", "-q", "--in-place", path_str(&path)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), latin1_dump());
}

#[test]
fn an_audited_fix_into_latin1_columns_is_refused_too() {
    let (dir, path) = temp_dump(&latin1_dump());
    let log = dir.path().join("audit.jsonl");
    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        path_str(&path),
        "--audit",
        path_str(&log),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("t.name (latin1)"));
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), latin1_dump());
    let output = run_with_stdin(
        &["fix", "-q", "--audit", path_str(&dir.path().join("b"))],
        latin1_dump().as_bytes(),
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(!String::from_utf8_lossy(&output.stdout).contains(REPAIRED));
}

#[test]
fn keep_charset_writes_the_repair_and_keeps_the_declarations() {
    let (dir, path) = temp_dump(&latin1_dump());
    let out = dir.path().join("fixed.sql");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&path),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let fixed = std::fs::read_to_string(&out).expect("written");
    assert_eq!(fixed, latin1_dump().replace(GARBLED, REPAIRED));
    // The same to standard output.
    let output = run_with_stdin(&["fix", "-q", "--keep-charset"], latin1_dump().as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, fixed.as_bytes());
}

#[test]
fn convert_charset_writes_the_repair_as_utf8mb4() {
    let (_dir, path) = temp_dump(&latin1_dump());
    let output = run(&["fix", "-q", "--convert-charset", "utf8mb4", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = latin1_dump()
        .replace(GARBLED, REPAIRED)
        .replace("CHARSET=latin1", "CHARSET=utf8mb4");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}

#[test]
fn dry_run_and_scan_warn_of_the_refusal_and_exit_as_usual() {
    let (_dir, path) = temp_dump(&latin1_dump());
    for quiet in [false, true] {
        let mut args = vec!["fix", "--dry-run", path_str(&path)];
        if quiet {
            args.push("-q");
        }
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains("warning: fix would refuse to write this dump"),
            "{message}"
        );
        assert!(message.contains("t.name (latin1)"), "{message}");
    }
    // With the flag that makes the fix go through, no warning.
    for flag in [&["--keep-charset"][..], &["--convert-charset", "utf8mb4"]] {
        let mut args = vec!["fix", "--dry-run", path_str(&path)];
        args.extend(flag);
        let output = run(&args);
        assert!(
            !stderr(&output).contains("would refuse"),
            "{}",
            stderr(&output)
        );
    }
    let output = run(&["scan", path_str(&path)]);
    assert_eq!(output.status.code(), Some(1));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains("warning: fix would refuse to write this dump"),
        "{report}"
    );
}

#[test]
fn the_storage_is_the_columns_own_charset_or_its_tables() {
    let rows = format!("(1,'{GARBLED}','{GARBLED}')");
    // A latin1 column (by its charset, or by its collation) in a utf8mb4 table: refused.
    for column in [
        "`b` varchar(9) CHARACTER SET latin1 DEFAULT NULL",
        "`b` varchar(9) COLLATE latin1_bin DEFAULT NULL",
    ] {
        let dump = mysql_dump(&["`a` varchar(9) DEFAULT NULL", column], "utf8mb4", &rows);
        let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
        assert_eq!(output.status.code(), Some(2), "{column}");
        let message = stderr(&output);
        assert!(
            message.contains("t.b (latin1)") && !message.contains("t.a"),
            "{message}"
        );
    }
    // A utf8mb4 column in a latin1 table: written, and only its repair counted.
    let dump = mysql_dump(
        &[
            "`a` varchar(9) CHARACTER SET utf8mb4 DEFAULT NULL",
            "`b` int DEFAULT NULL",
        ],
        "latin1",
        &format!("(1,'{GARBLED}',2)"),
    );
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, dump.replace(GARBLED, REPAIRED).as_bytes());
}

#[test]
fn a_latin1_dump_with_nothing_to_repair_in_latin1_columns_is_not_refused() {
    let dump = mysql_dump(
        &["`name` varchar(100) DEFAULT NULL"],
        "latin1",
        "(1,'café')",
    );
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, dump.as_bytes());
    // Garbled bytes in a blob of a latin1 table are never repaired: nothing to refuse.
    let dump = mysql_dump(&["`data` blob"], "latin1", &format!("(1,'{GARBLED}')"));
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, dump.as_bytes());
}

#[test]
fn another_single_byte_charset_is_refused_even_with_convert_charset() {
    let rows = format!("(1,'{GARBLED}')");
    let dump = mysql_dump(&["`name` varchar(100) DEFAULT NULL"], "cp1251", &rows);
    let output = run_with_stdin(
        &["fix", "-q", "--convert-charset", "utf8mb4"],
        dump.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("t.name (cp1251)"), "{message}");
    assert!(
        message.contains("--convert-charset rewrites latin1 only"),
        "{message}"
    );
    let output = run_with_stdin(&["fix", "-q", "--keep-charset"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, dump.replace(GARBLED, REPAIRED).as_bytes());
    // A multi-byte set holds UTF-8's characters: not refused.
    let dump = mysql_dump(&["`name` varchar(100) DEFAULT NULL"], "utf8mb3", &rows);
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn the_refusal_names_a_few_columns_and_counts_the_others() {
    let columns: Vec<String> = (1..=6).map(|c| format!("`c{c}` text")).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let rows = format!("(1{})", format!(",'{GARBLED}'").repeat(6));
    let dump = mysql_dump(&columns, "latin1", &rows);
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("t.c1 (latin1), t.c2 (latin1), t.c3 (latin1), t.c4 (latin1), and 2 more"),
        "{message}"
    );
    assert!(!message.contains("t.c5"), "{message}");
}

/// To standard output, the fix stops before the part of the dump that holds the first repair
/// into a latin1 column: what it wrote is the start of what `--keep-charset` writes, with the
/// repairs of the utf8mb4 table before, and no repaired value of the latin1 table.
#[test]
fn to_standard_output_the_fix_stops_before_the_first_refused_repair() {
    let wide = format!("'{GARBLED} {}'", "x".repeat(1000));
    let rows: Vec<String> = (1..=12_000).map(|id| format!("({id},{wide})")).collect();
    let mut dump = mysql_dump(&["`name` text"], "utf8mb4", &rows.join(","));
    // The refused table starts beyond the first block (8 MiB).
    assert!(dump.len() > 9 << 20);
    dump += &table(
        "u",
        &["`name` text"],
        "latin1",
        &format!("(1,'{GARBLED} u')"),
    );
    let (dir, path) = temp_dump(&dump);
    let output = run(&["fix", "-q", path_str(&path)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("u.name (latin1)"),
        "{}",
        stderr(&output)
    );
    let kept = dir.path().join("kept.sql");
    let all = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&path),
        "-o",
        path_str(&kept),
    ]);
    assert_eq!(all.status.code(), Some(0), "{}", stderr(&all));
    let all = std::fs::read(&kept).expect("written");
    let written = &output.stdout;
    assert!(
        !written.is_empty(),
        "the blocks before the refused one are written"
    );
    assert!(written.len() < all.len());
    assert!(
        all.starts_with(written),
        "what was written is the repaired dump's start"
    );
    let text = String::from_utf8_lossy(written);
    assert!(text.contains(&format!("(1,'{REPAIRED} x")));
    assert!(!text.contains("café u"));
    // The same from a pipe.
    let piped = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(piped.status.code(), Some(2));
    assert_eq!(piped.stdout, *written);
}

/// A dump of data only takes its tables, and so their charsets, from the `--schema` dump.
#[test]
fn a_data_only_dump_is_refused_by_the_charsets_of_its_schema_dump() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let schema = dir.path().join("schema.sql");
    let full = latin1_dump();
    let create_end = full.find("INSERT").expect("an insert");
    std::fs::write(&schema, &full[..create_end]).expect("written");
    let data = dir.path().join("data.sql");
    let data_only = format!(
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
         /*!50503 SET NAMES utf8mb4 */;\n{}",
        &full[create_end..]
    );
    std::fs::write(&data, &data_only).expect("written");
    let output = run(&["fix", "-q", "--schema", path_str(&schema), path_str(&data)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("t.name (latin1)"));
    assert!(output.stdout.is_empty());
    let convert = ["--convert-charset", "utf8mb4"];
    let mut args = vec!["fix", "-q", "--schema", path_str(&schema), path_str(&data)];
    args.extend(convert);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        output.stdout,
        data_only.replace(GARBLED, REPAIRED).as_bytes()
    );
    // The schema dump itself, read whole, is not out of reach: the note says to convert it.
    assert!(
        stderr(&output).contains("Fix the schema dump too"),
        "{}",
        stderr(&output)
    );
}

/// PostgreSQL columns have no character set: a dump created `ENCODING 'LATIN1'` but read as
/// UTF-8 is repaired (a server that cannot store a character refuses the row, loudly).
#[test]
fn a_postgresql_dump_of_a_latin1_database_is_not_refused() {
    let dump = format!(
        "--\n-- PostgreSQL database dump\n--\n\n\
         SET client_encoding = 'UTF8';\n\
         CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'LATIN1' LOCALE = 'C';\n\
         CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n\
         COPY public.t (id, name) FROM stdin;\n1\t{GARBLED}\n\\.\n"
    );
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, dump.replace(GARBLED, REPAIRED).as_bytes());
}
