//! The plausibility rule: when a match of the strict pattern really is double encoding.
//!
//! The byte pattern alone is not enough, because correct text can hold the same bytes: an
//! accented capital followed by a Latin-1 symbol is exactly what `CAFÉ®` (`C3 89 C2 AE`, which
//! the pattern would turn into `ɮ`) or `MISUTÂ` + no-break space (which it would turn into a
//! no-break space) look like. A garbled sequence is always a Latin-1 letter (`Â..ô`) followed by
//! one to three characters from `U+0080..U+00BF` or Windows-1252's 27 extra characters, so the
//! question is how often real text puts such characters side by side, against how often the
//! repair gives text a writer would have written. The rule weighs this evidence, for a *run*
//! (adjacent sequences, repaired together):
//!
//! 1. **Impossible result** → rejected. The repair would produce a control character,
//!    a private-use character, a noncharacter or an unassigned plane: nobody wrote that.
//! 2. **A marker in the garbled text** → certain. Characters that correct text does not put
//!    right after a letter: a C1 control (`U+0080..U+009F`, which no text contains); a
//!    lowercase letter after a capital or the reverse inside one sequence (`Ãª`, `Ã©` is not
//!    this, `Ãº`, `Ã¶`... `ª º µ š œ ž ƒ` after `Â..Þ`; `Š Œ Ž Ÿ` after `à..ô`); and the
//!    Windows-1252 symbols that follow no word (`€ ‚ „ † ‡ ‰ ˆ ˜ ‹`).
//! 3. **A rare result** (phonetic letters, modifier letters, historic scripts, braille) →
//!    rejected: `CAFÉ®` → `ɮ`, `»ß«` → NKo `߫`, `DÉCONSEILLÉ` + no-break space → `ɠ`. Except
//!    for the letters of the IPA and modifier letter blocks that languages write (Azerbaijani
//!    `ə`, the `ɛ ɔ ɖ` of West African languages, Hawaiian `ʻ`), when the garbled text, read
//!    as correct text, would break a word: a symbol glued to the letter after it (`AzÉ™rbaycan`)
//!    → certain; a capital right after a small letter (`TürkiyÉ™`), or a symbol no letter is
//!    followed by ending a word (`DINÉÊ¼` for Navajo `DINÉʼ`) → ambiguous. A rare
//!    *letter* standing alone, touching no letter (`É›` in a list of letters) → ambiguous: its
//!    field decides (see [`super::field`]).
//!    Several sequences in a row that repair to rare letters are judged as below: a garbled
//!    word of a script the table calls rare (Adlam `ðž¤»ðž¤­`, New Tai Lue `á¦¶á¦£`).
//! 4. **Several sequences in a row** → certain: `Ð¿Ñ€Ð¸` → `при`. Correct text would need
//!    letter, symbol, letter, symbol back to back.
//! 5. **One sequence** is judged by what it repairs to and where it stands:
//!    - a combining mark not after a letter → rejected;
//!    - a letter and a symbol glued between two letters of a word, where the repair is a
//!      Latin or Greek letter, a symbol, or a combining mark on the letter before (Salish
//!      `QÌ“T` → `Q̓T`) → certain: correct text does not break a word so;
//!    - a capital garbled letter continuing a word in capitals (`MISUTÂ` + no-break space)
//!      → ambiguous: correct capitals and garbled text look the same there; except where the
//!      pair is one no word in capitals holds and its repair a capital of the same alphabet
//!      (`CHAÃŽNE` → `CHAÎNE`, `OÃ™` → `OÙ`) → certain;
//!    - a letter of another script touching a Latin letter (`« café\u{a0}»` would give
//!      `caf頻`) → ambiguous;
//!    - anything else (`Ã©` → `é` inside a word, `â€™` → `’`, `Â ` → no-break space after a
//!      digit) → certain.
//!
//! What happens to an ambiguous run is the [`Strictness`]: `balanced` (the default) repairs it
//! when a certain run stands in the same field within [`CONTEXT_WINDOW`] bytes, because double
//! encoding damages whole values, not one character in them. A field is the stretch of a line
//! between tabs, ASCII quotes and CSV separators (the scanner's `ends_field` says which): one
//! value of a dump, a CSV or a JSON document, one sentence or paragraph of prose up to its next
//! quotation.

use std::fmt;

use super::classes::{
    CharClass, MarkerTraits, SYMBOLS_AFTER_NO_LETTER, Script, class_of, is_alphabetic, script_of,
};
use super::matcher::{DoubleEncodedMatch, RepairedChar, decode_char, decode_last_char};

/// How far, in bytes within the same field, a certain run lends its evidence to an ambiguous one.
pub const CONTEXT_WINDOW: usize = 4096;

/// How much evidence a run needs before it is repaired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strictness {
    /// Every match of the strict byte pattern, even those the rule rejects.
    Pattern,
    /// Certain and ambiguous runs; never those the rule rejects.
    Lenient,
    /// Certain runs, and ambiguous runs with a certain run nearby in the same field.
    #[default]
    Balanced,
    /// Certain runs only.
    Strict,
}

/// What the rule concluded about a run, and the evidence it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Certain(Evidence),
    Ambiguous(Evidence),
    Rejected(Evidence),
}

impl Verdict {
    pub fn evidence(self) -> Evidence {
        match self {
            Verdict::Certain(e) | Verdict::Ambiguous(e) | Verdict::Rejected(e) => e,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Certain(_) => "certain",
            Verdict::Ambiguous(_) => "ambiguous",
            Verdict::Rejected(_) => "rejected",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.evidence())
    }
}

/// One piece of evidence the rule can cite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    ImpossibleCharacter(char),
    C1Control(char),
    CaseMismatch(char, char),
    SymbolAfterLetter(char),
    Word(usize),
    RareCharacter(char),
    WrittenPhoneticLetter(char),
    StrayMark(char),
    SymbolInsideWord,
    Apostrophe,
    PunctuationPileUp,
    CapitalsContext,
    /// A capital and a letter or `™` no word in capitals holds side by side (`ÃŽ`, `Ã™`).
    CapitalsPairNoWordHolds(char, char),
    LoneLetter(Script),
    LoneRareLetter(char),
    ScriptBesideLatin(Script),
    NothingAgainst,
    /// A C1 control that stands for this Windows-1252 character ([`super::controls`]).
    ControlForCharacter(char),
    /// A C1 control among other control characters, as in binary data.
    AmongControls(char),
    /// Bytes that are not UTF-8, read through this code page ([`super::raw`]).
    NotUtf8(&'static str),
    /// Bytes that are not UTF-8 beside control characters, as in binary data: kept.
    NotUtf8AmongControls,
    /// An overlong UTF-8 form of this ASCII character: kept.
    OverlongAscii(char),
    /// An encoded surrogate half with no partner: kept.
    LoneSurrogate,
    /// A UTF-8 character cut short, this many of its bytes left: kept.
    CutCharacter(u8),
    /// A garbled character whose byte `A0` became a space: the one character that fits
    /// ([`super::lost`]).
    LostNoBreakSpace(char),
    /// A garbled character with a byte lost to U+FFFD or `?`: unknowable ([`super::lost`]).
    LostByte,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Evidence::ImpossibleCharacter(c) => {
                write!(
                    f,
                    "would produce U+{:04X}, which no writer intends",
                    u32::from(c)
                )
            }
            Evidence::C1Control(c) => write!(
                f,
                "the garbled text holds the C1 control U+{:04X}, which correct text never does",
                u32::from(c)
            ),
            Evidence::CaseMismatch(lead, next) => write!(
                f,
                "'{lead}' followed by '{next}' mixes cases inside a word, as only garbling does"
            ),
            Evidence::SymbolAfterLetter(c) => {
                write!(f, "'{c}' never follows a letter in correct text")
            }
            Evidence::Word(n) => write!(f, "{n} adjacent sequences repair together"),
            Evidence::RareCharacter(c) => write!(
                f,
                "would produce U+{:04X}, a character seldom found in running text",
                u32::from(c)
            ),
            Evidence::WrittenPhoneticLetter(c) => write!(
                f,
                "would produce '{c}' (U+{:04X}), a letter some languages write, where the \
                 garbled text breaks a word",
                u32::from(c)
            ),
            Evidence::StrayMark(c) => write!(
                f,
                "would produce the combining mark U+{:04X} with no letter to attach to",
                u32::from(c)
            ),
            Evidence::CapitalsContext => write!(
                f,
                "continues a word in capitals, where correct text looks the same"
            ),
            Evidence::CapitalsPairNoWordHolds(lead, next) => write!(
                f,
                "'{lead}' followed by '{next}' in a word in capitals, a pair no language writes, \
                 while the repair is a capital of the word's alphabet"
            ),
            Evidence::SymbolInsideWord => {
                write!(
                    f,
                    "a symbol glued between two letters, as correct text never has"
                )
            }
            Evidence::Apostrophe => {
                write!(f, "a letter and an apostrophe, as correct text often has")
            }
            Evidence::PunctuationPileUp => write!(
                f,
                "a small letter followed by punctuation piled up or glued to a letter, with no \
                 space, as correct text never has"
            ),
            Evidence::LoneLetter(script) => write!(
                f,
                "a single {script:?} letter standing alone, where correct text could look the same"
            ),
            Evidence::LoneRareLetter(c) => write!(
                f,
                "would produce U+{:04X}, a letter seldom found in running text, standing alone \
                 where correct text could look the same",
                u32::from(c)
            ),
            Evidence::ScriptBesideLatin(script) => {
                write!(
                    f,
                    "a single {script:?} letter touching letters of another script"
                )
            }
            Evidence::NothingAgainst => write!(f, "repairs to ordinary text"),
            Evidence::LostNoBreakSpace(c) => write!(
                f,
                "a space stands where a byte was lost: only byte A0, a no-break space that became \
                 a space, completes the garbled character, as '{c}' (U+{:04X}), inferred",
                u32::from(c)
            ),
            Evidence::LostByte => write!(
                f,
                "a byte of the garbled character was lost (U+FFFD or '?' in its place): the \
                 character cannot be known, and one U+FFFD stands for it"
            ),
            Evidence::ControlForCharacter(c) => write!(
                f,
                "a C1 control, which no writer means, standing for '{c}' (U+{:04X}), its byte in \
                 Windows-1252",
                u32::from(c)
            ),
            Evidence::NotUtf8(page) => write!(
                f,
                "bytes that are not UTF-8, so no text as they stand, read as the {page} \
                 characters they are (overlong and CESU-8 forms of a character decoded)"
            ),
            Evidence::NotUtf8AmongControls => write!(
                f,
                "bytes that are not UTF-8 beside control characters, as in binary data: kept"
            ),
            Evidence::OverlongAscii(c) => write!(
                f,
                "an overlong UTF-8 form of the ASCII character '{}', kept: decoding it is how \
                 input filters are bypassed",
                c.escape_default()
            ),
            Evidence::LoneSurrogate => write!(
                f,
                "an encoded surrogate half with no partner, which stands for no character: kept"
            ),
            Evidence::CutCharacter(left) => write!(
                f,
                "the first {left} bytes of a UTF-8 character whose other bytes were lost: kept, \
                 since no one character can be told from them, and read as single bytes they \
                 would make new mojibake"
            ),
            Evidence::AmongControls(c) => write!(
                f,
                "a C1 control that would stand for '{c}', but among other control characters, as \
                 in binary data"
            ),
        }
    }
}

/// The evidence inside one garbled sequence, from its characters and the one before it.
///
/// A capital followed by a small letter is a case mismatch only inside a word: at the start of
/// one it is ordinary title case (Czech `Úžasný`).
fn marker_in(garbled: &[u8], before: Option<char>) -> Option<Evidence> {
    // The same traits [`may_hold_marker`] reads from the index, so the two cannot disagree.
    let mut chars = chars_of(garbled);
    let lead = chars.next()?;
    let lead_traits = MarkerTraits::of(lead);
    let inside_word = is_letter(before);
    for next in chars {
        let traits = MarkerTraits::of(next);
        if traits.any(MarkerTraits::C1_CONTROL) {
            return Some(Evidence::C1Control(next));
        }
        if traits.any(MarkerTraits::NEVER_AFTER_LETTERS) {
            return Some(Evidence::SymbolAfterLetter(next));
        }
        let mismatch = (inside_word
            && lead_traits.any(MarkerTraits::UPPERCASE)
            && traits.any(MarkerTraits::LOWERCASE))
            || (lead_traits.any(MarkerTraits::LOWERCASE) && traits.any(MarkerTraits::UPPERCASE));
        if mismatch {
            return Some(Evidence::CaseMismatch(lead, next));
        }
    }
    None
}

/// The characters of `garbled`, which the matcher found valid UTF-8 (it reads no further
/// than a valid prefix): decoded in place, two-byte characters the short way, since the rule
/// reads garbled sequences millions of times.
fn chars_of(garbled: &[u8]) -> impl Iterator<Item = char> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (c, len) = decode_char(garbled.get(at..)?)?;
        at += len;
        Some(c)
    })
}

/// Whether [`marker_in`] could find anything in the garbled form of `found`, from the traits
/// of its characters alone: most sequences hold no marker, and this spares reading them.
#[inline]
fn may_hold_marker(found: &DoubleEncodedMatch) -> bool {
    let (lead, tail) = (found.lead_traits, found.tail_traits);
    tail.any(MarkerTraits::C1_CONTROL.union(MarkerTraits::NEVER_AFTER_LETTERS))
        || (lead.any(MarkerTraits::UPPERCASE) && tail.any(MarkerTraits::LOWERCASE))
        || (lead.any(MarkerTraits::LOWERCASE) && tail.any(MarkerTraits::UPPERCASE))
}

/// A run as the rule sees it: the text it lies in, its sequences, and its neighbours.
pub struct RunView<'a> {
    /// The text the run lies in.
    pub text: &'a [u8],
    /// Each sequence of the run: where it starts in `text`, and the match found there.
    pub sequences: &'a [(usize, DoubleEncodedMatch)],
    /// What the run finally repairs to, inner layers peeled.
    pub repaired: &'a [RepairedChar],
    /// The character before the run, if any (and if it is valid UTF-8).
    pub before: Option<char>,
    /// The character after the run, if any.
    pub after: Option<char>,
}

impl RunView<'_> {
    /// The garbled bytes of each sequence (valid UTF-8: the matcher accepts nothing else).
    fn garbled(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.sequences
            .iter()
            .map(|&(at, m)| &self.text[at..at + m.len])
    }

    fn repaired(&self) -> impl Iterator<Item = char> + '_ {
        self.repaired.iter().map(|c| c.original)
    }
}

/// Punctuation that correct text does put between two letters of one word: apostrophes,
/// hyphens, the soft hyphen and the Catalan middle dot.
pub(super) const WORD_INTERNAL_PUNCTUATION: [char; 6] = ['\'', '’', 'ʼ', '-', '\u{ad}', '·'];

/// The apostrophes among them.
const APOSTROPHES: [char; 3] = ['\'', '’', 'ʼ'];

/// A symbol that shows: not a space of any width.
fn is_visible_symbol(c: char) -> bool {
    class_of(c) == CharClass::Symbol && !c.is_whitespace()
}

/// A visible symbol that correct text does not put between two letters of one word (as it does
/// [`WORD_INTERNAL_PUNCTUATION`]).
fn is_word_breaking_symbol(c: char) -> bool {
    is_visible_symbol(c) && !WORD_INTERNAL_PUNCTUATION.contains(&c)
}

/// True when `c` is a letter (of any script).
fn is_letter(c: Option<char>) -> bool {
    c.is_some_and(|c| script_of(c).is_some())
}

/// Judges one run: the rules of the module's documentation, in their order; the first that
/// concludes gives the verdict. Inlined into the scanner's one caller, the run's own loop:
/// left to itself the compiler's choice moves with unrelated changes, by a per cent of `scan`.
#[inline]
pub fn judge(run: &RunView<'_>) -> Verdict {
    let first_rare = match impossible_result(run) {
        Ok(first_rare) => first_rare,
        Err(verdict) => return verdict,
    };
    if let Some(verdict) = marker(run) {
        return verdict;
    }
    if let Some(verdict) = first_rare.and_then(|c| rare_result(run, c)) {
        return verdict;
    }
    if run.sequences.len() >= 2 {
        // Rule 4: several sequences in a row.
        return Verdict::Certain(Evidence::Word(run.sequences.len()));
    }
    one_sequence(run)
}

/// Rule 1: the repair produces a character no writer intends → rejected (`Err`); otherwise
/// the first rare character it produces, which rule 3 weighs.
#[inline]
fn impossible_result(run: &RunView<'_>) -> Result<Option<char>, Verdict> {
    let mut first_rare = None;
    for c in run.repaired() {
        match class_of(c) {
            CharClass::Never => return Err(Verdict::Rejected(Evidence::ImpossibleCharacter(c))),
            CharClass::Rare if first_rare.is_none() => first_rare = Some(c),
            _ => {}
        }
    }
    Ok(first_rare)
}

/// Rule 2: a marker in the garbled text of one of the run's sequences → certain.
#[inline]
fn marker(run: &RunView<'_>) -> Option<Verdict> {
    for (k, &(at, found)) in run.sequences.iter().enumerate() {
        if !may_hold_marker(&found) {
            continue;
        }
        // The sequences of a run are adjacent: the one before ends where this one starts.
        let before = match k {
            0 => run.before,
            _ => decode_last_char(&run.text[..at]),
        };
        if let Some(evidence) = marker_in(&run.text[at..at + found.len], before) {
            return Some(Verdict::Certain(evidence));
        }
    }
    None
}

/// Rule 3: the repair produces `first_rare`, a rare character. `None` when the run is a
/// garbled word of rare letters, which rule 4 judges.
fn rare_result(run: &RunView<'_>, first_rare: char) -> Option<Verdict> {
    let c = first_rare;
    if run.sequences.len() == 1 {
        return Some(match written_letter_breaking_word(run) {
            Some(WordBreak::GluedToNextLetter) => {
                Verdict::Certain(Evidence::WrittenPhoneticLetter(c))
            }
            Some(WordBreak::CapitalAfterSmall | WordBreak::EndsWord) => {
                Verdict::Ambiguous(Evidence::WrittenPhoneticLetter(c))
            }
            // A rare letter standing alone, touching no letter (an IPA letter or a
            // syllable of a list of letters): correct text could hold its garbled form
            // alone too, so its field decides.
            None if is_alphabetic(c) && !is_letter(run.before) && !is_letter(run.after) => {
                Verdict::Ambiguous(Evidence::LoneRareLetter(c))
            }
            None => Verdict::Rejected(Evidence::RareCharacter(c)),
        });
    }
    // Several sequences that repair to letters are a garbled word, whatever its script
    // (Adlam, New Tai Lue, IPA): judged as one by rule 4. Rare symbols stay rejected.
    run.repaired()
        .find(|&c| class_of(c) == CharClass::Rare && !is_alphabetic(c))
        .map(|symbol| Verdict::Rejected(Evidence::RareCharacter(symbol)))
}

/// Rule 5: one sequence, judged by what it repairs to and where it stands.
fn one_sequence(run: &RunView<'_>) -> Verdict {
    let (Some(garbled), Some(repaired)) = (run.garbled().next(), run.repaired().next()) else {
        return Verdict::Rejected(Evidence::NothingAgainst);
    };
    let mut garbled_chars = chars_of(garbled);
    let lead = garbled_chars.next().unwrap_or(' ');
    // One to three characters: kept on the stack, since this runs for most sequences found.
    let mut buffer = [' '; 3];
    let mut count = 0;
    for (slot, c) in buffer.iter_mut().zip(garbled_chars) {
        *slot = c;
        count += 1;
    }
    let continuations = &buffer[..count];
    let symbols_inside = continuations.iter().all(|&c| is_word_breaking_symbol(c));
    if class_of(repaired) == CharClass::Mark
        && run
            .before
            .is_none_or(|c| c.is_whitespace() || class_of(c) == CharClass::Never)
    {
        return Verdict::Rejected(Evidence::StrayMark(repaired));
    }
    // A small letter followed by two or three marks of punctuation with no space among them
    // (`ì›”`, `â€¦`, `ï»¿`), or by punctuation and a letter glued to it (`è£œ`, `ð£š’`):
    // correct text piles punctuation up after a word only with a space in between (French
    // `é\u{a0}»`), and does not glue a letter to it.
    if lead.is_lowercase()
        && continuations.len() >= 2
        && continuations
            .iter()
            .all(|&c| is_visible_symbol(c) || is_alphabetic(c))
        && continuations.iter().any(|&c| is_visible_symbol(c))
    {
        return Verdict::Certain(Evidence::PunctuationPileUp);
    }
    let capital = |c: Option<char>| c.is_some_and(|c| c.is_uppercase() && is_letter(Some(c)));
    let lowercase = |c: Option<char>| c.is_some_and(|c| c.is_lowercase() && is_letter(Some(c)));
    // A letter, then a symbol glued to the next letter: correct text does not write that,
    // unless the symbol stands for a letter itself (leetspeak's `£` for L), which shows when
    // the repair would break the case of the word.
    let case_breaks = (capital(run.after) && repaired.is_lowercase())
        || (lowercase(run.after) && repaired.is_uppercase());
    // A combining mark fits on the letter before it (Salish `Q̓`, garbled `QÌ“`).
    let fits_latin_text = match class_of(repaired) {
        CharClass::Letter(Script::Latin | Script::Greek) | CharClass::Symbol => true,
        CharClass::Mark => is_letter(run.before),
        _ => false,
    };
    if script_of(lead).is_some()
        && symbols_inside
        && is_letter(run.after)
        && !case_breaks
        && fits_latin_text
    {
        return Verdict::Certain(Evidence::SymbolInsideWord);
    }
    // A letter and an apostrophe is what correct text looks like (Turkish `GÇ’lar`).
    if continuations.iter().all(|c| APOSTROPHES.contains(c)) {
        return Verdict::Ambiguous(Evidence::Apostrophe);
    }
    if lead.is_uppercase() && capital(run.before) && !lowercase(run.after) {
        if let [next] = continuations
            && no_word_in_capitals_holds(lead, *next, repaired)
        {
            return Verdict::Certain(Evidence::CapitalsPairNoWordHolds(lead, *next));
        }
        return Verdict::Ambiguous(Evidence::CapitalsContext);
    }
    match script_of(repaired) {
        // Greek letters live inside Latin text as symbols (γ-ray, IL2Rγc, 5 μm).
        Some(Script::Latin | Script::Greek) if u32::from(repaired) < 0x100 => {}
        Some(Script::Greek) => {}
        Some(script) if !is_letter(run.before) && !is_letter(run.after) => {
            return Verdict::Ambiguous(Evidence::LoneLetter(script));
        }
        Some(Script::Latin) => {}
        Some(script) => {
            let same = |c: Option<char>| c.and_then(script_of) == Some(script);
            if !same(run.before) && !same(run.after) {
                return Verdict::Ambiguous(Evidence::ScriptBesideLatin(script));
            }
        }
        None => {}
    }
    Verdict::Certain(Evidence::NothingAgainst)
}

/// The capitals Windows-1252 adds to Latin-1 (`Š Œ Ž Ÿ`), and `™`: the characters standing
/// for a continuation byte that a garbled capital can be followed by in a word in capitals,
/// besides the symbols and the no-break space that correct capitals are followed by too
/// (`CAFÉ®`, `MISUTÂ` + no-break space, `«IRMÃ»`).
const CAPITALS_EXTRAS: [char; 5] = ['Š', 'Œ', 'Ž', 'Ÿ', '™'];

/// Whether a garbled capital `lead` followed by `next` (one of [`CAPITALS_EXTRAS`]) is a pair
/// that no word in capitals holds, while its repair is a capital of the same alphabet: `ÃŽ`
/// (`CHAÃŽNE` for `CHAÎNE`), `ÃŠ` (`THÃŠM` for Vietnamese `THÊM`), `Ã™` (`OÃ™` for `OÙ`),
/// `ÄŒ` (`Č`), `ÃŸ` (`STRAÃŸE` for `STRAßE`, the one small letter German writes in capitals).
///
/// The languages that write `Š Ž` and `Œ` do not write `Ã` or `Å`, and the few that write `Ä`
/// beside them (Slovak, Estonian, Finnish) hardly ever put the two side by side; `Ã` before
/// `™` would be a trade mark on a word ending in `Ã`. The capitals whose pairs correct text
/// does hold (Czech and Slovak `ÚŽ`, `ÍŽ`, `ÉŠ` in `ÚŽASNÝ`, `PROHLÍŽEČ`, `BANGLADÉŠAN`)
/// repair to letters of other scripts, combining marks or rare letters, which this leaves
/// out: it asks for a letter of Latin-1 or Latin Extended-A.
fn no_word_in_capitals_holds(lead: char, next: char, repaired: char) -> bool {
    let capital = repaired.is_uppercase() || repaired == 'ß';
    CAPITALS_EXTRAS.contains(&next)
        && matches!(lead, 'Ã' | 'Ä' | 'Å')
        && capital
        && script_of(repaired) == Some(Script::Latin)
        && u32::from(repaired) < 0x180
}

/// How the garbled text of a run breaks a word, read as correct text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WordBreak {
    /// It ends in a symbol glued to the letter after it (`AzÉ™rbaycan`): correct text puts
    /// `™` or `»` after a word, never inside one.
    GluedToNextLetter,
    /// It starts with a capital right after a small letter (`TürkiyÉ™`): camel case, which
    /// correct text has (`iPhone`), though seldom with an accented capital.
    CapitalAfterSmall,
    /// It ends a word, right after a letter, with a symbol no letter is followed by (`Ê¼`):
    /// where languages write a modifier letter (the glottal stop of Navajo and Hausa,
    /// `DINÉʼ`), and where a garbled value's other runs show its depth.
    EndsWord,
}

/// The letters of the IPA extensions and spacing modifier letters that languages write in
/// running text (Azerbaijani `ə`, Akan `ɛ ɔ`, Ewe `ɖ ʋ`, Hausa `ɗ`, Hawaiian `ʻ`), as opposed
/// to the symbols of those blocks (`˘ ˙ ˚ ˛ ˜ ˝`).
fn is_written_phonetic_letter(c: char) -> bool {
    ('\u{250}'..='\u{2FF}').contains(&c) && is_alphabetic(c)
}

/// Whether the rare character a one-sequence `run` repairs to is a letter some language
/// writes, and its garbled text, read as correct text, would break a word; `None` when not both.
fn written_letter_breaking_word(run: &RunView<'_>) -> Option<WordBreak> {
    if !run.repaired().all(is_written_phonetic_letter) {
        return None;
    }
    let last = run.garbled().last().and_then(decode_last_char);
    if last.is_some_and(is_word_breaking_symbol) && is_letter(run.after) {
        return Some(WordBreak::GluedToNextLetter);
    }
    let lead = run.garbled().next().and_then(|g| chars_of(g).next());
    let small_before = run
        .before
        .is_some_and(|c| c.is_lowercase() && is_letter(Some(c)));
    if small_before && lead.is_some_and(char::is_uppercase) {
        return Some(WordBreak::CapitalAfterSmall);
    }
    if is_letter(run.before)
        && !is_letter(run.after)
        && last.is_some_and(|c| SYMBOLS_AFTER_NO_LETTER.contains(&c))
    {
        return Some(WordBreak::EndsWord);
    }
    None
}

/// The characters just outside `span` of `text`, for [`RunView::before`] and `after`.
pub fn neighbours(text: &[u8], start: usize, end: usize) -> (Option<char>, Option<char>) {
    let before = decode_last_char(&text[..start]);
    let after = decode_char(&text[end..]).map(|(c, _)| c);
    (before, after)
}

#[cfg(test)]
mod tests {
    use super::super::codepage::Readings;
    use super::super::matcher::match_at;
    use super::*;

    fn verdict_in(before: &str, garbled: &str, after: &str) -> Verdict {
        let readings = Readings::western();
        let text = format!("{before}{garbled}{after}");
        let bytes = text.as_bytes();
        let mut sequences = Vec::new();
        let mut repaired = Vec::new();
        let mut at = before.len();
        while at < before.len() + garbled.len() {
            let found = match_at(&readings, bytes, at).expect("a match");
            sequences.push((at, found));
            repaired.push(RepairedChar {
                span: at..at + found.len,
                original: found.original,
                mask: found.mask,
                layers: 1,
                garbled_chars: u32::from(found.chars),
            });
            at += found.len;
        }
        let (b, a) = neighbours(bytes, before.len(), at);
        judge(&RunView {
            text: bytes,
            sequences: &sequences,
            repaired: &repaired,
            before: b,
            after: a,
        })
    }

    fn is_certain(v: Verdict) -> bool {
        matches!(v, Verdict::Certain(_))
    }

    #[test]
    fn reported_look_alikes_are_not_certain() {
        // Correct text that the byte pattern matches.
        assert!(matches!(verdict_in("CAF", "É®", ""), Verdict::Rejected(_)));
        assert!(matches!(verdict_in("»", "ß«", ""), Verdict::Rejected(_)));
        assert!(matches!(
            verdict_in("DÉCONSEILL", "É\u{a0}", ";"),
            Verdict::Rejected(_)
        ));
        assert!(matches!(
            verdict_in("MISUT", "Â\u{a0}", "AJIKKO"),
            Verdict::Ambiguous(Evidence::CapitalsContext)
        ));
        assert!(matches!(
            verdict_in("« caf", "é\u{a0}»", ""),
            Verdict::Ambiguous(Evidence::ScriptBesideLatin(Script::Cjk))
        ));
    }

    #[test]
    fn capitals_garbled_into_pairs_no_word_holds_are_certain() {
        for (before, garbled, after) in [
            ("CHA", "ÃŽ", "NE"),
            ("O", "Ã™", " ET QUAND?"),
            ("XEM TH", "ÃŠ", "M"),
            ("STRA", "ÃŸ", "E"),
            ("MO", "ÄŒ", "ÁL"),
        ] {
            assert!(
                matches!(
                    verdict_in(before, garbled, after),
                    Verdict::Certain(Evidence::CapitalsPairNoWordHolds(..))
                ),
                "{before}{garbled}{after}"
            );
        }
        // Pairs correct Czech and Slovak capitals hold stay undecided: their repair is a
        // letter of another script, a combining mark or a rare letter.
        for (before, pair, after) in [("", "ÚŽ", "ASNÝ"), ("PROHL", "ÍŽ", "EČ")] {
            let verdict = verdict_in(before, pair, after);
            assert!(!is_certain(verdict), "{before}{pair}{after}: {verdict:?}");
        }
        assert!(!is_certain(verdict_in("BANGLAD", "ÉŠ", "AN")));
        // So do the symbols correct capitals are followed by.
        assert!(!is_certain(verdict_in("IRM", "Ã»", "")));
        assert!(!is_certain(verdict_in("MISUT", "Â\u{a0}", "AJIKKO")));
    }

    #[test]
    fn garbled_text_is_certain() {
        assert!(is_certain(verdict_in("caf", "Ã©", " au lait")));
        assert!(is_certain(verdict_in("don", "â€™", "t")));
        assert!(is_certain(verdict_in("10", "Â\u{a0}", "km")));
        assert!(is_certain(verdict_in("F", "Ãœ", "R")));
        assert!(is_certain(verdict_in("CAF", "Ã‰", "")));
        assert!(is_certain(verdict_in(" ", "Ð¿Ñ€Ð¸Ð²ÐµÑ‚", " ")));
        assert!(is_certain(verdict_in("", "ðŸ˜€", "")));
        assert!(is_certain(verdict_in("Caf", "Ã\u{a9}", "")));
        assert!(is_certain(verdict_in("s", "Ã\u{83}", "o")));
        // A lone CJK character: a small letter, punctuation, a letter glued to it.
        assert!(is_certain(verdict_in("\t", "è£œ", "\t")));
        assert!(is_certain(verdict_in("", "ð£š’", "")));
    }

    #[test]
    fn letters_languages_write_are_repaired_where_the_garbled_text_breaks_a_word() {
        // Azerbaijani `ə` and Hawaiian `ʻ`: a symbol glued to the next letter.
        assert_eq!(
            verdict_in("Az", "É™", "rbaycan"),
            Verdict::Certain(Evidence::WrittenPhoneticLetter('ə'))
        );
        assert_eq!(
            verdict_in("Hawai", "Ê»", "i"),
            Verdict::Certain(Evidence::WrittenPhoneticLetter('ʻ'))
        );
        // At the end of a word, only the capital after a small letter speaks for it.
        assert_eq!(
            verdict_in("Türkiy", "É™", " "),
            Verdict::Ambiguous(Evidence::WrittenPhoneticLetter('ə'))
        );
        // Or a symbol no letter is followed by, ending the word: Navajo's glottal stop.
        assert_eq!(
            verdict_in("DINÉ", "Ê¼", " "),
            Verdict::Ambiguous(Evidence::WrittenPhoneticLetter('ʼ'))
        );
        // Several sequences with one: a garbled word (`şə`), as are words of scripts the
        // table calls rare (Adlam, New Tai Lue), wherever they stand.
        assert!(is_certain(verdict_in(" ", "ÅŸÉ™", "hÉ™r")));
        assert!(is_certain(verdict_in("{0} ", "ðž¤»ðž¤\u{ad}ðž¤¤", "")));
        assert!(is_certain(verdict_in("", "á¦¶á¦£", "")));
        // The look-alikes stay rejected: a capital word ending in `É™` or `É®`, a symbol
        // (`˛`, U+02DB) however glued, a phonetic letter where no word is broken.
        for (before, garbled, after) in [
            ("CAF", "É™", ""),
            ("CAF", "É™", " and more"),
            ("CAF", "É®", ""),
            ("VOC", "Ê»", " "),
            ("x", "Ë›", "y"),
            ("DÉCONSEILL", "É\u{a0}", "avec"),
        ] {
            assert!(
                matches!(verdict_in(before, garbled, after), Verdict::Rejected(_)),
                "{before}{garbled}{after}"
            );
        }
    }

    #[test]
    fn a_combining_mark_glued_between_letters_is_certain() {
        // Salish `Q̓` once garbled: an opening quote between two letters is no correct text.
        assert_eq!(
            verdict_in("SXETSPESQ", "Ì“", "T"),
            Verdict::Certain(Evidence::SymbolInsideWord)
        );
        // Not after a space, where the mark would stand on nothing.
        assert!(matches!(
            verdict_in(" ", "Ì“", "T"),
            Verdict::Rejected(Evidence::StrayMark(_))
        ));
    }

    #[test]
    fn a_rare_letter_standing_alone_is_left_to_its_field() {
        assert_eq!(
            verdict_in(" ", "É™", " "),
            Verdict::Ambiguous(Evidence::LoneRareLetter('ə'))
        );
        assert!(matches!(verdict_in("CAF", "É™", " "), Verdict::Rejected(_)));
    }

    #[test]
    fn impossible_results_are_rejected_even_with_markers() {
        // Â + C1 control repairs to a C1 control.
        assert!(matches!(
            verdict_in("", "Â\u{85}", ""),
            Verdict::Rejected(Evidence::ImpossibleCharacter(_))
        ));
    }
}
