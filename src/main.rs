fn main() -> std::process::ExitCode {
    dra::cli::main()
}
