//! The rows of a PostgreSQL `COPY ... FROM stdin` block: lines of tab-separated fields with
//! backslash escapes, up to `\.`. It is apart because its grammar is a line format, not SQL:
//! it goes from tab to tab, and `\N` is a `NULL`.

use std::ops::ControlFlow;

use super::{FIELD, Lexed, Lexer, OpenValue, Phase, Position, Rows, unexpected};
use crate::sql::tokens::{Body, Stop, copy_field_body};

/// What a step of the rows leaves to do: go on at a byte, or stop with what
/// [`Lexer::copy_rows`] returns.
type Step = ControlFlow<Option<usize>, usize>;

/// The rest of the `COPY ... FROM stdin;` line, `buf[at]` being `byte`: white space up to the
/// newline that starts the rows.
fn copy_header(rows: &mut Rows, byte: u8, at: usize) -> Result<Step, Stop> {
    match byte {
        b' ' | b'\t' | b'\r' => Ok(ControlFlow::Continue(at + 1)),
        b'\n' => {
            rows.phase = Phase::LineStart;
            Ok(ControlFlow::Continue(at + 1))
        }
        _ => Err(Stop::Error(
            at,
            unexpected(byte, "after COPY ... FROM stdin;"),
        )),
    }
}

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
            let step = match rows.phase {
                Phase::Header => copy_header(rows, byte, at)?,
                Phase::LineStart => self.copy_line_start(rows, buf, at, last, out)?,
                Phase::Value(p) => self.copy_field(rows, p, buf, at, last, out)?,
                _ => return Err(Stop::Error(at, unexpected(byte, "in COPY data"))),
            };
            match step {
                ControlFlow::Continue(next) => at = next,
                ControlFlow::Break(end) => return Ok(end),
            }
        }
    }

    /// At the start of a line of `COPY` data, `buf[at]`: the end of the block (`\.`), an
    /// empty row (of a table without columns), or the first field of a row.
    fn copy_line_start(
        &mut self,
        rows: &mut Rows,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Step, Stop> {
        match buf[at] {
            b'\\' => {
                let rest = &buf[at..];
                if rest.len() < 4 && !last {
                    return Err(Stop::NeedMore(at));
                }
                let end_mark = [&b"\\.\n"[..], b"\\.\r\n", b"\\."]
                    .into_iter()
                    .find(|mark| rest.starts_with(mark) && (mark.len() > 2 || rest.len() == 2));
                if let Some(mark) = end_mark {
                    return Ok(ControlFlow::Break(Some(at + mark.len())));
                }
                self.start_row(rows);
                rows.phase = Phase::Value(0);
                Ok(ControlFlow::Continue(at))
            }
            // A row of a table without columns (`CREATE TABLE t ()`) is an empty line.
            b'\n' if rows.positions.is_empty() => {
                self.start_row(rows);
                self.end_row_piece(out, true);
                Ok(ControlFlow::Continue(at + 1))
            }
            _ => {
                self.start_row(rows);
                rows.phase = Phase::Value(0);
                Ok(ControlFlow::Continue(at))
            }
        }
    }

    /// The field at position `p` of a row, from `buf[at]`: whole, or its piece in this buffer,
    /// left open for the next.
    fn copy_field(
        &mut self,
        rows: &mut Rows,
        p: usize,
        buf: &[u8],
        at: usize,
        last: bool,
        out: &mut Lexed,
    ) -> Result<Step, Stop> {
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
            return Ok(ControlFlow::Continue(
                self.field_end(rows, p, buf, end, out)?,
            ));
        }
        rows.open = Some(OpenValue {
            position: p,
            cell,
            text: position.text,
            quote: FIELD,
            backslash: false,
        });
        match end < buf.len() {
            true => Err(Stop::NeedMore(end)),
            false => Ok(ControlFlow::Break(None)),
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
