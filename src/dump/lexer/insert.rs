//! The tuples of `INSERT ... VALUES`: parentheses, commas, quoted strings (with their
//! prefixes: `_binary`, `_utf8mb4`, `E`, `X`, `b`) and bare literals. It is apart because its
//! grammar is its own: it jumps from quote to quote with `memchr`, which a token reader would
//! not.

use super::{BARE, Lexed, Lexer, OpenValue, Phase, Position, Rows, unexpected};
use crate::sql::tokens::{Body, Stop, is_word_byte, string_body};

impl Lexer {
    /// Reads `INSERT` tuples: `(v, v, ...), (...)` up to the delimiter. `Ok(Some(end))` when
    /// the statement ends, `Ok(None)` at the end of the buffer.
    pub(super) fn tuples(
        &mut self,
        rows: &mut Rows,
        buf: &[u8],
        mut at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Option<usize>, Stop> {
        loop {
            if let Some(open) = rows.open {
                match self.continue_value(rows, open, buf, at, last, out)? {
                    Some(next) => at = next,
                    None => return Ok(None),
                }
            }
            let Some(&byte) = buf.get(at) else {
                return Ok(None);
            };
            if matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                at += 1;
                continue;
            }
            match rows.phase {
                Phase::BeforeRow if byte == b'(' => {
                    self.start_row(rows);
                    rows.phase = Phase::Value(0);
                    at += 1;
                }
                Phase::Value(p) => {
                    at = self.value(rows, p, buf, at, last, out)?;
                    // The usual case, `v,v` and `v),(`, without going round the loop.
                    if rows.open.is_none() {
                        match buf.get(at) {
                            Some(b',') => {
                                rows.phase = Phase::Value(p + 1);
                                at += 1;
                            }
                            Some(b')') if p + 1 == rows.positions.len() => {
                                self.end_row_piece(out, true);
                                at += 1;
                                rows.phase = Phase::AfterRow;
                                if buf.get(at) == Some(&b',') && buf.get(at + 1) == Some(&b'(') {
                                    self.start_row(rows);
                                    rows.phase = Phase::Value(0);
                                    at += 2;
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Phase::AfterValue(p) if byte == b',' => {
                    rows.phase = Phase::Value(p + 1);
                    at += 1;
                }
                Phase::AfterValue(p) if byte == b')' => {
                    if p + 1 != rows.positions.len() {
                        let message = format!(
                            "a row of {} values for {} columns",
                            p + 1,
                            rows.positions.len()
                        );
                        return Err(Stop::Error(at, message));
                    }
                    self.end_row_piece(out, true);
                    rows.phase = Phase::AfterRow;
                    at += 1;
                }
                Phase::AfterRow if byte == b',' => {
                    rows.phase = Phase::BeforeRow;
                    at += 1;
                }
                Phase::AfterRow => {
                    let delimiter = self.tokens.delimiter.as_slice();
                    let available = &buf[at..buf.len().min(at + delimiter.len())];
                    if available == delimiter {
                        return Ok(Some(at + delimiter.len()));
                    }
                    if delimiter.starts_with(available) && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    return Err(Stop::Error(at, unexpected(byte, "after a row")));
                }
                _ => {
                    return Err(Stop::Error(
                        at,
                        unexpected(byte, "in the VALUES of an INSERT"),
                    ));
                }
            }
        }
    }

    /// Reads the value at position `p` of a tuple, starting at `buf[at]`; returns where
    /// reading goes on (after the value, or at the end of the buffer with the value open).
    fn value(
        &mut self,
        rows: &mut Rows,
        p: usize,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        let Some(&position) = rows.positions.get(p) else {
            let message = format!("a row of more than {} values", rows.positions.len());
            return Err(Stop::Error(at, message));
        };
        let byte = buf[at];
        // A string: where its body starts, its quote, its escapes, and whether it is text.
        let string = match byte {
            b'\'' => Some((at + 1, b'\'', self.tokens.backslash_strings, true)),
            b'"' if self.mysql() => Some((at + 1, b'"', true, true)),
            b'X' | b'x' | b'B' | b'b' | b'N' | b'n' | b'E' | b'e' | b'_' => {
                self.prefixed_string(buf, at, last)?
            }
            _ => None,
        };
        let Some((body, quote, backslash, text)) = string else {
            return self.bare_value(rows, p, position, buf, at, last);
        };
        let position = Position {
            text: position.text && text,
            ..position
        };
        let cell = self.new_cell(position);
        let (end, resume, closed) = match string_body(buf, body, quote, backslash, last) {
            Body::Closed { content_end, next } => (content_end, next, true),
            Body::Open if last => return Err(Stop::Error(at, "an unterminated string".into())),
            Body::Open => (buf.len(), buf.len(), false),
            Body::NeedMore(k) => (k, k, false),
        };
        self.piece(rows, position, cell, buf, body..end, out);
        if closed {
            rows.phase = Phase::AfterValue(p);
        } else {
            rows.open = Some(OpenValue {
                position: p,
                cell,
                text: position.text,
                quote,
                backslash,
            });
            if resume < buf.len() {
                return Err(Stop::NeedMore(resume));
            }
        }
        Ok(resume)
    }

    /// A string with a prefix at `buf[at]`: `X'...'` and `B'...'` (not text), `N'...'`,
    /// PostgreSQL's `E'...'`, MySQL's `_binary '...'` (not text) and `_utf8mb4'...'`. Returns
    /// where its body starts, its quote, its escapes and whether it is text; `None` when the
    /// byte starts no string.
    fn prefixed_string(
        &self,
        buf: &[u8],
        at: usize,
        last: bool,
    ) -> Result<Option<(usize, u8, bool, bool)>, Stop> {
        let mysql = self.mysql();
        if buf[at] == b'_' && mysql {
            let word = buf[at..].iter().take_while(|&&b| is_word_byte(b)).count();
            let quote = at + word + buf[at + word..].iter().take_while(|&&b| b == b' ').count();
            return match buf.get(quote) {
                None if !last => Err(Stop::NeedMore(at)),
                Some(&q @ (b'\'' | b'"')) => {
                    let binary = buf[at..at + word].eq_ignore_ascii_case(b"_binary");
                    Ok(Some((quote + 1, q, true, !binary)))
                }
                _ => Err(Stop::Error(
                    at,
                    "a character set introducer without a string".into(),
                )),
            };
        }
        match buf.get(at + 1) {
            None if !last => Err(Stop::NeedMore(at)),
            Some(b'\'') => Ok(match buf[at] {
                b'X' | b'x' | b'B' | b'b' => Some((at + 2, b'\'', false, false)),
                b'N' | b'n' => Some((at + 2, b'\'', self.tokens.backslash_strings, true)),
                b'E' | b'e' if !mysql => Some((at + 2, b'\'', true, true)),
                _ => None,
            }),
            _ => Ok(None),
        }
    }

    /// A literal that is not a string: a number, `NULL`, `DEFAULT`, `TRUE`, a hexadecimal or
    /// binary literal (`0x4142`, `0b101`), which can be megabytes long.
    fn bare_value(
        &mut self,
        rows: &mut Rows,
        p: usize,
        position: Position,
        buf: &[u8],
        at: usize,
        last: bool,
    ) -> Result<usize, Stop> {
        let mut end = None;
        let mut stray = None;
        for (k, &b) in buf[at..].iter().enumerate() {
            if ends_bare(b) {
                end = Some(at + k);
                break;
            }
            if stray.is_none() && !is_literal_byte(b) {
                stray = Some(at + k);
            }
        }
        let token = &buf[at..end.unwrap_or(buf.len())];
        let numeric = matches!(token.first(), Some(b'0'..=b'9' | b'-' | b'+' | b'.'));
        // A number is judged byte by byte, at the first byte that cannot be part of it, so that
        // one cut into pieces by buffer ends (a long `0x...` is read on in the next buffer) is
        // refused at the same byte with the same words as one read whole.
        if let Some(k) = stray.filter(|_| numeric) {
            return Err(Stop::Error(k, unexpected(buf[k], "in a number")));
        }
        if end.is_none() && !last && (!numeric || token.len() < 8) {
            return Err(Stop::NeedMore(at));
        }
        let keyword = || {
            ["NULL", "DEFAULT", "TRUE", "FALSE"]
                .iter()
                .any(|k| token.eq_ignore_ascii_case(k.as_bytes()))
        };
        if !numeric && !keyword() {
            let shown = String::from_utf8_lossy(&token[..token.len().min(20)]).into_owned();
            return Err(Stop::Error(at, format!("unexpected value `{shown}`")));
        }
        if token.eq_ignore_ascii_case(b"NULL") {
            self.null_cell(rows, position);
        }
        let position = Position {
            text: false,
            ..position
        };
        let cell = self.new_cell(position);
        if position.key {
            self.key.extend_from_slice(token);
        }
        match end {
            Some(end) => {
                rows.phase = Phase::AfterValue(p);
                Ok(end)
            }
            None => {
                rows.open = Some(OpenValue {
                    position: p,
                    cell,
                    text: false,
                    quote: BARE,
                    backslash: false,
                });
                Ok(buf.len())
            }
        }
    }
}

/// Whether `byte` ends a bare literal in a tuple.
pub(super) fn ends_bare(byte: u8) -> bool {
    matches!(byte, b',' | b')' | b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes of a bare literal: a number such as `-1.5e+3`, `0x4142` or `0b101`, or a keyword.
pub(super) fn is_literal_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'+')
}
