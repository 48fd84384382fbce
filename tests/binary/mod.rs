//! Running the built `undouble` binary from integration tests: shared by every test file that
//! does (include it with `mod binary;`).
#![allow(dead_code)] // each test file uses its own part of these

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub fn undouble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_undouble"))
}

pub fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name)
}

pub fn run(args: &[&str]) -> Output {
    undouble().args(args).output().expect("the binary runs")
}

pub fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = undouble()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let output = child.wait_with_output().expect("the binary finishes");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin written");
    output
}

pub fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is JSON"))
        .collect()
}

/// Makes a FIFO at `path` (`mkfifo`).
pub fn make_fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What `fix --keep-charset` (or `--format text`) makes of the sample dump: its repaired text,
/// its tables still declared latin1. `corpus/dump-sample.expected.sql` is what `fix
/// --convert-charset utf8mb4` makes of it: the same, its five tables declared utf8mb4.
pub fn sample_repaired_keeping_latin1() -> Vec<u8> {
    let expected = std::fs::read_to_string(corpus("dump-sample.expected.sql")).expect("expected");
    let converted = " DEFAULT CHARSET=utf8mb4;\n";
    assert_eq!(expected.matches(converted).count(), 5);
    expected
        .replace(converted, " DEFAULT CHARSET=latin1;\n")
        .into_bytes()
}

/// Runs `undouble ARGS` as an unprivileged user when the tests run as root (as in CI), for
/// whom file permissions mean nothing: through `setpriv`, as `nobody`.
#[cfg(unix)]
pub fn run_unprivileged(args: &[&str]) -> std::process::Output {
    let mut command = match is_root() {
        true => {
            let mut setpriv = Command::new("setpriv");
            setpriv.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
            setpriv.arg(env!("CARGO_BIN_EXE_undouble"));
            setpriv
        }
        false => undouble(),
    };
    command.args(args).output().expect("the binary runs")
}

/// Whether the tests run as root.
#[cfg(unix)]
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|id| id.stdout.trim_ascii() == b"0")
}
