//! Runs the built `undouble` binary on the files in `corpus/` and on awkward inputs, and checks
//! its output, its JSON and its exit codes.

mod binary;

use binary::*;

use std::io::{Read, Write};
use std::process::Stdio;

use serde_json::Value;

#[test]
fn scan_counts_the_sample_dump() {
    let dump = corpus("dump-sample.sql");
    let output = run(&["scan", "--json", path_str(&dump)]);
    assert_eq!(output.status.code(), Some(1), "double encoding found");
    let records = json_lines(&output);
    assert_eq!(records.len(), 2);
    let file = &records[0];
    assert_eq!(file["type"], "file");
    assert_eq!(file["path"], path_str(&dump));
    assert_eq!(file["bytes"], 70176);
    assert_eq!(file["valid_utf8"], true);
    assert_eq!(file["first_invalid_offset"], Value::Null);
    // The counts corpus/README.md gives for the sample, computed by its generator.
    assert_eq!(file["double_encoded"], 3566);
    assert_eq!(file["by_layers"]["1"], 3242);
    assert_eq!(file["by_layers"]["2"], 324);
    assert_eq!(file["by_reading"]["either"], 2268);
    assert_eq!(file["by_reading"]["cp1252"], 1062);
    assert_eq!(file["by_reading"]["latin1"], 236);
    let top = file["top_sequences"].as_array().expect("a list");
    assert_eq!(top.len(), 10);
    let counts: Vec<u64> = top
        .iter()
        .map(|s| s["count"].as_u64().unwrap_or(0))
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "most frequent first"
    );
    for seq in top {
        let garbled = seq["mojibake"].as_str().expect("text");
        assert_eq!(
            seq["mojibake_hex"].as_str().map(str::len),
            Some(garbled.len() * 2)
        );
    }
    let total = &records[1];
    assert_eq!(total["type"], "total");
    assert_eq!(total["files"], 1);
    assert_eq!(total["double_encoded"], 3566);
}

#[test]
fn scan_of_clean_text_finds_nothing_and_exits_0() {
    let clean = corpus("clean-multilingual.txt");
    let output = run(&["scan", "--json", path_str(&clean)]);
    assert_eq!(output.status.code(), Some(0));
    let records = json_lines(&output);
    assert_eq!(records[0]["double_encoded"], 0);
    assert!(records[0]["fine_non_ascii"].as_u64().unwrap_or(0) > 5000);
    // The look-alikes it holds are reported as left alone, not repaired.
    assert!(records[0]["left_alone"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn fix_restores_the_true_text_of_the_sample_dump() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("fixed.sql");
    // The README's first command: the sample's tables are latin1 and its text multilingual.
    let output = run(&[
        "fix",
        "--convert-charset",
        "utf8mb4",
        path_str(&corpus("dump-sample.sql")),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "something was repaired");
    let expected = std::fs::read(corpus("dump-sample.expected.sql")).expect("expected file");
    assert!(
        std::fs::read(&out).expect("output") == expected,
        "fix output differs from the truth"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("3,566 double-encoded characters"));

    // The repaired dump has nothing left to repair, and fix leaves it byte-identical.
    let again = dir.path().join("again.sql");
    let output = run(&["fix", path_str(&out), "-o", path_str(&again), "-q"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(std::fs::read(&again).expect("output") == expected);
    assert!(output.stderr.is_empty(), "--quiet says nothing");
}

#[test]
fn fix_dash_o_dash_writes_to_standard_output_and_makes_no_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "caf\u{c3}\u{83}\u{c2}\u{a9}\n").expect("input");
    let output = undouble()
        .current_dir(dir.path())
        .args(["fix", "-q", path_str(&input), "-o", "-"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, "café\n".as_bytes());
    assert!(!dir.path().join("-").exists(), "no file named '-'");
}

#[test]
fn fix_reads_stdin_and_writes_stdout() {
    let input = std::fs::read(corpus("dump-sample.sql")).expect("sample");
    let expected = std::fs::read(corpus("dump-sample.expected.sql")).expect("expected file");
    let output = run_with_stdin(&["fix", "--convert-charset", "utf8mb4"], &input);
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout == expected);
    let output = run_with_stdin(&["fix", "-", "-q"], "plain text\n".as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, b"plain text\n");
}

#[cfg(unix)]
#[test]
fn fix_in_place_replaces_only_files_that_change_and_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let broken = dir.path().join("broken.sql");
    let clean = dir.path().join("clean.txt");
    std::fs::copy(corpus("dump-sample.sql"), &broken).expect("copy");
    std::fs::copy(corpus("clean-multilingual.txt"), &clean).expect("copy");
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let clean_inode_before =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&clean).expect("stat"));

    let output = run(&[
        "fix",
        "--keep-charset",
        "--in-place",
        path_str(&broken),
        path_str(&clean),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let expected = sample_repaired_keeping_latin1();
    assert!(std::fs::read(&broken).expect("repaired") == expected);
    let mode = std::fs::metadata(&broken)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640, "permissions kept");
    let clean_inode_after =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&clean).expect("stat"));
    assert_eq!(
        clean_inode_before, clean_inode_after,
        "a clean file is not rewritten"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".undouble-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left behind");
}

#[test]
fn explain_shows_the_steps() {
    let output = run(&["explain", "cafÃ©", "au", "lait", "CAFÉ®"]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("output: café au lait CAFÉ®"), "{text}");
    assert!(text.contains("c3 83 c2 a9"), "shows the bytes: {text}");
    assert!(
        text.contains("rejected"),
        "says why CAFÉ® is left alone: {text}"
    );
    let output = run(&["explain", "nothing to see"]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn explain_json_gives_one_record_per_run_then_the_summary() {
    let output = run(&["explain", "--json", "cafÃ©", "au", "lait", "CAFÉ®"]);
    assert_eq!(output.status.code(), Some(1), "as without --json");
    let records = json_lines(&output);
    let kinds: Vec<&str> = records.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(kinds, ["run", "run", "summary"], "{records:?}");
    let (repaired, rejected, summary) = (&records[0], &records[1], &records[2]);
    assert_eq!(repaired["offset"], 3);
    assert_eq!(repaired["mojibake_hex"], "c383c2a9");
    assert_eq!(repaired["candidate"], "é");
    assert_eq!(repaired["repaired"], true);
    assert_eq!(repaired["verdict"], "certain");
    assert_eq!(repaired["chars"][0]["code_point"], "U+00E9");
    assert_eq!(rejected["repaired"], false);
    assert_eq!(rejected["verdict"], "rejected");
    assert!(rejected["evidence"].as_str().is_some_and(|e| !e.is_empty()));
    assert_eq!(summary["output"], "café au lait CAFÉ®");
    assert_eq!(summary["runs"], 2);
    assert_eq!(summary["repaired_chars"], 1);
    let output = run(&["explain", "--json", "nothing to see"]);
    assert_eq!(output.status.code(), Some(0));
    let records = json_lines(&output);
    assert_eq!(records.len(), 1, "the summary alone");
    assert_eq!(records[0]["runs"], 0);
}

#[test]
fn awkward_bytes_are_kept_and_reported() {
    // Invalid UTF-8, NUL, CR/LF, a double-encoded word, a character cut short and a
    // sequence cut by the end. The bytes that are not UTF-8 become the Windows-1252
    // characters they are, but the cut character stays: it lost bytes.
    let mut input = b"ok\r\n\xff\xfe NUL:\0 caf".to_vec();
    input.extend("Ã©".as_bytes());
    input.extend(b" \xe2\x82\r\nend \xc3\x83");
    let mut expected = "ok\r\nÿþ NUL:\0 café".as_bytes().to_vec();
    expected.extend(b" \xe2\x82\r\nend \xc3\x83");

    // The NUL makes it look binary, on standard input as in a file: passed on unchanged,
    // and the status says it was skipped.
    let output = run_with_stdin(&["fix"], &input);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(output.stdout, input);
    assert!(String::from_utf8_lossy(&output.stderr).contains("-: skipped (looks binary"));

    let output = run_with_stdin(&["fix", "--binary"], &input);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, expected);

    let output = run_with_stdin(&["scan", "--json", "--binary"], &input);
    assert_eq!(output.status.code(), Some(1));
    let records = json_lines(&output);
    assert_eq!(records[0]["path"], "-");
    assert_eq!(records[0]["valid_utf8"], false);
    assert_eq!(records[0]["first_invalid_offset"], 4);
    assert_eq!(records[0]["double_encoded"], 1);
    assert_eq!(records[0]["not_utf8"], 2);
    assert_eq!(records[0]["not_utf8_kept"], 1);

    let output = run_with_stdin(&["fix", "--binary", "--raw-bytes", "keep"], &input);
    assert_eq!(output.status.code(), Some(0));
    let mut kept = input.clone();
    let garbled = "Ã©".as_bytes();
    let at = input.windows(4).position(|w| w == garbled).unwrap();
    kept.splice(at..at + 4, "é".bytes());
    assert_eq!(output.stdout, kept);
}

#[test]
fn empty_input_is_fine() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").expect("write");
    let output = run(&["scan", "--json", path_str(&empty)]);
    assert_eq!(output.status.code(), Some(0));
    let records = json_lines(&output);
    assert_eq!(records[0]["bytes"], 0);
    assert_eq!(records[0]["valid_utf8"], true);
    let output = run_with_stdin(&["fix"], b"");
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

#[test]
fn a_missing_file_is_an_error_that_names_it_and_the_rest_goes_on() {
    let missing = "/nonexistent/undouble-test.txt";
    let clean = corpus("clean-multilingual.txt");
    let output = run(&["scan", "--json", missing, path_str(&clean)]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "an error wins over the other results"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(missing), "{stderr}");
    let records = json_lines(&output);
    assert_eq!(records[0]["type"], "error");
    assert_eq!(records[0]["path"], missing);
    assert_eq!(records[1]["type"], "file");
    assert_eq!(records[2]["type"], "total");
    assert_eq!(records[2]["files"], 1);

    let output = run(&["fix", missing]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["scan", "--readings", "klingon", path_str(&clean)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("klingon"));
}

/// A 1 GiB line with no newline goes through `fix` on a pipe: no panic, every byte accounted
/// for, repaired where it should be. Input and output are streamed, never held whole here.
#[test]
fn a_gigabyte_line_without_a_newline() {
    const GARBLED: &str = "a line that never ends: cafÃ© crÃ¨me â€” ";
    const REPAIRED: &str = "a line that never ends: café crème — ";
    const TOTAL: usize = 1 << 30;
    let repeats = TOTAL / GARBLED.len();

    let mut child = undouble()
        .args(["fix", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        let chunk = GARBLED.repeat(1024);
        for _ in 0..repeats / 1024 {
            stdin.write_all(chunk.as_bytes())?;
        }
        for _ in 0..repeats % 1024 {
            stdin.write_all(GARBLED.as_bytes())?;
        }
        Ok(())
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let expected = REPAIRED.as_bytes();
    let mut buffer = vec![0u8; 1 << 20];
    let mut position = 0usize;
    loop {
        let n = stdout.read(&mut buffer).expect("read stdout");
        if n == 0 {
            break;
        }
        for &byte in &buffer[..n] {
            assert_eq!(byte, expected[position % expected.len()], "byte {position}");
            position += 1;
        }
    }
    writer.join().expect("writer").expect("stdin written");
    let status = child.wait().expect("finishes");
    assert_eq!(status.code(), Some(0));
    assert_eq!(position, repeats * REPAIRED.len());
}

/// UTF-16 text is not binary: `scan` reads it and its survey names the byte order mark.
#[test]
fn utf16_text_is_scanned_not_skipped_as_binary() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("utf16.txt");
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "héllo wörld\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    std::fs::write(&path, bytes).expect("write");
    let output = run(&["scan", "--json", path_str(&path)]);
    assert_eq!(output.status.code(), Some(0));
    let records = json_lines(&output);
    assert_eq!(records[0]["type"], "file");
    assert_eq!(records[0]["encoding"]["actual"]["bom"], "UTF-16LE");
    assert_eq!(records[0]["double_encoded"], 0);
}

#[test]
fn the_scan_survey_says_what_fix_will_do_with_a_file_that_is_not_utf8() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let legacy: Vec<u8> =
        "Gr\u{FC}\u{DF}e aus K\u{F6}ln: sch\u{F6}ne Stra\u{DF}en, \u{C4}rger \u{FC}ber \u{D6}l. "
            .repeat(6)
            .chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect();
    let legacy_path = dir.path().join("legacy.txt");
    std::fs::write(&legacy_path, &legacy).expect("written");
    let wide: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Gr\u{FC}\u{DF}e".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let wide_path = dir.path().join("wide.txt");
    std::fs::write(&wide_path, &wide).expect("written");
    let stray_path = dir.path().join("stray.txt");
    std::fs::write(&stray_path, b"caf\xC3\xA9 and one stray \xE9 byte").expect("written");

    let output = run(&[
        "scan",
        path_str(&legacy_path),
        path_str(&wide_path),
        path_str(&stray_path),
    ]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        text.contains("\n  windows-1252 (guess, 0.94): use --transcode\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  UTF-16LE by its byte order mark: use --transcode\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n  UTF-8 with bytes that are not UTF-8 (the first at offset 20): fix repairs it as \
             UTF-8 and reads them as cp1252 characters"
        ),
        "{text}"
    );
    let output = run(&["scan", "--json", path_str(&legacy_path)]);
    let records = json_lines(&output);
    assert_eq!(
        records[0]["encoding"]["fix"], "windows-1252 (guess, 0.94): use --transcode",
        "{:?}",
        records[0]
    );
}
