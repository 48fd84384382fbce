//! Fix then undo is the identity: on random mixtures of ASCII, UTF-8, double- and
//! triple-encoded text and invalid bytes spread over several files, on every corpus file, on a
//! file of several blocks, and on files with awkward names. The audited fix also writes exactly
//! what the plain repair writes, and its change records point at the right bytes and lines.

mod audit_support;

use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;
use undouble::audit::{self, AuditLevel, Record};
use undouble::mojibake::codepage::{CodePage, LATIN1, WINDOWS_1252, garble};
use undouble::mojibake::{Strictness, repair};

use audit_support::{fix_all, records, roots_of, scanner, write_files};

/// Fixes `contents` as files in a fresh directory, checks the fix against the plain repair,
/// undoes it and checks every file is back to its original bytes.
fn fix_then_undo(contents: &[Vec<u8>], strictness: Strictness) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), contents);
    let scanner = scanner(strictness);
    let log = dir.path().join("audit.jsonl");
    let rewritten = fix_all(&scanner, &paths, &log, AuditLevel::Full);
    for ((path, original), &rewritten) in paths.iter().zip(contents).zip(&rewritten) {
        let fixed = fs::read(path).unwrap();
        prop_assert_eq!(&fixed, &repair(&scanner, original).into_owned());
        prop_assert_eq!(rewritten, fixed != *original);
    }
    let report = audit::undo(&log, &roots_of(&log)).unwrap();
    prop_assert_eq!(report.files.len(), rewritten.iter().filter(|&&r| r).count());
    for file in &report.files {
        prop_assert!(file.result.is_ok(), "{:?}", file.result);
    }
    for (path, original) in paths.iter().zip(contents) {
        prop_assert_eq!(&fs::read(path).unwrap(), original);
    }
    // Only the files and the log: no temporary file is left behind.
    prop_assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        contents.len() + 1
    );
    Ok(())
}

const WORDS: &[&str] = &[
    "café",
    "naïve",
    "Zürich",
    "straße",
    "don’t",
    "“quoted”",
    "5 €",
    "łódź",
    "москва",
    "ελλάδα",
    "日本語",
    "😀",
    "São Paulo",
    "crème brûlée",
];

/// Some words, read once or twice through Latin-1 or Windows-1252 (a page per byte).
fn garbled() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::sample::select(WORDS), 1..5),
        1..=2usize,
        prop::collection::vec(any::<bool>(), 1..8),
    )
        .prop_map(|(words, layers, choice)| {
            let mut text = words.join(" ");
            let mut i = 0;
            for _ in 0..layers {
                let once = garble(text.as_bytes(), |_| -> &CodePage {
                    i += 1;
                    if choice[i % choice.len()] {
                        &LATIN1
                    } else {
                        &WINDOWS_1252
                    }
                });
                // Both pages define every byte, so garbling always succeeds.
                text = once.unwrap_or(text);
            }
            text.into_bytes()
        })
}

/// A piece of a file: ASCII, any UTF-8, double-encoded text, stray bytes, line ends.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-zA-Z0-9 ,.;:'\"()-]{0,24}".prop_map(String::into_bytes),
        any::<String>().prop_map(String::into_bytes),
        prop::sample::select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        garbled(),
        garbled(),
        prop::collection::vec(0x80u8..=0xFF, 1..4),
        prop::sample::select(vec!["\n", "\r\n", "\t", " "]).prop_map(|s| s.as_bytes().to_vec()),
    ]
}

fn content() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fix_then_undo_is_the_identity(
        contents in prop::collection::vec(content(), 1..5),
        strictness in prop::sample::select(vec![
            Strictness::Pattern,
            Strictness::Lenient,
            Strictness::Balanced,
            Strictness::Strict,
        ]),
    ) {
        fix_then_undo(&contents, strictness)?;
    }
}

#[test]
fn fix_then_undo_is_the_identity_on_every_corpus_file() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut names: Vec<PathBuf> = fs::read_dir(&corpus)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    names.sort();
    let contents: Vec<Vec<u8>> = names.iter().map(|path| fs::read(path).unwrap()).collect();
    assert!(contents.len() >= 3, "the corpus is there");
    for strictness in [Strictness::Balanced, Strictness::Pattern] {
        fix_then_undo(&contents, strictness).unwrap();
    }
    // The dump needs repairs, so the round trip above did rewrite and restore.
    let dump = names
        .iter()
        .position(|name| name.ends_with("dump-sample.sql"))
        .unwrap();
    let original = &contents[dump];
    let repaired = repair(&scanner(Strictness::Balanced), original);
    assert_ne!(repaired.as_ref(), original.as_slice());
}

/// More than two blocks of the engine's size, with a repair on every line: offsets and line
/// numbers stay right across block boundaries, and the file comes back whole.
#[test]
fn a_file_of_several_blocks_round_trips_with_exact_offsets_and_lines() {
    let padding = "‘plain’ text that needs no repair, ".repeat(25);
    let line = format!("id,42,{padding},CafÃ© crÃ¨me\n");
    let content = line.repeat((20 << 20) / line.len()).into_bytes();
    let dir = tempfile::tempdir().unwrap();
    let paths = write_files(dir.path(), std::slice::from_ref(&content));
    let log = dir.path().join("audit.jsonl");
    let scanner = scanner(Strictness::Balanced);
    assert_eq!(fix_all(&scanner, &paths, &log, AuditLevel::Full), [true]);

    let records = records(&log);
    let changes: Vec<_> = records
        .iter()
        .filter_map(|record| match record {
            Record::Change(change) => Some(change),
            _ => None,
        })
        .collect();
    let lines = content.len() / line.len();
    assert_eq!(changes.len(), 2 * lines);
    let first_garbled = line.find("Ã©").unwrap() as u64;
    for (i, change) in changes.iter().enumerate() {
        let line_index = (i / 2) as u64;
        assert_eq!(change.line, line_index + 1);
        let in_line = if i % 2 == 0 {
            first_garbled
        } else {
            line.find("Ã¨").unwrap() as u64
        };
        assert_eq!(change.offset, line_index * line.len() as u64 + in_line);
    }
    let [.., Record::File(file), Record::End(_)] = records.as_slice() else {
        panic!("the file record comes last, before the end of the run");
    };
    assert_eq!(file.bytes_before, content.len() as u64);
    assert_eq!(file.bytes_after, fs::read(&paths[0]).unwrap().len() as u64);

    let report = audit::undo(&log, &roots_of(&log)).unwrap();
    assert!(report.all_restored());
    assert!(fs::read(&paths[0]).unwrap() == content);
}

/// Names with spaces, quotes, backslashes, colons, a newline, non-Latin letters and (on Unix)
/// bytes that are not UTF-8 at all are logged and found again.
#[test]
fn files_with_awkward_names_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("dir with spaces\\and:colons");
    fs::create_dir(&sub).unwrap();
    let mut names: Vec<std::ffi::OsString> = vec![
        "plain.txt".into(),
        "quote\"d 'name'.txt".into(),
        "line\nbreak.txt".into(),
        "back\\slash:colon?.txt".into(),
        "Москва ☃.txt".into(),
    ];
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        names.push(std::ffi::OsString::from_vec(b"caf\xe9-latin1.txt".to_vec()));
    }
    let content = "Ã‰cole, Ã§a coÃ»te 5 â‚¬\n".as_bytes();
    let paths: Vec<PathBuf> = names.iter().map(|name| sub.join(name)).collect();
    for path in &paths {
        fs::write(path, content).unwrap();
    }
    let log = dir.path().join("audit.jsonl");
    let scanner = scanner(Strictness::Balanced);
    assert!(
        fix_all(&scanner, &paths, &log, AuditLevel::Full)
            .iter()
            .all(|&r| r)
    );
    let report = audit::undo(&log, &roots_of(&log)).unwrap();
    assert_eq!(report.files.len(), paths.len());
    assert!(report.all_restored(), "{report:?}");
    for path in &paths {
        assert_eq!(fs::read(path).unwrap(), content, "{path:?}");
    }
}
