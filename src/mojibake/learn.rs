//! `learn`: from a garbled sample and its correct form, the chain of recodings that turns the
//! correct text into the garbled one, found by a breadth-first search over code pages (as
//! Perl's Encode::Repair `learn_recoding` does), shortest chain first.
//!
//! Each layer is one [`Step`]: bytes read through a single-byte page and written back as UTF-8
//! (one layer of double encoding, [`StepKind::Reread`]), or UTF-8 text converted to a page and
//! left in its bytes ([`StepKind::Convert`]). Both map ASCII to itself and every other
//! character to non-ASCII, and neither lets a character reach across an ASCII byte: so the two
//! texts must agree on their ASCII bytes, and what the search needs is only the distinct
//! stretches of non-ASCII between them. That keeps the work small for a sample of any size.
//! [`advice`] says which `fix` options undo a chain.

pub mod advice;
pub mod pages;

use std::collections::{HashMap, HashSet};
use std::fmt;

pub use advice::{Advice, Check, Unfixable, advise};
pub use pages::{Page, pages};

/// The most layers the command line searches: with every page tried at every layer, one more
/// would multiply the work by the number of steps again.
pub const MAX_LAYERS: usize = 3;

/// How many bytes of the garbled text's distinct non-ASCII stretches the search works on; a
/// chain found on them is then checked against the whole sample.
pub const SAMPLE_LIMIT: usize = 4096;

/// What one layer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// The bytes were read as the page and written as UTF-8: one layer of double encoding.
    Reread,
    /// The text (UTF-8) was converted to the page: its bytes are the page's.
    Convert,
}

/// One layer of a [`Chain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub kind: StepKind,
    pub page: &'static Page,
}

impl Step {
    /// What this layer makes of `bytes`; `None` when it cannot take them (a byte the page
    /// leaves undefined, text that is not UTF-8 or a character the page lacks).
    pub fn apply(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        match self.kind {
            StepKind::Reread => reread(self.page, bytes),
            StepKind::Convert => convert(self.page, bytes),
        }
    }

    /// The bytes this layer was given, when it wrote `bytes`. Both kinds are one-to-one where
    /// they are defined, so there is at most one answer: the other kind's work.
    fn undo(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        match self.kind {
            StepKind::Reread => convert(self.page, bytes),
            StepKind::Convert => reread(self.page, bytes),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            StepKind::Reread => write!(f, "read as {} and written as UTF-8", self.page.name),
            StepKind::Convert => write!(f, "converted to {}", self.page.name),
        }
    }
}

fn reread(page: &Page, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    let mut utf8 = [0u8; 4];
    for &byte in bytes {
        out.extend_from_slice(page.decode(byte)?.encode_utf8(&mut utf8).as_bytes());
    }
    Some(out)
}

fn convert(page: &Page, bytes: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    text.chars().map(|ch| page.encode(ch)).collect()
}

/// The recodings that turn the correct text into the garbled one, first to last; none when
/// the two are the same.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    pub steps: Vec<Step>,
}

impl Chain {
    /// What the chain makes of `good`; `None` where some layer cannot take its input.
    pub fn apply(&self, good: &[u8]) -> Option<Vec<u8>> {
        let mut bytes = good.to_vec();
        for step in &self.steps {
            bytes = step.apply(&bytes)?;
        }
        Some(bytes)
    }
}

/// `UTF-8 text read as windows-1251 and written as UTF-8, then read as ISO-8859-1 and
/// written as UTF-8`.
impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return write!(f, "no recoding: the texts are equal");
        }
        write!(f, "UTF-8 text ")?;
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                write!(f, ", then ")?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

/// Every step the search tries, in the order it prefers them: rereads (double encoding is the
/// usual accident) before conversions, each in the order of [`pages()`].
fn steps() -> Vec<Step> {
    let with = |kind| pages().iter().map(move |page| Step { kind, page });
    with(StepKind::Reread)
        .chain(with(StepKind::Convert))
        .collect()
}

/// The shortest chain of at most `max_layers` layers that turns `good` into `bad`, or `None`
/// when there is none. Among chains of one length the first wins, layer by layer, in the
/// order of the steps (rereads before conversions, each in the order of [`pages()`]), so that
/// the answer names the commonest pages and is the same every time.
pub fn learn(bad: &[u8], good: &[u8], max_layers: usize) -> Option<Chain> {
    if bad == good {
        return Some(Chain::default());
    }
    let pairs = Stretches::pair(good, bad)?;
    let (
        Joined {
            good: start,
            bad: target,
        },
        whole,
    ) = pairs.sample(SAMPLE_LIMIT);
    // A chain the sample allows must also hold for the stretches left out of it.
    let holds = |chain: &Chain| match &whole {
        None => true,
        Some(whole) => chain.apply(&whole.good).as_deref() == Some(whole.bad.as_slice()),
    };
    let steps = steps();
    // Each text one step from the target, with the steps that go from it to the target.
    let mut into_target: HashMap<Vec<u8>, Vec<Step>> = HashMap::new();
    for step in &steps {
        if let Some(before) = step.undo(&target) {
            into_target.entry(before).or_default().push(*step);
        }
    }
    let target_high = high_bytes(&target);
    let mut seen: HashSet<Vec<u8>> = HashSet::from([start.clone()]);
    let mut frontier: Vec<(Vec<u8>, Vec<Step>)> = vec![(start, Vec::new())];
    for depth in 0..max_layers {
        for (text, prefix) in &frontier {
            for last in into_target.get(text).into_iter().flatten() {
                let mut chain = Chain {
                    steps: prefix.clone(),
                };
                chain.steps.push(*last);
                if holds(&chain) {
                    return Some(chain);
                }
            }
        }
        // After the next layer, this many more at most may follow it.
        let Some(left) = max_layers.checked_sub(depth + 2) else {
            break;
        };
        let mut next = Vec::new();
        for (text, prefix) in &frontier {
            for step in &steps {
                let Some(after) = step.apply(text) else {
                    continue;
                };
                if can_become(high_bytes(&after), target_high, left + 1)
                    && seen.insert(after.clone())
                {
                    let mut steps = prefix.clone();
                    steps.push(*step);
                    next.push((after, steps));
                }
            }
        }
        frontier = next;
    }
    None
}

fn high_bytes(text: &[u8]) -> usize {
    text.iter().filter(|&&byte| byte >= 0x80).count()
}

/// Whether a text with `from` non-ASCII bytes can have `to` of them after `layers` more. A
/// reread makes each non-ASCII byte two or three (every page's characters are below U+10000);
/// a conversion makes each such character, two or three bytes, one.
fn can_become(from: usize, to: usize, layers: usize) -> bool {
    let factor = 3usize.saturating_pow(u32::try_from(layers).unwrap_or(u32::MAX));
    from.saturating_mul(factor) >= to && to.saturating_mul(factor) >= from
}

/// The distinct stretches of non-ASCII bytes of the correct text, each with the garbled
/// stretch at the same place.
struct Stretches<'a> {
    pairs: Vec<(&'a [u8], &'a [u8])>,
}

impl<'a> Stretches<'a> {
    /// `None` when no chain can turn `good` into `bad`: their ASCII bytes differ, a stretch is
    /// empty in one and not in the other, or one stretch of `good` stands for two different
    /// ones of `bad`.
    fn pair(good: &'a [u8], bad: &'a [u8]) -> Option<Stretches<'a>> {
        let (good_ascii, good_runs) = split_at_ascii(good);
        let (bad_ascii, bad_runs) = split_at_ascii(bad);
        if good_ascii != bad_ascii {
            return None;
        }
        let mut pairs = Vec::new();
        let mut seen: HashMap<&[u8], &[u8]> = HashMap::new();
        for (g, b) in good_runs.into_iter().zip(bad_runs) {
            if g.is_empty() != b.is_empty() {
                return None;
            }
            if g.is_empty() {
                continue;
            }
            match seen.get(g) {
                Some(&known) if known != b => return None,
                Some(_) => {}
                None => {
                    seen.insert(g, b);
                    pairs.push((g, b));
                }
            }
        }
        Some(Stretches { pairs })
    }

    /// The first stretches, up to `limit` bytes of garbled ones (at least one stretch), as
    /// the search's start and target; and all of them, when the sample leaves some out.
    fn sample(&self, limit: usize) -> (Joined, Option<Joined>) {
        let mut taken = 0;
        let mut size = 0;
        while let Some((_, bad)) = self.pairs.get(taken) {
            if taken > 0 && size + bad.len() > limit {
                break;
            }
            size += bad.len();
            taken += 1;
        }
        let whole = (taken < self.pairs.len()).then(|| Joined::new(&self.pairs));
        (Joined::new(&self.pairs[..taken]), whole)
    }
}

/// Stretches of both texts, each side joined by an ASCII space (which every layer keeps, so
/// that a chain turns `good` into `bad` exactly when it turns each stretch into its own).
struct Joined {
    good: Vec<u8>,
    bad: Vec<u8>,
}

impl Joined {
    fn new(pairs: &[(&[u8], &[u8])]) -> Joined {
        let good: Vec<&[u8]> = pairs.iter().map(|pair| pair.0).collect();
        let bad: Vec<&[u8]> = pairs.iter().map(|pair| pair.1).collect();
        Joined {
            good: good.join(&b' '),
            bad: bad.join(&b' '),
        }
    }
}

/// The ASCII bytes of `text`, and the stretches of other bytes before, between and after
/// them (one more stretch than ASCII bytes; most are empty).
fn split_at_ascii(text: &[u8]) -> (Vec<u8>, Vec<&[u8]>) {
    let ascii: Vec<u8> = text.iter().copied().filter(u8::is_ascii).collect();
    let runs = text.split(u8::is_ascii).collect();
    (ascii, runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(chain: &Chain) -> Vec<String> {
        let kind = |step: &Step| match step.kind {
            StepKind::Reread => "reread",
            StepKind::Convert => "convert",
        };
        let steps = chain.steps.iter();
        steps
            .map(|s| format!("{} {}", kind(s), s.page.name))
            .collect()
    }

    fn learned(bad: &str, good: &str) -> Vec<String> {
        match learn(bad.as_bytes(), good.as_bytes(), MAX_LAYERS) {
            Some(chain) => names(&chain),
            None => panic!("{bad:?} from {good:?}: no chain"),
        }
    }

    #[test]
    fn one_layer_through_windows_1252() {
        assert_eq!(
            learned("donâ€™t cafÃ©", "don’t café"),
            ["reread windows-1252"]
        );
    }

    /// Where ISO-8859-1 and Windows-1252 give the same bytes, the answer is ISO-8859-1.
    #[test]
    fn one_layer_both_pages_give_names_latin1() {
        assert_eq!(learned("cafÃ©", "café"), ["reread ISO-8859-1"]);
    }

    #[test]
    fn two_layers_latin1_then_windows_1252() {
        // é → Ã© (ISO-8859-1) → ÃƒÂ© (Windows-1252: 0x83 is ƒ there, a C1 control in Latin-1).
        let bad = "cafÃƒÂ© crÃƒÂ¨me";
        assert_eq!(
            learned(bad, "café crème"),
            ["reread ISO-8859-1", "reread windows-1252"]
        );
    }

    #[test]
    fn a_windows_1251_layer() {
        let good = "привет, мир";
        let bad = "РїСЂРёРІРµС‚, РјРёСЂ";
        assert_eq!(learned(bad, good), ["reread windows-1251"]);
    }

    #[test]
    fn a_windows_1251_layer_under_a_latin1_one() {
        let good = "привет";
        let once = Step {
            kind: StepKind::Reread,
            page: &pages()[2],
        };
        assert_eq!(once.page.name, "windows-1251");
        let Some(bad) = Chain {
            steps: vec![
                once,
                Step {
                    kind: StepKind::Reread,
                    page: &pages()[0],
                },
            ],
        }
        .apply(good.as_bytes()) else {
            panic!("garbles");
        };
        let chain = learn(&bad, good.as_bytes(), MAX_LAYERS);
        assert_eq!(
            chain.as_ref().map(names),
            Some(vec![
                "reread windows-1251".into(),
                "reread ISO-8859-1".into()
            ])
        );
        let text = chain.map(|chain| chain.to_string());
        assert_eq!(
            text.as_deref(),
            Some(
                "UTF-8 text read as windows-1251 and written as UTF-8, then read as ISO-8859-1 \
                 and written as UTF-8"
            )
        );
    }

    /// Text left in a legacy page's bytes: the garbled side need not be UTF-8.
    #[test]
    fn a_conversion_to_a_legacy_page() {
        let chain = learn(b"caf\xe9", "café".as_bytes(), MAX_LAYERS);
        assert_eq!(
            chain.as_ref().map(names),
            Some(vec!["convert ISO-8859-1".into()])
        );
        let chain = learn(b"\xef\xf0\xe8\xe2\xe5\xf2", "привет".as_bytes(), MAX_LAYERS);
        assert_eq!(
            chain.as_ref().map(names),
            Some(vec!["convert windows-1251".into()])
        );
    }

    #[test]
    fn equal_texts_are_zero_layers() {
        let chain = learn("café".as_bytes(), "café".as_bytes(), MAX_LAYERS);
        assert_eq!(chain, Some(Chain::default()));
        assert_eq!(
            Chain::default().to_string(),
            "no recoding: the texts are equal"
        );
    }

    #[test]
    fn unrelated_texts_have_no_chain() {
        // Different ASCII: no layer changes ASCII.
        assert_eq!(learn(b"cafe", b"cafa", MAX_LAYERS), None);
        // Same ASCII, but three equal characters cannot come from one: a layer maps distinct
        // bytes to distinct characters, and a character's UTF-8 bytes are never all equal.
        assert_eq!(
            learn("caf€€€".as_bytes(), "café".as_bytes(), MAX_LAYERS),
            None
        );
        // One stretch of the correct text cannot become two different garbled ones.
        assert_eq!(
            learn("Ã© Ã¨".as_bytes(), "é é".as_bytes(), MAX_LAYERS),
            None
        );
    }

    #[test]
    fn layers_beyond_the_limit_are_not_searched() {
        let bad = "cafÃƒÂ©";
        assert_eq!(learn(bad.as_bytes(), "café".as_bytes(), 1), None);
        assert!(learn(bad.as_bytes(), "café".as_bytes(), 2).is_some());
        assert_eq!(learn(bad.as_bytes(), "café".as_bytes(), 0), None);
    }

    /// Past the sample, a chain the sample allows is checked against the rest: a text whose
    /// last stretch no chain explains has none.
    #[test]
    fn the_stretches_past_the_sample_are_checked() {
        let words: Vec<String> = (0..2000).map(|i| format!("{i}é{i}è")).collect();
        let good = words.join(" ");
        let bad = good.replace('é', "Ã©").replace('è', "Ã¨");
        assert!(bad.len() > 4 * SAMPLE_LIMIT);
        assert_eq!(learned(&bad, &good), ["reread ISO-8859-1"]);
        let broken = format!("{bad} \u{fc}");
        let good = format!("{good} é");
        assert_eq!(learn(broken.as_bytes(), good.as_bytes(), MAX_LAYERS), None);
    }

    /// Characters every page has or many have, so that random chains often garble them.
    const ALPHABET: &[char] = &[
        'a', ' ', 'é', 'è', 'ü', 'ß', 'ç', 'ñ', 'ø', 'å', 'œ', '€', '’', '“', 'п', 'р', 'и', 'Ж',
        'α', 'ω', 'ł', 'ś', 'ğ', 'ı', 'א', '«', '©',
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever chain of one or two rereads garbled a text, what `learn` finds garbles it
        /// the same way (it may be another, shorter or earlier chain), and is no longer.
        #[test]
        fn a_learned_chain_garbles_the_text_as_the_sample_shows(
            text in prop::collection::vec(prop::sample::select(ALPHABET), 1..24),
            layers in prop::collection::vec(0..pages().len(), 1..=2),
        ) {
            let good: String = text.into_iter().collect();
            let chain = Chain {
                steps: layers
                    .iter()
                    .map(|&i| Step { kind: StepKind::Reread, page: &pages()[i] })
                    .collect(),
            };
            let bad = chain.apply(good.as_bytes());
            prop_assume!(bad.is_some());
            let bad = bad.unwrap_or_default();
            let learned = learn(&bad, good.as_bytes(), MAX_LAYERS);
            prop_assert!(learned.is_some(), "{:?}", names(&chain));
            let learned = learned.unwrap_or_default();
            prop_assert!(learned.steps.len() <= chain.steps.len());
            prop_assert_eq!(learned.apply(good.as_bytes()), Some(bad));
        }
    }
}
