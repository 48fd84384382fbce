//! A file truncated while `scan`, `fix -o` or `fix --in-place` reads it (memory-mapped, the
//! default; and standard input redirected from a file, mapped too): at many moments of the run, with one thread and two, and, when none of those fell
//! while the file was read (a loaded machine), at moments sought between the last that came too
//! early and the first that came too late, until one does. The run never dies by a
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

/// The repair of `text`, by the binary.
fn repaired(dir: &Path, name: &str, text: &[u8]) -> Vec<u8> {
    let input = dir.join(format!("{name}.in"));
    let output = dir.join(format!("{name}.out"));
    fs::write(&input, text).unwrap();
    let status = undouble()
        .args(["fix", "-q", "-o", path_str(&output), path_str(&input)])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let repaired = fs::read(&output).unwrap();
    fs::remove_file(input).unwrap();
    fs::remove_file(output).unwrap();
    repaired
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

/// When the truncation came, as the run's result tells it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Moment {
    /// Before the file was opened: the run read the cut file and knew nothing of the change.
    Before,
    /// While the file was read: the run said so.
    During,
    /// After the file was read: the run's result is that of the whole file.
    After,
}

/// What every run must show, and what the runs that did not see the change had read.
struct Expected {
    original: Vec<u8>,
    cut: usize,
    repair: Vec<u8>,
    repair_of_cut: Vec<u8>,
    other_text: &'static [u8],
    other_repair: Vec<u8>,
    /// For `scan`: the line it prints for the whole file, and for the cut one.
    scan_of_whole: String,
    scan_of_cut: String,
}

/// The first line `scan` prints about `text` in a file named `big.txt`.
fn scan_line(dir: &Path, text: &[u8]) -> String {
    let input = dir.join("big.txt");
    fs::write(&input, text).unwrap();
    let output = undouble()
        .args(["scan", path_str(&input)])
        .output()
        .unwrap();
    fs::remove_file(input).unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout.lines().next().unwrap();
    // From the file's name on: the runs measured read it in another directory.
    line[line.find("big.txt:").unwrap()..].to_owned()
}

/// Runs `args` on fresh copies of the files in `work`, truncates the big one `delay` after the
/// start, checks everything the run must show whenever the truncation came, and tells when it
/// came.
fn truncated_after(
    command: Command,
    args: &[&str],
    work: &Path,
    delay: Option<Duration>,
    expected: &Expected,
) -> Moment {
    let big = work.join("big.txt");
    let other = work.join("other.txt");
    let out = work.join("out.txt");
    fs::write(&big, &expected.original).unwrap();
    fs::write(&other, expected.other_text).unwrap();
    let _ = fs::remove_file(&out);
    let cut = expected.cut;
    let truncate = || {
        fs::File::options()
            .write(true)
            .open(&big)
            .unwrap()
            .set_len(cut as u64)
            .unwrap()
    };
    let child = undouble()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = truncated_while_running(child, delay, truncate);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    let context = format!("{args:?} truncated after {delay:?}: {output:?}");
    assert_eq!(output.status.signal(), None, "{context}");
    let finished = match command {
        Command::Scan => 1,
        Command::FixTo | Command::FixInPlace => 0,
    };
    let code = output.status.code().unwrap();
    assert!(code == 2 || code == finished, "{context}");
    if code == 2 {
        let message = format!("{}: changed while being read (", big.display());
        assert!(stderr.contains(&message), "{context}");
    }
    assert!(temporary_files_in(work).is_empty(), "{context}");
    if command == Command::FixInPlace {
        assert_eq!(
            fs::read(&other).unwrap(),
            expected.other_repair,
            "{context}"
        );
    }
    if command == Command::Scan {
        assert!(stdout.contains("other.txt:"), "{context}");
    }
    let now = fs::read(&big).unwrap();
    let read_whole_or_cut = |whole: bool, cut: bool| match (whole, cut) {
        (true, _) => Moment::After,
        (_, true) => Moment::Before,
        _ => panic!("neither the whole file's result nor the cut one's: {context}"),
    };
    match command {
        _ if code == 2 => {
            match command {
                Command::Scan => {}
                Command::FixTo => assert!(!out.exists(), "{context}"),
                Command::FixInPlace => assert!(now == expected.original[..cut], "{context}"),
            }
            Moment::During
        }
        Command::Scan => read_whole_or_cut(
            stdout.contains(&expected.scan_of_whole),
            stdout.contains(&expected.scan_of_cut),
        ),
        Command::FixTo => {
            let written = fs::read(&out).unwrap();
            read_whole_or_cut(
                written == expected.repair,
                written == expected.repair_of_cut,
            )
        }
        // Repaired whole, then the repair truncated; or truncated before it was opened.
        Command::FixInPlace => read_whole_or_cut(
            now == expected.repair || now == expected.repair[..cut],
            now == expected.repair_of_cut,
        ),
    }
}

fn truncated_at_many_moments(command: Command, threads: &str) {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let original = input_text(24);
    let cut = cut_point(&original);
    let repair = repaired(dir.path(), "whole", &original);
    let repair_of_cut = repaired(dir.path(), "cut", &original[..cut]);
    let other_text = "naÃ¯ve\n".as_bytes();
    let other_repair = repaired(dir.path(), "other", other_text);
    let expected = Expected {
        scan_of_whole: scan_line(dir.path(), &original),
        scan_of_cut: scan_line(dir.path(), &original[..cut]),
        original,
        cut,
        repair,
        repair_of_cut,
        other_text,
        other_repair,
    };
    let big = work.path().join("big.txt");
    let other = work.path().join("other.txt");
    let out = work.path().join("out.txt");
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
    let seen =
        truncated_during(|delay| truncated_after(command, &args, work.path(), delay, &expected));
    assert!(
        seen.iter().any(|&(_, moment)| moment == Moment::During),
        "no truncation was seen while the file was read: {seen:?}"
    );
}

/// Waits for `child`, calling `truncate` `delay` from now, or once the child has ended
/// (`None`).
fn truncated_while_running(
    child: std::process::Child,
    delay: Option<Duration>,
    truncate: impl Fn(),
) -> std::process::Output {
    match delay {
        Some(delay) => {
            std::thread::sleep(delay);
            truncate();
            child.wait_with_output().unwrap()
        }
        None => {
            let output = child.wait_with_output().unwrap();
            truncate();
            output
        }
    }
}

/// Runs `run` untouched (`None`: truncated once it has ended), then truncated at moments
/// spread over the whole run and a little past it, then, until one truncation falls while the
/// input is read, at moments sought between the last that came too early and the first that
/// came too late (on a loaded machine the reading can fall between two of the first ones).
/// Gives every moment tried and when the truncation came.
fn truncated_during(mut run: impl FnMut(Option<Duration>) -> Moment) -> Vec<(Duration, Moment)> {
    let started = Instant::now();
    assert_eq!(run(None), Moment::After);
    let took = started.elapsed();
    let (mut early, mut late) = (Duration::ZERO, took);
    let mut seen = Vec::new();
    let mut tries = 0;
    for step in 0.. {
        let delay = match step < MOMENTS {
            true => took * step / (MOMENTS - 2),
            _ if seen.iter().any(|&(_, moment)| moment == Moment::During) || tries >= 40 => {
                break;
            }
            false => {
                tries += 1;
                if late <= early {
                    late = early + took / 4;
                }
                (early + late) / 2
            }
        };
        let moment = run(Some(delay));
        match moment {
            Moment::Before => early = early.max(delay),
            Moment::After => late = late.min(delay),
            Moment::During => {}
        }
        seen.push((delay, moment));
    }
    seen
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

/// Standard input redirected from a file (`scan < big.txt`) is mapped as the file is: truncated
/// while it is read, the run never dies by a signal, and either finishes with the whole
/// file's count or the cut one's, or says that `-` changed while being read.
#[test]
fn standard_input_from_a_file_truncated_while_read() {
    let work = tempfile::tempdir().unwrap();
    let big = work.path().join("big.txt");
    let original = input_text(24);
    let cut = cut_point(&original);
    let whole_count = scan_line(work.path(), &original);
    let cut_count = scan_line(work.path(), &original[..cut]);
    // The counts only: the name differs (`-` here).
    let count_of = |line: &str| line["big.txt:".len()..].to_owned();
    let (whole_count, cut_count) = (count_of(&whole_count), count_of(&cut_count));
    let run = |delay: Option<Duration>| -> Moment {
        fs::write(&big, &original).unwrap();
        let child = undouble()
            .args(["scan", "-j", "2"])
            .stdin(fs::File::open(&big).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let truncate = || {
            let file = fs::File::options().write(true).open(&big).unwrap();
            file.set_len(cut as u64).unwrap();
        };
        let output = truncated_while_running(child, delay, truncate);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let context = format!("truncated after {delay:?}: {output:?}");
        assert_eq!(output.status.signal(), None, "{context}");
        match output.status.code() {
            Some(2) => {
                assert!(
                    stderr.contains("-: changed while being read ("),
                    "{context}"
                );
                Moment::During
            }
            Some(1) if stdout.contains(&format!("-:{whole_count}")) => Moment::After,
            Some(1) if stdout.contains(&format!("-:{cut_count}")) => Moment::Before,
            _ => panic!("neither the whole file's count nor the cut one's: {context}"),
        }
    };
    let seen = truncated_during(run);
    assert!(
        seen.iter().any(|&(_, moment)| moment == Moment::During),
        "no truncation was seen while standard input was read: {seen:?}"
    );
}
