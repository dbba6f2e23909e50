//! Output into a closed pipe (`sparring stats ... | head -1`): the reader went away, so the
//! command ends quietly with status 0, as `head` expects of a writer, and never panics.

use crate::common::binary::sparring_into_closed_pipe;

#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    for args in [
        // Each line through the command line's fallible printing macro.
        &["stats", "--ptnml", "16,17,12,3,2"][..],
        &["stats", "--wdl", "120,300,100"],
        // Lines through a locked standard output handle.
        &["perft", "--depth", "1", "--divide"],
    ] {
        let run = sparring_into_closed_pipe(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("error"), "{args:?}: {}", run.stderr);
    }
}
