//! The tests of the statements read whole: each statement of each dialect, read from its
//! tokens, and the edits of `--convert-charset`. They are apart so that the reader holds only
//! the reader.

use super::alter::Alteration;
use super::create::Definition;
use super::*;
use crate::dump::schema::{ColumnKind, Schema, Table, Types};
use crate::sql::tokens::{Kind, Token, Tokenizer};

fn tokens_of(dialect: SqlDialect, sql: &str) -> Vec<Token> {
    let mut tokenizer = Tokenizer::new(dialect);
    let mut at = 0;
    let mut found = Vec::new();
    while let Ok(Some(token)) = tokenizer.next(sql.as_bytes(), &mut at, true) {
        if token.kind != Kind::Delimiter {
            found.push(token);
        }
    }
    found
}

static NO_TYPES: std::sync::LazyLock<Types> = std::sync::LazyLock::new(Types::default);

fn context(dialect: SqlDialect, database: Option<&str>) -> Context<'_> {
    Context {
        dialect,
        convert: true,
        database,
        types: &NO_TYPES,
    }
}

const CREATE: &str = "CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `name` varchar(100) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'Ã©' COMMENT 'cÃ©',
  `data` blob DEFAULT NULL COMMENT 'the bytes',
  `raw` varchar(10) CHARACTER SET binary DEFAULT 'x',
  `e` enum('a','b') DEFAULT NULL,
  `u` text CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
  PRIMARY KEY (`id`),
  UNIQUE KEY `k` (`name`(10))
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci COMMENT='tbl';";

#[test]
fn create_table_columns_kinds_keys_and_edits() {
    let tokens = tokens_of(SqlDialect::MySql, CREATE);
    let buf = CREATE.as_bytes();
    let definition = create_table(buf, &tokens, &context(SqlDialect::MySql, Some("shop")));
    let Some(definition) = definition else {
        panic!("a table");
    };
    let table = &definition.table;
    assert_eq!(table.name, "shop.t");
    let columns: Vec<(&str, &str, ColumnKind)> = table
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.declared.as_str(), c.kind))
        .collect();
    use ColumnKind::*;
    assert_eq!(
        columns,
        [
            ("id", "int(11)", Other),
            ("name", "varchar(100)", Text),
            ("data", "blob", Binary),
            ("raw", "varchar(10)", Binary),
            ("e", "enum('a','b')", Text),
            ("u", "text", Text),
        ]
    );
    assert_eq!(table.primary_key, [0]);
    let edits: Vec<(&str, &str)> = definition
        .edits
        .iter()
        .map(|e| (&CREATE[e.span.clone()], e.text))
        .collect();
    assert_eq!(
        edits,
        [
            ("latin1", "utf8mb4"),
            ("latin1_bin", "utf8mb4_bin"),
            ("latin1", "utf8mb4"),
            ("latin1_swedish_ci", "utf8mb4_general_ci"),
        ]
    );
    let literals: Vec<&str> = definition
        .text_literals
        .iter()
        .map(|r| &CREATE[r.clone()])
        .collect();
    assert_eq!(literals, ["Ã©", "cÃ©", "the bytes", "a", "b", "tbl"]);
}

#[test]
fn postgresql_create_table() {
    let sql = "CREATE TABLE public.t (\n    id integer NOT NULL,\n    name character varying(20) DEFAULT 'x'::character varying,\n    data bytea,\n    \"Tags\" text[]\n);";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    let definition = create_table(
        sql.as_bytes(),
        &tokens,
        &context(SqlDialect::PostgreSql, None),
    );
    let Some(definition) = definition else {
        panic!("a table");
    };
    let kinds: Vec<(&str, ColumnKind)> = definition
        .table
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("id", ColumnKind::Other),
            ("name", ColumnKind::Text),
            ("data", ColumnKind::Binary),
            ("Tags", ColumnKind::Text),
        ]
    );
    let declared: Vec<&str> = definition
        .table
        .columns
        .iter()
        .map(|c| c.declared.as_str())
        .collect();
    assert_eq!(
        declared,
        ["integer", "character varying(20)", "bytea", "text[]"]
    );
    let sql = "CREATE TABLE public.t_2024 PARTITION OF public.t FOR VALUES FROM (1) TO (9);";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    let partition = create_table(
        sql.as_bytes(),
        &tokens,
        &context(SqlDialect::PostgreSql, None),
    );
    assert_eq!(partition.map(|d| d.parents), Some(vec!["public.t".into()]));
    let sql = "CREATE TABLE public.c (x text) INHERITS (public.a, public.b);";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    let child = create_table(
        sql.as_bytes(),
        &tokens,
        &context(SqlDialect::PostgreSql, None),
    );
    assert_eq!(
        child.map(|d| d.parents),
        Some(vec!["public.a".into(), "public.b".into()])
    );
    assert_eq!(definition.table.name, "public.t");
    assert!(definition.edits.is_empty());
}

#[test]
fn create_database_defaults() {
    let edited = |sql: &str| -> Option<Vec<(String, &str)>> {
        let tokens = tokens_of(SqlDialect::MySql, sql);
        let edits = database_edits(sql.as_bytes(), &tokens, SqlDialect::MySql)?;
        Some(
            edits
                .iter()
                .map(|e| (sql[e.span.clone()].to_owned(), e.text))
                .collect(),
        )
    };
    let mysqldump = "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `latin1` /*!40100 DEFAULT \
                         CHARACTER SET latin1 COLLATE latin1_swedish_ci */ /*!80016 DEFAULT \
                         ENCRYPTION='N' */";
    assert_eq!(
        edited(mysqldump),
        Some(vec![
            ("latin1".into(), "utf8mb4"),
            ("latin1_swedish_ci".into(), "utf8mb4_general_ci")
        ])
    );
    assert_eq!(
        edited("CREATE SCHEMA s DEFAULT CHARSET = LATIN1 DEFAULT COLLATE latin1_bin"),
        Some(vec![
            ("LATIN1".into(), "utf8mb4"),
            ("latin1_bin".into(), "utf8mb4_bin")
        ])
    );
    assert_eq!(
        edited("CREATE DATABASE d CHARACTER SET utf8mb4"),
        Some(vec![])
    );
    assert_eq!(edited("CREATE TABLE t (a text) CHARSET=latin1"), None);
}

#[test]
fn heads() {
    let sql = "INSERT IGNORE INTO `db`.`t` (`a`, `b`) VALUES";
    let tokens = tokens_of(SqlDialect::MySql, sql);
    assert_eq!(
        insert_head(sql.as_bytes(), &tokens, Some("x")),
        Ok(("db.t".into(), Some(vec!["a".into(), "b".into()])))
    );
    let sql = "COPY public.t (id, \"Name\") FROM stdin";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    assert_eq!(
        copy_head(sql.as_bytes(), &tokens),
        Some(("public.t".into(), Some(vec!["id".into(), "Name".into()])))
    );
    let sql = "COPY public.t TO '/tmp/x'";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    assert_eq!(copy_head(sql.as_bytes(), &tokens), None);
}

#[test]
fn set_statements() {
    let sql = "/*!40101 SET NAMES latin1 COLLATE latin1_general_ci */";
    let edits = set_edits(
        sql.as_bytes(),
        0..sql.len(),
        &tokens_of(SqlDialect::MySql, sql),
    );
    let found: Vec<(&str, &str)> = edits
        .iter()
        .map(|e| (&sql[e.span.clone()], e.text))
        .collect();
    assert_eq!(
        found,
        [
            ("latin1", "utf8mb4"),
            ("latin1_general_ci", "utf8mb4_general_ci")
        ]
    );
    let sql = "SET client_encoding = 'LATIN1'";
    let edits = set_edits(
        sql.as_bytes(),
        0..sql.len(),
        &tokens_of(SqlDialect::MySql, sql),
    );
    assert_eq!(edits.len(), 1);
    assert_eq!(&sql[edits[0].span.clone()], "LATIN1");
    let sql = "SET NAMES utf8mb4";
    assert!(set_edits(sql.as_bytes(), 0..17, &tokens_of(SqlDialect::MySql, sql)).is_empty());
    let sql = "SET standard_conforming_strings = off";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    assert_eq!(backslash_strings(sql.as_bytes(), &tokens), Some(true));
}

/// The edits of `sql` as (bytes replaced, replacement).
fn edited<'s>(sql: &'s str, edits: &[Edit]) -> Vec<(&'s str, &'static str)> {
    edits
        .iter()
        .map(|e| (&sql[e.span.clone()], e.text))
        .collect()
}

#[test]
fn session_character_sets_around_a_routine() {
    // What mariadb-dump --routines writes before a routine created under latin1.
    for (sql, expected) in [
        (
            "/*!50003 SET collation_connection  = latin1_swedish_ci */",
            vec![("latin1_swedish_ci", "utf8mb4_general_ci")],
        ),
        (
            "/*!50003 SET character_set_results = latin1 */",
            vec![("latin1", "utf8mb4")],
        ),
        (
            "SET SESSION character_set_client = latin1, @@character_set_connection = latin1",
            vec![("latin1", "utf8mb4"), ("latin1", "utf8mb4")],
        ),
        (
            "/*!50003 SET character_set_results = @saved_cs_results */",
            vec![],
        ),
        (
            "/*!50003 SET @saved_col_connection = @@collation_connection */",
            vec![],
        ),
    ] {
        let tokens = tokens_of(SqlDialect::MySql, sql);
        let edits = set_edits(sql.as_bytes(), 0..sql.len(), &tokens);
        assert_eq!(edited(sql, &edits), expected, "{sql}");
        assert!(edits.is_sorted_by_key(|e| e.span.start), "{sql}");
    }
}

#[test]
fn database_character_sets_and_encodings() {
    let mysql = "ALTER DATABASE `shop` CHARACTER SET latin1 COLLATE latin1_swedish_ci ";
    let tokens = tokens_of(SqlDialect::MySql, mysql);
    let edits = database_edits(mysql.as_bytes(), &tokens, SqlDialect::MySql);
    assert_eq!(
        edits.map(|edits| edited(mysql, &edits)),
        Some(vec![
            ("latin1", "utf8mb4"),
            ("latin1_swedish_ci", "utf8mb4_general_ci")
        ])
    );
    let pg_edits = |sql: &str| -> Vec<(String, &str)> {
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let edits = database_edits(sql.as_bytes(), &tokens, SqlDialect::PostgreSql);
        let edits = edits.unwrap_or_default();
        assert!(edits.is_sorted_by_key(|e| e.span.start), "{sql}");
        edited(sql, &edits)
            .into_iter()
            .map(|(from, to)| (from.to_owned(), to))
            .collect()
    };
    // pg_dump --create of a LATIN1 database, with one locale or two.
    assert_eq!(
        pg_edits(
            "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'LATIN1' \
                 LOCALE_PROVIDER = libc LOCALE = 'C'"
        ),
        [("LATIN1".into(), "UTF8")]
    );
    assert_eq!(
        pg_edits(
            "CREATE DATABASE src WITH TEMPLATE = template0 ENCODING = 'WIN1252' \
                 LOCALE_PROVIDER = libc LC_COLLATE = 'de_DE.ISO-8859-1@euro' LC_CTYPE = \
                 'de_DE.iso88591'"
        ),
        [
            ("WIN1252".into(), "UTF8"),
            ("ISO-8859-1".into(), "UTF-8"),
            ("iso88591".into(), "UTF-8")
        ]
    );
    // Another encoding, and its locale, stay as they are.
    assert!(pg_edits("CREATE DATABASE d ENCODING 'LATIN9' LOCALE 'de_DE.latin1'").is_empty());
    assert!(pg_edits("CREATE DATABASE d ENCODING = 'UTF8' LOCALE = 'C.UTF-8'").is_empty());
    assert!(pg_edits("CREATE SCHEMA s").is_empty());
}

#[test]
fn primary_keys_added_by_alter_table() {
    let key = |dialect: SqlDialect, sql: &str| {
        let tokens = tokens_of(dialect, sql);
        let context = context(dialect, Some("shop"));
        let alteration = alter_table(sql.as_bytes(), &tokens, &context, &Schema::default())?;
        Some((alteration.table, alteration.primary_key?))
    };
    let pg = SqlDialect::PostgreSql;
    assert_eq!(
        key(
            pg,
            "ALTER TABLE ONLY public.k2\n    ADD CONSTRAINT k2_pkey PRIMARY KEY (b, a)"
        ),
        Some(("public.k2".into(), vec!["b".into(), "a".into()]))
    );
    assert_eq!(
        key(
            pg,
            "ALTER TABLE IF EXISTS ONLY \"T\" * ADD CONSTRAINT p PRIMARY KEY (id)"
        ),
        Some(("shop.T".into(), vec!["id".into()]))
    );
    // phpMyAdmin, after its CREATE TABLE: several actions.
    assert_eq!(
        key(
            SqlDialect::MySql,
            "ALTER TABLE `t`\n  ADD KEY `k` (`name`),\n  ADD PRIMARY KEY (`id`,`lang`)"
        ),
        Some(("shop.t".into(), vec!["id".into(), "lang".into()]))
    );
    for other in [
        "ALTER TABLE ONLY public.u ADD CONSTRAINT u_key UNIQUE (id)",
        "ALTER TABLE public.t OWNER TO postgres",
        "ALTER TABLE t DROP PRIMARY KEY",
        "ALTER TABLE ONLY public.t ALTER COLUMN id SET DEFAULT nextval('s'::regclass)",
        "ALTER SEQUENCE public.s OWNED BY public.t.id",
    ] {
        assert_eq!(key(pg, other), None, "{other}");
    }
}

/// The (name, kind) of each column of `table`.
fn kinds(table: &Table) -> Vec<(&str, ColumnKind)> {
    table
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect()
}

/// What pg_dump writes for types and domains (the enum labels and the domain's literals
/// garbled, as a LATIN1 client makes them), read in order into `types`.
fn pg_types() -> Types {
    let mut types = Types::default();
    let statements = [
        "CREATE DOMAIN public.code AS character varying(10)",
        "CREATE DOMAIN public.num AS integer",
        "CREATE TYPE public.mood AS ENUM (\n    'cafÃ©',\n    'ok'\n)",
        "CREATE DOMAIN public.label AS public.code",
        "CREATE TYPE public.pair AS (\n\ta text,\n\tb integer,\n\tc bytea,\n\tl public.code\n)",
        "CREATE TYPE public.span AS RANGE (\n    subtype = integer\n)",
    ];
    for sql in statements {
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let buf = sql.as_bytes();
        let context = Context {
            types: &types,
            ..context(SqlDialect::PostgreSql, None)
        };
        if let Some(domain) = create_domain(buf, &tokens, &context) {
            types.define(domain.name, domain.kind);
        } else if let Some(created) = create_type(buf, &tokens, &context) {
            match created.attributes {
                Some(attributes) => types.define_composite(created.name, attributes),
                None => types.define(created.name, ColumnKind::Other),
            }
        } else {
            panic!("{sql}: neither a type nor a domain");
        }
    }
    types
}

#[test]
fn domains_hold_what_their_base_type_holds_and_enums_no_text() {
    use ColumnKind::*;
    let types = pg_types();
    let kind = |name: &str| types.kind(name);
    assert_eq!(kind("public.code"), Some(Text));
    assert_eq!(kind("public.label"), Some(Text));
    assert_eq!(kind("public.num"), Some(Other));
    assert_eq!(kind("public.mood"), Some(Other));
    assert_eq!(kind("public.pair"), Some(Other));
    assert_eq!(kind("public.span"), Some(Other));
    let domain = "CREATE DOMAIN public.lang AS text DEFAULT 'naÃ¯ve'::text\n\tCONSTRAINT \
                      lang_check CHECK ((VALUE = ANY (ARRAY['cafÃ©'::text, 'x'::text])))";
    let tokens = tokens_of(SqlDialect::PostgreSql, domain);
    let context = context(SqlDialect::PostgreSql, None);
    let Some(lang) = create_domain(domain.as_bytes(), &tokens, &context) else {
        panic!("a domain");
    };
    let literals: Vec<&str> = lang
        .text_literals
        .iter()
        .map(|r| &domain[r.clone()])
        .collect();
    assert_eq!((lang.kind, literals), (Text, vec!["naÃ¯ve", "cafÃ©", "x"]));
    let domain = "CREATE DOMAIN public.positive AS integer DEFAULT '1' CHECK (VALUE > 0)";
    let tokens = tokens_of(SqlDialect::PostgreSql, domain);
    let positive = create_domain(domain.as_bytes(), &tokens, &context);
    assert!(positive.is_some_and(|d| d.kind == Other && d.text_literals.is_empty()));
    let sql = "CREATE TABLE public.t (\n    id integer,\n    m public.mood DEFAULT \
                   'cafÃ©'::public.mood,\n    l public.label[],\n    n public.num\n)";
    let tokens = tokens_of(SqlDialect::PostgreSql, sql);
    let context = Context {
        types: &types,
        ..context
    };
    let Some(table) = create_table(sql.as_bytes(), &tokens, &context) else {
        panic!("a table");
    };
    assert_eq!(
        kinds(&table.table),
        [("id", Other), ("m", Other), ("l", Text), ("n", Other)]
    );
    // An enum's default names a label: left alone with it.
    assert!(table.text_literals.is_empty());
}

#[test]
fn a_typed_table_takes_the_columns_of_its_type() {
    use ColumnKind::*;
    let types = pg_types();
    let context = Context {
        types: &types,
        ..context(SqlDialect::PostgreSql, None)
    };
    let table = |sql: &str| {
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        create_table(sql.as_bytes(), &tokens, &context)
    };
    // As pg_dump writes it, with a column's options, and by hand, with more.
    let Some(typed) = table("CREATE TABLE public.typed OF public.pair (\n    b NOT NULL\n)") else {
        panic!("a table");
    };
    let expected = [("a", Text), ("b", Other), ("c", Binary), ("l", Text)];
    assert_eq!(kinds(&typed.table), expected);
    assert_eq!(typed.table.unknown_type, None);
    let sql = "CREATE TABLE t OF public.pair (a WITH OPTIONS DEFAULT 'cafÃ©', b PRIMARY KEY, \
                   c DEFAULT '\\x00')";
    let Some(typed) = table(sql) else {
        panic!("a table");
    };
    assert_eq!(kinds(&typed.table), expected);
    assert_eq!(typed.table.primary_key, [1]);
    let literals: Vec<&str> = typed
        .text_literals
        .iter()
        .map(|r| &sql[r.clone()])
        .collect();
    assert_eq!(literals, ["cafÃ©"]);
    let Some(bare) = table("CREATE TABLE public.typed2 OF public.pair") else {
        panic!("a table");
    };
    assert_eq!(kinds(&bare.table), expected);
    // A type the dump did not create (pg_dump -t leaves it out): no columns, and why.
    let Some(unknown) = table("CREATE TABLE public.x OF public.gone (\n    b NOT NULL\n)") else {
        panic!("a table");
    };
    assert!(unknown.table.columns.is_empty());
    assert_eq!(unknown.table.unknown_type.as_deref(), Some("public.gone"));
}

/// The text literals of a statement, as the tests see them.
fn texts<'s>(sql: &'s str, literals: &[Range<usize>]) -> Vec<&'s str> {
    literals.iter().map(|r| &sql[r.clone()]).collect()
}

/// A table MariaDB dumps with its checks as items of their own, garbled as a latin1
/// connection makes them; a column-level check (`CHECK` after the column's type) and the
/// table-level ones as `mariadb-dump` writes them, MySQL 8's with introducers.
const MARIADB_CHECKS: &str = "CREATE TABLE `orders` (
  `id` int(11) NOT NULL,
  `status` varchar(20) DEFAULT NULL CHECK (`status` <> 'Ã©'),
  `qty` int(11) DEFAULT NULL,
  `raw` varbinary(10) DEFAULT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `status_known` CHECK (`status` in ('payÃ©','annulÃ©')),
  CONSTRAINT `raw_set` CHECK (`raw` <> 'cafÃ©'),
  CHECK (`qty` > 0 and `qty` <> 'Ã©'),
  CONSTRAINT `t_chk_1` CHECK ((`Status` in (_utf8mb4'reÃ§u',_latin1'dÃ»'))),
  CONSTRAINT `t_chk_2` CHECK ((`status` <> '' or `raw` = _binary'cafÃ©' or `raw` <> _binary 'Ã©' or `raw` <> X'C3A9'))
) ENGINE=InnoDB DEFAULT CHARSET=latin1;";

#[test]
fn mysql_table_checks_on_text_columns_hold_text_literals() {
    let tokens = tokens_of(SqlDialect::MySql, MARIADB_CHECKS);
    let context = context(SqlDialect::MySql, Some("shop"));
    let Some(definition) = create_table(MARIADB_CHECKS.as_bytes(), &tokens, &context) else {
        panic!("a table");
    };
    // The checks on the binary column and the number alone stay; so do the bytes of
    // `_binary` and hexadecimal literals in a check on text.
    assert_eq!(
        texts(MARIADB_CHECKS, &definition.text_literals),
        ["Ã©", "payÃ©", "annulÃ©", "reÃ§u", "dÃ»", ""]
    );
    assert_eq!(definition.table.primary_key, [0]);
    assert_eq!(definition.table.columns.len(), 4);
}

/// A table as pg_dump writes it: every check a constraint of its own, each literal cast.
const PG_CHECKS: &str = "CREATE TABLE public.orders (
    id integer NOT NULL,
    status character varying(20),
    n integer,
    data bytea,
    m public.mood,
    CONSTRAINT orders_status_check CHECK (((status)::text = ANY ((ARRAY['payÃ©'::character varying, 'annulÃ©'::character varying])::text[]))),
    CONSTRAINT orders_n_check CHECK (((n > 0) AND ((n)::text <> 'Ã©'::text))),
    CONSTRAINT orders_data_check CHECK ((data <> '\\xc3a9'::bytea)),
    CONSTRAINT orders_mixed_check CHECK ((((status)::text <> 'cafÃ©'::text) OR (data = '\\xc3a9'::pg_catalog.bytea) OR (m <> 'cafÃ©'::public.mood) OR (data <> E'Ã©'::bytea)))
);";

/// [`PG_CHECKS`] read with the types of [`pg_types`] into a schema, as the lexer holds it.
fn pg_checks_schema(types: &Types) -> (Definition, Schema) {
    let tokens = tokens_of(SqlDialect::PostgreSql, PG_CHECKS);
    let context = Context {
        types,
        ..context(SqlDialect::PostgreSql, None)
    };
    let Some(definition) = create_table(PG_CHECKS.as_bytes(), &tokens, &context) else {
        panic!("a table");
    };
    let mut schema = Schema::default();
    schema.define(definition.table.clone());
    (definition, schema)
}

#[test]
fn postgresql_checks_on_text_columns_hold_text_literals() {
    let types = pg_types();
    let (definition, _) = pg_checks_schema(&types);
    // Not the check on a number, nor the one on bytes; in the check on text, not the
    // literals cast to bytea or to an enum (whose label stays garbled).
    assert_eq!(
        texts(PG_CHECKS, &definition.text_literals),
        ["payÃ©", "annulÃ©", "cafÃ©"]
    );
}

#[test]
fn partial_index_predicates_on_text_columns_hold_text_literals() {
    let types = pg_types();
    let (_, schema) = pg_checks_schema(&types);
    let literals = |sql: &str| {
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let context = Context {
            types: &types,
            ..context(SqlDialect::PostgreSql, None)
        };
        create_index(sql.as_bytes(), &tokens, &context, &schema)
            .map(|spans| texts(sql, &spans).join("|"))
    };
    // What pg_dump writes for a partial index, unique or not, named or not, on ONLY.
    let unique = "CREATE UNIQUE INDEX orders_paid ON public.orders USING btree (id) WHERE \
                      ((status)::text = 'payÃ©'::text)";
    assert_eq!(literals(unique).as_deref(), Some("payÃ©"));
    let only = "CREATE INDEX ON ONLY public.orders USING btree (status) WHERE \
                    ((status)::text <> ANY (ARRAY['annulÃ©'::text, 'x'::text]))";
    assert_eq!(literals(only).as_deref(), Some("annulÃ©|x"));
    for alone in [
        // A predicate on a number alone; no predicate (an expression's literal is code);
        // a table the dump does not define.
        "CREATE INDEX o_n ON public.orders USING btree (n) WHERE ((n)::text <> 'Ã©'::text)",
        "CREATE INDEX o_l ON public.orders USING btree (COALESCE(status, 'Ã©'::text))",
        "CREATE INDEX g ON public.gone USING btree (status) WHERE (status <> 'Ã©'::text)",
    ] {
        assert_eq!(literals(alone).as_deref(), Some(""), "{alone}");
    }
    assert_eq!(literals("CREATE TABLE public.t (a text)"), None);
}

#[test]
fn checks_added_and_defaults_set_by_alter_table() {
    let types = pg_types();
    let (_, schema) = pg_checks_schema(&types);
    let pg = |sql: &str| -> Option<Alteration> {
        let tokens = tokens_of(SqlDialect::PostgreSql, sql);
        let context = Context {
            types: &types,
            ..context(SqlDialect::PostgreSql, None)
        };
        alter_table(sql.as_bytes(), &tokens, &context, &schema)
    };
    let literals = |sql: &str| pg(sql).map(|a| texts(sql, &a.text_literals).join("|"));
    // What pg_dump writes for a check declared NOT VALID, and for a default it dumps
    // apart from its column.
    let not_valid = "ALTER TABLE public.orders\n    ADD CONSTRAINT orders_later_check CHECK \
                         (((status)::text <> 'reÃ§u'::text)) NOT VALID";
    assert_eq!(literals(not_valid).as_deref(), Some("reÃ§u"));
    let default = "ALTER TABLE ONLY public.orders ALTER COLUMN status SET DEFAULT \
                       'payÃ©'::character varying";
    assert_eq!(literals(default).as_deref(), Some("payÃ©"));
    for alone in [
        "ALTER TABLE ONLY public.orders ALTER COLUMN n SET DEFAULT '1Ã©'",
        "ALTER TABLE ONLY public.orders ALTER COLUMN id SET DEFAULT nextval('s'::regclass)",
        "ALTER TABLE ONLY public.orders ADD CONSTRAINT c CHECK ((data <> '\\x'::bytea))",
        "ALTER TABLE ONLY public.orders ADD CONSTRAINT c CHECK ((n <> 'Ã©'::text))",
        "ALTER TABLE ONLY public.orders ALTER COLUMN status DROP DEFAULT",
        "ALTER TABLE public.gone ADD CONSTRAINT c CHECK ((status <> 'Ã©'::text))",
    ] {
        assert_eq!(literals(alone).as_deref(), Some(""), "{alone}");
    }
    // The key is still read, with the check in the same statement.
    let both = "ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id), \
                    ADD CHECK ((status <> 'Ã©'))";
    let Some(alteration) = pg(both) else {
        panic!("an ALTER TABLE");
    };
    assert_eq!(alteration.table, "public.orders");
    assert_eq!(alteration.primary_key, Some(vec!["id".into()]));
    assert_eq!(texts(both, &alteration.text_literals), ["Ã©"]);
    // MySQL: several actions, `ALTER` without `COLUMN`, names without case.
    let tokens = tokens_of(SqlDialect::MySql, MARIADB_CHECKS);
    let context = context(SqlDialect::MySql, Some("shop"));
    let Some(orders) = create_table(MARIADB_CHECKS.as_bytes(), &tokens, &context) else {
        panic!("a table");
    };
    let mut schema = Schema::default();
    schema.define(orders.table);
    let sql = "ALTER TABLE `orders` ADD CONSTRAINT `late` CHECK (`STATUS` <> 'Ã©'), \
                   ALTER `status` SET DEFAULT 'payÃ©', ALTER COLUMN `raw` SET DEFAULT 'Ã©', \
                   ADD CONSTRAINT `q` CHECK (`qty` <> 'Ã©')";
    let tokens = tokens_of(SqlDialect::MySql, sql);
    let alteration = alter_table(sql.as_bytes(), &tokens, &context, &schema);
    assert_eq!(
        alteration.map(|a| texts(sql, &a.text_literals)),
        Some(vec!["Ã©", "payÃ©"])
    );
}
