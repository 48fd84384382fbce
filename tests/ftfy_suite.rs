//! Measures the repair against ftfy's own test cases (`tests/data/peers/ftfy/cases.jsonl`,
//! Apache-2.0, Copyright Robyn Speer; see that folder's README), without special-casing any.
//!
//! Our scope is UTF-8 (and its CESU-8 variant) read through ISO-8859-1 or Windows-1252, any
//! number of times, and Windows-1252 text read as ISO-8859-1 (C1 controls). A case is in that
//! scope when the bare byte pattern (strictness `pattern`, no plausibility rule at all) or the
//! lenient rule turns its `original` into its expected text: then the garbling is one our byte
//! maths can undo, and the question left is whether the default rule dares to. Cases garbled
//! through other code pages (MacRoman, Windows-1251, CP437...) or lossy decoding are out of
//! scope and only counted.

use std::path::PathBuf;

use serde_json::Value;
use undouble::mojibake::{LostBytes, Readings, Scanner, Strictness, repair};

struct Case {
    label: String,
    kind: String,
    original: String,
    expected: String,
}

fn cases() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/peers/ftfy/cases.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the peer suite must be present at {}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let case: Value = serde_json::from_str(line).expect("a JSON line");
            let field = |name: &str| case[name].as_str().map(str::to_string);
            Case {
                label: field("label").unwrap_or_default(),
                kind: field("kind").unwrap_or_default(),
                original: field("original").unwrap_or_default(),
                // The encoding fix alone, where ftfy's full fix does more (quotes, ligatures).
                expected: field("fixed-encoding")
                    .or_else(|| field("fixed"))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

fn fixed(scanner: &Scanner, text: &str) -> String {
    String::from_utf8_lossy(&repair(scanner, text.as_bytes())).into_owned()
}

#[test]
fn ftfy_cases() {
    let cases = cases();
    assert_eq!(cases.len(), 161, "the suite's README lists 161 cases");
    let pattern = Scanner::new(Readings::western(), Strictness::Pattern);
    let lenient = Scanner::new(Readings::western(), Strictness::Lenient);
    let default = Scanner::new(Readings::western(), Strictness::default());

    let (mut in_scope, mut repaired, mut out_of_scope) = (0, 0, 0);
    let mut misses = Vec::new();
    for case in cases.iter().filter(|c| c.kind.starts_with("encoding")) {
        let within = |scanner: &Scanner| fixed(scanner, &case.original) == case.expected;
        if !within(&pattern) && !within(&lenient) {
            out_of_scope += 1;
            continue;
        }
        in_scope += 1;
        let ours = fixed(&default, &case.original);
        if ours == case.expected {
            repaired += 1;
        } else {
            misses.push(format!(
                "  {}: {:?} -> {:?}",
                case.label, case.original, ours
            ));
        }
    }
    let unchanged: Vec<&Case> = cases.iter().filter(|c| c.kind == "unchanged").collect();
    let mut changed = Vec::new();
    for case in &unchanged {
        let ours = fixed(&default, &case.original);
        if ours != case.original {
            changed.push(format!(
                "  {}: {:?} -> {:?}",
                case.label, case.original, ours
            ));
        }
    }
    println!(
        "ftfy encoding cases in scope (latin1/cp1252): {repaired}/{in_scope} repaired exactly; \
         {out_of_scope} out of scope (other code pages, lossy)"
    );
    println!("missed:\n{}", misses.join("\n"));
    println!(
        "ftfy unchanged cases: {}/{} left alone",
        unchanged.len() - changed.len(),
        unchanged.len()
    );
    println!("changed:\n{}", changed.join("\n"));
    // Every case in scope is repaired, and every case ftfy leaves alone, we leave alone.
    assert!(
        repaired == in_scope,
        "repairs fell to {repaired}/{in_scope}:\n{}",
        misses.join("\n")
    );
    assert!(
        changed.is_empty(),
        "{} unchanged cases were changed:\n{}",
        changed.len(),
        changed.join("\n")
    );
}

/// With `--readings auto` ([`Scanner::choosing_any`]), cases garbled through other code pages
/// (MacRoman, Windows-1250/1251, CP437...) are repaired too, while every case the default
/// repairs stays repaired and every `unchanged` case stays unchanged.
#[test]
fn ftfy_cases_through_the_chosen_reading() {
    let cases = cases();
    let default = Scanner::new(Readings::western(), Strictness::default());
    let auto = Scanner::choosing_any(Strictness::default());
    let (mut gained, mut lost) = (Vec::new(), Vec::new());
    for case in cases.iter().filter(|c| c.kind.starts_with("encoding")) {
        let by_default = fixed(&default, &case.original) == case.expected;
        let by_auto = fixed(&auto, &case.original) == case.expected;
        match (by_default, by_auto) {
            (false, true) => gained.push(case.label.as_str()),
            (true, false) => lost.push(case.label.as_str()),
            _ => {}
        }
    }
    let changed: Vec<&str> = cases
        .iter()
        .filter(|c| c.kind == "unchanged" && fixed(&auto, &c.original) != c.original)
        .map(|c| c.label.as_str())
        .collect();
    println!(
        "repaired only through the chosen reading ({}):",
        gained.len()
    );
    for label in &gained {
        println!("  {label}");
    }
    assert!(lost.is_empty(), "the chosen reading lost {lost:?}");
    assert!(changed.is_empty(), "unchanged cases changed: {changed:?}");
    assert!(
        gained.len() >= 19,
        "only {} gained: {gained:?}",
        gained.len()
    );
}

/// Cases garbled with a lost byte as well (a no-break space turned into a space, a byte
/// turned into U+FFFD or `?`): counted as the cases the chosen reading repairs exactly only
/// when lost bytes are repaired, not when they are kept. `infer` repairs those where one
/// character fits, `replace` also those whose lost byte cannot be known (ftfy writes U+FFFD
/// for them too); no `unchanged` case changes under either.
#[test]
fn ftfy_cases_with_a_lost_byte() {
    let cases = cases();
    let auto = |lost| Scanner::choosing_any(Strictness::default()).with_lost_bytes(lost);
    let (keep, infer, replace) = (
        auto(LostBytes::Keep),
        auto(LostBytes::Infer),
        auto(LostBytes::Replace),
    );
    let exact = |scanner: &Scanner, case: &Case| fixed(scanner, &case.original) == case.expected;
    let encoding = || cases.iter().filter(|c| c.kind.starts_with("encoding"));
    let inferred: Vec<&str> = encoding()
        .filter(|c| !exact(&keep, c) && exact(&infer, c))
        .map(|c| c.label.as_str())
        .collect();
    let replaced: Vec<&str> = encoding()
        .filter(|c| !exact(&keep, c) && exact(&replace, c))
        .map(|c| c.label.as_str())
        .collect();
    let lost_by_replacing: Vec<&str> = encoding()
        .filter(|c| exact(&keep, c) && !exact(&replace, c))
        .map(|c| c.label.as_str())
        .collect();
    let changed: Vec<&str> = cases
        .iter()
        .filter(|c| c.kind == "unchanged")
        .filter(|c| fixed(&replace, &c.original) != c.original)
        .map(|c| c.label.as_str())
        .collect();
    println!(
        "lost-byte cases repaired with infer ({}): {inferred:?}",
        inferred.len()
    );
    println!(
        "lost-byte cases repaired with replace ({}): {replaced:?}",
        replaced.len()
    );
    assert!(lost_by_replacing.is_empty(), "lost: {lost_by_replacing:?}");
    assert!(changed.is_empty(), "unchanged cases changed: {changed:?}");
    assert!(inferred.len() >= 8, "only {}: {inferred:?}", inferred.len());
    assert!(
        replaced.len() >= 18,
        "only {}: {replaced:?}",
        replaced.len()
    );
}
