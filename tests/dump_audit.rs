//! Runs the built `undouble` binary on SQL dumps with `fix --audit`: the audited fix of a dump
//! writes exactly what the unaudited one writes (blobs byte-identical), its change records
//! name the table, column and row of every repair (by primary key, composite key, or row
//! number), `--convert-charset` rewrites are change records of their own that `undo` takes
//! back although they lengthen the text, the summary level works, and, for random dumps built
//! from a small grammar, `fix --audit` then `undo` gives back the exact original bytes.

mod binary;

use binary::*;

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

/// `cafÃ©` garbled once more by a latin1 connection: what a blob may hold by chance.
const LOOKS_GARBLED: &str = "cafÃ©";

const HEADER: &str = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n";

/// Every record of an audit log.
fn parse(log: &str) -> Vec<Value> {
    log.lines()
        .map(|line| serde_json::from_str(line).expect("every line is JSON"))
        .collect()
}

fn read_log(log: &Path) -> Vec<Value> {
    parse(&fs::read_to_string(log).expect("the log"))
}

fn of_type<'r>(records: &'r [Value], kind: &str) -> Vec<&'r Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

/// The `(table, column, row)` of each repair, in log order (`null`s where absent).
fn cells(records: &[Value]) -> Vec<(Value, Value, Value)> {
    of_type(records, "change")
        .into_iter()
        .filter(|change| change["kind"] == "repair")
        .map(|change| {
            let field = |name: &str| change.get(name).cloned().unwrap_or(Value::Null);
            (field("table"), field("column"), field("row"))
        })
        .collect()
}

/// A fresh temporary directory holding `content` as `name`.
fn dump_file(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    fs::write(&path, content).expect("written");
    (dir, path)
}

/// Runs `fix` with `args` on `input`, unaudited (`-o`) and audited in place at `level`; checks
/// both give the same bytes and the same exit status; returns them and the log.
fn fix_both_ways(input: &[u8], args: &[&str], level: &str) -> (Vec<u8>, String) {
    let (dir, path) = dump_file("in.sql", input);
    let unaudited = dir.path().join("unaudited.sql");
    let mut plain = vec!["fix", "-q", path_str(&path), "-o", path_str(&unaudited)];
    plain.extend(args);
    let plain = run(&plain);
    let log = dir.path().join("audit.jsonl");
    let mut audited = vec!["fix", "-q", "--in-place", path_str(&path)];
    audited.extend(["--audit", path_str(&log), "--audit-level", level]);
    audited.extend(args);
    let audited = run(&audited);
    assert_eq!(
        audited.status.code(),
        plain.status.code(),
        "{}",
        stderr(&audited)
    );
    assert!(
        matches!(audited.status.code(), Some(0 | 1)),
        "{}",
        stderr(&audited)
    );
    let fixed = fs::read(&path).expect("the fixed dump");
    assert!(
        fixed == fs::read(&unaudited).expect("the unaudited output"),
        "the audited fix writes other bytes than the unaudited one"
    );
    (fixed, fs::read_to_string(&log).expect("the log"))
}

/// Checks every change record against the original: its bytes are at its offset, on its line.
fn check_offsets(original: &[u8], records: &[Value]) {
    for change in of_type(records, "change") {
        let offset = change["offset"].as_u64().expect("an offset") as usize;
        let hex = change["original_hex"].as_str().expect("hex");
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits"))
            .collect();
        assert_eq!(&original[offset..offset + bytes.len()], bytes, "{change}");
        let line = 1 + original[..offset].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(change["line"], line, "{change}");
    }
}

/// Fixes `input` in place with `--audit` and `args`, then undoes it: the file must come back
/// byte for byte. Returns the log's records.
fn fix_and_undo(input: &[u8], args: &[&str]) -> Vec<Value> {
    let (dir, path) = dump_file("dump.sql", input);
    let log = dir.path().join("audit.jsonl");
    let mut fix = vec!["fix", "-q", "--in-place", path_str(&path)];
    fix.extend(["--audit", path_str(&log)]);
    fix.extend(args);
    let fixed = run(&fix);
    assert!(
        matches!(fixed.status.code(), Some(0 | 1)),
        "{}",
        stderr(&fixed)
    );
    let undone = run(&[
        "undo",
        "--root",
        path_str(log.parent().expect("the log's directory")),
        path_str(&log),
    ]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert!(
        fs::read(&path).expect("the restored dump") == input,
        "undo restores the original"
    );
    read_log(&log)
}

#[test]
fn the_audited_sample_dump_is_repaired_exactly_as_without_audit() {
    let sample = fs::read(corpus("dump-sample.sql")).expect("the sample");
    // Kept latin1: what is checked here is the audit, not the reload (tests/dump_reload.rs).
    let expected = sample_repaired_keeping_latin1();
    let (fixed, log) = fix_both_ways(&sample, &["--keep-charset"], "full");
    let records = parse(&log);
    assert!(fixed == expected);
    assert_eq!(records[0]["schema"], 3);
    let changes = of_type(&records, "change");
    assert_eq!(changes.len(), 3566);
    check_offsets(&sample, &records);
    // Every repair of the sample lies in a value of a text column, in a table with a key.
    let cells = cells(&records);
    assert!(cells.iter().all(|(_, _, row)| row.is_object()), "{cells:?}");
    // The first damaged row of the sample is country 6 (as `scan` says: "e.g. id=6").
    let first = (json!("countries"), json!("name"), json!({"id": "6"}));
    assert_eq!(cells[0], first);
    let file = of_type(&records, "file")[0];
    assert_eq!(file["double_encoded"], 3566);
    assert_eq!(file["change_records"], 3566);
    assert_eq!(file["rewritten"], true);
    // Audited to standard output, the bytes are the same.
    let (dir, path) = dump_file("sample.sql", &sample);
    let log = dir.path().join("stdout.jsonl");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&path),
        "--audit",
        path_str(&log),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout == expected);
    let stdout_file = &read_log(&log)[3567];
    assert_eq!(stdout_file["rewritten"], false);
    assert_eq!(stdout_file["output"], "<stdout>");
}

/// A dump of three tables: a primary key, none, and a composite key listed in another order
/// than the columns, after the text column.
fn three_tables() -> String {
    format!(
        "{HEADER}\
         USE `shop`;\n\
         CREATE TABLE `keyed` (\n  `id` int NOT NULL,\n  `name` varchar(40) DEFAULT NULL,\n  \
         `data` blob,\n  `raw` varbinary(20) DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) \
         ENGINE=InnoDB DEFAULT CHARSET=latin1 COMMENT='crÃ¨me';\n\
         INSERT INTO `keyed` VALUES (7,'{LOOKS_GARBLED}','{LOOKS_GARBLED}',_binary '{LOOKS_GARBLED}'),\
         (9,'clean','x',0xC383C2A9),(12,'O\\'Ã©',NULL,NULL);\n\
         CREATE TABLE `log` (\n  `line` text\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n\
         INSERT INTO `log` VALUES ('a'),('b');\n\
         INSERT INTO `log` VALUES ('â€™');\n\
         CREATE TABLE `pairs` (\n  `note` text,\n  `z` int NOT NULL,\n  `a` varchar(5) NOT NULL,\n  \
         PRIMARY KEY (`a`,`z`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n\
         INSERT INTO `pairs` VALUES ('ok',1,'x'),('naÃ¯ve',2,'k\\'1');\n"
    )
}

#[test]
fn repairs_name_their_table_column_and_row() {
    let dump = three_tables();
    let (fixed, log) = fix_both_ways(dump.as_bytes(), &["--keep-charset"], "full");
    let records = parse(&log);
    check_offsets(dump.as_bytes(), &records);
    let cells = cells(&records);
    let cell = |table: &str, column: &str, row: Value| (json!(table), json!(column), row);
    let ddl = (Value::Null, Value::Null, Value::Null);
    assert_eq!(
        cells,
        [
            ddl,
            // `cafÃ©`: one change per repaired character.
            cell("shop.keyed", "name", json!({"id": "7"})),
            cell("shop.keyed", "name", json!({"id": "12"})),
            // No key: the row's number in the table, counted across INSERT statements.
            cell("shop.log", "line", json!(3)),
            // A composite key, values as the dump writes them (escapes kept).
            cell("shop.pairs", "note", json!({"z": "2", "a": "k\\'1"})),
        ]
    );
    // The key's columns come in the table's order (as a row gives them), whatever the order
    // of `PRIMARY KEY (a, z)`.
    assert!(log.contains(r#""row":{"z":"2","a":"k\\'1"}"#), "{log}");
    // The blob, the varbinary and the `_binary` string look garbled and are left byte-identical.
    let fixed = String::from_utf8(fixed).expect("UTF-8");
    let expected = dump
        .replacen(&format!("(7,'{LOOKS_GARBLED}'"), "(7,'café'", 1)
        .replacen("COMMENT='crÃ¨me'", "COMMENT='crème'", 1)
        .replacen("'O\\'Ã©'", "'O\\'é'", 1)
        .replacen("'â€™'", "'’'", 1)
        .replacen("'naÃ¯ve'", "'naïve'", 1);
    assert_eq!(fixed, expected);
    assert_eq!(fixed.matches(LOOKS_GARBLED).count(), 2);
    assert!(fixed.contains("0xC383C2A9"));
}

#[test]
fn postgresql_copy_rows_are_named_by_number() {
    let dump = format!(
        "--\n-- PostgreSQL database dump\n--\n\n\
         SET client_encoding = 'UTF8';\n\
         CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text,\n    data bytea\n);\n\
         COPY public.t (id, name, data) FROM stdin;\n\
         1\tclean\t\\\\x43c3a9\n\
         2\t{LOOKS_GARBLED}\\tx\t\\\\x00\n\
         \\.\n"
    );
    let (_, log) = fix_both_ways(dump.as_bytes(), &["--keep-charset"], "full");
    let records = parse(&log);
    check_offsets(dump.as_bytes(), &records);
    assert_eq!(
        cells(&records),
        [(json!("public.t"), json!("name"), json!(2))]
    );
    fix_and_undo(dump.as_bytes(), &["--keep-charset"]);
}

/// A full `pg_dump`: its primary keys come after all the data (a plain one, and a composite
/// one declared in another order than the table's), and a table has none.
fn full_pg_dump() -> String {
    let entry = |names: &str| {
        format!("--\n-- Name: {names}; Type: CONSTRAINT; Schema: public; Owner: postgres\n--\n\n")
    };
    let mut dump = format!(
        "--\n-- PostgreSQL database dump\n--\n\n\
         SET client_encoding = 'UTF8';\n\
         CREATE TABLE public.notes (\n    id integer NOT NULL,\n    body text\n);\n\n\
         CREATE TABLE public.pairs (\n    a integer NOT NULL,\n    b text NOT NULL,\n    c text\n);\n\n\
         CREATE TABLE public.loose (\n    n integer,\n    t text\n);\n\n\
         COPY public.notes (id, body) FROM stdin;\n\
         7\tclean\n\
         42\t{LOOKS_GARBLED}\n\
         \\.\n\n\
         COPY public.pairs (a, b, c) FROM stdin;\n\
         1\tx\t{LOOKS_GARBLED}\n\
         \\.\n\n\
         COPY public.loose (n, t) FROM stdin;\n\
         5\tclean\n\
         5\t{LOOKS_GARBLED}\n\
         \\.\n\n"
    );
    dump += &entry("notes notes_pkey");
    dump += "ALTER TABLE ONLY public.notes\n    ADD CONSTRAINT notes_pkey PRIMARY KEY (id);\n\n";
    dump += &entry("pairs pairs_pkey");
    dump += "ALTER TABLE ONLY public.pairs\n    ADD CONSTRAINT pairs_pkey PRIMARY KEY (b, a);\n\n";
    dump
}

#[test]
fn a_full_pg_dump_names_its_rows_by_the_keys_it_declares_after_its_data() {
    let dump = full_pg_dump();
    let (_, log) = fix_both_ways(dump.as_bytes(), &["--keep-charset"], "full");
    let records = parse(&log);
    check_offsets(dump.as_bytes(), &records);
    let cell = |table: &str, column: &str, row: Value| (json!(table), json!(column), row);
    assert_eq!(
        cells(&records),
        [
            cell("public.notes", "body", json!({"id": "42"})),
            // The key's columns in the table's order, as a row gives them.
            cell("public.pairs", "c", json!({"a": "1", "b": "x"})),
            cell("public.loose", "t", json!(2)),
        ]
    );
    fix_and_undo(dump.as_bytes(), &["--keep-charset"]);
    let (dir, path) = dump_file("full.sql", dump.as_bytes());
    let scanned = json_lines(&run(&["scan", "--json", path_str(&path)]));
    let tables = &scanned[0]["dump"]["tables"];
    assert_eq!(tables[0]["primary_key"], json!(["id"]));
    assert_eq!(tables[0]["columns"][1]["example_row"], "id=42");
    assert_eq!(tables[1]["primary_key"], json!(["b", "a"]));
    assert_eq!(tables[1]["columns"][2]["example_row"], "a=1, b=x");
    assert_eq!(tables[2]["columns"][1]["example_row"], "row 2");
    // Piped, the dump cannot be read twice: its rows are named by number, as it goes.
    let piped = run_with_stdin(&["scan", "--json", "-"], dump.as_bytes());
    let tables = &json_lines(&piped)[0]["dump"]["tables"];
    assert_eq!(tables[0]["primary_key"], json!([]));
    assert_eq!(tables[0]["columns"][1]["example_row"], "row 2");
    let log = dir.path().join("piped.jsonl");
    let fixed = run_with_stdin(
        &[
            "fix",
            "-q",
            "--keep-charset",
            "--audit",
            path_str(&log),
            "-",
        ],
        dump.as_bytes(),
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", stderr(&fixed));
    assert_eq!(
        cells(&read_log(&log)),
        [
            cell("public.notes", "body", json!(2)),
            cell("public.pairs", "c", json!(1)),
            cell("public.loose", "t", json!(2)),
        ]
    );
}

/// A dump that declares latin1 everywhere `--convert-charset` looks.
fn latin1_dump(value: &str) -> String {
    format!(
        "{HEADER}\
         /*!40101 SET NAMES latin1 */;\n\
         CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET latin1 \
         COLLATE latin1_swedish_ci */;\n\
         USE `shop`;\n\
         CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `name` varchar(100) CHARACTER SET latin1 \
         COLLATE latin1_bin DEFAULT NULL,\n  `data` blob,\n  PRIMARY KEY (`id`)\n) \
         ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_german2_ci;\n\
         INSERT INTO `t` VALUES (1,'{value}','{LOOKS_GARBLED}');\n"
    )
}

#[test]
fn convert_charset_rewrites_are_logged_and_undone() {
    let dump = latin1_dump(&format!("x {LOOKS_GARBLED} y"));
    let convert = ["--convert-charset", "utf8mb4"];
    let (fixed, log) = fix_both_ways(dump.as_bytes(), &convert, "full");
    let records = parse(&log);
    check_offsets(dump.as_bytes(), &records);
    let fixed = String::from_utf8(fixed).expect("UTF-8");
    assert!(
        fixed.contains("/*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */"),
        "{fixed}"
    );
    assert!(fixed.contains("SET NAMES utf8mb4"), "{fixed}");
    assert!(!fixed.contains("latin1"), "{fixed}");
    let rewrites: Vec<(&str, &str)> = of_type(&records, "change")
        .into_iter()
        .filter(|change| change["kind"] == "charset")
        .map(|change| {
            assert!(change.get("reading").is_none() && change.get("table").is_none());
            let text = |name: &str| change[name].as_str().expect("text");
            (text("original"), text("replacement"))
        })
        .collect();
    assert_eq!(
        rewrites,
        [
            ("latin1", "utf8mb4"),
            ("latin1", "utf8mb4"),
            ("latin1_swedish_ci", "utf8mb4_general_ci"),
            ("latin1", "utf8mb4"),
            ("latin1_bin", "utf8mb4_bin"),
            ("latin1", "utf8mb4"),
            ("latin1_german2_ci", "utf8mb4_german2_ci"),
        ]
    );
    let file = of_type(&records, "file")[0];
    assert_eq!(file["change_records"], 8);
    assert_eq!(file["double_encoded"], 1);
    // The rewrites lengthen the text, the repairs shorten it: undo takes both back.
    let records = fix_and_undo(dump.as_bytes(), &convert);
    assert_eq!(of_type(&records, "change").len(), 8);
    fix_and_undo(dump.as_bytes(), &["--keep-charset"]);
}

#[test]
fn a_dump_whose_only_change_is_its_charset_is_rewritten_and_undone() {
    let dump = latin1_dump("café");
    let records = fix_and_undo(dump.as_bytes(), &["--convert-charset", "utf8mb4"]);
    let file = of_type(&records, "file")[0];
    assert_eq!(file["rewritten"], true);
    assert_eq!(file["double_encoded"], 0);
    assert_eq!(file["change_records"], 7);
    // Without --convert-charset there is nothing to change, and nothing is rewritten.
    let records = fix_and_undo(dump.as_bytes(), &["--keep-charset"]);
    assert_eq!(of_type(&records, "file")[0]["rewritten"], false);
}

#[test]
fn the_sample_dump_is_undone_exactly() {
    let sample = fs::read(corpus("dump-sample.sql")).expect("the sample");
    fix_and_undo(&sample, &["--keep-charset"]);
    // The sample declares its tables latin1, so --convert-charset rewrites them too.
    let records = fix_and_undo(&sample, &["--convert-charset", "utf8mb4"]);
    let kinds = of_type(&records, "change");
    assert!(kinds.iter().any(|change| change["kind"] == "charset"));
}

#[test]
fn the_summary_level_audits_a_dump_without_change_records() {
    let dump = latin1_dump(&format!("{LOOKS_GARBLED} {LOOKS_GARBLED}"));
    let convert = ["--convert-charset", "utf8mb4"];
    let (_, log) = fix_both_ways(dump.as_bytes(), &convert, "summary");
    let records = parse(&log);
    assert_eq!(records[0]["level"], "summary");
    assert!(of_type(&records, "change").is_empty());
    let sequences = of_type(&records, "sequence");
    assert_eq!(sequences.len(), 1);
    assert_eq!(sequences[0]["original"], "Ã©");
    assert_eq!(sequences[0]["count"], 2);
    let file = of_type(&records, "file")[0];
    assert_eq!(
        (
            file["double_encoded"].clone(),
            file["change_records"].clone()
        ),
        (json!(2), json!(0))
    );
    // A summary cannot be undone, and undo says so.
    let (dir, path) = dump_file("dump.sql", dump.as_bytes());
    let log = dir.path().join("summary.jsonl");
    let fixed = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        path_str(&path),
        "--audit",
        path_str(&log),
        "--audit-level",
        "summary",
    ]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stderr(&fixed));
    let undone = run(&[
        "undo",
        "--root",
        path_str(log.parent().expect("the log's directory")),
        path_str(&log),
    ]);
    assert_eq!(undone.status.code(), Some(2));
    assert!(stderr(&undone).contains("summary"), "{}", stderr(&undone));
}

/// One INSERT on one line of about 9 MiB, longer than a block (8 MiB): a row is cut by the end
/// of the first buffer, most likely in its padding: after its key and before its garbled text
/// when the key comes first, after its garbled text and before its key otherwise.
fn long_line(key_first: bool) -> String {
    let padding = "x".repeat(2000);
    let rows: Vec<String> = (1..=4700)
        .map(|id| match key_first {
            true => format!("({id},'{padding}Ã©')"),
            false => format!("('Ã©{padding}',{id})"),
        })
        .collect();
    let columns = match key_first {
        true => "`id` int NOT NULL, `note` text",
        false => "`note` text, `id` int NOT NULL",
    };
    format!(
        "{HEADER}CREATE TABLE `t` ({columns}, PRIMARY KEY (`id`));\nINSERT INTO `t` VALUES {};\n",
        rows.join(",")
    )
}

#[test]
fn rows_cut_by_the_end_of_a_buffer_are_still_named() {
    for key_first in [true, false] {
        let dump = long_line(key_first);
        let (_, log) = fix_both_ways(dump.as_bytes(), &["--keep-charset"], "full");
        let records = parse(&log);
        let rows: Vec<Value> = cells(&records).into_iter().map(|(_, _, row)| row).collect();
        assert_eq!(rows.len(), 4700);
        for (n, row) in (1..).zip(&rows) {
            // The row's key; or, when the key lies after the value beyond the end of the
            // buffer, the row's number, which here is its key too.
            let named = *row == json!({"id": n.to_string()}) || (!key_first && *row == json!(n));
            assert!(named, "row {n}: {row}");
        }
    }
}

/// Pieces of text values: clean text, double- and triple-encoded text, look-alikes, escapes.
const PIECES: &[&str] = &[
    "café",
    "CafÃ©",
    "ÃƒÂ©tÃƒÂ©",
    "donâ€™t",
    "CAFÉ®",
    "Ð¿Ñ€Ð¸",
    "O\\'Brien",
    "a\\\\b\\n",
    "plain",
    " ",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Varchar,
    Text,
    Blob,
}

impl Kind {
    fn declared(self) -> &'static str {
        match self {
            Kind::Int => "int NOT NULL",
            Kind::Varchar => "varchar(200) CHARACTER SET latin1 COLLATE latin1_swedish_ci",
            Kind::Text => "mediumtext",
            Kind::Blob => "blob",
        }
    }

    fn is_text(self) -> bool {
        matches!(self, Kind::Varchar | Kind::Text)
    }

    fn value(self) -> BoxedStrategy<String> {
        let pieces = || prop::collection::vec(prop::sample::select(PIECES), 0..4);
        let quoted = pieces().prop_map(|parts| format!("'{}'", parts.concat()));
        match self {
            Kind::Int => (0u32..100).prop_map(|n| n.to_string()).boxed(),
            Kind::Varchar | Kind::Text => {
                prop_oneof![4 => quoted, 1 => Just("NULL".into())].boxed()
            }
            Kind::Blob => prop_oneof![
                quoted,
                pieces().prop_map(|parts| format!("_binary '{}'", parts.concat())),
                Just("0xC383C2A9".to_owned()),
                Just("NULL".to_owned()),
            ]
            .boxed(),
        }
    }
}

/// A table: its column kinds, which columns form its key (none, or some), and its rows.
#[derive(Clone, Debug)]
struct Table {
    kinds: Vec<Kind>,
    key: Vec<usize>,
    rows: Vec<Vec<String>>,
}

fn table() -> impl Strategy<Value = Table> {
    let kind = prop::sample::select(vec![Kind::Int, Kind::Varchar, Kind::Text, Kind::Blob]);
    (prop::collection::vec(kind, 1..5), any::<u8>()).prop_flat_map(|(kinds, key_choice)| {
        let keyable: Vec<usize> = (0..kinds.len())
            .filter(|&c| matches!(kinds[c], Kind::Int | Kind::Varchar))
            .collect();
        let key = match key_choice % 3 {
            0 => Vec::new(),
            1 => keyable.iter().copied().take(1).collect(),
            _ => keyable.iter().rev().copied().collect(),
        };
        let row: Vec<BoxedStrategy<String>> = kinds.iter().map(|k| k.value()).collect();
        let rows = prop::collection::vec(row, 0..5);
        (Just(kinds), Just(key), rows).prop_map(|(kinds, key, rows)| Table { kinds, key, rows })
    })
}

/// The dump of `tables`, declared latin1 (or not) throughout.
fn dump_of(tables: &[Table], latin1: bool) -> String {
    let charset = if latin1 { "latin1" } else { "utf8mb4" };
    let mut dump = format!(
        "{HEADER}/*!40101 SET NAMES {charset} */;\n\
         CREATE DATABASE `db` /*!40100 DEFAULT CHARACTER SET {charset} */;\nUSE `db`;\n"
    );
    for (t, table) in tables.iter().enumerate() {
        let mut items: Vec<String> = (table.kinds.iter().enumerate())
            .map(|(c, kind)| format!("  `c{c}` {}", kind.declared()))
            .collect();
        if !table.key.is_empty() {
            let key: Vec<String> = table.key.iter().map(|c| format!("`c{c}`")).collect();
            items.push(format!("  PRIMARY KEY ({})", key.join(",")));
        }
        dump += &format!(
            "CREATE TABLE `t{t}` (\n{}\n) ENGINE=InnoDB DEFAULT CHARSET={charset} COMMENT='tÃ¢ble';\n",
            items.join(",\n")
        );
        if !table.rows.is_empty() {
            let rows: Vec<String> = table
                .rows
                .iter()
                .map(|row| format!("({})", row.join(",")))
                .collect();
            dump += &format!("INSERT INTO `t{t}` VALUES {};\n", rows.join(","));
        }
    }
    dump
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_audited_fix_of_any_dump_is_undone_exactly(
        tables in prop::collection::vec(table(), 1..4),
        latin1 in any::<bool>(),
        convert in any::<bool>(),
    ) {
        let dump = dump_of(&tables, latin1);
        let args: &[&str] = if convert { &["--convert-charset", "utf8mb4"] } else { &["--keep-charset"] };
        let (_, log) = fix_both_ways(dump.as_bytes(), args, "full");
        let records = parse(&log);
        check_offsets(dump.as_bytes(), &records);
        // Every repair in a table lies in a text column, never in a blob or a number.
        for (table, column, _) in cells(&records) {
            let Some(table) = table.as_str() else { continue };
            let t: usize = table.trim_start_matches("db.t").parse().expect("a table number");
            let c: usize = column.as_str().and_then(|c| c.strip_prefix('c'))
                .and_then(|c| c.parse().ok()).expect("a column number");
            prop_assert!(tables[t].kinds[c].is_text(), "{table}.c{c}");
        }
        fix_and_undo(dump.as_bytes(), args);
    }
}
