//! What undoes a learned chain: the `fix` options (`--readings`, `--transcode --from`), or why
//! undouble cannot; and whether the repair with those options, as `fix` runs it, really gives
//! the correct text back.
//!
//! `fix` undoes rereads through the pages it has readings for, and a last conversion to a
//! legacy page by transcoding first. A conversion with more layers after it is the text of one
//! page read through another (`Ïðèâåò` for `Привет`): no double-encoded UTF-8 is left to find.

use std::borrow::Cow;
use std::fmt;

use encoding_rs::Encoding;

use super::{Chain, Page, StepKind};
use crate::mojibake::codepage::{CodePage, Readings, ReadingsError};
use crate::mojibake::{Scanner, Strictness, repair};

/// The `fix` options that undo a chain, and what they do to the garbled sample.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The readings, in the order of the layers (innermost first), without repeats; empty
    /// when no layer is a reread, where `fix`'s default readings stay.
    pub readings: Vec<&'static CodePage>,
    /// The encoding to transcode from first, when the last layer left the text in a legacy
    /// page's bytes.
    pub transcode_from: Option<&'static Encoding>,
    /// What `fix` with those options makes of the garbled sample.
    pub check: Check,
}

impl Advice {
    /// The options, as typed on the command line; empty when the defaults do.
    pub fn options(&self) -> String {
        let mut options = Vec::new();
        if let Some(encoding) = self.transcode_from {
            options.push(format!("--transcode --from {}", encoding.name()));
        }
        if !self.readings.is_empty() {
            let names: Vec<&str> = self.readings.iter().map(|page| page.name).collect();
            options.push(format!("--readings {}", names.join(",")));
        }
        if self.check == Check::RepairsWhenLenient {
            options.push("--strictness lenient".to_owned());
        }
        options.join(" ")
    }
}

/// What the repair with the advised readings makes of the garbled sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The correct text, at the default strictness.
    Repairs,
    /// Not at the default strictness (its rule holds part of the repair back as possibly
    /// correct text), but at `lenient`.
    RepairsWhenLenient,
    /// Something else even at `lenient`: the rule takes part of the sample for correct text,
    /// or the readings together read a character another way than its layer did.
    DoesNotRepair,
}

/// Why undouble cannot undo a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfixable {
    /// A reread through a page undouble has no reading for.
    NoReading(&'static Page),
    /// A last conversion to a page `fix --transcode` cannot convert from.
    NoTranscode(&'static Page),
    /// A conversion with more layers after it.
    ConvertedThenRead(&'static Page),
    /// More distinct pages than one scan can read through.
    TooManyReadings(usize),
}

impl fmt::Display for Unfixable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfixable::NoReading(page) => {
                write!(f, "undouble cannot undo a layer through {} yet", page.name)
            }
            Unfixable::NoTranscode(page) => {
                write!(f, "undouble cannot convert text from {} yet", page.name)
            }
            Unfixable::ConvertedThenRead(page) => write!(
                f,
                "the text was converted to {} and then read again: that is not double-encoded \
                 UTF-8, and undouble cannot undo it",
                page.name
            ),
            Unfixable::TooManyReadings(n) => {
                write!(
                    f,
                    "the chain reads through {n} pages: more than one scan can undo"
                )
            }
        }
    }
}

/// The `fix` options that undo `chain`, checked on `bad` against `good`; or why there are none.
pub fn advise(chain: &Chain, bad: &[u8], good: &[u8]) -> Result<Advice, Unfixable> {
    let mut readings: Vec<&'static CodePage> = Vec::new();
    let mut transcode_from = None;
    for (i, step) in chain.steps.iter().enumerate() {
        match step.kind {
            StepKind::Reread => {
                let reading = step.page.reading().ok_or(Unfixable::NoReading(step.page))?;
                if !readings.iter().any(|known| std::ptr::eq(*known, reading)) {
                    readings.push(reading);
                }
            }
            StepKind::Convert if i + 1 < chain.steps.len() => {
                return Err(Unfixable::ConvertedThenRead(step.page));
            }
            StepKind::Convert => {
                let encoding = step.page.transcode_as;
                transcode_from = Some(encoding.ok_or(Unfixable::NoTranscode(step.page))?);
            }
        }
    }
    let scan_readings = match readings.is_empty() {
        true => Ok(Readings::western()),
        false => Readings::new(&readings),
    };
    let scan_readings = scan_readings.map_err(|error| match error {
        ReadingsError::TooMany(n) => Unfixable::TooManyReadings(n),
        ReadingsError::Empty => Unfixable::TooManyReadings(0),
    })?;
    let check = check(&scan_readings, transcode_from, bad, good);
    Ok(Advice {
        readings,
        transcode_from,
        check,
    })
}

/// Repairs `bad` as `fix` would with these readings (converting it from `transcode_from`
/// first, as `--transcode` does with input that is not UTF-8), at the default strictness and
/// then at `lenient`.
fn check(
    readings: &Readings,
    transcode_from: Option<&'static Encoding>,
    bad: &[u8],
    good: &[u8],
) -> Check {
    let input: Cow<[u8]> = match transcode_from {
        Some(encoding) if std::str::from_utf8(bad).is_err() => {
            match encoding.decode_without_bom_handling_and_without_replacement(bad) {
                Some(text) => Cow::Owned(text.into_owned().into_bytes()),
                // `fix --transcode` refuses such a file (without --lossy).
                None => return Check::DoesNotRepair,
            }
        }
        _ => Cow::Borrowed(bad),
    };
    for (strictness, check) in [
        (Strictness::default(), Check::Repairs),
        (Strictness::Lenient, Check::RepairsWhenLenient),
    ] {
        let scanner = Scanner::new(readings.clone(), strictness);
        if *repair(&scanner, &input) == *good {
            return check;
        }
    }
    Check::DoesNotRepair
}

#[cfg(test)]
mod tests {
    use super::super::{MAX_LAYERS, learn};
    use super::*;

    fn advice(bad: &[u8], good: &str) -> Result<Advice, Unfixable> {
        let Some(chain) = learn(bad, good.as_bytes(), MAX_LAYERS) else {
            panic!("{bad:?}: no chain");
        };
        advise(&chain, bad, good.as_bytes())
    }

    #[test]
    fn two_western_layers_are_repaired_with_both_readings() {
        let advice = advice("cafÃƒÂ© crÃƒÂ¨me".as_bytes(), "café crème");
        assert_eq!(
            advice.as_ref().map(Advice::options).as_deref(),
            Ok("--readings latin1,cp1252")
        );
        assert_eq!(advice.map(|a| a.check), Ok(Check::Repairs));
    }

    /// An ambiguous run among capitals (`Â` and a no-break space could be correct there) that
    /// the default rule holds back, and `lenient` repairs.
    #[test]
    fn a_repair_the_rule_holds_back_asks_for_lenient() {
        let good = "MISUT\u{a0}AJIKKO";
        let bad = "MISUTÂ\u{a0}AJIKKO";
        let advice = advice(bad.as_bytes(), good);
        let check = advice.as_ref().map(|a| a.check);
        assert_eq!(check, Ok(Check::RepairsWhenLenient), "{advice:?}");
        let options = advice.as_ref().map(Advice::options);
        assert_eq!(
            options.as_deref(),
            Ok("--readings latin1 --strictness lenient")
        );
    }

    #[test]
    fn a_last_conversion_is_undone_by_transcoding() {
        let advice = advice(b"caf\xe9 cr\xe8me", "café crème");
        assert_eq!(
            advice.as_ref().map(Advice::options).as_deref(),
            Ok("--transcode --from windows-1252")
        );
        assert_eq!(advice.map(|a| a.check), Ok(Check::Repairs));
    }

    /// The text of one page read through another is no double encoding.
    #[test]
    fn a_conversion_read_again_cannot_be_undone() {
        let advice = advice("Ïðèâåò".as_bytes(), "Привет");
        let Err(Unfixable::ConvertedThenRead(page)) = advice else {
            panic!("{advice:?}");
        };
        assert_eq!(page.name, "windows-1251");
    }

    /// A layer through a page with no reading is named; one with a reading is undone by it.
    #[test]
    fn a_layer_without_a_reading_is_named() {
        let good = "привет";
        let bad = "РїСЂРёРІРµС‚";
        let advice = advice(bad.as_bytes(), good);
        let page = super::super::pages()
            .iter()
            .find(|p| p.name == "windows-1251");
        match page.and_then(Page::reading) {
            Some(reading) => {
                let options = format!("--readings {}", reading.name);
                assert_eq!(advice.map(|a| a.options()), Ok(options));
            }
            None => {
                let Err(error) = advice else {
                    panic!("{advice:?}");
                };
                let text = "undouble cannot undo a layer through windows-1251 yet";
                assert_eq!(error.to_string(), text);
            }
        }
    }

    #[test]
    fn equal_texts_need_no_options() {
        let chain = Chain::default();
        let advice = advise(&chain, "café".as_bytes(), "café".as_bytes());
        assert_eq!(advice.as_ref().map(Advice::options).as_deref(), Ok(""));
        assert_eq!(advice.map(|a| a.check), Ok(Check::Repairs));
    }
}
