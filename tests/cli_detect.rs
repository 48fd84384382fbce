//! `undouble detect` as a user runs it: the built binary on files in a temporary directory
//! (validome's documents byte for byte, UTF-16 with a BOM, a raw HTTP response, SQL dump
//! heads), checking the JSON Lines fields and the exit codes (0, 1, 2).

mod charset_documents;
mod html5lib;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use charset_documents::{Bytes, UMLAUTS, document};
use html5lib::html5lib_tests;
use serde_json::Value;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The JSON Lines of standard output.
    fn records(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or(Value::Null))
            .collect()
    }

    /// The only record, for single-input runs.
    fn record(&self) -> Value {
        let records = self.records();
        assert_eq!(records.len(), 1, "{}", self.stdout);
        records.into_iter().next().unwrap_or(Value::Null)
    }
}

fn detect(args: &[&str], stdin: &[u8]) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_undouble"))
        .arg("detect")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = child.expect("the binary starts");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin takes the input");
    }
    let output = child.wait_with_output().expect("the binary ends");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("the temporary file is written");
    path
}

fn text(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

fn codes(record: &Value) -> Vec<&str> {
    record["diagnostics"]
        .as_array()
        .map(|all| all.iter().filter_map(|d| d["code"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn validome_documents_and_their_exit_codes() {
    let dir = tempfile::tempdir().expect("a temporary directory");

    let no_error = write(
        dir.path(),
        "no-error.html",
        &document("no error", Some("iso-8859-1"), "", Bytes::Latin1),
    );
    let run = detect(
        &[
            "--json",
            "--content-type",
            "text/html; charset=ISO-8859-1",
            text(&no_error),
        ],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let record = run.record();
    assert_eq!(record["type"], "detect");
    assert_eq!(record["path"], text(&no_error));
    assert_eq!(record["encoding"], "windows-1252");
    assert_eq!(record["label"], "ISO-8859-1");
    assert_eq!(record["source"], "protocol");
    assert_eq!(record["declared"][0]["source"], "protocol");
    assert_eq!(record["declared"][0]["label"], "ISO-8859-1");
    assert_eq!(record["declared"][1]["source"], "meta");
    assert_eq!(record["declared"][1]["label"], "iso-8859-1");
    assert_eq!(record["diagnostics"], Value::Array(Vec::new()));

    let header_differs = write(
        dir.path(),
        "header-differs.html",
        &document(
            "HTTP-Header != Meta-Charset",
            Some("iso-8859-1"),
            UMLAUTS,
            Bytes::Utf8,
        ),
    );
    let run = detect(
        &[
            "--json",
            "--content-type",
            "text/html; charset=UTF-8",
            text(&header_differs),
        ],
        b"",
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let record = run.record();
    assert_eq!(codes(&record), ["conflict"]);
    let first = &record["diagnostics"][0];
    assert_eq!(first["level"], "warning");
    assert_eq!(
        first["message"],
        "protocol \"UTF-8\" (UTF-8) disagrees with meta \"iso-8859-1\" (windows-1252); \
         protocol wins: UTF-8"
    );

    let bom_differs = write(
        dir.path(),
        "bom-differs.html",
        &document(
            "BOM != Meta",
            Some("ISO-8859-1"),
            UMLAUTS,
            Bytes::Utf8WithBom,
        ),
    );
    let run = detect(&["--json", text(&bom_differs)], b"");
    assert_eq!(run.code, Some(1));
    assert_eq!(run.record()["source"], "bom");

    let only_header = write(
        dir.path(),
        "only-header.html",
        &document("missing meta-charset", None, UMLAUTS, Bytes::Utf8),
    );
    let run = detect(
        &[
            "--json",
            "--content-type",
            "text/html; charset=UTF-8",
            text(&only_header),
        ],
        b"",
    );
    assert_eq!(run.code, Some(1));
    let record = run.record();
    assert_eq!(codes(&record), ["charset-only-in-header"]);
    assert_eq!(record["diagnostics"][0]["level"], "notice");

    let nothing = write(
        dir.path(),
        "nothing.html",
        &document("missing all-charset", None, UMLAUTS, Bytes::Latin1),
    );
    let run = detect(
        &["--json", "--content-type", "text/html", text(&nothing)],
        b"",
    );
    assert_eq!(run.code, Some(3), "undetermined is not a usage error");
    let record = run.record();
    assert_eq!(record["encoding"], Value::Null);
    assert_eq!(record["label"], Value::Null);
    assert_eq!(record["source"], Value::Null);
    assert_eq!(codes(&record), ["no-charset"]);
    assert_eq!(record["diagnostics"][0]["level"], "error");

    let run = detect(&["--json", "--assume", "ISO-8859-1", text(&nothing)], b"");
    assert_eq!(run.code, Some(1));
    let record = run.record();
    assert_eq!(
        (&record["source"], &record["encoding"], &record["label"]),
        (
            &Value::from("assumed"),
            &Value::from("windows-1252"),
            &Value::from("ISO-8859-1")
        )
    );

    let utf16 = write(
        dir.path(),
        "utf16-no-bom.html",
        &document("no error UTF-16", Some("utf-16"), UMLAUTS, Bytes::Utf16Le),
    );
    let run = detect(
        &[
            "--json",
            "--content-type",
            "text/html; charset=UTF-16",
            text(&utf16),
        ],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.record()["encoding"], "UTF-16LE");
}

#[test]
fn utf16_files_with_a_byte_order_mark() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let page = write(
        dir.path(),
        "utf16-bom.html",
        &document(
            "UTF-16 with BOM",
            Some("utf-16"),
            UMLAUTS,
            Bytes::Utf16LeWithBom,
        ),
    );
    let plain: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Gr\u{FC}\u{DF}e".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let plain = write(dir.path(), "utf16-bom.txt", &plain);
    let run = detect(&["--json", text(&page), text(&plain)], b"");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    for record in run.records() {
        assert_eq!(record["source"], "bom");
        assert_eq!(record["encoding"], "UTF-16LE");
        assert_eq!(record["declared"][0]["source"], "bom");
        assert_eq!(record["diagnostics"], Value::Array(Vec::new()));
    }
    assert_eq!(run.records()[0]["detected"]["method"], "first-chars");
}

#[test]
fn raw_http_responses() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let agreeing = write(
        dir.path(),
        "agreeing.http",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\n\
          <meta charset=utf-8><p>\xC3\xA4",
    );
    let run = detect(&["--json", "--http", text(&agreeing)], b"");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let record = run.record();
    assert_eq!(record["source"], "protocol");
    assert_eq!(record["declared"][0]["label"], "utf-8");

    let disagreeing = write(
        dir.path(),
        "disagreeing.http",
        b"HTTP/1.0 200 OK\nContent-Type: text/html; charset=iso-8859-1\n\n<p>\xC3\xA4",
    );
    let run = detect(&["--json", "--http", text(&disagreeing)], b"");
    assert_eq!(run.code, Some(1));
    let record = run.record();
    assert_eq!(record["encoding"], "windows-1252");
    assert_eq!(codes(&record), ["conflict", "charset-only-in-header"]);
    let message = record["diagnostics"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("protocol \"iso-8859-1\"")
            && message.contains("detected \"UTF-8\"")
            && message.ends_with("protocol wins: windows-1252"),
        "{message}"
    );

    let both = detect(&["--http", "--content-type", "text/html", "x"], b"");
    assert_eq!(both.code, Some(2), "{}", both.stderr);
}

#[test]
fn sql_dump_heads() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let head = |names: &str| {
        format!(
            "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n\
             /*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n\
             /*!50503 SET NAMES {names} */;\n\n\
             CREATE TABLE `t` (`a` text) ENGINE=InnoDB DEFAULT CHARSET=latin1;\n\
             INSERT INTO `t` VALUES ('Gr\u{FC}\u{DF}e'),('<meta charset=koi8-r>');\n"
        )
    };
    let utf8 = write(dir.path(), "utf8.sql", head("utf8mb4").as_bytes());
    let run = detect(&["--json", text(&utf8)], b"");
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let record = run.record();
    assert_eq!(record["source"], "sql");
    assert_eq!(record["label"], "utf8mb4");
    assert_eq!(record["encoding"], "UTF-8");
    let declared = &record["declared"];
    assert_eq!(declared.as_array().map(Vec::len), Some(1), "{declared}");
    assert_eq!(declared[0]["statement"], "set-names");
    assert_eq!(declared[0]["line"], 4);

    let latin1 = write(dir.path(), "latin1.sql", head("latin1").as_bytes());
    let run = detect(&["--json", text(&latin1)], b"");
    assert_eq!(run.code, Some(1));
    let record = run.record();
    assert_eq!(record["source"], "detected");
    assert_eq!(codes(&record), ["conflict"]);
    let message = record["diagnostics"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("sql \"latin1\" (windows-1252; SET NAMES, line 4)"),
        "{message}"
    );
}

#[test]
fn several_inputs_standard_input_and_errors() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fine = write(dir.path(), "fine.html", b"<meta charset=utf-8><p>\xC3\xA4");
    let missing = dir.path().join("missing.html");
    let run = detect(&["--json", text(&fine), "-", text(&missing)], b"<p>plain");
    assert_eq!(run.code, Some(2), "2 wins over 1: {}", run.stdout);
    let records = run.records();
    assert_eq!(records.len(), 3, "{}", run.stdout);
    assert_eq!(records[0]["encoding"], "UTF-8");
    assert_eq!(records[1]["path"], "-");
    assert_eq!(codes(&records[1]), ["ascii-only"]);
    assert_eq!(records[2]["type"], "error");
    assert_eq!(records[2]["path"], text(&missing));
    assert!(
        records[2]["message"]
            .as_str()
            .is_some_and(|m| m.contains("missing.html")),
        "{}",
        records[2]
    );
    assert!(run.stderr.contains("missing.html"), "{}", run.stderr);

    let run = detect(&[], "<meta charset=utf-8><p>\u{E4}".as_bytes());
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stdout.starts_with("-: UTF-8 from meta \"utf-8\"\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("  declared: meta \"utf-8\" (UTF-8)\n"));
}

/// German prose in windows-1252, long enough for a confident guess.
fn legacy_prose() -> Vec<u8> {
    let text = "Gr\u{FC}\u{DF}e aus K\u{F6}ln: sch\u{F6}ne Stra\u{DF}en, \u{C4}rger \u{FC}ber \
                \u{D6}l und M\u{FC}ll, f\u{FC}nf B\u{E4}ume vor der T\u{FC}r. "
        .repeat(6);
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1 text"))
        .collect()
}

#[test]
fn always_an_answer_and_honest_about_its_footing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let legacy = write(dir.path(), "legacy.txt", &legacy_prose());
    let run = detect(&["--json", text(&legacy)], b"");
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let record = run.record();
    assert_eq!(record["encoding"], "windows-1252");
    assert_eq!(record["source"], "detected");
    assert_eq!(record["guess"], true);
    let confidence = record["confidence"].as_f64().unwrap_or(-1.0);
    assert!((0.5..=1.0).contains(&confidence), "{record}");
    assert_eq!(codes(&record), ["guessed"]);
    assert_eq!(record["diagnostics"][0]["level"], "notice");

    let run = detect(&[text(&legacy)], b"");
    let first = run.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("{}: windows-1252 (guess, {confidence:.2})", text(&legacy))
    );

    let refused = detect(&["--json", "--min-confidence", "1", text(&legacy)], b"");
    assert_eq!(refused.code, Some(3), "{}", refused.stdout);
    let record = refused.record();
    assert_eq!(record["encoding"], Value::Null);
    assert_eq!(record["guess"], false);
    assert_eq!(codes(&record), ["no-charset"]);
    let message = record["diagnostics"][0]["message"].as_str().unwrap_or("");
    assert!(message.contains("too little evidence"), "{message}");

    let ascii = write(dir.path(), "ascii.html", b"<html><p>plain</p></html>");
    let empty = write(dir.path(), "empty.html", b"");
    let run = detect(&["--json", text(&ascii), text(&empty)], b"");
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let records = run.records();
    assert_eq!(records.len(), 2, "{}", run.stdout);
    for (record, code) in records.iter().zip(["ascii-only", "empty"]) {
        assert_eq!(record["encoding"], "US-ASCII", "{record}");
        assert_eq!(record["source"], "detected");
        assert_eq!(record["guess"], false);
        assert_eq!(codes(record), [code]);
    }

    for bad in ["1.5", "-0.1", "NaN"] {
        let run = detect(&[&format!("--min-confidence={bad}"), text(&ascii)], b"");
        assert_eq!(run.code, Some(2), "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--min-confidence"), "{}", run.stderr);
    }
}

#[test]
fn refusals() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let huge = dir.path().join("huge.html");
    let file = std::fs::File::create(&huge).expect("the file is created");
    file.set_len((256 << 20) + 1).expect("a sparse file");
    let run = detect(&["--json", text(&huge)], b"");
    assert_eq!(run.code, Some(2));
    let record = run.record();
    assert_eq!(record["type"], "error");
    let message = record["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with(text(&huge)) && message.contains("larger than"),
        "{message}"
    );

    let run = detect(&["--assume", "no-such-encoding"], b"");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("no-such-encoding"), "{}", run.stderr);
}

/// html5lib's encoding tests through `detect --whatwg`, all in one run of the binary: all but
/// the one whose `<meta>` only a script writes.
#[test]
fn whatwg_answers_html5lib_encoding_tests_as_a_browser() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tests = html5lib_tests();
    assert_eq!(tests.len(), 83, "tests.jsonl should hold 83 tests");
    let paths: Vec<PathBuf> = tests
        .iter()
        .enumerate()
        .map(|(at, test)| write(dir.path(), &format!("{at:02}.html"), &test.bytes))
        .collect();
    let mut args = vec!["--whatwg", "--json"];
    args.extend(paths.iter().map(|path| text(path)));
    let run = detect(&args, b"");
    assert_ne!(run.code, Some(2), "{}", run.stderr);
    let records = run.records();
    assert_eq!(records.len(), tests.len(), "{}", run.stdout);
    let mut failures = Vec::new();
    for (test, record) in tests.iter().zip(&records) {
        let want = encoding_rs::Encoding::for_label(test.encoding.as_bytes()).map(|e| e.name());
        if record["encoding"].as_str() != want {
            failures.push(format!(
                "{}{}: got {}, want {:?}",
                test.name,
                if test.needs_scripting {
                    " (needs scripting)"
                } else {
                    ""
                },
                record["encoding"],
                want
            ));
        }
    }
    println!(
        "html5lib through detect --whatwg: {}/{}",
        tests.len() - failures.len(),
        tests.len()
    );
    assert!(failures.len() <= 1, "failures:\n{}", failures.join("\n"));
    assert!(
        failures.iter().all(|f| f.contains("needs scripting")),
        "{failures:?}"
    );
}

#[test]
fn trees_are_walked_like_scan_with_a_summary() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().join("site");
    std::fs::create_dir_all(root.join("old/deeper")).expect("directories");
    write(&root, "index.html", b"<meta charset=utf-8><p>\xC3\xA4");
    write(&root, "plain.txt", b"plain");
    write(&root.join("old"), "legacy.txt", &legacy_prose());
    write(&root.join("old/deeper"), "more.txt", &legacy_prose());
    write(&root.join("old"), "skip.bin", b"\x00\x01\x02 binary");
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Gr\u{FC}\u{DF}e".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    write(&root, "wide.txt", &utf16);
    write(&root, ".hidden.html", b"<meta charset=koi8-r>");
    let huge = root.join("huge.html");
    let file = std::fs::File::create(&huge).expect("the file is created");
    file.set_len((256 << 20) + 1).expect("a sparse file");

    let run = detect(&[text(&root)], b"");
    assert_eq!(run.code, Some(2), "an unreadable file: {}", run.stdout);
    assert!(run.stderr.contains("huge.html"), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let name = |relative: &str| format!("{}/{relative}", text(&root));
    assert_eq!(
        lines,
        [
            format!("{}: UTF-8 from meta \"utf-8\"", name("index.html")),
            format!(
                "{}: windows-1252 (guess, 0.96); notice guessed",
                name("old/deeper/more.txt")
            ),
            format!(
                "{}: windows-1252 (guess, 0.96); notice guessed",
                name("old/legacy.txt")
            ),
            format!(
                "{}: skipped (looks binary; --binary reads it)",
                name("old/skip.bin")
            ),
            format!(
                "{}: US-ASCII from detected \"US-ASCII\"; notice ascii-only",
                name("plain.txt")
            ),
            format!("{}: UTF-16LE from bom \"UTF-16LE\"", name("wide.txt")),
            "total (5 files, 1 skipped, 1 unreadable): windows-1252 2 (2 guesses), US-ASCII 1, \
             UTF-16LE 1, UTF-8 1"
                .to_owned(),
        ],
        "{}",
        run.stdout
    );

    let run = detect(
        &["--json", "--hidden", "--exclude", "huge.html", text(&root)],
        b"",
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let records = run.records();
    let total = records.last().cloned().unwrap_or(Value::Null);
    assert_eq!(total["type"], "total", "{}", run.stdout);
    assert_eq!(total["files"], 6);
    assert_eq!(total["skipped"], 1);
    assert_eq!(total["errors"], 0);
    assert_eq!(total["encodings"]["windows-1252"], 2);
    assert_eq!(total["encodings"]["KOI8-R"], 1);
    assert_eq!(total["guesses"]["windows-1252"], 2);
    assert_eq!(total["undetermined"], 0);
    let detected = records.iter().filter(|r| r["type"] == "detect").count();
    assert_eq!(detected, 6, "{}", run.stdout);
}
