//! The tests of the SQL dump reader: the declarations of each dialect, where they are looked
//! for and what they are taken to mean. They are apart so that the reader's file holds only the
//! reader.

use super::*;
use crate::sql::{MYSQL_CHARSETS, POSTGRESQL_ENCODINGS};

const MYSQLDUMP_HEAD: &str = "\
-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version\t8.0.36

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8 */;
/*!50503 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;

CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET latin1 */;

--
-- Table structure for table `countries`
--

DROP TABLE IF EXISTS `countries`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `countries` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci DEFAULT NULL,
  `note` text COMMENT 'a ; inside, and CHARACTER SET koi8r',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB AUTO_INCREMENT=250 DEFAULT CHARSET=latin1;
/*!40101 SET character_set_client = @saved_cs_client */;

INSERT INTO `countries` VALUES (1,'CREATE TABLE x'),(2,'SET NAMES koi8r');
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `t2` (`a` int) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
";

fn summary(found: &[SqlDeclaration]) -> Vec<(SqlDeclarationKind, u64, &str, Option<&str>)> {
    found
        .iter()
        .map(|d| {
            (
                d.place.kind,
                d.place.line,
                d.label.as_str(),
                d.encoding.as_deref(),
            )
        })
        .collect()
}

#[test]
fn mysqldump_head() {
    use SqlDeclarationKind::*;
    let found = sql_declarations(MYSQLDUMP_HEAD.as_bytes());
    assert_eq!(
        summary(&found),
        [
            (SetNames, 10, "utf8", Some("UTF-8")),
            (SetNames, 11, "utf8mb4", Some("UTF-8")),
            (DatabaseDefault, 14, "latin1", Some("windows-1252")),
            (SetCharacterSetClient, 22, "utf8mb4", Some("UTF-8")),
            (Column, 25, "utf8mb4", Some("UTF-8")),
            (TableDefault, 28, "latin1", Some("windows-1252")),
            (TableDefault, 33, "utf8mb4", Some("UTF-8")),
        ]
    );
    let column = &found[4];
    assert_eq!(column.table.as_deref(), Some("countries"));
    assert_eq!(column.column.as_deref(), Some("name"));
    assert_eq!(column.collation.as_deref(), Some("utf8mb4_0900_ai_ci"));
    assert_eq!(found[2].table.as_deref(), Some("shop"));
    assert_eq!(found[5].table.as_deref(), Some("countries"));
    assert_eq!(found[5].column, None);
    assert_eq!(found[6].collation.as_deref(), Some("utf8mb4_0900_ai_ci"));
    for declaration in &found {
        let at = usize::try_from(declaration.place.offset).unwrap_or(usize::MAX);
        let text = MYSQLDUMP_HEAD.get(at..).unwrap_or_default();
        assert!(text.starts_with(&declaration.label), "{declaration:?}");
        let line = MYSQLDUMP_HEAD.get(..at).unwrap_or_default().lines().count();
        assert_eq!(declaration.place.line as usize, line, "{declaration:?}");
    }
}

#[test]
fn pg_dump_head() {
    let head = "--\n-- PostgreSQL database dump\n--\n\n\
            SET statement_timeout = 0;\nSET lock_timeout = 0;\n\
            SET client_encoding = 'SQL_ASCII';\nSET standard_conforming_strings = on;\n\
            SELECT pg_catalog.set_config('search_path', '', false);\n\
            CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'LATIN1' LOCALE = 'C';\n\
            set client_encoding to \"utf-8\";\n";
    let found = sql_declarations(head.as_bytes());
    assert_eq!(
        summary(&found),
        [
            (SqlDeclarationKind::SetClientEncoding, 7, "SQL_ASCII", None),
            (
                SqlDeclarationKind::DatabaseEncoding,
                10,
                "LATIN1",
                Some("windows-1252")
            ),
            (
                SqlDeclarationKind::SetClientEncoding,
                11,
                "utf-8",
                Some("UTF-8")
            ),
        ]
    );
    assert_eq!(found[0].meaning(), LabelMeaning::Uninterpreted);
    assert_eq!(found[1].table.as_deref(), Some("shop"));
}

#[test]
fn set_variants() {
    let dump = b"SET NAMES 'latin1' COLLATE 'latin1_swedish_ci';\n\
            SET CHARACTER SET cp1251;\n\
            SET SESSION character_set_client = koi8r, @@session.character_set_client = DEFAULT;\n\
            set names @x;\n";
    let found = sql_declarations(dump);
    assert_eq!(
        summary(&found),
        [
            (
                SqlDeclarationKind::SetNames,
                1,
                "latin1",
                Some("windows-1252")
            ),
            (
                SqlDeclarationKind::SetCharacterSet,
                2,
                "cp1251",
                Some("windows-1251")
            ),
            (
                SqlDeclarationKind::SetCharacterSetClient,
                3,
                "koi8r",
                Some("KOI8-R")
            ),
        ]
    );
    assert_eq!(found[0].collation.as_deref(), Some("latin1_swedish_ci"));
}

#[test]
fn connection_declarations_only_in_the_head() {
    let mut dump = "-- x\n".repeat(SQL_CONNECTION_SCAN_LIMIT / 5 + 1);
    dump.push_str("SET NAMES latin1;\nCREATE TABLE t (a int) DEFAULT CHARSET=latin1;\n");
    let found = sql_declarations(dump.as_bytes());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].place.kind, SqlDeclarationKind::TableDefault);
    assert_eq!(
        found[0].place.line,
        SQL_CONNECTION_SCAN_LIMIT as u64 / 5 + 3
    );
}

#[test]
fn mapping_per_dialect() {
    let name = |meaning: LabelMeaning| match meaning {
        LabelMeaning::Encoding(encoding) => encoding.name(),
        LabelMeaning::Uninterpreted => "no encoding",
        LabelMeaning::Unknown => "unknown",
    };
    assert_eq!(name(mysql_charset("UTF8MB4")), "UTF-8");
    assert_eq!(name(mysql_charset("utf8mb3")), "UTF-8");
    assert_eq!(name(mysql_charset("latin1")), "windows-1252");
    assert_eq!(name(mysql_charset("ascii")), "windows-1252");
    assert_eq!(name(mysql_charset("ucs2")), "UTF-16BE");
    assert_eq!(name(mysql_charset("utf32")), "UTF-32BE");
    assert_eq!(name(mysql_charset("binary")), "no encoding");
    assert_eq!(name(mysql_charset("keybcs2")), "unknown");
    assert_eq!(name(mysql_charset("UTF-8")), "unknown");
    assert_eq!(name(postgresql_encoding("UTF8")), "UTF-8");
    assert_eq!(name(postgresql_encoding("Unicode")), "UTF-8");
    assert_eq!(name(postgresql_encoding("ISO_8859_5")), "ISO-8859-5");
    assert_eq!(name(postgresql_encoding("WIN1252")), "windows-1252");
    assert_eq!(name(postgresql_encoding("Windows1251")), "windows-1251");
    assert_eq!(name(postgresql_encoding("LATIN9")), "ISO-8859-15");
    assert_eq!(name(postgresql_encoding("SQL_ASCII")), "no encoding");
    assert_eq!(name(postgresql_encoding("MULE_INTERNAL")), "unknown");
    for (mysql, _) in MYSQL_CHARSETS {
        assert_ne!(mysql_charset(mysql), LabelMeaning::Unknown, "{mysql}");
    }
    for (postgresql, _) in POSTGRESQL_ENCODINGS {
        assert_ne!(
            postgresql_encoding(postgresql),
            LabelMeaning::Unknown,
            "{postgresql}"
        );
    }
}

#[test]
fn qualified_table_names_give_their_last_part() {
    let dump = b"CREATE TABLE `db`.`t1` (a text CHARACTER SET latin1) DEFAULT CHARSET=latin1;\n\
            CREATE TABLE db.t2 (b text CHARSET utf8mb4);\n\
            CREATE TABLE `a.b` (c text CHARSET latin1);\n";
    let found = sql_declarations(dump);
    let tables: Vec<_> = found
        .iter()
        .map(|d| (d.table.as_deref(), d.column.as_deref()))
        .collect();
    assert_eq!(
        tables,
        [
            (Some("t1"), Some("a")),
            (Some("t1"), None),
            (Some("t2"), Some("b")),
            (Some("a.b"), Some("c")),
        ]
    );
}

#[test]
fn looks_like_sql_or_not() {
    assert!(looks_like_sql(MYSQLDUMP_HEAD.as_bytes()));
    assert!(looks_like_sql(b"insert into t values (1);\n"));
    assert!(looks_like_sql(
        b"\xEF\xBB\xBFSET client_encoding = 'UTF8';\n"
    ));
    assert!(!looks_like_sql(b"<html>\nSET NAMES latin1;\n"));
    assert!(!looks_like_sql(b"Set the table, then create something.\n"));
    assert!(!looks_like_sql(b""));
    // A statement on the first line, after a byte order mark; and on a last line with no
    // newline.
    assert!(looks_like_sql(b"\xEF\xBB\xBFCREATE TABLE t (a int);\n"));
    assert!(looks_like_sql(b"-- notes\nINSERT INTO t VALUES (1);"));
    // A line that starts with SET but declares nothing of the connection.
    assert!(!looks_like_sql(b"SET autocommit = 0;\n"));
    assert!(looks_like_sql(b"/*!40101 SET NAMES utf8mb4 */;\n"));
}

proptest::proptest! {
    /// Every line that opens what `looks_like_sql` looks for passes the look at its first
    /// two bytes: any case, blanks and a version comment before it; and a line does so wherever
    /// it is in the head.
    #[test]
    fn statement_lines_pass_the_first_bytes(
        blanks in "[ \t\r\x0C]{0,3}",
        opener in proptest::sample::select(vec!["", "/*!40101 ", "/*M!100100 ", "/*!"]),
        keyword in proptest::sample::select(vec![
            "create table t (a int);",
            "insert into t values (1);",
            "copy t (a) from stdin;",
            "set names latin1;",
        ]),
        upper in proptest::collection::vec(proptest::bool::ANY, 32),
        before in "[a-z <>-]{0,12}",
    ) {
        let keyword: String = keyword
            .chars()
            .zip(upper.iter().cycle())
            .map(|(c, &up)| if up { c.to_ascii_uppercase() } else { c })
            .collect();
        let line = format!("{blanks}{opener}{keyword}");
        proptest::prop_assert!(may_open_statement(line.as_bytes()), "{line:?}");
        let head = format!("{before}\n{line}\n");
        let markup = before.trim_start().starts_with('<');
        proptest::prop_assert_eq!(looks_like_sql(head.as_bytes()), !markup, "{:?}", head);
    }
}

#[test]
fn odd_input_does_not_panic() {
    for dump in [
        &b"CREATE"[..],
        b"CREATE TABLE",
        b"CREATE TABLE `unterminated",
        b"SET NAMES",
        b"SET NAMES '",
        b"/*!",
        b"/*!40101 SET NAMES x",
        b"CREATE TABLE t (a char CHARACTER SET",
        b"CREATE TABLE t (((((",
        b"SET character_set_client",
        b"\xEF\xBB\xBF",
        b"\n\n\nCREATE TABLE t (a int);",
    ] {
        let _ = sql_declarations(dump);
        let _ = looks_like_sql(dump);
    }
}

/// Each line that starts with `SET` is a statement of its own, even where the one before has
/// no `;`: a `SET NAMES` with no name before the next line declares nothing (it was read as
/// declaring `SET`), and the next line's declaration is found.
#[test]
fn a_set_statement_ends_where_the_next_set_line_starts() {
    let dump =
        b"SET foo\nSET NAMES\n/*!40101 SET character_set_client = utf8 */;\nSET NAMES latin1\n";
    let found = sql_declarations(dump);
    assert_eq!(
        summary(&found),
        [
            (
                SqlDeclarationKind::SetCharacterSetClient,
                3,
                "utf8",
                Some("UTF-8")
            ),
            (
                SqlDeclarationKind::SetNames,
                4,
                "latin1",
                Some("windows-1252")
            ),
        ]
    );
    assert!(looks_like_sql(dump));
    // A word `SET` inside a line is no statement's start.
    let inside = sql_declarations(b"SET NAMES koi8r COLLATE x SET\n");
    assert_eq!(
        summary(&inside),
        [(SqlDeclarationKind::SetNames, 1, "koi8r", Some("KOI8-R"))]
    );
}

#[test]
fn serialises_place_flat() {
    let found = sql_declarations(b"SET NAMES latin1;\n");
    let json = serde_json::to_value(&found).unwrap_or_default();
    assert_eq!(json[0]["statement"], "set-names");
    assert_eq!(json[0]["line"], 1);
    assert_eq!(json[0]["offset"], 10);
    assert_eq!(json[0]["label"], "latin1");
    assert_eq!(json[0]["encoding"], "windows-1252");
}

/// What `looks_like_sql` answers, reading every line of the head: its oracle.
fn looks_like_sql_by_every_line(head: &[u8]) -> bool {
    let head = head.get(..SQL_CONNECTION_SCAN_LIMIT).unwrap_or(head);
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
        return false;
    }
    let mut sets = false;
    for line in body.split(|&b| b == b'\n') {
        let line = after_line_opener(line);
        let copy = starts_with_words(line, &["COPY"])
            && line
                .trim_ascii_end()
                .to_ascii_lowercase()
                .ends_with(b"from stdin;");
        if starts_with_words(line, &["CREATE", "TABLE"])
            || starts_with_words(line, &["INSERT", "INTO"])
            || copy
        {
            return true;
        }
        sets |= starts_with_words(line, &["SET"]);
    }
    sets && sql_declarations(head)
        .iter()
        .any(|declaration| declaration.place.kind.is_connection())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// Heads of statement lines, words and blank lines in any order and case, long enough
    /// for the vector search's blocks: reading only the lines whose first byte can open a
    /// statement answers as reading every line does.
    #[test]
    fn reading_the_lines_that_may_open_a_statement_is_reading_them_all(
        lines in proptest::collection::vec(
            proptest::sample::select(vec![
                "create table t (a int);", "INSERT INTO t VALUES (1);", "copy t (a) from stdin;",
                "SET NAMES latin1;", "set autocommit = 0;", "/*!40101 SET NAMES utf8 */;",
                " \tInsert into t values (2);", "\rcreate", "word", "c", "si", "Ins", "", " ",
                "cre", "Settle", "copycat", "SETNAMES", "/ set names latin1;",
                "<p>", "\u{feff}set names x;", "-- comment", "\x0Cset names koi8r;",
            ]),
            0..40,
        ),
        bom in proptest::bool::ANY,
    ) {
        let head = format!("{}{}", if bom { "\u{feff}" } else { "" }, lines.join("\n"));
        proptest::prop_assert_eq!(
            looks_like_sql(head.as_bytes()),
            looks_like_sql_by_every_line(head.as_bytes()),
            "{:?}", head
        );
    }
}
