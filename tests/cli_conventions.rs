//! The conventions a user brings from other command-line tools, each checked through the
//! binary: shell completions and a man page made from the one definition, `--help` with
//! examples and exit codes and no internal words, `explain -`, `--color` and `NO_COLOR`, a
//! spinner for input of unknown size, plurals, and control characters shown by code point.

mod binary;

use binary::*;

use std::io::Write;
use std::process::{Command, Stdio};

const COMMANDS: &[&str] = &[
    "scan",
    "fix",
    "explain",
    "detect",
    "report",
    "completions",
    "man",
    "undo",
];

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs a shell script with `bash`, the binary's path in `$UNDOUBLE`.
fn bash(script: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("UNDOUBLE", env!("CARGO_BIN_EXE_undouble"))
        .output()
        .expect("bash runs")
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn the_bash_completion_parses_and_completes_the_commands() {
    let output = run(&["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0));
    let script = stdout(&output);
    let mut check = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    check
        .stdin
        .take()
        .expect("piped")
        .write_all(script.as_bytes())
        .expect("written");
    let checked = check.wait_with_output().expect("bash -n ends");
    assert!(checked.status.success(), "{}", stderr(&checked));
    // Sourced, the function completes `undouble <TAB>` with every command, and `undouble
    // scan --fo<TAB>` with the option.
    let completed = bash(
        r#"source <("$UNDOUBLE" completions bash) && complete -p undouble &&
           COMP_WORDS=(undouble ""); COMP_CWORD=1; _undouble undouble "" undouble;
           printf '%s\n' "${COMPREPLY[@]}"; echo ---;
           COMP_WORDS=(undouble scan --fo); COMP_CWORD=2; _undouble undouble --fo scan;
           printf '%s\n' "${COMPREPLY[@]}""#,
    );
    assert!(completed.status.success(), "{}", stderr(&completed));
    let text = stdout(&completed);
    let (commands, options) = text.split_once("---").expect("two lists");
    for command in COMMANDS {
        assert!(
            commands.lines().any(|line| line == *command),
            "{command}: {text}"
        );
    }
    assert!(options.lines().any(|line| line == "--format"), "{text}");
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(stdout(&output).contains("undouble"), "{shell}");
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_man_page_renders_without_warnings_and_names_every_command() {
    let output = run(&["man"]);
    assert_eq!(output.status.code(), Some(0));
    let page = output.stdout;
    assert!(page.is_ascii(), "troff escapes stand for what is not ASCII");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("undouble.1");
    std::fs::write(&path, &page).expect("written");
    let shown = match have("man") {
        true => Command::new("man")
            .arg("-l")
            .arg(&path)
            .env("MANWIDTH", "80")
            .env("MAN_KEEP_FORMATTING", "0")
            .env("MANPAGER", "cat")
            .output()
            .expect("man runs"),
        false => Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .arg(&path)
            .output()
            .expect("neither man nor groff is installed: .ci/run installs them"),
    };
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert_eq!(stderr(&shown), "", "warnings");
    // What a reader sees, without the terminal's bold.
    let text = strip_overstrike(&stdout(&shown));
    for command in COMMANDS {
        let heading = format!("UNDOUBLE {}", command.to_uppercase());
        assert!(text.contains(&heading), "{heading}");
    }
    assert!(text.contains("EXAMPLES AND EXIT CODES"), "{text}");
    assert!(text.contains("--strictness"), "{text}");
    // troff itself, with every warning on.
    if have("groff") {
        let strict = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&path)
            .output()
            .expect("groff runs");
        assert_eq!(stderr(&strict), "", "groff warnings");
    }
}

/// `X\bX` (bold) and `_\bX` (underline) as the plain `X`.
fn strip_overstrike(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == '\u{8}' {
            i += 2;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[test]
fn help_shows_examples_and_exit_codes_and_no_internal_words() {
    for command in COMMANDS {
        let output = run(&[command, "--help"]);
        assert_eq!(output.status.code(), Some(0), "{command}");
        let help = stdout(&output);
        assert!(help.contains("Exit codes:"), "{command}: {help}");
        assert!(
            help.contains("Examples:") || *command == "man" || *command == "completions",
            "{command}: {help}"
        );
        for word in ["seed", "rule 3", "the rule", "::", "validome", "mojibake::"] {
            assert!(
                !help.contains(word),
                "{command} --help says '{word}': {help}"
            );
        }
    }
    let help = stdout(&run(&["detect", "--help"]));
    assert!(
        help.contains("3  the encoding of some input cannot be told"),
        "{help}"
    );
    let top = stdout(&run(&["--help"]));
    assert!(
        top.contains("Examples:") && top.contains("Exit codes:"),
        "{top}"
    );
}

#[test]
fn explain_reads_standard_input_as_bytes() {
    // `Ñ` and a C1 control, double-encoded, on standard input with a final line break.
    let output = run_with_stdin(&["explain", "-"], b"Caf\xc3\x83\xc2\xa9 \xc3\x91\xc2\x81\n");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("output: Café с\n"), "{text}");
    assert!(
        text.contains("bytes:  43 61 66 c3 83 c2 a9 20 c3 91 c2 81\n"),
        "{text}"
    );
    // No argument, standard input not a terminal: the same.
    let output = run_with_stdin(&["explain"], b"Caf\xc3\x83\xc2\xa9");
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("output: Café\n"));
    // `-` among other words is a word.
    let output = run(&["explain", "a", "-"]);
    assert!(stdout(&output).contains("input:  a -\n"));
}

#[test]
fn control_characters_show_as_code_points_not_rust_escapes() {
    let output = run(&["explain", "Ñ\u{81} \\fI"]);
    let text = stdout(&output);
    assert!(text.contains("input:  Ñ<U+0081> \\fI\n"), "{text}");
    assert!(text.contains("Ñ<U+0081> (c3 91 c2 81) → с"), "{text}");
    assert!(!text.contains("\\u{"), "{text}");
    assert!(!text.contains("\\\\"), "{text}");
    // scan's list of sequences, through the same helper.
    let text = stdout(&run(&["scan", path_str(&corpus("dump-sample.sql"))]));
    assert!(text.contains("  Ñ<U+0081> → с × "), "{text}");
    assert!(!text.contains("\\u{"), "{text}");
}

#[test]
fn color_follows_the_option_then_no_color_then_the_terminal() {
    let dump = corpus("dump-sample.sql");
    let scan = |args: &[&str], no_color: Option<&str>| {
        let mut command = undouble();
        command.arg("scan").args(args).arg(&dump);
        command.env_remove("NO_COLOR");
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
        stdout(&command.output().expect("runs"))
    };
    // Into a pipe, auto is plain.
    assert!(!scan(&[], None).contains('\x1b'));
    assert!(!scan(&["--color", "never"], None).contains('\x1b'));
    let always = scan(&["--color", "always"], None);
    assert!(
        always.contains("\x1b[1;31m3,566\x1b[0m double-encoded characters"),
        "{always}"
    );
    assert!(always.contains("→ \x1b[32mе\x1b[0m × 153"), "{always}");
    // The option wins over NO_COLOR; the text under the color is the same.
    assert_eq!(scan(&["--color", "always"], Some("1")), always);
    let plain: String = strip_ansi(&always);
    assert_eq!(plain, scan(&[], None));
    // explain too, and --color is accepted before the command.
    let output = run(&["--color", "always", "explain", "CafÃ©"]);
    assert!(stdout(&output).contains("\x1b[32mrepaired\x1b[0m"));
    // On a terminal (script(1) gives one), auto colors unless NO_COLOR is set to something.
    if have("script") {
        let on_terminal = |no_color: &str| {
            let script = format!(
                "{no_color} script -qec '\"$UNDOUBLE\" scan {}' /dev/null",
                path_str(&dump)
            );
            stdout(&bash(&script))
        };
        assert!(on_terminal("unset NO_COLOR;").contains("\x1b[1;31m3,566"));
        assert!(!on_terminal("export NO_COLOR=1;").contains("\x1b[1;31m"));
        assert!(on_terminal("export NO_COLOR=;").contains("\x1b[1;31m3,566"));
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[test]
fn a_stream_gets_a_spinner_without_eta_and_a_pipe_no_progress() {
    // Standard error not a terminal: nothing but the output.
    let output = run_with_stdin(&["scan"], b"Caf\xc3\x83\xc2\xa9\n");
    assert_eq!(stderr(&output), "");
    if !have("script") {
        return;
    }
    // Standard error a terminal, standard input a pipe of unknown size that pauses.
    let shown = bash(
        r#"script -qec '(printf "Caf\303\203\302\251"; sleep 1) | "$UNDOUBLE" scan' /dev/null"#,
    );
    let text = stdout(&shown);
    assert!(text.contains(" read, "), "a spinner: {text:?}");
    assert!(!text.contains("ETA"), "{text:?}");
    assert!(!text.contains("/0 B"), "{text:?}");
}

#[test]
fn counts_of_one_are_singular() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("one.txt");
    // One double-encoded character and one look-alike (a capital before ®).
    std::fs::write(&path, "CafÃ© CAFÉ®").expect("written");
    let text = stdout(&run(&["scan", path_str(&path)]));
    assert!(text.contains(": 1 double-encoded character ("), "{text}");
    assert!(text.contains("1 layer 1)"), "{text}");
    assert!(text.contains(", 1 look-alike left alone, "), "{text}");
    assert!(text.contains(" × 1 (either, 1 layer)"), "{text}");
    let two = dir.path().join("two.txt");
    std::fs::write(&two, "x").expect("written");
    let text = stdout(&run(&["scan", path_str(&path), path_str(&two)]));
    assert!(text.contains("total (2 files, 0 skipped)"), "{text}");
    let text = stdout(&run(&["explain", "CafÃ©"]));
    assert!(text.contains("either reading, 1 layer\n"), "{text}");
    // detect says what it assumed once.
    let output = run_with_stdin(
        &["detect", "--assume", "koi8-r", "--min-confidence", "1"],
        b"h\xe9llo",
    );
    let text = stdout(&output);
    assert!(!text.contains("assuming assumed"), "{text}");
    assert!(
        text.contains("assumed \"koi8-r\" (KOI8-R) as asked"),
        "{text}"
    );
}
