//! Measures `undouble fix` against the test vectors of Perl's Encoding::FixLatin
//! (`tests/data/peers/encoding-fixlatin/vectors.jsonl`; see that folder's README), which repairs
//! text that mixes UTF-8 with raw Latin-1 and Windows-1252 bytes: each vector as one line and
//! as twenty, from standard input and from a file, and values that mix all three forms.
//!
//! The expected text is what the module gives with `ascii_hex => 0`: Windows-1252's undefined
//! bytes become C1 controls, as MySQL's `latin1` reads them. An input that is mostly bytes that
//! are not UTF-8 is another encoding to `fix` ("skipped: not UTF-8", passed on whole); with
//! `--transcode --from windows-1252` it is converted, and must then give the same text. The
//! count of each is asserted, so that neither can drift unnoticed.

mod binary;

use binary::*;

use serde_json::Value;

struct Vector {
    label: String,
    input: Vec<u8>,
    expected: Vec<u8>,
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn vectors() -> Vec<Vector> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/peers/encoding-fixlatin/vectors.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| record[name].as_str().unwrap().to_owned();
            Vector {
                label: field("label"),
                input: unhex(&field("input_hex")),
                expected: unhex(&field("undefined_as_controls_hex")),
            }
        })
        .collect()
}

/// What `fix` did with `input`, from standard input and from a file (they must agree).
#[derive(Debug, PartialEq)]
enum Outcome {
    Repaired(Vec<u8>),
    /// Skipped as another encoding, passed on unchanged.
    NotUtf8,
}

fn fixed(input: &[u8]) -> Outcome {
    let piped = run_with_stdin(&["fix", "-q"], input);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    let out = dir.path().join("out.txt");
    std::fs::write(&path, input).unwrap();
    let from_file = run(&["fix", "-q", path_str(&path), "-o", path_str(&out)]);
    let stderr = String::from_utf8_lossy(&piped.stderr);
    let outcome = match piped.status.code() {
        Some(0) => Outcome::Repaired(piped.stdout.clone()),
        Some(1) if stderr.contains("skipped: not UTF-8") => {
            assert_eq!(piped.stdout, input, "a skipped input is passed on whole");
            Outcome::NotUtf8
        }
        _ => panic!("{input:02X?}: {piped:?}"),
    };
    let file_outcome = match from_file.status.code() {
        Some(0) => Outcome::Repaired(std::fs::read(&out).unwrap()),
        Some(1) => Outcome::NotUtf8,
        _ => panic!("{input:02X?}: {from_file:?}"),
    };
    assert_eq!(
        outcome, file_outcome,
        "{input:02X?}: a file and a pipe alike"
    );
    outcome
}

/// What `fix --transcode --from windows-1252` makes of `input`, which `fix` alone skipped as
/// not UTF-8: from standard input and from a file alike.
fn transcoded(input: &[u8]) -> Vec<u8> {
    let args = ["fix", "-q", "--transcode", "--from", "windows-1252"];
    let piped = run_with_stdin(&args, input);
    assert_eq!(piped.status.code(), Some(0), "{input:02X?}: {piped:?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    let out = dir.path().join("out.txt");
    std::fs::write(&path, input).unwrap();
    let mut file_args = args.to_vec();
    file_args.extend([path_str(&path), "-o", path_str(&out)]);
    let from_file = run(&file_args);
    assert_eq!(
        from_file.status.code(),
        Some(0),
        "{input:02X?}: {from_file:?}"
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        piped.stdout,
        "{input:02X?}: a file and a pipe alike"
    );
    piped.stdout
}

#[test]
fn fix_gives_what_fix_latin_gives() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 22, "the README lists 22 vectors");
    let (mut exact, mut not_utf8, mut wrong) = (0, 0, Vec::new());
    for vector in &vectors {
        for lines in [1, 20] {
            let line = |text: &[u8]| {
                let mut line = text.to_vec();
                line.push(b'\n');
                line.repeat(lines)
            };
            let input = line(&vector.input);
            match fixed(&input) {
                Outcome::Repaired(out) if out == line(&vector.expected) => exact += 1,
                Outcome::NotUtf8 => {
                    not_utf8 += 1;
                    let out = transcoded(&input);
                    if out != line(&vector.expected) {
                        wrong.push(format!(
                            "{} ×{lines}, transcoded: {:?}",
                            vector.label,
                            String::from_utf8_lossy(&out)
                        ));
                    }
                }
                Outcome::Repaired(out) => wrong.push(format!(
                    "{} ×{lines}: {:?}",
                    vector.label,
                    String::from_utf8_lossy(&out)
                )),
            }
        }
    }
    println!("exact {exact}, skipped as not UTF-8 {not_utf8}, wrong {wrong:?}");
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!((exact, not_utf8), (34, 10));
}

#[test]
fn values_that_mix_all_three_forms_are_repaired_whole() {
    // Correct UTF-8, double-encoded UTF-8 and raw Windows-1252 in one value.
    let mut input = "Crème, I don\u{e2}\u{20ac}\u{2122}t know, caf"
        .as_bytes()
        .to_vec();
    input.extend(b"\xE9 \x93quoted\x94 \x80 5\n");
    let expected = "Crème, I don’t know, café “quoted” € 5\n";
    assert_eq!(
        fixed(&input),
        Outcome::Repaired(expected.as_bytes().to_vec())
    );
    // In the fields of one line: each judged on its own.
    let mut input = "Crème brûlée\tcaf\u{c3}\u{a9} cr\u{c3}\u{a8}me\t"
        .as_bytes()
        .to_vec();
    input.extend(b"na\xEFve \x80 5\n");
    let expected = "Crème brûlée\tcafé crème\tnaïve € 5\n";
    assert_eq!(
        fixed(&input),
        Outcome::Repaired(expected.as_bytes().to_vec())
    );
}
