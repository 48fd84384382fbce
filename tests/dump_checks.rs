//! Runs the built `undouble` binary on dumps whose CHECK constraints were created through the
//! same wrong connection as their data, in the shapes the round trips of
//! `.ci/mariadb-roundtrip.sh` and `.ci/postgres-roundtrip.sh` got from the real dump tools:
//! `mariadb-dump` writes a check as an item of its `CREATE TABLE`; `pg_dump` writes every check
//! that way (each literal cast), a check declared `NOT VALID` as `ALTER TABLE ... ADD
//! CONSTRAINT` after the data, and the default of a column a child table inherits as `ALTER
//! TABLE ONLY ... ALTER COLUMN ... SET DEFAULT`. The literals of checks on text columns, and
//! that default, are as garbled as the values and must be repaired with them: the repaired
//! dump would not load otherwise (the check refuses the repaired rows). The literals of a
//! check on other columns alone, and bytes (`_binary`, `::bytea`), stay as they are.

mod binary;

use binary::*;

use undouble::mojibake::codepage::{CodePage, LATIN1, WINDOWS_1252, garble};

/// The words of the templates below that are text, garbled in the dump, repaired by `fix`.
const REPAIRED: [&str; 7] = [
    "payé",
    "annulé",
    "оплачен",
    "reçu",
    "crème brûlée",
    "Привет",
    "remboursé",
];

/// The word that stands for bytes, or for text in a check that names no text column: garbled
/// in the dump, and still garbled after `fix`.
const KEPT: &str = "café";

/// `template` (written in the true text) with each of `words` garbled as a connection reading
/// through `page` garbles it.
fn garbled(template: &str, words: &[&str], page: &CodePage) -> String {
    words.iter().fold(template.to_owned(), |text, word| {
        let garbled = garble(word.as_bytes(), |_| page).expect("the page defines every byte");
        text.replace(word, &garbled)
    })
}

/// Runs `fix` on `template` as the dump holds it, every word garbled through `page`, and checks
/// that the output is the template with only [`KEPT`] garbled.
fn assert_repaired(template: &str, page: &CodePage) {
    let everything: Vec<&str> = REPAIRED.iter().copied().chain([KEPT]).collect();
    let dump = garbled(template, &everything, page);
    let output = run_with_stdin(&["fix", "-q", "--keep-charset"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        garbled(template, &[KEPT], page)
    );
}

/// What `mariadb-dump --default-character-set=utf8mb4` writes for a latin1 table created
/// through a latin1 connection (MariaDB's `latin1` is Windows-1252), with a check on the text
/// column, one on the binary column alone, and one on both with a `_binary` literal.
const MARIADB: &str = "/*M!999999\\- enable the sandbox mode */ 
-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: src
-- ------------------------------------------------------
-- Server version\t10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;

--
-- Table structure for table `orders`
--

DROP TABLE IF EXISTS `orders`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `orders` (
  `id` int(11) NOT NULL,
  `note` varchar(200) DEFAULT NULL,
  `st` varchar(40) NOT NULL,
  `raw` varbinary(40) DEFAULT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `st_known` CHECK (`st` in ('payé','annulé','оплачен','open')),
  CONSTRAINT `raw_set` CHECK (`raw` <> 'café'),
  CONSTRAINT `st_or_raw` CHECK (`st` <> 'reçu' or `raw` <> _binary'café')
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `orders`
--

LOCK TABLES `orders` WRITE;
/*!40000 ALTER TABLE `orders` DISABLE KEYS */;
INSERT INTO `orders` VALUES (1,'crème brûlée','payé',_binary 'café'),(2,'Привет','оплачен',NULL),\
(3,'ok','open',NULL);
/*!40000 ALTER TABLE `orders` ENABLE KEYS */;
UNLOCK TABLES;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;

-- Dump completed on 2026-12-01  3:40:06
";

#[test]
fn mariadb_checks_on_text_columns_are_repaired_with_the_values() {
    assert_repaired(MARIADB, &WINDOWS_1252);
}

/// What `pg_dump -E UTF8` writes for a LATIN1 database a LATIN1 client filled with UTF-8 (every
/// byte stored as the ISO-8859-1 character of the same number): a check on the text column, one
/// on the number alone, one on text and bytes; a child table whose inherited column has a
/// default of its own; a check added `NOT VALID` after the data; a partial index on the text
/// column (whose predicate, left garbled, would no longer cover the repaired rows) and one on
/// the number alone.
const PG_DUMP: &str = r#"--
-- PostgreSQL database dump
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public."Notes" (
    id integer NOT NULL,
    v character varying(2000),
    b bytea,
    n integer,
    st character varying(40) NOT NULL,
    CONSTRAINT notes_st_check CHECK (((st)::text = ANY ((ARRAY['payé'::character varying, 'annulé'::character varying, 'оплачен'::character varying, 'open'::character varying])::text[]))),
    CONSTRAINT notes_n_check CHECK (((n)::text <> 'café'::text)),
    CONSTRAINT notes_b_check CHECK ((((st)::text <> 'reçu'::text) OR (b <> '\x636166c383c2a9'::bytea) OR (b <> 'café'::bytea)))
);


ALTER TABLE public."Notes" OWNER TO postgres;

CREATE TABLE public."Later" (
)
INHERITS (public."Notes");


ALTER TABLE public."Later" OWNER TO postgres;

ALTER TABLE ONLY public."Later" ALTER COLUMN st SET DEFAULT 'reçu'::character varying;

ALTER TABLE ONLY public."Later" ALTER COLUMN n SET DEFAULT 0;

COPY public."Later" (id, v, b, n, st) FROM stdin;
\.


COPY public."Notes" (id, v, b, n, st) FROM stdin;
1	crème brûlée	\\x636166c383c2a9	1	payé
2	Привет	\N	2	оплачен
3	ok	\N	3	open
\.


ALTER TABLE ONLY public."Notes"
    ADD CONSTRAINT "Notes_pkey" PRIMARY KEY (id);

ALTER TABLE public."Notes"
    ADD CONSTRAINT notes_st_later CHECK (((st)::text <> 'remboursé'::text)) NOT VALID;

CREATE UNIQUE INDEX notes_paid ON public."Notes" USING btree (id) WHERE ((st)::text = 'payé'::text);

CREATE INDEX notes_counted ON public."Notes" USING btree (n) WHERE ((n)::text <> 'café'::text);

--
-- PostgreSQL database dump complete
--

"#;

#[test]
fn pg_dump_checks_and_defaults_on_text_columns_are_repaired_with_the_values() {
    assert_repaired(PG_DUMP, &LATIN1);
}
