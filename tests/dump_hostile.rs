//! Runs the built `undouble` binary on dumps made to trip its lexer: each run must end, within
//! a deadline, with a clear answer. A dump that ends inside a comment is an error naming its
//! line (and a file fixed in place is left as it was); a valid dump whose comment a block
//! boundary cuts is read as any other.

mod binary;

use binary::*;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with `args` and fails if it has not ended within a minute.
fn run_within_a_minute(args: &[&str]) -> Output {
    let mut child = undouble()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("waited on").is_none() {
        if Instant::now() > deadline {
            child.kill().expect("killed");
            let _ = child.wait();
            panic!("`undouble {}` did not end within a minute", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("its output")
}

const MYSQL_HEAD: &str = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n";
const POSTGRESQL_HEAD: &str =
    "--\n-- PostgreSQL database dump\n--\n\nSET client_encoding = 'UTF8';\n";

#[test]
fn a_dump_that_ends_inside_a_comment_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Without a header (`--format sql` guesses the dialect from the head), and with one.
    let cases = [
        ("bare.sql", "/*".to_string(), 1),
        (
            "bare-pg.sql",
            "SET client_encoding = 'UTF8';\n/*".to_string(),
            2,
        ),
        ("mysql.sql", format!("{MYSQL_HEAD}SELECT 1;\n/* cafÃ©"), 3),
        (
            "pg.sql",
            format!("{POSTGRESQL_HEAD}/* a /* nested */ cafÃ©\n"),
            7,
        ),
    ];
    for (name, content, line) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &content).expect("written");
        let output = run_within_a_minute(&["scan", "--format", "sql", path_str(&path)]);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        let offset = content.len();
        let expected = format!("line {line} (byte {offset}): the dump ends inside a comment");
        assert!(
            stderr(&output).contains(&expected),
            "{name}: {}",
            stderr(&output)
        );
        // Fixed in place under the default detection (the dumps with a header): refused, the
        // file as it was.
        let output = run_within_a_minute(&["fix", "--in-place", path_str(&path)]);
        if name.starts_with("bare") {
            continue;
        }
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(&expected),
            "{name}: {}",
            stderr(&output)
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            content.as_bytes(),
            "{name}"
        );
    }
}

/// A dump of `head`, a table, rows up to just before the first block boundary (8 MiB), then a
/// comment that the boundary cuts, with no `*` between its opening and its end, and one more
/// row that holds mojibake.
fn dump_with_a_comment_across_the_block_boundary(
    head: &str,
    row: impl Fn(u32) -> String,
) -> Vec<u8> {
    const BLOCK: usize = 8 << 20;
    let mut out = head.as_bytes().to_vec();
    out.extend_from_slice(b"CREATE TABLE t (id int, a text);\n");
    let mut id = 0;
    while out.len() < BLOCK - 200 {
        id += 1;
        out.extend_from_slice(row(id).as_bytes());
    }
    out.extend(std::iter::repeat_n(b'\n', BLOCK - 20 - out.len()));
    // Blocks end after their last newline: the comment's first line ends in the first block.
    out.extend_from_slice(b"/* a comment\n");
    out.extend(std::iter::repeat_n(b'-', 100));
    out.extend_from_slice(b" */\n");
    assert!(out.len() > BLOCK && !out[BLOCK - 18..BLOCK + 93].contains(&b'*'));
    out.extend_from_slice(row(0).replace("plain", "cafÃ©").as_bytes());
    out
}

#[test]
fn a_comment_across_the_block_boundary_is_read_on_in_the_next_block() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mysql = dump_with_a_comment_across_the_block_boundary(MYSQL_HEAD, |id| {
        format!("INSERT INTO t VALUES ({id},'plain');\n")
    });
    let postgresql = dump_with_a_comment_across_the_block_boundary(POSTGRESQL_HEAD, |id| {
        format!("INSERT INTO public.t VALUES ({id}, 'plain');\n")
    });
    let postgresql = String::from_utf8(postgresql)
        .expect("UTF-8")
        .replace("CREATE TABLE t", "CREATE TABLE public.t");
    for (name, content) in [("mysql.sql", mysql), ("pg.sql", postgresql.into_bytes())] {
        let path = dir.path().join(name);
        std::fs::write(&path, &content).expect("written");
        let output = run_within_a_minute(&["scan", path_str(&path)]);
        assert_eq!(output.status.code(), Some(1), "{name}: {}", stderr(&output));
        let fixed = dir.path().join(format!("fixed-{name}"));
        let output = run_within_a_minute(&["fix", path_str(&path), "-o", path_str(&fixed)]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let fixed = std::fs::read(Path::new(&fixed)).expect("fixed");
        assert!(fixed.ends_with("'café');\n".as_bytes()), "{name}");
        assert_eq!(fixed.len(), content.len() - 2, "{name}: one value repaired");
    }
}
