//! The JSON the binary prints, against its types and its documentation: every record `scan
//! --json`, `detect --json`, `explain --json` and `learn --json` print on the corpus and on awkward inputs
//! reads back into the library's record types and writes out the same (so the types hold every
//! field), and every field name in them is documented in `docs/json.md`.

mod binary;

use binary::*;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use undouble::report::{DetectRecord, ExplainRecord, LearnRecord, ScanRecord};

/// The fields whose values are maps keyed by data (reading names, layers, encodings, the
/// columns of a row's key), not by field names.
const KEYED_BY_DATA: &[&str] = &[
    "by_reading",
    "by_layers",
    "encodings",
    "guesses",
    "example_row",
];

/// A directory of inputs that between them give every record and every optional field.
fn inputs(dir: &Path) {
    for name in ["dump-sample.sql", "clean-multilingual.txt"] {
        fs::copy(corpus(name), dir.join(name)).unwrap();
    }
    let files: &[(&str, &[u8])] = &[
        ("garbled.txt", "CafÃ© crÃ¨me, naÃ¯ve â€” Ã¼ber\n".as_bytes()),
        (
            "latin1.txt",
            &b"Caf\xe9 cr\xe8me br\xfbl\xe9e, \xe0 la fran\xe7aise. ".repeat(30),
        ),
        ("utf16.txt", b"\xff\xfeH\0i\0\n\0"),
        ("stray.txt", b"ok \xc3\x83\xc2\xa9 then \xff stray\n"),
        ("binary.dat", b"\x00\x01\x02abc"),
        (
            "page.html",
            b"<html><head><meta charset=\"iso-8859-1\"></head><body>caf\xc3\x83\xc2\xa9</body>",
        ),
        ("empty.txt", b""),
        (
            "pg.sql",
            b"--\n-- PostgreSQL database dump\n--\n\nSET client_encoding = 'LATIN1';\n\n\
              CREATE TABLE public.t (\n    id integer NOT NULL,\n    name text\n);\n\n\
              COPY public.t (id, name) FROM stdin;\n1\tZ\xc3\x83\xc2\xbcrich\n\\.\n\n\
              ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n",
        ),
    ];
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes).unwrap();
    }
}

/// Every record `args` prints, each read into `T` and written out again to the same JSON.
fn records<T: DeserializeOwned + Serialize>(args: &[&str]) -> Vec<Value> {
    let output = run(args);
    let records = json_lines(&output);
    assert!(!records.is_empty(), "{args:?}: {}", stderr(&output));
    for record in &records {
        let typed: T = match serde_json::from_value(record.clone()) {
            Ok(typed) => typed,
            Err(error) => panic!("{args:?}: {record} does not read back: {error}"),
        };
        let again = serde_json::to_value(&typed).unwrap();
        assert_eq!(
            &again, record,
            "{args:?}: the type loses or changes a field"
        );
    }
    records
}

/// Every field name in `value`, but not the keys of maps keyed by data.
fn field_names(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                names.insert(key.clone());
                if !KEYED_BY_DATA.contains(&key.as_str()) {
                    field_names(inner, names);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| field_names(item, names)),
        _ => {}
    }
}

#[test]
fn every_record_reads_back_into_its_type_and_every_field_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    inputs(dir.path());
    let tree = path_str(dir.path());
    let missing = dir.path().join("missing.txt");
    let missing = path_str(&missing);
    let garbled = dir.path().join("garbled.txt");
    let mut all = Vec::new();
    all.extend(records::<ScanRecord>(&["scan", "--json", tree, missing]));
    all.extend(records::<ScanRecord>(&[
        "scan", "--json", "--format", "text", tree,
    ]));
    all.extend(records::<ScanRecord>(&[
        "scan",
        "--json",
        path_str(&garbled),
    ]));
    all.extend(records::<DetectRecord>(&[
        "detect", "--json", tree, missing,
    ]));
    all.extend(records::<DetectRecord>(&[
        "detect",
        "--json",
        path_str(&garbled),
    ]));
    // A run repaired, one left alone with its field's say, one rejected, and nothing at all.
    for text in [
        "T. Pratchett: ÃšÅ¾asnÃ½",
        "CafÃ© â€™",
        "OÃ™ ET QUAND?",
        "CAFÉ®",
        "plain",
    ] {
        all.extend(records::<ExplainRecord>(&["explain", "--json", text]));
    }
    // A chain undouble undoes, one it cannot, and none.
    for (bad, good) in [("cafÃƒÂ©", "café"), ("Ïðèâåò", "Привет"), ("cafe", "tea")]
    {
        all.extend(records::<LearnRecord>(&["learn", "--json", bad, good]));
    }

    let kinds: BTreeSet<&str> = all.iter().filter_map(|r| r["type"].as_str()).collect();
    let expected = [
        "detect", "error", "file", "learn", "run", "skipped", "summary", "total",
    ];
    assert_eq!(
        kinds,
        expected.into_iter().collect(),
        "every kind of record"
    );
    assert!(
        all.iter().any(|r| r.get("dump").is_some()),
        "a dump's report"
    );

    let mut names = BTreeSet::new();
    all.iter()
        .for_each(|record| field_names(record, &mut names));
    let doc = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
        .expect("docs/json.md");
    let undocumented: Vec<&String> = names
        .iter()
        .filter(|name| !doc.contains(&format!("`{name}`")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "fields docs/json.md does not name: {undocumented:?}"
    );
}
