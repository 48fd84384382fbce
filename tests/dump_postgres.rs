//! Runs the built `undouble` binary on what `pg_dump` writes, as PostgreSQL 15 wrote it in the
//! round trip of `.ci/postgres-roundtrip.sh`: a LATIN1 database that a client declaring
//! `client_encoding LATIN1` filled with UTF-8, dumped with `-E UTF8`, once as `COPY` blocks and
//! once with `--column-inserts --rows-per-insert` and bytea in the escape format. The dumps
//! hold what the lexer must get through without touching it: dollar-quoted and SQL-standard
//! (`BEGIN ATOMIC`) routine bodies with look-alikes and an `INSERT` in them, quoted names,
//! bytea, a table without columns; and what it must repair: text cells with COPY escapes, a
//! column default and a comment. Then the types of a database made the same way: a domain over
//! text (its values, default and check repaired), an enum (values and labels left alone), a
//! table typed by a composite type (read by the type's columns, from a `--schema` dump when
//! `pg_dump -t` leaves the type out); and `pg_dump --create` of a LATIN1 database, whose
//! encoding declarations `--convert-charset` rewrites.

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
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
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
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let fixed = String::from_utf8_lossy(&output.stdout);
    assert!(fixed.contains("VALUES (0, 'café'::character varying);"));
}

/// `pg_dump -E UTF8` of a LATIN1 database whose types, domains and rows a LATIN1 client
/// created from UTF-8 (PostgreSQL 15.18, comments and owners trimmed): a domain over text with
/// a default and a check, an enum whose labels a column default, a table constraint and a view
/// name as literals of the type, a composite type and a table typed by it. `[[x]]` is text
/// that comes out garbled and is repaired, `<<x>>` an enum's label, which comes out garbled and
/// stays so (see `enum_labels_stay_as_they_are`).
const TYPES_DUMP: &str = "--
-- PostgreSQL database dump
--

\\restrict JQDIOT0nGPnPEcD1JzRRxpLJbELzUJLNcud3BWdMNaHVZou1MtcwYTFfR8kpxer

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

CREATE DOMAIN public.lang AS text DEFAULT '[[naïve]]'::text
\tCONSTRAINT lang_check CHECK ((VALUE = ANY (ARRAY['[[café]]'::text, '[[naïve]]'::text, 'x'::text])));

ALTER DOMAIN public.lang OWNER TO postgres;

CREATE TYPE public.mood AS ENUM (
    '<<café>>',
    '<<naïve>>',
    'ok'
);

CREATE DOMAIN public.num AS integer;

CREATE TYPE public.pair AS (
\ta text,
\tb integer,
\tc bytea
);

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.d (
    id integer NOT NULL,
    l public.lang,
    ls public.lang[],
    m public.mood DEFAULT '<<naïve>>'::public.mood,
    n public.num,
    CONSTRAINT d_m CHECK ((m <> '<<café>>'::public.mood))
);

ALTER TABLE public.d OWNER TO postgres;

CREATE TABLE public.typed OF public.pair (
    b NOT NULL
);

CREATE VIEW public.v AS
 SELECT d.id
   FROM public.d
  WHERE (d.m = '<<café>>'::public.mood);

COPY public.d (id, l, ls, m, n) FROM stdin;
1\t[[café]]\t{[[naïve]]}\t<<naïve>>\t3
\\.


COPY public.typed (a, b, c) FROM stdin;
[[Grüße]]\t1\t\\\\x[[é]]
\\.


ALTER TABLE ONLY public.d
    ADD CONSTRAINT d_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.typed
    ADD CONSTRAINT typed_pkey PRIMARY KEY (b);

--
-- PostgreSQL database dump complete
--

\\unrestrict JQDIOT0nGPnPEcD1JzRRxpLJbELzUJLNcud3BWdMNaHVZou1MtcwYTFfR8kpxer

";

/// `template` with each `open...close` marked text replaced by `mark(text)`.
fn marked(template: &str, open: &str, close: &str, mark: fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find(open) {
        let Some(length) = rest[start + open.len()..].find(close) else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&mark(
            &rest[start + open.len()..start + open.len() + length],
        ));
        rest = &rest[start + open.len() + length + close.len()..];
    }
    out + rest
}

/// A types dump template as pg_dump wrote it (everything garbled), or as the fix must write it
/// (`[[x]]` repaired, `<<x>>` still garbled). A bytea written as `[[é]]` holds the hex digits of
/// the UTF-8 of `é` garbled: ASCII, untouched either way.
fn types_dump(template: &str, repaired: bool) -> String {
    let hex = |text: &str| -> String { garble(text).bytes().map(|b| format!("{b:02x}")).collect() };
    let bytea_hex = template.replace("\\\\x[[é]]", &format!("\\\\x{}", hex("é")));
    let text = match repaired {
        true => marked(&bytea_hex, "[[", "]]", str::to_owned),
        false => marked(&bytea_hex, "[[", "]]", garble),
    };
    marked(&text, "<<", ">>", garble)
}

#[test]
fn domains_over_text_and_typed_tables_are_repaired() {
    let dump = types_dump(TYPES_DUMP, false);
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        types_dump(TYPES_DUMP, true)
    );
    let output = run_with_stdin(&["scan", "--json"], dump.as_bytes());
    let records = json_lines(&output);
    let tables = records[0]["dump"]["tables"].as_array().expect("tables");
    let columns: Vec<(String, &str, &str, u64)> = tables
        .iter()
        .flat_map(|table| {
            let name = table["table"].as_str().unwrap_or_default();
            let columns = table["columns"].as_array().expect("columns");
            columns.iter().map(move |c| {
                (
                    format!("{name}.{}", c["column"].as_str().unwrap_or_default()),
                    c["type"].as_str().unwrap_or_default(),
                    c["kind"].as_str().unwrap_or_default(),
                    c["double_encoded_cells"].as_u64().unwrap_or_default(),
                )
            })
        })
        .collect();
    let column = |name: &str, declared, kind, broken| (name.to_owned(), declared, kind, broken);
    assert_eq!(
        columns,
        [
            column("public.d.id", "integer", "other", 0),
            column("public.d.l", "public.lang", "text", 1),
            column("public.d.ls", "public.lang[]", "text", 1),
            column("public.d.m", "public.mood", "other", 0),
            column("public.d.n", "public.num", "other", 0),
            column("public.typed.a", "text", "text", 1),
            column("public.typed.b", "integer", "other", 0),
            column("public.typed.c", "bytea", "binary", 0),
        ]
    );
}

#[test]
fn enum_labels_stay_as_they_are() {
    // Repairing the value `naÃ¯ve` of an enum column would need its label repaired too, and
    // every literal that names it (the default, the check, the view): one missed, and the
    // dump no longer loads. So neither values nor labels are touched.
    let dump = types_dump(TYPES_DUMP, false);
    let output = run_with_stdin(&["fix", "-q"], dump.as_bytes());
    let fixed = String::from_utf8_lossy(&output.stdout);
    for label in ["café", "naïve"] {
        let enum_literals = TYPES_DUMP.matches(&format!("<<{label}>>")).count();
        assert_eq!(
            fixed.matches(&garble(label)).count(),
            enum_literals,
            "{label}"
        );
    }
    assert!(fixed.contains(&format!("\t{{naïve}}\t{}\t3\n", garble("naïve"))));
}

/// `pg_dump -t public.typed` of the same database: the table, not the type it is typed by.
const TYPED_TABLE_ALONE: &str = "--
-- PostgreSQL database dump
--

SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.typed OF public.pair (
    b NOT NULL
);

ALTER TABLE public.typed OWNER TO postgres;

COPY public.typed (a, b, c) FROM stdin;
[[Grüße]]\t1\t\\N
\\.


ALTER TABLE ONLY public.typed
    ADD CONSTRAINT typed_pkey PRIMARY KEY (b);

";

#[test]
fn a_typed_table_dumped_alone_takes_its_columns_from_the_schema_dump() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let write = |name: &str, content: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).expect("written");
        path
    };
    let alone = write("typed.sql", types_dump(TYPED_TABLE_ALONE, false));
    let output = run(&["fix", "-q", path_str(&alone)]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains(
            "typed.sql: line 15 (byte 267): data for table `public.typed`, a typed table (OF public.pair) \
             whose columns are those of the type `public.pair`, which no CREATE TYPE before it \
             defines; a dump of data only? --schema FILE"
        ),
        "{message}"
    );
    // pg_dump --schema-only of the database creates the type: the table is read by it.
    let schema = write("schema.sql", types_dump(TYPES_DUMP, false));
    let output = run(&["fix", "-q", "--schema", path_str(&schema), path_str(&alone)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        types_dump(TYPED_TABLE_ALONE, true)
    );
}

/// `pg_dump --create` (no `-E`) of a LATIN1 database that a LATIN1 client filled with UTF-8:
/// its bytes are UTF-8, and it declares LATIN1 twice, and the database's encoding.
const CREATE_LATIN1: &str = "--
-- PostgreSQL database dump
--

\\restrict PsFvvEElxg1EwTPeeDNthX2dManKAiHAhUTgkVS0p2KajeOuNxCZf2XS9m3AgZ9

SET statement_timeout = 0;
SET client_encoding = 'LATIN1';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);

--
-- Name: src; Type: DATABASE; Schema: -; Owner: postgres
--

CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'LATIN1' LOCALE_PROVIDER = libc LOCALE = 'C';


ALTER DATABASE src OWNER TO postgres;

\\unrestrict PsFvvEElxg1EwTPeeDNthX2dManKAiHAhUTgkVS0p2KajeOuNxCZf2XS9m3AgZ9
\\connect src
\\restrict PsFvvEElxg1EwTPeeDNthX2dManKAiHAhUTgkVS0p2KajeOuNxCZf2XS9m3AgZ9

SET statement_timeout = 0;
SET client_encoding = 'LATIN1';
SET standard_conforming_strings = on;

CREATE TABLE public.k2 (
    a integer NOT NULL,
    b text NOT NULL,
    note text
);

COPY public.k2 (a, b, note) FROM stdin;
1\tx\tcafé
\\.


\\unrestrict PsFvvEElxg1EwTPeeDNthX2dManKAiHAhUTgkVS0p2KajeOuNxCZf2XS9m3AgZ9

";

#[test]
fn convert_charset_makes_a_latin1_database_dump_load_as_utf8() {
    let output = run_with_stdin(
        &["fix", "-q", "--convert-charset", "utf8mb4"],
        CREATE_LATIN1.as_bytes(),
    );
    // Nothing repaired, three declarations rewritten.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = CREATE_LATIN1
        .replace(
            "SET client_encoding = 'LATIN1'",
            "SET client_encoding = 'UTF8'",
        )
        .replace("ENCODING = 'LATIN1'", "ENCODING = 'UTF8'");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    // Without it, the dump is left as it is.
    let output = run_with_stdin(&["fix", "-q"], CREATE_LATIN1.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), CREATE_LATIN1);
}
