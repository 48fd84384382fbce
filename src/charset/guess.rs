//! A second opinion on chardetng's guess, and how far to trust the answer.
//!
//! chardetng is the base, but it knows no x-mac-cyrillic, KOI8-R or ISO-8859-15, and it gives
//! no score. Both gaps are filled with data learnt from real text by `benches/train_detect.py`
//! (`guess_tables.rs`), not with rules:
//!
//! - one byte table per single-byte encoding and language written in it: how likely each
//!   non-ASCII byte is after an ASCII letter, after another non-ASCII byte, or after anything
//!   else. An encoding scores as the language that fits the sample best (a mixture of its
//!   languages would blur French into Czech). When chardetng's guess is one of the tables'
//!   encodings, the answer is the encoding that fits best among those that decode the sample
//!   cleanly, chardetng's own choice with a bonus: it is overruled only by clearly better
//!   evidence;
//! - a logistic model of the chance that the answer is right, from how many non-ASCII bytes
//!   there are, whether the answer decodes them cleanly, by how much its table beats the
//!   next, how well it fits, and whether the tables and chardetng agree. A couple of accented
//!   letters get a low score; "too little evidence" is then the honest answer.
//!
//! Multi-byte guesses (CJK) are chardetng's alone: their structure is evidence the byte tables
//! would only blur; the logistic model still scores them.

use encoding_rs::Encoding;

use super::guess_tables::{CALIBRATION, CHARDETNG_BONUS, TABLES};
use super::labels::KnownEncoding;

/// Where a non-ASCII byte stands: after an ASCII letter, after another non-ASCII byte, or after
/// anything else (a space, punctuation, the start). Accented Latin letters sit among ASCII
/// letters; Cyrillic, Greek or Arabic ones among each other.
const CLASSES: usize = 3;
const AFTER_LETTER: usize = 0;
const AFTER_NON_ASCII: usize = 1;
const AFTER_OTHER: usize = 2;

/// The largest margin between two tables, in centinats, that the model tells apart; beyond
/// it more evidence changes nothing.
const MARGIN_CAP: i64 = 10_000;

/// The lowest fit (mean log-probability per non-ASCII byte, in nats) the model tells apart:
/// below it the sample is unlike every language the tables know.
const FIT_FLOOR: f64 = -20.0;

/// One language's table in one encoding: log-probabilities in centinats (hundredths of a nat)
/// of each non-ASCII byte, `[class][byte - 0x80]`, the classes as [`CLASSES`] lists them.
pub(super) struct ByteTable {
    /// The encoding, by the name `encoding_rs` (or, for a DOS page it lacks, glibc) gives it.
    pub(super) encoding: &'static str,
    /// The language the table was learnt from, as the locale directories name it.
    pub(super) language: &'static str,
    pub(super) log_p: [[i16; 128]; CLASSES],
}

/// How well an encoding fits a sample: the score of its best-fitting language.
#[derive(Clone, Copy)]
struct EncodingScore {
    encoding: KnownEncoding,
    language: &'static str,
    score: i64,
}

/// Each tabled encoding once, in the tables' order, scored by its best-fitting language.
fn encoding_scores(counts: &ByteCounts) -> Vec<EncodingScore> {
    let mut scores: Vec<EncodingScore> = Vec::new();
    for table in &TABLES {
        let Some(encoding) = KnownEncoding::for_label(table.encoding) else {
            continue;
        };
        let this = EncodingScore {
            encoding,
            language: table.language,
            score: counts.score(table),
        };
        match scores.iter_mut().find(|seen| seen.encoding == encoding) {
            Some(best) if best.score < this.score => *best = this,
            Some(_) => {}
            None => scores.push(this),
        }
    }
    scores
}

/// The non-ASCII bytes of a sample, counted by what precedes them.
struct ByteCounts {
    /// The cells that occur, as `(class, byte - 0x80, count)`: a sample holds a few dozen of
    /// the 384, and every table is scored over these alone.
    occupied: Vec<(usize, usize, u64)>,
    non_ascii: u64,
}

impl ByteCounts {
    /// Counts `samples`, each read from its own start (they are pieces of a file, not
    /// neighbours).
    fn of(samples: &[&[u8]]) -> Self {
        let mut cells = [[0u64; 128]; CLASSES];
        let mut non_ascii = 0;
        for sample in samples {
            let mut class = AFTER_OTHER;
            for &byte in *sample {
                if byte >= 0x80 {
                    if let Some(cell) = cells
                        .get_mut(class)
                        .and_then(|row| row.get_mut(usize::from(byte - 0x80)))
                    {
                        *cell += 1;
                    }
                    non_ascii += 1;
                    class = AFTER_NON_ASCII;
                } else if byte.is_ascii_alphabetic() {
                    class = AFTER_LETTER;
                } else {
                    class = AFTER_OTHER;
                }
            }
        }
        let occupied = cells
            .iter()
            .enumerate()
            .flat_map(|(class, row)| {
                row.iter()
                    .enumerate()
                    .filter(|&(_, &count)| count > 0)
                    .map(move |(byte, &count)| (class, byte, count))
            })
            .collect();
        Self {
            occupied,
            non_ascii,
        }
    }

    /// The log-likelihood of the counts under `table`, in centinats.
    fn score(&self, table: &ByteTable) -> i64 {
        self.occupied
            .iter()
            .map(|&(class, byte, count)| {
                let log_p = table
                    .log_p
                    .get(class)
                    .and_then(|row| row.get(byte))
                    .copied()
                    .unwrap_or(i16::MIN);
                i64::try_from(count)
                    .unwrap_or(i64::MAX)
                    .saturating_mul(i64::from(log_p))
            })
            .fold(0i64, i64::saturating_add)
    }
}

/// The answer to a sample chardetng guessed: the encoding, whether it decodes the sample
/// cleanly, and the chance that it is right.
pub(crate) struct Ranked {
    pub(crate) encoding: KnownEncoding,
    pub(crate) decodes_cleanly: bool,
    pub(crate) probability: f64,
    pub(crate) non_ascii: u64,
    /// The language whose table fits the answer best, when the tables ranked it.
    pub(crate) language: Option<&'static str>,
}

/// Re-ranks chardetng's `guess` for `samples` by the byte tables (if it is one of their
/// encodings), `decodes` telling whether an encoding decodes the samples cleanly, and scores
/// the answer.
pub(crate) fn rank(
    samples: &[&[u8]],
    guess: &'static Encoding,
    decodes: impl Fn(KnownEncoding) -> bool,
) -> Ranked {
    let chardetng = KnownEncoding::Whatwg(guess);
    let counts = ByteCounts::of(samples);
    let n = counts.non_ascii;
    let tabled = TABLES.iter().any(|table| table.encoding == guess.name());
    let unranked = |clean: bool, tabled: bool| {
        let x = features(n, clean, tabled, 0, true, 0.0);
        Ranked {
            encoding: chardetng,
            decodes_cleanly: clean,
            probability: probability(&x),
            non_ascii: n,
            language: None,
        }
    };
    if !tabled {
        return unranked(decodes(chardetng), false);
    }
    let mut ranked: Vec<(i64, EncodingScore)> = encoding_scores(&counts)
        .into_iter()
        .map(|fitted| {
            let bonus = if fitted.encoding == chardetng {
                CHARDETNG_BONUS
            } else {
                0
            };
            (fitted.score.saturating_add(bonus), fitted)
        })
        .collect();
    // Stable: a tie keeps the tables' order.
    ranked.sort_by_key(|&(adjusted, _)| std::cmp::Reverse(adjusted));
    let mut clean = ranked
        .into_iter()
        .filter(|(_, fitted)| decodes(fitted.encoding));
    let Some((best, fitted)) = clean.next() else {
        return unranked(false, true);
    };
    let margin = clean
        .next()
        .map_or(MARGIN_CAP, |(next, _)| best.saturating_sub(next));
    let fit = if n == 0 {
        0.0
    } else {
        fitted.score as f64 / (100.0 * n as f64)
    };
    let x = features(n, true, true, margin, fitted.encoding == chardetng, fit);
    Ranked {
        encoding: fitted.encoding,
        decodes_cleanly: true,
        probability: probability(&x),
        non_ascii: n,
        language: Some(fitted.language),
    }
}

/// The logistic model's inputs, in the order of its weights.
fn features(
    non_ascii: u64,
    clean: bool,
    tabled: bool,
    margin: i64,
    agrees: bool,
    fit: f64,
) -> [f64; 7] {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    [
        1.0,
        (non_ascii as f64).ln_1p(),
        flag(clean),
        flag(tabled),
        (margin.clamp(0, MARGIN_CAP) as f64 / 100.0).ln_1p(),
        flag(agrees),
        fit.max(FIT_FLOOR),
    ]
}

fn probability(x: &[f64; 7]) -> f64 {
    let z: f64 = x.iter().zip(&CALIBRATION).map(|(x, w)| x * w).sum();
    1.0 / (1.0 + (-z.clamp(-30.0, 30.0)).exp())
}

/// What a statistical guess of `sample` rests on: chardetng's own guess, whether it decodes
/// the sample cleanly, the non-ASCII byte count, and each byte table's encoding, score (in
/// centinats) and whether that encoding decodes the sample cleanly. For the script that fits
/// the bonus and the logistic model (`benches/train_detect.py`), through the
/// `detect_features` bench target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GuessFeatures {
    /// chardetng's guess.
    pub chardetng: &'static str,
    /// Whether chardetng's guess decodes the sample cleanly.
    pub chardetng_clean: bool,
    /// The non-ASCII bytes of the sample.
    pub non_ascii: u64,
    /// Each tabled encoding, its best language's score and whether it decodes the sample
    /// cleanly.
    pub tables: Vec<(&'static str, i64, bool)>,
}

/// [`GuessFeatures`] of `sample`, read whole.
pub fn guess_features(sample: &[u8]) -> GuessFeatures {
    let guess = super::detect::chardetng_guess(&[sample]);
    let counts = ByteCounts::of(&[sample]);
    let samples = [sample];
    let clean = super::detect::CleanDecoding::of(&samples);
    let decodes = |encoding| clean.by(encoding);
    GuessFeatures {
        chardetng: guess.name(),
        chardetng_clean: decodes(KnownEncoding::Whatwg(guess)),
        non_ascii: counts.non_ascii,
        tables: encoding_scores(&counts)
            .into_iter()
            .map(|fitted| {
                let encoding = fitted.encoding;
                (encoding.name(), fitted.score, decodes(encoding))
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_names_an_encoding_by_its_own_name_and_a_language_once() {
        let mut seen = std::collections::HashSet::new();
        for table in &TABLES {
            let encoding = KnownEncoding::for_label(table.encoding);
            assert_eq!(encoding.map(KnownEncoding::name), Some(table.encoding));
            assert!(!table.language.is_empty());
            assert!(
                seen.insert((table.encoding, table.language)),
                "{} {}",
                table.encoding,
                table.language
            );
        }
    }

    #[test]
    fn every_table_is_a_distribution() {
        for table in &TABLES {
            let total: f64 = table
                .log_p
                .iter()
                .flatten()
                .map(|&centinats| (f64::from(centinats) / 100.0).exp())
                .sum();
            // Rounding to centinats moves each cell by at most half a percent.
            assert!(
                (0.98..=1.02).contains(&total),
                "{}: {total}",
                table.encoding
            );
            assert!(table.log_p.iter().flatten().all(|&v| v < 0));
        }
    }

    #[test]
    fn the_calibration_is_finite_and_grows_with_the_evidence() {
        assert!(CALIBRATION.iter().all(|w| w.is_finite()));
        let few = probability(&features(2, true, true, 300, true, -3.0));
        let many = probability(&features(400, true, true, 5000, true, -3.0));
        assert!(few < many, "{few} {many}");
    }

    fn ranked(text: &str, encoding: &'static Encoding, guess: &'static Encoding) -> Ranked {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable);
        rank(&[&bytes], guess, |e| {
            super::super::detect::decodes_cleanly(e, &bytes)
        })
    }

    #[test]
    fn mac_cyrillic_is_told_from_windows_1251() {
        let text = "Программа Установки Не Смогла Найти Файл. Проверьте Путь И Повторите Попытку, \
                    Я Подожду.";
        let answer = ranked(text, encoding_rs::X_MAC_CYRILLIC, encoding_rs::WINDOWS_1251);
        assert_eq!(
            answer.encoding,
            KnownEncoding::Whatwg(encoding_rs::X_MAC_CYRILLIC)
        );
        let answer = ranked(text, encoding_rs::WINDOWS_1251, encoding_rs::WINDOWS_1251);
        assert_eq!(
            answer.encoding,
            KnownEncoding::Whatwg(encoding_rs::WINDOWS_1251)
        );
    }

    #[test]
    fn russian_in_koi8_is_koi8_r_and_ukrainian_koi8_u() {
        let russian = "Не удалось открыть файл: нет такого файла или каталога. Повторить?";
        let answer = ranked(russian, encoding_rs::KOI8_R, encoding_rs::KOI8_U);
        assert_eq!(answer.encoding, KnownEncoding::Whatwg(encoding_rs::KOI8_R));
        let ukrainian = "Не вдалося відкрити файл: немає такого файла або каталогу. Її ґанок є.";
        let answer = ranked(ukrainian, encoding_rs::KOI8_U, encoding_rs::KOI8_U);
        assert_eq!(answer.encoding, KnownEncoding::Whatwg(encoding_rs::KOI8_U));
    }

    #[test]
    fn german_is_windows_1252_with_high_probability() {
        let long = "Die Datei konnte nicht geöffnet werden, weil sie größer ist als erlaubt. \
                    Möchten Sie die Änderungen übernehmen und später fortfahren?"
            .repeat(3);
        let answer = ranked(&long, encoding_rs::WINDOWS_1252, encoding_rs::WINDOWS_1252);
        assert_eq!(
            answer.encoding,
            KnownEncoding::Whatwg(encoding_rs::WINDOWS_1252)
        );
        assert!(answer.probability > 0.9, "{}", answer.probability);
    }

    #[test]
    fn french_is_not_read_as_czech() {
        // Each encoding scores as its best language: a table mixing ten Western languages
        // fitted "café crème brûlée" worse than ISO-8859-2's Czech and Hungarian (`č`, `ű`).
        let answer = ranked(
            "café crème brûlée",
            encoding_rs::WINDOWS_1252,
            encoding_rs::WINDOWS_1252,
        );
        assert_eq!(
            answer.encoding,
            KnownEncoding::Whatwg(encoding_rs::WINDOWS_1252)
        );
    }

    #[test]
    fn multi_byte_guesses_are_chardetngs_alone() {
        let answer = ranked(
            "日本語のテキストです。",
            encoding_rs::SHIFT_JIS,
            encoding_rs::SHIFT_JIS,
        );
        assert_eq!(
            answer.encoding,
            KnownEncoding::Whatwg(encoding_rs::SHIFT_JIS)
        );
        assert!(answer.decodes_cleanly);
    }
}
