//! The primary keys that a full `pg_dump` declares after its data, found before the data is
//! read, so that its rows are named by key (`{"id":"42"}`) rather than by number.
//!
//! `pg_dump` writes its primary keys in the post-data section, after every table's rows:
//!
//! ```text
//! --
//! -- Name: notes notes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
//! --
//!
//! ALTER TABLE ONLY public.notes
//!     ADD CONSTRAINT notes_pkey PRIMARY KEY (id);
//! ```
//!
//! The lexer learns such a key too late for the rows it names. Lexing the dump twice would
//! double the cost of a scan, and even a fast search of the whole file would read a dump larger
//! than memory from disk twice. But the post-data section is the end of the file: this reads
//! the file backwards from its end, in windows of growing size ([`FIRST_WINDOW`] up to
//! [`TAIL_LIMIT`]), until a window holds the end of the data (the `\.` that closes a `COPY`
//! block, or the table of contents entry of a table's data), and looks in what follows it for
//! the comment `pg_dump` writes before every object it creates (its table of contents entry,
//! `-- Name: ` at the start of a line) with `memchr::memmem`. Only an entry of `Type:
//! CONSTRAINT` is read further: the statement after its comment block, with the dump's own
//! tokenizer and [`ddl::alter_table`], the reader of the `ALTER TABLE ... ADD PRIMARY KEY` the
//! lexer itself reads. An entry that does not lead to such a statement (a unique or check
//! constraint) gives nothing.
//!
//! What this misses: keys declared further than [`TAIL_LIMIT`] from the end (a post-data
//! section of tens of megabytes), and, in a `pg_dumpall` file, the keys of every database but
//! the last; their rows are named by number, as before. A table of an earlier database with
//! the name of one of the last may take its key, if it has those columns.
//!
//! A hit can still be wrong: a text value may hold such a comment and such a statement on the
//! lines after it (an `INSERT` string with newlines). Its consequence stays cosmetic: a key
//! only names rows, in `scan`'s example rows and the audit log's change records. It decides
//! nothing about which columns hold text nor where a value starts or ends, so no byte that
//! `fix` writes depends on it; and a key naming a column the table lacks is not taken
//! ([`super::schema::Schema::add_primary_key`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use memchr::memmem;
use rustc_hash::FxHashMap as HashMap;

use super::ddl::{self, Context};
use super::schema::{Schema, Types};
use crate::engine::Input;
use crate::error::Error;
use crate::sql::SqlDialect;
use crate::sql::tokens::{Kind, Tokenizer};

/// What starts the table of contents entry `pg_dump` writes before every object: `-- Name: `
/// at the start of a line (the first line of a dump is its header, never an entry).
const ENTRY: &[u8] = b"\n-- Name: ";

/// What the first line of a constraint's entry holds after its names (`FK CONSTRAINT` is a
/// foreign key: no primary key there).
const CONSTRAINT: &[u8] = b"; Type: CONSTRAINT; Schema: ";

/// What ends the data of a `pg_dump`: the line that closes a `COPY` block, and the table of
/// contents entry of a table's data (before the `INSERT`s of `pg_dump --inserts`).
const DATA_ENDS: [&[u8]; 2] = [b"\n\\.\n", b"; Type: TABLE DATA; Schema: "];

/// The first window read from the end of a dump; each next one is four times larger.
const FIRST_WINDOW: u64 = 1 << 20;

/// The most read from the end of a dump: the window where the search for its keys stops.
const TAIL_LIMIT: u64 = 64 << 20;

/// How far past the start of its entry a key's statement may end. An entry's line holds four
/// names, a statement two and the key's columns (at most 32, of at most 63 bytes each, quoted):
/// a few kilobytes at most. One that reaches further is not read.
const REACH: usize = 16 * 1024;

/// The primary keys of a dump's tables as its post-data section declares them, with where
/// each is declared.
#[derive(Debug, Default)]
pub(crate) struct LaterKeys {
    /// By table, as `ddl::tokens::table_key` names it: the offsets of the entries, in order, and the
    /// key's columns.
    by_table: HashMap<String, Vec<(u64, Vec<String>)>>,
}

impl LaterKeys {
    /// The key of `table` whose `CREATE TABLE` lies at `offset`: the first declared after it.
    /// Not simply the table's key: a `pg_dumpall` file holds one dump per database, each with
    /// tables of the same names, whose keys come after their own data.
    pub(crate) fn after(&self, table: &str, offset: u64) -> Option<&[String]> {
        let keys = self.by_table.get(table)?;
        let first_after = keys.partition_point(|&(at, _)| at <= offset);
        keys.get(first_after).map(|(_, key)| key.as_slice())
    }

    /// How many keys were found.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_table.values().map(Vec::len).sum()
    }
}

/// The keys that the dump `input` in `dialect` declares after its data: empty but for a
/// PostgreSQL dump in a regular file (standard input or a pipe cannot be read twice; a MySQL
/// dump declares its keys in its `CREATE TABLE`).
pub(crate) fn later_keys(input: &Input, dialect: SqlDialect) -> Result<LaterKeys, Error> {
    let Input::File(path) = input else {
        return Ok(LaterKeys::default());
    };
    if dialect != SqlDialect::PostgreSql || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(LaterKeys::default());
    }
    let (tail, base) = post_data(path).map_err(|source| Error::Read {
        path: path.clone(),
        offset: 0,
        source,
    })?;
    Ok(LaterKeys::in_window(&tail, base))
}

/// The end of the dump at `path` from where its data ends (at most [`TAIL_LIMIT`] bytes), and
/// its offset in the dump.
fn post_data(path: &Path) -> io::Result<(Vec<u8>, u64)> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut window = FIRST_WINDOW;
    loop {
        let from = len.saturating_sub(window.min(TAIL_LIMIT));
        let mut tail = Vec::new();
        file.seek(SeekFrom::Start(from))?;
        (&mut file).take(len - from).read_to_end(&mut tail)?;
        let data_end = DATA_ENDS
            .iter()
            .filter_map(|end| memmem::rfind(&tail, end).map(|at| at + end.len()))
            .max();
        if let Some(end) = data_end {
            return Ok((tail.split_off(end), from + end as u64));
        }
        if from == 0 || window >= TAIL_LIMIT {
            return Ok((tail, from));
        }
        window *= 4;
    }
}

impl LaterKeys {
    /// The keys declared in `window`, a part of a dump at `base`.
    pub(crate) fn in_window(window: &[u8], base: u64) -> LaterKeys {
        let mut keys = LaterKeys::default();
        for at in memmem::find_iter(window, ENTRY) {
            let reach = &window[at + 1..window.len().min(at + 1 + REACH)];
            if let Some((table, key)) = key_of_entry(reach) {
                let declared = keys.by_table.entry(table).or_default();
                declared.push((base + at as u64, key));
            }
        }
        keys
    }
}

/// The table and the columns of the primary key that the statement after the table of contents
/// entry at the start of `text` adds, if the entry is a constraint's and the statement is
/// `ALTER TABLE ... ADD CONSTRAINT c PRIMARY KEY (columns);`, whole in `text`.
fn key_of_entry(text: &[u8]) -> Option<(String, Vec<String>)> {
    let line_end = memchr::memchr(b'\n', text)?;
    memmem::find(&text[..line_end], CONSTRAINT)?;
    // The tokenizer skips the rest of the comment block, as the lexer does.
    let mut tokenizer = Tokenizer::new(SqlDialect::PostgreSql);
    let mut at = line_end + 1;
    let mut tokens = Vec::new();
    loop {
        let token = tokenizer.next(text, &mut at, true).ok().flatten()?;
        if token.kind == Kind::Delimiter {
            break;
        }
        if tokens.is_empty() && !token.is(text, "ALTER") {
            return None;
        }
        tokens.push(token);
    }
    let context = Context {
        dialect: SqlDialect::PostgreSql,
        convert: false,
        database: None,
        types: &Types::default(),
    };
    let alteration = ddl::alter_table(text, &tokens, &context, &Schema::default())?;
    Some((alteration.table, alteration.primary_key?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(names: &str, kind: &str) -> String {
        format!("--\n-- Name: {names}; Type: {kind}; Schema: public; Owner: postgres\n--\n\n")
    }

    fn key(names: &[&str]) -> Vec<String> {
        names.iter().map(|&n| n.into()).collect()
    }

    /// The keys `later_keys` finds in `dump`, written to a file.
    fn found(dump: &str) -> LaterKeys {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dump.sql");
        std::fs::write(&path, dump).unwrap();
        later_keys(&Input::File(path), SqlDialect::PostgreSql).unwrap()
    }

    /// A full `pg_dump`: `rows` lines of data in `notes` (with `inserts`, as `pg_dump
    /// --inserts` writes them), the last of which holds the text of a key's entry and
    /// statement (a `COPY` block escapes its newlines); then the constraints: a primary key, a
    /// composite one, a unique constraint, a check and a foreign key.
    fn full_dump(rows: usize, inserts: bool) -> String {
        let mut dump = String::from(
            "--\n-- PostgreSQL database dump\n--\n\n\
             CREATE TABLE public.notes (\n    id integer NOT NULL,\n    body text\n);\n\n\
             CREATE TABLE public.pairs (\n    a integer NOT NULL,\n    b text NOT NULL\n);\n\n",
        );
        let look_alike = "\\n-- Name: notes notes_body_pkey; Type: CONSTRAINT; Schema: public; \
                          Owner: me\\n\\nALTER TABLE ONLY public.notes ADD CONSTRAINT k PRIMARY \
                          KEY (body);\\n";
        dump += &entry("notes", "TABLE DATA");
        match inserts {
            false => {
                dump += "COPY public.notes (id, body) FROM stdin;\n";
                for n in 0..rows {
                    dump += &format!("{n}\tsome text\n");
                }
                dump += &format!("{rows}\t{look_alike}\n\\.\n\n");
            }
            true => {
                for n in 0..=rows {
                    dump += &format!("INSERT INTO public.notes VALUES ({n}, 'some text');\n");
                }
                dump += "\n";
            }
        }
        dump += &entry("notes notes_pkey", "CONSTRAINT");
        dump +=
            "ALTER TABLE ONLY public.notes\n    ADD CONSTRAINT notes_pkey PRIMARY KEY (id);\n\n";
        dump += &entry("pairs pairs_pkey", "CONSTRAINT");
        dump +=
            "ALTER TABLE ONLY public.pairs\n    ADD CONSTRAINT pairs_pkey PRIMARY KEY (b, a);\n\n";
        dump += &entry("pairs pairs_b_key", "CONSTRAINT");
        dump += "ALTER TABLE ONLY public.pairs\n    ADD CONSTRAINT pairs_b_key UNIQUE (b);\n\n";
        dump += &entry("notes notes_check", "CONSTRAINT");
        dump += "ALTER TABLE public.notes\n    ADD CONSTRAINT notes_check CHECK ((id > 0)) NOT VALID;\n\n";
        dump += &entry("pairs pairs_a_fkey", "FK CONSTRAINT");
        dump += "ALTER TABLE ONLY public.pairs\n    ADD CONSTRAINT pairs_a_fkey FOREIGN KEY (a) REFERENCES public.notes(id);\n\n";
        dump
    }

    #[test]
    fn finds_primary_keys_and_nothing_else() {
        for inserts in [false, true] {
            let dump = full_dump(3, inserts);
            let keys = found(&dump);
            assert_eq!(keys.len(), 2, "{keys:?}");
            assert_eq!(keys.after("public.notes", 0), Some(&key(&["id"])[..]));
            // In the key's order, as the statement gives it.
            assert_eq!(keys.after("public.pairs", 0), Some(&key(&["b", "a"])[..]));
            assert_eq!(keys.after("public.other", 0), None);
            // The key is declared after the table, never before it.
            let declared = dump.find("-- Name: notes notes_pkey").expect("the entry") as u64;
            assert_eq!(keys.after("public.notes", declared), None);
            assert!(keys.after("public.notes", declared - 2).is_some());
        }
    }

    #[test]
    fn only_the_end_after_the_data_is_read() {
        // Data longer than the first window: the search reads on, to the end of the data.
        for inserts in [false, true] {
            let dump = full_dump(200_000, inserts);
            assert!(dump.len() as u64 > 2 * FIRST_WINDOW);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("dump.sql");
            std::fs::write(&path, &dump).unwrap();
            let (tail, base) = post_data(&path).unwrap();
            let data_end = match inserts {
                false => dump.find("\\.\n").map(|at| at + 3),
                true => dump.find("; Type: TABLE DATA; Schema: ").map(|at| at + 28),
            };
            assert_eq!(Some(base as usize), data_end);
            assert_eq!(tail, dump.as_bytes()[base as usize..]);
            assert_eq!(LaterKeys::in_window(&tail, base).len(), 2);
        }
        // No data at all (a schema dump): the whole file is the window.
        let schema = full_dump(0, false);
        let at = schema.find("--\n-- Name: notes;").expect("the data entry");
        let end = schema.find("\\.\n\n").expect("the end of the data") + 4;
        let schema = format!("{}{}", &schema[..at], &schema[end..]);
        assert_eq!(found(&schema).len(), 2);
    }
}
