//! Dump-aware `scan` and `fix` on a dump of several blocks, whose buffers are scanned on the
//! pool and merged in order: the same report and the same bytes whatever the thread count, with
//! an audit log (whose runs are replayed in order on one thread) or without, and a cell longer
//! than a block, garbled at both ends, counted as one broken cell.

mod binary;

use binary::*;

use serde_json::Value;

/// The garbled forms and their repairs.
const GARBLED: [(&str, &str); 2] = [("cafÃ©", "café"), ("dÃ©jÃ\u{a0} vu", "déjà vu")];

/// A MySQL dump of 20 MB: ordinary rows around one text cell of 10 MB that is garbled at its
/// start and at its end, and blobs that look garbled. With `repaired`, what `fix` should make
/// of it.
fn dump(repaired: bool) -> Vec<u8> {
    let text = |index: usize| match repaired {
        false => GARBLED[index].0,
        true => GARBLED[index].1,
    };
    let mut out = String::from(
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
         /*!40101 SET NAMES utf8mb4 */;\n\
         CREATE TABLE `t` (\n\
         \x20 `id` int NOT NULL,\n\
         \x20 `body` longtext,\n\
         \x20 `data` longblob,\n\
         \x20 PRIMARY KEY (`id`)\n\
         ) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
    );
    let mut id = 0;
    let mut rows = |out: &mut String, count: usize| {
        for _ in 0..count {
            id += 1;
            let body = match id % 3 {
                0 => format!("{} number {id}", text(id % 2)),
                _ => format!("plain row {id}"),
            };
            let insert = format!(
                "INSERT INTO `t` VALUES ({id},'{body}','{}');\n",
                GARBLED[0].0
            );
            out.push_str(&insert);
        }
    };
    rows(&mut out, 100_000);
    let long = format!("{} {} {}", text(0), "x".repeat(10 << 20), text(1));
    out.push_str(&format!("INSERT INTO `t` VALUES (0,'{long}',NULL);\n"));
    rows(&mut out, 100_000);
    out.into_bytes()
}

fn body_column(report: &Value) -> &Value {
    let columns = report["dump"]["tables"][0]["columns"]
        .as_array()
        .expect("columns");
    columns
        .iter()
        .find(|column| column["column"] == "body")
        .expect("the body column")
}

#[test]
fn a_dump_of_many_blocks_is_read_alike_whatever_the_threads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("big.sql");
    std::fs::write(&input, dump(false)).expect("written");
    let expected = dump(true);
    let mut reference: Option<Vec<Value>> = None;
    for threads in ["1", "2", "4"] {
        let out = dir.path().join(format!("out-{threads}.sql"));
        let output = run(&[
            "fix",
            "-q",
            "--keep-charset",
            "-j",
            threads,
            path_str(&input),
            "-o",
            path_str(&out),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            std::fs::read(&out).expect("output") == expected,
            "-j {threads}"
        );
        let records = json_lines(&run(&["scan", "--json", "-j", threads, path_str(&input)]));
        match &reference {
            None => reference = Some(records),
            Some(first) => assert_eq!(&records, first, "scan -j {threads}"),
        }
    }
    let records = reference.expect("scanned");
    let body = body_column(&records[0]);
    // Rows 3, 6, 9, ... of each 100,000, and the long cell once though two buffers hold it.
    assert_eq!(body["double_encoded_cells"], 2 * 33_333 + 1, "{body}");
    assert_eq!(
        records[0]["dump"]["binary_runs"], 200_000,
        "{}",
        records[0]["dump"]
    );

    // Audited, the runs are replayed into one sink in order: the same bytes.
    let audited = dir.path().join("audited.sql");
    let log = dir.path().join("audit.jsonl");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "-j",
        "2",
        "--audit",
        path_str(&log),
        path_str(&input),
        "-o",
        path_str(&audited),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(std::fs::read(&audited).expect("output") == expected);
}
