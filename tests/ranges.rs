//! `--range START-END` through the binary: four ranges cut at arbitrary offsets of a file of
//! several blocks (inside characters, garbled runs and lines), fixed separately, concatenate
//! to the whole file's fix; `merge` of their scans gives the whole file's scan; the same of
//! dumps, cut inside their values, comments, extended inserts and `COPY` blocks; what a range
//! cannot read is refused.

mod binary;
mod dumps;

use binary::*;
use dumps::{big_mysql_dump, big_postgres_dump, inside};

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

/// A scan's records.
fn records(text: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(text)
        .split('\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Fixes `name` in `dir` in the ranges `cuts` make (the first 0, the last past the end) and
/// scans it in them: the fixes must concatenate to the whole fix (with `fix_args` before the
/// name), and `merge` of the scans, in any order, give the whole scan.
fn check_ranges(dir: &Path, name: &str, fix_args: &[&str], cuts: &[usize]) {
    let args = |more: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = more.iter().map(|a| a.to_string()).collect();
        args.extend(fix_args.iter().map(|a| a.to_string()));
        args.push(name.to_owned());
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&args, dir)
    };
    let whole = run(args(&["fix"]));
    let mut joined = Vec::new();
    let mut parts = Vec::new();
    // Ranges that found something: each holds blocks of the whole run, not the first all.
    let mut finding = 0;
    for (at, pair) in cuts.windows(2).enumerate() {
        let range = format!("{}-{}", pair[0], pair[1]);
        joined.extend(run(args(&["fix", "--range", &range])));
        let scan = ok(
            &["scan", "--json", "--top", "100000", "--range", &range, name],
            dir,
        );
        let file = &records(&scan)[0];
        finding += usize::from(file["double_encoded"].as_u64().unwrap_or(0) > 0);
        let part = format!("{name}.part{at}.jsonl");
        fs::write(dir.join(&part), scan).unwrap();
        parts.push(part);
    }
    assert!(
        joined == whole,
        "{name}: the ranges' fixes differ from the whole fix"
    );
    // Three 8 MiB blocks: no more than three ranges hold one.
    assert!(finding >= 2, "{name}: the first range found all");
    let scan = ok(&["scan", "--json", name], dir);
    let dump = records(&scan)[0].get("dump").is_some();
    assert_eq!(
        dump,
        name.ends_with(".sql"),
        "{name}: read as a dump or not"
    );
    // In any order.
    let mut order: Vec<&str> = parts.iter().map(String::as_str).collect();
    order.rotate_left(2);
    order.swap(0, 1);
    let mut merge = vec!["merge"];
    merge.extend(order);
    let merged = ok(&merge, dir);
    assert_eq!(records(&merged), records(&scan), "{name}");
}

#[test]
fn four_ranges_fixed_apart_concatenate_to_the_fix_and_merge_to_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let text = big_text();
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    // Cuts at arbitrary offsets; the first falls inside a two-byte character.
    let first = text.windows(2).position(|w| w == "Ã".as_bytes()).unwrap() + 1;
    let cuts = [0, first + 5_000_000, 9_000_017, 16_777_217, text.len() + 10];
    check_ranges(dir.path(), "big.txt", &[], &cuts);
}

#[test]
fn ranges_of_a_file_whose_first_invalid_byte_lies_deep_inside_merge_to_its_survey() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = big_text();
    // Bytes that are not UTF-8 past the middle only: the lower ranges find the file valid,
    // the whole file's survey does not, and tells where.
    for at in [12_000_003, 18_500_000] {
        let line = text[at..].iter().position(|&b| b == b'\n').unwrap() + at + 1;
        text.splice(line..line, b"caf\xe9 cr\xe8me\n".iter().copied());
    }
    fs::write(dir.path().join("mixed.txt"), &text).unwrap();
    let cuts = [0, 4_000_000, 9_000_000, 16_000_000, text.len() + 1];
    check_ranges(dir.path(), "mixed.txt", &[], &cuts);
    let scan = records(&ok(&["scan", "--json", "mixed.txt"], dir.path()));
    assert_eq!(scan[0]["valid_utf8"], Value::Bool(false));
}

/// The values of the dumps: every one garbled but the clean ones.
const VALUES: [&str; 5] = [
    "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber",
    "clean café 日本語",
    "it\\'s Ã¢â‚¬â„¢ quoted; (yes),(no)",
    "ÃƒÂ© twice",
    "Ð¸",
];

#[test]
fn four_ranges_of_a_mysql_dump_cut_inside_its_values_give_the_whole_fix_and_scan() {
    let dir = tempfile::tempdir().unwrap();
    let dump = big_mysql_dump(&VALUES);
    fs::write(dir.path().join("dump.sql"), &dump).unwrap();
    // Inside a two-byte character, a quoted value, and between the tuples of an extended
    // insert, each a few megabytes on.
    let cuts = [
        0,
        inside(&dump, 3_000_000, "Ã©", 1),
        inside(&dump, 9_000_000, "'it\\'s", 3),
        inside(&dump, 15_000_000, "),(", 2),
        dump.len() + 10,
    ];
    check_ranges(
        dir.path(),
        "dump.sql",
        &["--convert-charset", "utf8mb4"],
        &cuts,
    );
    // Read, not mapped: the first range stops reading after its last buffer, and that is no
    // truncation of the file.
    let range = format!("0-{}", cuts[1]);
    let fix = |more: &[&str]| {
        let mut args = vec!["fix", "--convert-charset", "utf8mb4", "--range", &range];
        args.extend_from_slice(more);
        args.push("dump.sql");
        ok(&args, dir.path())
    };
    assert!(
        fix(&["--no-mmap"]) == fix(&[]),
        "the first range, read and mapped"
    );
}

#[test]
fn four_ranges_of_a_postgres_dump_cut_inside_a_copy_block_give_the_whole_fix_and_scan() {
    let dir = tempfile::tempdir().unwrap();
    let values = [
        "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber",
        "clean café 日本語",
        "line\\nbreak Ã¢â‚¬â„¢ quoted",
        "\\N",
        "ÃƒÂ© twice",
    ];
    let dump = big_postgres_dump(&values);
    fs::write(dir.path().join("dump.sql"), &dump).unwrap();
    // Inside the COPY block: in a value, after an escape, in a two-byte character.
    let cuts = [
        0,
        inside(&dump, 4_000_000, "CafÃ©", 2),
        inside(&dump, 9_500_000, "\\nbreak", 1),
        inside(&dump, 17_000_000, "Ã¼", 1),
        dump.len() + 10,
    ];
    check_ranges(dir.path(), "dump.sql", &[], &cuts);
}

#[test]
fn a_range_of_stdin_or_of_two_files_is_refused_and_ranges_must_tile() {
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
        &["fix", "--range", "0-10", "-"],
        "no range of it: standard input",
    );
    refused(
        &["scan", "--range", "0-10", "-"],
        "no range of it: standard input",
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
