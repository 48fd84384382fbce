//! One invariant for every way an input can arrive: the bytes written and the report are the
//! same whether the input is a file (mapped or read), standard input (a pipe, or the file
//! itself: `< file`), `-`, a FIFO path (what `<(zcat dump.sql.gz)` gives) or `/dev/stdin`,
//! with one thread or two. Checked on every file
//! of `corpus/` and on generated inputs that exercise every decision made from an input's head:
//! MySQL and PostgreSQL dumps with binary columns, a legacy Windows-1252 file, a UTF-16 file and
//! a binary file.

mod binary;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use binary::*;
use serde_json::Value;

/// How the input reaches the binary.
#[derive(Clone, Copy, Debug)]
enum Way {
    Mapped,
    NoMmap,
    Stdin,
    /// Standard input redirected from the file itself (`< file`).
    StdinFile,
    Dash,
    Fifo,
    DevStdin,
}

const WAYS: [Way; 7] = [
    Way::Mapped,
    Way::NoMmap,
    Way::Stdin,
    Way::StdinFile,
    Way::Dash,
    Way::Fifo,
    Way::DevStdin,
];

/// What one run gave, with the input's name taken out of what it printed.
#[derive(Debug, PartialEq)]
struct Seen {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// Standard output as text, the input's name taken out.
    report: String,
    /// What `-o` wrote, if the command wrote a file.
    written: Option<Vec<u8>>,
}

/// Runs `undouble ARGS` on `bytes` (kept at `file`) the way `way` says; `{out}` in the
/// arguments is replaced by an output path in the run's own directory.
fn run_as(way: Way, args: &[&str], file: &Path, bytes: &[u8]) -> Seen {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out");
    let out_str = path_str(&out).to_owned();
    let mut command = undouble();
    for arg in args {
        command.arg(if *arg == "{out}" {
            out_str.as_str()
        } else {
            arg
        });
    }
    let fifo = dir.path().join("fifo");
    let (name, feed_stdin, feed_fifo) = match way {
        Way::Mapped => (path_str(file).to_owned(), false, false),
        Way::NoMmap => {
            command.arg("--no-mmap");
            (path_str(file).to_owned(), false, false)
        }
        Way::Stdin | Way::StdinFile => ("-".to_owned(), true, false),
        Way::Dash => ("-".to_owned(), true, false),
        Way::Fifo => {
            make_fifo(&fifo);
            (path_str(&fifo).to_owned(), false, true)
        }
        Way::DevStdin => ("/dev/stdin".to_owned(), true, false),
    };
    match way {
        Way::Mapped | Way::NoMmap => command.arg(file),
        Way::Dash => command.arg("-"),
        Way::Fifo => command.arg(&fifo),
        Way::DevStdin => command.arg("/dev/stdin"),
        Way::Stdin | Way::StdinFile => &mut command,
    };
    command
        .stdin(match way {
            Way::StdinFile => Stdio::from(std::fs::File::open(file).expect("the input opens")),
            _ if feed_stdin => Stdio::piped(),
            _ => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the binary runs");
    let content = bytes.to_vec();
    let writer = match (feed_stdin, feed_fifo) {
        _ if matches!(way, Way::StdinFile) => std::thread::spawn(|| {}),
        (true, _) => {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            // The reader may stop early (a binary input is skipped after its head): a broken
            // pipe is no failure of the test.
            std::thread::spawn(move || drop(pipe.write_all(&content)))
        }
        (_, true) => {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut pipe = std::fs::File::options()
                    .write(true)
                    .open(fifo)
                    .expect("the FIFO opens");
                drop(pipe.write_all(&content));
            })
        }
        _ => std::thread::spawn(|| {}),
    };
    let output: Output = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("the writer");
    let written = std::fs::read(&out).ok();
    Seen {
        status: output.status.code(),
        report: without_name(&String::from_utf8_lossy(&output.stdout), &name),
        stdout: output.stdout,
        stderr: without_name(&String::from_utf8_lossy(&output.stderr), &name),
        written,
    }
}

/// `text` with `name` replaced by `NAME` where a line starts with it (how every report names
/// its input).
fn without_name(text: &str, name: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix(name) {
            Some(rest) if rest.starts_with(':') => format!("NAME{rest}\n"),
            _ => format!("{line}\n"),
        })
        .collect()
}

/// JSON Lines with every `path` field taken out.
fn without_paths(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("every line is JSON");
            if let Some(object) = record.as_object_mut() {
                object.remove("path");
                object.remove("first_invalid_path");
            }
            record
        })
        .collect()
}

/// Every way gives what the mapped file gives, for each command, with `-j1` and `-j2`.
fn check(name: &str, bytes: &[u8]) {
    check_with(name, bytes, &[]);
}

/// [`check`], `fix` given `fix_options` too.
fn check_with(name: &str, bytes: &[u8], fix_options: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join(name);
    std::fs::write(&file, bytes).expect("the input is written");
    let commands: [&[&str]; 4] = [
        &["scan", "--json"],
        &["scan"],
        &["fix"],
        &["fix", "-o", "{out}"],
    ];
    for command in commands {
        for threads in ["1", "2"] {
            let mut args = command.to_vec();
            args.extend(["-j", threads]);
            if command[0] == "fix" {
                args.extend(fix_options);
            }
            let reference = run_as(Way::Mapped, &args, &file, bytes);
            assert_ne!(reference.status, Some(2), "{name} {args:?}: {reference:?}");
            for way in WAYS {
                let seen = run_as(way, &args, &file, bytes);
                let what = format!("{name} {args:?} {way:?}");
                assert_eq!(seen.status, reference.status, "{what}: {}", seen.stderr);
                assert_eq!(seen.stderr, reference.stderr, "{what}");
                assert!(
                    seen.written == reference.written,
                    "{what}: the file written"
                );
                if command.starts_with(&["scan", "--json"]) {
                    assert_eq!(
                        without_paths(&seen.stdout),
                        without_paths(&reference.stdout),
                        "{what}"
                    );
                } else if command == ["scan"] {
                    assert_eq!(seen.report, reference.report, "{what}");
                } else {
                    assert!(seen.stdout == reference.stdout, "{what}: the bytes written");
                }
            }
        }
    }
}

fn corpus_file(name: &str) {
    let bytes = std::fs::read(corpus(name)).expect("a corpus file");
    check(name, &bytes);
}

/// Its tables are latin1: repaired as the README does it, their charset converted.
#[test]
fn the_sample_dump() {
    let bytes = std::fs::read(corpus("dump-sample.sql")).expect("a corpus file");
    check_with("dump-sample.sql", &bytes, &["--convert-charset", "utf8mb4"]);
}

#[test]
fn the_expected_dump() {
    corpus_file("dump-sample.expected.sql");
}

#[test]
fn clean_multilingual_text() {
    corpus_file("clean-multilingual.txt");
}

#[test]
fn the_corpus_readme_and_script() {
    corpus_file("README.md");
    corpus_file("make_corpus.py");
}

/// A MySQL dump whose blobs hold raw bytes (some that look double-encoded, some invalid
/// UTF-8), beside text columns that hold double-encoded text: recognised as a dump from its
/// head, whatever the way in, so the blobs are kept byte for byte.
#[test]
fn a_mysql_dump_with_binary_columns() {
    let mut dump = b"-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu\n\
        /*!40101 SET NAMES utf8mb4 */;\n\
        CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `name` varchar(100) DEFAULT NULL,\n  \
        `data` blob,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\
        INSERT INTO `t` VALUES "
        .to_vec();
    for id in 1..=400 {
        if id > 1 {
            dump.extend(b",\n");
        }
        dump.extend(format!("({id},'caf\u{C3}\u{A9} n\u{C2}\u{B0}{id}','").as_bytes());
        dump.extend("cafÃ© ".as_bytes());
        dump.extend([0xFF, 0xFE, 0xC3, 0x28, b'x', 0xE9]);
        dump.extend(b"')");
    }
    dump.extend(b";\n");
    check("blobs.sql", &dump);
}

/// A `pg_dump` with a `bytea` column and `COPY` data, its primary key declared after the data
/// as pg_dump writes it.
#[test]
fn a_postgresql_dump_with_bytea_and_copy() {
    let mut dump = String::from(
        "--\n-- PostgreSQL database dump\n--\n\nSET client_encoding = 'UTF8';\n\
         CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text,\n    data bytea\n);\n\
         COPY public.t (id, name, data) FROM stdin;\n",
    );
    for id in 1..=400 {
        dump += &format!("{id}\tcaf\u{C3}\u{A9} {id}\t\\\\x636166c383c2a9\n");
    }
    dump += "\\.\n\nALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n";
    check("pg.sql", dump.as_bytes());
}

/// Windows-1252 text: skipped and passed on unchanged, whatever the way in.
#[test]
fn a_legacy_file() {
    let text = "Le café coûte 3 € l’été, c’est très cher. Voilà où ça mène.\n".repeat(400);
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
    check("legacy.txt", &bytes);
}

/// UTF-16LE with a byte order mark: its NUL bytes make it no binary; it is legacy.
#[test]
fn a_utf16_file() {
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "Grüße aus Köln, 5 €\r\n".repeat(600).encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    check("wide.txt", &bytes);
}

/// A binary file (NUL bytes in its head) that also holds double-encoded text.
#[test]
fn a_binary_file() {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    for _ in 0..2000 {
        bytes.extend("cafÃ© \0\x01\x02".as_bytes());
    }
    check("image.bin", &bytes);
}

/// Text longer than one block (8 MiB), some lines garbled: a file of it is mapped, and so is
/// standard input redirected from it; a pipe of it is read.
fn longer_than_a_block() -> Vec<u8> {
    let lines = [
        "Grüße aus Köln: ein schöner Tag, 5 € pro Person.\n",
        "Gr\u{C3}\u{BC}\u{C3}\u{9F}e aus K\u{C3}\u{B6}ln, l\u{E2}\u{20AC}\u{2122}\u{E2}t\u{C3}\u{A9}.\n",
        "Привет, мир! Ça va très bien, merci.\n",
        "\u{D0}\u{9F}\u{D1}\u{20AC}\u{D0}\u{B8}\u{D0}\u{B2}\u{D0}\u{B5}\u{D1}\u{201A}\n",
    ];
    let mut bytes = Vec::new();
    let mut k = 0;
    while bytes.len() <= 9 << 20 {
        bytes.extend(lines[k % lines.len()].as_bytes());
        k += 1;
    }
    bytes
}

#[test]
fn an_input_longer_than_a_block() {
    check("long.txt", &longer_than_a_block());
}

/// Standard input redirected from a file is read from where its offset stands, as a pipe of
/// the rest would be, and is left at its end, as reading it through leaves it: the next
/// reader of the same standard input finds nothing left.
#[test]
fn standard_input_from_a_file_starts_at_its_offset_and_is_left_at_its_end() {
    use std::io::{Seek, SeekFrom};
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("long.txt");
    let bytes = longer_than_a_block();
    std::fs::write(&path, &bytes).expect("written");
    let len = bytes.len() as u64;
    for (from, args) in [
        (0, &["fix", "-j2"][..]),
        (0, &["scan", "--json", "-j2"]),
        (1_000_003, &["fix", "-j2"]),
        (1_000_003, &["scan", "--json", "-j1"]),
    ] {
        let mut file = std::fs::File::open(&path).expect("opens");
        file.seek(SeekFrom::Start(from)).expect("seeks");
        let shared = file
            .try_clone()
            .expect("a second descriptor of the same file");
        let seen = undouble()
            .args(args)
            .stdin(Stdio::from(file))
            .output()
            .expect("the binary runs");
        let piped = run_with_stdin(args, &bytes[from as usize..]);
        let what = format!("{args:?} from {from}");
        assert_eq!(seen.status.code(), piped.status.code(), "{what}");
        assert!(seen.stdout == piped.stdout, "{what}: the same output");
        let mut shared = shared;
        let left_at = shared.stream_position().expect("the offset");
        assert_eq!(left_at, len, "{what}: left at the end");
    }
}

/// Runs `command` to its end, or fails the test after `seconds`: an input that never ends
/// must not make a run that never ends.
fn finishes_within(mut command: Command, seconds: u64) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().expect("waits").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running after {seconds} s: {command:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("the output")
}

/// `/dev/zero` never ends: refused with its name, by `scan` and `fix`, named or as standard
/// input. `/dev/null` is an empty input.
#[test]
fn endless_devices_are_refused_and_dev_null_is_empty() {
    for args in [&["scan", "/dev/zero"][..], &["fix", "/dev/zero"]] {
        let mut command = undouble();
        command.args(args).stdin(Stdio::null());
        let output = finishes_within(command, 20);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("/dev/zero: cannot open: a character device"),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let mut command = undouble();
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    command.arg("fix").stdin(zero);
    let output = finishes_within(command, 20);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("-: cannot open"),
        "{}",
        stderr(&output)
    );

    let output = run(&["fix", "/dev/null"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
}

/// A skipped input is never gone: to standard output and to `-o` its bytes are written
/// unchanged, into `--output-dir` it is copied, and standard error names it even under `-q`
/// (which silences summaries, not warnings); the status says it was not processed as asked.
#[test]
fn skipped_inputs_are_passed_on_and_named_even_quietly() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = "Le café coûte 3 € l’été, c’est très cher.\n".repeat(50);
    let (legacy_bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
    let legacy = dir.path().join("legacy.txt");
    std::fs::write(&legacy, &legacy_bytes).expect("written");
    let binary = dir.path().join("image.bin");
    std::fs::write(
        &binary,
        [&b"\0\x01caf"[..], "Ã©".as_bytes(), b"\0"].concat(),
    )
    .expect("written");
    for input in [&legacy, &binary] {
        let original = std::fs::read(input).expect("read");
        let output = run(&["fix", "-q", path_str(input)]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(output.stdout == original, "{input:?} to standard output");
        assert!(
            stderr(&output).contains(&format!("{}: skipped", path_str(input))),
            "{}",
            stderr(&output)
        );
        let out = dir.path().join("out");
        let output = run(&["fix", "-q", path_str(input), "-o", path_str(&out)]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(
            std::fs::read(&out).expect("written") == original,
            "{input:?} to -o"
        );
        std::fs::remove_file(&out).expect("removed");
    }
    let mirror = tempfile::tempdir().expect("a temporary directory");
    let output = run(&[
        "fix",
        "-q",
        path_str(dir.path()),
        "--output-dir",
        path_str(mirror.path()),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    for name in ["legacy.txt", "image.bin"] {
        assert!(
            std::fs::read(mirror.path().join(name)).expect("copied")
                == std::fs::read(dir.path().join(name)).expect("source"),
            "{name} copied into the mirror"
        );
    }
}

/// `fix big | head`: the reader goes, and the run ends there, quietly, with status 0; the
/// same for `scan` writing its report into a closed pipe.
#[test]
fn a_closed_output_pipe_ends_the_run_quietly() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let big = dir.path().join("big.txt");
    let line = "a line with caf\u{C3}\u{A9} in it\n";
    std::fs::write(&big, line.repeat(500_000)).expect("written");
    let big = path_str(&big);
    // Enough report lines to fill a pipe: one per file.
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).expect("a directory");
    for i in 0..3000 {
        std::fs::write(tree.join(format!("{i}.txt")), line).expect("written");
    }
    let runs: [&[&str]; 3] = [
        &["fix", big],
        &["fix", "--no-mmap", big],
        &["scan", "--json", path_str(&tree)],
    ];
    for args in runs {
        let mut child = undouble()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut stdout = child.stdout.take().expect("piped");
        let mut first = [0u8; 16];
        std::io::Read::read_exact(&mut stdout, &mut first).expect("some output");
        drop(stdout);
        let output = child.wait_with_output().expect("finishes");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stderr.is_empty(), "{args:?}: {}", stderr(&output));
    }
}
