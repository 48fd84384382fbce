//! The crate's layers go one way: each top-level module of `src/` uses only the modules below
//! it in the order `src/lib.rs` documents, the pure core opens no files and starts no threads,
//! and the command line's crates (`clap`, `indicatif`) stay in `src/cli` and `src/main.rs`.
//!
//! The check reads the sources as text: every `crate::module` path in code (comments left
//! out), grouped imports (`use crate::{a, b}`) and `super::` paths that climb out of a
//! top-level module. It is no parser, so it errs towards reporting: a path written in a way it
//! does not follow is a reason to write it plainly.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules, lowest first. A module may use those of a lower rank only: two of
/// the same rank know nothing of each other.
const LAYERS: &[(&str, u32)] = &[
    ("format", 0),
    ("byte_search", 0),
    ("sql", 1),
    ("mojibake", 2),
    ("charset", 2),
    ("error", 3),
    ("engine", 4),
    ("dump", 5),
    ("audit", 6),
    ("api", 7),
    ("report", 8),
    ("cli", 9),
];

/// The modules that are bytes in, answers out.
const PURE: &[&str] = &["format", "byte_search", "sql", "mojibake", "charset"];

/// What the pure modules must not use: files, threads, processes, terminals, the environment.
const IMPURE: &[&str] = &[
    "std::fs",
    "std::thread",
    "std::process",
    "std::net",
    "std::env",
    "IsTerminal",
    "rayon",
    "memmap2",
    "ignore::",
];

/// The crates only the command line uses.
const CLI_CRATES: &[&str] = &["clap", "clap_complete", "clap_mangen", "indicatif"];

fn rank(module: &str) -> Option<u32> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|&(_, rank)| rank)
}

/// Every `.rs` file under `dir`, in order.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        panic!("cannot read {}", dir.display());
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The module path of a file under `src` (`dump/ddl.rs` is `["dump", "ddl"]`, `dump/mod.rs`
/// is `["dump"]`); empty for `lib.rs` and `main.rs`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

/// The code of a line: without its `//` comment, and with string literals blanked so that
/// nothing quoted looks like a path.
fn code_of(line: &str) -> String {
    let mut code = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_string = false;
                    code.push('"');
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                code.push('"');
            }
            '\'' => {
                // A character literal ('"', '\'', '\u{e9}') is blanked; a lifetime is kept.
                let mut ahead = chars.clone();
                match (ahead.next(), ahead.next()) {
                    (Some('\\'), _) => {
                        chars.next();
                        chars.next();
                        for skipped in chars.by_ref() {
                            if skipped == '\'' {
                                break;
                            }
                        }
                        code.push_str("' '");
                    }
                    (Some(_), Some('\'')) => {
                        chars.next();
                        chars.next();
                        code.push_str("' '");
                    }
                    _ => code.push(c),
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => code.push(c),
        }
    }
    code
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !is_ident_char(c)).unwrap_or(text.len());
    &text[..end]
}

/// The top-level modules `code` names after `crate::`, including each first name of a group
/// (`crate::{dump::Cell, engine}`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| is_ident_char(c) || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && is_ident_char(c) => {
                        names.push(ident(&group[i..]).to_owned());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(rest).to_owned());
        }
    }
    names
}

/// The top-level modules `code` names through `super::` paths that climb to the crate root
/// from a file at `depth` (`super::super::dump` in `src/audit/log.rs`).
fn super_paths(code: &str, depth: usize) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        if before.is_some_and(is_ident_char) || depth == 0 || climbs < depth {
            continue;
        }
        names.push(ident(rest).to_owned());
    }
    names
}

/// Whether `code` uses the crate `name`: as the start of a path (`clap::Args`, also in a
/// derive), or imported whole (`use clap;`, `extern crate clap`).
fn names_crate(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = &code[..at];
        let after = &code[at + name.len()..];
        let starts_path = !before.ends_with(|c: char| is_ident_char(c) || c == ':');
        let ends_word = !after.starts_with(is_ident_char);
        let imported = ["use", "crate"]
            .iter()
            .any(|word| before.trim_end().ends_with(word));
        starts_path && ends_word && (after.starts_with("::") || imported)
    })
}

/// Every breach of the layers in the sources under `src`, one line each.
fn breaches(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    assert!(!files.is_empty(), "no sources under {}", src.display());
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap_or(&file).to_path_buf();
        let shown = relative.display().to_string();
        let path = module_path(&relative);
        let Ok(text) = fs::read_to_string(&file) else {
            panic!("cannot read {}", file.display());
        };
        let own = path.first().cloned();
        let own_rank = own.as_deref().and_then(rank);
        if let Some(own) = &own {
            assert!(
                own_rank.is_some(),
                "{shown}: `{own}` has no place in LAYERS"
            );
        }
        let in_cli = own.as_deref() == Some("cli") || shown == "main.rs";
        let pure = own.as_deref().is_some_and(|own| PURE.contains(&own));
        for (number, line) in text.lines().enumerate() {
            let code = code_of(line);
            if code.trim().is_empty() {
                continue;
            }
            let at = format!("src/{shown}:{}", number + 1);
            if let (Some(own), Some(own_rank)) = (&own, own_rank) {
                let used: BTreeSet<String> = crate_paths(&code)
                    .into_iter()
                    .chain(super_paths(&code, path.len()))
                    .collect();
                for module in used {
                    let Some(used_rank) = rank(&module) else {
                        continue;
                    };
                    if module != *own && used_rank >= own_rank {
                        found.push(format!(
                            "{at}: `{own}` uses `{module}`, which is not below it: {}",
                            line.trim()
                        ));
                    }
                }
            }
            if !in_cli {
                for name in CLI_CRATES {
                    if names_crate(&code, name) {
                        found.push(format!("{at}: `{name}` outside src/cli: {}", line.trim()));
                    }
                }
            }
            if pure {
                for impure in IMPURE {
                    if code.contains(impure) {
                        found.push(format!(
                            "{at}: the pure core uses `{impure}`: {}",
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn modules_use_only_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = breaches(&src);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let Ok(lib) = fs::read_to_string(src.join("lib.rs")) else {
        panic!("cannot read src/lib.rs");
    };
    for line in lib.lines().map(code_of) {
        if let Some(name) = line.trim().strip_prefix("pub mod ") {
            let name = ident(name);
            assert!(rank(name).is_some(), "`{name}` has no place in LAYERS");
        }
    }
}

#[test]
fn the_command_line_crates_are_optional() {
    let Ok(manifest) = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
    else {
        panic!("cannot read Cargo.toml");
    };
    for name in CLI_CRATES {
        let declared = manifest
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} =")));
        assert!(
            declared.is_some_and(|line| line.contains("optional = true")),
            "{name} is not an optional dependency: {declared:?}"
        );
    }
}

/// The reader itself: what it must see, and what it must not.
#[test]
fn the_reader_finds_paths_and_skips_comments_and_strings() {
    assert_eq!(crate_paths("use crate::dump::Cell;"), ["dump"]);
    assert_eq!(
        crate_paths("use crate::{dump::{self, Cell}, engine};"),
        ["dump", "engine"]
    );
    assert_eq!(crate_paths("x = crate::report::hex(b, \"\");"), ["report"]);
    assert!(crate_paths("$crate::x").is_empty());
    assert!(crate_paths(&code_of("// see crate::report")).is_empty());
    assert!(crate_paths(&code_of("let s = \"crate::report\";")).is_empty());
    assert_eq!(super_paths("use super::super::report::hex;", 2), ["report"]);
    assert!(super_paths("use super::schema::Table;", 2).is_empty());
    assert_eq!(super_paths("use super::report;", 1), ["report"]);
    assert!(names_crate("#[derive(clap::ValueEnum)]", "clap"));
    assert!(names_crate("use indicatif::ProgressBar;", "indicatif"));
    assert!(names_crate("use clap;", "clap"));
    assert!(!names_crate("let clapped = 1;", "clap"));
    assert!(!names_crate("x.clap = 1;", "clap"));
    assert_eq!(code_of("let c = '\"'; crate::x"), "let c = ' '; crate::x");
    assert_eq!(code_of("let c = '\\''; crate::x"), "let c = ' '; crate::x");
    assert_eq!(
        code_of("fn f<'a>(x: &'a str) // crate::y"),
        "fn f<'a>(x: &'a str) "
    );
}
