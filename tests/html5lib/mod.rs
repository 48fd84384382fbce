//! html5lib's encoding tests (`tests/data/peers/html5lib-encoding/tests.jsonl`) as documents
//! and the encoding a browser must choose: shared by the prescan test (`charset_suites.rs`)
//! and the `detect --whatwg` test (`cli_detect.rs`).

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// One test: its name (`file#index`), the document's bytes, the expected label, and whether
/// the `<meta>` only exists once a script has run.
pub struct Html5libTest {
    pub name: String,
    pub bytes: Vec<u8>,
    pub encoding: String,
    pub needs_scripting: bool,
}

/// All the tests, in the file's order; panics (failing the test) if the suite is missing.
pub fn html5lib_tests() -> Vec<Html5libTest> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/peers/html5lib-encoding/tests.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let test: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let name = format!("{}#{}", test["file"].as_str().unwrap_or("?"), test["index"]);
            let bytes = base64_decode(test["data_b64"].as_str().unwrap_or_default())
                .unwrap_or_else(|| panic!("{name}: data_b64 is not base64"));
            Html5libTest {
                bytes,
                encoding: test["encoding"].as_str().unwrap_or_default().to_owned(),
                needs_scripting: test["needs_scripting"].as_bool() == Some(true),
                name,
            }
        })
        .collect()
}

/// Standard base64 with `=` padding; `None` on anything else.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut bits: u32 = 0;
    let mut bit_count = 0;
    for byte in text
        .bytes()
        .filter(|&b| b != b'=' && !b.is_ascii_whitespace())
    {
        let value = ALPHABET.iter().position(|&a| a == byte)? as u32;
        bits = (bits << 6) | value;
        bit_count += 6;
        if bit_count >= 8 {
            bit_count -= 8;
            out.push((bits >> bit_count) as u8);
            bits &= (1 << bit_count) - 1;
        }
    }
    Some(out)
}

#[test]
fn charset_base64_decoder_works() {
    assert_eq!(
        base64_decode("PCFET0NUWVBFIEhUTUw+").as_deref(),
        Some(&b"<!DOCTYPE HTML>"[..])
    );
    assert_eq!(base64_decode("YQ==").as_deref(), Some(&b"a"[..]));
    assert_eq!(base64_decode("Y!=="), None);
}
