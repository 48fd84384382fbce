//! Property tests of the invariants: repairing double-encoded text gives the original; clean
//! text is never changed; arbitrary bytes come out identical outside the runs reported repaired;
//! the fast matcher finds exactly what the byte pattern's regular expression matches.

use proptest::prelude::*;
use undouble::mojibake::candidates::{CandidateFilter, Search};
use undouble::mojibake::codepage::{CodePage, LATIN1, WINDOWS_1252, garble};
use undouble::mojibake::matcher::match_at;
use undouble::mojibake::pattern::pattern;
use undouble::mojibake::{
    RawBytes, Readings, RepairPatches, Run, Scanner, Sink, Strictness, repair,
};

/// Words of real text in several scripts, lowercase Latin words among them; joined by spaces
/// and punctuation they make "clean multilingual text".
const WORDS: &[&str] = &[
    "café",
    "naïve",
    "über",
    "straße",
    "façade",
    "élève",
    "señor",
    "ação",
    "coração",
    "łódź",
    "żółć",
    "příliš",
    "žluťoučký",
    "kůň",
    "ılık",
    "şimdi",
    "göç",
    "việt",
    "tiếng",
    "ngày",
    "москва",
    "привет",
    "в",
    "съешь",
    "ещё",
    "αλφάβητο",
    "ελλάδα",
    "עברית",
    "שלום",
    "مرحبا",
    "日本語",
    "東京",
    "中文",
    "한국어",
    "ひらがな",
    "カタカナ",
    "😀",
    "👍🏽",
    "€5",
    "don’t",
    "“quoted”",
    "—",
    "…",
    "naïveté",
    "crème brûlée",
    "Zürich",
    "São",
    "İstanbul",
    "Azərbaycan",
    "şəhər",
    "Türkiyə",
    "ɔdɔ",
    "ɛyɛ",
    "Hawaiʻi",
    "ʃəˈnoʊ",
    "Ærø",
    "Ångström",
    "12°C",
    "½",
    "©2024",
    "x²",
    "µm",
    "Ελλάδα",
    "ПРИВЕТ",
    "ÉCOLE",
    "CAFÉ",
];

fn clean_text() -> impl Strategy<Value = String> {
    let separator = prop::sample::select(vec![" ", " ", ", ", ". ", "\n", "\t", " - ", "/"]);
    prop::collection::vec((prop::sample::select(WORDS), separator), 1..40).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(word, sep)| [word, sep])
            .collect::<String>()
    })
}

/// A reading for one layer: one page throughout, or a page chosen per byte.
fn page_choice() -> impl Strategy<Value = Vec<bool>> {
    prop::collection::vec(any::<bool>(), 1..64)
}

fn garble_with(text: &str, choice: &[bool]) -> String {
    let mut i = 0;
    garble(text.as_bytes(), |_| -> &CodePage {
        i += 1;
        if choice[i % choice.len()] {
            &LATIN1
        } else {
            &WINDOWS_1252
        }
    })
    .expect("both pages define every byte")
}

fn scanner(strictness: Strictness) -> Scanner {
    Scanner::new(Readings::western(), strictness)
}

/// Records the repaired runs, to rebuild the output from the input independently.
struct RepairedSpans(Vec<(std::ops::Range<usize>, Vec<u8>)>);

impl Sink for RepairedSpans {
    type Error = std::convert::Infallible;
    fn run(&mut self, _input: &[u8], run: &Run<'_>) -> Result<(), Self::Error> {
        if run.repaired {
            let mut replacement = Vec::new();
            run.write_replacement(&mut replacement);
            self.0.push((run.span.clone(), replacement));
        }
        Ok(())
    }
}

/// The runs of bytes that are not UTF-8, with what each converted one writes.
#[derive(Default)]
struct RawRuns(Vec<(std::ops::Range<usize>, Option<String>)>);

impl Sink for RawRuns {
    type Error = std::convert::Infallible;

    fn run(&mut self, _input: &[u8], run: &Run<'_>) -> Result<(), Self::Error> {
        if run.is_not_utf8() {
            let replacement = run
                .repaired
                .then(|| run.chars.iter().map(|c| c.original).collect());
            self.0.push((run.span.clone(), replacement));
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Clean multilingual text, correctly encoded, is never changed.
    #[test]
    fn clean_text_is_unchanged(text in clean_text()) {
        let repaired = repair(&scanner(Strictness::Balanced), text.as_bytes());
        prop_assert_eq!(String::from_utf8_lossy(&repaired), text.as_str());
    }

    /// Double-encoded text, every layer through any mix of the two pages, repairs to the
    /// original, at any strictness short of `strict`, when its field holds evidence: here one
    /// field (no newline, tab or quote) that starts with unmistakable mojibake, as a garbled
    /// database value does. A lone ambiguous character in a field of its own is left alone by
    /// design (`Ð²` may be correct text).
    #[test]
    fn double_encoded_text_repairs_to_the_original(
        text in clean_text(),
        layers in prop::collection::vec(page_choice(), 1..4),
    ) {
        let evidence = "Ça coûte 5 € — «déjà» vu. ";
        let original = format!("{evidence}{}", text.replace(['\n', '\t'], " "));
        let mut garbled = original.clone();
        for choice in &layers {
            garbled = garble_with(&garbled, choice);
        }
        for strictness in [Strictness::Balanced, Strictness::Lenient] {
            let repaired = repair(&scanner(strictness), garbled.as_bytes());
            prop_assert_eq!(String::from_utf8_lossy(&repaired), original.as_str());
        }
    }

    /// Arbitrary bytes: no panic, and the output is the input with exactly the reported runs
    /// replaced; every other byte (invalid UTF-8, NUL, CR/LF) is kept. The same output whether
    /// repaired into a copy or written from the input and patches (as `fix` writes files).
    #[test]
    fn arbitrary_bytes_change_only_in_repaired_runs(
        bytes in prop::collection::vec(
            prop_oneof![any::<u8>(), Just(0xC3u8), Just(0xC2u8), Just(0x80u8), Just(0xA9u8)],
            0..400,
        ),
        strictness in prop_oneof![
            Just(Strictness::Pattern),
            Just(Strictness::Lenient),
            Just(Strictness::Balanced),
            Just(Strictness::Strict),
        ],
    ) {
        let scanner = scanner(strictness);
        let mut spans = RepairedSpans(Vec::new());
        let Ok(()) = scanner.scan(&bytes, &mut spans);
        let mut expected = Vec::new();
        let mut at = 0;
        for (span, replacement) in &spans.0 {
            prop_assert!(span.start >= at);
            expected.extend_from_slice(&bytes[at..span.start]);
            expected.extend_from_slice(replacement);
            at = span.end;
        }
        expected.extend_from_slice(&bytes[at..]);
        let repaired = repair(&scanner, &bytes);
        prop_assert_eq!(repaired.as_ref(), expected.as_slice());
        let mut patches = RepairPatches::default();
        let Ok(()) = scanner.scan(&bytes, &mut patches);
        let mut patched = Vec::new();
        prop_assert!(patches.write_patched(&bytes, &mut patched).is_ok());
        prop_assert_eq!(patched, expected);
        prop_assert_eq!(patches.changed(), !spans.0.is_empty());
        // With bytes that are not UTF-8 kept, every run starts with `Â..ô` (`C3 82..B4`) or
        // a C1 control (`C2 80..9F`).
        let c1_control = bytes.windows(2).any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1]));
        if !bytes.contains(&0xC3) && !c1_control {
            let keeping = scanner.clone().with_raw_bytes(RawBytes::Keep).unwrap();
            let kept = repair(&keeping, &bytes);
            prop_assert_eq!(kept.as_ref(), bytes.as_slice());
        }
    }

    /// Arbitrary bytes: every byte that is not UTF-8 is either in a run that converts it or in
    /// one that keeps it, and what the converted runs write is UTF-8 whose single-byte
    /// characters are the very bytes they replace, read through Windows-1252.
    #[test]
    fn bytes_that_are_not_utf8_are_converted_or_kept(
        bytes in prop::collection::vec(
            prop_oneof![any::<u8>(), Just(0xE9u8), Just(0xC3u8), Just(0xE2u8), Just(0x80u8)],
            0..300,
        ),
    ) {
        let scanner = scanner(Strictness::Balanced);
        let mut raw = RawRuns::default();
        let Ok(()) = scanner.scan(&bytes, &mut raw);
        // The input with every kept piece taken out and every converted one replaced.
        let mut rest = Vec::new();
        let mut at = 0;
        for (span, replacement) in &raw.0 {
            rest.extend_from_slice(&bytes[at..span.start]);
            if let Some(replacement) = replacement {
                rest.extend_from_slice(replacement.as_bytes());
                if replacement.chars().count() == span.len() {
                    let (encoded, _, _) = encoding_rs::WINDOWS_1252.encode(replacement);
                    // Windows-1252's undefined bytes stay their C1 controls, which
                    // encoding_rs cannot encode back: compared as code points instead.
                    let undefined = replacement.chars().any(|c| ('\u{80}'..='\u{9F}').contains(&c));
                    if !undefined {
                        prop_assert_eq!(&encoded[..], &bytes[span.clone()]);
                    }
                }
            }
            at = span.end;
        }
        rest.extend_from_slice(&bytes[at..]);
        prop_assert!(std::str::from_utf8(&rest).is_ok(), "{:02X?}", rest);
    }
}

/// Where the matcher, fed by the candidate filter, finds double-encoded characters: the same
/// walk the scanner makes, one character at a time.
fn matcher_walk(readings: &Readings, input: &[u8]) -> Vec<std::ops::Range<usize>> {
    let filter = CandidateFilter::new(readings, false);
    let mut search = Search::default();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = filter.next(&mut search, input, from) {
        match match_at(readings, input, at) {
            Some(m) => {
                found.push(at..at + m.len);
                from = at + m.len;
            }
            None => from = at + 1,
        }
    }
    found
}

/// Text to hold the fast code to the expression: clean words, their garbled forms under one
/// or two layers, raw bytes, C1 controls and cut sequences, in any order.
fn mixed_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        prop::sample::select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        (prop::sample::select(WORDS), page_choice())
            .prop_map(|(w, choice)| garble_with(w, &choice).into_bytes()),
        (prop::sample::select(WORDS), page_choice()).prop_map(|(w, choice)| {
            let once = garble_with(w, &choice);
            garble_with(&once, &choice).into_bytes()
        }),
        prop::collection::vec(any::<u8>(), 0..6),
        // Any bytes read as Latin-1 and written as UTF-8: the garbled forms of well-formed
        // characters and of what UTF-8 forbids (overlong forms, surrogates, too high).
        prop::collection::vec(
            prop::sample::select(vec![
                0xC1u8, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0x80, 0x8F, 0x90, 0x9F,
                0xA0, 0xAF, 0xB0, 0xBF, b'a',
            ]),
            1..9
        )
        .prop_map(|bytes| bytes
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into_bytes()),
        prop::collection::vec(
            prop::sample::select(vec![0xC2u8, 0xC3, 0xC5, 0xE2, 0x80, 0xA9, 0xED, 0xA0, 0xB0]),
            0..8
        ),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The candidate filter and the matcher find exactly the matches of the expression that
    /// [`pattern`] generates from the code pages: no more, no fewer, under each reading.
    #[test]
    fn the_matcher_finds_what_the_expression_matches(input in mixed_bytes()) {
        for pages in [vec![&LATIN1], vec![&WINDOWS_1252], vec![&LATIN1, &WINDOWS_1252]] {
            let readings = Readings::new(&pages).expect("two pages");
            let expression = regex::bytes::Regex::new(&format!("(?-u){}", pattern(&readings))).expect("a valid expression");
            let expected: Vec<_> = expression.find_iter(&input).map(|m| m.range()).collect();
            prop_assert_eq!(matcher_walk(&readings, &input), expected);
        }
    }
}
