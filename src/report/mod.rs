//! What a person or a program reads: a text summary per input, or JSON Lines; and, read back
//! from those records ([`records`]), one HTML page ([`html`]).
//!
//! The JSON schema is documented in the README; every record carries a `type` (`file`,
//! `total` or `error`) so that a consumer can read the stream line by line.

pub mod html;
pub mod records;

use serde_json::{Value, json};

pub use crate::format::{count, hex, thousands, visible};
use crate::mojibake::counts::SequenceCount;
use crate::mojibake::{Counts, Readings};

/// How many distinct sequences a report lists.
pub const TOP_SEQUENCES: usize = 10;

fn sequence_json(readings: &Readings, garbled: &[u8], seq: &SequenceCount) -> Value {
    let mut utf8 = [0u8; 4];
    let repaired = seq.original.encode_utf8(&mut utf8);
    json!({
        "mojibake": String::from_utf8_lossy(garbled),
        "mojibake_hex": hex(garbled, ""),
        "repaired": repaired,
        "repaired_hex": hex(repaired.as_bytes(), ""),
        "reading": readings.reading_name(seq.mask),
        "layers": seq.layers,
        "count": seq.count,
        "first_offset": seq.first_offset,
    })
}

/// The counts of one input (or the totals) as one JSON object, without its `type` and `path`.
pub fn counts_json(readings: &Readings, counts: &Counts, top: usize) -> Value {
    let by_layers: serde_json::Map<String, Value> = counts
        .by_layers()
        .iter()
        .map(|(layers, n)| (layers.to_string(), json!(n)))
        .collect();
    json!({
        "bytes": counts.bytes,
        "valid_utf8": counts.valid_utf8(),
        "first_invalid_offset": counts.first_invalid_offset,
        "double_encoded": counts.double_encoded,
        "by_reading": counts.by_reading_names(readings),
        "by_layers": by_layers,
        "fine_non_ascii": counts.fine_non_ascii(),
        "top_sequences": counts
            .top_sequences(top)
            .into_iter()
            .map(|(g, s)| sequence_json(readings, g, s))
            .collect::<Vec<_>>(),
        "left_alone": counts.left_alone,
        "top_left_alone": counts
            .top_left_alone(top)
            .into_iter()
            .map(|(g, s)| sequence_json(readings, g, s))
            .collect::<Vec<_>>(),
    })
}

/// One JSON Lines record: `{"type": kind, "path": path, ...counts}`.
pub fn record(kind: &str, path: Option<&str>, mut body: Value) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("type".into(), json!(kind));
        if let Some(path) = path {
            map.insert("path".into(), json!(path));
        }
    }
    body
}

/// A few lines for a person: the headline, then the most frequent sequences.
pub fn counts_text(readings: &Readings, name: &str, counts: &Counts, top: usize) -> String {
    let mut out = format!(
        "{name}: {}",
        count(counts.double_encoded, "double-encoded character")
    );
    if counts.double_encoded > 0 {
        let readings_part: Vec<String> = counts
            .by_reading_names(readings)
            .iter()
            .map(|(r, n)| format!("{r} {}", thousands(*n)))
            .collect();
        let layers_part: Vec<String> = counts
            .by_layers()
            .iter()
            .map(|(l, n)| format!("{} {}", count(u64::from(*l), "layer"), thousands(*n)))
            .collect();
        out += &format!(
            " ({}; {})",
            readings_part.join(", "),
            layers_part.join(", ")
        );
    }
    out += &format!(
        ", {} left alone, {} fine, {}, ",
        count(counts.left_alone, "look-alike"),
        count(counts.fine_non_ascii(), "non-ASCII character"),
        count(counts.bytes, "byte")
    );
    match counts.first_invalid_offset {
        None => out += "valid UTF-8",
        Some(offset) => out += &format!("not valid UTF-8 (first invalid byte at offset {offset})"),
    }
    out.push('\n');
    for (garbled, seq) in counts.top_sequences(top) {
        out += &format!(
            "  {} → {} × {} ({}, {})\n",
            visible(&String::from_utf8_lossy(garbled)),
            visible(seq.original.encode_utf8(&mut [0; 4])),
            thousands(seq.count),
            readings.reading_name(seq.mask),
            count(u64::from(seq.layers), "layer")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separates_groups() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }
}
