//! The text as a scope: where most of a buffer's lines are certainly garbled, a lone letter on
//! a line of its own borrows their evidence.
//!
//! A file garbled as a whole (a translated man page, a log, a subtitle file that went through
//! a latin1 connection) holds lines with nothing on them but one garbled letter: `Ð¸` for the
//! Russian conjunction `и`, `Ñ–` for Ukrainian `і`, `SÄ…` for Polish `Są`, a word in capitals
//! ending in `Å®` for Czech `Ů`. Alone, each is ambiguous, since correct text could look the
//! same, and its field holds nothing else. Its file says more: when many of its lines are
//! certainly garbled and its non-ASCII text is mostly runs, the letter is far likelier
//! garbled than a pair of Latin-1 characters a writer put there.
//!
//! This is the scope of [`super::scope`] with the buffer as the scope and its lines as the
//! values, under the same conditions: the run is ambiguous, its field holds nothing for or
//! against it, its repair fits where it stands, and its line holds no other non-ASCII text.
//! Besides, the buffer's correct non-ASCII text (outside every run) must be less than its
//! runs: a file of correct text with a few garbled lines pasted in lends nothing.
//!
//! A dump is not judged so: its columns are its scopes, and a column with no garbled value
//! lends none, whatever the other columns hold.
//!
//! Runs are passed on as they come until the first that could borrow where the text so far
//! already has a line certainly garbled and is mostly runs; from there they are recorded and
//! passed on at the end of the buffer, once the lines after it have been counted. A buffer of
//! correct text, or of correct text with some garbled values, costs a few counters per run
//! and a count of its non-ASCII bytes only as far as its runs could outweigh them, and is
//! never held back. The price is that a lone letter before that point borrows nothing (a
//! text's first lines are a title or a heading, and hold words).

use std::ops::Range;

use super::field::FieldEvidence;
use super::recorded::RecordedScan;
use super::scanner::{Run, Sink};
use super::scope::{Tally, may_borrow};

/// A sink that lends the buffer's evidence to lone letters before passing runs on to `sink`.
pub(crate) struct TextScope<'s, S> {
    sink: &'s mut S,
    tally: Tally,
    /// Which line the last run seen lies on, counted from 0 (only whether two runs share a
    /// line matters), and where that run ends.
    line: u64,
    last_end: usize,
    /// The runs of that line passed on, until recording starts: those of the line of the
    /// first run that could borrow, which its line's other runs are then checked against.
    line_runs: Vec<Range<usize>>,
    /// The bytes of every run seen (all non-ASCII), and the characters they repair to: the
    /// same text as it should be, to weigh against the correct text beside it.
    run_bytes: usize,
    repaired_chars: usize,
    /// The non-ASCII bytes of the buffer up to `counted_to`, counted only once a run could
    /// borrow.
    non_ascii: usize,
    counted_to: usize,
    /// The runs from the first that could borrow on.
    recorded: Option<RecordedScan>,
}

impl<'s, S: Sink> TextScope<'s, S> {
    pub(crate) fn new(sink: &'s mut S) -> TextScope<'s, S> {
        TextScope {
            sink,
            tally: Tally::default(),
            line: 0,
            last_end: 0,
            line_runs: Vec::new(),
            run_bytes: 0,
            repaired_chars: 0,
            non_ascii: 0,
            counted_to: 0,
            recorded: None,
        }
    }

    /// Whether the buffer's correct non-ASCII text up to `end` is less than its runs so far,
    /// both as they should read: each repaired character weighs two bytes, the fewest a
    /// character beyond ASCII takes, so that the runs are never weighed more than they are.
    ///
    /// Bytes are counted only until the count answers: once the non-ASCII bytes counted reach
    /// the runs' weight, more bytes can only add to them. A text of mostly
    /// correct non-ASCII is so counted only as far as its runs reach, and each byte is counted
    /// once, however often this is asked.
    fn mostly_runs(&mut self, input: &[u8], end: usize) -> bool {
        const CHUNK: usize = 4096;
        let enough = self.run_bytes + 2 * self.repaired_chars;
        while self.counted_to < end {
            if self.non_ascii >= enough {
                return false;
            }
            let to = end.min(self.counted_to + CHUNK);
            self.non_ascii += count_non_ascii(&input[self.counted_to..to]);
            self.counted_to = to;
        }
        self.non_ascii < enough
    }
}

/// How many bytes of `bytes` are not ASCII: their high bits added up in one byte per block, a
/// loop the compiler turns into vector additions. A block fits in a byte's count and is whole
/// vectors of every width, so that no block is left to a byte-at-a-time tail.
fn count_non_ascii(bytes: &[u8]) -> usize {
    const BLOCK: usize = 128;
    bytes
        .chunks(BLOCK)
        .map(|block| usize::from(block.iter().fold(0u8, |sum, &b| sum + (b >> 7))))
        .sum()
}

/// Whether `bytes` holds a newline: most spaces between runs are a few bytes, too few to pay
/// for a vector search.
fn holds_newline(bytes: &[u8]) -> bool {
    if bytes.len() < 16 {
        bytes.contains(&b'\n')
    } else {
        memchr::memchr(b'\n', bytes).is_some()
    }
}

/// The line of `input` that holds `span` (runs hold no newline).
fn line_holding(input: &[u8], span: &Range<usize>) -> Range<usize> {
    let start = memchr::memrchr(b'\n', &input[..span.start]).map_or(0, |at| at + 1);
    let end = memchr::memchr(b'\n', &input[span.end..]).map_or(input.len(), |at| span.end + at);
    start..end
}

impl<S: Sink> Sink for TextScope<'_, S> {
    type Error = S::Error;

    fn run(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), S::Error> {
        // A newline between the last run and this one starts a line: runs come in input
        // order, so each byte between them is looked at once.
        let new_line = input
            .get(self.last_end..run.span.start)
            .is_none_or(holds_newline);
        self.last_end = run.span.end;
        if new_line {
            self.line += 1;
            if self.recorded.is_none() {
                self.line_runs.clear();
            }
        }
        let value = self.line;
        self.tally.add(value, run.verdict, run.repaired, run.field);
        self.run_bytes += run.span.len();
        self.repaired_chars += run.chars.len();
        if self.recorded.is_none()
            && self.tally.garbled() > 0
            && may_borrow(
                input,
                &run.span,
                run.chars,
                run.verdict,
                run.repaired,
                run.field,
            )
            && self.mostly_runs(input, run.span.end)
        {
            self.recorded = Some(RecordedScan::default());
        }
        match &mut self.recorded {
            Some(recorded) => {
                let Ok(()) = Sink::run(recorded, input, run);
                Ok(())
            }
            None => {
                self.line_runs.push(run.span.clone());
                self.sink.run(input, run)
            }
        }
    }

    fn end(&mut self, input: &[u8]) -> Result<(), S::Error> {
        if let Some(mut recorded) = self.recorded.take() {
            if let Some(garbled) = self.tally.lends()
                && self.mostly_runs(input, input.len())
            {
                recorded.lend(
                    input,
                    &self.line_runs,
                    |span| line_holding(input, span),
                    FieldEvidence::GarbledText(garbled),
                );
            }
            recorded.replay_runs(input, self.sink)?;
        }
        self.sink.end(input)
    }
}

#[cfg(test)]
mod tests {
    use crate::mojibake::codepage::{WINDOWS_1252, garble};
    use crate::mojibake::{Readings, Scanner, Strictness, repair};

    fn garbled(text: &str) -> String {
        garble(text.as_bytes(), |_| &WINDOWS_1252).unwrap_or_default()
    }

    fn fixed(strictness: Strictness, text: &str) -> String {
        let scanner = Scanner::new(Readings::western(), strictness);
        String::from_utf8_lossy(&repair(&scanner, text.as_bytes())).into_owned()
    }

    /// Lines of a translated man page, each certainly garbled on its own evidence.
    const RUSSIAN: [&str; 5] = [
        "Полная документация доступна локально",
        "Русский перевод этой страницы руководства",
        "Этот перевод является бесплатной документацией",
        "Стандартную общественную лицензию",
        "прочитайте условия",
    ];

    #[test]
    fn non_ascii_bytes_are_counted() {
        for text in [
            "",
            "abc",
            "é",
            "日本語 and ASCII",
            "Ð¿Ñ€Ð¸Ð²ÐµÑ‚, a longer line of text ÿ",
        ] {
            for start in 0..text.len().min(9) {
                let bytes = &text.as_bytes()[start..];
                let expected = bytes.iter().filter(|&&b| b >= 0x80).count();
                assert_eq!(
                    super::count_non_ascii(bytes),
                    expected,
                    "{text:?} from {start}"
                );
            }
        }
        // Past what one block's byte can count, and at the edges of blocks.
        for len in [
            127, 128, 129, 255, 256, 257, 1000, 2039, 2040, 2041, 4080, 5000,
        ] {
            assert_eq!(super::count_non_ascii(&vec![0xFF; len]), len);
            let alternate: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { 0x80 } else { b'a' })
                .collect();
            assert_eq!(super::count_non_ascii(&alternate), len.div_ceil(3));
        }
    }

    #[test]
    fn a_lone_letter_on_its_line_borrows_from_a_garbled_text() {
        let mut truth: Vec<&str> = RUSSIAN.to_vec();
        truth.insert(2, "и");
        // On a line with a garbled word before it in another field, too.
        truth.push("командою \"cd /\" і \"cd ..\"");
        let truth = truth.join("\n");
        assert_eq!(fixed(Strictness::Balanced, &garbled(&truth)), truth);
        // Every other strictness decides alone: strict leaves the letter, lenient repairs it.
        assert_ne!(fixed(Strictness::Strict, &garbled(&truth)), truth);
        assert_eq!(fixed(Strictness::Lenient, &garbled(&truth)), truth);
    }

    #[test]
    fn a_text_of_few_garbled_lines_or_much_correct_text_lends_nothing() {
        // A lone letter before the first garbled line is passed on as it is judged alone.
        let first = [
            "и", RUSSIAN[0], RUSSIAN[1], RUSSIAN[2], RUSSIAN[3], RUSSIAN[4],
        ]
        .join("\n");
        assert!(fixed(Strictness::Balanced, &garbled(&first)).starts_with("Ð¸\n"));
        // Three garbled lines are too few.
        let few = [RUSSIAN[0], RUSSIAN[1], "и", RUSSIAN[2]].join("\n");
        assert!(fixed(Strictness::Balanced, &garbled(&few)).contains("Ð¸"));
        // Five garbled lines among more correct non-ASCII text: a correct file with a few
        // garbled lines pasted in.
        let mut text: Vec<String> = RUSSIAN.iter().map(|line| garbled(line)).collect();
        text.push(garbled("и"));
        text.extend(RUSSIAN.iter().chain(&RUSSIAN).map(|line| line.to_string()));
        let text = text.join("\n");
        assert!(fixed(Strictness::Balanced, &text).contains("\nÐ¸\n"));
        // A lone letter beside correct non-ASCII text on its own line borrows nothing.
        let mut lines: Vec<&str> = RUSSIAN.to_vec();
        lines.push("и — или");
        let truth = lines.join("\n");
        let mut garbled_text = garbled(&RUSSIAN.join("\n"));
        garbled_text.push('\n');
        garbled_text.push_str(&format!("{} — или", garbled("и")));
        let out = fixed(Strictness::Balanced, &garbled_text);
        assert_ne!(out, truth);
        assert!(out.ends_with("Ð¸ — или"));
    }
}
