//! The byte pattern of double encoding as a regular expression, generated from the code pages.
//!
//! The matcher ([`super::matcher`]) and the candidate filter ([`super::candidates`]) are fast
//! code for one question a regular expression states plainly: where does text hold a UTF-8
//! character's bytes, each read as a character of a code page and written back as UTF-8? The
//! expression built here from the readings' tables says it the way the classic Latin-1
//! expression does (`\xC3 [\x82-\x9F] \xC2 [\x80-\xBF]` and its kin, for ISO-8859-1 alone), for
//! any set of readings, Windows-1252's extras and mixed readings included, and with the
//! CESU-8 pairs the matcher accepts. It is the specification the tests hold the fast code to,
//! and a pattern users can take to `grep -P`, `rg` or a database's `REGEXP`.

use std::fmt::Write;

use super::codepage::Readings;

/// The continuation bytes a lead byte allows next: UTF-8's well-formedness (no overlong form,
/// no surrogate, nothing above U+10FFFF) lives in the range after `E0`, `ED`, `F0` and `F4`.
fn second_bytes(lead: u8) -> (u8, u8) {
    match lead {
        0xE0 => (0xA0, 0xBF),
        0xED => (0x80, 0x9F),
        0xF0 => (0x90, 0xBF),
        0xF4 => (0x80, 0x8F),
        _ => (0x80, 0xBF),
    }
}

/// How many continuation bytes follow `lead`.
fn continuations(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 1,
        0xE0..=0xEF => 2,
        _ => 3,
    }
}

/// The garbled forms of the bytes `low..=high` under `readings`, as one alternation (or
/// `None` when no reading produces any of them).
fn garbled(readings: &Readings, low: u8, high: u8) -> Option<String> {
    // The characters the matcher maps back to a byte: the readings' reverse index.
    let mut forms: Vec<Vec<u8>> = readings
        .entries()
        .filter(|(_, origin)| (low..=high).contains(&origin.byte))
        .map(|(c, _)| c.encode_utf8(&mut [0; 4]).as_bytes().to_vec())
        .collect();
    forms.sort();
    forms.dedup();
    if forms.is_empty() {
        return None;
    }
    Some(alternation(&forms))
}

/// `(?:a|b|...)` of byte strings, written with `\xHH` escapes; forms that differ only in
/// their last byte are merged into a class, so the expression stays readable.
fn alternation(forms: &[Vec<u8>]) -> String {
    let mut groups: Vec<(&[u8], Vec<u8>)> = Vec::new();
    for form in forms {
        let Some((&last, head)) = form.split_last() else {
            continue;
        };
        match groups.last_mut() {
            Some((prefix, lasts)) if *prefix == head => lasts.push(last),
            _ => groups.push((head, vec![last])),
        }
    }
    let mut out = String::from("(?:");
    for (k, (prefix, lasts)) in groups.iter().enumerate() {
        if k > 0 {
            out.push('|');
        }
        for &b in *prefix {
            let _ = write!(out, "\\x{b:02X}");
        }
        out.push_str(&class(lasts));
    }
    out.push(')');
    out
}

/// A byte class of sorted bytes, with runs written as ranges.
fn class(bytes: &[u8]) -> String {
    if let [b] = bytes {
        return format!("\\x{b:02X}");
    }
    let mut out = String::from("[");
    let mut k = 0;
    while k < bytes.len() {
        let start = bytes[k];
        let mut end = start;
        while k + 1 < bytes.len() && bytes[k + 1] == end.wrapping_add(1) {
            k += 1;
            end = bytes[k];
        }
        match end - start {
            0 => {
                let _ = write!(out, "\\x{start:02X}");
            }
            _ => {
                let _ = write!(out, "\\x{start:02X}-\\x{end:02X}");
            }
        }
        k += 1;
    }
    out.push(']');
    out
}

/// The expression that matches exactly the double-encoded characters the matcher finds under
/// `readings`, one match per character, in the syntax byte-oriented engines share (`(?:)`,
/// classes, `\xHH` for a byte): Rust's `regex::bytes` needs Unicode off (`(?-u)` before
/// it), as `rg` does (`--no-unicode`); PCRE takes it as it is on bytes (`grep -P` under the
/// C locale).
pub fn pattern(readings: &Readings) -> String {
    let mut branches = Vec::new();
    let any_continuation = garbled(readings, 0x80, 0xBF);
    for lead in 0xC2..=0xF4u8 {
        let (Some(lead_form), Some(rest)) = (garbled(readings, lead, lead), &any_continuation)
        else {
            continue;
        };
        let (low, high) = second_bytes(lead);
        let Some(second) = garbled(readings, low, high) else {
            continue;
        };
        let mut branch = lead_form;
        branch.push_str(&second);
        for _ in 1..continuations(lead) {
            branch.push_str(rest);
        }
        branches.push(branch);
    }
    // CESU-8: a character beyond the BMP as its two surrogates, three bytes each: `ED A0..AF
    // xx` then `ED B0..BF xx`, each garbled.
    if let (Some(ed), Some(high), Some(low), Some(rest)) = (
        garbled(readings, 0xED, 0xED),
        garbled(readings, 0xA0, 0xAF),
        garbled(readings, 0xB0, 0xBF),
        &any_continuation,
    ) {
        branches.insert(0, format!("{ed}{high}{rest}{ed}{low}{rest}"));
    }
    format!("(?:{})", branches.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::codepage::LATIN1;

    #[test]
    fn latin1_alone_gives_the_classic_expression() {
        let readings = Readings::new(&[&LATIN1]).unwrap();
        let pattern = pattern(&readings);
        // Under ISO-8859-1 each byte is the character of the same number: `Â` is `C3 82`,
        // `\x80` is `C2 80`, so the branch for the lead bytes `C2..DF` is the classic one.
        assert!(
            pattern.contains("(?:\\xC3\\x82)(?:\\xC2[\\x80-\\xBF])"),
            "{pattern}"
        );
        assert!(
            pattern.contains("(?:\\xC3\\xA0)(?:\\xC2[\\xA0-\\xBF])(?:\\xC2[\\x80-\\xBF])"),
            "{pattern}"
        );
        assert!(
            !pattern.contains("\\xE2"),
            "no Windows-1252 extras: {pattern}"
        );
    }

    #[test]
    fn classes_write_runs_as_ranges() {
        assert_eq!(class(&[0x80, 0x81, 0x82, 0x90]), "[\\x80-\\x82\\x90]");
        assert_eq!(class(&[0xA9]), "\\xA9");
    }
}
