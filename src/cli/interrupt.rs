//! Ctrl-C and termination while engines run (`sparring match`, `sparring spsa`): external
//! engines sit in process groups of their own, so the terminal's signal does not reach them; end
//! those groups before the runner exits. Runs and SPSA state on disk stay consistent: `--resume`
//! continues them.

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    sparring::arena::engine::kill_all_engine_groups();
    // SAFETY: _exit is async-signal-safe; 128 + signal is the shell's convention.
    unsafe { libc::_exit(128 + signal) };
}

/// Installs the handler for SIGINT, SIGTERM and SIGHUP.
pub fn install() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only does async-signal-safe work (atomic loads, killpg, _exit).
        unsafe {
            libc::signal(
                signal,
                on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}
