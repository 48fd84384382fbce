//! The library's choices as `clap` values: each enum here mirrors one of the library's, with
//! the names and help the command line shows, and converts into it. The library itself knows
//! nothing of argument parsing.

use crate::audit::AuditLevel;
use crate::dump::{Charset, Format};
use crate::mojibake::{LostBytes, Strictness};

/// Declares a command-line value enum and its conversion into the library type of the same
/// variants; the variants' doc comments are their help.
macro_rules! value_enum {
    ($(#[$meta:meta])* $name:ident => $library:ident {
        $($(#[$variant_meta:meta])* $variant:ident,)+
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
        pub(crate) enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl From<$name> for $library {
            fn from(value: $name) -> $library {
                match value {
                    $($name::$variant => $library::$variant,)+
                }
            }
        }
    };
}

value_enum! {
    /// How much evidence a run needs before it is repaired ([`Strictness`]).
    StrictnessArg => Strictness {
        /// Every match of the strict byte pattern, even those judged to be correct text.
        Pattern,
        /// Certain and ambiguous runs; never those judged to be correct text.
        Lenient,
        /// Certain runs, and ambiguous runs with a certain run nearby in the same field.
        Balanced,
        /// Certain runs only.
        Strict,
    }
}

value_enum! {
    /// What garbled characters that lost a byte become ([`LostBytes`]).
    LostBytesArg => LostBytes {
        /// Repaired where exactly one character fits; those whose byte cannot be known kept.
        Infer,
        /// As infer, and each whose byte cannot be known replaced by one U+FFFD.
        Replace,
        /// Kept as they are (still counted as partly lost).
        Keep,
    }
}

value_enum! {
    /// How much an audit log records ([`AuditLevel`]).
    AuditLevelArg => AuditLevel {
        /// One `change` record per repaired character: enough to undo the fix.
        Full,
        /// Only `sequence` and `file` records: small even for millions of changes, but no undo.
        Summary,
    }
}

value_enum! {
    /// How an input is read ([`Format`]).
    FormatArg => Format {
        /// A SQL dump if its header says so, plain text otherwise.
        Auto,
        /// A SQL dump (MySQL/MariaDB, or PostgreSQL when it looks like one), header or not.
        Sql,
        /// Plain text, even a dump: every run judged double-encoded is repaired, wherever it is.
        Text,
    }
}

value_enum! {
    /// The character set `--convert-charset` gives repaired text columns ([`Charset`]).
    CharsetArg => Charset {
        Utf8mb4,
    }
}

/// When output has color (see `super::color`); the command line's own, with no library twin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorArg {
    /// When standard output is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always, even into a pipe or with `NO_COLOR` set.
    Always,
    /// Never.
    Never,
}

/// `--range START-END`: the bytes of one file from START to END (END left out: to its end).
pub(crate) fn parse_range(text: &str) -> Result<std::ops::Range<u64>, String> {
    let number = |part: &str| {
        part.trim()
            .parse::<u64>()
            .map_err(|_| format!("'{part}' is not a byte offset (START-END, as 0-1048576)"))
    };
    let Some((start, end)) = text.split_once('-') else {
        return Err(format!(
            "'{text}' is not START-END (as 0-1048576, or 1048576- to the end)"
        ));
    };
    let start = number(start)?;
    let end = match end.trim().is_empty() {
        true => u64::MAX,
        false => number(end)?,
    };
    match start <= end {
        true => Ok(start..end),
        false => Err(format!("the range {text} ends before it starts")),
    }
}

/// The one input a `--range` reads, or why it cannot.
pub(crate) fn one_range_input(found: usize) -> Result<(), crate::Error> {
    match found {
        1 => Ok(()),
        n => Err(crate::Error::Usage(format!(
            "--range reads one file, and {n} inputs were given or found"
        ))),
    }
}
