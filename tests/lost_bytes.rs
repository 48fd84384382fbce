//! Garbled characters that also lost a byte, through the real binary: what `fix` makes of
//! them under each `--lost-bytes`, from a file and from standard input alike; what `scan`
//! counts and where; the audit log marking them inferred; and `undo` restoring every byte.

mod binary;

use binary::*;

/// A Russian line (`Русский`: `Ð ` lost its `A0`, each `Ñ�` a byte nobody can know), a
/// Portuguese one (`às`), a French one (`à` keeping its space), and a line with nothing but a
/// lost byte, which no evidence vouches for.
const TEXT: &str = "Ð ÑƒÑ\u{fffd}Ñ\u{fffd}ÐºÐ¸Ð¹\n\
                    com especial atenÃ§Ã£o Ã s crianÃ§as\n\
                    Ã perturber la rÃ©flexion jusqu'Ã nos jours\n\
                    voilÃ  le travail\n";

/// What each `--lost-bytes` makes of [`TEXT`]: `infer` the characters one byte `A0`
/// completes, `replace` also U+FFFD for each unknowable one, `keep` none; under every choice
/// the double encoding around them is repaired, and the lone line is left (nothing in its
/// field is certainly garbled).
const FIXED: [(&str, &str); 3] = [
    (
        "infer",
        "РуÑ\u{fffd}Ñ\u{fffd}кий\n\
         com especial atenção às crianças\n\
         à perturber la réflexion jusqu'à nos jours\n\
         voilÃ  le travail\n",
    ),
    (
        "replace",
        "Ру\u{fffd}\u{fffd}кий\n\
         com especial atenção às crianças\n\
         à perturber la réflexion jusqu'à nos jours\n\
         voilÃ  le travail\n",
    ),
    (
        "keep",
        "Ð уÑ\u{fffd}Ñ\u{fffd}кий\n\
         com especial atenção Ã s crianças\n\
         Ã perturber la réflexion jusqu'Ã nos jours\n\
         voilÃ  le travail\n",
    ),
];

#[test]
fn each_choice_repairs_what_it_says_from_a_file_and_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lost.txt");
    std::fs::write(&path, TEXT).unwrap();
    let file = path_str(&path);
    for (choice, expected) in FIXED {
        let from_file = run(&["fix", "-q", "--lost-bytes", choice, file, "-o", "-"]);
        let from_stdin =
            run_with_stdin(&["fix", "-q", "--lost-bytes", choice, "-"], TEXT.as_bytes());
        assert_eq!(
            String::from_utf8_lossy(&from_file.stdout),
            expected,
            "{choice}"
        );
        assert_eq!(from_stdin.stdout, from_file.stdout, "{choice}");
    }
    // `infer` is the default.
    let default = run(&["fix", "-q", file, "-o", "-"]);
    assert_eq!(String::from_utf8_lossy(&default.stdout), FIXED[0].1);
}

#[test]
fn scan_counts_partly_lost_characters_with_their_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lost.txt");
    std::fs::write(&path, TEXT).unwrap();
    let output = run(&["scan", "--json", path_str(&path)]);
    let records = json_lines(&output);
    let file = &records[0];
    // `Ð `, two `Ñ�`, `Ã ` of `às`, two `Ã` of `à`, and the lone one: seven found.
    assert_eq!(file["lost_bytes"], 7, "{file}");
    // Inferred: `Ð `, `às`, the two `à`; the unknowable and the lone one are left.
    assert_eq!(file["lost_bytes_repaired"], 4, "{file}");
    let offsets: Vec<u64> = file["lost_byte_offsets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = ["Ð ", "Ñ\u{fffd}", "Ã s", "Ã p", "Ã n", "Ã  "]
        .iter()
        .flat_map(|form| TEXT.match_indices(form).map(|(at, _)| at as u64))
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .collect();
    assert_eq!(offsets, expected);
    // A total has the counts, not the offsets of one input.
    let total = records.last().unwrap();
    assert_eq!(total["lost_bytes"], 7);
    assert_eq!(total["lost_byte_offsets"].as_array().map(Vec::len), Some(0));
    let text = run(&["scan", path_str(&path)]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("7 characters partly lost (4 repaired"),
        "{text}"
    );
}

#[test]
fn inferred_repairs_are_marked_in_the_audit_log_and_undone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lost.txt");
    let log = dir.path().join("audit.jsonl");
    std::fs::write(&path, TEXT).unwrap();
    let fixed = run(&[
        "fix",
        "-q",
        "--lost-bytes",
        "replace",
        "--in-place",
        "--audit",
        path_str(&log),
        path_str(&path),
    ]);
    assert!(
        fixed.status.code().is_some_and(|c| c < 2),
        "{}",
        stderr(&fixed)
    );
    let changes: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|record: &serde_json::Value| record["type"] == "change")
        .collect();
    let inferred: Vec<&str> = changes
        .iter()
        .filter(|c| c["inferred"] == true)
        .map(|c| c["original"].as_str().unwrap())
        .collect();
    assert_eq!(inferred, ["Ð ", "Ñ\u{fffd}", "Ñ\u{fffd}", "Ã ", "Ã", "Ã"]);
    // A repair read back from whole bytes says nothing of inference.
    assert!(
        changes
            .iter()
            .any(|c| c["original"] == "Ã©" && c.get("inferred").is_none())
    );
    let undone = run(&["undo", "--root", path_str(dir.path()), path_str(&log)]);
    assert!(undone.status.success(), "{}", stderr(&undone));
    assert_eq!(std::fs::read(&path).unwrap(), TEXT.as_bytes());
}

#[test]
fn explain_shows_the_evidence_of_an_inferred_character() {
    let output = run_with_stdin(&["explain", "-"], "Ã perturber la rÃ©flexion\n".as_bytes());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("only byte A0"), "{text}");
    assert!(text.contains("'à' (U+00E0), inferred, repaired"), "{text}");
    assert!(
        text.contains("a certain run stands in the same field"),
        "{text}"
    );
}
