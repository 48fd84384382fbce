//! Every parser of untrusted bytes takes time linear in its input: each is timed on inputs of
//! the shapes that make parsers rescan (many attributes, many headers, long runs of one
//! construct, deep nesting) at 1x, 10x and 100x a base size, and the time of the largest
//! must stay within a generous bound of 100 times the smallest's (a quadratic parser takes
//! 10,000 times as long).
//!
//! The suite runs every shape once at a size where a quadratic parser would take minutes,
//! with a deadline. Timing is run on demand (it measures, and a loaded machine blurs measurements):
//! `cargo nextest run --test parsers_linear --run-ignored only --no-capture`.

mod common;

use std::time::{Duration, Instant};

use common::Runner;

use undouble::charset::{
    self, DEFAULT_SUSPECTS, HtmlOptions, HttpMessage, HttpOptions, PolicyOptions, SqlDialect,
};
use undouble::dump::lex_values;

/// A shape: its name, the repetitions the suite runs it with (where a quadratic parser takes
/// minutes, within the limit of a statement's size), the input of `n` repetitions, and the
/// parser it is given to.
type Shape = (&'static str, usize, fn(usize) -> Vec<u8>, fn(&[u8]));

fn repeat(head: &str, unit: &str, tail: &str, n: usize) -> Vec<u8> {
    format!("{head}{}{tail}", unit.repeat(n)).into_bytes()
}

fn lex_mysql(input: &[u8]) {
    let _ = lex_values(SqlDialect::MySql, input, &[]);
}

fn lex_postgresql(input: &[u8]) {
    let _ = lex_values(SqlDialect::PostgreSql, input, &[]);
}

fn shapes() -> Vec<Shape> {
    vec![
        (
            "mysql rows",
            60_000,
            |n| {
                repeat(
                    "CREATE TABLE t (id int, a text);\nINSERT INTO t VALUES ",
                    "(1,'a\\'b''c'),",
                    "(0,'');\n",
                    n,
                )
            },
            lex_mysql,
        ),
        (
            "mysql comment of stars",
            60_000,
            |n| repeat("/*", "* ", "*/ SELECT 1;\n", n),
            lex_mysql,
        ),
        (
            "mysql unterminated comment",
            60_000,
            |n| repeat("/*", "* ", "", n),
            lex_mysql,
        ),
        (
            "mysql line comments",
            60_000,
            |n| repeat("", "-- x\n# y\n", "SELECT 1;\n", n),
            lex_mysql,
        ),
        (
            "mysql version comments",
            60_000,
            |n| repeat("", "/*!40101 SET x=1 */;\n", "", n),
            lex_mysql,
        ),
        (
            "mysql backslashes",
            60_000,
            |n| {
                repeat(
                    "CREATE TABLE t (a text);\nINSERT INTO t VALUES ('",
                    "\\\\\\'",
                    "');\n",
                    n,
                )
            },
            lex_mysql,
        ),
        (
            "mysql unterminated string",
            60_000,
            |n| {
                repeat(
                    "CREATE TABLE t (a text);\nINSERT INTO t VALUES ('",
                    "\\\\''",
                    "",
                    n,
                )
            },
            lex_mysql,
        ),
        (
            "mysql delimiters",
            60_000,
            |n| repeat("", "DELIMITER ;;\nSELECT 1;;\nDELIMITER ;\n", "", n),
            lex_mysql,
        ),
        (
            "mysql create modifiers",
            60_000,
            |n| repeat("CREATE ", "OR ", "TABLE t (a text);\n", n),
            lex_mysql,
        ),
        (
            "mysql many columns",
            25_000,
            |n| {
                repeat(
                    "CREATE TABLE t (id int",
                    ", a text DEFAULT 'x' COMMENT 'y'",
                    ");\n",
                    n,
                )
            },
            lex_mysql,
        ),
        (
            "mysql nested parentheses",
            60_000,
            |n| {
                format!(
                    "CREATE TABLE t (a text CHECK ({}1{}));\n",
                    "(".repeat(n),
                    ")".repeat(n)
                )
                .into_bytes()
            },
            lex_mysql,
        ),
        (
            "mysql enum values",
            60_000,
            |n| repeat("CREATE TABLE t (a enum('x'", ",'x'", "));\n", n),
            lex_mysql,
        ),
        (
            "mysql key of many columns",
            25_000,
            |n| {
                let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
                let columns: Vec<String> = names.iter().map(|c| format!("{c} text")).collect();
                format!(
                    "CREATE TABLE t ({}, PRIMARY KEY ({}));\n",
                    columns.join(","),
                    names.join(",")
                )
                .into_bytes()
            },
            lex_mysql,
        ),
        (
            "mysql insert of many columns",
            25_000,
            |n| {
                let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
                let columns: Vec<String> = names.iter().map(|c| format!("{c} text")).collect();
                let values = vec!["'x'"; n].join(",");
                format!(
                    "CREATE TABLE t ({});\nINSERT INTO t ({}) VALUES ({values});\n",
                    columns.join(","),
                    names.join(",")
                )
                .into_bytes()
            },
            lex_mysql,
        ),
        (
            "pg check naming many columns",
            25_000,
            |n| {
                let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
                let columns: Vec<String> = names.iter().map(|c| format!("{c} text")).collect();
                format!(
                    "CREATE TABLE t ({}, CHECK ({} = 'x'));\nCOPY t ({}) FROM stdin;\n{}\n\\.\n",
                    columns.join(","),
                    names.join(" || "),
                    names.join(", "),
                    vec!["x"; n].join("\t")
                )
                .into_bytes()
            },
            lex_postgresql,
        ),
        (
            "pg copy rows",
            60_000,
            |n| {
                repeat(
                    "CREATE TABLE t (id int, a text);\nCOPY t (id, a) FROM stdin;\n",
                    "1\ta\\\\b\\tc\n",
                    "\\.\n",
                    n,
                )
            },
            lex_postgresql,
        ),
        (
            "pg nested comments",
            60_000,
            |n| format!("{}{}SELECT 1;\n", "/* ".repeat(n), "*/ ".repeat(n)).into_bytes(),
            lex_postgresql,
        ),
        (
            "pg unterminated nested comment",
            60_000,
            |n| repeat("", "/* ", "", n),
            lex_postgresql,
        ),
        (
            "pg dollar quote of dollars",
            60_000,
            |n| repeat("CREATE FUNCTION f() AS $a$", "$ $b$ $a ", "$a$;\n", n),
            lex_postgresql,
        ),
        (
            "pg unterminated dollar quote",
            60_000,
            |n| repeat("CREATE FUNCTION f() AS $a$", "$a ", "", n),
            lex_postgresql,
        ),
        (
            "pg routine body",
            60_000,
            |n| {
                repeat(
                    "CREATE PROCEDURE p() BEGIN ATOMIC ",
                    "SELECT 1; CASE END ",
                    "END;\n",
                    n,
                )
            },
            lex_postgresql,
        ),
        (
            "pg check literals",
            60_000,
            |n| {
                repeat(
                    "CREATE TABLE t (a text, CONSTRAINT c CHECK (a IN ('x'",
                    ", 'x'",
                    ")));\n",
                    n,
                )
            },
            lex_postgresql,
        ),
        (
            "content type parameters",
            60_000,
            |n| repeat("text/html", "; a=\"b\\\"c\"", "; charset=utf-8", n),
            |input| {
                charset::encoding_from_content_type(input);
                charset::first_header_component(input);
            },
        ),
        (
            "http headers",
            60_000,
            |n| {
                repeat(
                    "HTTP/1.1 200 OK\r\n",
                    "Content-Type: text/html; charset=utf-8\r\nX: y\r\n z\r\n",
                    "\r\n<meta charset=latin1>",
                    n,
                )
            },
            |input| {
                let message = HttpMessage::parse(input);
                charset::encoding_from_http_message(&message, &HttpOptions::default());
                charset::determine_http_message(&message, &PolicyOptions::default());
            },
        ),
        (
            "meta attributes",
            60_000,
            |n| {
                let mut out = b"<meta ".to_vec();
                for i in 0..n {
                    out.extend_from_slice(format!("a{i}=x ").as_bytes());
                }
                out.extend_from_slice(b"charset=utf-8>");
                out
            },
            |input| {
                charset::prescan_meta(input);
                charset::encoding_from_meta_element(input, DEFAULT_SUSPECTS[0]);
            },
        ),
        (
            "unclosed tags",
            60_000,
            |n| repeat("", "<a b='c' ", "", n),
            |input| {
                charset::prescan_meta(input);
            },
        ),
        (
            "xml declaration attributes",
            60_000,
            |n| {
                repeat(
                    "<?xml version=\"1.0\"",
                    " a='b'",
                    " encoding=\"utf-8\"?>",
                    n,
                )
            },
            |input| {
                charset::encoding_from_xml_declaration(&String::from_utf8_lossy(input));
                charset::xml_declaration_from_octets(input, DEFAULT_SUSPECTS);
                charset::encoding_from_xml_document(input, DEFAULT_SUSPECTS);
            },
        ),
        (
            "html tags",
            60_000,
            |n| {
                repeat(
                    "<html><head>",
                    "<meta name=x content=y><!-- c --><script>x</script>",
                    "<meta charset=utf-8>",
                    n,
                )
            },
            |input| {
                charset::encoding_from_html_document(input, &HtmlOptions::default());
                charset::determine(input, Some(b"text/html"), &PolicyOptions::default());
            },
        ),
        (
            "html distinct charsets",
            60_000,
            |n| {
                let mut out = b"<html><head>".to_vec();
                for i in 0..n {
                    out.extend_from_slice(format!("<meta charset=x-{i}>").as_bytes());
                }
                out
            },
            |input| {
                charset::encoding_from_html_document(input, &HtmlOptions::default());
            },
        ),
        (
            "html meta elements",
            60_000,
            |n| repeat("", "<meta charset=\"utf-8\">", "", n),
            |input| {
                charset::encoding_from_html_document(input, &HtmlOptions::default());
            },
        ),
        (
            "sql head",
            60_000,
            |n| {
                repeat(
                    "-- MySQL dump\n",
                    "SET NAMES latin1;\nCREATE TABLE t (a text) DEFAULT CHARSET=latin1;\n",
                    "",
                    n,
                )
            },
            |input| {
                charset::sql_declarations(input);
                charset::looks_like_sql(input);
                charset::determine(input, None, &PolicyOptions::default());
            },
        ),
        (
            "sql head of unterminated SET lines",
            60_000,
            |n| repeat("#!/bin/sh\n", "set -e\n", "SET NAMES latin1;\n", n),
            |input| {
                charset::sql_declarations(input);
                charset::looks_like_sql(input);
                charset::determine(input, None, &PolicyOptions::default());
            },
        ),
    ]
}

/// The best of three timings of `parse` on `input`.
fn time(parse: fn(&[u8]), input: &[u8]) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            parse(input);
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Every shape, at a size where a quadratic parser takes minutes, must be done within the
/// deadline (this part runs with the test suite).
#[test]
fn every_parser_finishes_on_large_hostile_shapes() {
    for (name, size, make, parse) in shapes() {
        let mut runner = Runner::new(name, Duration::from_secs(5), parse);
        let input = make(size);
        if let Err(failure) = runner.run(&input) {
            panic!("{name}: {failure}");
        }
    }
}

#[test]
#[ignore = "measures time: run on demand"]
fn every_parser_takes_time_linear_in_its_input() {
    let base = 200;
    let mut slow = Vec::new();
    for (name, _, make, parse) in shapes() {
        let times: Vec<(usize, Duration)> = [base, 10 * base, 100 * base]
            .into_iter()
            .map(|n| {
                let input = make(n);
                (input.len(), time(parse, &input))
            })
            .collect();
        let ratio = times[2].1.as_secs_f64() / times[0].1.as_secs_f64().max(1e-6);
        println!(
            "{name:32} {:>9} B {:>9.3} ms | {:>9} B {:>9.3} ms | {:>9} B {:>9.3} ms | 100x input: {ratio:.0}x time",
            times[0].0,
            times[0].1.as_secs_f64() * 1e3,
            times[1].0,
            times[1].1.as_secs_f64() * 1e3,
            times[2].0,
            times[2].1.as_secs_f64() * 1e3,
        );
        // Quadratic is 10,000x; linear is 100x, blurred by caches and a loaded machine.
        if ratio > 1000.0 && times[2].1 > Duration::from_millis(50) {
            slow.push(name);
        }
    }
    assert!(slow.is_empty(), "not linear: {slow:?}");
}
