//! `undouble learn` run as a binary: the chain it prints, its JSON, the exit codes, samples
//! that are not UTF-8 (as arguments and from files), and that the `fix` it advises, run on the
//! sample, gives the correct text back.

mod binary;

use binary::*;

use std::fs;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_two_layer_chain_and_its_fix() {
    let output = run(&["learn", "cafÃƒÂ© crÃƒÂ¨me", "café crème"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "Chain: UTF-8 text read as ISO-8859-1 and written as UTF-8, then read as \
             windows-1252 and written as UTF-8"
        ),
        "{text}"
    );
    assert!(
        text.contains("Undo: undouble fix --readings latin1,cp1252\n"),
        "{text}"
    );
    assert!(
        text.contains("turns the garbled sample into the correct text"),
        "{text}"
    );
}

/// The advised options, given to `fix`, repair the sample.
#[test]
fn the_advised_fix_repairs_the_sample() {
    let (bad, good) = ("donâ€™t cafÃ©", "don’t café");
    let output = run(&["learn", "--json", bad, good]);
    let records = json_lines(&output);
    let [record] = records.as_slice() else {
        panic!("one record: {records:?}");
    };
    let options = record["fix"]["options"].as_str().expect("options");
    assert_eq!(options, "--readings cp1252");
    assert_eq!(record["fix"]["check"], "repairs");
    let mut args = vec!["fix", "-q"];
    args.extend(options.split(' '));
    let fixed = run_with_stdin(&args, bad.as_bytes());
    assert_eq!(stdout(&fixed), good, "{}", stderr(&fixed));
}

/// A sample left in a legacy page's bytes, from files; `fix --transcode` with the advised
/// encoding gives the correct text.
#[test]
fn a_sample_that_is_not_utf8_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    let good = dir.path().join("good.txt");
    fs::write(&bad, b"caf\xe9 cr\xe8me br\xfbl\xe9e \xe0 la fran\xe7aise").unwrap();
    fs::write(&good, "café crème brûlée à la française").unwrap();
    let output = run(&[
        "learn",
        "--json",
        "--from-files",
        path_str(&bad),
        path_str(&good),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let records = json_lines(&output);
    let record = &records[0];
    assert_eq!(record["layers"][0]["step"], "convert");
    assert_eq!(record["layers"][0]["encoding"], "ISO-8859-1");
    assert!(
        record["bad_hex"]
            .as_str()
            .unwrap()
            .starts_with("636166e920")
    );
    assert_eq!(record["fix"]["sample_transcoded"], true);
    let options = record["fix"]["options"].as_str().expect("options");
    assert_eq!(options, "--transcode --from windows-1252");
    let mut args = vec!["fix", "-q"];
    args.extend(options.split(' '));
    args.push(path_str(&bad));
    let fixed = run(&args);
    assert_eq!(
        stdout(&fixed),
        "café crème brûlée à la française",
        "{}",
        stderr(&fixed)
    );
}

/// A sample with too few invalid sequences for `fix --transcode` to take it for legacy text:
/// the advice says so.
#[test]
fn a_short_legacy_sample_is_said_to_be_too_short_to_transcode() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    let good = dir.path().join("good.txt");
    fs::write(&bad, b"caf\xe9").unwrap();
    fs::write(&good, "café").unwrap();
    let output = run(&["learn", "--from-files", path_str(&bad), path_str(&good)]);
    let text = stdout(&output);
    assert!(
        text.contains("Undo: undouble fix --transcode --from windows-1252\n"),
        "{text}"
    );
    assert!(
        text.contains("Note: a file holding only this sample is not converted"),
        "{text}"
    );
    let fixed = run(&[
        "fix",
        "-q",
        "--transcode",
        "--from",
        "windows-1252",
        path_str(&bad),
    ]);
    assert_eq!(
        fixed.stdout,
        "café".as_bytes(),
        "fix takes it for UTF-8 and reads its raw byte as Windows-1252"
    );
}

/// On Unix an argument need not be UTF-8: its bytes are the sample.
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_taken_as_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let output = undouble()
        .args([
            OsStr::new("learn"),
            OsStr::from_bytes(b"\xef\xf0\xe8\xe2\xe5\xf2"),
        ])
        .arg("привет")
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("Chain: UTF-8 text converted to windows-1251\n"),
        "{text}"
    );
    assert!(text.contains("--transcode --from windows-1251"), "{text}");
}

#[test]
fn a_page_read_through_another_cannot_be_undone() {
    let output = run(&["learn", "Ïðèâåò", "Привет"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("converted to windows-1251, then read as"),
        "{text}"
    );
    assert!(text.contains("undouble cannot undo it"), "{text}");
}

#[test]
fn nothing_explains_unrelated_texts_exit_1() {
    let output = run(&["learn", "cafe", "tea"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).starts_with("No chain of up to 3 layers"),
        "{}",
        stdout(&output)
    );
    let output = run(&["learn", "--max-layers", "1", "cafÃƒÂ©", "café"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).starts_with("No chain of one layer"));
    let records = json_lines(&run(&["learn", "--json", "cafe", "tea"]));
    assert_eq!(records[0]["explained"], false);
    assert_eq!(records[0]["chain"], serde_json::Value::Null);
}

#[test]
fn equal_texts_are_said_to_be_equal() {
    let output = run(&["learn", "café", "café"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "The texts are equal: nothing was recoded.\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    let output = run(&["learn", "--max-layers", "4", "a", "b"]);
    assert_eq!(output.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let output = run(&[
        "learn",
        "--from-files",
        path_str(&missing),
        path_str(&missing),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("missing.txt"),
        "{}",
        stderr(&output)
    );
}
