//! `undouble merge` against one scan: the inputs scanned one by one (as on separate machines)
//! and merged print what one scan of all of them prints, byte for byte.

mod binary;

use binary::*;

use std::fs;
use std::path::Path;

/// Inputs of every kind a scan reports: garbled, clean, not UTF-8, a dump, binary, empty.
fn inputs(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for name in ["dump-sample.sql", "clean-multilingual.txt"] {
        fs::copy(corpus(name), dir.join(name)).unwrap();
        names.push(name.to_owned());
    }
    let more = "Ã© Ã© Ã¼ â€™ â€œquotedâ€\u{9d} Ã±\n".repeat(3);
    let files: &[(&str, &[u8])] = &[
        (
            "garbled.txt",
            "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber Ã©tÃ©\n".as_bytes(),
        ),
        ("more.txt", more.as_bytes()),
        (
            "latin1.txt",
            &b"Caf\xe9 cr\xe8me br\xfbl\xe9e, \xe0 la fran\xe7aise. ".repeat(30),
        ),
        ("stray.txt", b"ok \xc3\x83\xc2\xa9 then \xff stray\n"),
        ("binary.dat", b"\x00\x01\x02abc"),
        ("empty.txt", b""),
    ];
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes).unwrap();
        names.push((*name).to_owned());
    }
    names
}

fn stdout(args: &[&str], dir: &Path) -> String {
    let output = undouble().args(args).current_dir(dir).output().unwrap();
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{args:?}: {}",
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn merged_scans_of_each_file_are_the_scan_of_all() {
    let dir = tempfile::tempdir().unwrap();
    let names = inputs(dir.path());
    for top in ["10", "2"] {
        let mut whole = vec!["scan", "--json", "--top", top];
        whole.extend(names.iter().map(String::as_str));
        let whole = stdout(&whole, dir.path());
        let mut parts = Vec::new();
        for name in &names {
            let part = format!("{name}.jsonl");
            let scanned = stdout(&["scan", "--json", "--top", "100000", name], dir.path());
            fs::write(dir.path().join(&part), scanned).unwrap();
            parts.push(part);
        }
        let mut merge = vec!["merge", "--top", top];
        merge.extend(parts.iter().map(String::as_str));
        assert_eq!(stdout(&merge, dir.path()), whole, "--top {top}");
        // Through -o, and with one part from standard input.
        merge.extend(["-o", "merged.jsonl"]);
        stdout(&merge, dir.path());
        assert_eq!(
            fs::read_to_string(dir.path().join("merged.jsonl")).unwrap(),
            whole
        );
        let mut args = vec!["merge", "--top", top, "-"];
        args.extend(parts[1..].iter().map(String::as_str));
        let first = fs::File::open(dir.path().join(&parts[0])).unwrap();
        let output = undouble()
            .args(&args)
            .current_dir(dir.path())
            .stdin(first)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), whole, "from stdin");
    }
}

#[test]
fn short_lists_are_told_and_a_file_in_two_parts_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "Ã© Ã¨ Ã¼ Ã±\n").unwrap();
    let short = stdout(&["scan", "--json", "--top", "1", "a.txt"], dir.path());
    fs::write(dir.path().join("a.jsonl"), &short).unwrap();
    let output = undouble()
        .args(["merge", "a.jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(stderr(&output).contains("a.txt"), "{}", stderr(&output));
    let output = undouble()
        .args(["merge", "a.jsonl", "a.jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("a.jsonl: line 1") && message.contains("a.txt"),
        "{message}"
    );
}

#[test]
fn undo_takes_the_logs_of_fixes_run_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let files: [(&str, &str); 2] = [("a.txt", "CafÃ© Ã¼ber\n"), ("b.txt", "naÃ¯ve â€” Ã±\n")];
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
        let log = format!("{name}.audit.jsonl");
        stdout(
            &["fix", "-q", "--in-place", name, "--audit", &log],
            dir.path(),
        );
        assert_ne!(fs::read_to_string(dir.path().join(name)).unwrap(), text);
    }
    let undone = undouble()
        .args(["undo", "a.txt.audit.jsonl", "b.txt.audit.jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    for (name, text) in files {
        assert_eq!(fs::read_to_string(dir.path().join(name)).unwrap(), text);
    }
}
