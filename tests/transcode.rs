//! `fix` on files that are not UTF-8: skipped and named without `--transcode`, converted to
//! UTF-8 with it (exactly as `encoding_rs` decodes them), while UTF-8 files in the same run are
//! repaired as before. Runs the built binary on files written to a temporary directory.

mod binary;

use binary::*;

use std::fs;
use std::path::{Path, PathBuf};

use encoding_rs::Encoding;

/// French with `é`, `€` and `’`, which Windows-1252 has and ISO-8859-1 lacks in part.
const FRENCH: &str = "Le café coûte 3 € l’été, c’est très cher. Voilà où ça mène : déjà vu, \
                      naïve façade, forêt, île, Noël.\n";

fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{text:?} fits {}", encoding.name());
    bytes.into_owned()
}

fn utf16le_with_bom(text: &str) -> Vec<u8> {
    [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).expect("the test file is written");
    path
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).expect("the file is there")
}

/// The names in `dir`, sorted: no temporary file may be left behind.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("the directory is there")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_windows_1252_file_is_skipped_by_fix_and_converted_by_transcode() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let original = encode(encoding_rs::WINDOWS_1252, &FRENCH.repeat(3));
    let legacy = write(dir.path(), "legacy.txt", &original);

    let output = run(&["fix", "--in-place", path_str(&legacy)]);
    assert_eq!(output.status.code(), Some(1), "a skip is not an error");
    assert_eq!(read(&legacy), original, "a skipped file is left alone");
    let message = stderr(&output);
    assert!(
        message.contains("legacy.txt: skipped: not UTF-8 (looks like windows-1252")
            && message.contains("--transcode converts it"),
        "{message}"
    );

    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&legacy, fs::Permissions::from_mode(0o640)).expect("chmod");
        || {
            fs::metadata(&legacy)
                .map(|m| m.permissions().mode() & 0o777)
                .ok()
        }
    };
    let output = run(&["fix", "--in-place", "--transcode", path_str(&legacy)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (decoded, malformed) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&original);
    assert!(!malformed);
    assert_eq!(read(&legacy), decoded.as_bytes());
    assert_eq!(read(&legacy), FRENCH.repeat(3).as_bytes());
    assert!(
        stderr(&output).contains("legacy.txt: transcoded from windows-1252 to UTF-8"),
        "{}",
        stderr(&output)
    );
    #[cfg(unix)]
    assert_eq!(mode(), Some(0o640), "the original's permissions are kept");
    assert_eq!(names_in(dir.path()), ["legacy.txt"]);
}

#[test]
fn a_utf16le_file_with_a_bom_becomes_utf8_without_one() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = "Grüße aus Köln — 5 €, 日本語, 😀\r\n";
    let original = utf16le_with_bom(text);
    let legacy = write(dir.path(), "wide.txt", &original);
    let out = dir.path().join("wide.utf8.txt");

    let output = run(&["fix", path_str(&legacy), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        read(&out),
        original,
        "a skipped file is passed on unchanged"
    );
    std::fs::remove_file(&out).expect("removed");
    assert!(
        stderr(&output).contains("not UTF-8 (UTF-16LE by its byte order mark)"),
        "{}",
        stderr(&output)
    );

    let output = run(&[
        "fix",
        "--transcode",
        path_str(&legacy),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&out), text.as_bytes(), "UTF-8, and no BOM");
    assert_eq!(read(&legacy), original, "the input is left alone");
}

#[test]
fn a_utf8_file_with_a_stray_byte_is_still_repaired() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut original = "café déjà vu, with a cut character: ".as_bytes().to_vec();
    original.extend(b"\xE2\x82 and double encoding: caf\xC3\x83\xC2\xA9\n");
    let file = write(dir.path(), "damaged.txt", &original);

    let output = run(&["fix", "--in-place", "--transcode", path_str(&file)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut expected = "café déjà vu, with a cut character: ".as_bytes().to_vec();
    expected.extend(b"\xE2\x82 and double encoding: caf\xC3\xA9\n");
    assert_eq!(read(&file), expected, "repaired, the stray bytes kept");
    assert!(
        !stderr(&output).contains("transcoded"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn from_names_the_encoding() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = "Příliš žluťoučký kůň úpěl ďábelské ódy. Zażółć gęślą jaźń.\n".repeat(3);
    let legacy = write(
        dir.path(),
        "czech.txt",
        &encode(encoding_rs::ISO_8859_2, &text),
    );
    let out = dir.path().join("czech.utf8.txt");

    let output = run(&[
        "fix",
        "--transcode",
        "--from",
        "iso-8859-2",
        path_str(&legacy),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&out), text.as_bytes());
    assert!(
        stderr(&output).contains("transcoded from ISO-8859-2 to UTF-8"),
        "{}",
        stderr(&output)
    );

    let output = run(&["fix", "--transcode", "--from", "no-such-encoding", "x"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown encoding 'no-such-encoding'"));
}

#[test]
fn a_weak_guess_is_not_converted_without_from() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let original = encode(encoding_rs::WINDOWS_1252, "café crème brûlée\n");
    let legacy = write(dir.path(), "short.txt", &original);

    let output = run(&["fix", "--in-place", "--transcode", path_str(&legacy)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("short.txt: not UTF-8 (looks like windows-1252, a low-confidence guess"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("--from ENCODING"));
    assert_eq!(read(&legacy), original);

    let output = run(&[
        "fix",
        "--in-place",
        "--transcode",
        "--from",
        "cp1252",
        path_str(&legacy),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&legacy), "café crème brûlée\n".as_bytes());
}

#[test]
fn an_undecodable_byte_is_refused_with_its_offset_unless_lossy() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Greek in windows-1253, then 0xFF, which windows-1253 leaves undefined.
    let mut original = encode(encoding_rs::WINDOWS_1253, "Καλημέρα κόσμε, τι κάνεις; ");
    let offset = original.len();
    original.extend(b"\xFF end\n");
    let legacy = write(dir.path(), "greek.txt", &original);
    let path = path_str(&legacy);
    let from = ["fix", "--in-place", "--transcode", "--from", "windows-1253"];

    let output = run(&[&from[..], &[path]].concat());
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("greek.txt") && message.contains(&format!("byte offset {offset}")),
        "{message}"
    );
    assert!(message.contains("--lossy"), "{message}");
    assert_eq!(read(&legacy), original, "a refused file is left alone");
    assert_eq!(names_in(dir.path()), ["greek.txt"]);

    let output = run(&[&from[..], &["--lossy", path]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8(read(&legacy)).ok().as_deref(),
        Some("Καλημέρα κόσμε, τι κάνεις; \u{FFFD} end\n")
    );
    assert!(
        stderr(&output).contains(&format!(
            "1 malformed sequence replaced by U+FFFD (the first at byte offset {offset})"
        )),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_mixed_directory_is_repaired_and_transcoded_in_one_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tree = dir.path().join("in");
    fs::create_dir_all(tree.join("sub")).expect("mkdir");
    write(
        &tree,
        "dump.txt",
        "caf\u{C3}\u{A9} \u{E2}\u{80}\u{9C}ok\u{E2}\u{80}\u{9D}\n".as_bytes(),
    );
    let legacy = encode(encoding_rs::WINDOWS_1252, &FRENCH.repeat(3));
    write(&tree.join("sub"), "legacy.txt", &legacy);
    write(&tree, "wide.txt", &utf16le_with_bom("Grüße\n"));
    let out = dir.path().join("out");

    let output = run(&[
        "fix",
        "--transcode",
        path_str(&tree),
        "--output-dir",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read(&out.join("dump.txt")), "café “ok”\n".as_bytes());
    assert_eq!(
        read(&out.join("sub/legacy.txt")),
        FRENCH.repeat(3).as_bytes()
    );
    assert_eq!(read(&out.join("wide.txt")), "Grüße\n".as_bytes());
    assert!(
        stderr(&output).contains("total (3 files, 3 written, 2 transcoded, 0 skipped)"),
        "{}",
        stderr(&output)
    );

    // Without --transcode the legacy files are skipped, the UTF-8 one repaired all the same.
    let plain = dir.path().join("plain");
    let output = run(&["fix", path_str(&tree), "--output-dir", path_str(&plain)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(read(&plain.join("dump.txt")), "café “ok”\n".as_bytes());
    for skipped in ["sub/legacy.txt", "wide.txt"] {
        assert_eq!(
            read(&plain.join(skipped)),
            read(&tree.join(skipped)),
            "{skipped} is copied into the mirror unchanged"
        );
    }
    assert!(
        stderr(&output).contains("total (1 file, 1 written, 2 skipped)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn transcode_writes_to_standard_output() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let legacy = write(
        dir.path(),
        "legacy.txt",
        &encode(encoding_rs::WINDOWS_1252, &FRENCH.repeat(3)),
    );
    let output = run(&["fix", "--transcode", "-q", path_str(&legacy)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, FRENCH.repeat(3).as_bytes());
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn transcode_is_refused_with_audit_and_works_on_standard_input() {
    let output = run(&["fix", "--transcode", "--audit", "log.jsonl", "x"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--audit"), "{}", stderr(&output));

    // Standard input is judged from the head it keeps, then read once: converted like a file.
    let original = encode(encoding_rs::WINDOWS_1252, &FRENCH.repeat(3));
    let output = run_with_stdin(&["fix", "--transcode", "-q"], &original);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, FRENCH.repeat(3).as_bytes());
}

/// The rule reads the head of an input (its first block), so that a file and a stream are
/// judged alike before anything is written. Windows-1252 text 1 MB into a file is in the head:
/// the file is legacy for every destination and every way of reading it, passed on unchanged.
/// The same text 20 MB in, after UTF-8 with a double-encoded word per megabyte, is beyond it:
/// the file is mostly UTF-8, repaired, and its invalid bytes are kept as they are.
#[test]
fn legacy_text_is_judged_in_the_head_alike_for_every_destination() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let megabyte = format!(
        "{}caf\u{C3}\u{A9}\n",
        "a plain line of text\n".repeat(50_000)
    );
    let legacy_tail = encode(encoding_rs::WINDOWS_1252, &FRENCH.repeat(50));
    let with_prefix = |megabytes: usize| {
        let prefix = megabyte.repeat(megabytes);
        let mut bytes = prefix.clone().into_bytes();
        bytes.extend(&legacy_tail);
        (prefix, bytes)
    };

    let (prefix, original) = with_prefix(1);
    let legacy = write(dir.path(), "early.txt", &original);
    let out = dir.path().join("out.txt");
    let expected_message = format!(
        "early.txt: skipped: not UTF-8 (looks like windows-1252; first invalid byte at offset {})",
        prefix.len() + FRENCH.find('é').expect("an é")
    );
    for destination in [vec!["-o", path_str(&out)], vec!["--in-place"], vec![]] {
        let mut args = vec!["fix", path_str(&legacy)];
        args.extend(&destination);
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{destination:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(&expected_message),
            "{destination:?}: {}",
            stderr(&output)
        );
        assert_eq!(read(&legacy), original, "{destination:?}: left alone");
        let passed_on = match destination.first() {
            Some(&"-o") => read(&out),
            Some(_) => read(&legacy),
            None => output.stdout.clone(),
        };
        assert!(
            passed_on == original,
            "{destination:?}: passed on unchanged"
        );
        let _ = std::fs::remove_file(&out);
        assert_eq!(names_in(dir.path()), ["early.txt"], "{destination:?}");
    }
    let piped = run_with_stdin(&["fix"], &original);
    assert_eq!(piped.status.code(), Some(1), "{}", stderr(&piped));
    assert!(piped.stdout == original, "standard input is judged alike");

    let output = run(&[
        "fix",
        "--transcode",
        path_str(&legacy),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (decoded, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&original);
    assert_eq!(read(&out), decoded.as_bytes(), "converted whole");
    std::fs::remove_file(&out).expect("removed");

    let (prefix, original) = with_prefix(20);
    let late = write(dir.path(), "late.txt", &original);
    // Its head is UTF-8, so its later bytes that are not are read as Windows-1252.
    let mut expected = prefix.replace("caf\u{C3}\u{A9}", "café").into_bytes();
    expected.extend(FRENCH.repeat(50).as_bytes());
    let output = run(&["fix", path_str(&late), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        read(&out) == expected,
        "repaired, the invalid bytes read as Windows-1252"
    );
    let piped = run_with_stdin(&["fix"], &original);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert!(piped.stdout == expected, "standard input is repaired alike");
}

/// Stray bytes 20 MB into a UTF-8 file do not stop its repair: the judgement made on the way
/// lets the fix go on, and everything before and after them is repaired.
#[test]
fn a_stray_byte_found_late_does_not_stop_the_repair() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let megabyte = |word: &str| format!("{}{word}\n", "plain text\n".repeat(90_000));
    let stray = b"a cut character \xE2\x82 here\n";
    let with_stray = |word: &str| {
        let mut bytes = megabyte(word).repeat(20).into_bytes();
        bytes.extend(stray);
        bytes.extend(megabyte(word).repeat(2).into_bytes());
        bytes
    };
    let original = with_stray("caf\u{C3}\u{A9} d\u{C3}\u{A9}j\u{C3}\u{A0}");
    let file = write(dir.path(), "stray.txt", &original);
    let out = dir.path().join("out.txt");

    let output = run(&["fix", path_str(&file), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = with_stray("café déjà");
    assert_eq!(read(&out), expected);
}

/// Russian in IBM855 and Greek in CP737, the DOS pages `encoding_rs` lacks: named by `detect`
/// rather than read as ISO-8859-5 or IBM866, and converted by `fix --transcode`, guessed or
/// given with `--from`.
#[test]
fn dos_pages_are_detected_and_converted_by_their_own_tables() {
    use undouble::charset::OemCodePage;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let russian = "Программа установки не смогла найти файл. Проверьте путь и повторите \
                   попытку: выбранный каталог пуст или недоступен для чтения.\n"
        .repeat(2);
    let greek = "Το πρόγραμμα εγκατάστασης δεν βρήκε το αρχείο. Ελέγξτε τη διαδρομή και \
                 δοκιμάστε ξανά: ο κατάλογος είναι άδειος ή δεν διαβάζεται.\n"
        .repeat(2);
    for (page, text, name) in [
        (OemCodePage::Ibm855, &russian, "ru.txt"),
        (OemCodePage::Cp737, &greek, "el.txt"),
    ] {
        let bytes = page.encode(text).expect("the text fits its page");
        let path = write(dir.path(), name, &bytes);
        let output = run(&["detect", "--json", path_str(&path)]);
        let record: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
        assert_eq!(record["encoding"], page.name(), "{record}");

        let output = run(&["fix", "--in-place", "--transcode", path_str(&path)]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(read(&path), text.as_bytes());
        let expected = format!("{name}: transcoded from {} to UTF-8", page.name());
        assert!(stderr(&output).contains(&expected), "{}", stderr(&output));

        let again = write(dir.path(), name, &bytes);
        let from = page.name().to_ascii_lowercase();
        let output = run(&[
            "fix",
            "-o",
            "-",
            "--transcode",
            "--from",
            &from,
            path_str(&again),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(output.stdout, text.as_bytes());
    }
}
