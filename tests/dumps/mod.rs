//! SQL dumps of about 20 MiB (more than two of the engine's blocks) for the tests of ranges:
//! shared by every test file that cuts one (include it with `mod dumps;`).
#![allow(dead_code)] // each test file uses its own part of these

/// A MySQL dump of about 20 MiB as `mariadb-dump` writes one: extended inserts of about a
/// megabyte a line, a second table defined between the first's rows, comments. Row `id` of
/// table `t` holds `values[id % values.len()]` (SQL-escaped already) and a blob.
pub fn big_mysql_dump(values: &[&str]) -> Vec<u8> {
    let mut dump = String::from(
        "-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)\n\
         /*!40101 SET NAMES latin1 */;\n\
         CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `name` varchar(200) DEFAULT NULL,\n  \
         `data` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
    );
    let mut id = 0;
    while dump.len() < 20 << 20 {
        if id == 150_000 {
            dump += "/* a comment with CafÃ© in it */;\n\
                     CREATE TABLE `u` (\n  `k` varchar(9) NOT NULL,\n  `note` text,\n  \
                     PRIMARY KEY (`k`)\n) DEFAULT CHARSET=latin1;\n\
                     INSERT INTO `u` VALUES ('a','Ã¼ber'),('b',NULL);\n";
        }
        dump += "INSERT INTO `t` VALUES ";
        for row in 0..20_000 {
            id += 1;
            if row > 0 {
                dump.push(',');
            }
            let value = values[id % values.len()];
            dump += &format!("({id},'{value}',_binary 'Ã©\\0')");
        }
        dump += ";\n";
    }
    dump.into_bytes()
}

/// A PostgreSQL dump of about 20 MiB as `pg_dump` writes one: a `COPY` block of more than two
/// blocks, then another table's. Row `id` holds `values[id % values.len()]` (`COPY`-escaped
/// already) and a `bytea`.
pub fn big_postgres_dump(values: &[&str]) -> Vec<u8> {
    let mut dump = String::from(
        "--\n-- PostgreSQL database dump\n--\n\nSET client_encoding = 'UTF8';\n\
         CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text,\n    data bytea\n);\n\
         CREATE TABLE public.u (\n    note text\n);\n\
         COPY public.t (id, name, data) FROM stdin;\n",
    );
    let mut id = 0;
    while dump.len() < 20 << 20 {
        id += 1;
        let value = values[id % values.len()];
        dump += &format!("{id}\t{value}\t\\\\xc3a9\n");
    }
    dump += "\\.\n\nCOPY public.u (note) FROM stdin;\nÐ¸ and Ã¼ber\n\\.\n";
    dump.into_bytes()
}

/// The offset of `into` bytes into the first `needle` at or after `from`.
pub fn inside(bytes: &[u8], from: usize, needle: &str, into: usize) -> usize {
    let at = bytes[from..]
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap();
    from + at + into
}
