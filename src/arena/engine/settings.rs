//! What cutechess-cli's per-engine keys add to an external engine, beyond its command and
//! options: how it is started and driven (pondering, ...). Every field's default is the
//! behaviour without the key.

/// The per-engine settings of an external engine (UCI or xboard).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalSettings {
    /// cutechess's `ponder`: the engine thinks on the opponent's time (UCI `go ponder` on its
    /// predicted reply, then `ponderhit` or `stop`; xboard `hard`).
    pub ponder: bool,
    /// The run's Syzygy tables (`adjudication.tablebase.path`), told to an xboard engine
    /// that reads them (`egtpath syzygy PATH`). Set by the runner, not a configuration key.
    pub syzygy_path: Option<std::path::PathBuf>,
}
