//! The rows of a PostgreSQL `COPY ... FROM stdin` block: lines of tab-separated fields with
//! backslash escapes, up to `\.`. It is apart because its grammar is a line format, not SQL:
//! it goes from tab to tab, and `\N` is a `NULL`.

use super::{FIELD, Lexed, Lexer, OpenValue, Phase, Position, Rows, unexpected};
use crate::sql::tokens::{Body, Stop, copy_field_body};

impl Lexer {
    /// Reads `COPY` rows: lines of tab-separated fields, up to the line `\.`. `Ok(Some(end))`
    /// when the block ends, `Ok(None)` at the end of the buffer.
    pub(super) fn copy_rows(
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
                    Some(next) => at = self.field_end(rows, open.position, buf, next, out)?,
                    None => return Ok(None),
                }
            }
            let Some(&byte) = buf.get(at) else {
                return Ok(None);
            };
            match rows.phase {
                Phase::Header => match byte {
                    b' ' | b'\t' | b'\r' => at += 1,
                    b'\n' => {
                        rows.phase = Phase::LineStart;
                        at += 1;
                    }
                    _ => {
                        return Err(Stop::Error(
                            at,
                            unexpected(byte, "after COPY ... FROM stdin;"),
                        ));
                    }
                },
                Phase::LineStart if byte == b'\\' => {
                    let rest = &buf[at..];
                    if rest.len() < 4 && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    let end_mark = [&b"\\.\n"[..], b"\\.\r\n", b"\\."]
                        .into_iter()
                        .find(|mark| rest.starts_with(mark) && (mark.len() > 2 || rest.len() == 2));
                    match end_mark {
                        Some(mark) => return Ok(Some(at + mark.len())),
                        None => {
                            self.start_row(rows);
                            rows.phase = Phase::Value(0);
                        }
                    }
                }
                // A row of a table without columns (`CREATE TABLE t ()`) is an empty line.
                Phase::LineStart if byte == b'\n' && rows.positions.is_empty() => {
                    self.start_row(rows);
                    self.end_row_piece(out, true);
                    at += 1;
                }
                Phase::LineStart => {
                    self.start_row(rows);
                    rows.phase = Phase::Value(0);
                }
                Phase::Value(p) => {
                    let Some(&position) = rows.positions.get(p) else {
                        let message = format!("a row of more than {} fields", rows.positions.len());
                        return Err(Stop::Error(at, message));
                    };
                    // Where the field ends, or where this buffer's piece of it does.
                    let (end, open) = match copy_field_body(buf, at, last) {
                        Body::Closed { content_end, .. } => (content_end, false),
                        Body::Open => (buf.len(), true),
                        Body::NeedMore(k) => (k, true),
                    };
                    if open && buf.len() - at < 3 && !last {
                        return Err(Stop::NeedMore(at));
                    }
                    let null = &buf[at..end] == b"\\N";
                    if null {
                        self.null_cell(rows, position);
                    }
                    let position = Position {
                        text: position.text && !null,
                        kept: position.kept && !null,
                        ..position
                    };
                    let cell = self.new_cell(position);
                    self.piece(rows, position, cell, buf, at..end, out);
                    if !open {
                        at = self.field_end(rows, p, buf, end, out)?;
                        continue;
                    }
                    rows.open = Some(OpenValue {
                        position: p,
                        cell,
                        text: position.text,
                        quote: FIELD,
                        backslash: false,
                    });
                    return match end < buf.len() {
                        true => Err(Stop::NeedMore(end)),
                        false => Ok(None),
                    };
                }
                _ => return Err(Stop::Error(at, unexpected(byte, "in COPY data"))),
            }
        }
    }

    /// After the field at position `p`, ended by the tab or newline at `buf[end]`.
    fn field_end(
        &mut self,
        rows: &mut Rows,
        p: usize,
        buf: &[u8],
        end: usize,
        out: &mut Lexed,
    ) -> Result<usize, Stop> {
        if buf[end] == b'\t' {
            rows.phase = Phase::Value(p + 1);
            return Ok(end + 1);
        }
        if p + 1 != rows.positions.len() {
            let message = format!(
                "a row of {} fields for {} columns",
                p + 1,
                rows.positions.len()
            );
            return Err(Stop::Error(end, message));
        }
        self.end_row_piece(out, true);
        rows.phase = Phase::LineStart;
        Ok(end + 1)
    }
}
