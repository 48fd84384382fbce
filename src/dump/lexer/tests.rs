//! The lexer's tests: each dialect's dump read whole and cut at every byte, and the errors of
//! what is not understood. They are apart so that the lexer's files hold only the lexer.

use super::*;

/// A value as the tests see it: its table and column (or `ddl`), its row label and its
/// bytes (pieces joined).
type Found = (String, String, Vec<u8>);

/// An edit as the tests see it: the bytes replaced, and by what.
type Edited = (String, &'static str);

/// Lexes `input` cut into buffers at `cuts`, carrying what a buffer leaves over to the
/// next, as the driver does; returns the text values and the edited bytes.
fn lex_cut(
    dialect: SqlDialect,
    convert: bool,
    input: &[u8],
    cuts: &[usize],
) -> Result<(Vec<Found>, Vec<Edited>, Lexer), LexError> {
    lex_cut_with(Lexer::new(dialect, convert), input, cuts)
}

/// [`lex_cut`] with a lexer made ready beforehand.
fn lex_cut_with(
    mut lexer: Lexer,
    input: &[u8],
    cuts: &[usize],
) -> Result<(Vec<Found>, Vec<Edited>, Lexer), LexError> {
    let mut lexed = Lexed::default();
    let mut found: Vec<(u64, Found)> = Vec::new();
    let mut edits = Vec::new();
    let mut tail: Vec<u8> = Vec::new();
    let mut bounds: Vec<usize> = cuts.to_vec();
    bounds.push(input.len());
    let mut from = 0;
    for (i, &to) in bounds.iter().enumerate() {
        let last = i + 1 == bounds.len();
        let mut buffer = std::mem::take(&mut tail);
        buffer.extend_from_slice(&input[from..to.max(from)]);
        from = to.max(from);
        let consumed = lexer.lex(&buffer, last, &mut lexed)?;
        for value in &lexed.values {
            let bytes = buffer[value.span.clone()].to_vec();
            let (table, row) = match value.place {
                Place::Cell { table, column, row } => {
                    let table = &lexer.schema.tables[table as usize];
                    let column = &table.columns[column as usize].name;
                    let kept = if value.text { "" } else { " (kept)" };
                    let name = format!("{}.{column}{kept}", table.name);
                    let row = &lexed.rows[row as usize];
                    let key = String::from_utf8_lossy(&lexed.keys[row.key.clone()]);
                    (name, format!("{}:{key}", row.ordinal))
                }
                Place::Definition => ("ddl".into(), String::new()),
            };
            match found.last_mut() {
                Some((cell, (_, _, joined))) if *cell == value.cell => joined.extend(bytes),
                _ => found.push((value.cell, (table, row, bytes))),
            }
        }
        for edit in &lexed.edits {
            edits.push((
                String::from_utf8_lossy(&buffer[edit.span.clone()]).into_owned(),
                edit.text,
            ));
        }
        tail = buffer[consumed..].to_vec();
    }
    Ok((found.into_iter().map(|(_, f)| f).collect(), edits, lexer))
}

fn lex_whole(dialect: SqlDialect, input: &str) -> Result<Vec<Found>, LexError> {
    lex_cut(dialect, false, input.as_bytes(), &[]).map(|(found, _, _)| found)
}

/// Lexes `input` whole, checks that a buffer ending at any byte finds the same values, and
/// returns them, with the lexer that read it whole.
fn lex_at_every_cut(dialect: SqlDialect, input: &[u8]) -> (Vec<Found>, Lexer) {
    let (got, _, lexer) = match lex_cut(dialect, false, input, &[]) {
        Ok(whole) => whole,
        Err(error) => panic!("{error:?}"),
    };
    for cut in 1..input.len() {
        let cut_up = lex_cut(dialect, false, input, &[cut]);
        assert_eq!(
            cut_up.map(|(found, _, _)| found).as_ref(),
            Ok(&got),
            "cut at {cut}"
        );
    }
    (got, lexer)
}

fn found(table: &str, row: &str, bytes: &str) -> Found {
    (table.into(), row.into(), bytes.as_bytes().to_vec())
}

const MYSQL: &str = "-- MariaDB dump 10.19
/*M!999999\\- enable the sandbox mode */ 
/*!40101 SET NAMES latin1 */;
CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `name` varchar(100) DEFAULT NULL COMMENT 'nÃ©',
  `data` blob,
  `code` char(2) CHARACTER SET latin1 COLLATE latin1_bin,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO `t` VALUES (1,'a\\\\b\\'c\\\"d\\0e\\nf\\rg\\Zh''i','Ã©\\'\\0',NULL),(2,_binary 'Ã©',0x41C3A9,'x'),
(-3,_utf8mb4'cafÃ©',X'C3A9',DEFAULT),(4,\"dq\",b'101','é');
INSERT INTO `t` (`code`, `id`, `data`, `name`) VALUES ('c',5,'Ã©','n');
DELIMITER ;;
/*!50003 CREATE*/ /*!50003 TRIGGER `x` BEFORE INSERT ON `t` FOR EACH ROW SET NEW.name = 'a;b' */;;
DELIMITER ;
LOCK TABLES `t` WRITE;
UNLOCK TABLES;
-- Dump completed
";

fn mysql_expected() -> Vec<Found> {
    vec![
        found("ddl", "", "nÃ©"),
        found("t.name", "1:1", "a\\\\b\\'c\\\"d\\0e\\nf\\rg\\Zh''i"),
        found("t.code", "2:2", "x"),
        found("t.data (kept)", "1:1", "Ã©\\'\\0"),
        found("t.name (kept)", "2:2", "Ã©"),
        found("t.data (kept)", "3:-3", "C3A9"),
        found("t.data (kept)", "4:4", "101"),
        found("t.data (kept)", "5:5", "Ã©"),
        found("t.code", "4:4", "é"),
        found("t.name", "4:4", "dq"),
        found("t.name", "3:-3", "cafÃ©"),
        found("t.code", "5:5", "c"),
        found("t.name", "5:5", "n"),
    ]
}

#[test]
fn mysql_values_of_text_columns_only() {
    let mut got = match lex_whole(SqlDialect::MySql, MYSQL) {
        Ok(got) => got,
        Err(error) => panic!("{error:?}"),
    };
    let mut expected = mysql_expected();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
}

/// The values and edits found with `input` cut at `cuts`, rows named by number only: a
/// row cut by the end of a buffer before its key was read is reported without it.
fn by_number(input: &[u8], cuts: &[usize]) -> Result<(Vec<Found>, Vec<Edited>), LexError> {
    let (found, edits, _) = lex_cut(SqlDialect::MySql, true, input, cuts)?;
    let found = found
        .into_iter()
        .map(|(table, row, bytes)| (table, row.split(':').next().unwrap_or("").to_owned(), bytes))
        .collect();
    Ok((found, edits))
}

#[test]
fn every_cut_gives_the_same_values() {
    let input = MYSQL.as_bytes();
    let whole = by_number(input, &[]);
    for cut in 1..input.len() {
        assert_eq!(by_number(input, &[cut]), whole, "cut at {cut}");
    }
    let cuts: Vec<usize> = (3..input.len()).step_by(7).collect();
    assert_eq!(by_number(input, &cuts), whole);
}

#[test]
fn convert_finds_the_latin1_declarations() {
    let (_, edits, _) = match lex_cut(SqlDialect::MySql, true, MYSQL.as_bytes(), &[]) {
        Ok(result) => result,
        Err(error) => panic!("{error:?}"),
    };
    let edits: Vec<(&str, &str)> = edits.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    assert_eq!(
        edits,
        [
            ("latin1", "utf8mb4"),
            ("latin1", "utf8mb4"),
            ("latin1_bin", "utf8mb4_bin"),
            ("latin1", "utf8mb4"),
        ]
    );
}

#[test]
fn counts_rows_and_cells() {
    let Ok((_, _, lexer)) = lex_cut(SqlDialect::MySql, false, MYSQL.as_bytes(), &[40, 400]) else {
        panic!("lexes");
    };
    let table = &lexer.schema.tables[0];
    assert_eq!(table.rows, 5);
    assert!(table.columns.iter().all(|c| c.cells == 5));
    assert_eq!(table.primary_key, [0]);
    // `NULL` once in `code` (row 1); `DEFAULT` (row 3) is no `NULL`.
    let nulls: Vec<u64> = table.columns.iter().map(|c| c.nulls).collect();
    assert_eq!(nulls, [0, 0, 0, 1]);
}

#[test]
fn nulls_are_counted_once_wherever_a_buffer_ends() {
    let input = POSTGRESQL.as_bytes();
    for cut in 1..input.len() {
        let Ok((_, _, lexer)) = lex_cut(SqlDialect::PostgreSql, false, input, &[cut]) else {
            panic!("lexes with a cut at {cut}");
        };
        // `\N` in COPY (note of row 1, name and data of row 2), `NULL` nowhere else.
        let nulls: Vec<u64> = lexer.schema.tables[0]
            .columns
            .iter()
            .map(|c| c.nulls)
            .collect();
        assert_eq!(nulls, [0, 1, 1, 1], "cut at {cut}");
    }
    let input = "CREATE TABLE t (a int, b text);\nINSERT INTO t VALUES (NULL,null),(1,'NULL');\n";
    for cut in 1..input.len() {
        let Ok((_, _, lexer)) = lex_cut(SqlDialect::MySql, false, input.as_bytes(), &[cut]) else {
            panic!("lexes with a cut at {cut}");
        };
        let nulls: Vec<u64> = lexer.schema.tables[0]
            .columns
            .iter()
            .map(|c| c.nulls)
            .collect();
        assert_eq!(nulls, [1, 1], "cut at {cut}");
    }
}

#[test]
fn data_only_reads_with_a_lent_schema_and_its_own_definitions_win() {
    let Ok((_, _, schema_dump)) = lex_cut(
        SqlDialect::MySql,
        false,
        b"CREATE TABLE `t` (`id` int, `a` text, `b` text, PRIMARY KEY (`id`));\n\
              USE `elsewhere`;\nDELIMITER ;;\n",
        &[],
    ) else {
        panic!("the schema lexes");
    };
    let mut lexer = Lexer::new(SqlDialect::MySql, false);
    lexer.schema = schema_dump.schema.lend();
    let data = b"INSERT INTO `t` VALUES (7,'x','y');\n\
                     CREATE TABLE `t` (`id` int, `a` text, `b` blob);\nINSERT INTO `t` VALUES (8,'p','q');\n";
    let mut lexed = Lexed::default();
    // Neither the `USE` nor the `DELIMITER` of the schema dump carries over.
    assert_eq!(lexer.lex(data, true, &mut lexed), Ok(data.len()));
    let kinds: Vec<bool> = lexed.values.iter().map(|v| v.text).collect();
    assert_eq!(kinds, [true, true, true, false]);
    assert_eq!(lexed.keys, b"7");
    let undefined = Lexer::new(SqlDialect::MySql, false).lex(data, true, &mut lexed);
    assert!(undefined.is_err_and(|e| e.undefined_table && e.line == 1));
}

#[test]
fn lines_of_many_megabytes() {
    let text = "Ã©".repeat(1 << 20);
    let hex = "41".repeat(3 << 20);
    let input = format!(
        "CREATE TABLE t (id int, a text, b blob, PRIMARY KEY (id));\n\
             INSERT INTO t VALUES (1,'{text}',0x{hex}),(2,'x\\'y','{text}');\n"
    );
    let bytes = input.as_bytes();
    let cuts: Vec<usize> = (1..bytes.len()).step_by(1 << 20).map(|c| c + 13).collect();
    let Ok((got, _, _)) = lex_cut(SqlDialect::MySql, false, bytes, &cuts) else {
        panic!("lexes");
    };
    let texts: Vec<&Found> = got.iter().filter(|f| !f.0.ends_with("(kept)")).collect();
    assert!(texts.len() == 2 && texts[0] == &found("t.a", "1:1", &text));
    assert_eq!(texts[1], &found("t.a", "2:2", "x\\'y"));
    // The blob of row 2 is kept, whole; the hexadecimal literal of row 1 is no string.
    let kept: Vec<&Found> = got.iter().filter(|f| f.0.ends_with("(kept)")).collect();
    assert!(kept.len() == 1 && kept[0] == &found("t.b (kept)", "2:2", &text));
}

#[test]
fn a_row_key_is_whole_or_missing() {
    let input = "CREATE TABLE t (a int, note text, b varchar(5), PRIMARY KEY (a, b));\n\
                     INSERT INTO t VALUES (1,'x','k'),(2,'y','l');\n";
    for cut in 0..=input.len() {
        let Ok((found, _, _)) = lex_cut(SqlDialect::MySql, false, input.as_bytes(), &[cut]) else {
            panic!("lexes with a cut at {cut}");
        };
        let notes: Vec<&str> = found
            .iter()
            .filter(|f| f.0 == "t.note")
            .map(|f| f.1.as_str())
            .collect();
        assert_eq!(notes.len(), 2, "cut at {cut}");
        assert!(
            ["1:1\0k", "1:"].contains(&notes[0]),
            "cut at {cut}: {notes:?}"
        );
        assert!(
            ["2:2\0l", "2:"].contains(&notes[1]),
            "cut at {cut}: {notes:?}"
        );
    }
}

const POSTGRESQL: &str = "--
-- PostgreSQL database dump
--

\\restrict abc
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
CREATE FUNCTION public.f() RETURNS text LANGUAGE sql AS $_$ SELECT 'x;y' $_$;
CREATE TABLE public.t (
    id integer NOT NULL,
    name text,
    data bytea,
    note character varying(20)
);
COMMENT ON COLUMN public.t.name IS 'cafÃ©';
COPY public.t (id, name, data, note) FROM stdin;
1\tcafÃ©\\tx\t\\\\x43c3a9\t\\N
2\t\\N\t\\N\tÃ©
\\.
INSERT INTO public.t VALUES (3, 'it''s', '\\xC3A9', E'a\\'b');
\\unrestrict abc
";

#[test]
fn postgresql_copy_and_inserts() {
    let got = lex_whole(SqlDialect::PostgreSql, POSTGRESQL);
    let expected = vec![
        found("ddl", "", "cafÃ©"),
        found("public.t.name", "1:", "cafÃ©\\tx"),
        found("public.t.data (kept)", "1:", "\\\\x43c3a9"),
        found("public.t.note", "2:", "Ã©"),
        found("public.t.name", "3:", "it''s"),
        found("public.t.data (kept)", "3:", "\\xC3A9"),
        found("public.t.note", "3:", "a\\'b"),
    ];
    assert_eq!(got, Ok(expected));
    let input = POSTGRESQL.as_bytes();
    for cut in (1..input.len()).step_by(3) {
        let cut_up = lex_cut(SqlDialect::PostgreSql, false, input, &[cut]).map(|(f, _, _)| f);
        assert_eq!(
            cut_up,
            lex_whole(SqlDialect::PostgreSql, POSTGRESQL),
            "cut at {cut}"
        );
    }
}

/// What pg_dump writes that MySQL has no counterpart for: a SQL-standard routine body
/// (statements ending in `;` between `BEGIN ATOMIC` and `END`, a `CASE ... END` among
/// them), a table without columns (its rows are empty lines in COPY, `DEFAULT VALUES` with
/// `--inserts`), and COPY fields where a backslash comes before a raw tab or newline (data,
/// as COPY FROM reads it) or before another backslash (then the tab ends the field).
const POSTGRESQL_ROUTINES_AND_ESCAPES: &str = "SET standard_conforming_strings = on;
CREATE TABLE public.t (
    id integer NOT NULL,
    name text,
    note text
);
CREATE PROCEDURE public.ins(IN x text)
    LANGUAGE sql
    BEGIN ATOMIC
 SELECT 1;
 INSERT INTO public.t (id, name, note)
   VALUES (1, 'cafÃ©'::text, x);
 SELECT
         CASE
             WHEN (x = 'a'::text) THEN 1
             ELSE 2
         END AS \"case\";
END;
CREATE OR REPLACE FUNCTION public.plus1(a integer) RETURNS integer
    LANGUAGE sql
    RETURN (a + 1);
CREATE TABLE public.e (
);
COPY public.e  FROM stdin;


\\.
INSERT INTO public.e DEFAULT VALUES;
COPY public.t (id, name, note) FROM stdin;
1\tx\\\ty\tÃ©
2\tl1\\\nl2\tn
3\t\\\\\tz
\\.
";

#[test]
fn postgresql_routine_bodies_empty_tables_and_escaped_copy_fields() {
    let input = POSTGRESQL_ROUTINES_AND_ESCAPES.as_bytes();
    let (got, lexer) = lex_at_every_cut(SqlDialect::PostgreSql, input);
    assert_eq!(
        got,
        vec![
            found("public.t.name", "1:", "x\\\ty"),
            found("public.t.note", "1:", "Ã©"),
            found("public.t.name", "2:", "l1\\\nl2"),
            found("public.t.note", "2:", "n"),
            found("public.t.name", "3:", "\\\\"),
            found("public.t.note", "3:", "z"),
        ]
    );
    let rows: Vec<(&str, u64)> = lexer
        .schema
        .tables
        .iter()
        .map(|t| (t.name.as_str(), t.rows))
        .collect();
    assert_eq!(rows, [("public.t", 3), ("public.e", 3)]);
}

#[test]
fn partitions_and_like_tables_take_their_parents_columns() {
    let input = "CREATE TABLE public.m (id integer, city text, data bytea) PARTITION BY RANGE (id);\n\
                     CREATE TABLE public.m_1 PARTITION OF public.m FOR VALUES FROM (1) TO (9);\n\
                     COPY public.m_1 (id, city, data) FROM stdin;\n1\tOsl\\\\o\t\\\\x00\n\\.\n";
    let got = lex_whole(SqlDialect::PostgreSql, input);
    assert_eq!(
        got,
        Ok(vec![
            found("public.m_1.city", "1:", "Osl\\\\o"),
            found("public.m_1.data (kept)", "1:", "\\\\x00"),
        ])
    );
    let input = "CREATE TABLE `a` (`id` int, `t` text, PRIMARY KEY (`id`));\n\
                     CREATE TABLE `b` LIKE `a`;\nINSERT INTO `b` VALUES (7,'x');\n";
    assert_eq!(
        lex_whole(SqlDialect::MySql, input),
        Ok(vec![found("b.t", "1:7", "x")])
    );
}

fn error_of(dialect: SqlDialect, input: &str) -> (u64, String) {
    match lex_whole(dialect, input) {
        Err(LexError { line, message, .. }) => (line, message),
        Ok(found) => panic!("no error: {found:?}"),
    }
}

/// Runs `f` on a thread of its own and fails if it is not done within a few seconds: a
/// lexer that loops forever must fail its test, not hang the suite.
fn finishes<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    use std::sync::mpsc::RecvTimeoutError;
    let (send, receive) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || send.send(f()));
    match receive.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(result) => result,
        Err(RecvTimeoutError::Disconnected) => match thread.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(_) => unreachable!("a thread that sent nothing ended"),
        },
        Err(RecvTimeoutError::Timeout) => panic!("{what}: no answer within 10 s"),
    }
}

#[test]
fn a_comment_cut_by_a_buffer_end_is_read_on_in_the_next_buffer() {
    // No `*` between the cut and the comment's end: the buffer ends inside it.
    let input = b"/* a comment with no star before its end */\nCREATE TABLE t (id int, a text);\n\
            /* another\n one */ INSERT INTO t VALUES (1,'x');\n/* a ** / * b */\n";
    for dialect in [SqlDialect::MySql, SqlDialect::PostgreSql] {
        let (got, _) = finishes("lexing", move || lex_at_every_cut(dialect, input));
        assert_eq!(got, [found("t.a", "1:", "x")], "{dialect:?}");
    }
    let nested = b"/* a /* nested */ comment */ SELECT 1;\n";
    let (got, _) = finishes("lexing", || {
        lex_at_every_cut(SqlDialect::PostgreSql, nested)
    });
    assert!(got.is_empty());
}

#[test]
fn a_create_of_many_modifiers_is_read_in_linear_time() {
    // Each token of a statement not yet classified is looked at once, not once per token
    // after it.
    let input = format!("CREATE {}TABLE t (a text);\n", "OR ".repeat(300_000));
    let found = finishes("lexing", move || lex_whole(SqlDialect::MySql, &input));
    assert_eq!(found, Ok(vec![]));
}

#[test]
fn a_dump_that_ends_inside_a_comment_is_an_error_wherever_buffers_end() {
    for dialect in [SqlDialect::MySql, SqlDialect::PostgreSql] {
        for input in [
            "/*",
            "/* x",
            "/* x *",
            "/**",
            "SELECT 1;\n/* x\n",
            "/* a */ /* b",
        ] {
            let lines = 1 + input.matches('\n').count() as u64;
            for cut in 0..=input.len() {
                let cuts = if cut == 0 { vec![] } else { vec![cut] };
                let result = finishes("lexing", move || {
                    lex_cut(dialect, false, input.as_bytes(), &cuts).map(|(found, ..)| found)
                });
                let error = LexError {
                    line: lines,
                    offset: input.len() as u64,
                    message: "the dump ends inside a comment".into(),
                    undefined_table: false,
                };
                assert_eq!(result, Err(error), "{dialect:?} {input:?} cut at {cut}");
            }
        }
    }
}

#[test]
fn what_is_not_understood_is_an_error_naming_the_line() {
    let table = "CREATE TABLE t (id int, a text);\n";
    let mysql = SqlDialect::MySql;
    let (line, message) = error_of(mysql, &format!("{table}\nFROBNICATE t;\n"));
    assert_eq!(
        (line, message.as_str()),
        (3, "unexpected statement `FROBNICATE`")
    );
    let (line, message) = error_of(mysql, "\nINSERT INTO u VALUES (1,'a');\n");
    assert_eq!(line, 2);
    assert!(message.contains("no CREATE TABLE"), "{message}");
    let (line, message) = error_of(
        mysql,
        &format!("{table}INSERT INTO t VALUES (1,'a'),\n(2);\n"),
    );
    assert_eq!(
        (line, message.as_str()),
        (3, "a row of 1 values for 2 columns")
    );
    let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t VALUES (1,'a',3);\n"));
    assert_eq!((line, message.as_str()), (2, "a row of more than 2 values"));
    let (line, message) = error_of(
        mysql,
        &format!("{table}INSERT INTO t VALUES (1,'a');\nINSERT INTO t VALUES (1,'a\n"),
    );
    assert_eq!(line, 3);
    assert!(message.contains("unterminated"), "{message}");
    let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t VALUES (1,a);\n"));
    assert_eq!((line, message.as_str()), (2, "unexpected value `a`"));
    let (line, message) = error_of(mysql, &format!("{table}INSERT INTO t (b) VALUES (1);\n"));
    assert_eq!((line, message.as_str()), (2, "table `t` has no column `b`"));
    let postgresql = SqlDialect::PostgreSql;
    let copy = "CREATE TABLE t (id int, a text);\nCOPY t (id, a) FROM stdin;\n";
    let (line, message) = error_of(postgresql, &format!("{copy}1\tx\n2\n\\.\n"));
    assert_eq!(
        (line, message.as_str()),
        (4, "a row of 1 fields for 2 columns")
    );
    let (line, message) = error_of(postgresql, &format!("{copy}1\tx\n"));
    assert_eq!(line, 4);
    assert!(message.contains("COPY data"), "{message}");
}

#[test]
fn a_key_added_before_the_data_names_its_rows_and_one_added_after_it_none() {
    let pg = SqlDialect::PostgreSql;
    let table = "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n";
    let key = "ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n";
    let data = "COPY public.t (id, name) FROM stdin;\n7\tx\n\\.\n";
    // pg_dump --schema-only, lent to pg_dump --data-only (as --schema does).
    let Ok((_, _, schema_dump)) = lex_cut(pg, false, format!("{table}{key}").as_bytes(), &[])
    else {
        panic!("the schema lexes");
    };
    let mut lexer = Lexer::new(pg, false);
    lexer.schema = schema_dump.schema.lend();
    let mut lexed = Lexed::default();
    assert_eq!(lexer.lex(data.as_bytes(), true, &mut lexed), Ok(data.len()));
    assert_eq!(lexed.keys, b"7");
    // One full pg_dump: the key comes after the data, which stays named by number.
    let full = format!("{table}{data}{key}");
    for cut in 0..=full.len() {
        let Ok((values, _, lexer)) = lex_cut(pg, false, full.as_bytes(), &[cut]) else {
            panic!("lexes with a cut at {cut}");
        };
        assert_eq!(values, [found("public.t.name", "1:", "x")], "cut at {cut}");
        assert!(
            lexer.schema.tables[0].primary_key.is_empty(),
            "cut at {cut}"
        );
    }
}

#[test]
fn keys_declared_after_the_data_name_its_rows_unless_the_table_declares_its_own() {
    let pg = SqlDialect::PostgreSql;
    let key = |table: &str, columns: &str| {
        format!(
            "--\n-- Name: {table} {table}_pkey; Type: CONSTRAINT; Schema: public; Owner: o\n\
                 --\n\nALTER TABLE ONLY public.{table}\n    \
                 ADD CONSTRAINT {table}_pkey PRIMARY KEY ({columns});\n\n"
        )
    };
    // `own` declares a key of its own; `gone`'s later key names a column it lacks.
    let full = format!(
        "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n\
             CREATE TABLE public.own (\n    id integer PRIMARY KEY,\n    name text\n);\n\
             CREATE TABLE public.gone (\n    id integer,\n    name text\n);\n\
             COPY public.t (id, name) FROM stdin;\n7\tx\n\\.\n\
             COPY public.own (id, name) FROM stdin;\n8\ty\n\\.\n\
             COPY public.gone (id, name) FROM stdin;\n9\tz\n\\.\n\
             {}{}{}",
        key("t", "id"),
        key("own", "name"),
        key("gone", "nowhere")
    );
    let expected = [
        found("public.t.name", "1:7", "x"),
        found("public.own.name", "1:8", "y"),
        found("public.gone.name", "1:", "z"),
    ];
    for cut in 0..=full.len() {
        let mut lexer = Lexer::new(pg, false);
        lexer.later_keys = LaterKeys::in_window(full.as_bytes(), 0);
        let Ok((values, _, _)) = lex_cut_with(lexer, full.as_bytes(), &[cut]) else {
            panic!("lexes with a cut at {cut}");
        };
        assert_eq!(values, expected, "cut at {cut}");
    }
}

/// A typed table as pg_dump writes it, its type first, and a domain over text: their
/// values and the domain's check are text, an enum's label is not.
const POSTGRESQL_TYPES: &str = "CREATE DOMAIN public.lang AS text
\tCONSTRAINT lang_check CHECK ((VALUE <> 'cafÃ©'::text));
CREATE TYPE public.mood AS ENUM (
    'naÃ¯ve'
);
CREATE TYPE public.pair AS (
\ta text,
\tb integer,
\tl public.lang,
\tm public.mood
);
CREATE TABLE public.typed OF public.pair (
    b NOT NULL
);
COPY public.typed (a, b, l, m) FROM stdin;
GrÃ¼Ãe\t1\tnaÃ¯ve\tnaÃ¯ve
\\.
ALTER TABLE ONLY public.typed
    ADD CONSTRAINT typed_pkey PRIMARY KEY (b);
";

#[test]
fn typed_tables_and_domains_over_text() {
    let input = POSTGRESQL_TYPES.as_bytes();
    let (got, _) = lex_at_every_cut(SqlDialect::PostgreSql, input);
    assert_eq!(
        got,
        vec![
            found("ddl", "", "cafÃ©"),
            found("public.typed.a", "1:", "GrÃ¼Ãe"),
            found("public.typed.l", "1:", "naÃ¯ve"),
        ]
    );
    // Without its type (pg_dump -t leaves it out), the table's data cannot be read.
    let typed_at = POSTGRESQL_TYPES.find("CREATE TABLE").unwrap_or_default();
    let (line, message) = error_of(SqlDialect::PostgreSql, &POSTGRESQL_TYPES[typed_at..]);
    assert_eq!(line, 4);
    assert!(
        message.starts_with(
            "data for table `public.typed`, a typed table (OF public.pair) whose columns are \
                 those of the type `public.pair`, which no CREATE TYPE before it defines"
        ),
        "{message}"
    );
}

/// A pg_dump whose checks and a child's default went through a LATIN1 client, garbled:
/// a check in the table, one `NOT VALID` added after the data, the default of a column the
/// child inherits, set apart from it (the literals of the check on a number stay).
const POSTGRESQL_CHECKS: &str = "CREATE TABLE public.orders (
    id integer NOT NULL,
    status character varying(20),
    n integer,
    CONSTRAINT orders_status_check CHECK (((status)::text = ANY ((ARRAY['payÃ©'::character varying, 'annulÃ©'::character varying])::text[]))),
    CONSTRAINT orders_n_check CHECK (((n)::text <> 'Ã©'::text))
);
CREATE TABLE public.child (
)
INHERITS (public.orders);
COPY public.orders (id, status, n) FROM stdin;
1\tpayÃ©\t2
\\.
ALTER TABLE ONLY public.child ALTER COLUMN status SET DEFAULT 'reÃ§u'::character varying;
ALTER TABLE ONLY public.child ALTER COLUMN n SET DEFAULT 0;
ALTER TABLE public.orders
    ADD CONSTRAINT orders_later_check CHECK (((status)::text <> 'dÃ»'::text)) NOT VALID;
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
";

#[test]
fn the_text_literals_of_checks_and_defaults_in_and_after_create_table() {
    let input = POSTGRESQL_CHECKS.as_bytes();
    let (got, _) = lex_at_every_cut(SqlDialect::PostgreSql, input);
    assert_eq!(
        got,
        vec![
            found("ddl", "", "payÃ©"),
            found("ddl", "", "annulÃ©"),
            found("public.orders.status", "1:", "payÃ©"),
            found("ddl", "", "reÃ§u"),
            found("ddl", "", "dÃ»"),
        ]
    );
}
