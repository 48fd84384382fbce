//! `undouble completions SHELL` and `undouble man`: the shell completions and the manual page,
//! both made from the one `clap` definition of the command line, so that neither can drift
//! from what the binary accepts.
//!
//! The manual is one page, `undouble(1)`, with a section per command, as ripgrep's and apt's
//! are: `undouble man | man -l -` and `man undouble` then show everything, and a search (`/`)
//! finds an option whichever command it belongs to. A page per command (`undouble-scan(1)`, as
//! git and cargo ship) suits tools with dozens of commands and an installer that copies them
//! all; for seven commands it would make `man undouble` a table of contents.

use std::io::{self, Write};

use clap::CommandFactory;

use super::{Cli, Outcome};
use crate::Error;

pub(crate) const COMPLETIONS_HELP: &str = "\
Examples:
  undouble completions bash \\
    > ~/.local/share/bash-completion/completions/undouble
  undouble completions zsh > ~/.zfunc/_undouble   (fpath+=~/.zfunc in .zshrc)
  undouble completions fish > ~/.config/fish/completions/undouble.fish
  undouble completions powershell >> $PROFILE

Exit codes:
  0  written to standard output
  2  an error";

/// Writes the completion script of `shell` on standard output.
pub(crate) fn completions(shell: clap_complete::Shell) -> Outcome {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "undouble", &mut script);
    write_out(&script)
}

/// Writes the manual page on standard output.
pub(crate) fn man() -> Outcome {
    match page() {
        Ok(page) => write_out(&page),
        Err(source) => Outcome::failed(&Error::Write {
            path: "<stdout>".into(),
            source,
        }),
    }
}

/// The page: the tool's own sections (name, synopsis, description, the list of commands,
/// examples), then one section per command with its synopsis, options, examples and exit
/// codes.
fn page() -> io::Result<Vec<u8>> {
    let mut command = Cli::command();
    command.build();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    let mut page = as_written(&String::from_utf8_lossy(&page)).into_bytes();
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        let name = format!("undouble {}", sub.get_name());
        let sub = sub
            .clone()
            .display_name(name.clone())
            .bin_name(name.clone());
        let mut rendered = Vec::new();
        clap_mangen::Man::new(sub).render(&mut rendered)?;
        let section = section_of(&name, &String::from_utf8_lossy(&rendered));
        page.extend_from_slice(as_written(&section).as_bytes());
    }
    Ok(page)
}

/// A command's own page as a section of the tool's: its title, preamble, NAME and VERSION
/// sections left out (the tool's page has them), its sections made subsections.
fn section_of(name: &str, rendered: &str) -> String {
    let mut out = format!(".SH \"{}\"\n", name.to_uppercase());
    let mut keep = false;
    for line in rendered.lines() {
        if let Some(heading) = line.strip_prefix(".SH ") {
            keep = !matches!(heading.trim_matches('"'), "NAME" | "VERSION");
            if keep {
                out += &format!(".SS {}\n", heading);
            }
            continue;
        }
        if keep {
            out += line;
            out.push('\n');
        }
    }
    out
}

/// The examples and exit codes (clap_mangen's EXTRA section) under their own name, and kept
/// line for line as `--help` shows them instead of filled into paragraphs; characters beyond
/// ASCII as troff's `\[u00C3]` escapes.
fn as_written(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    let mut verbatim = false;
    for line in page.lines() {
        let heading = line.starts_with(".SH ") || line.starts_with(".SS ");
        if heading && verbatim {
            out += ".fi\n";
            verbatim = false;
        }
        match line {
            ".SH EXTRA" | ".SS EXTRA" => {
                out += &line.replace("EXTRA", "\"EXAMPLES AND EXIT CODES\"");
                out += "\n.nf\n";
                verbatim = true;
            }
            _ => {
                for c in line.chars() {
                    match c.is_ascii() {
                        true => out.push(c),
                        // Any troff reads it, whatever encoding it assumes for its input.
                        false => out += &format!("\\[u{:04X}]", u32::from(c)),
                    }
                }
                out.push('\n');
            }
        }
    }
    if verbatim {
        out += ".fi\n";
    }
    out
}

fn write_out(bytes: &[u8]) -> Outcome {
    let mut outcome = Outcome::default();
    let mut stdout = io::stdout().lock();
    if let Err(source) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        outcome.stop_or_report(&Error::Write {
            path: "<stdout>".into(),
            source,
        });
    }
    outcome
}
