//! Which encoding to use, and every way the sources disagree (validome's rules).
//!
//! Priority, highest first:
//!
//! 1. the HTTP header's `charset` (`protocol`);
//! 2. a byte order mark (`bom`);
//! 3. what the bytes identify by their structure (`detected`: UTF-16/32 from the first
//!    characters or the zero bytes, or valid non-ASCII UTF-8; see `detect.rs`);
//! 4. the document's own declarations: the XML declaration (`xml`), then `<meta>` (`meta`);
//!    in a document that looks like a SQL dump (`sql.rs`), its connection statements instead
//!    (`sql`: `SET NAMES`, `SET client_encoding`, ...; the last distinct one is the one in
//!    force when the data is read), and no XML declaration or `<meta>` is looked for: those
//!    would come from the data.
//!
//! When the bytes and an in-document declaration agree, the declaration is named as the
//! source: it is what a saved copy relies on, and the bytes only confirmed it. A statistical
//! guess never outranks any of these; it is reported and compared. When none of them
//! decides, the answer still says on what footing it stands, never silently: the caller's
//! encoding to assume; else the guess, marked as one with its score, if the score reaches
//! the caller's minimum (a notice); else `US-ASCII` for a pure-ASCII or empty body (a
//! notice). Only a document whose guess is too weak is undetermined (`no-charset`); there is
//! no silent ISO-8859-1 fallback.
//!
//! Labels are compared by meaning (`labels.rs`): `ISO-8859-1` and `windows-1252` agree. Each
//! source that disagrees with the winner is one `conflict` warning naming both sources, both
//! labels with their canonical names, and the winner; the bytes add one only when no
//! declaration they agree with has been named (one problem, one warning). A label that
//! leaves the byte order open (`UTF-16`) takes the byte order the BOM or the first
//! characters show: the bytes decide it. A pure-ASCII body cannot disagree with an
//! ASCII-compatible label. A charset given only by the HTTP header is a notice, because a copy
//! saved without the header loses it. A SQL `binary`/`SQL_ASCII` declares no encoding at
//! all: a notice (`no-encoding`), and no claim.

use serde::{Deserialize, Serialize};

use super::bom::split_byte_order_mark;
use super::content_type::encoding_from_content_type;
use super::detect::{
    ByteEvidence, DetectionMethod, Score, detect_after_bom, wide_unicode_from_structure,
};
use super::http_message::HttpMessage;
use super::labels::{KnownEncoding, LabelMeaning, labels_agree, leaves_byte_order_open};
use super::meta::encoding_from_meta_element;
use super::source::Source;
use super::sql::{
    SQL_CONNECTION_SCAN_LIMIT, SqlDeclaration, SqlPlace, looks_like_sql, sql_declarations,
};
use super::suspect::{DEFAULT_SUSPECTS, Suspect};
use super::xml::encoding_from_xml_declarations;

/// How far into a document the policy looks for `<meta>`. HTML5 wants the declaration in the
/// first 1024 bytes and HTML 4 in `<head>`; a mebibyte is generous for both and keeps a
/// multi-gigabyte file without `</head>` from being decoded whole.
pub(crate) const META_SCAN_LIMIT: usize = 1 << 20;

/// Options of [`determine`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyOptions {
    /// An encoding label to use when nothing else decides (source `assumed`); without it that
    /// case is the `no-charset` error.
    pub assume: Option<String>,
    /// Whether an XML declaration counts as a declaration (HTML::Encoding's `xhtml`); on.
    pub xhtml: bool,
    /// The score a statistical guess needs to be the answer when nothing declares or
    /// identifies the encoding; a weaker guess leaves the document undetermined
    /// (`no-charset`). [`DEFAULT_MIN_CONFIDENCE`] by default.
    pub min_confidence: Score,
}

/// The default [`PolicyOptions::min_confidence`]: a guess as likely right as wrong, by the
/// model that scores it (see [`Score`]).
pub const DEFAULT_MIN_CONFIDENCE: f64 = 0.5;

impl Default for PolicyOptions {
    fn default() -> Self {
        Self {
            assume: None,
            xhtml: true,
            min_confidence: Score::from_value(DEFAULT_MIN_CONFIDENCE).unwrap_or_default(),
        }
    }
}

/// The name given to a pure-ASCII (or empty) document that nothing declares: not an
/// encoding of the WHATWG table, which reads `US-ASCII` as windows-1252, but what such a
/// document is, and what every ASCII-compatible encoding reads alike.
pub const ASCII: &str = "US-ASCII";

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The encoding cannot be determined.
    Error,
    /// Sources disagree, or a label means nothing.
    Warning,
    /// Worth knowing; nothing is wrong.
    Notice,
}

impl Level {
    /// The lowercase name used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Notice => "notice",
        }
    }
}

/// What a diagnostic is about; serialises as the kebab-case code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticCode {
    /// Two sources name different encodings (warning).
    Conflict,
    /// Only the HTTP header names the encoding (notice).
    CharsetOnlyInHeader,
    /// Nothing determines the encoding (error).
    NoCharset,
    /// A label is not in the WHATWG table, so it is ignored (warning).
    UnknownLabel,
    /// Only the bytes identify the encoding; nothing declares it (notice).
    NotDeclared,
    /// The statistical guess differs from the encoding used (notice).
    GuessDiffers,
    /// The caller's fallback was used (notice).
    Assumed,
    /// A SQL dump declares `binary` or `SQL_ASCII`: bytes as they come, no encoding (notice).
    NoEncoding,
    /// The file holds double-encoded characters ([`crate::charset::survey()`] only; warning).
    DoubleEncoded,
    /// Nothing declares or identifies the encoding; the answer is a statistical guess
    /// (notice).
    Guessed,
    /// Nothing declares the encoding and the body is all ASCII: the answer is `US-ASCII`,
    /// which any ASCII-compatible encoding reads alike (notice).
    AsciiOnly,
    /// The document is empty: the answer is `US-ASCII`, as for ASCII (notice).
    Empty,
    /// The browser's algorithm found no declaration and fell back to its default
    /// (`crate::charset::whatwg` only; notice).
    Default,
}

impl DiagnosticCode {
    /// The kebab-case code used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Conflict => "conflict",
            Self::CharsetOnlyInHeader => "charset-only-in-header",
            Self::NoCharset => "no-charset",
            Self::UnknownLabel => "unknown-label",
            Self::NotDeclared => "not-declared",
            Self::GuessDiffers => "guess-differs",
            Self::Assumed => "assumed",
            Self::NoEncoding => "no-encoding",
            Self::DoubleEncoded => "double-encoded",
            Self::Guessed => "guessed",
            Self::AsciiOnly => "ascii-only",
            Self::Empty => "empty",
            Self::Default => "default",
        }
    }
}

/// One finding about a document's encoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// How serious it is.
    pub level: Level,
    /// What it is about.
    pub code: DiagnosticCode,
    /// The details, for a person.
    pub message: String,
}

/// One source's claim, as declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    /// `protocol`, `bom`, `xml`, `meta` or `sql`.
    pub source: Source,
    /// The label as written (for a BOM, the encoding it marks).
    pub label: String,
    /// The canonical name, or `None` if the label is unknown or declares no encoding.
    pub encoding: Option<String>,
    /// For `sql`: the statement, line and byte offset (serialised flat, as `statement`,
    /// `line`, `offset`); absent otherwise.
    #[serde(flatten)]
    pub place: Option<SqlPlace>,
}

impl Declaration {
    /// Where the declaration is, for a person: `HTTP header`, `byte order mark`, `XML
    /// declaration`, `<meta>`, or the SQL statement and line (`SET NAMES, line 12`).
    pub(crate) fn whereabouts(&self) -> String {
        match (&self.place, self.source) {
            (Some(place), _) => place.to_string(),
            (None, Source::Protocol) => "HTTP header".to_owned(),
            (None, Source::Bom) => "byte order mark".to_owned(),
            (None, Source::Xml) => "XML declaration".to_owned(),
            (None, Source::Meta) => "<meta>".to_owned(),
            (None, other) => other.to_string(),
        }
    }
}

/// A declaration as found, with what its label means: the source decides how a label is
/// read (`latin1` in `SET NAMES` is MySQL's name, `UTF8` PostgreSQL's).
#[derive(Debug, Clone)]
pub(crate) struct Gathered {
    pub(crate) declaration: Declaration,
    pub(crate) meaning: LabelMeaning,
}

impl Gathered {
    /// A label read through the WHATWG table.
    pub(crate) fn from_label(source: Source, label: String) -> Self {
        let meaning = LabelMeaning::of_label(&label);
        Self {
            declaration: Declaration {
                source,
                encoding: meaning.encoding().map(|e| e.name().to_owned()),
                label,
                place: None,
            },
            meaning,
        }
    }

    /// A SQL connection statement, read in its dialect.
    pub(crate) fn from_sql(sql: SqlDeclaration) -> Self {
        Self {
            meaning: sql.meaning(),
            declaration: Declaration {
                source: Source::Sql,
                label: sql.label,
                encoding: sql.encoding,
                place: Some(sql.place),
            },
        }
    }

    /// The claim, if the label names an encoding.
    pub(crate) fn claim(&self) -> Option<Claim> {
        Some(Claim {
            source: self.declaration.source,
            label: self.declaration.label.clone(),
            encoding: self.meaning.encoding()?,
            place: self.declaration.place.clone(),
        })
    }

    /// The diagnostic for a label that names no encoding, if it does not.
    pub(crate) fn ignored(&self) -> Option<Diagnostic> {
        let declaration = &self.declaration;
        match self.meaning {
            LabelMeaning::Encoding(_) => None,
            LabelMeaning::Unknown => Some(Diagnostic {
                level: Level::Warning,
                code: DiagnosticCode::UnknownLabel,
                message: format!(
                    "{} declares \"{}\"{}, which is not a known encoding label; it is ignored",
                    declaration.source,
                    declaration.label,
                    sql_place_suffix(declaration.place.as_ref()),
                ),
            }),
            LabelMeaning::Uninterpreted => Some(Diagnostic {
                level: Level::Notice,
                code: DiagnosticCode::NoEncoding,
                message: format!(
                    "{} declares \"{}\" ({}), which is no encoding: the server takes the bytes \
                     as they come; it is ignored",
                    declaration.source,
                    declaration.label,
                    declaration.whereabouts(),
                ),
            }),
        }
    }
}

/// ` (SET NAMES, line 12)`, or nothing.
fn sql_place_suffix(place: Option<&SqlPlace>) -> String {
    place.map(|place| format!(" ({place})")).unwrap_or_default()
}

/// The outcome of [`determine`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Determination {
    /// The canonical name of the encoding to use, or `None` if undeterminable.
    pub encoding: Option<String>,
    /// The label as the winning source gave it.
    pub label: Option<String>,
    /// The winning source.
    pub source: Option<Source>,
    /// Whether the answer is only a statistical guess (source `detected`).
    pub guess: bool,
    /// For a guess, its score (0 to 1); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Score>,
    /// Every declaration found, in priority order (header, BOM, XML, each `<meta>`).
    pub declared: Vec<Declaration>,
    /// What the bytes say.
    pub detected: Option<ByteEvidence>,
    /// Disagreements and other findings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Determination {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.level == Level::Error)
    }

    /// The diagnostics with the given code.
    pub fn diagnostics_with(&self, code: DiagnosticCode) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(move |d| d.code == code)
    }
}

/// A source whose label resolved to a known encoding.
#[derive(Debug, Clone)]
pub(crate) struct Claim {
    pub(crate) source: Source,
    pub(crate) label: String,
    pub(crate) encoding: KnownEncoding,
    pub(crate) place: Option<SqlPlace>,
}

impl Claim {
    fn agrees_with(&self, other: &Claim) -> bool {
        labels_agree((&self.label, self.encoding), (&other.label, other.encoding))
    }

    fn describe(&self) -> String {
        let place = self
            .place
            .as_ref()
            .map(|place| format!("; {place}"))
            .unwrap_or_default();
        format!(
            "{} \"{}\" ({}{place})",
            self.source,
            self.label,
            self.encoding.name()
        )
    }
}

/// Determines the encoding of `document` (an entity body, BOM included) given the raw value
/// of its `Content-Type` header, if any.
pub fn determine(
    document: &[u8],
    content_type: Option<&[u8]>,
    options: &PolicyOptions,
) -> Determination {
    let (bom, body) = split_byte_order_mark(document);
    let mut gathered: Vec<Gathered> = header_declaration(content_type)
        .into_iter()
        .chain(bom_declaration(bom))
        .collect();
    if looks_like_sql(document) {
        gathered.extend(sql_connection_declarations(document));
    } else {
        gathered.extend(markup_declarations(document, bom, options));
    }
    let detected = detect_after_bom(body, bom);
    let mut diagnostics: Vec<Diagnostic> = gathered.iter().filter_map(Gathered::ignored).collect();
    let mut claims: Vec<Claim> = gathered.iter().filter_map(Gathered::claim).collect();
    let declared: Vec<Declaration> = gathered.into_iter().map(|g| g.declaration).collect();
    if let Some(claim) = detected.as_ref().and_then(identified_claim) {
        let after_bom = claims
            .iter()
            .position(|c| !matches!(c.source, Source::Protocol | Source::Bom))
            .unwrap_or(claims.len());
        claims.insert(after_bom, claim);
    }

    let winner = choose_winner(&claims)
        .cloned()
        .map(|winner| with_byte_order_of_the_bytes(winner, &claims));
    diagnostics.extend(conflicts(&claims, detected.as_ref(), winner.as_ref()));
    diagnostics.extend(notices(&declared, detected.as_ref(), winner.as_ref()));

    let mut answer = winner.as_ref().map(Answer::of_claim);
    if winner.is_none() {
        match assumed_claim(options.assume.as_deref()) {
            Some(claim) => {
                diagnostics.push(Diagnostic {
                    level: Level::Notice,
                    code: DiagnosticCode::Assumed,
                    message: format!(
                        "no charset in the HTTP header, BOM, XML declaration or <meta>, and the \
                         bytes do not identify one: {} as asked",
                        claim.describe()
                    ),
                });
                diagnostics.extend(guess_differs(detected.as_ref(), &claim));
                answer = Some(Answer::of_claim(&claim));
            }
            None => {
                if let Some(label) = &options.assume {
                    diagnostics.push(Diagnostic {
                        level: Level::Warning,
                        code: DiagnosticCode::UnknownLabel,
                        message: format!(
                            "the encoding to assume, \"{label}\", is not a known encoding label"
                        ),
                    });
                }
                let (undeclared, diagnostic) =
                    undeclared_answer(body, detected.as_ref(), options.min_confidence);
                answer = undeclared;
                diagnostics.push(diagnostic);
            }
        }
    }

    Determination {
        encoding: answer.as_ref().map(|a| a.encoding.clone()),
        label: answer.as_ref().map(|a| a.label.clone()),
        source: answer.as_ref().map(|a| a.source),
        guess: answer.as_ref().is_some_and(|a| a.confidence.is_some()),
        confidence: answer.as_ref().and_then(|a| a.confidence),
        declared,
        detected,
        diagnostics,
    }
}

/// The answer of [`determine`], before it is spread over [`Determination`]'s fields.
struct Answer {
    encoding: String,
    label: String,
    source: Source,
    /// The score of a guess; `None` for anything else.
    confidence: Option<Score>,
}

impl Answer {
    fn of_claim(claim: &Claim) -> Self {
        Self {
            encoding: claim.encoding.name().to_owned(),
            label: claim.label.clone(),
            source: claim.source,
            confidence: None,
        }
    }

    /// `US-ASCII`, detected.
    fn ascii() -> Self {
        Self {
            encoding: ASCII.to_owned(),
            label: ASCII.to_owned(),
            source: Source::Detected,
            confidence: None,
        }
    }
}

/// What can still be said of a document that nothing declares and the bytes do not identify,
/// with the diagnostic saying on what footing: a guess strong enough, ASCII, emptiness; or
/// nothing (`no-charset`).
fn undeclared_answer(
    body: &[u8],
    detected: Option<&ByteEvidence>,
    min_confidence: Score,
) -> (Option<Answer>, Diagnostic) {
    let notice = |code, message| Diagnostic {
        level: Level::Notice,
        code,
        message,
    };
    let Some(evidence) = detected else {
        if body.is_empty() {
            let message = "the document is empty: every encoding reads it alike".to_owned();
            return (
                Some(Answer::ascii()),
                notice(DiagnosticCode::Empty, message),
            );
        }
        return (None, no_charset(None, ""));
    };
    if evidence.method == DetectionMethod::Ascii {
        let message = format!(
            "nothing declares the charset; {}, UTF-8 included",
            evidence.evidence
        );
        return (
            Some(Answer::ascii()),
            notice(DiagnosticCode::AsciiOnly, message),
        );
    }
    let guessed = evidence
        .encoding
        .as_deref()
        .and_then(KnownEncoding::for_label)
        .zip(evidence.confidence.filter(|_| evidence.guess));
    match guessed {
        Some((encoding, score)) if score >= min_confidence => {
            let message = format!(
                "nothing declares the charset and the bytes do not identify it, so {} is a \
                 guess: {}",
                encoding.name(),
                evidence.evidence
            );
            let answer = Answer {
                encoding: encoding.name().to_owned(),
                label: encoding.name().to_owned(),
                source: Source::Detected,
                confidence: Some(score),
            };
            (Some(answer), notice(DiagnosticCode::Guessed, message))
        }
        Some((_, score)) => {
            let too_weak = format!(
                "; too little evidence for the guess (confidence {score}, below the {min_confidence} \
                 asked for)"
            );
            (None, no_charset(Some(evidence), &too_weak))
        }
        None => (None, no_charset(Some(evidence), "")),
    }
}

/// [`determine`] for a parsed HTTP message: its body and its (joined) `Content-Type`.
pub fn determine_http_message(message: &HttpMessage<'_>, options: &PolicyOptions) -> Determination {
    let content_type = message.header("Content-Type");
    determine(message.body, content_type.as_deref(), options)
}

/// The HTTP header's `charset`, if it has one.
pub(crate) fn header_declaration(content_type: Option<&[u8]>) -> Option<Gathered> {
    let charset = encoding_from_content_type(content_type?)?;
    Some(Gathered::from_label(Source::Protocol, charset))
}

/// The encoding a byte order mark marks.
pub(crate) fn bom_declaration(bom: Option<Suspect>) -> Option<Gathered> {
    Some(Gathered::from_label(Source::Bom, bom?.name().to_owned()))
}

/// The XML declaration (unless `options.xhtml` is off) and every `<meta>` in the first
/// [`META_SCAN_LIMIT`] bytes, read in the encoding family of the BOM or first characters.
pub(crate) fn markup_declarations(
    document: &[u8],
    bom: Option<Suspect>,
    options: &PolicyOptions,
) -> Vec<Gathered> {
    let mut found = Vec::new();
    if options.xhtml
        && let Some(xml) = encoding_from_xml_declarations(document, DEFAULT_SUSPECTS)
            .into_iter()
            .next()
    {
        found.push(Gathered::from_label(Source::Xml, xml));
    }
    let reading = bom
        .or_else(|| wide_unicode_from_structure(document))
        .unwrap_or(Suspect::Iso8859_1);
    let head = document.get(..META_SCAN_LIMIT).unwrap_or(document);
    for meta in encoding_from_meta_element(head, reading) {
        found.push(Gathered::from_label(Source::Meta, meta));
    }
    found
}

/// The connection statements of a SQL dump (`SET NAMES` and the like), from its head.
pub(crate) fn sql_connection_declarations(document: &[u8]) -> Vec<Gathered> {
    let head = document
        .get(..SQL_CONNECTION_SCAN_LIMIT)
        .unwrap_or(document);
    sql_declarations(head)
        .into_iter()
        .filter(|sql| sql.place.kind.is_connection())
        .map(Gathered::from_sql)
        .collect()
}

/// The bytes' evidence as a claim, if it identifies an encoding (a guess does not).
pub(crate) fn identified_claim(evidence: &ByteEvidence) -> Option<Claim> {
    if evidence.guess {
        return None;
    }
    let label = evidence.encoding.clone()?;
    Some(Claim {
        source: Source::Detected,
        encoding: KnownEncoding::for_label(&label)?,
        label,
        place: None,
    })
}

fn assumed_claim(label: Option<&str>) -> Option<Claim> {
    let label = label?;
    Some(Claim {
        source: Source::Assumed,
        encoding: KnownEncoding::for_label(label)?,
        label: label.to_owned(),
        place: None,
    })
}

/// Header, then BOM; then the bytes, unless an in-document declaration agrees with them (it is
/// then named instead); then the XML declaration, then the first `<meta>`, then the last SQL
/// connection statement (the one in force when the data is read).
fn choose_winner(claims: &[Claim]) -> Option<&Claim> {
    let first_from = |source: Source| claims.iter().find(|c| c.source == source);
    if let Some(transport) = first_from(Source::Protocol).or_else(|| first_from(Source::Bom)) {
        return Some(transport);
    }
    let last_sql = || claims.iter().rfind(|c| c.source == Source::Sql);
    let in_document = first_from(Source::Xml)
        .or_else(|| first_from(Source::Meta))
        .or_else(last_sql);
    match (first_from(Source::Detected), in_document) {
        (Some(bytes), Some(declared)) if bytes.agrees_with(declared) => Some(declared),
        (Some(bytes), _) => Some(bytes),
        (None, declared) => declared,
    }
}

fn winner_phrase(winner: &Claim) -> String {
    format!("{} wins: {}", winner.source, winner.encoding.name())
}

/// One warning per problem: each claim that disagrees with the winner, naming both and the
/// winner (the higher-priority one first); the bytes' own claim only when no declaration that
/// agrees with them has been named already (then they only confirm that declaration); and,
/// for a pure-ASCII body, each claim on the winner's side that is not ASCII-compatible. The
/// winner need not be among the claims (a browser's default is not).
pub(crate) fn conflicts(
    claims: &[Claim],
    detected: Option<&ByteEvidence>,
    winner: Option<&Claim>,
) -> Vec<Diagnostic> {
    let conflict = |message: String| Diagnostic {
        level: Level::Warning,
        code: DiagnosticCode::Conflict,
        message,
    };
    let mut found = Vec::new();
    let Some(winner) = winner else {
        return found;
    };
    let winner_at = claims
        .iter()
        .position(|c| c.source == winner.source && c.label == winner.label);
    let disagreeing: Vec<(usize, &Claim)> = claims
        .iter()
        .enumerate()
        .filter(|(at, claim)| Some(*at) != winner_at && !claim.agrees_with(winner))
        .collect();
    for &(at, claim) in &disagreeing {
        let confirms_another = claim.source == Source::Detected
            && disagreeing
                .iter()
                .any(|(_, other)| other.source != Source::Detected && other.agrees_with(claim));
        if confirms_another {
            continue;
        }
        let (first, second) = if winner_at.is_some_and(|winner_at| at < winner_at) {
            (claim, winner)
        } else {
            (winner, claim)
        };
        found.push(conflict(format!(
            "{} disagrees with {}; {}",
            first.describe(),
            second.describe(),
            winner_phrase(winner)
        )));
    }
    if let Some(ascii) = detected.filter(|d| d.method == DetectionMethod::Ascii) {
        let ruled_out = claims
            .iter()
            .filter(|c| c.agrees_with(winner) && !c.encoding.is_ascii_compatible());
        for claim in ruled_out {
            found.push(conflict(format!(
                "{} is not ASCII-compatible, but detected: {}; {}",
                claim.describe(),
                ascii.evidence,
                winner_phrase(winner)
            )));
        }
    }
    found
}

/// The winner with the byte order the bytes show, when its label leaves it open: `UTF-16` in
/// a header or `<meta>` names the family, and a BOM or the first characters tell which one
/// it is. (The WHATWG table would read the label as little endian whatever the bytes.)
fn with_byte_order_of_the_bytes(winner: Claim, claims: &[Claim]) -> Claim {
    if !leaves_byte_order_open(&winner.label, winner.encoding) {
        return winner;
    }
    let shown = claims.iter().find(|c| {
        matches!(c.source, Source::Bom | Source::Detected)
            && c.encoding.unicode_width() == winner.encoding.unicode_width()
            && !leaves_byte_order_open(&c.label, c.encoding)
    });
    match shown {
        Some(bytes) => Claim {
            encoding: bytes.encoding,
            ..winner
        },
        None => winner,
    }
}

fn notices(
    declared: &[Declaration],
    detected: Option<&ByteEvidence>,
    winner: Option<&Claim>,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let Some(winner) = winner else {
        return found;
    };
    let in_document = declared.iter().any(|d| d.source != Source::Protocol);
    let bytes_say = detected
        .filter(|d| !d.guess)
        .and_then(|d| d.encoding.as_deref())
        .map(|name| format!(" (the bytes themselves identify {name})"))
        .unwrap_or_default();
    if winner.source == Source::Protocol && !in_document {
        found.push(Diagnostic {
            level: Level::Notice,
            code: DiagnosticCode::CharsetOnlyInHeader,
            message: format!(
                "only the HTTP header declares the charset, \"{}\"; a copy saved without the \
                 header loses it{bytes_say}",
                winner.label
            ),
        });
    }
    if winner.source == Source::Detected && declared.is_empty() {
        let evidence = detected.map(|d| d.evidence.as_str()).unwrap_or_default();
        found.push(Diagnostic {
            level: Level::Notice,
            code: DiagnosticCode::NotDeclared,
            message: format!(
                "nothing declares the charset; the bytes identify {} ({evidence})",
                winner.encoding.name()
            ),
        });
    }
    found.extend(guess_differs(detected, winner));
    found
}

fn guess_differs(detected: Option<&ByteEvidence>, winner: &Claim) -> Option<Diagnostic> {
    let guess = detected.filter(|d| d.guess)?;
    let guessed = KnownEncoding::for_label(guess.encoding.as_deref()?)?;
    (guessed != winner.encoding).then(|| Diagnostic {
        level: Level::Notice,
        code: DiagnosticCode::GuessDiffers,
        message: format!(
            "{} is used, but the bytes look like {} ({})",
            winner.describe(),
            guessed.name(),
            guess.evidence
        ),
    })
}

/// The `no-charset` error, with what the bytes showed and why that is not enough (`why`,
/// empty or starting with `; `).
fn no_charset(detected: Option<&ByteEvidence>, why: &str) -> Diagnostic {
    let evidence = detected
        .map(|d| format!("; {}{why}", d.evidence))
        .unwrap_or_default();
    Diagnostic {
        level: Level::Error,
        code: DiagnosticCode::NoCharset,
        message: format!(
            "no charset in the HTTP header, BOM, XML declaration or <meta>, and the bytes do \
             not identify one{evidence}"
        ),
    }
}

#[cfg(test)]
mod tests;
