//! The tables a dump defines: their columns, what kind of data each holds, and their primary
//! keys, as its `CREATE TABLE` statements say (or, for a key, an `ALTER TABLE ... ADD PRIMARY
//! KEY` before the table's data, or one that a full `pg_dump` declares after it, found ahead
//! of the data by `later_keys.rs`), and the PostgreSQL types that columns are declared with.
//!
//! Only the kind of a column decides whether its values may be repaired: text columns are
//! repaired, binary ones (`BLOB`, `VARBINARY`, `bytea`, a `CHARACTER SET binary` string) never,
//! whatever their bytes look like, and everything else (numbers, dates, enums, composite and
//! other user-defined types) never either. A PostgreSQL domain is what its base type is: a
//! domain over `text` holds text. A PostgreSQL enum holds labels that live in its `CREATE
//! TYPE`, and that views, constraints and routines name as literals of the type: repairing a
//! value means repairing the label and every such literal, or the dump no longer loads, so an
//! enum is left alone, values and labels (after loading, `ALTER TYPE ... RENAME VALUE` repairs
//! a label, and so every row and every object that uses it, at once).

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use crate::sql::SqlDialect;

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    /// Character data: repaired.
    Text,
    /// Bytes: never changed.
    Binary,
    /// Numbers, dates and the rest: never changed.
    Other,
}

/// One column of a table.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub name: String,
    /// The type as declared, lower case, with its arguments (`varchar(255)`), at most 64 bytes.
    pub declared: String,
    pub kind: ColumnKind,
    /// Cells of this column read so far.
    pub cells: u64,
    /// Those of them that are `NULL`.
    pub nulls: u64,
    /// The MySQL character set it declares (`CHARACTER SET x`, or the one of its `COLLATE x`),
    /// lower case; `None` when it takes its table's.
    pub charset: Option<String>,
}

/// One table, as its `CREATE TABLE` defines it.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// The name, qualified as the dump qualifies it (`public.t`, or `db.t` after `USE db`).
    pub name: String,
    pub columns: Vec<Column>,
    /// Indexes into `columns` of the primary key, if the `CREATE TABLE` (or an `ALTER TABLE`
    /// before the table's data, or, in a full `pg_dump`, after it) declares one.
    pub primary_key: Vec<usize>,
    /// Rows read so far.
    pub rows: u64,
    /// For a PostgreSQL typed table (`CREATE TABLE t OF some_type`) whose type no `CREATE TYPE`
    /// before it defines: that type. Its columns are unknown, so its data cannot be read.
    pub unknown_type: Option<String>,
    /// The MySQL default character set of its columns (`DEFAULT CHARSET=x`, or the one of its
    /// `COLLATE=x`), lower case.
    pub charset: Option<String>,
}

impl Table {
    /// The character set the column at `index` stores its text in, as the dump declares it:
    /// its own, or its table's. `None` when neither says (every table of a `mysqldump` or
    /// `mariadb-dump` file names its own, as `SHOW CREATE TABLE` does), and in PostgreSQL.
    pub(crate) fn storage(&self, index: usize) -> Option<&str> {
        let column = self.columns.get(index)?;
        column.charset.as_deref().or(self.charset.as_deref())
    }

    /// The single-byte character set ([`is_single_byte`]) the column at `index` stores its
    /// text in, if it is a text column stored in one.
    pub(crate) fn single_byte_text(&self, index: usize) -> Option<&str> {
        let text = self.columns.get(index)?.kind == ColumnKind::Text;
        self.storage(index)
            .filter(|&name| text && is_single_byte(name))
    }

    /// Whether any column holds text.
    pub(crate) fn has_text(&self) -> bool {
        self.columns.iter().any(|c| c.kind == ColumnKind::Text)
    }

    /// The index of each of `names` among the columns (the first column of a name), through
    /// one map: a list of many names in a table of many columns (a key, an `INSERT`'s column
    /// list) is looked up in linear time.
    pub(crate) fn column_indexes(&self, names: &[String]) -> Vec<Option<usize>> {
        let mut by_name: HashMap<&str, usize> = HashMap::default();
        for (i, column) in self.columns.iter().enumerate() {
            by_name.entry(column.name.as_str()).or_insert(i);
        }
        names
            .iter()
            .map(|name| by_name.get(name.as_str()).copied())
            .collect()
    }
}

/// The PostgreSQL types a dump creates (`CREATE TYPE`, `CREATE DOMAIN`), by name as the dump
/// writes it (`public.mood`): what the values of a column of that type hold, and for a
/// composite type, the columns that a typed table (`CREATE TABLE t OF some_type`) takes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Types {
    kinds: HashMap<String, ColumnKind>,
    composites: HashMap<String, Vec<Column>>,
}

impl Types {
    /// `name` is a type whose values hold `kind`: a domain over a type of that kind, an enum,
    /// a range or a base type (`ColumnKind::Other`).
    pub(crate) fn define(&mut self, name: String, kind: ColumnKind) {
        self.composites.remove(&name);
        self.kinds.insert(name, kind);
    }

    /// `name` is a composite type of these attributes: a column of it holds row literals
    /// (`ColumnKind::Other`: text and bytes side by side), a table of it has these columns.
    pub(crate) fn define_composite(&mut self, name: String, attributes: Vec<Column>) {
        self.kinds.insert(name.clone(), ColumnKind::Other);
        self.composites.insert(name, attributes);
    }

    /// The kind of the values of the type `name`, if the dump created it.
    pub(crate) fn kind(&self, name: &str) -> Option<ColumnKind> {
        self.kinds.get(name).copied()
    }

    /// The attributes of the composite type `name`, if the dump created it.
    pub(crate) fn attributes(&self, name: &str) -> Option<&[Column]> {
        self.composites.get(name).map(Vec::as_slice)
    }

    /// Adds the types of `later`, which replace those of the same names.
    fn extend(&mut self, later: Types) {
        for (name, kind) in later.kinds {
            self.define(name, kind);
        }
        self.composites.extend(later.composites);
    }
}

/// Every table defined so far, by name; a table defined again replaces the earlier one (which
/// stays in the list, with what was read into it). And the types its columns can be declared
/// with.
///
/// A dump that holds only data (`mariadb-dump --no-create-info`, `pg_dump --data-only`) starts
/// with the tables (and types) of a dump of its schema (`--schema`): the first `borrowed` ones.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schema {
    pub tables: Vec<Table>,
    by_name: HashMap<String, usize>,
    pub borrowed: usize,
    pub types: Types,
}

impl Schema {
    pub(crate) fn define(&mut self, table: Table) -> usize {
        let index = self.tables.len();
        self.by_name.insert(table.name.clone(), index);
        self.tables.push(table);
        index
    }

    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Adds what `later`, the schema of a dump read after this one's, defines: its tables in
    /// order (each replacing one of the same name) and its types.
    pub fn extend(&mut self, later: Schema) {
        for table in later.tables {
            self.define(table);
        }
        self.types.extend(later.types);
    }

    /// Makes `key` (column names) the primary key of the table at `index`, as an `ALTER TABLE
    /// ... ADD PRIMARY KEY` declares it, if no row of the table has been read yet: rows already
    /// read were named by number, and a key learned after them would name none of them (in a
    /// full `pg_dump` it comes after all the data: the lexer learns it ahead, from a look over
    /// the dump for such statements, `later_keys.rs`, and adds it here when the table is
    /// defined). A key naming a column the table lacks is not taken.
    pub(crate) fn add_primary_key(&mut self, index: usize, key: &[String]) {
        let Some(table) = self.tables.get_mut(index) else {
            return;
        };
        let columns: Option<Vec<usize>> = table.column_indexes(key).into_iter().collect();
        if let Some(columns) = columns
            && table.rows == 0
            && !columns.is_empty()
        {
            table.primary_key = columns;
        }
    }

    /// This schema as the start of another dump's: the table each name leads to, with nothing
    /// read into it, all borrowed, and the types. Nothing else of the dump it was read from
    /// comes along.
    pub fn lend(self) -> Schema {
        let mut lent = Schema {
            types: self.types,
            ..Schema::default()
        };
        for (index, mut table) in self.tables.into_iter().enumerate() {
            if self.by_name.get(&table.name) != Some(&index) {
                continue;
            }
            table.rows = 0;
            for column in &mut table.columns {
                column.cells = 0;
                column.nulls = 0;
            }
            lent.define(table);
        }
        lent.borrowed = lent.tables.len();
        lent
    }

    /// A borrowed table that data for `name` may have been meant for: one of the same name
    /// under another qualification (`shop.t` for `t`: one dump was made with `USE`, the other
    /// without).
    pub(crate) fn namesake(&self, name: &str) -> Option<&str> {
        fn unqualified(name: &str) -> &str {
            name.rsplit('.').next().unwrap_or(name)
        }
        let wanted = unqualified(name);
        self.tables[..self.borrowed]
            .iter()
            .map(|table| table.name.as_str())
            .find(|&other| other != name && unqualified(other) == wanted)
    }
}

/// The kind of a column from its type name (the first word, lower case) and the word after it
/// (for MySQL's `LONG VARBINARY`).
pub(crate) fn kind_of_type(dialect: SqlDialect, type_name: &str, next: &str) -> ColumnKind {
    match dialect {
        SqlDialect::MySql => match type_name {
            "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" | "enum"
            | "set" | "json" | "nchar" | "nvarchar" | "national" | "character" | "varchar2"
            | "clob" => ColumnKind::Text,
            "long" if next == "varbinary" => ColumnKind::Binary,
            "long" => ColumnKind::Text,
            "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" | "bit"
            | "geometry" | "point" | "linestring" | "polygon" | "multipoint"
            | "multilinestring" | "multipolygon" | "geometrycollection" | "geomcollection"
            | "vector" => ColumnKind::Binary,
            _ => ColumnKind::Other,
        },
        SqlDialect::PostgreSql => match type_name {
            "text" | "varchar" | "char" | "character" | "bpchar" | "name" | "citext" | "json"
            | "jsonb" | "xml" => ColumnKind::Text,
            "bytea" => ColumnKind::Binary,
            _ => ColumnKind::Other,
        },
    }
}

/// Whether a MySQL character set name is `latin1`, the one `--convert-charset` replaces.
pub(crate) fn is_latin1(name: &str) -> bool {
    name.eq_ignore_ascii_case("latin1")
}

/// The character set a MySQL collation belongs to: the part of its name before the first `_`
/// (`latin1_swedish_ci`, `utf8mb4_0900_ai_ci`), as every collation is named; `binary` is its own.
pub(crate) fn charset_of_collation(collation: &str) -> &str {
    collation.split('_').next().unwrap_or(collation)
}

/// The MySQL and MariaDB character sets of one byte per character (`SHOW CHARACTER SET`, `Maxlen`
/// 1), but `binary`, which holds bytes, not text: a column stored in one of them holds at most 256
/// characters, so UTF-8 text loaded into it loses every character the set lacks.
pub(crate) const SINGLE_BYTE_CHARSETS: [&str; 25] = [
    "armscii8", "ascii", "cp1250", "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866", "dec8",
    "geostd8", "greek", "hebrew", "hp8", "keybcs2", "koi8r", "koi8u", "latin1", "latin2", "latin5",
    "latin7", "macce", "macroman", "swe7", "tis620",
];

/// Whether a MySQL character set name is one of [`SINGLE_BYTE_CHARSETS`].
pub(crate) fn is_single_byte(name: &str) -> bool {
    SINGLE_BYTE_CHARSETS
        .iter()
        .any(|charset| charset.eq_ignore_ascii_case(name))
}

/// The `utf8mb4` collation that sorts like the `latin1` one given, for `--convert-charset`;
/// `None` for a collation of another character set.
pub(crate) fn utf8mb4_collation(latin1: &str) -> Option<&'static str> {
    let lower = latin1.to_ascii_lowercase();
    let rest = lower.strip_prefix("latin1_")?;
    Some(match rest {
        "bin" | "general_cs" => "utf8mb4_bin",
        "nopad_bin" => "utf8mb4_nopad_bin",
        // latin1's default, chosen by nobody for Swedish: the default of utf8mb4 in its place.
        "swedish_ci" | "general_ci" => "utf8mb4_general_ci",
        "swedish_nopad_ci" => "utf8mb4_general_nopad_ci",
        "danish_ci" => "utf8mb4_danish_ci",
        "spanish_ci" => "utf8mb4_spanish_ci",
        "german2_ci" => "utf8mb4_german2_ci",
        _ => "utf8mb4_unicode_ci",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        use ColumnKind::*;
        let mysql = |t: &str, n: &str| kind_of_type(SqlDialect::MySql, t, n);
        assert_eq!(mysql("varchar", ""), Text);
        assert_eq!(mysql("mediumtext", ""), Text);
        assert_eq!(mysql("enum", ""), Text);
        assert_eq!(mysql("blob", ""), Binary);
        assert_eq!(mysql("varbinary", ""), Binary);
        assert_eq!(mysql("long", "varbinary"), Binary);
        assert_eq!(mysql("long", "varchar"), Text);
        assert_eq!(mysql("int", ""), Other);
        let pg = |t: &str| kind_of_type(SqlDialect::PostgreSql, t, "");
        assert_eq!(pg("character"), Text);
        assert_eq!(pg("bytea"), Binary);
        assert_eq!(pg("timestamp"), Other);
    }

    fn table(name: &str, rows: u64) -> Table {
        Table {
            name: name.into(),
            columns: vec![Column {
                name: "c".into(),
                declared: "text".into(),
                kind: ColumnKind::Text,
                cells: rows,
                nulls: 1,
                charset: None,
            }],
            primary_key: Vec::new(),
            rows,
            unknown_type: None,
            charset: None,
        }
    }

    #[test]
    fn a_lent_schema_is_the_last_definition_of_each_table_with_nothing_read() {
        let mut schema = Schema::default();
        schema.define(table("shop.t", 3));
        schema.define(table("shop.u", 0));
        let mut again = table("shop.t", 5);
        again.columns[0].kind = ColumnKind::Binary;
        schema.define(again);
        let lent = schema.lend();
        assert_eq!(lent.borrowed, 2);
        let tables: Vec<(&str, ColumnKind, u64, u64, u64)> = lent
            .tables
            .iter()
            .map(|t| {
                let c = &t.columns[0];
                (t.name.as_str(), c.kind, t.rows, c.cells, c.nulls)
            })
            .collect();
        assert_eq!(
            tables,
            [
                ("shop.u", ColumnKind::Text, 0, 0, 0),
                ("shop.t", ColumnKind::Binary, 0, 0, 0)
            ]
        );
        assert_eq!(lent.find("shop.t"), Some(1));
    }

    #[test]
    fn a_namesake_is_a_borrowed_table_under_another_qualification() {
        let mut schema = Schema::default();
        schema.define(table("shop.t", 0));
        let mut lent = schema.lend();
        assert_eq!(lent.namesake("t"), Some("shop.t"));
        assert_eq!(lent.namesake("other.t"), Some("shop.t"));
        assert_eq!(lent.namesake("shop.t"), None);
        assert_eq!(lent.namesake("u"), None);
        // Only borrowed tables: the dump's own are found by their names.
        lent.define(table("v", 0));
        assert_eq!(lent.namesake("x.v"), None);
    }

    #[test]
    fn a_key_is_added_to_a_table_with_no_row_read_and_known_columns() {
        let mut schema = Schema::default();
        let mut two = table("t", 0);
        two.columns.push(Column {
            name: "id".into(),
            ..two.columns[0].clone()
        });
        schema.define(two);
        schema.define(table("read", 3));
        let key = |names: &[&str]| -> Vec<String> { names.iter().map(|&n| n.into()).collect() };
        schema.add_primary_key(0, &key(&["id", "nowhere"]));
        assert!(schema.tables[0].primary_key.is_empty());
        schema.add_primary_key(0, &key(&["id", "c"]));
        assert_eq!(schema.tables[0].primary_key, [1, 0]);
        schema.add_primary_key(1, &key(&["c"]));
        assert!(schema.tables[1].primary_key.is_empty());
    }

    #[test]
    fn a_column_stores_in_its_own_charset_or_its_tables() {
        let mut t = table("t", 0);
        assert_eq!(t.storage(0), None);
        t.charset = Some("latin1".into());
        assert_eq!(t.storage(0), Some("latin1"));
        t.columns[0].charset = Some("utf8mb4".into());
        assert_eq!(t.storage(0), Some("utf8mb4"));
        assert_eq!(t.storage(1), None);
    }

    #[test]
    fn single_byte_charsets() {
        for name in [
            "latin1", "LATIN2", "cp1251", "tis620", "ascii", "koi8r", "macroman",
        ] {
            assert!(is_single_byte(name), "{name}");
        }
        for name in [
            "utf8mb4", "utf8", "utf8mb3", "binary", "ucs2", "big5", "sjis", "gbk",
        ] {
            assert!(!is_single_byte(name), "{name}");
        }
        assert_eq!(charset_of_collation("latin1_swedish_ci"), "latin1");
        assert_eq!(charset_of_collation("utf8mb4_0900_ai_ci"), "utf8mb4");
        assert_eq!(charset_of_collation("binary"), "binary");
    }

    #[test]
    fn collations() {
        assert_eq!(
            utf8mb4_collation("latin1_swedish_ci"),
            Some("utf8mb4_general_ci")
        );
        assert_eq!(utf8mb4_collation("LATIN1_BIN"), Some("utf8mb4_bin"));
        assert_eq!(
            utf8mb4_collation("latin1_german1_ci"),
            Some("utf8mb4_unicode_ci")
        );
        assert_eq!(utf8mb4_collation("utf8mb4_bin"), None);
    }
}
