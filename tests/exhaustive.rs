//! Every code point U+0080..U+10FFFF (surrogates excepted), double- and triple-encoded under each
//! reading, is found and restored exactly, with the right number of layers and a reading that
//! explains it.

use undouble::mojibake::classes::{CharClass, Script, class_of};
use undouble::mojibake::codepage::{CodePage, LATIN1, WINDOWS_1252, garble};
use undouble::mojibake::counts::{CountingSink, Counts, Sequences};
use undouble::mojibake::{Readings, Scanner, Strictness, repair};

/// The ways a byte can be read: all through one page, or alternating between the two.
#[derive(Clone, Copy, Debug)]
enum Reading {
    Latin1,
    Windows1252,
    Mixed,
}

fn garble_layers(text: &str, reading: Reading, layers: usize) -> String {
    let mut out = text.to_string();
    for _ in 0..layers {
        let mut flip = false;
        let page_for = |_: u8| -> &CodePage {
            flip = !flip;
            match reading {
                Reading::Latin1 => &LATIN1,
                Reading::Windows1252 => &WINDOWS_1252,
                Reading::Mixed if flip => &LATIN1,
                Reading::Mixed => &WINDOWS_1252,
            }
        };
        out = garble(out.as_bytes(), page_for).expect("both pages define every byte");
    }
    out
}

fn all_code_points() -> impl Iterator<Item = char> {
    (0x80..=0x10FFFFu32).filter_map(char::from_u32)
}

/// Checks a batch of characters, each standing alone between spaces.
fn check_batch(scanner: &Scanner, batch: &[char], reading: Reading, layers: usize) {
    let clean: String = batch.iter().map(|c| format!(" {c}")).collect();
    let garbled: String = batch
        .iter()
        .map(|c| format!(" {}", garble_layers(&c.to_string(), reading, layers)))
        .collect();
    let repaired = repair(scanner, garbled.as_bytes());
    if repaired.as_ref() != clean.as_bytes() {
        // Find the first culprit for a readable failure.
        for c in batch {
            let one = format!(" {}", garble_layers(&c.to_string(), reading, layers));
            let fixed = repair(scanner, one.as_bytes());
            assert_eq!(
                String::from_utf8_lossy(&fixed),
                format!(" {c}"),
                "U+{:04X} {reading:?} {layers} layers",
                u32::from(*c)
            );
        }
    }
    let mut counts = Counts::default();
    let mut sink = CountingSink {
        counts: &mut counts,
        base: 0,
        sequences: Sequences::Counted,
    };
    let Ok(()) = scanner.scan(garbled.as_bytes(), &mut sink);
    assert_eq!(counts.double_encoded, batch.len() as u64);
    assert_eq!(
        counts.by_layers().get(&(layers as u8)),
        Some(&(batch.len() as u64))
    );
}

fn check_all(strictness: Strictness, keep: impl Fn(char) -> bool) {
    let scanner = Scanner::new(Readings::western(), strictness);
    let chars: Vec<char> = all_code_points().filter(|&c| keep(c)).collect();
    for reading in [Reading::Latin1, Reading::Windows1252, Reading::Mixed] {
        for layers in [1, 2] {
            for batch in chars.chunks(2048) {
                check_batch(&scanner, batch, reading, layers);
            }
        }
    }
}

#[test]
fn the_byte_pattern_restores_every_code_point() {
    check_all(Strictness::Pattern, |_| true);
}

/// The rule never rejects a letter or a symbol: at worst it calls it ambiguous.
#[test]
fn no_ordinary_character_standing_alone_is_rejected() {
    check_all(Strictness::Lenient, |c| {
        matches!(class_of(c), CharClass::Letter(_) | CharClass::Symbol)
    });
}

/// Latin letters, punctuation and symbols standing alone need no other evidence.
#[test]
fn the_default_rule_restores_latin_and_symbols_standing_alone() {
    check_all(Strictness::Balanced, |c| match class_of(c) {
        CharClass::Letter(Script::Latin) => u32::from(c) < 0x100,
        CharClass::Symbol => !c.is_whitespace() || c == '\u{a0}',
        _ => false,
    });
}

#[test]
fn quadruple_encoding_is_peeled_to_the_bottom() {
    let scanner = Scanner::new(Readings::western(), Strictness::Balanced);
    for text in ["é", "’", "Ж", "Жук", "日本", "😀"] {
        let garbled = garble_layers(text, Reading::Windows1252, 3);
        let repaired = repair(&scanner, garbled.as_bytes());
        assert_eq!(String::from_utf8_lossy(&repaired), text, "{garbled}");
    }
    // Garbled once, a lone `Ж` is `Ð–`, which correct text could hold: left alone. Under
    // certain layers it speaks for itself (a letter standing alone, where leaving the layer
    // would leave a Latin letter glued to a dash).
    let once = garble_layers("Ж", Reading::Windows1252, 1);
    assert_eq!(repair(&scanner, once.as_bytes()).as_ref(), once.as_bytes());
}
