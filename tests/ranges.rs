//! `--range START-END` through the binary: four ranges cut at arbitrary offsets of a file of
//! several blocks (inside characters, garbled runs and lines), fixed separately, concatenate
//! to the whole file's fix; `merge` of their scans gives the whole file's scan; what a range
//! cannot read is refused.

mod binary;

use binary::*;

use std::fs;
use std::path::Path;

use serde_json::Value;

/// A text of about 20 MiB, more than two blocks: garbled and clean lines, lone garbled letters
/// on their own lines, a long line.
fn big_text() -> Vec<u8> {
    let lines: [&str; 6] = [
        "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber and plain words\n",
        "Ð¸\n",
        "clean café crème 日本語\n",
        "ÃƒÂ© twice Ã¢â‚¬â„¢ quoted\n",
        "Ñ–\n",
        "just ascii here\n",
    ];
    let mut text = Vec::new();
    let mut i = 0usize;
    while text.len() < 20 << 20 {
        text.extend_from_slice(lines[i % lines.len()].as_bytes());
        if i.is_multiple_of(100_003) {
            text.extend_from_slice(&b"y".repeat(300_000));
            text.extend_from_slice("Ã©\n".as_bytes());
        }
        i = i.wrapping_mul(31).wrapping_add(7) % 1_000_003;
    }
    text
}

fn ok(args: &[&str], dir: &Path) -> Vec<u8> {
    let output = undouble().args(args).current_dir(dir).output().unwrap();
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{args:?}: {}",
        stderr(&output)
    );
    output.stdout
}

/// A scan's records without the survey's wording, which quotes the counts of what was read
/// (a range's, for a range): the survey's figures themselves are kept.
fn without_wording(text: &[u8]) -> Vec<Value> {
    let mut records: Vec<Value> = String::from_utf8_lossy(text)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for record in &mut records {
        if let Some(encoding) = record.get_mut("encoding") {
            encoding["diagnostics"] = Value::Null;
            encoding["actual"]["detected"]["evidence"] = Value::Null;
        }
    }
    records
}

#[test]
fn four_ranges_fixed_apart_concatenate_to_the_fix_and_merge_to_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let text = big_text();
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    // Cuts at arbitrary offsets; the first falls inside a two-byte character.
    let first = text.windows(2).position(|w| w == "Ã".as_bytes()).unwrap() + 1;
    let cuts = [0, first + 5_000_000, 9_000_017, 16_777_217, text.len() + 10];
    let whole = ok(&["fix", "big.txt"], dir.path());
    let mut joined = Vec::new();
    let mut parts = Vec::new();
    for (at, pair) in cuts.windows(2).enumerate() {
        let range = format!("{}-{}", pair[0], pair[1]);
        joined.extend(ok(&["fix", "--range", &range, "big.txt"], dir.path()));
        let scan = ok(
            &[
                "scan", "--json", "--top", "100000", "--range", &range, "big.txt",
            ],
            dir.path(),
        );
        let part = format!("part{at}.jsonl");
        fs::write(dir.path().join(&part), scan).unwrap();
        parts.push(part);
    }
    assert!(
        joined == whole,
        "the ranges' fixes differ from the whole fix"
    );
    let scan = ok(&["scan", "--json", "big.txt"], dir.path());
    // In any order.
    let merged = ok(
        &["merge", &parts[2], &parts[0], &parts[3], &parts[1]],
        dir.path(),
    );
    assert_eq!(without_wording(&merged), without_wording(&scan));
}

#[test]
fn a_range_of_a_dump_of_stdin_or_of_two_files_is_refused_and_ranges_must_tile() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(corpus("dump-sample.sql"), dir.path().join("dump.sql")).unwrap();
    fs::write(dir.path().join("a.txt"), "CafÃ©\n".repeat(10)).unwrap();
    let refused = |args: &[&str], says: &str| {
        let output = undouble()
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    };
    refused(
        &["fix", "--range", "0-10", "dump.sql"],
        "dump.sql: no range of it",
    );
    refused(
        &["scan", "--range", "0-10", "dump.sql"],
        "dump.sql: no range of it",
    );
    refused(
        &["scan", "--range", "0-10", "a.txt", "dump.sql"],
        "--range reads one file",
    );
    refused(
        &["fix", "--range", "10-", "--in-place", "a.txt"],
        "cannot be used with",
    );
    refused(&["fix", "--range", "9-3", "a.txt"], "ends before it starts");
    // Ranges that leave a gap merge to an error.
    let a = ok(&["scan", "--json", "--range", "0-10", "a.txt"], dir.path());
    let b = ok(&["scan", "--json", "--range", "20-", "a.txt"], dir.path());
    fs::write(dir.path().join("a.jsonl"), a).unwrap();
    fs::write(dir.path().join("b.jsonl"), b).unwrap();
    refused(&["merge", "a.jsonl", "b.jsonl"], "leave a gap");
    // A fix of text in ranges, but small: the ranges inside the one block give it once.
    let whole = ok(&["fix", "a.txt"], dir.path());
    let mut joined = ok(&["fix", "--range", "0-7", "a.txt"], dir.path());
    joined.extend(ok(&["fix", "--range", "7-", "a.txt"], dir.path()));
    assert_eq!(joined, whole);
}
