//! The `undouble` command. Everything it does lives in the library; see [`undouble::cli`].

fn main() -> std::process::ExitCode {
    undouble::cli::main()
}
