//! The library's choices as `clap` values: each enum here mirrors one of the library's, with
//! the names and help the command line shows, and converts into it. The library itself knows
//! nothing of argument parsing.

use crate::audit::AuditLevel;
use crate::dump::{Charset, Format};
use crate::mojibake::Strictness;

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
