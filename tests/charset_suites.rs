//! The peer test suites in `tests/data/peers` (see its README), run against the charset
//! module. They measure; nothing here names a suite's strings.
//!
//! - `html-encoding-perl`: HTML::Encoding 0.61's own 42 raw HTTP responses, through
//!   `HttpMessage::parse` and `encoding_from_http_message` with default options; also checks
//!   the header splitting against the unfolded `Content-Type` values in `http_vectors.jsonl`.
//! - `html5lib-encoding`: 83 documents with the encoding a browser must choose, through the
//!   WHATWG prescan mode (`encoding_from_html5_prescan`).
//!
//! A missing suite is a failure, never a silent pass.

mod html5lib;

use std::collections::BTreeMap;
use std::path::PathBuf;

use html5lib::base64_decode;
use serde_json::Value;
use undouble::charset::{
    HttpMessage, HttpOptions, Source, encoding_from_content_type, encoding_from_html5_prescan,
    encoding_from_http_message,
};

fn suites_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/peers")
}

fn read(relative: &str) -> Vec<u8> {
    let path = suites_dir().join(relative);
    std::fs::read(&path).unwrap_or_else(|error| {
        panic!(
            "cannot read {}: {error}. The peer test suites must be present at {}",
            path.display(),
            suites_dir().display()
        )
    })
}

fn json_lines(relative: &str) -> Vec<Value> {
    String::from_utf8_lossy(&read(relative))
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{relative}: {e}: {line}"))
        })
        .collect()
}

#[test]
fn charset_html_encoding_perl_http_responses() {
    let expected_text =
        String::from_utf8_lossy(&read("html-encoding-perl/expected.txt")).into_owned();
    let expected: BTreeMap<String, String> = expected_text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (id, value) = line.split_once(' ').unwrap_or((line, ""));
            (id.to_owned(), value.trim_end().to_owned())
        })
        .collect();
    let vectors = json_lines("html-encoding-perl/http_vectors.jsonl");
    assert_eq!(expected.len(), 42, "expected.txt should list 42 responses");
    assert_eq!(
        vectors.len(),
        42,
        "http_vectors.jsonl should hold 42 responses"
    );

    let options = HttpOptions::default();
    let mut failures = Vec::new();
    for vector in &vectors {
        let id = vector["id"].as_str().unwrap_or_default().to_owned();
        let raw = read(&format!("html-encoding-perl/http/{id}"));
        let message = HttpMessage::parse(&raw);

        let unfolded: Vec<String> = message
            .header_values("Content-Type")
            .map(|value| String::from_utf8_lossy(value).into_owned())
            .collect();
        let want_unfolded: Vec<String> = vector["content_type_values_unfolded"]
            .as_array()
            .map(|values| {
                values
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(unfolded, want_unfolded, "{id}: Content-Type values");
        assert_eq!(
            Some(message.body.len() as u64),
            vector["body_len"].as_u64(),
            "{id}: body length"
        );

        let answer = encoding_from_http_message(&message, &options);
        let got = answer.as_ref().map_or("", |a| a.encoding.as_str());
        let want_txt = expected.get(&id).map_or("<missing>", String::as_str);
        let want_jsonl = vector["expected_encoding_from_http_message"]
            .as_str()
            .unwrap_or("");
        assert_eq!(
            want_txt, want_jsonl,
            "{id}: expected.txt and http_vectors.jsonl disagree"
        );

        // Whatever the answer, its source must be the header exactly when the header has a
        // charset (these bodies are empty, so nothing else can declare one).
        let header_charset = message
            .header("Content-Type")
            .and_then(|value| encoding_from_content_type(&value));
        if let Some(answer) = &answer {
            let from_header = answer.source == Source::Protocol;
            assert_eq!(
                from_header,
                header_charset.is_some(),
                "{id}: source {}",
                answer.source
            );
        }
        if got != want_txt {
            failures.push(format!("{id}: got {got:?}, want {want_txt:?}"));
        }
    }
    println!(
        "html-encoding-perl: {}/{} passed",
        vectors.len() - failures.len(),
        vectors.len()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

/// Why a test is expected to differ from the browser's answer, if it is.
fn html5_difference(test: &Value) -> Option<&'static str> {
    if test["needs_scripting"].as_bool() == Some(true) {
        // The <meta> only exists after document.write runs: a byte prescan cannot see it.
        return Some("needs scripting");
    }
    if test["meta_beyond_1024"].as_bool() == Some(true) {
        // The standard's prescan stops at 1024 bytes; a browser finds these later, while
        // parsing, and reloads. We implement the prescan only, so we answer the default.
        return Some("meta beyond 1024 bytes");
    }
    None
}

#[test]
fn charset_html5lib_encoding_through_the_prescan() {
    let tests = json_lines("html5lib-encoding/tests.jsonl");
    assert_eq!(tests.len(), 83, "tests.jsonl should hold 83 tests");
    let mut passed = 0;
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for test in &tests {
        let name = format!("{}#{}", test["file"].as_str().unwrap_or("?"), test["index"]);
        let bytes = base64_decode(test["data_b64"].as_str().unwrap_or_default())
            .unwrap_or_else(|| panic!("{name}: data_b64 is not base64"));
        let label = test["encoding"].as_str().unwrap_or_default();
        let want = encoding_rs::Encoding::for_label(label.as_bytes())
            .unwrap_or_else(|| panic!("{name}: unknown expected label {label:?}"));
        let got = encoding_from_html5_prescan(&bytes);

        if let Some(reason) = html5_difference(test) {
            // Expected differently: with nothing usable in reach, the prescan falls back to
            // the default.
            assert_eq!(got.source, Source::Default, "{name} ({reason})");
            *skipped.entry(reason).or_default() += 1;
        } else if got.encoding == want {
            passed += 1;
        } else {
            failures.push(format!(
                "{name}: got {}, want {}",
                got.encoding.name(),
                want.name()
            ));
        }
    }
    let skipped_total: usize = skipped.values().sum();
    let reasons: Vec<String> = skipped
        .iter()
        .map(|(reason, n)| format!("{n} {reason}"))
        .collect();
    println!(
        "html5lib: {passed}/{} passed, {skipped_total} skipped: {}",
        tests.len(),
        reasons.join(", ")
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    assert_eq!(passed + skipped_total, tests.len());
}
