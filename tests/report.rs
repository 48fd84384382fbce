//! `undouble report` through the binary: `scan --json` of corpus/ and the audit log of a fix
//! become one page whose figures are the JSON's, with charts, no script, and every name from
//! the inputs escaped.

mod binary;

use binary::*;

use std::path::Path;

use undouble::format::thousands;

fn page_of(inputs: &[&Path], dir: &Path) -> String {
    let out = dir.join("report.html");
    let mut args = vec!["report"];
    args.extend(inputs.iter().map(|p| path_str(p)));
    args.extend(["-o", path_str(&out)]);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::read_to_string(&out).expect("the page is written")
}

/// The text of the element with `id`, up to its closing tag.
fn by_id<'a>(page: &'a str, id: &str) -> &'a str {
    let start = page
        .find(&format!("id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no #{id}"));
    let rest = &page[start + id.len() + 6..];
    &rest[..rest.find('<').unwrap_or(rest.len())]
}

#[test]
fn a_scan_of_the_corpus_and_an_audit_log_make_one_page() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let scan = run(&["scan", "--json", path_str(&corpus(""))]);
    assert_eq!(scan.status.code(), Some(1));
    let scan_path = dir.path().join("scan.jsonl");
    std::fs::write(&scan_path, &scan.stdout).expect("written");
    let records = json_lines(&scan);
    let total = records.last().expect("a total record");
    assert_eq!(total["type"], "total");

    let page = page_of(&[&scan_path], dir.path());
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.to_lowercase().contains("<script"), "no script");
    assert!(page.contains("<svg"), "charts drawn");
    // The totals are the JSON's.
    let n = |key: &str| total[key].as_u64().expect("a count");
    assert_eq!(
        by_id(&page, "total-double-encoded-characters"),
        thousands(n("double_encoded"))
    );
    assert_eq!(
        by_id(&page, "total-look-alikes-left-alone"),
        thousands(n("left_alone"))
    );
    assert_eq!(by_id(&page, "total-bytes"), thousands(n("bytes")));
    assert_eq!(by_id(&page, "total-files"), n("files").to_string());
    // A row per file, a row per column, the most frequent sequence first.
    for record in records.iter().filter(|r| r["type"] == "file") {
        let path = record["path"].as_str().expect("a path");
        assert!(page.contains(&format!("<td>{path}</td>")), "{path}");
    }
    assert!(page.contains("<td>countries</td><td>official_name</td><td>varchar(255)</td><td class=\"n\">170</td><td class=\"n\">48</td><td class=\"n\">644</td>"));
    let first = &records
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("dump-sample.sql"))
        })
        .expect("the dump")["top_sequences"][0];
    let sequences = &page[page.find("id=\"sequences\"").expect("sequences")..];
    let row = format!(
        "<tr><td class=\"seq\">{}</td><td class=\"seq\">{}</td>",
        first["mojibake"].as_str().expect("text"),
        first["repaired"].as_str().expect("text")
    );
    let first_row = &sequences[sequences.find("<tbody><tr>").expect("a row") + 7..];
    assert!(first_row.starts_with(&row), "{row}");
    assert!(page.contains("UTF-8 → UTF-8"), "declared against actual");
    assert!(
        page.contains("undouble scan --json "),
        "the command that reproduces it"
    );

    // With the audit log of a fix of the dump: its files and columns, merged.
    let work = dir.path().join("fix");
    std::fs::create_dir(&work).expect("a directory");
    std::fs::copy(corpus("dump-sample.sql"), work.join("dump.sql")).expect("copied");
    let log = work.join("fix.jsonl");
    let fixed = run(&[
        "fix",
        "-q",
        "--convert-charset",
        "utf8mb4",
        "--audit",
        path_str(&log),
        path_str(&work.join("dump.sql")),
        "-o",
        path_str(&work.join("fixed.sql")),
    ]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stderr(&fixed));
    let page = page_of(&[&scan_path, &log], dir.path());
    assert_eq!(
        by_id(&page, "total-double-encoded-characters"),
        thousands(n("double_encoded") * 2),
        "the scan's and the fix's"
    );
    assert!(page.contains("(audit log)"));
    assert!(
        page.contains("--convert-charset utf8mb4 --audit"),
        "the fix's command line"
    );
}

#[test]
fn hostile_names_are_text() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let name = "<script>alert(1)<\\script>&\"'.txt";
    let hostile = dir.path().join(name);
    std::fs::write(&hostile, "CafÃ© Ã\u{81}<img src=x onerror=alert(1)>").expect("written");
    let scan = run(&["scan", "--json", path_str(&hostile)]);
    assert_eq!(scan.status.code(), Some(1));
    let scan_path = dir.path().join("<b>scan.jsonl");
    std::fs::write(&scan_path, &scan.stdout).expect("written");
    let page = page_of(&[&scan_path], dir.path());
    assert!(!page.to_lowercase().contains("<script"), "{page}");
    assert!(!page.contains("<b>"), "{page}");
    assert!(!page.contains("<img"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;\\script&gt;&amp;&quot;&#39;.txt"));
    assert!(page.contains("&lt;b&gt;scan.jsonl"));
}

#[test]
fn what_is_not_a_record_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"file\",\"path\":\"a\"}\nnot json\n").expect("written");
    let out = dir.path().join("r.html");
    let output = run(&["report", path_str(&bad), "-o", path_str(&out)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("bad.jsonl: line 2: not JSON"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists(), "no page from a bad input");
    // A directory that does not exist is not made.
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, "{\"type\":\"file\",\"path\":\"a\"}\n").expect("written");
    let nowhere = dir.path().join("no/such/dir/r.html");
    let output = run(&["report", path_str(&good), "-o", path_str(&nowhere)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!dir.path().join("no").exists());
}
