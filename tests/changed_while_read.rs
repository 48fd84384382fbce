//! A file truncated while `scan`, `fix -o` or `fix --in-place` reads it (memory-mapped, the
//! default): at many moments of the run, with one thread and two. The run never dies by a
//! signal; it either finished before the truncation, or says the file changed while being read
//! (status 2) and goes on with the other file; `fix` never writes a result read from a
//! truncated file, and leaves no temporary file.

mod binary;

use binary::*;

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How many moments each command is truncated at, spread over its whole run and a little past.
const MOMENTS: u32 = 10;

/// Lines of ASCII with some double-encoded ones, `megabytes` long: a few 8 MiB blocks.
fn input_text(megabytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((megabytes << 20) + 100);
    let mut n = 0u64;
    while out.len() < megabytes << 20 {
        n += 1;
        let line = match n % 10 {
            0 => "cafÃ© au lait, crÃ¨me brÃ»lÃ©e\n".to_owned(),
            _ => format!("plain words on line {n}, nothing to repair on this one at all\n"),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out
}

/// Where the file is cut: the end of a line about a third in.
fn cut_point(text: &[u8]) -> usize {
    let third = text.len() / 3;
    third + text[third..].iter().position(|&b| b == b'\n').unwrap() + 1
}

/// The repair of `text`, by the binary, and how long it took.
fn repaired(dir: &Path, name: &str, text: &[u8]) -> (Vec<u8>, Duration) {
    let input = dir.join(format!("{name}.in"));
    let output = dir.join(format!("{name}.out"));
    fs::write(&input, text).unwrap();
    let started = Instant::now();
    let status = undouble()
        .args(["fix", "-q", "-o", path_str(&output), path_str(&input)])
        .status()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0));
    let repaired = fs::read(&output).unwrap();
    fs::remove_file(input).unwrap();
    fs::remove_file(output).unwrap();
    (repaired, took)
}

fn temporary_files_in(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".undouble-"))
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Command {
    Scan,
    FixTo,
    FixInPlace,
}

fn truncated_at_many_moments(command: Command, threads: &str) {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let original = input_text(24);
    let cut = cut_point(&original);
    let (repair, took) = repaired(dir.path(), "whole", &original);
    let (repair_of_cut, _) = repaired(dir.path(), "cut", &original[..cut]);
    let other_text = "naÃ¯ve\n".as_bytes();
    let (other_repair, _) = repaired(dir.path(), "other", other_text);
    let big = work.path().join("big.txt");
    let other = work.path().join("other.txt");
    let out = work.path().join("out.txt");
    let mut saw_the_change = 0;
    for moment in 0..MOMENTS {
        fs::write(&big, &original).unwrap();
        fs::write(&other, other_text).unwrap();
        let _ = fs::remove_file(&out);
        let mut args = match command {
            Command::Scan => vec!["scan", "-j", threads],
            Command::FixTo => vec!["fix", "-q", "-j", threads, "-o", path_str(&out)],
            Command::FixInPlace => vec!["fix", "-q", "-j", threads, "--in-place"],
        };
        args.push(path_str(&big));
        // `-o` takes one input only.
        if command != Command::FixTo {
            args.push(path_str(&other));
        }
        let child = undouble()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(took * moment / (MOMENTS - 2));
        fs::File::options()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(cut as u64)
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        let context = format!(
            "{args:?} truncated after {moment}/{}: {output:?}",
            MOMENTS - 2
        );
        assert_eq!(output.status.signal(), None, "{context}");
        let finished = match command {
            Command::Scan => 1,
            Command::FixTo | Command::FixInPlace => 0,
        };
        let code = output.status.code().unwrap();
        assert!(code == 2 || code == finished, "{context}");
        if code == 2 {
            saw_the_change += 1;
            let message = format!("{}: changed while being read (", big.display());
            assert!(stderr.contains(&message), "{context}");
        }
        assert!(temporary_files_in(work.path()).is_empty(), "{context}");
        let now = fs::read(&big).unwrap();
        match command {
            Command::Scan => assert!(stdout.contains("other.txt:"), "{context}"),
            Command::FixTo if code == 2 => assert!(!out.exists(), "{context}"),
            Command::FixTo => {
                // Truncated before it was opened, or after it was read.
                let written = fs::read(&out).unwrap();
                assert!(written == repair || written == repair_of_cut, "{context}");
            }
            Command::FixInPlace if code == 2 => assert!(now == original[..cut], "{context}"),
            Command::FixInPlace => {
                // Repaired whole, then the repair truncated; or truncated before it was opened.
                let whole = now == repair || now == repair[..cut];
                assert!(whole || now == repair_of_cut, "{context}");
            }
        }
        if command == Command::FixInPlace {
            assert_eq!(fs::read(&other).unwrap(), other_repair, "{context}");
        }
    }
    assert!(
        saw_the_change > 0,
        "no truncation was seen while the file was read"
    );
}

#[test]
fn scan_one_thread() {
    truncated_at_many_moments(Command::Scan, "1");
}

#[test]
fn scan_two_threads() {
    truncated_at_many_moments(Command::Scan, "2");
}

#[test]
fn fix_to_a_file_one_thread() {
    truncated_at_many_moments(Command::FixTo, "1");
}

#[test]
fn fix_to_a_file_two_threads() {
    truncated_at_many_moments(Command::FixTo, "2");
}

#[test]
fn fix_in_place_one_thread() {
    truncated_at_many_moments(Command::FixInPlace, "1");
}

#[test]
fn fix_in_place_two_threads() {
    truncated_at_many_moments(Command::FixInPlace, "2");
}
