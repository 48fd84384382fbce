//! Runs the built `undouble` binary on SQL dumps in dump-aware mode: the sample dump, blobs
//! whose bytes look double-encoded, the per-column JSON of `scan`, `--convert-charset`,
//! PostgreSQL `COPY` data, and dumps the lexer does not understand.

mod binary;

use binary::*;

use std::path::PathBuf;

use serde_json::Value;

/// A file in a fresh temporary directory (kept alive by the returned guard).
fn temp_file(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("written");
    (dir, path)
}

/// `cafÃ©` garbled once more by a latin1 connection: what a blob may hold by chance.
const LOOKS_GARBLED: &str = "cafÃ©";

/// A dump of a latin1 table: the tests that fix one pass `--keep-charset` (or
/// `--convert-charset utf8mb4`), without which a repair into it is refused (tests/dump_reload.rs),
/// the charset being no part of what they check.
fn mysql_dump(rows: &str) -> String {
    format!(
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
         /*!40101 SET NAMES latin1 */;\n\
         CREATE TABLE `t` (\n\
         \x20 `id` int NOT NULL,\n\
         \x20 `name` varchar(100) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,\n\
         \x20 `data` blob,\n\
         \x20 `raw` varbinary(100) DEFAULT NULL,\n\
         \x20 PRIMARY KEY (`id`)\n\
         ) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n\
         INSERT INTO `t` VALUES {rows};\n"
    )
}

#[test]
fn the_sample_dump_is_repaired_exactly_in_dump_mode() {
    let expected = std::fs::read(corpus("dump-sample.expected.sql")).expect("expected file");
    let dump = corpus("dump-sample.sql");
    let dir = tempfile::tempdir().expect("a temporary directory");
    for format in ["auto", "sql"] {
        let out = dir.path().join(format!("{format}.sql"));
        let output = run(&[
            "fix",
            "--convert-charset",
            "utf8mb4",
            "--format",
            format,
            path_str(&dump),
            "-o",
            path_str(&out),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(std::fs::read(&out).expect("output") == expected, "{format}");
    }
    // Standard input is recognised as a dump from its header too.
    let input = std::fs::read(&dump).expect("sample");
    let output = run_with_stdin(&["fix", "-q", "--convert-charset", "utf8mb4"], &input);
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout == expected);
}

#[test]
fn blob_bytes_that_look_double_encoded_stay_byte_identical() {
    let rows = format!(
        "(1,'{LOOKS_GARBLED}','{LOOKS_GARBLED}\\'\\0\\n',_binary '{LOOKS_GARBLED}'),\
         (2,NULL,'{LOOKS_GARBLED}',0x{hex})",
        hex = "C383C2A9"
    );
    let dump = mysql_dump(&rows);
    let (_dir, path) = temp_file("blob.sql", dump.as_bytes());
    let output = run(&["fix", "-q", "--keep-charset", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = dump.replacen(&format!("(1,'{LOOKS_GARBLED}'"), "(1,'café'", 1);
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    // Read as plain text, the blobs would have been "repaired" too.
    let output = run(&["fix", "-q", "--format", "text", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains(LOOKS_GARBLED), "{text}");
}

/// The dump of `name` values (and of nothing in the other columns), repaired with
/// `--keep-charset`: what comes back of each value.
fn repaired_names(names: &[&str]) -> Vec<String> {
    let rows: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(id, name)| format!("({id},'{name}',NULL,NULL)"))
        .collect();
    let dump = mysql_dump(&rows.join(","));
    let (_dir, path) = temp_file("names.sql", dump.as_bytes());
    let output = run(&["fix", "-q", "--keep-charset", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let fixed = String::from_utf8(output.stdout).expect("UTF-8");
    (0..names.len())
        .map(|id| {
            let start =
                fixed.find(&format!("({id},'")).expect("the row") + format!("({id},'").len();
            let end = start + fixed[start..].find("',NULL").expect("its end");
            fixed[start..end].to_string()
        })
        .collect()
}

#[test]
fn a_column_of_garbled_values_vouches_for_its_lone_letters() {
    // Alone, a garbled lone letter looks like two Latin-1 characters a value could hold: the
    // rule leaves it. Among values of its column certainly garbled, it is repaired.
    let garbled = ["ÐŸÑ€Ð¸Ð²ÐµÑ‚", "cafÃ©", "Ã‰tÃ©", "Ã¼ber", "naÃ¯ve"];
    let lone = ["Ð´", "å¼\u{a0}", "HÅŒLANI", "Ã’", "usenneftaÉ£", "DENTUÆŠI"];
    let mut names: Vec<&str> = garbled.to_vec();
    names.extend(lone);
    // Clean look-alikes in the same column stay: a letter glued to letters of another script,
    // a small letter continuing capitals, a rare letter continuing capitals, a value with
    // other non-ASCII text.
    let clean = ["Úžas", "LANÇ\u{ad}ADEIRA", "BANGLADÉŠAN", "»Ä«", "Ð´ é"];
    names.extend(clean);
    let fixed = repaired_names(&names);
    assert_eq!(
        &fixed[..11],
        [
            "Привет",
            "café",
            "Été",
            "über",
            "naïve",
            "д",
            "张",
            "HŌLANI",
            "Ò",
            "usenneftaɣ",
            "DENTUƊI",
        ]
    );
    assert_eq!(&fixed[11..], clean);
    // A column with fewer garbled values lends nothing.
    let few = repaired_names(&["cafÃ©", "Ã‰tÃ©", "Ð´"]);
    assert_eq!(few, ["café", "Été", "Ð´"]);
}

#[test]
fn scan_reports_every_table_and_column_in_json() {
    let dump = corpus("dump-sample.sql");
    let output = run(&["scan", "--json", path_str(&dump)]);
    assert_eq!(output.status.code(), Some(1));
    let records: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    let file = &records[0];
    assert_eq!(file["type"], "file");
    assert_eq!(file["double_encoded"], 3566);
    let report = &file["dump"];
    assert_eq!(report["dialect"], "mysql");
    assert_eq!(report["binary_runs"], 0);
    let tables = report["tables"].as_array().expect("tables");
    let names: Vec<&str> = tables.iter().filter_map(|t| t["table"].as_str()).collect();
    assert_eq!(
        names,
        [
            "countries",
            "calendar_labels",
            "ui_messages",
            "products",
            "emoji"
        ]
    );
    let countries = &tables[0];
    assert_eq!(countries["rows"], 170);
    assert_eq!(countries["primary_key"], serde_json::json!(["id"]));
    let columns = countries["columns"].as_array().expect("columns");
    assert_eq!(columns.len(), 5);
    let id = &columns[0];
    assert_eq!(id["column"], "id");
    assert_eq!(id["kind"], "other");
    assert_eq!(id["cells"], 170);
    assert_eq!(id["null_cells"], 0);
    assert_eq!(id["double_encoded_cells"], 0);
    let name = &columns[3];
    assert_eq!(name["column"], "name");
    assert_eq!(name["type"], "varchar(255)");
    assert_eq!(name["kind"], "text");
    assert_eq!(name["cells"], 170);
    assert!(name["double_encoded_cells"].as_u64() > Some(0));
    assert!(name["double_encoded"].as_u64() >= name["double_encoded_cells"].as_u64());
    assert!(name["by_reading"]["either"].as_u64() > Some(0));
    assert!(name["by_layers"]["1"].as_u64() > Some(0));
    // The first damaged row of the sample is country 6.
    assert_eq!(name["example_row"], "id=6");
    // Every repaired character lies in some column.
    let per_column: u64 = tables
        .iter()
        .flat_map(|t| t["columns"].as_array().into_iter().flatten())
        .filter_map(|c| c["double_encoded"].as_u64())
        .sum();
    assert_eq!(per_column, 3566);
    // The text report names the same columns.
    let output = run(&["scan", path_str(&dump)]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("table countries: 170 rows"), "{text}");
    assert!(text.contains("e.g. id=6"), "{text}");
}

#[test]
fn scan_counts_nulls_and_keeps_blob_runs_out_of_the_look_alikes() {
    // Row 1: a repair in `name`, and runs in both binary columns; row 2: a look-alike the
    // rule leaves alone in `name`, a run in `data`, `NULL`s.
    let rows = format!(
        "(1,'{LOOKS_GARBLED}','{LOOKS_GARBLED}',_binary '{LOOKS_GARBLED}'),\
         (2,'MÃ¼NCHEN','{LOOKS_GARBLED}',NULL),(3,NULL,NULL,NULL)"
    );
    let (_dir, path) = temp_file("nulls.sql", mysql_dump(&rows).as_bytes());
    let output = run(&["scan", "--json", path_str(&path)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let file = json_lines(&output).swap_remove(0);
    assert_eq!(file["double_encoded"], 1);
    assert_eq!(file["left_alone"], 1);
    assert_eq!(file["top_left_alone"][0]["mojibake"], "Ã¼");
    let report = &file["dump"];
    assert_eq!(report["binary_runs"], 3);
    let counts: Vec<(&Value, &Value, &Value)> = report["tables"][0]["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| (&c["cells"], &c["null_cells"], &c["left_alone"]))
        .collect();
    let n = |n: u64| Value::from(n);
    assert_eq!(
        counts,
        [
            (&n(3), &n(0), &n(0)),
            (&n(3), &n(1), &n(1)),
            (&n(3), &n(1), &n(2)),
            (&n(3), &n(2), &n(1)),
        ]
    );
    // The headline's look-alikes are the text's; the blobs' runs have a line of their own.
    let output = run(&["scan", path_str(&path)]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(" 1 look-alike left alone,"), "{text}");
    assert!(
        text.contains("\n  3 runs of double-encoded shape in binary values: kept as they are"),
        "{text}"
    );
    assert!(
        text.contains("    name (varchar(100), text): 3 cells (1 NULL), 1 with double-encoded"),
        "{text}"
    );
    assert!(
        text.contains(
            "    raw (varbinary(100), binary): 3 cells (2 NULL), 1 run of double-encoded shape"
        ),
        "{text}"
    );
    assert!(text.contains("    id (int, other): 3 cells\n"), "{text}");
    // `fix` tells the same.
    let output = run(&["fix", "--keep-charset", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0));
    let summary = stderr(&output);
    assert!(summary.contains(" 1 look-alike left alone,"), "{summary}");
    assert!(
        summary.contains("  3 runs of double-encoded shape"),
        "{summary}"
    );
}

#[test]
fn convert_charset_rewrites_the_latin1_declarations() {
    let dump = mysql_dump(&format!("(1,'{LOOKS_GARBLED}','x',NULL)"));
    let (_dir, path) = temp_file("convert.sql", dump.as_bytes());
    let output = run(&["fix", "-q", "--convert-charset", "utf8mb4", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = dump
        .replace("SET NAMES latin1", "SET NAMES utf8mb4")
        .replace(
            "CHARACTER SET latin1 COLLATE latin1_bin",
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        )
        .replace("DEFAULT CHARSET=latin1", "DEFAULT CHARSET=utf8mb4")
        .replace(LOOKS_GARBLED, "café");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    // A dump with nothing to repair still changes: its declarations do.
    let clean = mysql_dump("(1,'café','x',NULL)");
    let (_dir, path) = temp_file("clean.sql", clean.as_bytes());
    let output = run(&[
        "fix",
        "-q",
        "--in-place",
        "--convert-charset",
        "utf8mb4",
        path_str(&path),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rewritten = std::fs::read_to_string(&path).expect("rewritten");
    assert!(rewritten.contains("DEFAULT CHARSET=utf8mb4"), "{rewritten}");
    // Plain text has no declarations to convert.
    let (_dir, path) = temp_file("plain.txt", b"caf\xc3\x83\xc2\xa9\n");
    let output = run(&["fix", "--convert-charset", "utf8mb4", path_str(&path)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("needs a SQL dump"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_dump_the_lexer_does_not_understand_is_an_error_naming_the_line() {
    let dump = mysql_dump("(1,'a','b')");
    // The row is refused at its `)`.
    let offset = dump.find("(1,'a','b')").expect("the row is in the dump") + 10;
    let (_dir, path) = temp_file("short.sql", dump.as_bytes());
    let out = path.with_extension("out");
    let output = run(&["fix", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains(&format!(
            "short.sql: line 10 (byte {offset}): a row of 3 values for 4 columns"
        )),
        "{message}"
    );
    assert!(!out.exists(), "no output is left behind");
    let (_dir, path) = temp_file(
        "unknown.sql",
        b"-- MySQL dump 10.13\nINSERT INTO `nowhere` VALUES (1);\n",
    );
    let output = run(&["scan", path_str(&path)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("line 2 (byte 20): data for table `nowhere`"));
}

#[test]
fn an_audited_dump_named_as_text_is_repaired_as_plain_text() {
    // `--format text` asks for the plain repair by name: blobs included, and no table, column
    // or row in the log (tests/dump_audit.rs has the dump-aware audited fix).
    let rows = format!("(1,'{LOOKS_GARBLED}','{LOOKS_GARBLED}',NULL)");
    let (dir, path) = temp_file("text.sql", mysql_dump(&rows).as_bytes());
    let out = dir.path().join("out.sql");
    let log = dir.path().join("audit-text.jsonl");
    let output = run(&[
        "fix",
        "--format",
        "text",
        path_str(&path),
        "-o",
        path_str(&out),
        "--audit",
        path_str(&log),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let repaired = std::fs::read_to_string(&out).expect("output");
    assert!(!repaired.contains(LOOKS_GARBLED), "{repaired}");
    let log = std::fs::read_to_string(&log).expect("log");
    let changes: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .filter(|record: &Value| record["type"] == "change")
        .collect();
    assert_eq!(changes.len(), 2, "{log}");
    assert!(changes.iter().all(|change| change.get("table").is_none()));
}

#[test]
fn postgresql_copy_data() {
    let dump = format!(
        "--\n-- PostgreSQL database dump\n--\n\n\
         SET client_encoding = 'UTF8';\n\
         CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text,\n    data bytea\n);\n\
         COPY public.t (id, name, data) FROM stdin;\n\
         1\t{LOOKS_GARBLED}\\tx\t\\\\x43c3a9\n\
         2\t\\N\t\\N\n\
         \\.\n"
    );
    let (_dir, path) = temp_file("pg.sql", dump.as_bytes());
    let output = run(&["fix", "-q", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = dump.replace(LOOKS_GARBLED, "café");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    let output = run(&["scan", "--json", path_str(&path)]);
    let file: Value = serde_json::from_str(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .next()
            .expect("a record"),
    )
    .expect("JSON");
    assert_eq!(file["dump"]["dialect"], "postgresql");
    let name = &file["dump"]["tables"][0]["columns"][1];
    assert_eq!(name["cells"], 2);
    assert_eq!(name["double_encoded_cells"], 1);
    assert_eq!(name["example_row"], "row 1");
}

/// A `mariadb-dump` without `--hex-blob` writes a blob's bytes as they are, escaping only NUL,
/// quotes, backslash, CR, LF and ^Z: binary blobs make the file invalid UTF-8, but its text is
/// still UTF-8. Such a dump is repaired (never skipped as "not UTF-8"), whichever destination,
/// every blob byte kept, and `scan` calls it valid UTF-8: blob bytes are no characters.
#[test]
fn a_dump_with_binary_blobs_is_utf8_where_it_holds_text() {
    let escape = |bytes: &[u8]| -> Vec<u8> {
        let mut out = Vec::new();
        for &byte in bytes {
            match byte {
                0 => out.extend(b"\\0"),
                b'\n' => out.extend(b"\\n"),
                b'\r' => out.extend(b"\\r"),
                0x1A => out.extend(b"\\Z"),
                b'\\' | b'\'' | b'"' => out.extend([b'\\', byte]),
                _ => out.push(byte),
            }
        }
        out
    };
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut random_bytes = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    };
    let (mut original, mut expected) = (Vec::new(), Vec::new());
    for id in 1..=200 {
        let blob = escape(&random_bytes(300));
        for (out, name) in [(&mut original, LOOKS_GARBLED), (&mut expected, "café")] {
            out.extend(
                format!("{}({id},'{name} {id}','", if id == 1 { "" } else { ",\n" }).as_bytes(),
            );
            out.extend(&blob);
            out.extend(b"',NULL)");
        }
    }
    let dump = |rows: &[u8]| -> Vec<u8> {
        let text = mysql_dump("ROWS").replace("SET NAMES latin1", "SET NAMES utf8mb4");
        let (head, tail) = text.split_once("ROWS").expect("the placeholder");
        [head.as_bytes(), rows, tail.as_bytes()].concat()
    };
    let (original, expected) = (dump(&original), dump(&expected));
    assert!(
        std::str::from_utf8(&original).is_err(),
        "the blobs are binary"
    );
    let (dir, path) = temp_file("blobs.sql", &original);

    let out = dir.path().join("out.sql");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&path),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        std::fs::read(&out).expect("written") == expected,
        "to a file"
    );
    let output = run(&["fix", "-q", "--keep-charset", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout == expected, "to standard output");

    let output = run(&["scan", "--json", path_str(&path)]);
    let report = &json_lines(&output)[0];
    assert_eq!(report["valid_utf8"], true, "{report}");
    assert_eq!(report["fine_non_ascii"], 0, "{report}");
    assert_eq!(report["bytes"], original.len(), "{report}");
    let diagnostics = report["encoding"]["diagnostics"].to_string();
    assert!(!diagnostics.contains("not UTF-8"), "{diagnostics}");

    let output = run(&["fix", "-q", "--keep-charset", "--in-place", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        std::fs::read(&path).expect("replaced") == expected,
        "in place"
    );
}

/// A dump whose text is in Windows-1252 (made with `--default-character-set=latin1`) is legacy
/// by its text: skipped with its encoding named, or converted with `--transcode`.
#[test]
fn a_dump_whose_text_is_windows_1252_is_legacy() {
    let row =
        |id: u32| format!("({id},'Le café coûte 3 € l’été, déjà vu, naïve façade',NULL,NULL)");
    let rows: Vec<String> = (1..=300).map(row).collect();
    let text = mysql_dump(&rows.join(","));
    let (original, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&text);
    assert!(!unmappable);
    let (dir, path) = temp_file("latin1.sql", &original);
    let out = dir.path().join("out.sql");

    let output = run(&["fix", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("latin1.sql: skipped: not UTF-8 (looks like windows-1252"),
        "{}",
        stderr(&output)
    );
    assert!(
        std::fs::read(&out).expect("passed on") == *original,
        "a skipped dump is passed on unchanged"
    );
    std::fs::remove_file(&out).expect("removed");

    let output = run(&["fix", "--transcode", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read(&out).expect("converted"), text.as_bytes());

    // With a value in a blob column, converting the whole file would convert the blob's
    // bytes too: refused, nothing written.
    std::fs::remove_file(&out).expect("removed");
    let with_blob = text.replacen("NULL,NULL)", "'\x01\x02',NULL)", 1);
    assert_ne!(with_blob, text);
    let (original, _, _) = encoding_rs::WINDOWS_1252.encode(&with_blob);
    std::fs::write(&path, &original).expect("written");
    let output = run(&["fix", "--transcode", path_str(&path), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("binary columns hold values (t.data)"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
}

/// `mariadb-dump --default-character-set=utf8mb4 --routines --databases shop` (MariaDB 10.11)
/// of a database now utf8mb4, whose table is latin1 and whose procedure was created under
/// latin1 through a latin1 connection: around the procedure, the dump sets the database's
/// default back to latin1 and the connection to latin1, though it writes the body as UTF-8
/// (loaded as it is, the body comes back double-encoded: `cafÃ©`).
const MARIADB_ROUTINES: &str = r#"/*M!999999\- enable the sandbox mode */ 
-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version	10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;

--
-- Current Database: `shop`
--

CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */;

USE `shop`;

--
-- Table structure for table `t`
--

DROP TABLE IF EXISTS `t`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `name` varchar(50) DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

LOCK TABLES `t` WRITE;
/*!40000 ALTER TABLE `t` DISABLE KEYS */;
INSERT INTO `t` VALUES
(1,'cafÃ©');
/*!40000 ALTER TABLE `t` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Dumping routines for database 'shop'
--
/*!50003 SET @saved_sql_mode       = @@sql_mode */ ;
/*!50003 SET sql_mode              = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION' */ ;
/*!50003 DROP PROCEDURE IF EXISTS `hello` */;
ALTER DATABASE `shop` CHARACTER SET latin1 COLLATE latin1_swedish_ci ;
/*!50003 SET @saved_cs_client      = @@character_set_client */ ;
/*!50003 SET @saved_cs_results     = @@character_set_results */ ;
/*!50003 SET @saved_col_connection = @@collation_connection */ ;
/*!50003 SET character_set_client  = latin1 */ ;
/*!50003 SET character_set_results = latin1 */ ;
/*!50003 SET collation_connection  = latin1_swedish_ci */ ;
DELIMITER ;;
CREATE DEFINER=`root`@`localhost` PROCEDURE `hello`()
BEGIN SELECT 'café'; END
;;
DELIMITER ;
/*!50003 SET sql_mode              = @saved_sql_mode */ ;
/*!50003 SET character_set_client  = @saved_cs_client */ ;
/*!50003 SET character_set_results = @saved_cs_results */ ;
/*!50003 SET collation_connection  = @saved_col_connection */ ;
ALTER DATABASE `shop` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci ;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;

-- Dump completed on 2026-12-01  0:23:01
"#;

#[test]
fn convert_charset_rewrites_the_latin1_a_routine_is_created_under() {
    let (dir, path) = temp_file("routines.sql", MARIADB_ROUTINES.as_bytes());
    let log = dir.path().join("audit.jsonl");
    let output = run(&[
        "fix",
        "-q",
        "--convert-charset",
        "utf8mb4",
        "--in-place",
        "--audit",
        path_str(&log),
        path_str(&path),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = MARIADB_ROUTINES
        .replace(
            "CHARSET=latin1 COLLATE=latin1_swedish_ci",
            "CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
        )
        .replace("'cafÃ©'", "'café'")
        .replace(
            "ALTER DATABASE `shop` CHARACTER SET latin1 COLLATE latin1_swedish_ci",
            "ALTER DATABASE `shop` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
        )
        .replace(
            "SET character_set_client  = latin1",
            "SET character_set_client  = utf8mb4",
        )
        .replace(
            "SET character_set_results = latin1",
            "SET character_set_results = utf8mb4",
        )
        .replace(
            "SET collation_connection  = latin1_swedish_ci",
            "SET collation_connection  = utf8mb4_general_ci",
        );
    assert_eq!(std::fs::read_to_string(&path).expect("fixed"), expected);
    // Every rewrite is in the log, and undo takes them back with the repair.
    let rewrites = std::fs::read_to_string(&log)
        .expect("the log")
        .lines()
        .filter(|line| line.contains(r#""kind":"charset""#))
        .count();
    assert_eq!(rewrites, 7);
    let undone = run(&[
        "undo",
        "--root",
        path_str(log.parent().expect("the log's directory")),
        path_str(&log),
    ]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert_eq!(
        std::fs::read_to_string(&path).expect("restored"),
        MARIADB_ROUTINES
    );
}
