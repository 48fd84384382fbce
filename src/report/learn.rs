//! The JSON record of `learn --json`: the chain found (or that there is none), the `fix`
//! options that undo it and what they make of the sample; what the text of `learn` shows, for
//! a program (documented in `docs/json.md`).

use serde::{Deserialize, Serialize};

use super::hex;
use crate::mojibake::learn::{Advice, Chain, Check, StepKind, Unfixable};

/// A `learn --json` record: one per run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum LearnRecord {
    Learn(Learned),
}

/// What `learn` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learned {
    /// The garbled sample (bytes that are not UTF-8 shown as U+FFFD).
    pub bad: String,
    pub bad_hex: String,
    /// Its correct form.
    pub good: String,
    pub good_hex: String,
    /// The most layers searched.
    pub max_layers: u8,
    /// Whether a chain of at most `max_layers` layers turns `good` into `bad`.
    pub explained: bool,
    /// That chain's layers, first to last (empty when the texts are equal or nothing explains
    /// them).
    pub layers: Vec<LayerRecord>,
    /// The chain for a person; `null` when nothing explains the sample.
    pub chain: Option<String>,
    /// The `fix` options that undo the chain; `null` when undouble cannot (see
    /// `cannot_undo`) or nothing explains the sample.
    pub fix: Option<FixRecord>,
    /// Why undouble cannot undo the chain; `null` when it can.
    pub cannot_undo: Option<String>,
}

/// One layer of the chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerRecord {
    pub step: StepName,
    /// The page: its WHATWG name (`windows-1251`), `ISO-8859-1` for true Latin-1, or the
    /// name undouble gives a page the WHATWG list lacks.
    pub encoding: String,
}

/// What a layer did ([`StepKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepName {
    /// Read as the page and written as UTF-8.
    Reread,
    /// Converted from UTF-8 to the page.
    Convert,
}

/// The `fix` options that undo the chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixRecord {
    /// As typed on the command line (empty: the defaults do).
    pub options: String,
    /// The `--readings` names, innermost layer first (empty: the default readings).
    pub readings: Vec<String>,
    /// The `--transcode --from` encoding, or `null`.
    pub transcode_from: Option<String>,
    /// With `transcode_from`: whether `fix --transcode` converts a file holding only the
    /// sample (one with too few invalid sequences is taken for damaged UTF-8); `null` without.
    pub sample_transcoded: Option<bool>,
    pub check: CheckName,
}

/// What `fix` with those options makes of the sample ([`Check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckName {
    /// The correct text.
    Repairs,
    /// The correct text with `--strictness lenient` only (included in `options`).
    RepairsWhenLenient,
    /// Something else, even with `--strictness lenient`.
    DoesNotRepair,
}

impl From<Check> for CheckName {
    fn from(check: Check) -> CheckName {
        match check {
            Check::Repairs => CheckName::Repairs,
            Check::RepairsWhenLenient => CheckName::RepairsWhenLenient,
            Check::DoesNotRepair => CheckName::DoesNotRepair,
        }
    }
}

impl LearnRecord {
    /// The record of a search of at most `max_layers` layers for what turned `good` into
    /// `bad`: the `chain` found, how to undo it, and (when that means transcoding) whether
    /// `fix --transcode` converts a file holding only `bad`.
    pub fn new(
        bad: &[u8],
        good: &[u8],
        max_layers: u8,
        chain: Option<&Chain>,
        undo: Option<&Result<Advice, Unfixable>>,
        sample_transcoded: Option<bool>,
    ) -> LearnRecord {
        let layers = chain.map_or_else(Vec::new, |chain| {
            let layer = |step: &crate::mojibake::learn::Step| LayerRecord {
                step: match step.kind {
                    StepKind::Reread => StepName::Reread,
                    StepKind::Convert => StepName::Convert,
                },
                encoding: step.page.name.to_owned(),
            };
            chain.steps.iter().map(layer).collect()
        });
        let fix = undo
            .and_then(|undo| undo.as_ref().ok())
            .map(|advice| FixRecord {
                options: advice.options(),
                readings: advice.readings.iter().map(|p| p.name.to_owned()).collect(),
                transcode_from: advice.transcode_from.map(|e| e.name().to_owned()),
                sample_transcoded,
                check: advice.check.into(),
            });
        let cannot_undo = undo
            .and_then(|undo| undo.as_ref().err())
            .map(|e| e.to_string());
        LearnRecord::Learn(Learned {
            bad: String::from_utf8_lossy(bad).into_owned(),
            bad_hex: hex(bad, ""),
            good: String::from_utf8_lossy(good).into_owned(),
            good_hex: hex(good, ""),
            max_layers,
            explained: chain.is_some(),
            layers,
            chain: chain.map(|chain| chain.to_string()),
            fix,
            cannot_undo,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mojibake::learn::{MAX_LAYERS, advise, learn};

    #[test]
    fn a_chain_its_layers_and_its_fix() {
        let (bad, good) = ("cafÃƒÂ©".as_bytes(), "café".as_bytes());
        let chain = learn(bad, good, MAX_LAYERS);
        let undo = chain.as_ref().map(|chain| advise(chain, bad, good));
        let LearnRecord::Learn(record) =
            LearnRecord::new(bad, good, 3, chain.as_ref(), undo.as_ref(), None);
        assert!(record.explained);
        let layers: Vec<(StepName, &str)> = record
            .layers
            .iter()
            .map(|l| (l.step, l.encoding.as_str()))
            .collect();
        assert_eq!(
            layers,
            [
                (StepName::Reread, "ISO-8859-1"),
                (StepName::Reread, "windows-1252")
            ]
        );
        let fix = record
            .fix
            .as_ref()
            .map(|fix| (fix.options.as_str(), fix.check));
        assert_eq!(fix, Some(("--readings latin1,cp1252", CheckName::Repairs)));
        assert_eq!(record.cannot_undo, None);
        let json = serde_json::to_value(LearnRecord::Learn(record.clone())).ok();
        assert_eq!(
            json.as_ref().and_then(|j| j["type"].as_str()),
            Some("learn")
        );
        assert_eq!(
            json.as_ref().and_then(|j| j["fix"]["check"].as_str()),
            Some("repairs")
        );
    }

    #[test]
    fn nothing_explained_is_said_with_nulls() {
        let LearnRecord::Learn(record) = LearnRecord::new(b"a", b"b", 3, None, None, None);
        assert!(!record.explained);
        assert!(record.layers.is_empty() && record.chain.is_none() && record.fix.is_none());
    }
}
