//! The report as one HTML page: self-contained (styles inline, charts as inline SVG), readable
//! offline and with no script, so that it can be mailed, archived or opened from a ticket.
//!
//! Everything that comes from the inputs (file names, table and column names, the sequences,
//! messages) is hostile: it is written through [`escape`], and a sequence's control characters
//! through [`visible`] first, so that a file named `<script>` shows as text and a C1 control
//! shows as `<U+0081>`. The page is pure text out of [`Merged`]: this module opens no files.

use std::fmt::Write as _;

use super::records::{ByName, ColumnRow, FileRow, Merged, SourceKind};
use crate::format::{count, thousands, visible};

/// How many rows a chart shows: beyond that a chart is unreadable; the tables list all.
const CHART_ROWS: usize = 20;

/// How many sequences the page lists.
const TOP_SEQUENCES: usize = 30;

/// The drawing width of a chart's bars, in SVG user units.
const BAR_WIDTH: f64 = 420.0;

/// `text` safe in HTML text and in a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A sequence or name as text: control characters named, then escaped.
fn shown(text: &str) -> String {
    escape(&visible(text))
}

/// The end of a chart's axis: the smallest 1, 2 or 5 times a power of ten at or above `max`
/// (0 for 0), so that the ticks fall on round numbers.
pub fn axis_end(max: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    let mut power = 1u64;
    loop {
        for step in [1, 2, 5] {
            let end = power.saturating_mul(step);
            if end >= max {
                return end;
            }
        }
        match power.checked_mul(10) {
            Some(next) => power = next,
            None => return u64::MAX,
        }
    }
}

/// The length of the bar of `value` on an axis ending at `end`, `width` being the axis's
/// length; a value that is not zero is at least one unit long, so that it shows.
pub fn bar_length(value: u64, end: u64, width: f64) -> f64 {
    if value == 0 || end == 0 {
        return 0.0;
    }
    let length = value as f64 / end as f64 * width;
    length.clamp(1.0, width)
}

/// The ticks of an axis ending at `end` (from [`axis_end`]), as (fraction of the axis, label):
/// fifths of an end that starts with 1 or 5, quarters of one that starts with 2, so that every
/// tick is a round number.
pub fn ticks(end: u64) -> Vec<(f64, String)> {
    if end == 0 {
        return vec![(0.0, "0".to_owned())];
    }
    let steps: u64 = match end.to_string().starts_with('2') {
        true => 4,
        false => 5,
    };
    (0..=steps)
        .map(|k| {
            let fraction = k as f64 / steps as f64;
            let label = match (end % steps) * k % steps {
                0 => thousands(end / steps * k + (end % steps) * k / steps),
                _ => format!("{:.1}", end as f64 * fraction),
            };
            (fraction, label)
        })
        .collect()
}

/// `text` cut to `max` characters (not bytes), with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    match text.chars().count() > max {
        true => {
            let kept: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{kept}…")
        }
        false => text.to_owned(),
    }
}

/// `text` cut to its last `max` characters, with an ellipsis when cut: the end of a path names
/// the file.
fn cut_start(text: &str, max: usize) -> String {
    let length = text.chars().count();
    match length > max {
        true => {
            let kept: String = text.chars().skip(length + 1 - max).collect();
            format!("…{kept}")
        }
        false => text.to_owned(),
    }
}

/// Where a chart's labels are cut when too long: paths keep their end, names their start.
#[derive(Clone, Copy)]
enum Cut {
    Start,
    End,
}

/// A horizontal bar chart of `rows` (label, value) with its title, as inline SVG, or a line
/// saying there is nothing to draw.
fn bar_chart(title: &str, rows: &[(String, u64)], color: &str, cut_at: Cut) -> String {
    let mut out = format!("<figure><figcaption>{}</figcaption>", escape(title));
    if rows.iter().all(|(_, value)| *value == 0) {
        out += "<p class=\"none\">nothing to draw: every count is zero</p></figure>";
        return out;
    }
    let rows = &rows[..rows.len().min(CHART_ROWS)];
    let max = rows.iter().map(|(_, value)| *value).max().unwrap_or(0);
    let end = axis_end(max);
    let (label_width, row_height, top) = (290.0, 22.0, 8.0);
    let height = top + row_height * rows.len() as f64 + 24.0;
    let width = label_width + BAR_WIDTH + 90.0;
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-size=\"12\" \
         font-family=\"sans-serif\"><title>{}</title>",
        escape(title)
    );
    let y_axis = top + row_height * rows.len() as f64;
    for (x, label) in ticks(end) {
        let x = label_width + BAR_WIDTH * x;
        let _ = write!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{y_axis}\" stroke=\"#ddd\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#666\">{label}</text>",
            y_axis + 16.0
        );
    }
    for (i, (label, value)) in rows.iter().enumerate() {
        let y = top + row_height * i as f64;
        let length = bar_length(*value, end, BAR_WIDTH);
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"><title>{}</title>{}</text>\
             <rect x=\"{label_width}\" y=\"{:.1}\" width=\"{length:.1}\" height=\"{:.1}\" \
             fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            label_width - 6.0,
            y + 15.0,
            shown(label),
            shown(&match cut_at {
                Cut::Start => cut_start(label, 44),
                Cut::End => cut(label, 44),
            }),
            y + 4.0,
            row_height - 8.0,
            label_width + length + 4.0,
            y + 15.0,
            thousands(*value)
        );
    }
    out += "</svg></figure>";
    out
}

fn cell_number(n: u64) -> String {
    format!("<td class=\"n\">{}</td>", thousands(n))
}

fn cell_text(text: &str) -> String {
    format!("<td>{}</td>", shown(text))
}

fn by_name_rows(by: &ByName, suffix: impl Fn(&str) -> String) -> Vec<(String, u64)> {
    by.iter().map(|(name, n)| (suffix(name), *n)).collect()
}

fn layers_label(layers: &str) -> String {
    match layers.parse::<u64>() {
        Ok(n) => count(n, "layer"),
        Err(_) => format!("{layers} layers"),
    }
}

/// A command line as a shell reads it: words quoted when they hold anything but the
/// characters no shell treats specially.
pub fn shell_words(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            match plain {
                true => word.clone(),
                false => format!("'{}'", word.replace('\'', r"'\''")),
            }
        })
        .collect();
    quoted.join(" ")
}

/// The page. `invocation` is the `report` command line that wrote it, shown with the
/// commands that reproduce the inputs.
pub fn render(merged: &Merged, invocation: &[String]) -> String {
    let totals = merged.totals();
    let mut page = String::with_capacity(64 * 1024);
    page += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>undouble report</title><style>";
    page += STYLE;
    page += "</style></head><body><h1>undouble report</h1>";

    // Totals.
    page += "<section id=\"totals\"><h2>Totals</h2><dl class=\"totals\">";
    for (what, value) in [
        ("files", totals.files),
        ("with double-encoded text", totals.damaged_files),
        ("double-encoded characters", totals.double_encoded),
        ("look-alikes left alone", totals.left_alone),
        ("non-ASCII characters fine", totals.fine_non_ascii),
        ("columns with double-encoded text", totals.damaged_columns),
        ("bytes", totals.bytes),
        ("skipped or unreadable", merged.problems.len() as u64),
    ] {
        let _ = write!(
            page,
            "<div><dt>{what}</dt><dd id=\"total-{}\">{}</dd></div>",
            what.replace(' ', "-"),
            thousands(value)
        );
    }
    page += "</dl>";
    let _ = write!(
        page,
        "<p>From {}: ",
        count(merged.sources.len() as u64, "input")
    );
    let names: Vec<String> = merged
        .sources
        .iter()
        .map(|source| {
            let kind = match source.kind {
                SourceKind::Scan => "scan".to_owned(),
                SourceKind::Audit if source.finished => "audit log".to_owned(),
                SourceKind::Audit => "audit log of a fix that did not finish".to_owned(),
            };
            format!("<code>{}</code> ({kind})", shown(&source.name))
        })
        .collect();
    page += &names.join(", ");
    page += ".</p></section>";

    // Charts.
    page += "<section id=\"charts\"><h2>Charts</h2><div class=\"charts\">";
    let mut per_file: Vec<(String, u64)> = merged
        .files
        .iter()
        .map(|f| (f.path.clone(), f.double_encoded))
        .collect();
    per_file.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    page += &bar_chart(
        "Double-encoded characters per file",
        &per_file,
        "#b8322f",
        Cut::Start,
    );
    let several_files = merged.columns.iter().any(|c| {
        merged
            .columns
            .first()
            .is_some_and(|first| first.path != c.path)
    });
    let mut per_column: Vec<(String, u64)> = merged
        .columns
        .iter()
        .filter(|c| c.double_encoded > 0)
        .map(|c| {
            // Columns of several files are told apart by the file's name.
            let label = match several_files {
                true => format!("{}.{} ({})", c.table, c.column, file_name(&c.path)),
                false => format!("{}.{}", c.table, c.column),
            };
            (label, c.double_encoded)
        })
        .collect();
    per_column.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if !merged.columns.is_empty() {
        page += &bar_chart(
            "Double-encoded characters per column",
            &per_column,
            "#b8322f",
            Cut::End,
        );
    }
    page += &bar_chart(
        "Double-encoded characters by layers removed",
        &by_name_rows(&totals.by_layers, layers_label),
        "#7a4fa3",
        Cut::End,
    );
    page += &bar_chart(
        "Double-encoded characters by reading (the code page that garbled them)",
        &by_name_rows(&totals.by_reading, str::to_owned),
        "#2f6db8",
        Cut::End,
    );
    let encodings = encoding_pairs(&merged.files);
    if !encodings.is_empty() {
        page += &bar_chart(
            "Files by declared → actual encoding",
            &encodings,
            "#3a8a4a",
            Cut::End,
        );
    }
    page += "</div></section>";

    page += &files_table(merged);
    page += &columns_table(&merged.columns);

    // Sequences.
    let top = merged.top_sequences(TOP_SEQUENCES);
    page += "<section id=\"sequences\"><h2>Most frequent sequences</h2>";
    if merged.sequences_are_tops {
        page += "<p class=\"note\">Of a scan, each file's own most frequent sequences only \
                 (<code>scan --top</code>); an audit log holds all.</p>";
    }
    let _ = write!(
        page,
        "<p>{} in all.</p>",
        count(merged.distinct_sequences() as u64, "distinct sequence")
    );
    page += "<table><thead><tr><th>garbled</th><th>repaired</th><th>reading</th>\
             <th>layers</th><th>count</th></tr></thead><tbody>";
    for seq in &top {
        page += "<tr>";
        let _ = write!(page, "<td class=\"seq\">{}</td>", shown(&seq.mojibake));
        let _ = write!(page, "<td class=\"seq\">{}</td>", shown(&seq.repaired));
        page += &cell_text(&seq.reading);
        page += &cell_number(seq.layers);
        page += &cell_number(seq.count);
        page += "</tr>";
    }
    page += "</tbody></table></section>";

    // Problems.
    if !merged.problems.is_empty() {
        page += "<section id=\"problems\"><h2>Skipped and unreadable</h2><table><thead><tr>\
                 <th>file</th><th>what</th><th>why</th></tr></thead><tbody>";
        for problem in &merged.problems {
            page += "<tr>";
            page += &cell_text(&problem.path);
            page += &cell_text(&problem.kind);
            page += &cell_text(&problem.message);
            page += "</tr>";
        }
        page += "</tbody></table></section>";
    }

    // Commands.
    page += "<section id=\"commands\"><h2>Commands that reproduce this page</h2><pre>";
    for source in &merged.sources {
        let line = match source.kind {
            SourceKind::Scan => {
                let mut words = vec!["undouble".to_owned(), "scan".to_owned(), "--json".into()];
                words.extend(source.paths.iter().cloned());
                format!(
                    "{} > {}",
                    shell_words(&words),
                    shell_words(std::slice::from_ref(&source.name))
                )
            }
            SourceKind::Audit => {
                format!(
                    "{}   # wrote {}",
                    shell_words(&source.command_line),
                    source.name
                )
            }
        };
        page += &shown(&line);
        page.push('\n');
    }
    page += &shown(&shell_words(invocation));
    page += "</pre><p class=\"note\">A scan's options are not recorded in its output: add those \
             it was run with (<code>--format</code>, <code>--readings</code>, \
             <code>--strictness</code>). An audit log records the fix's whole command line.</p>\
             </section>";
    page += "</body></html>\n";
    page
}

/// The last part of a path, `/` or `\\` separated (the path as the records hold it).
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Files counted by the pair of the encoding they declare and the one they are.
fn encoding_pairs(files: &[FileRow]) -> Vec<(String, u64)> {
    let mut pairs: ByName = ByName::new();
    for file in files {
        let Some(actual) = &file.actual else {
            continue;
        };
        let declared = file.declared.as_deref().unwrap_or("nothing declared");
        let guess = if file.guessed { " (guess)" } else { "" };
        *pairs
            .entry(format!("{declared} → {actual}{guess}"))
            .or_default() += 1;
    }
    let mut rows: Vec<(String, u64)> = pairs.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

fn files_table(merged: &Merged) -> String {
    let mut out = String::from(
        "<section id=\"files\"><h2>Files</h2><table><thead><tr><th>file</th>\
         <th>double-encoded</th><th>left alone</th><th>fine</th><th>bytes</th><th>UTF-8</th>\
         <th>declared</th><th>actual</th><th>stored as</th><th>input</th></tr></thead><tbody>",
    );
    for file in &merged.files {
        let class = if file.double_encoded > 0 {
            " class=\"damaged\""
        } else {
            ""
        };
        let _ = write!(out, "<tr{class}>");
        out += &cell_text(&file.path);
        out += &cell_number(file.double_encoded);
        out += &cell_number(file.left_alone);
        match file.fine_non_ascii {
            Some(n) => out += &cell_number(n),
            None => out += "<td></td>",
        }
        out += &cell_number(file.bytes);
        out += &cell_text(if file.valid_utf8 {
            "valid"
        } else {
            "not valid"
        });
        out += &cell_text(file.declared.as_deref().unwrap_or(""));
        let actual = match (&file.actual, file.guessed) {
            (Some(actual), true) => format!("{actual} (guess)"),
            (Some(actual), false) => actual.clone(),
            (None, _) => String::new(),
        };
        out += &cell_text(&actual);
        out += &cell_text(&file.storage.join(", "));
        let source = merged
            .sources
            .get(file.source)
            .map(|s| s.name.as_str())
            .unwrap_or_default();
        let rewritten = match file.rewritten {
            Some(true) => " (rewritten)",
            Some(false) => " (not rewritten)",
            None => "",
        };
        out += &cell_text(&format!("{source}{rewritten}"));
        out += "</tr>";
        if !file.notes.is_empty() {
            out += "<tr class=\"notes\"><td colspan=\"10\">";
            let notes: Vec<String> = file.notes.iter().map(|n| shown(n)).collect();
            out += &notes.join("<br>");
            out += "</td></tr>";
        }
    }
    out += "</tbody></table></section>";
    out
}

fn columns_table(columns: &[ColumnRow]) -> String {
    if columns.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"columns\"><h2>Tables and columns</h2><table><thead><tr><th>file</th>\
         <th>table</th><th>column</th><th>type</th><th>cells</th><th>damaged cells</th>\
         <th>double-encoded</th><th>left alone</th></tr></thead><tbody>",
    );
    for column in columns {
        let class = if column.double_encoded > 0 {
            " class=\"damaged\""
        } else {
            ""
        };
        let _ = write!(out, "<tr{class}>");
        out += &cell_text(&column.path);
        out += &cell_text(&column.table);
        out += &cell_text(&column.column);
        out += &cell_text(&column.declared);
        for n in [column.cells, column.damaged_cells] {
            match n {
                Some(n) => out += &cell_number(n),
                None => out += "<td></td>",
            }
        }
        out += &cell_number(column.double_encoded);
        out += &cell_number(column.left_alone);
        out += "</tr>";
    }
    out += "</tbody></table></section>";
    out
}

/// Sober, printable, readable without it: the page is plain HTML underneath.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;\
color:#222;padding:0 1em}h1{font-size:1.6em}h2{font-size:1.2em;border-bottom:1px solid #ccc;\
padding-bottom:.2em;margin-top:2em}table{border-collapse:collapse;font-size:.9em;width:100%}\
th,td{border-bottom:1px solid #e4e4e4;padding:.25em .5em;text-align:left;vertical-align:top}\
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}\
tr.damaged td:first-child{border-left:3px solid #b8322f}tr.notes td{color:#555;\
font-size:.9em}td.seq{font-family:monospace;font-size:1.1em}.totals{display:flex;\
flex-wrap:wrap;gap:.8em}.totals div{border:1px solid #ddd;border-radius:4px;padding:.5em .8em;\
min-width:9em}.totals dt{font-size:.8em;color:#555}.totals dd{margin:0;font-size:1.4em;\
font-variant-numeric:tabular-nums}.charts{display:flex;flex-wrap:wrap;gap:1.5em}\
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3em}.note,.none{color:#555;\
font-size:.9em}pre{background:#f6f6f6;padding:.8em;overflow-x:auto}\
code{font-family:monospace}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(shown("Ñ\u{81}<"), "Ñ&lt;U+0081&gt;&lt;");
    }

    #[test]
    fn the_axis_ends_on_a_round_number() {
        assert_eq!(axis_end(0), 0);
        assert_eq!(axis_end(1), 1);
        assert_eq!(axis_end(3), 5);
        assert_eq!(axis_end(5), 5);
        assert_eq!(axis_end(6), 10);
        assert_eq!(axis_end(153), 200);
        assert_eq!(axis_end(3566), 5000);
        assert_eq!(axis_end(u64::MAX), u64::MAX);
    }

    #[test]
    fn ticks_fall_on_round_numbers() {
        let labels = |end| -> Vec<String> { ticks(end).into_iter().map(|(_, l)| l).collect() };
        assert_eq!(
            labels(5000),
            ["0", "1,000", "2,000", "3,000", "4,000", "5,000"]
        );
        assert_eq!(labels(200), ["0", "50", "100", "150", "200"]);
        assert_eq!(labels(1), ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(ticks(200)[2].0, 0.5);
        assert_eq!(labels(0), ["0"]);
    }

    #[test]
    fn bars_are_proportional_and_a_small_one_still_shows() {
        assert_eq!(bar_length(0, 100, 400.0), 0.0);
        assert_eq!(bar_length(100, 100, 400.0), 400.0);
        assert_eq!(bar_length(50, 100, 400.0), 200.0);
        assert_eq!(bar_length(1, 1_000_000, 400.0), 1.0);
        assert_eq!(bar_length(5, 0, 400.0), 0.0);
    }

    #[test]
    fn labels_are_cut_by_characters_and_shell_words_quoted() {
        assert_eq!(cut("ÀÀÀÀ", 3), "ÀÀ…");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut_start("/a/b/c.sql", 6), "…c.sql");
        assert_eq!(file_name("/a/b/c.sql"), "c.sql");
        let words = [
            "undouble".to_owned(),
            "a b".into(),
            "it's".into(),
            "x.sql".into(),
        ];
        assert_eq!(shell_words(&words), r"undouble 'a b' 'it'\''s' x.sql");
    }

    #[test]
    fn a_chart_of_zeros_draws_nothing_and_labels_are_escaped() {
        assert!(!bar_chart("t", &[("a".into(), 0)], "#000", Cut::End).contains("<svg"));
        let chart = bar_chart("t", &[("<b>".into(), 2), ("c".into(), 1)], "#000", Cut::End);
        assert!(chart.contains("<svg"));
        assert!(chart.contains("&lt;b&gt;"));
        assert!(!chart.contains("<b>"));
    }
}
