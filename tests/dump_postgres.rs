//! Runs the built `undouble` binary on what `pg_dump` writes, as PostgreSQL 15 wrote it in the
//! round trip of `.ci/postgres-roundtrip.sh`: a LATIN1 database that a client declaring
//! `client_encoding LATIN1` filled with UTF-8, dumped with `-E UTF8`, once as `COPY` blocks and
//! once with `--column-inserts --rows-per-insert` and bytea in the escape format. The dumps
//! hold what the lexer must get through without touching it: dollar-quoted and SQL-standard
//! (`BEGIN ATOMIC`) routine bodies with look-alikes and an `INSERT` in them, quoted names,
//! bytea, a table without columns; and what it must repair: text cells with COPY escapes, a
//! column default and a comment.

mod binary;

use binary::*;

/// What a LATIN1 database dumped as UTF8 makes of the UTF-8 a LATIN1 client sent: every byte
/// read as the ISO-8859-1 character of the same number.
fn garble(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

/// The true text of every damaged value, in the order the dumps hold them.
const TEXTS: [&str; 7] = [
    "Привет, мир",            // the default of v
    "Заметки: naïve café",    // the comment of the table
    "東京タワーの写真",       // row 1, v, before an escaped tab
    "Ελληνικά γράμματα",      // row 1, v, after it
    "Grüße aus Köln 🙂",      // row 1, "Note", before an escaped newline
    "Ça déjà vu, señor",      // row 1, "Note", after it
    "Ошибка в пути C:\\temp", // row 2, "Note", with a backslash
];

/// A bytea value whose bytes are the UTF-8 of garbled text: written in hexadecimal (COPY) or
/// octal escapes (INSERT), it must come out as it went in.
fn bytea_bytes() -> Vec<u8> {
    garble("café").into_bytes()
}

/// How a value is written in the dump's table data: COPY doubles a backslash, a string
/// literal (with `standard_conforming_strings` on, and no quote in these texts) does not.
type Escape = fn(&str) -> String;

fn copy_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
}

fn literal(text: &str) -> String {
    text.to_owned()
}

/// The dump: `rows` are the table data as pg_dump writes them, between the definitions and
/// the constraints; `{n}` in the template stands for `TEXTS[n]` garbled, then escaped.
fn dump(rows: &str, escape: Escape) -> String {
    let head = "--
-- PostgreSQL database dump
--

\\restrict 3Xq9b1T0yV

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

--
-- Name: motto(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.motto() RETURNS text
    LANGUAGE sql
    AS $_$ SELECT 'Ã© stays Ã©: it''s; $$ ends nothing'::text || E'\\t»Gruß«' $_$;

ALTER FUNCTION public.motto() OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.\"Notes\" (
    id integer NOT NULL,
    v character varying(2000) DEFAULT '{0}'::character varying,
    \"Note\" text,
    b bytea
);

ALTER TABLE public.\"Notes\" OWNER TO postgres;

COMMENT ON TABLE public.\"Notes\" IS '{1}';

CREATE PROCEDURE public.remember(IN x text)
    LANGUAGE sql
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (x = 'Ã©'::text) THEN 1
             ELSE 2
         END AS \"case\";
 INSERT INTO public.\"Notes\" (id, v)
   VALUES (0, 'cafÃ©'::character varying);
END;

CREATE TABLE public.empty (
);

";
    let tail = "
ALTER TABLE ONLY public.\"Notes\"
    ADD CONSTRAINT \"Notes_pkey\" PRIMARY KEY (id);

--
-- PostgreSQL database dump complete
--

\\unrestrict 3Xq9b1T0yV

";
    let mut text = format!("{head}{rows}{tail}");
    for (n, clean) in TEXTS.iter().enumerate() {
        text = text.replace(&format!("{{{n}}}"), &escape(&garble(clean)));
    }
    text
}

fn copy_dump() -> String {
    let hex: String = bytea_bytes().iter().map(|b| format!("{b:02x}")).collect();
    // COPY escapes a backslash, a tab and a newline of the data.
    let rows = format!(
        "COPY public.\"Notes\" (id, v, \"Note\", b) FROM stdin;\n\
         1\t{{2}}\\t{{3}}\t{{4}}\\n{{5}}\t\\\\x{hex}\n\
         2\t\\N\t{{6}}\t\\N\n\
         \\.\n\n\
         COPY public.empty  FROM stdin;\n\n\n\\.\n\n"
    );
    dump(&rows, copy_escape)
}

fn inserts_dump() -> String {
    // bytea's escape format: printable ASCII as it is, other bytes as octal escapes.
    let escaped: String = bytea_bytes()
        .iter()
        .map(|&b| match b {
            b'\\' => "\\\\".to_owned(),
            0x20..=0x7e => char::from(b).to_string(),
            _ => format!("\\{b:03o}"),
        })
        .collect();
    // Strings keep their tabs, newlines and backslashes as they are.
    let rows = format!(
        "INSERT INTO public.\"Notes\" (id, v, \"Note\", b) VALUES\n\
         \t(1, '{{2}}\t{{3}}', '{{4}}\n{{5}}', '{escaped}'),\n\
         \t(2, NULL, '{{6}}', NULL);\n\n\
         INSERT INTO public.empty DEFAULT VALUES;\n\
         INSERT INTO public.empty DEFAULT VALUES;\n\n"
    );
    dump(&rows, literal)
}

/// The dump with every garbled text repaired, and nothing else changed.
fn repaired(dump: &str, escape: Escape) -> String {
    let mut text = dump.to_owned();
    for clean in TEXTS {
        text = text.replace(&escape(&garble(clean)), &escape(clean));
    }
    text
}

/// Both dumps, named, with the escape of their table data.
fn dumps() -> [(&'static str, String, Escape); 2] {
    [
        ("copy", copy_dump(), copy_escape),
        ("inserts", inserts_dump(), literal),
    ]
}

#[test]
fn only_text_values_a_default_and_a_comment_are_repaired() {
    for (name, dump, escape) in dumps() {
        let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
        assert_eq!(output.status.code(), Some(1), "{name}: {}", stderr(&output));
        let fixed = String::from_utf8_lossy(&output.stdout);
        assert_eq!(fixed, repaired(&dump, escape), "{name}");
        // The look-alikes of the routine bodies are still there.
        assert!(
            fixed.contains("'Ã© stays Ã©: it''s; $$ ends nothing'"),
            "{name}"
        );
        assert!(
            fixed.contains("VALUES (0, 'cafÃ©'::character varying);"),
            "{name}"
        );
        assert!(fixed.contains("WHEN (x = 'Ã©'::text)"), "{name}");
    }
}

#[test]
fn scan_reports_the_damaged_columns_of_a_pg_dump() {
    for (name, dump, _) in dumps() {
        let output = run_with_stdin(&["scan", "--json"], dump.as_bytes());
        assert_eq!(output.status.code(), Some(1), "{name}: {}", stderr(&output));
        let records = json_lines(&output);
        let report = &records[0]["dump"];
        assert_eq!(report["dialect"], "postgresql", "{name}");
        let tables = report["tables"].as_array().expect("tables");
        let rows: Vec<(&str, u64)> = tables
            .iter()
            .filter_map(|t| Some((t["table"].as_str()?, t["rows"].as_u64()?)))
            .collect();
        assert_eq!(rows, [("public.Notes", 2), ("public.empty", 2)], "{name}");
        let damaged: Vec<(&str, u64)> = tables[0]["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .filter_map(|c| Some((c["column"].as_str()?, c["double_encoded_cells"].as_u64()?)))
            .collect();
        assert_eq!(
            damaged,
            [("id", 0), ("v", 1), ("Note", 2), ("b", 0)],
            "{name}"
        );
        // Every garbled character of the table lies in its text columns.
        let in_columns: u64 = tables[0]["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .filter_map(|c| c["double_encoded"].as_u64())
            .sum();
        let in_cells: usize = TEXTS[2..]
            .iter()
            .map(|t| t.chars().filter(|c| !c.is_ascii()).count())
            .sum();
        assert_eq!(in_columns, in_cells as u64, "{name}");
    }
}

#[test]
fn a_plain_text_fix_would_reach_into_the_routine_bodies() {
    // What dump mode prevents: read as text, the look-alikes in code are "repaired" too.
    let output = run_with_stdin(&["fix", "-q", "--format", "text"], copy_dump().as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let fixed = String::from_utf8_lossy(&output.stdout);
    assert!(fixed.contains("VALUES (0, 'café'::character varying);"));
}
