//! The batch engine through the binary: results independent of the thread count, directory
//! trees, output modes, binary files, and faults (a killed child, a full disk, missing files).

mod binary;

use binary::*;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use undouble::mojibake::codepage::{WINDOWS_1252, garble};

/// A file of several 8 MiB blocks: the sample dump's lines, some of them garbled once more,
/// with a few very long lines so that blocks are also cut inside a line.
fn big_input(path: &Path, megabytes: usize) {
    let dump = std::fs::read_to_string(corpus("dump-sample.sql")).expect("sample");
    let mut out = String::with_capacity(megabytes << 20);
    let mut n = 0usize;
    while out.len() < megabytes << 20 {
        for line in dump.lines() {
            n += 1;
            if n.is_multiple_of(97) {
                out.push_str(&garble(line.as_bytes(), |_| &WINDOWS_1252).expect("defined"));
            } else if n.is_multiple_of(5001) {
                // A line of 9 MiB, longer than a block.
                out.push_str(&line.repeat((9 << 20) / line.len().max(1)));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    std::fs::write(path, out).expect("write big input");
}

#[test]
fn results_are_the_same_whatever_the_thread_count_and_reading_method() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("big.sql");
    big_input(&input, 40);
    let mut reference: Option<(Vec<u8>, Vec<Value>)> = None;
    for args in [
        vec!["-j", "1"],
        vec!["-j", "2"],
        vec!["-j", "4"],
        vec!["-j", "2", "--no-mmap"],
    ] {
        let out = dir.path().join("out.sql");
        let mut fix_args = vec![
            "fix",
            "-q",
            "--keep-charset",
            path_str(&input),
            "-o",
            path_str(&out),
        ];
        fix_args.extend(&args);
        assert_eq!(run(&fix_args).status.code(), Some(0));
        let fixed = std::fs::read(&out).expect("output");
        let mut scan_args = vec!["scan", "--json", "--top", "50", path_str(&input)];
        scan_args.extend(&args);
        let records = json_lines(&run(&scan_args));
        match &reference {
            None => reference = Some((fixed, records)),
            Some((fixed0, records0)) => {
                assert!(fixed == *fixed0, "fix output differs with {args:?}");
                assert_eq!(&records, records0, "scan differs with {args:?}");
            }
        }
    }
    // Standard input goes through the same blocks, read on a thread of its own while the
    // pool scans and repairs those read before.
    let (fixed0, records0) = reference.expect("measured");
    for threads in ["1", "2"] {
        let stdin = std::fs::File::open(&input).expect("open");
        let output = undouble()
            .args(["scan", "--json", "--top", "50", "-j", threads])
            .stdin(stdin)
            .output()
            .expect("runs");
        let mut records = json_lines(&output);
        records[0]["path"] = records0[0]["path"].clone();
        assert_eq!(records, records0, "scan of standard input, -j {threads}");
        let out = dir.path().join("from-stdin.sql");
        let stdin = std::fs::File::open(&input).expect("open");
        let status = undouble()
            .args(["fix", "-q", "--keep-charset", "-j", threads, "-", "-o"])
            .arg(&out)
            .stdin(stdin)
            .status()
            .expect("runs");
        assert_eq!(status.code(), Some(0));
        let fixed = std::fs::read(&out).expect("output");
        assert!(
            fixed == fixed0,
            "fix of standard input differs, -j {threads}"
        );
    }
}

/// A loop of links met while a tree is walked is told in its place, and the walk goes on: the
/// files before and after it are scanned, and the run ends with the error's status.
#[test]
fn a_loop_of_links_is_told_and_the_walk_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("c")).expect("mkdir");
    std::fs::write(tree.join("a.txt"), "caf\u{c3}\u{a9}\n").expect("write");
    std::fs::write(tree.join("d.txt"), "plain\n").expect("write");
    std::os::unix::fs::symlink("..", tree.join("c/loop")).expect("symlink");

    let output = run(&["scan", "--json", "--follow", path_str(&tree)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("c/loop") && stderr.contains("not walked again"),
        "{stderr}"
    );
    let paths: Vec<String> = json_lines(&output)
        .iter()
        .filter_map(|r| r["path"].as_str().map(str::to_owned))
        .collect();
    let tree_str = path_str(&tree);
    assert_eq!(
        paths,
        [format!("{tree_str}/a.txt"), format!("{tree_str}/d.txt")]
    );
    assert_eq!(output.status.code(), Some(2));
}

/// A tree of more files than the pool takes in one task, and not a whole number of tasks:
/// every file is reported once, in the walk's order, each with its own counts.
#[test]
fn a_tree_of_many_files_is_reported_whole_and_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let names: Vec<String> = (0..53).map(|i| format!("f{i:03}.txt")).collect();
    for (i, name) in names.iter().enumerate() {
        // The i-th file holds i double-encoded characters.
        std::fs::write(dir.path().join(name), "caf\u{c3}\u{a9} ".repeat(i)).expect("write");
    }
    for j in ["-j1", "-j2"] {
        let output = run(&["scan", j, "--json", path_str(dir.path())]);
        let records = json_lines(&output);
        let files: Vec<(String, u64)> = records
            .iter()
            .filter(|r| r["type"] == "file")
            .map(|r| {
                let path = Path::new(r["path"].as_str().unwrap_or(""));
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                (
                    name.into_owned(),
                    r["double_encoded"].as_u64().unwrap_or(u64::MAX),
                )
            })
            .collect();
        let expected: Vec<(String, u64)> = (names.iter().cloned()).zip(0..).collect();
        assert_eq!(files, expected, "{j}");
        assert_eq!(records.last().map(|r| r["files"].clone()), Some(53.into()));
    }
}

#[test]
fn trees_are_walked_in_order_and_mirrored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("b/deeper")).expect("mkdir");
    std::fs::create_dir_all(tree.join(".hidden")).expect("mkdir");
    std::fs::copy(corpus("dump-sample.sql"), tree.join("b/deeper/dump.sql")).expect("copy");
    std::fs::copy(corpus("clean-multilingual.txt"), tree.join("a.txt")).expect("copy");
    std::fs::copy(corpus("dump-sample.sql"), tree.join(".hidden/dump.sql")).expect("copy");
    std::fs::write(
        tree.join("image.bin"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR caf\xc3\x83\xc2\xa9",
    )
    .expect("write");

    let output = run(&["scan", "--json", path_str(&tree)]);
    assert_eq!(output.status.code(), Some(1));
    let records = json_lines(&output);
    let kinds: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            let path = r["path"].as_str().unwrap_or("");
            let rel = path
                .strip_prefix(path_str(&tree))
                .unwrap_or(path)
                .to_string();
            (r["type"].as_str().unwrap_or("").to_string(), rel)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("file".into(), "/a.txt".into()),
            ("file".into(), "/b/deeper/dump.sql".into()),
            ("skipped".into(), "/image.bin".into()),
            ("total".into(), String::new()),
        ]
    );
    assert_eq!(records[3]["files"], 2);
    assert_eq!(records[3]["skipped"], 1);

    let mirror = dir.path().join("mirror");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&tree),
        "--output-dir",
        path_str(&mirror),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let expected = sample_repaired_keeping_latin1();
    assert!(std::fs::read(mirror.join("b/deeper/dump.sql")).expect("mirrored") == expected);
    assert!(
        std::fs::read(mirror.join("a.txt")).expect("mirrored")
            == std::fs::read(corpus("clean-multilingual.txt")).expect("clean")
    );
    assert!(
        std::fs::read(mirror.join("image.bin")).expect("copied")
            == std::fs::read(tree.join("image.bin")).expect("source"),
        "binary files are skipped, and copied unchanged into the mirror"
    );
    assert!(!mirror.join(".hidden").exists(), "hidden files are skipped");
    // The sources are untouched.
    assert!(std::fs::read(tree.join("b/deeper/dump.sql")).expect("source") != expected);

    let output = run(&[
        "scan",
        "--json",
        "--glob",
        "*.sql",
        "--hidden",
        path_str(&tree),
    ]);
    let records = json_lines(&output);
    assert_eq!(records.len(), 3, "two dumps and the total: {records:?}");
}

#[test]
fn in_place_with_backup_and_dry_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("dump.sql");
    std::fs::copy(corpus("dump-sample.sql"), &dump).expect("copy");
    let original = std::fs::read(&dump).expect("read");

    let output = run(&["fix", "--dry-run", path_str(&dump)]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("would repair"));
    assert!(
        std::fs::read(&dump).expect("read") == original,
        "dry run writes nothing"
    );

    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        "--backup",
        ".orig",
        path_str(&dump),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let expected = sample_repaired_keeping_latin1();
    assert!(std::fs::read(&dump).expect("read") == expected);
    let backup = dir.path().join("dump.sql.orig");
    assert!(std::fs::read(&backup).expect("backup") == original);
}

#[test]
fn a_missing_file_fails_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = dir.path().join("good.sql");
    std::fs::copy(corpus("dump-sample.sql"), &good).expect("copy");
    let missing = dir.path().join("vanished.sql");
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        path_str(&missing),
        path_str(&good),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("vanished.sql"));
    let expected = sample_repaired_keeping_latin1();
    assert!(
        std::fs::read(&good).expect("read") == expected,
        "the other file is repaired"
    );
}

/// A file that cannot be read and a directory that cannot be written to: each is an error
/// naming the file, the run goes on with the other files, and the exit status is 2.
#[cfg(unix)]
#[test]
fn permission_denied_fails_each_file_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    let dir = tempfile::tempdir().expect("tempdir");
    mode(dir.path(), 0o777);
    let sample = std::fs::read(corpus("dump-sample.sql")).expect("sample");
    let expected = sample_repaired_keeping_latin1();
    let writable = dir.path().join("writable");
    let read_only = dir.path().join("read-only");
    for sub in [&writable, &read_only] {
        std::fs::create_dir(sub).expect("mkdir");
    }
    let good = writable.join("good.sql");
    let unreadable = writable.join("unreadable.sql");
    let in_read_only = read_only.join("stuck.sql");
    for file in [&good, &unreadable, &in_read_only] {
        std::fs::write(file, &sample).expect("write");
        mode(file, 0o666);
    }
    mode(&writable, 0o777);
    // The file to repair is the unprivileged user's: a file of another owner is refused, as
    // its replacement could not be given to that owner.
    if is_root() {
        std::os::unix::fs::chown(&good, Some(65534), Some(65534)).expect("chown");
    }
    mode(&unreadable, 0o000);
    mode(&read_only, 0o555);

    let output = run_unprivileged(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        path_str(dir.path()),
    ]);
    mode(&unreadable, 0o644);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("unreadable.sql") && message.contains("ermission denied"),
        "{message}"
    );
    assert!(message.contains("stuck.sql"), "{message}");
    assert!(
        std::fs::read(&good).expect("read") == expected,
        "the other file is repaired"
    );
    assert!(std::fs::read(&unreadable).expect("read") == sample);
    assert!(std::fs::read(&in_read_only).expect("read") == sample);
    assert_eq!(std::fs::read_dir(&read_only).expect("list").count(), 1);
}

/// A full disk, simulated by a file-size limit: the error names the file, the target keeps
/// its original bytes, no temporary file is left, the exit status is 2.
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_the_original() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("dump.sql");
    std::fs::copy(corpus("dump-sample.sql"), &dump).expect("copy");
    let original = std::fs::read(&dump).expect("read");
    // 16 blocks of 512 bytes: less than the repaired file. SIGXFSZ is ignored so that the
    // write fails with EFBIG instead of killing the process.
    let script = format!(
        "ulimit -f 16; trap '' XFSZ; exec '{}' fix -q --keep-charset --in-place '{}'",
        env!("CARGO_BIN_EXE_undouble"),
        path_str(&dump)
    );
    let output = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("sh");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("dump.sql"));
    assert!(std::fs::read(&dump).expect("read") == original);
    let leftovers = std::fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(leftovers, 1, "no temporary file left behind");
}

/// `fix --in-place` killed at random moments leaves the file either exactly as it was or
/// completely repaired.
#[cfg(unix)]
#[test]
fn a_killed_fix_leaves_each_file_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = dir.path().join("source.sql");
    big_input(&source, 24);
    let original = std::fs::read(&source).expect("read");
    let repaired = {
        let out = dir.path().join("repaired.sql");
        run(&[
            "fix",
            "-q",
            "--keep-charset",
            path_str(&source),
            "-o",
            path_str(&out),
        ]);
        std::fs::read(&out).expect("read")
    };
    assert!(repaired != original);
    let target = dir.path().join("target.sql");
    let (mut saw_original, mut saw_repaired) = (false, false);
    for attempt in 0..12u64 {
        std::fs::write(&target, &original).expect("reset");
        let mut child = undouble()
            .args([
                "fix",
                "-q",
                "--keep-charset",
                "--in-place",
                path_str(&target),
            ])
            .spawn()
            .expect("spawn");
        // Spread the kills over the run (a full run takes some tens of milliseconds).
        std::thread::sleep(std::time::Duration::from_millis(attempt * attempt * 2));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(&target).expect("read");
        if now == original {
            saw_original = true;
        } else {
            assert!(
                now == repaired,
                "attempt {attempt}: the file is neither original nor repaired"
            );
            saw_repaired = true;
        }
    }
    assert!(saw_original || saw_repaired);
}

/// A file truncated while it is read (here without the memory map: `changed_while_read.rs`
/// truncates mapped files) is an error naming it, and the other files are still scanned.
#[test]
fn a_file_truncated_during_the_scan_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("shrinking.txt");
    let line = "cafÃ© au lait, crÃ¨me brÃ»lÃ©e; ".repeat(40) + "\n";
    let file = std::fs::File::create(&big).expect("create");
    {
        use std::io::Write;
        let mut writer = std::io::BufWriter::new(&file);
        for _ in 0..(256 << 20) / line.len() {
            writer.write_all(line.as_bytes()).expect("write");
        }
    }
    let clean = corpus("clean-multilingual.txt");
    let child = undouble()
        .args([
            "scan",
            "--json",
            "-j",
            "1",
            "--no-mmap",
            path_str(&big),
            path_str(&clean),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(30));
    file.set_len(1 << 20).expect("truncate");
    let output = child.wait_with_output().expect("finishes");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("shrinking.txt") && stderr.contains("truncated"),
        "{stderr}"
    );
    let records = json_lines(&output);
    assert_eq!(records[0]["type"], "error");
    assert_eq!(records[1]["type"], "file", "the next file is scanned");
}

/// `-o` naming a FIFO (or a device such as /dev/null) writes into it; it is never replaced by
/// a regular file.
#[cfg(unix)]
#[test]
fn output_to_a_fifo_is_written_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe");
    make_fifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the fifo"))
    };
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        path_str(&corpus("dump-sample.sql")),
        "-o",
        path_str(&fifo),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let received = reader.join().expect("reader");
    let expected = sample_repaired_keeping_latin1();
    assert!(received == expected);
    let kind = std::fs::metadata(&fifo).expect("stat").file_type();
    assert!(kind.is_fifo(), "the FIFO is still a FIFO");
}

/// `fix --in-place --audit` over a tree, then `undo` with the log: every file is back to its
/// exact original bytes; a second `fix --audit` refuses to overwrite the log.
#[test]
fn an_audited_fix_is_undone_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("sub")).expect("mkdir");
    std::fs::copy(corpus("dump-sample.sql"), tree.join("sub/dump.sql")).expect("copy");
    std::fs::copy(corpus("clean-multilingual.txt"), tree.join("clean.txt")).expect("copy");
    let mut small = "Ã‰COLE, cafÃ©\r\n".as_bytes().to_vec();
    small.extend(b"\xff");
    small.extend("â€™".as_bytes());
    std::fs::write(tree.join("small.txt"), small).expect("write");
    let before: Vec<Vec<u8>> = ["sub/dump.sql", "clean.txt", "small.txt"]
        .iter()
        .map(|name| std::fs::read(tree.join(name)).expect("read"))
        .collect();
    let log = dir.path().join("audit.jsonl");

    // The dump is audited as plain text, as asked for by name (tests/dump_audit.rs audits
    // dumps in dump mode).
    let output = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        "--format",
        "text",
        "--audit",
        path_str(&log),
        path_str(&tree),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let expected = sample_repaired_keeping_latin1();
    assert!(std::fs::read(tree.join("sub/dump.sql")).expect("read") == expected);
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(records[0]["type"], "header");
    let changes = records.iter().filter(|r| r["type"] == "change").count();
    // The dump's, the small file's three, and its raw `\xff` read as `ÿ`.
    assert_eq!(changes, 3566 + 3 + 1, "one record per repaired character");

    let again = run(&[
        "fix",
        "-q",
        "--keep-charset",
        "--in-place",
        "--audit",
        path_str(&log),
        path_str(&tree),
    ]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "an existing log is never overwritten"
    );

    let output = run(&[
        "undo",
        "--root",
        path_str(log.parent().expect("the log's directory")),
        path_str(&log),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    for (name, original) in ["sub/dump.sql", "clean.txt", "small.txt"]
        .iter()
        .zip(&before)
    {
        assert!(
            std::fs::read(tree.join(name)).expect("read") == *original,
            "{name} restored"
        );
    }
}

/// `scan -q` stops at the first block that holds a change, and answers as `scan` does: for an
/// input of many blocks garbled throughout, garbled in its last line only, and clean, however
/// it is read.
#[test]
fn scan_q_answers_as_scan_does_whatever_the_threads_and_reading_method() {
    let dir = tempfile::tempdir().expect("tempdir");
    let garbled = dir.path().join("garbled.sql");
    big_input(&garbled, 20);
    let clean_text = std::fs::read_to_string(corpus("clean-multilingual.txt")).expect("clean");
    let clean = clean_text.repeat((20 << 20) / clean_text.len() + 1);
    let at_the_end = format!(
        "{clean}{}\n",
        garble("the last line: café".as_bytes(), |_| &WINDOWS_1252).expect("defined")
    );
    let clean_path = dir.path().join("clean.txt");
    std::fs::write(&clean_path, &clean).expect("written");
    let end_path = dir.path().join("at-the-end.txt");
    std::fs::write(&end_path, &at_the_end).expect("written");
    for (path, found) in [(&garbled, 1), (&end_path, 1), (&clean_path, 0)] {
        let name = path.display();
        assert_eq!(
            run(&["scan", path_str(path)]).status.code(),
            Some(found),
            "{name}"
        );
        for args in [
            vec!["-j", "1"],
            vec!["-j", "2"],
            vec!["-j", "2", "--no-mmap"],
        ] {
            let mut all = vec!["scan", "-q", path_str(path)];
            all.extend(&args);
            assert_eq!(run(&all).status.code(), Some(found), "{name} {args:?}");
        }
        let bytes = std::fs::read(path).expect("read");
        let piped = run_with_stdin(&["scan", "-q", "-"], &bytes);
        assert_eq!(piped.status.code(), Some(found), "{name} piped");
    }
}
