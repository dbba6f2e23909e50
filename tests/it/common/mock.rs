//! The mock UCI engine (tests/mock/engine.rs), which cargo builds as the `mock_engine` example
//! of this package beside the test executables.

/// The mock engine's path; fails the test with how to build it when it is missing (a filtered
/// `cargo test` does not build examples).
pub fn mock_engine() -> String {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let mock = profile_dir.join("examples").join("mock_engine");
    assert!(
        mock.exists(),
        "{} is missing: a full `cargo test` builds it; with a test filter, build it first \
         (`cargo build --release --example mock_engine`, the tests' profile)",
        mock.display()
    );
    mock.display().to_string()
}
