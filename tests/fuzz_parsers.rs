//! Fuzzing of every parser of untrusted bytes, on the stable toolchain: random inputs, and
//! mutations of the corpus files and of generated fragments, each given to the library's
//! public functions on a worker thread with a deadline. An input that panics or runs past its
//! deadline fails the test (it is saved first: see `common`).
//!
//! The run of the test suite is bounded: a fixed seed and a fixed number of inputs per target.
//! `UNDOUBLE_FUZZ_SECONDS=N` runs each target for N seconds instead, with a random seed
//! (printed; `UNDOUBLE_FUZZ_SEED` replays one). The inputs kept in `tests/data/fuzz/<target>/`
//! are replayed first, every run.
//!
//! Beyond "no panic, no hang", the dump targets check what the lexer promises: the values it
//! finds do not depend on where the buffers it is fed end, and a dump fixed as a dump differs
//! from the original only inside its text values.

mod common;

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{Budget, Rng, Runner, checkout_files, mutate, regression_inputs};
use undouble::charset::{
    self, DEFAULT_SUSPECTS, HtmlOptions, HttpMessage, HttpOptions, PolicyOptions, SqlDialect,
};
use undouble::dump::{self, DumpOptions, LexedValue, lex_values};
use undouble::engine::{EngineOptions, Input};
use undouble::mojibake::{Readings, Scanner, Strictness};

/// How long one input may take (a debug build, on a loaded machine) before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(20);

/// A target: where its seeds come from, the tokens its mutations insert, how it makes fresh
/// inputs, and what it checks on each.
struct Target {
    name: &'static str,
    inputs: u64,
    seeds: Vec<Vec<u8>>,
    dictionary: &'static [&'static [u8]],
    generate: fn(&mut Rng) -> Vec<u8>,
}

impl Target {
    /// Replays the kept inputs, then fuzzes `check` for the budget. A failing input ends a
    /// bounded run; a long one goes on, and fails at its end with all it found.
    fn fuzz(self, check: impl Fn(&[u8]) + Send + Sync + 'static) {
        let budget = Budget::from_env(self.inputs);
        let mut runner = Runner::new(self.name, DEADLINE, check);
        let mut failures = Vec::new();
        for (path, input) in regression_inputs(self.name) {
            if let Err(failure) = runner.run(&input) {
                panic!("{}: {failure}", path.display());
            }
        }
        let salt = self
            .name
            .bytes()
            .fold(0u64, |h, b| h.rotate_left(7) ^ u64::from(b));
        let mut rng = Rng::new(budget.seed ^ salt);
        let started = Instant::now();
        let mut done = 0;
        while budget.goes_on(done) && (budget.until.is_some() || failures.is_empty()) {
            let input = self.input(&mut rng);
            if let Err(failure) = runner.run(&input) {
                eprintln!("{failure}");
                failures.push(failure);
            }
            done += 1;
        }
        let lexed = match self.name.starts_with("dump") || self.name == "ddl" {
            true => format!(
                "; dumps lexed whole {}, fixed and compared {}",
                LEXED.load(Ordering::Relaxed),
                FIXED.load(Ordering::Relaxed)
            ),
            false => String::new(),
        };
        println!(
            "fuzz {}: {done} inputs in {:.1} s (seed {}){lexed}; {} failed",
            self.name,
            started.elapsed().as_secs_f64(),
            budget.seed,
            failures.len(),
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn input(&self, rng: &mut Rng) -> Vec<u8> {
        let other = match self.seeds.is_empty() {
            true => Vec::new(),
            false => rng.pick(&self.seeds).clone(),
        };
        let mut input = match rng.below(8) {
            0 => return (0..rng.below(64)).map(|_| rng.byte()).collect(),
            1 | 2 => return (self.generate)(rng),
            3 | 4 => (self.generate)(rng),
            _ if !self.seeds.is_empty() => rng.pick(&self.seeds).clone(),
            _ => (self.generate)(rng),
        };
        mutate(rng, &mut input, self.dictionary, &other);
        input
    }
}

// ---------------------------------------------------------------------------------------------
// Dumps.

const SQL_TOKENS: &[&[u8]] = &[
    b"/*",
    b"*/",
    b"/*!40101 ",
    b"/*M!100100 ",
    b"/*!50003 ",
    b"-- ",
    b"--",
    b"#",
    b"\n",
    b"\r\n",
    b"'",
    b"''",
    b"\\",
    b"\\'",
    b"\"",
    b"`",
    b";",
    b";;",
    b"(",
    b")",
    b",",
    b"$$",
    b"$f$",
    b"$1",
    b"E'",
    b"_binary '",
    b"_utf8mb4'",
    b"X'",
    b"N'",
    b"0x",
    b"\t",
    b"\\.\n",
    b"\\N",
    b"\\\\",
    b"DELIMITER ;;\n",
    b"DELIMITER ;\n",
    b"DELIMITER //\n",
    b"COPY t (id, a) FROM stdin;\n",
    b"INSERT INTO t VALUES (",
    b"),(",
    b");\n",
    b"CREATE TABLE t (id int, a text);\n",
    b"CREATE TABLE ",
    b"ALTER TABLE ",
    b"BEGIN ATOMIC ",
    b"END",
    b"CASE",
    b"NULL",
    b"DEFAULT",
    b"SET standard_conforming_strings = off;\n",
    b"SET NAMES latin1;\n",
    b"\\connect db\n",
    "Ã©".as_bytes(),
    b"\xC3",
    b"\xA9",
    b"\x00",
    b" ",
];

/// SQL made of the pieces that make lexers stumble, in random order.
fn sql_fragments(rng: &mut Rng) -> Vec<u8> {
    const HEADS: &[&str] = &[
        "-- MySQL dump 10.13\n",
        "-- MariaDB dump 10.19\n/*M!999999\\- enable the sandbox mode */\n",
        "--\n-- PostgreSQL database dump\n--\nSET client_encoding = 'UTF8';\n",
        "",
    ];
    const PIECES: &[&str] = &[
        "CREATE TABLE t (id int, a text, b blob);\n",
        "CREATE TABLE public.t (id integer, a text, b bytea);\n",
        "INSERT INTO t VALUES (1,'cafÃ©',_binary 'Ã©'),(2,'a\\'b''c',X'41');\n",
        "INSERT INTO public.t VALUES (1, E'a\\'b', '\\xC3A9');\n",
        "COPY public.t (id, a, b) FROM stdin;\n1\tcafÃ©\t\\\\x00\n2\t\\N\tx\\ty\n\\.\n",
        "COPY t (id, a, b) FROM stdin;\n",
        "1\tx\ty\n",
        "\\.\n",
        "DELIMITER ;;\n",
        "DELIMITER ;\n",
        "/*!50003 CREATE*/ /*!50003 TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 'a;b' */;;\n",
        "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $_$ SELECT 'x;y' $_$;\n",
        "CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); END;\n",
        "/* a comment */\n",
        "/* a /* nested */ comment */\n",
        "/*",
        "*/",
        "-- a line comment\n",
        "# a line comment\n",
        "'",
        "\"",
        "`",
        "$$",
        "$a$",
        "\\",
        ";\n",
        "SELECT 1;\n",
        "SET standard_conforming_strings = off;\n",
        "LOCK TABLES `t` WRITE;\nUNLOCK TABLES;\n",
        "\n",
    ];
    let mut out = rng.pick(HEADS).as_bytes().to_vec();
    for _ in 0..rng.below(24) {
        out.extend_from_slice(rng.pick(PIECES).as_bytes());
    }
    out
}

/// A dump that the lexer of `dialect` should read: a table, rows whose values hold what
/// strings may hold (escapes, quotes, comment marks, delimiters, mojibake), and the comments,
/// client commands and routines found between statements.
fn valid_dump(rng: &mut Rng, dialect: SqlDialect) -> Vec<u8> {
    let mysql = dialect == SqlDialect::MySql;
    const INSIDE: &[&str] = &[
        "a", "Ã©", "cafÃ©", " ", ";", "/*", "*/", "--", "#", "$$", "\"", "`", "(", ")", ",", "é",
    ];
    let string = |rng: &mut Rng| -> String {
        let mut out = String::new();
        for _ in 0..rng.below(8) {
            let piece = match rng.below(6) {
                0 if mysql => *rng.pick(&["\\\\", "\\'", "\\n", "\\0", "''", "\\Z"]),
                0 => "''",
                _ => *rng.pick(INSIDE),
            };
            out.push_str(piece);
        }
        out
    };
    let field = |rng: &mut Rng| -> String {
        let mut out = String::new();
        for _ in 0..rng.below(8) {
            let piece = match rng.below(5) {
                0 => *rng.pick(&["\\\\", "\\t", "\\n", "\\r", "\\\t", "\\x41"]),
                _ => *rng.pick(INSIDE),
            };
            out.push_str(piece);
        }
        match out.as_str() {
            "\\." => "x".into(),
            _ => out,
        }
    };
    let between = |rng: &mut Rng| -> String {
        match rng.below(8) {
            0 => format!("/* {} */\n", string(rng).replace("*/", "")),
            1 if !mysql => "/* a /* nested */ comment */\n".into(),
            1 => "/*!40101 SET NAMES utf8mb4 */;\n".into(),
            2 => format!("-- {}\n", string(rng).replace('\n', "")),
            3 if mysql => "DELIMITER ;;\n/*!50003 CREATE*/ /*!50003 TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 'a;b' */;;\nDELIMITER ;\n".into(),
            3 => "CREATE FUNCTION public.f() RETURNS text LANGUAGE sql AS $_$ SELECT 'x;y' $_$;\n".into(),
            4 if !mysql => "CREATE PROCEDURE public.p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); END;\n".into(),
            4 => "LOCK TABLES `t` WRITE;\n".into(),
            _ => "\n".into(),
        }
    };
    let mut out = match mysql {
        true => "-- MySQL dump 10.13\nCREATE TABLE `t` (\n  `id` int NOT NULL,\n  `a` text,\n  `b` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
        false => "--\n-- PostgreSQL database dump\n--\nCREATE TABLE public.t (\n    id integer NOT NULL,\n    a text,\n    b bytea\n);\n",
    }
    .to_string();
    for id in 0..rng.below(6) {
        out.push_str(&between(rng));
        if mysql || rng.one_in(2) {
            let table = if mysql { "`t`" } else { "public.t" };
            out.push_str(&format!("INSERT INTO {table} VALUES "));
            for row in 0..1 + rng.below(3) {
                let b = match rng.below(3) {
                    0 if mysql => format!("_binary '{}'", string(rng)),
                    0 => format!("'\\x{:02x}'", rng.byte()),
                    1 if mysql => "0xC3A9".into(),
                    _ => "NULL".into(),
                };
                let a = match rng.below(4) {
                    0 if !mysql => format!("E'{}'", string(rng).replace("''", "\\'")),
                    0 => format!("\"{}\"", string(rng).replace('"', "\\\"")),
                    _ => format!("'{}'", string(rng)),
                };
                let comma = if row == 0 { "" } else { "," };
                out.push_str(&format!("{comma}({id}{row},{a},{b})"));
            }
            out.push_str(";\n");
        } else {
            out.push_str("COPY public.t (id, a, b) FROM stdin;\n");
            for row in 0..rng.below(4) {
                let b = match rng.one_in(2) {
                    true => "\\N".to_string(),
                    false => format!("\\\\x{:02x}", rng.byte()),
                };
                out.push_str(&format!("{id}{row}\t{}\t{b}\n", field(rng)));
            }
            out.push_str("\\.\n");
        }
    }
    out.push_str(&between(rng));
    out.into_bytes()
}

fn mysql_dump(rng: &mut Rng) -> Vec<u8> {
    match rng.one_in(3) {
        true => sql_fragments(rng),
        false => valid_dump(rng, SqlDialect::MySql),
    }
}

fn postgresql_dump(rng: &mut Rng) -> Vec<u8> {
    match rng.one_in(3) {
        true => sql_fragments(rng),
        false => valid_dump(rng, SqlDialect::PostgreSql),
    }
}

/// The dumps of the corpus, and small ones of each dialect's constructs.
fn dump_seeds() -> Vec<Vec<u8>> {
    let mut seeds = checkout_files("corpus");
    seeds.retain(|seed| seed.len() < 100_000);
    let small: &[&str] = &[
        "-- MySQL dump 10.13\nCREATE TABLE `t` (\n  `id` int NOT NULL,\n  `a` varchar(9) DEFAULT 'x',\n  `b` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\nINSERT INTO `t` VALUES (1,'cafÃ©',_binary 'Ã©'),(2,\"dq\",0x41C3A9);\n",
        "CREATE TABLE public.t (\n    id integer NOT NULL,\n    a text,\n    b bytea\n);\nCOPY public.t (id, a, b) FROM stdin;\n1\tcafÃ©\t\\\\x00\n2\t\\N\tx\\ty\n\\.\n",
        "DELIMITER ;;\n/*!50003 CREATE*/ /*!50003 TRIGGER `x` BEFORE INSERT ON `t` FOR EACH ROW SET NEW.name = 'a;b' */;;\nDELIMITER ;\n",
        "CREATE FUNCTION public.f() RETURNS text LANGUAGE sql AS $_$ SELECT 'x;y' $_$;\n/* a /* b */ c */ SELECT 1;\n",
    ];
    seeds.extend(small.iter().map(|s| s.as_bytes().to_vec()));
    seeds
}

/// Dumps that lexed without error, and those of them fixed and compared: printed with each
/// run's count, so that a run whose inputs all fail early shows it.
static LEXED: AtomicU64 = AtomicU64::new(0);
static FIXED: AtomicU64 = AtomicU64::new(0);

fn scanner() -> &'static Scanner {
    static SCANNER: OnceLock<Scanner> = OnceLock::new();
    SCANNER.get_or_init(|| Scanner::new(Readings::western(), Strictness::Balanced))
}

/// Cuts to read `input` with: every single cut of a short input, a few random ones (single
/// and several) of a long one, drawn from the input's bytes so that a failure replays.
fn cuts_of(input: &[u8]) -> Vec<Vec<usize>> {
    if input.len() <= 128 {
        return (1..input.len()).map(|cut| vec![cut]).collect();
    }
    let seed = input
        .iter()
        .fold(7u64, |h, &b| h.wrapping_mul(31) ^ u64::from(b));
    let mut rng = Rng::new(seed);
    let mut all: Vec<Vec<usize>> = (0..3)
        .map(|_| vec![1 + rng.below(input.len() - 1)])
        .collect();
    let mut several: Vec<usize> = (0..2 + rng.below(6))
        .map(|_| rng.below(input.len()))
        .collect();
    several.sort_unstable();
    all.push(several);
    all
}

/// Checks the lexer of `dialect` on `input`: same values at every cut; and a dump it reads
/// is fixed (through the public repair, from a file at `scratch`) only inside its text values.
fn check_dump(dialect: SqlDialect, input: &[u8], scratch: &Path) {
    let whole = lex_values(dialect, input, &[]);
    for cuts in cuts_of(input) {
        let cut_up = lex_values(dialect, input, &cuts);
        // Whether a dump is read, every value read, and the line and message a refused dump is
        // refused with never depend on where a buffer ends.
        assert_eq!(cut_up, whole, "{dialect:?}, cut at {cuts:?}");
    }
    let Ok(values) = whole else {
        return;
    };
    LEXED.fetch_add(1, Ordering::Relaxed);
    if input.is_ascii() {
        return;
    }
    FIXED.fetch_add(1, Ordering::Relaxed);
    std::fs::write(scratch, input).expect("the scratch file is written");
    // Charsets kept: the check is of what the repair touches, whatever the tables store.
    let options = DumpOptions {
        dialect,
        convert_charset: None,
        keep_charset: true,
        schema: None,
    };
    let mut fixed = Vec::new();
    let pass = dump::DumpPass {
        scanner: scanner(),
        options: &options,
        engine: &EngineOptions::default(),
    };
    let output = dump::DumpOutput {
        out: &mut fixed,
        path: Path::new("-"),
        audit: None,
    };
    let fix = dump::fix_dump(&pass, &Input::File(scratch.to_path_buf()), output);
    assert!(fix.is_ok(), "{dialect:?}: lexed, yet not fixed: {fix:?}");
    let after = lex_values(dialect, &fixed, &[]);
    let Ok(after) = after else {
        panic!("{dialect:?}: the fixed dump does not lex: {after:?}");
    };
    assert_same_outside_text(input, &values, &fixed, &after);
}

/// `fixed` (with values `after`) holds the bytes of `input` (with values `before`) outside
/// their text values, and its binary values byte for byte.
fn assert_same_outside_text(
    input: &[u8],
    before: &[LexedValue],
    fixed: &[u8],
    after: &[LexedValue],
) {
    assert_eq!(before.len(), after.len(), "as many values after the fix");
    let range = |span: &std::ops::Range<u64>| span.start as usize..span.end as usize;
    let (mut from_in, mut from_out) = (0, 0);
    for (a, b) in before.iter().zip(after) {
        assert_eq!((a.text, a.definition), (b.text, b.definition));
        let (a_span, b_span) = (range(&a.span), range(&b.span));
        assert_eq!(
            input[from_in..a_span.start],
            fixed[from_out..b_span.start],
            "the bytes before the value at {}",
            a.span.start
        );
        if !a.text {
            assert_eq!(
                input[a_span.clone()],
                fixed[b_span.clone()],
                "binary value at {}",
                a.span.start
            );
        }
        (from_in, from_out) = (a_span.end, b_span.end);
    }
    assert_eq!(
        input[from_in..],
        fixed[from_out..],
        "the bytes after the last value"
    );
}

fn dump_target(name: &'static str, dialect: SqlDialect, generate: fn(&mut Rng) -> Vec<u8>) {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let path = scratch.path().join("dump.sql");
    Target {
        name,
        inputs: 4000,
        seeds: dump_seeds(),
        dictionary: SQL_TOKENS,
        generate,
    }
    .fuzz(move |input| check_dump(dialect, input, &path));
    drop(scratch);
}

#[test]
fn fuzz_dump_mysql() {
    dump_target("dump_mysql", SqlDialect::MySql, mysql_dump);
}

#[test]
fn fuzz_dump_postgresql() {
    dump_target("dump_postgresql", SqlDialect::PostgreSql, postgresql_dump);
}

/// Statements the lexer reads whole (its DDL reader): tables, their columns, defaults,
/// checks, keys and comments, types, domains, indexes, character sets, `COPY` heads.
fn ddl_statements(rng: &mut Rng) -> Vec<u8> {
    const TYPES: &[&str] = &[
        "int",
        "integer NOT NULL",
        "text",
        "varchar(10) CHARACTER SET latin1 COLLATE latin1_bin",
        "blob",
        "bytea",
        "enum('a','Ã©')",
        "set('x','y')",
        "character varying(5)",
        "public.mood",
        "char(2)",
        "json",
        "text[]",
        "double precision",
        "geometry",
    ];
    const ATTRIBUTES: &[&str] = &[
        "",
        " DEFAULT 'cafÃ©'",
        " DEFAULT NULL",
        " COMMENT 'nÃ©'",
        " CHECK (a IN ('x', 'Ã©'))",
        " PRIMARY KEY",
        " NOT NULL",
        " DEFAULT 'x'::character varying",
        " GENERATED ALWAYS AS (a || 'x') STORED",
        " REFERENCES u (id)",
        " COLLATE \"C\"",
    ];
    const STATEMENTS: &[&str] = &[
        "ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n",
        "ALTER TABLE ONLY t ALTER COLUMN a SET DEFAULT 'reÃ§u'::character varying;\n",
        "ALTER TABLE t ADD CONSTRAINT c CHECK (a <> 'Ã©');\n",
        "CREATE TYPE public.mood AS ENUM ('Ã©', 'b');\n",
        "CREATE TYPE public.pair AS (a text, b integer);\n",
        "CREATE DOMAIN public.lang AS text DEFAULT 'Ã©' CHECK (VALUE <> 'x');\n",
        "CREATE UNIQUE INDEX i ON public.t USING btree (a) WHERE (a = 'Ã©'::text);\n",
        "CREATE INDEX i ON t (a);\n",
        "COMMENT ON COLUMN public.t.a IS 'cafÃ©';\n",
        "COMMENT ON TABLE t IS E'a\\'b';\n",
        "SET NAMES latin1 COLLATE latin1_swedish_ci;\n",
        "SET character_set_client = latin1;\n",
        "SET client_encoding = 'LATIN1';\n",
        "SET standard_conforming_strings = off;\n",
        "CREATE DATABASE d DEFAULT CHARACTER SET latin1;\n",
        "CREATE DATABASE d WITH ENCODING = 'LATIN1' LC_COLLATE = 'de_DE.ISO-8859-1';\n",
        "ALTER DATABASE d CHARACTER SET latin1;\n",
        "USE `d`;\n",
        "CREATE TABLE public.m_1 PARTITION OF public.t FOR VALUES FROM (1) TO (9);\n",
        "CREATE TABLE c (x int) INHERITS (public.t);\n",
        "CREATE TABLE l (LIKE t);\n",
        "CREATE TABLE o OF public.pair (a WITH OPTIONS NOT NULL);\n",
        "COPY public.t (id, a) FROM stdin;\n1\tx\n\\.\n",
        "INSERT INTO t (a, id) VALUES ('Ã©', 1);\n",
    ];
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(6) {
        if rng.one_in(2) {
            out.extend_from_slice(rng.pick(STATEMENTS).as_bytes());
            continue;
        }
        let name = rng.pick(&["t", "`t`", "public.t", "\"T\"\"x\"", "IF NOT EXISTS t"]);
        out.extend_from_slice(format!("CREATE TABLE {name} (\n  id int").as_bytes());
        for column in 0..rng.below(6) {
            let ty = rng.pick(TYPES);
            let attribute = rng.pick(ATTRIBUTES);
            out.extend_from_slice(format!(",\n  c{column} {ty}{attribute}").as_bytes());
        }
        if rng.one_in(2) {
            out.extend_from_slice(
                b",\n  a text,\n  PRIMARY KEY (id, a),\n  CONSTRAINT k CHECK (a > 'x')",
            );
        }
        let tail = rng.pick(&[
            ")",
            ") ENGINE=InnoDB DEFAULT CHARSET=latin1",
            ") PARTITION BY RANGE (id)",
        ]);
        out.extend_from_slice(format!("\n{tail};\n").as_bytes());
    }
    out
}

#[test]
fn fuzz_ddl() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let path = scratch.path().join("dump.sql");
    Target {
        name: "ddl",
        inputs: 3000,
        seeds: (0..64)
            .map(|i| ddl_statements(&mut Rng::new(i + 1)))
            .collect(),
        dictionary: SQL_TOKENS,
        generate: ddl_statements,
    }
    .fuzz(move |input| {
        check_dump(SqlDialect::MySql, input, &path);
        check_dump(SqlDialect::PostgreSql, input, &path);
    });
}

// ---------------------------------------------------------------------------------------------
// Charset routines.

const MARKUP_TOKENS: &[&[u8]] = &[
    b"<meta",
    b"<meta charset=",
    b"charset=",
    b"http-equiv=\"Content-Type\"",
    b"content=\"",
    b"text/html; charset=",
    b"<!--",
    b"-->",
    b"<?xml",
    b"<?xml version=\"1.0\" encoding=\"",
    b"encoding=",
    b"?>",
    b"'",
    b"\"",
    b">",
    b"<",
    b"/",
    b"=",
    b" ",
    b"\t",
    b"\n",
    b"\x00",
    b"\xFE\xFF",
    b"\xFF\xFE",
    b"\xEF\xBB\xBF",
    b"<script>",
    b"</script>",
    b"<![CDATA[",
    b"]]>",
    b"<!",
    b"<?",
    b"</",
    b"<head>",
    b"<html",
    b"utf-8",
    b"iso-8859-1",
    b"windows-1252",
    b"UTF-16",
    b";",
    b"&",
    b"\x00<\x00",
    b"<\x00",
];

const HTTP_TOKENS: &[&[u8]] = &[
    b"\r\n",
    b"\n",
    b"\r\n\r\n",
    b"Content-Type: ",
    b"content-type:",
    b"text/html",
    b"; charset=",
    b";charset=",
    b"application/xhtml+xml",
    b"text/xml",
    b"application/xml",
    b" ",
    b"\t",
    b"\r\n ",
    b"\"",
    b"\\",
    b";",
    b",",
    b"=",
    b"HTTP/1.1 200 OK\r\n",
    b"utf-8",
    b"x-user-defined",
    b"<meta charset=utf-8>",
    b"<?xml version=\"1.0\" encoding=\"latin1\"?>",
];

fn markup(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.below(16) {
        let token = *rng.pick(MARKUP_TOKENS);
        out.extend_from_slice(token);
    }
    out
}

fn http(rng: &mut Rng) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\n".to_vec();
    for _ in 0..rng.below(16) {
        let token = *rng.pick(HTTP_TOKENS);
        out.extend_from_slice(token);
    }
    out.extend_from_slice(&markup(rng));
    out
}

/// The documents of the html5lib encoding tests.
fn html_seeds() -> Vec<Vec<u8>> {
    let lines = checkout_files("tests/data/peers/html5lib-encoding/tests.jsonl");
    let text =
        String::from_utf8_lossy(lines.first().map_or(&[][..], |l| l.as_slice())).into_owned();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|case| case["data"].as_str().map(|s| s.as_bytes().to_vec()))
        .chain(
            checkout_files("corpus")
                .into_iter()
                .filter(|f| f.len() < 100_000),
        )
        .collect()
}

fn http_seeds() -> Vec<Vec<u8>> {
    checkout_files("tests/data/peers/html-encoding-perl/http")
}

#[test]
fn fuzz_content_type() {
    let seeds = http_seeds()
        .iter()
        .flat_map(|message| {
            let message = HttpMessage::parse(message);
            message
                .header_values("Content-Type")
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect();
    Target {
        name: "content_type",
        inputs: 50_000,
        seeds,
        dictionary: HTTP_TOKENS,
        generate: http,
    }
    .fuzz(|input| {
        charset::encoding_from_content_type(input);
        charset::first_header_component(input);
    });
}

#[test]
fn fuzz_http_message() {
    Target {
        name: "http_message",
        inputs: 30_000,
        seeds: http_seeds(),
        dictionary: HTTP_TOKENS,
        generate: http,
    }
    .fuzz(|input| {
        let message = HttpMessage::parse(input);
        message.media_type();
        charset::encoding_from_http_message(&message, &HttpOptions::default());
        charset::determine_http_message(&message, &PolicyOptions::default());
    });
}

#[test]
fn fuzz_meta_prescan() {
    Target {
        name: "meta_prescan",
        inputs: 15_000,
        seeds: html_seeds(),
        dictionary: MARKUP_TOKENS,
        generate: markup,
    }
    .fuzz(|input| {
        charset::encoding_from_html5_prescan(input);
        charset::prescan_meta(input);
        charset::prescan::encoding_from_meta_content(input);
        for &suspect in DEFAULT_SUSPECTS {
            charset::encoding_from_meta_element(input, suspect);
        }
    });
}

#[test]
fn fuzz_xml_declaration() {
    Target {
        name: "xml_declaration",
        inputs: 30_000,
        seeds: html_seeds(),
        dictionary: MARKUP_TOKENS,
        generate: markup,
    }
    .fuzz(|input| {
        charset::encoding_from_xml_declaration(&String::from_utf8_lossy(input));
        charset::xml_declaration_from_octets(input, DEFAULT_SUSPECTS);
        charset::encoding_from_xml_declarations(input, DEFAULT_SUSPECTS);
        charset::encoding_from_xml_document(input, DEFAULT_SUSPECTS);
    });
}

#[test]
fn fuzz_html_document() {
    Target {
        name: "html_document",
        inputs: 15_000,
        seeds: html_seeds(),
        dictionary: MARKUP_TOKENS,
        generate: markup,
    }
    .fuzz(|input| {
        for xhtml in [false, true] {
            let options = HtmlOptions {
                xhtml,
                ..HtmlOptions::default()
            };
            charset::encoding_from_html_document(input, &options);
        }
        charset::determine(input, Some(b"text/html"), &PolicyOptions::default());
        charset::determine_whatwg(input, None, None);
        charset::determine_whatwg(input, Some(b"text/html; charset=utf-16"), None);
    });
}

#[test]
fn fuzz_sql_head() {
    Target {
        name: "sql_head",
        inputs: 8_000,
        seeds: dump_seeds(),
        dictionary: SQL_TOKENS,
        generate: sql_fragments,
    }
    .fuzz(|input| {
        charset::looks_like_sql(input);
        for declaration in charset::sql_declarations(input) {
            declaration.meaning();
        }
        let text = String::from_utf8_lossy(input);
        charset::mysql_charset(&text);
        charset::postgresql_encoding(&text);
        charset::determine(input, None, &PolicyOptions::default());
        dump::dialect_from_header(input);
    });
}

// ---------------------------------------------------------------------------------------------
// `scan --json` records, as `merge` reads them from other machines.

const JSON_TOKENS: &[&[u8]] = &[
    b"{\"type\":\"file\",",
    b"{\"type\":\"total\",",
    b"{\"type\":\"header\"}",
    b"\"range\":{\"start\":0,\"end\":18446744073709551615,\"file_bytes\":null}",
    b"\"range\":{\"start\":5,\"end\":7,\"file_bytes\":7,",
    b"\"broken_cell_ends\":{\"first\":{\"cell\":3,\"table\":99,\"column\":4},\"last\":3}",
    b"\"survey_basis\":{\"format\":\"sql\",\"declared\":[],\"storage\":[],\"bom\":null,\"wide\":null,\"bytes\":0,\"not_utf8\":null}",
    b"\"not_utf8\":{\"invalid_at\":4,\"evidence\":{\"encoding\":\"windows-1252\",\"method\":\"statistical\",\"guess\":true,\"confidence\":0.5,\"evidence\":\"x\"},\"guess\":\"replacement\"}",
    b"\"wide\":{\"encoding\":\"UTF-32BE\",\"evidence\":null}",
    b"\"no_encoding\":true",
    b"\"tables\":[]",
    b"\"columns\":[]",
    b"\"path\":\"a\"",
    b"\"first_invalid_offset\":0",
    b"18446744073709551615",
    b"-1",
    b"null",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b":",
    b"\"",
    b"\n",
    b"\\u2028",
];

/// `scan --json` outputs of the corpus, whole and in ranges (dumps among them), from the
/// built binary: what `merge` is given.
fn scan_seeds() -> Vec<Vec<u8>> {
    let binary = env!("CARGO_BIN_EXE_undouble");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Vec::new();
    for file in ["corpus/dump-sample.sql", "corpus/clean-multilingual.txt"] {
        for range in [None, Some("0-300"), Some("300-")] {
            let mut command = std::process::Command::new(binary);
            command.args(["scan", "--json", "--top", "1000"]);
            if let Some(range) = range {
                command.args(["--range", range]);
            }
            if let Ok(output) = command.arg(root.join(file)).output() {
                seeds.push(output.stdout);
            }
        }
    }
    seeds
}

/// Random records, the fields of a file record among them.
fn json_fragments(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(12) {
        let token = *rng.pick(JSON_TOKENS);
        out.extend_from_slice(token);
    }
    out
}

#[test]
fn fuzz_merge() {
    Target {
        name: "merge",
        inputs: 3_000,
        seeds: scan_seeds(),
        dictionary: JSON_TOKENS,
        generate: json_fragments,
    }
    .fuzz(|input| {
        // Two parts, cut at a line: the ranges of one file, or two machines' outputs.
        let half = input.len() / 2;
        let cut = memchr::memchr(b'\n', &input[half..]).map_or(input.len(), |at| half + at + 1);
        let mut merge = undouble::report::merge::ScanMerge::new(5);
        let _ = merge.read("one", &String::from_utf8_lossy(&input[..cut]));
        let _ = merge.read("two", &String::from_utf8_lossy(&input[cut..]));
        if let Ok(records) = merge.records() {
            for record in &records {
                undouble::report::json_line(record);
            }
        }
    });
}
