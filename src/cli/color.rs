//! Color on standard output: `--color auto|always|never` and `NO_COLOR`.
//!
//! Color is for a person at a terminal, so `auto` colors only when standard output is one and
//! `NO_COLOR` (<https://no-color.org>) is not set to something; `always` and `never` decide
//! whatever the environment says, as a command-line option overrides a setting. Few things get
//! color, and always the same things: a count of double-encoded characters that is not zero
//! (red), what they repair to (green), what was left alone and warnings (yellow), the name of
//! each input (bold). The text itself never changes, so that a pipe reads what a terminal shows
//! without the escapes.
//!
//! The choice is made once, in `main`, and read by the commands that print: it is a property of
//! the run, like the terminal itself.

use std::io::IsTerminal;
use std::sync::OnceLock;

use super::values::ColorArg;

/// Whether this run colors its standard output.
static ENABLED: OnceLock<bool> = OnceLock::new();

/// Decides, once, whether the run colors its output.
pub(crate) fn choose(choice: ColorArg) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    let enabled = decide(choice, no_color, std::io::stdout().is_terminal());
    // A second call would be a bug of `main`; the first choice stands.
    let _ = ENABLED.set(enabled);
}

/// The rule, apart from the process: `--color` wins, then `NO_COLOR`, then the terminal.
fn decide(choice: ColorArg, no_color: bool, terminal: bool) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => terminal && !no_color,
    }
}

fn enabled() -> bool {
    ENABLED.get().copied().unwrap_or(false)
}

/// The few styles the output uses.
#[derive(Clone, Copy)]
enum Style {
    Bold,
    Red,
    Green,
    Yellow,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Bold => "1",
            Style::Red => "1;31",
            Style::Green => "32",
            Style::Yellow => "33",
        }
    }
}

fn paint(out: &mut String, style: Style, text: &str) {
    if text.is_empty() {
        return;
    }
    out.push_str("\x1b[");
    out.push_str(style.code());
    out.push('m');
    out.push_str(text);
    out.push_str("\x1b[0m");
}

/// `scan`'s text report, colored when the run colors: the input's name, a count of
/// double-encoded characters that is not zero, what each sequence repairs to, warnings.
pub(crate) fn scan_text(text: &str) -> String {
    match enabled() {
        true => text.split_inclusive('\n').map(scan_line).collect(),
        false => text.to_owned(),
    }
}

fn scan_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 32);
    if !line.starts_with(' ') {
        // `NAME: 12 double-encoded characters (...)`: the name may hold `: ` itself, the count
        // is the last number before the first ` double-encoded`.
        if let Some(at) = line.find(" double-encoded character")
            && let Some(colon) = line.get(..at).and_then(|head| head.rfind(": "))
        {
            let (name, rest) = line.split_at(colon);
            let number = rest.get(2..at - colon).unwrap_or_default();
            paint(&mut out, Style::Bold, name);
            out.push_str(": ");
            match number == "0" {
                true => out.push_str(number),
                false => paint(&mut out, Style::Red, number),
            }
            out.push_str(rest.get(at - colon..).unwrap_or_default());
            return out;
        }
        return line.to_owned();
    }
    if let Some(rest) = line.trim_start().strip_prefix("warning:") {
        out.push_str(&line[..line.len() - line.trim_start().len()]);
        paint(&mut out, Style::Yellow, "warning:");
        out.push_str(rest);
        return out;
    }
    // `  Ã© → é × 12 (either, 1 layer)`
    if let Some(arrow) = line.find(" → ")
        && let Some(times) = line.find(" × ")
        && times > arrow
    {
        let start = arrow + " → ".len();
        out.push_str(&line[..start]);
        paint(&mut out, Style::Green, &line[start..times]);
        out.push_str(&line[times..]);
        return out;
    }
    line.to_owned()
}

/// `explain`'s text, colored when the run colors: what each run repairs to (green), runs left
/// alone (yellow), the repaired output (bold).
pub(crate) fn explain_text(text: &str) -> String {
    match enabled() {
        true => text.split_inclusive('\n').map(explain_line).collect(),
        false => text.to_owned(),
    }
}

fn explain_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 32);
    let body = line.trim_end_matches('\n');
    let end = &line[body.len()..];
    if let Some(output) = body.strip_prefix("output: ") {
        out.push_str("output: ");
        paint(&mut out, Style::Bold, output);
    } else if body.starts_with("run at byte ") && body.ends_with(", left alone") {
        let cut = body.len() - "left alone".len();
        out.push_str(&body[..cut]);
        paint(&mut out, Style::Yellow, "left alone");
    } else if body.starts_with("run at byte ") && body.ends_with(", repaired") {
        let cut = body.len() - "repaired".len();
        out.push_str(&body[..cut]);
        paint(&mut out, Style::Green, "repaired");
    } else if body.starts_with("    ")
        && let Some(arrow) = body.find(" → ")
    {
        // `    Ã© (c3 83 c2 a9) → é (U+00E9, c3 a9), ...`: the character is up to ` (`.
        let start = arrow + " → ".len();
        let stop = body[start..].find(" (").map_or(body.len(), |at| start + at);
        out.push_str(&body[..start]);
        paint(&mut out, Style::Green, &body[start..stop]);
        out.push_str(&body[stop..]);
    } else {
        out.push_str(body);
    }
    out.push_str(end);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_wins_then_no_color_then_the_terminal() {
        assert!(decide(ColorArg::Always, true, false));
        assert!(!decide(ColorArg::Never, false, true));
        assert!(decide(ColorArg::Auto, false, true));
        assert!(!decide(ColorArg::Auto, true, true));
        assert!(!decide(ColorArg::Auto, false, false));
    }

    #[test]
    fn a_scan_headline_colors_the_name_and_a_count_that_is_not_zero() {
        let line = "a: b.sql: 12 double-encoded characters, valid UTF-8\n";
        assert_eq!(
            scan_line(line),
            "\x1b[1ma: b.sql\x1b[0m: \x1b[1;31m12\x1b[0m double-encoded characters, valid UTF-8\n"
        );
        let clean = "x: 0 double-encoded characters\n";
        assert_eq!(
            scan_line(clean),
            "\x1b[1mx\x1b[0m: 0 double-encoded characters\n"
        );
        let sequence = "  Ã© → é × 3 (either, 1 layer)\n";
        assert_eq!(
            scan_line(sequence),
            "  Ã© → \x1b[32mé\x1b[0m × 3 (either, 1 layer)\n"
        );
    }

    #[test]
    fn explain_colors_the_repair_and_what_was_left_alone() {
        let text = "run at byte 3: Ã© (c3 83 c2 a9) — certain, repaired\n    Ã© (c3 83 c2 a9) → é \
                    (U+00E9, c3 a9), either reading, 1 layer\nrun at byte 9: X — weak, left alone\n";
        let colored: String = text.split_inclusive('\n').map(explain_line).collect();
        assert!(colored.contains("certain, \x1b[32mrepaired\x1b[0m\n"));
        assert!(colored.contains("→ \x1b[32mé\x1b[0m (U+00E9"));
        assert!(colored.contains("weak, \x1b[33mleft alone\x1b[0m\n"));
    }
}
