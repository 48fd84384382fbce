//! Runs the built `undouble` binary on dumps that hold only data, with `--schema` naming the
//! dump of their schema: MariaDB 10.11's `mariadb-dump --no-create-info` and `--no-data` of a
//! latin1 database filled through a latin1 connection (text double-encoded, a blob whose bytes
//! look double-encoded, `NULL`s, a composite key), and PostgreSQL 15's `pg_dump --data-only`
//! (COPY) and `--schema-only`, as those tools wrote them. A data-only dump is refused without
//! its schema, with a hint; with it, text is repaired and blobs are left byte-identical, the
//! audit log names rows by the schema's keys (PostgreSQL's, by the `ALTER TABLE` that adds them
//! after the tables) and `undo` takes the fix back, the dump's own definitions win, nothing but
//! tables carries over from the schema dump, and `fix
//! --convert-charset` says once that it cannot convert the schema dump's character sets.

mod binary;

use binary::*;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// `mariadb-dump --default-character-set=utf8mb4` writes this on its first line.
const SANDBOX: &str = "/*M!999999\\- enable the sandbox mode */ \n";

/// The head of both MariaDB dumps, after the sandbox line.
const MARIADB_HEAD: &str =
    "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version\t10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
";

/// `mariadb-dump --no-data shop`.
fn mariadb_schema() -> String {
    format!(
        "{SANDBOX}{MARIADB_HEAD}{}",
        r#"/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

--
-- Table structure for table `labels`
--

DROP TABLE IF EXISTS `labels`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `labels` (
  `lang` char(2) NOT NULL,
  `k` varchar(20) NOT NULL,
  `label` text DEFAULT NULL,
  PRIMARY KEY (`lang`,`k`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Table structure for table `products`
--

DROP TABLE IF EXISTS `products`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `products` (
  `id` int(11) NOT NULL,
  `name` varchar(100) DEFAULT NULL COMMENT 'name shown',
  `photo` blob DEFAULT NULL,
  `note` text DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2026-11-30 23:36:51
"#
    )
}

/// The blob of product 3: the bytes `cafÃ© cr#Ã¨me`, stored as such (`X'636166C383...'`),
/// which read as text look double-encoded twice.
const BLOB: &str = "cafÃ© cr#Ã¨me";

/// `mariadb-dump --no-create-info shop`: `Café crème`, `naïve` and `Grüße` were sent through a
/// latin1 connection, and come out double-encoded.
fn mariadb_data() -> String {
    format!(
        "{SANDBOX}{MARIADB_HEAD}{}",
        r#"/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

--
-- Dumping data for table `labels`
--

LOCK TABLES `labels` WRITE;
/*!40000 ALTER TABLE `labels` DISABLE KEYS */;
INSERT INTO `labels` VALUES
('de','greet','GrÃ¼ÃŸe'),
('fr','bye',NULL);
/*!40000 ALTER TABLE `labels` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Dumping data for table `products`
--

LOCK TABLES `products` WRITE;
/*!40000 ALTER TABLE `products` DISABLE KEYS */;
INSERT INTO `products` VALUES
(1,'CafÃ© crÃ¨me',NULL,'naÃ¯ve'),
(2,NULL,NULL,NULL),
(3,'Tea','cafÃ© cr#Ã¨me',NULL);
/*!40000 ALTER TABLE `products` ENABLE KEYS */;
UNLOCK TABLES;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2026-11-30 23:36:51
"#
    )
}

/// What `fix` makes of [`mariadb_data`]: its text repaired, its blob as it was.
fn mariadb_data_repaired() -> String {
    mariadb_data()
        .replace("'GrÃ¼ÃŸe'", "'Grüße'")
        .replace("'CafÃ© crÃ¨me'", "'Café crème'")
        .replace("'naÃ¯ve'", "'naïve'")
}

/// The files of a test, in a temporary directory that lives as long as it.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    fn write(&self, name: &str, content: &str) -> PathBuf {
        let path = self.path(name);
        fs::write(&path, content).expect("written");
        path
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// The `file` record of `scan --json`.
fn scanned(args: &[&str]) -> Value {
    let output = run(args);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        stderr(&output)
    );
    json_lines(&output).swap_remove(0)
}

/// The per-column counts of a `"dump"` report: `(table.column, kind, cells, null_cells,
/// double_encoded_cells, left_alone)`.
fn columns(report: &Value) -> Vec<(String, String, u64, u64, u64, u64)> {
    let count = |column: &Value, name: &str| column[name].as_u64().expect("a count");
    report["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .flat_map(|table| {
            let name = table["table"].as_str().expect("a name").to_owned();
            let columns = table["columns"].as_array().expect("columns").clone();
            columns.into_iter().map(move |c| {
                (
                    format!("{name}.{}", c["column"].as_str().expect("a column")),
                    c["kind"].as_str().expect("a kind").to_owned(),
                    count(&c, "cells"),
                    count(&c, "null_cells"),
                    count(&c, "double_encoded_cells"),
                    count(&c, "left_alone"),
                )
            })
        })
        .collect()
}

fn column(
    name: &str,
    kind: &str,
    [cells, nulls, broken, kept]: [u64; 4],
) -> (String, String, u64, u64, u64, u64) {
    (name.into(), kind.into(), cells, nulls, broken, kept)
}

#[test]
fn a_data_only_dump_without_its_schema_is_refused_with_a_hint() {
    let files = Files::new();
    let data = files.write("data.sql", &mariadb_data());
    let out = files.path("out.sql");
    for args in [
        vec!["scan", path_str(&data)],
        vec![
            "fix",
            "--keep-charset",
            path_str(&data),
            "-o",
            path_str(&out),
        ],
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2));
        let message = stderr(&output);
        assert!(
            message.contains(
                "data.sql: line 24 (byte 910): data for table `labels`, which no CREATE TABLE"
            ),
            "{message}"
        );
        assert!(message.contains("--schema FILE"), "{message}");
        assert!(message.contains("mariadb-dump --no-data"), "{message}");
    }
    assert!(!out.exists(), "no output is left behind");
}

#[test]
fn text_is_repaired_by_the_schema_dumps_tables_and_the_blob_kept_byte_for_byte() {
    let files = Files::new();
    let schema = files.write("schema.sql", &mariadb_schema());
    let data = files.write("data.sql", &mariadb_data());
    let out = files.path("out.sql");
    let output = run(&[
        "fix",
        "--keep-charset",
        "--schema",
        path_str(&schema),
        path_str(&data),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let fixed = fs::read_to_string(&out).expect("the output");
    assert_eq!(fixed, mariadb_data_repaired());
    assert!(fixed.contains(&format!("(3,'Tea','{BLOB}',NULL)")));
    // The per-file summary names the damaged columns, and the schema dump is not changed.
    let summary = stderr(&output);
    assert!(
        summary.contains("table products: 3 rows (as the --schema dump defines it)"),
        "{summary}"
    );
    assert_eq!(
        fs::read_to_string(&schema).expect("schema"),
        mariadb_schema()
    );
    // Standard input is read with the schema dump too.
    let piped = run_with_stdin(
        &["fix", "--keep-charset", "-q", "--schema", path_str(&schema)],
        mariadb_data().as_bytes(),
    );
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(
        String::from_utf8_lossy(&piped.stdout),
        mariadb_data_repaired()
    );
    // What the schema prevents: read as plain text, the blob is "repaired" too.
    let output = run(&["fix", "-q", "--format", "text", path_str(&data)]);
    assert!(!String::from_utf8_lossy(&output.stdout).contains(BLOB));
}

#[test]
fn scan_reports_the_tables_of_the_schema_dump_with_nulls_and_the_blob_runs_apart() {
    let files = Files::new();
    let schema = files.write("schema.sql", &mariadb_schema());
    let data = files.write("data.sql", &mariadb_data());
    let file = scanned(&[
        "scan",
        "--json",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    // Ã¼ ÃŸ, Ã© Ã¨, Ã¯: the blob's two runs are neither repaired nor look-alikes.
    assert_eq!(file["double_encoded"], 5);
    assert_eq!(file["left_alone"], 0);
    let report = &file["dump"];
    assert_eq!(report["binary_runs"], 2);
    assert_eq!(report["charset_edits"], 0);
    let tables: Vec<(&Value, &Value, &Value, &Value)> = report["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            (
                &t["table"],
                &t["rows"],
                &t["primary_key"],
                &t["from_schema_dump"],
            )
        })
        .collect();
    assert_eq!(
        tables,
        [
            (
                &json!("labels"),
                &json!(2),
                &json!(["lang", "k"]),
                &json!(true)
            ),
            (&json!("products"), &json!(3), &json!(["id"]), &json!(true)),
        ]
    );
    assert_eq!(
        columns(report),
        [
            column("labels.lang", "text", [2, 0, 0, 0]),
            column("labels.k", "text", [2, 0, 0, 0]),
            column("labels.label", "text", [2, 1, 1, 0]),
            column("products.id", "other", [3, 0, 0, 0]),
            column("products.name", "text", [3, 1, 1, 0]),
            column("products.photo", "binary", [3, 2, 0, 2]),
            column("products.note", "text", [3, 2, 1, 0]),
        ]
    );
    let text = run(&["scan", "--schema", path_str(&schema), path_str(&data)]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(", 0 look-alikes left alone,"), "{text}");
    assert!(
        text.contains("  2 runs of double-encoded shape in binary values: kept as they are"),
        "{text}"
    );
    assert!(
        text.contains("    photo (blob, binary): 3 cells (2 NULL), 2 runs of double-encoded shape"),
        "{text}"
    );
    assert!(
        text.contains("    id (int(11), other): 3 cells\n"),
        "{text}"
    );
}

/// The `(table, column, row)` of each repair an audit log records.
fn repaired_cells(log: &Path) -> Vec<(Value, Value, Value)> {
    fs::read_to_string(log)
        .expect("the log")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .filter(|record| record["type"] == "change" && record["kind"] == "repair")
        .map(|change| {
            let field = |name: &str| change.get(name).cloned().unwrap_or(Value::Null);
            (field("table"), field("column"), field("row"))
        })
        .collect()
}

#[test]
fn the_audit_names_rows_by_the_schema_dumps_keys_and_undo_restores_the_dump() {
    let files = Files::new();
    let schema = files.write("schema.sql", &mariadb_schema());
    let data = files.write("data.sql", &mariadb_data());
    let log = files.path("audit.jsonl");
    let output = run(&[
        "fix",
        "--keep-charset",
        "-q",
        "--in-place",
        "--schema",
        path_str(&schema),
        "--audit",
        path_str(&log),
        path_str(&data),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        fs::read_to_string(&data).expect("fixed"),
        mariadb_data_repaired()
    );
    let key = |lang: &str, k: &str| json!({"lang": lang, "k": k});
    let id = |id: &str| json!({ "id": id });
    let cell = |table: &str, column: &str, row: Value| (json!(table), json!(column), row);
    assert_eq!(
        repaired_cells(&log),
        [
            cell("labels", "label", key("de", "greet")),
            cell("labels", "label", key("de", "greet")),
            cell("products", "name", id("1")),
            cell("products", "name", id("1")),
            cell("products", "note", id("1")),
        ]
    );
    // The log's count of look-alikes is the scan's: the blob's runs are not among them.
    let records = fs::read_to_string(&log).expect("the log");
    let file: Value = records
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|record| record["type"] == "file")
        .expect("a file record");
    assert_eq!(file["left_alone"], 0);
    let undone = run(&[
        "undo",
        "--root",
        path_str(log.parent().expect("the log's directory")),
        path_str(&log),
    ]);
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert_eq!(fs::read_to_string(&data).expect("restored"), mariadb_data());
}

#[test]
fn the_dumps_own_definitions_win_and_nothing_but_tables_carries_over() {
    let files = Files::new();
    // A schema dump that leaves its client elsewhere: another database, another delimiter.
    let schema = files.write(
        "schema.sql",
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
         /*!40101 SET NAMES latin1 */;\n\
         CREATE TABLE `t` (`id` int NOT NULL, `a` text, `b` text, PRIMARY KEY (`id`));\n\
         CREATE TABLE `u` (`id` int NOT NULL, `a` text, `b` text);\n\
         USE `elsewhere`;\n\
         DELIMITER ;;\n",
    );
    // The data dump defines `u` itself, with a blob: its definition wins.
    let dump = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
                INSERT INTO `t` VALUES (1,'cafÃ©','cafÃ©');\n\
                CREATE TABLE `u` (`id` int NOT NULL, `a` text, `b` blob);\n\
                INSERT INTO `u` VALUES (1,'cafÃ©','cafÃ©');\n";
    let data = files.write("data.sql", dump);
    let output = run(&[
        "fix",
        "--keep-charset",
        "-q",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
                    INSERT INTO `t` VALUES (1,'café','café');\n\
                    CREATE TABLE `u` (`id` int NOT NULL, `a` text, `b` blob);\n\
                    INSERT INTO `u` VALUES (1,'café','cafÃ©');\n";
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    // `u`, defined by the data dump, is reported as its own; `t` as the schema dump's.
    let file = scanned(&[
        "scan",
        "--json",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    let origins: Vec<(&Value, &Value)> = file["dump"]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| (&t["table"], &t["from_schema_dump"]))
        .collect();
    assert_eq!(
        origins,
        [(&json!("t"), &json!(true)), (&json!("u"), &json!(false))]
    );
    // The schema dump's `SET NAMES latin1` is its own: --convert-charset finds none here.
    let output = run(&[
        "fix",
        "-q",
        "--convert-charset",
        "utf8mb4",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}

#[test]
fn convert_charset_tells_once_that_the_schema_dump_keeps_its_latin1() {
    let files = Files::new();
    let schema = files.write("schema.sql", &mariadb_schema());
    let input = files.path("in");
    fs::create_dir(&input).expect("a directory");
    fs::write(input.join("a.sql"), mariadb_data()).expect("written");
    fs::write(input.join("b.sql"), mariadb_data()).expect("written");
    let out = files.path("out");
    let output = run(&[
        "fix",
        "-q",
        "--convert-charset",
        "utf8mb4",
        "--schema",
        path_str(&schema),
        path_str(&input),
        "--output-dir",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let message = stderr(&output);
    assert_eq!(message.matches("note:").count(), 1, "{message}");
    assert!(
        message.contains("--schema dump (") && message.contains("schema.sql)"),
        "{message}"
    );
    assert!(
        message.contains("4 latin1 character sets and collations"),
        "{message}"
    );
    assert!(
        message.contains("undouble fix --convert-charset utf8mb4"),
        "{message}"
    );
    // The data dumps declare utf8mb4 already: they are repaired, and that is all.
    for name in ["a.sql", "b.sql"] {
        let fixed = fs::read_to_string(out.join(name)).expect("fixed");
        assert_eq!(fixed, mariadb_data_repaired());
    }
    // Without --convert-charset, or with a schema dump that declares no latin1, nothing to tell.
    let output = run(&[
        "fix",
        "--keep-charset",
        "--schema",
        path_str(&schema),
        path_str(&input.join("a.sql")),
    ]);
    assert!(!stderr(&output).contains("note:"), "{}", stderr(&output));
    let utf8mb4 = files.write(
        "utf8mb4.sql",
        &mariadb_schema().replace("latin1", "utf8mb4"),
    );
    let output = run(&[
        "fix",
        "--convert-charset",
        "utf8mb4",
        "--schema",
        path_str(&utf8mb4),
        path_str(&input.join("a.sql")),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stderr(&output).contains("note:"), "{}", stderr(&output));
    // The schema dump converted by a fix of its own is what is to be loaded.
    let converted = files.path("schema-utf8mb4.sql");
    let output = run(&[
        "fix",
        "-q",
        "--convert-charset",
        "utf8mb4",
        path_str(&schema),
        "-o",
        path_str(&converted),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let converted = fs::read_to_string(&converted).expect("converted");
    assert!(!converted.contains("latin1"), "{converted}");
}

#[test]
fn dumps_named_differently_or_of_another_kind_are_refused() {
    let files = Files::new();
    // A schema dumped with --databases (`USE shop`), the data without.
    let with_use = mariadb_schema().replace(
        "\n--\n-- Table structure for table `labels`",
        "\nUSE `shop`;\n\n--\n-- Table structure for table `labels`",
    );
    let schema = files.write("schema.sql", &with_use);
    let data = files.write("data.sql", &mariadb_data());
    let output = run(&["scan", "--schema", path_str(&schema), path_str(&data)]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("nor the schema dump defines (it defines `shop.labels`"),
        "{message}"
    );
    assert!(message.contains("--databases"), "{message}");
    // The data dump given as its own schema defines no table.
    let output = run(&["scan", "--schema", path_str(&data), path_str(&data)]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("data.sql: line 24 (byte 910):"),
        "{message}"
    );
    assert!(message.contains("not one of data only"), "{message}");
    let empty = files.write("empty.sql", "-- MySQL dump 10.13\nSET NAMES utf8mb4;\n");
    let output = run(&["scan", "--schema", path_str(&empty), path_str(&data)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("empty.sql: no CREATE TABLE in it"),
        "{}",
        stderr(&output)
    );
    // A PostgreSQL schema for a MariaDB dump.
    let postgresql = files.write("pg.sql", &postgresql_schema());
    let output = run(&["scan", "--schema", path_str(&postgresql), path_str(&data)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("a MySQL/MariaDB dump, and the --schema dump is a PostgreSQL one"),
        "{}",
        stderr(&output)
    );
}

/// The head of both PostgreSQL dumps, after `\restrict`.
const POSTGRESQL_HEAD: &str = "
-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
";

/// `pg_dump -E UTF8 --schema-only` of a LATIN1 database: its key comes after the table, in an
/// `ALTER TABLE`, which is the key that the data dump's rows are named by.
fn postgresql_schema() -> String {
    format!(
        "--\n-- PostgreSQL database dump\n--\n\n\\restrict DBDmiDLMhm7w71dS9\n{POSTGRESQL_HEAD}{}",
        "
SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: e; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.e (
);


ALTER TABLE public.e OWNER TO postgres;

--
-- Name: t; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.t (
    id integer NOT NULL,
    name text,
    data bytea,
    note character varying(20)
);


ALTER TABLE public.t OWNER TO postgres;

--
-- Name: TABLE t; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.t IS 'naÃ¯ve';


--
-- Name: t t_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.t
    ADD CONSTRAINT t_pkey PRIMARY KEY (id);


--
-- PostgreSQL database dump complete
--

\\unrestrict DBDmiDLMhm7w71dS9

"
    )
}

/// `pg_dump -E UTF8 --data-only` of the same database: a client that declared LATIN1 sent
/// `café` and `Grüße` as UTF-8, so each byte became a character (`ß`'s `9F` a C1 control).
fn postgresql_data() -> String {
    format!(
        "--\n-- PostgreSQL database dump\n--\n\n\\restrict PWkR4DeM2kUchJNU\n{POSTGRESQL_HEAD}{}",
        "
--
-- Data for Name: e; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.e  FROM stdin;
\\.


--
-- Data for Name: t; Type: TABLE DATA; Schema: public; Owner: postgres
--

COPY public.t (id, name, data, note) FROM stdin;
1\tcafÃ©\t\\N\t\\N
2\t\\N\t\\\\xc383c2a9\tGrÃ¼Ã\u{9f}e
\\.


--
-- PostgreSQL database dump complete
--

\\unrestrict PWkR4DeM2kUchJNU

"
    )
}

#[test]
fn postgresql_copy_data_only() {
    let files = Files::new();
    let schema = files.write("schema.sql", &postgresql_schema());
    let data = files.write("data.sql", &postgresql_data());
    let output = run(&["fix", "--keep-charset", "-q", path_str(&data)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("line 25 (byte 603): data for table `public.e`"),
        "{}",
        stderr(&output)
    );
    let output = run(&[
        "fix",
        "--keep-charset",
        "-q",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = postgresql_data()
        .replace("cafÃ©", "café")
        .replace("GrÃ¼Ã\u{9f}e", "Grüße");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    let file = scanned(&[
        "scan",
        "--json",
        "--schema",
        path_str(&schema),
        path_str(&data),
    ]);
    let report = &file["dump"];
    assert_eq!(report["dialect"], "postgresql");
    // `public.e` has no rows in this dump: it is not reported.
    assert_eq!(
        columns(report),
        [
            column("public.t.id", "other", [2, 0, 0, 0]),
            column("public.t.name", "text", [2, 1, 1, 0]),
            column("public.t.data", "binary", [2, 1, 0, 0]),
            column("public.t.note", "text", [2, 1, 1, 0]),
        ]
    );
    assert_eq!(report["tables"][0]["primary_key"], json!(["id"]));
    let note = &report["tables"][0]["columns"][3];
    assert_eq!(note["example_row"], "id=2");
    assert_eq!(note["by_reading"], json!({"latin1": 1, "either": 1}));
    // The audit log names the rows by the key the schema dump adds after its tables.
    let log = files.path("audit.jsonl");
    let fixed = files.path("fixed.sql");
    let output = run(&[
        "fix",
        "--keep-charset",
        "-q",
        "--schema",
        path_str(&schema),
        "--audit",
        path_str(&log),
        path_str(&data),
        "-o",
        path_str(&fixed),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let cell = |column: &str, id: &str| (json!("public.t"), json!(column), json!({ "id": id }));
    assert_eq!(
        repaired_cells(&log),
        [cell("name", "1"), cell("note", "2"), cell("note", "2")]
    );
}
