//! The conventions of `scan` and `fix` that users bring from grep, sed and friends, checked on
//! the built binary: `scan -q` answers by its exit status alone, outputs never create
//! directories they were not asked to, options that would do nothing are refused, an audit log
//! is never written over (and says so plainly), and the JSON totals count errors and name the
//! file of their first invalid byte.

mod binary;

use binary::*;

use std::fs;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const GARBLED: &str = "CafÃ© crÃ¨me, naÃ¯ve\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn scan_q_prints_nothing_and_answers_by_its_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let garbled = write(dir.path(), "garbled.txt", GARBLED.as_bytes());
    let clean = write(dir.path(), "clean.txt", "Café crème\n".as_bytes());
    let missing = dir.path().join("missing.txt");
    let missing = path_str(&missing);
    for (args, code) in [
        (vec![garbled.as_str()], 1),
        (vec![clean.as_str()], 0),
        (vec![clean.as_str(), garbled.as_str()], 1),
        (vec![clean.as_str(), missing], 2),
        // The answer is known at the first find: as with grep -q, it wins over an error.
        (vec![missing, garbled.as_str()], 1),
    ] {
        for json in [false, true] {
            let mut all = vec!["scan", "-q"];
            all.extend(json.then_some("--json"));
            all.extend(&args);
            let output = run(&all);
            assert_eq!(output.status.code(), Some(code), "{all:?}");
            assert!(output.stdout.is_empty(), "{all:?}: {:?}", output.stdout);
            let stderr = stderr(&output);
            let errors_only = stderr.lines().all(|line| line.starts_with("undouble: "));
            assert!(errors_only, "{all:?}: {stderr}");
        }
    }
}

/// `scan -q` answers inputs in parallel but in the order given: an error of an input before
/// the first find is told, and none after it is (the run has its answer there).
#[test]
fn scan_q_tells_the_errors_before_its_first_find_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<String> = (0..40)
        .map(|i| {
            write(
                dir.path(),
                &format!("clean-{i:02}.txt"),
                b"Caf\xc3\xa9 cr\xc3\xa8me\n",
            )
        })
        .collect();
    inputs[10] = path_str(&dir.path().join("missing-before.txt")).to_owned();
    inputs[30] = write(dir.path(), "garbled.txt", GARBLED.as_bytes());
    inputs[35] = path_str(&dir.path().join("missing-after.txt")).to_owned();
    for threads in ["1", "2"] {
        let mut args = vec!["scan", "-q", "-j", threads];
        args.extend(inputs.iter().map(String::as_str));
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1), "-j {threads}");
        let stderr = stderr(&output);
        assert!(
            stderr.contains("missing-before.txt"),
            "-j {threads}: {stderr}"
        );
        assert!(
            !stderr.contains("missing-after.txt"),
            "-j {threads}: {stderr}"
        );
    }
}

/// A FIFO nobody writes to would block a scan that opened it: `scan -q` never gets there,
/// because the input before it already answered.
#[test]
fn scan_q_stops_at_the_first_find() {
    let dir = tempfile::tempdir().unwrap();
    let garbled = write(dir.path(), "garbled.txt", GARBLED.as_bytes());
    let fifo = dir.path().join("never-written");
    make_fifo(&fifo);
    let mut child = undouble()
        .args(["scan", "-q", "-j", "2", &garbled, path_str(&fifo)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let code = exit_code_within_30_seconds(&mut child);
    assert_eq!(code, Some(1), "it waited on the FIFO");
}

/// Waits up to 30 seconds for `child` to end; its exit code, or `None` if it was still
/// running (it is killed then).
fn exit_code_within_30_seconds(child: &mut std::process::Child) -> Option<i32> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A stream still being written never ends: `scan -q` answers from the blocks that have come
/// (a find in the first, two whole blocks of 8 MiB for two threads) without waiting for the
/// rest, as it answers from the first blocks of a big file without reading the others.
#[test]
fn scan_q_stops_reading_at_the_first_block_that_finds() {
    for threads in ["1", "2"] {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("still-written");
        make_fifo(&fifo);
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let path = fifo.clone();
        let writer = std::thread::spawn(move || {
            let mut stream = fs::OpenOptions::new().write(true).open(path).unwrap();
            let clean = "clean text, line after line\n".repeat(1 << 16);
            let mut text = GARBLED.to_string();
            while text.len() < (17 << 20) {
                text.push_str(&clean);
            }
            // Once the scan has its answer it closes the stream: the rest finds no reader.
            let _ = std::io::Write::write_all(&mut stream, text.as_bytes());
            // Held open, unended, until the test is over.
            let _ = finished.recv();
        });
        let mut child = undouble()
            .args(["scan", "-q", "-j", threads, path_str(&fifo)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let code = exit_code_within_30_seconds(&mut child);
        // Were the stream never opened by the scan, its writer would wait for a reader for
        // ever: one comes and goes, and the writes find none.
        drop(fs::File::open(&fifo));
        done.send(()).unwrap();
        writer.join().unwrap();
        assert_eq!(
            code,
            Some(1),
            "-j {threads}: it waited for the stream's end"
        );
    }
}

/// As with `grep -q`, a find answers even when the input fails after it: a dump whose
/// end is cut off inside a comment is an error to `scan`, but its garbled value came first.
#[test]
fn scan_q_answers_with_a_find_before_an_error_in_the_same_input() {
    let dir = tempfile::tempdir().unwrap();
    let head = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n\
                CREATE TABLE t (id int, a text);\n\
                INSERT INTO t VALUES (0,'CafÃ© crÃ¨me');\n";
    // The error in the same block as the find, or in the next one.
    let long: String = (1..=400_000)
        .map(|id| format!("INSERT INTO t VALUES ({id},'plain');\n"))
        .collect();
    for (name, rows) in [("short.sql", ""), ("long.sql", long.as_str())] {
        let dump = write(
            dir.path(),
            name,
            format!("{head}{rows}/* cut off").as_bytes(),
        );
        let output = run(&["scan", &dump]);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        assert!(stderr(&output).contains("the dump ends inside a comment"));
        for threads in ["1", "2"] {
            let output = run(&["scan", "-q", "-j", threads, &dump]);
            assert_eq!(output.status.code(), Some(1), "{name}: {}", stderr(&output));
        }
    }
}

#[test]
fn an_output_file_in_a_missing_directory_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.txt", GARBLED.as_bytes());
    let missing = dir.path().join("no").join("such");
    let target = missing.join("out.txt");
    let output = run(&["fix", "-o", path_str(&target), &input]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = stderr(&output);
    assert!(
        stderr.contains(&format!("{}: no such directory", missing.display())),
        "{stderr}"
    );
    assert!(!dir.path().join("no").exists(), "no directory was created");
}

#[test]
fn an_output_dir_is_created_under_an_existing_parent_only() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    fs::create_dir_all(tree.join("sub")).unwrap();
    write(&tree.join("sub"), "in.txt", GARBLED.as_bytes());

    let mirror = dir.path().join("mirror");
    let output = run(&[
        "fix",
        "-q",
        "--output-dir",
        path_str(&mirror),
        path_str(&tree),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let repaired = fs::read_to_string(mirror.join("sub").join("in.txt")).unwrap();
    assert_eq!(repaired, "Café crème, naïve\n");

    let orphan = dir.path().join("no").join("mirror");
    let output = run(&["fix", "--output-dir", path_str(&orphan), path_str(&tree)]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = stderr(&output);
    let parent = dir.path().join("no");
    assert!(
        stderr.contains(&format!("{}: no such directory", parent.display())),
        "{stderr}"
    );
    assert!(!parent.exists(), "no directory was created");
}

#[test]
fn a_backup_without_in_place_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.txt", GARBLED.as_bytes());
    let out = dir.path().join("out.txt");
    for args in [
        vec!["fix", "--backup", ".orig", input.as_str()],
        vec![
            "fix",
            "--backup",
            ".orig",
            "-o",
            path_str(&out),
            input.as_str(),
        ],
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains("--in-place"), "{args:?}");
        assert!(!out.exists());
        assert_eq!(fs::read_to_string(&input).unwrap(), GARBLED);
    }
}

#[test]
fn an_existing_audit_log_is_refused_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "in.txt", GARBLED.as_bytes());
    let log = write(dir.path(), "audit.jsonl", b"an earlier log\n");
    let output = run(&["fix", "--in-place", "--audit", &log, &input]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = stderr(&output);
    assert!(stderr.contains("the audit log exists already"), "{stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
    assert_eq!(fs::read(&log).unwrap(), b"an earlier log\n");
    assert_eq!(
        fs::read_to_string(&input).unwrap(),
        GARBLED,
        "nothing was fixed"
    );
}

#[test]
fn the_json_total_counts_errors_and_names_the_file_of_its_first_invalid_byte() {
    let dir = tempfile::tempdir().unwrap();
    let late = write(dir.path(), "late.txt", b"valid for a while \xff then not\n");
    let early = write(dir.path(), "early.txt", b"a\xffb\n");
    let clean = write(dir.path(), "clean.txt", b"clean\n");
    let missing = dir.path().join("missing.txt");
    let output = run(&["scan", "--json", &late, path_str(&missing), &early, &clean]);
    assert_eq!(output.status.code(), Some(2));
    let records = json_lines(&output);
    let total = records.last().unwrap();
    assert_eq!(total["type"], "total");
    assert_eq!(total["errors"], 1);
    assert_eq!(total["first_invalid_offset"], 1);
    assert_eq!(total["first_invalid_path"], early.as_str());

    let output = run(&["scan", "--json", &clean]);
    let records = json_lines(&output);
    let total = records.last().unwrap();
    assert_eq!(total["errors"], 0);
    assert_eq!(total["first_invalid_path"], serde_json::Value::Null);
}
