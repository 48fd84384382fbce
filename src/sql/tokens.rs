//! SQL tokens, read from buffers that may end anywhere: the blocks of a dump as the dump lexer
//! reads them, or one statement read whole (the declarations `charset` looks for).
//!
//! A dump arrives in blocks, and a block can end inside a comment, a string or a routine body,
//! so the tokenizer keeps what is still open ([`Open`]) from one buffer to the next. Where it
//! cannot decide without the next byte (a quote that may be doubled, a backslash, a `*` that may
//! close a comment, a word that may go on), it stops with [`Stop::NeedMore`] at that byte: the
//! caller cuts the buffer there and hands the rest back at the front of the next one. Every
//! such cut lies before an ASCII byte, where no double-encoded sequence can be split.
//!
//! The rules are those of the two dialects' own lexers: MySQL strings take backslash escapes
//! and doubled quotes, `"` quotes a string and `` ` `` a name, `#` and `-- ` start comments and
//! a version comment (`/*!40101 ... */`, `/*M!100100 ... */`) is read as SQL; PostgreSQL strings
//! double their quotes (backslashes only in `E'...'`, or with `standard_conforming_strings` off),
//! `"` quotes a name, comments nest and `$tag$ ... $tag$` quotes a routine body.

use std::ops::Range;

use memchr::{memchr, memchr2, memchr3};

use super::SqlDialect;

/// What the tokenizer found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A keyword, a name or a number.
    Word,
    /// A quoted name; the span is its inside.
    Ident,
    /// A string literal, or the piece of one that lies in this buffer; the span is its inside,
    /// escapes as written. `prefix` is the word glued to its opening quote (`_binary`, `X`,
    /// `E`), empty if none.
    Str { prefix: Range<usize>, closed: bool },
    /// Any other byte.
    Punct(u8),
    /// The statement delimiter (`;`, or what `DELIMITER` set).
    Delimiter,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub span: Range<usize>,
}

impl Token {
    /// Whether the token is the keyword `word` (any case).
    pub(crate) fn is(&self, buf: &[u8], word: &str) -> bool {
        self.kind == Kind::Word && buf[self.span.clone()].eq_ignore_ascii_case(word.as_bytes())
    }

    pub(crate) fn is_punct(&self, byte: u8) -> bool {
        self.kind == Kind::Punct(byte)
    }

    /// A name: a word or the inside of a quoted name (doubled quotes undone).
    pub(crate) fn name(&self, buf: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(&buf[self.span.clone()]);
        match self.kind {
            Kind::Word => Some(text.into_owned()),
            Kind::Ident => Some(text.replace("``", "`").replace("\"\"", "\"")),
            _ => None,
        }
    }
}

/// Why tokenizing stopped before the end of the buffer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The byte at this offset cannot be read without the bytes after the buffer.
    NeedMore(usize),
    /// The dump is not what the lexer understands, at this offset.
    Error(usize, String),
    /// Data, at this offset, for a table that no definition read so far describes: the dump
    /// may hold data only, its tables defined in another one.
    Undefined(usize, String),
}

/// A construct that runs on past the end of a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Open {
    Nothing,
    Str { quote: u8, backslash: bool },
    Comment { depth: u32 },
    LineComment,
    Dollar { closer: Vec<u8> },
}

/// The lexical state of a dump between buffers.
pub(crate) struct Tokenizer {
    pub dialect: SqlDialect,
    /// `;`, or what the last `DELIMITER` command set.
    pub delimiter: Vec<u8>,
    /// Whether a plain `'...'` string takes backslash escapes: always in MySQL, in PostgreSQL
    /// only with `standard_conforming_strings` off.
    pub backslash_strings: bool,
    open: Open,
    in_version_comment: bool,
}

/// How a string's body ends within a buffer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// The closing quote is at `content_end`; reading goes on at `next`.
    Closed { content_end: usize, next: usize },
    /// The string runs on to the end of the buffer.
    Open,
    /// The byte at this offset (a quote or a backslash) needs the next one.
    NeedMore(usize),
}

/// Finds the end of a string body that starts at `from` (after the opening quote, or at the
/// start of a buffer the string runs into). A doubled quote stands for itself; with
/// `backslash`, a backslash escapes the byte after it, as MySQL's `\\ \' \" \0 \n \r \Z` do.
pub(crate) fn string_body(buf: &[u8], from: usize, quote: u8, backslash: bool, last: bool) -> Body {
    let mut at = from;
    loop {
        let rest = &buf[at..];
        let found = match backslash {
            true => memchr2(quote, b'\\', rest),
            false => memchr(quote, rest),
        };
        let Some(offset) = found else {
            return Body::Open;
        };
        let k = at + offset;
        let next = buf.get(k + 1).copied();
        if next.is_none() && !last {
            return Body::NeedMore(k);
        }
        if buf[k] == quote && next != Some(quote) {
            return Body::Closed {
                content_end: k,
                next: k + 1,
            };
        }
        at = (k + 2).min(buf.len());
    }
}

/// Finds the end of a field of a PostgreSQL `COPY` block (text format) that starts at `from`:
/// the first tab or newline no backslash escapes. `Closed` stops at that byte, which the
/// caller reads next. pg_dump writes a tab or a newline of the data as `\t` and `\n`, but
/// `COPY FROM` also takes a backslash followed by the byte itself as data, so a backslash
/// always escapes the byte after it (`\\` then a tab: a backslash, then the next field).
pub(crate) fn copy_field_body(buf: &[u8], from: usize, last: bool) -> Body {
    let mut at = from;
    loop {
        let Some(offset) = memchr3(b'\t', b'\n', b'\\', &buf[at..]) else {
            return Body::Open;
        };
        let k = at + offset;
        if buf[k] != b'\\' {
            return Body::Closed {
                content_end: k,
                next: k,
            };
        }
        if k + 1 == buf.len() {
            return match last {
                true => Body::Open,
                false => Body::NeedMore(k),
            };
        }
        at = k + 2;
    }
}

/// Bytes of unquoted words: letters, digits, `_`, `$`, `@`, and any non-ASCII byte.
pub(crate) fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'@') || byte >= 0x80
}

impl Tokenizer {
    pub(crate) fn new(dialect: SqlDialect) -> Tokenizer {
        Tokenizer {
            dialect,
            delimiter: b";".to_vec(),
            backslash_strings: dialect == SqlDialect::MySql,
            open: Open::Nothing,
            in_version_comment: false,
        }
    }

    fn mysql(&self) -> bool {
        self.dialect == SqlDialect::MySql
    }

    /// Forgets whatever was open: a statement is read again from its start.
    pub(crate) fn reset(&mut self) {
        self.restart(false);
    }

    /// Whether the tokenizer is inside a MySQL version comment (`/*!50003 ... */`), which a
    /// statement may have opened and a later one close.
    pub(crate) fn in_version_comment(&self) -> bool {
        self.in_version_comment
    }

    /// Forgets whatever a statement opened, to read it again from its start, which was inside
    /// a version comment or not: what the statement started in, not what a cut left, so that a
    /// statement reads alike wherever a buffer ends.
    pub(crate) fn restart(&mut self, in_version_comment: bool) {
        self.open = Open::Nothing;
        self.in_version_comment = in_version_comment;
    }

    /// What is still open at the end of the input, if anything but a line comment.
    pub(crate) fn unfinished(&self) -> Option<&'static str> {
        match self.open {
            Open::Nothing | Open::LineComment => None,
            Open::Str { .. } => Some("a string"),
            Open::Comment { .. } => Some("a comment"),
            Open::Dollar { .. } => Some("a dollar-quoted string"),
        }
    }

    /// Skips white space and comments (and, with `versions`, the opening and closing marks of
    /// version comments) from `*at`, up to the next token or the end of the buffer.
    pub(crate) fn skip_trivia(
        &mut self,
        buf: &[u8],
        at: &mut usize,
        last: bool,
        versions: bool,
    ) -> Result<(), Stop> {
        loop {
            match &self.open {
                Open::Comment { depth } => {
                    let depth = *depth;
                    self.comment(buf, at, last, depth)?;
                    // Still open: the buffer ended inside the comment, which the next one
                    // goes on with (or, at the end of the input, which stays unfinished).
                    if matches!(self.open, Open::Comment { .. }) {
                        return Ok(());
                    }
                    continue;
                }
                Open::LineComment => match memchr(b'\n', &buf[*at..]) {
                    Some(k) => {
                        *at += k + 1;
                        self.open = Open::Nothing;
                        continue;
                    }
                    None => {
                        *at = buf.len();
                        return Ok(());
                    }
                },
                Open::Str { .. } | Open::Dollar { .. } => return Ok(()),
                Open::Nothing => {}
            }
            let Some(&byte) = buf.get(*at) else {
                return Ok(());
            };
            let here = *at;
            let peek = |offset: usize| -> Result<Option<u8>, Stop> {
                match buf.get(here + offset) {
                    Some(&b) => Ok(Some(b)),
                    None if last => Ok(None),
                    None => Err(Stop::NeedMore(here)),
                }
            };
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => *at += 1,
                b'#' if self.mysql() => {
                    self.open = Open::LineComment;
                    *at += 1;
                }
                b'-' if peek(1)? == Some(b'-') => {
                    // MySQL needs a blank (or the end) after `--`; PostgreSQL does not.
                    let after = peek(2)?;
                    if self.mysql() && after.is_some_and(|b| !b.is_ascii_whitespace()) {
                        return Ok(());
                    }
                    self.open = Open::LineComment;
                    *at += 2;
                }
                b'/' if peek(1)? == Some(b'*') => {
                    if self.mysql() && matches!(peek(2)?, Some(b'!' | b'M')) {
                        if !versions {
                            return Ok(());
                        }
                        let opener = match peek(2)? {
                            Some(b'M') if peek(3)? == Some(b'!') => 4,
                            Some(b'!') => 3,
                            _ => 0,
                        };
                        if opener > 0 {
                            let digits = buf[*at + opener..]
                                .iter()
                                .take_while(|b| b.is_ascii_digit())
                                .count();
                            if *at + opener + digits == buf.len() && !last {
                                return Err(Stop::NeedMore(*at));
                            }
                            *at += opener + digits;
                            self.in_version_comment = true;
                            continue;
                        }
                    }
                    *at += 2;
                    self.open = Open::Comment { depth: 1 };
                }
                b'*' if versions && self.in_version_comment && peek(1)? == Some(b'/') => {
                    *at += 2;
                    self.in_version_comment = false;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Reads on inside a `/* */` comment (nested `depth` deep, which only PostgreSQL allows).
    fn comment(&mut self, buf: &[u8], at: &mut usize, last: bool, depth: u32) -> Result<(), Stop> {
        let nests = !self.mysql();
        let mut depth = depth;
        let mut i = *at;
        loop {
            let rest = &buf[i..];
            let found = match nests {
                true => memchr2(b'*', b'/', rest),
                false => memchr(b'*', rest),
            };
            let Some(k) = found.map(|k| i + k) else {
                *at = buf.len();
                self.open = Open::Comment { depth };
                return Ok(());
            };
            let Some(&next) = buf.get(k + 1) else {
                *at = k;
                self.open = Open::Comment { depth };
                return match last {
                    true => {
                        *at = buf.len();
                        Ok(())
                    }
                    false => Err(Stop::NeedMore(k)),
                };
            };
            i = k + 1;
            if buf[k] == b'*' && next == b'/' {
                depth -= 1;
                i = k + 2;
                if depth == 0 {
                    *at = i;
                    self.open = Open::Nothing;
                    return Ok(());
                }
            } else if buf[k] == b'/' && next == b'*' {
                depth += 1;
                i = k + 2;
            }
        }
    }

    /// The next token from `*at`, or `None` at the end of the buffer (a string or a comment
    /// may still be open: the next buffer goes on with it).
    pub(crate) fn next(
        &mut self,
        buf: &[u8],
        at: &mut usize,
        last: bool,
    ) -> Result<Option<Token>, Stop> {
        match self.open.clone() {
            Open::Str { quote, backslash } => {
                if *at == buf.len() {
                    return Ok(None);
                }
                return self
                    .string(buf, at, *at, quote, backslash, 0..0, last)
                    .map(Some);
            }
            Open::Dollar { closer } => {
                if *at == buf.len() {
                    return Ok(None);
                }
                return self.dollar_body(buf, at, closer, last).map(Some);
            }
            _ => {}
        }
        self.skip_trivia(buf, at, last, true)?;
        if !matches!(self.open, Open::Nothing) || *at == buf.len() {
            return Ok(None);
        }
        let start = *at;
        let byte = buf[start];
        let delimiter = self.delimiter.as_slice();
        if byte == delimiter[0] {
            let available = &buf[start..buf.len().min(start + delimiter.len())];
            if available == delimiter {
                *at += delimiter.len();
                return Ok(Some(Token {
                    kind: Kind::Delimiter,
                    span: start..*at,
                }));
            }
            if delimiter.starts_with(available) && !last {
                return Err(Stop::NeedMore(start));
            }
        }
        let mysql = self.mysql();
        match byte {
            b'\'' => {
                let backslash = self.backslash_strings;
                self.string(buf, at, start + 1, b'\'', backslash, 0..0, last)
                    .map(Some)
            }
            b'"' if mysql => self
                .string(buf, at, start + 1, b'"', true, 0..0, last)
                .map(Some),
            b'"' | b'`' => self.quoted_name(buf, at, byte, last).map(Some),
            b'$' if !mysql => match self.dollar_opener(buf, start, last)? {
                Some(closer) => {
                    *at = start + closer.len();
                    self.dollar_body(buf, at, closer, last).map(Some)
                }
                None => {
                    *at += 1;
                    Ok(Some(Token {
                        kind: Kind::Punct(byte),
                        span: start..*at,
                    }))
                }
            },
            _ if is_word_byte(byte) => {
                let length = buf[start..]
                    .iter()
                    .take_while(|&&b| is_word_byte(b))
                    .count();
                let end = start + length;
                if end == buf.len() && !last {
                    return Err(Stop::NeedMore(start));
                }
                *at = end;
                if buf.get(end) == Some(&b'\'') && self.is_string_prefix(&buf[start..end]) {
                    let backslash = match mysql {
                        true => true,
                        false => buf[start].eq_ignore_ascii_case(&b'e') || self.backslash_strings,
                    };
                    return self
                        .string(buf, at, end + 1, b'\'', backslash, start..end, last)
                        .map(Some);
                }
                Ok(Some(Token {
                    kind: Kind::Word,
                    span: start..end,
                }))
            }
            _ => {
                *at += 1;
                Ok(Some(Token {
                    kind: Kind::Punct(byte),
                    span: start..*at,
                }))
            }
        }
    }

    /// Whether `word`, glued to a quote, introduces the string: `N`, `X`, `B` (and PostgreSQL's
    /// `E`), or a MySQL character set introducer (`_binary`, `_utf8mb4`).
    fn is_string_prefix(&self, word: &[u8]) -> bool {
        match word {
            [b'N' | b'n' | b'X' | b'x' | b'B' | b'b'] => true,
            [b'E' | b'e'] => !self.mysql(),
            [b'_', ..] => self.mysql(),
            _ => false,
        }
    }

    /// A string (or the piece of it in this buffer) whose body starts at `from`. A piece that
    /// stops before an undecided byte is returned first; the call after it stops there.
    #[allow(clippy::too_many_arguments)]
    fn string(
        &mut self,
        buf: &[u8],
        at: &mut usize,
        from: usize,
        quote: u8,
        backslash: bool,
        prefix: Range<usize>,
        last: bool,
    ) -> Result<Token, Stop> {
        let (content_end, closed) = match string_body(buf, from, quote, backslash, last) {
            Body::Closed { content_end, next } => {
                *at = next;
                self.open = Open::Nothing;
                (content_end, true)
            }
            Body::Open => {
                *at = buf.len();
                self.open = Open::Str { quote, backslash };
                (buf.len(), false)
            }
            Body::NeedMore(k) if k == from => {
                self.open = Open::Str { quote, backslash };
                return Err(Stop::NeedMore(k));
            }
            Body::NeedMore(k) => {
                *at = k;
                self.open = Open::Str { quote, backslash };
                (k, false)
            }
        };
        Ok(Token {
            kind: Kind::Str { prefix, closed },
            span: from..content_end,
        })
    }

    /// A quoted name: it must end in this buffer (names are short).
    fn quoted_name(
        &mut self,
        buf: &[u8],
        at: &mut usize,
        quote: u8,
        last: bool,
    ) -> Result<Token, Stop> {
        let start = *at;
        match string_body(buf, start + 1, quote, false, last) {
            Body::Closed { content_end, next } => {
                *at = next;
                Ok(Token {
                    kind: Kind::Ident,
                    span: start + 1..content_end,
                })
            }
            Body::Open if last => Err(Stop::Error(start, "unterminated quoted name".into())),
            Body::Open | Body::NeedMore(_) => Err(Stop::NeedMore(start)),
        }
    }

    /// The closing tag of a dollar quote opening at `start` (`$$`, `$body$`), or `None` when the
    /// `$` opens none (a parameter such as `$1`).
    fn dollar_opener(&self, buf: &[u8], start: usize, last: bool) -> Result<Option<Vec<u8>>, Stop> {
        let tag_length = buf[start + 1..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
            .count();
        let close = start + 1 + tag_length;
        match buf.get(close) {
            None if !last => Err(Stop::NeedMore(start)),
            Some(b'$') if !buf[start + 1].is_ascii_digit() || tag_length == 0 => {
                Ok(Some(buf[start..=close].to_vec()))
            }
            _ => Ok(None),
        }
    }

    /// Reads on inside a dollar-quoted string until `closer`.
    fn dollar_body(
        &mut self,
        buf: &[u8],
        at: &mut usize,
        closer: Vec<u8>,
        last: bool,
    ) -> Result<Token, Stop> {
        let from = *at;
        if let Some(k) = memchr::memmem::find(&buf[from..], &closer) {
            *at = from + k + closer.len();
            self.open = Open::Nothing;
            return Ok(Token {
                kind: Kind::Str {
                    prefix: 0..0,
                    closed: true,
                },
                span: from..from + k,
            });
        }
        // A closer cut by the end of the buffer is read again with the next one.
        let tail_start = buf.len().saturating_sub(closer.len() - 1).max(from);
        let cut = match last {
            true => None,
            false => memchr(b'$', &buf[tail_start..]).map(|k| tail_start + k),
        };
        let end = cut.unwrap_or(buf.len());
        *at = end;
        self.open = Open::Dollar { closer };
        if let Some(cut) = cut
            && cut == from
        {
            return Err(Stop::NeedMore(cut));
        }
        Ok(Token {
            kind: Kind::Str {
                prefix: 0..0,
                closed: false,
            },
            span: from..end,
        })
    }
}

/// A possibly qualified name at `tokens[at]` (`db`.`t`, `public.t`): its parts, names as
/// [`Token::name`] reads them, and the index after it.
pub(crate) fn qualified_name(buf: &[u8], tokens: &[Token], at: usize) -> (Vec<String>, usize) {
    qualified_name_by(tokens, at, |token| token.name(buf))
}

/// A possibly qualified name at `tokens[at]`, its parts read by `part` (which says what a
/// token names, if it names anything), and the index after it.
pub(crate) fn qualified_name_by(
    tokens: &[Token],
    at: usize,
    part: impl Fn(&Token) -> Option<String>,
) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    let mut i = at;
    while let Some(part) = tokens.get(i).and_then(&part) {
        parts.push(part);
        i += 1;
        if !tokens.get(i).is_some_and(|t| t.is_punct(b'.')) {
            break;
        }
        i += 1;
    }
    (parts, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of a complete input, as (kind, text).
    fn tokens(dialect: SqlDialect, sql: &str) -> Vec<(Kind, String)> {
        let mut tokenizer = Tokenizer::new(dialect);
        let buf = sql.as_bytes();
        let mut at = 0;
        let mut found = Vec::new();
        while let Ok(Some(token)) = tokenizer.next(buf, &mut at, true) {
            let text = String::from_utf8_lossy(&buf[token.span.clone()]).into_owned();
            found.push((token.kind, text));
        }
        assert_eq!(at, buf.len(), "read to the end");
        found
    }

    #[test]
    fn mysql_strings_escapes_and_comments() {
        let found = tokens(
            SqlDialect::MySql,
            "/*!40101 SET NAMES latin1 */; -- note\n# more\nINSERT 'a\\'b''c' \"d\\\"\" _binary'x' X'4142' `we``ird` /* c */ 1;",
        );
        let kinds: Vec<&str> = found.iter().map(|(_, text)| text.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "SET", "NAMES", "latin1", ";", "INSERT", "a\\'b''c", "d\\\"", "x", "4142",
                "we``ird", "1", ";"
            ]
        );
        assert!(matches!(&found[8].0, Kind::Str { prefix, closed: true } if prefix.len() == 1));
        assert_eq!(found[9].0, Kind::Ident);
    }

    #[test]
    fn postgresql_strings_names_and_dollar_quotes() {
        let found = tokens(
            SqlDialect::PostgreSql,
            "SELECT 'it''s \\', E'a\\'b', \"Na\"\"me\", $f$ body; 'x' $f$, $1 /* a /* nested */ b */;",
        );
        let texts: Vec<&str> = found.iter().map(|(_, text)| text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "SELECT",
                "it''s \\",
                ",",
                "a\\'b",
                ",",
                "Na\"\"me",
                ",",
                " body; 'x' ",
                ",",
                "$",
                "1",
                ";"
            ]
        );
    }

    #[test]
    fn copy_fields_end_at_a_tab_or_newline_no_backslash_escapes() {
        let closed = |k| Body::Closed {
            content_end: k,
            next: k,
        };
        assert_eq!(copy_field_body(b"ab\tc", 0, false), closed(2));
        assert_eq!(copy_field_body(b"ab\ncd", 1, false), closed(2));
        // A backslash and the byte itself are data; two backslashes are one.
        assert_eq!(copy_field_body(b"a\\\tb\n", 0, false), closed(4));
        assert_eq!(copy_field_body(b"a\\\nb\tc", 0, false), closed(4));
        assert_eq!(copy_field_body(b"a\\\\\tb", 0, false), closed(3));
        assert_eq!(copy_field_body(b"\\N\t", 0, false), closed(2));
        // A backslash last in the buffer needs the byte after it.
        assert_eq!(copy_field_body(b"ab\\", 0, false), Body::NeedMore(2));
        assert_eq!(copy_field_body(b"ab\\", 0, true), Body::Open);
        assert_eq!(copy_field_body(b"ab\\\\", 0, false), Body::Open);
    }

    #[test]
    fn a_buffer_ending_at_an_undecided_byte_asks_for_more() {
        let mut tokenizer = Tokenizer::new(SqlDialect::MySql);
        let mut at = 0;
        // The quote may be the first of two.
        let first = tokenizer.next(b"'abc'", &mut at, false);
        assert!(matches!(
            first,
            Ok(Some(Token {
                kind: Kind::Str { closed: false, .. },
                ..
            }))
        ));
        assert_eq!(at, 4);
        assert_eq!(
            tokenizer.next(b"'abc'", &mut at, false),
            Err(Stop::NeedMore(4))
        );
        let mut tokenizer = Tokenizer::new(SqlDialect::MySql);
        let mut at = 0;
        assert_eq!(
            tokenizer.next(b"INSER", &mut at, false),
            Err(Stop::NeedMore(0))
        );
        assert_eq!(
            tokenizer.next(b"/* a *", &mut at, false),
            Err(Stop::NeedMore(5))
        );
        assert_eq!(tokenizer.unfinished(), Some("a comment"));
    }
}
