//! Syzygy endgame tablebases: `Tablebases::open` loads the tables of one or more directories and
//! answers WDL (win/draw/loss) and DTZ (distance to the next capture or pawn move) probes of a
//! `Position`, naming the table file when one a probe needs is missing. Main types: [`Tablebases`],
//! [`Wdl`], [`TablebaseError`].
//!
//! Prober: pyrrhic-rs (MIT, a Rust port of Fathom/Pyrrhic), chosen because it is permissively
//! licensed, needs no C toolchain and generates moves through our own attack tables.
//!
//! The prober keeps its tables in process-wide state, so one set of directories is open at a
//! time: opening the same directories again shares the set, other directories are refused
//! until every handle to the first set is dropped.

mod adapter;
mod check;
mod checksum;
mod material;

pub use check::FileProblem;

use crate::board::{Color, PieceKind, Position};
use crate::error::{ErrorClass, Failure};
use adapter::Attacks;
use material::Material;
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// A WDL probe's answer for the side to move, counting the fifty-move rule as the tables do.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    /// Lost.
    Loss,
    /// Lost without the fifty-move rule, drawn with it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the fifty-move rule, drawn with it.
    CursedWin,
    /// Won.
    Win,
}

impl Wdl {
    /// -2 (loss) .. 2 (win), the numbers python-chess and Fathom use.
    pub fn value(self) -> i32 {
        match self {
            Wdl::Loss => -2,
            Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin => 1,
            Wdl::Win => 2,
        }
    }

    /// The same answer for the other side.
    pub fn negate(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    fn from_pyrrhic(wdl: pyrrhic_rs::WdlProbeResult) -> Wdl {
        match wdl {
            pyrrhic_rs::WdlProbeResult::Loss => Wdl::Loss,
            pyrrhic_rs::WdlProbeResult::BlessedLoss => Wdl::BlessedLoss,
            pyrrhic_rs::WdlProbeResult::Draw => Wdl::Draw,
            pyrrhic_rs::WdlProbeResult::CursedWin => Wdl::CursedWin,
            pyrrhic_rs::WdlProbeResult::Win => Wdl::Win,
        }
    }
}

/// Which of a table's two files.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// The win/draw/loss file, `.rtbw`.
    Wdl,
    /// The distance-to-zero file, `.rtbz`.
    Dtz,
}

impl TableKind {
    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            TableKind::Wdl => "rtbw",
            TableKind::Dtz => "rtbz",
        }
    }
}

/// Why tables could not be opened or a position not probed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TablebaseError {
    /// A directory of the path cannot be read.
    #[error("tablebase directory {path}: {source}")]
    Unreadable {
        /// The directory.
        path: String,
        /// What reading it said.
        source: std::io::Error,
    },
    /// A path entry is a file, not a directory.
    #[error("tablebase path {path}: not a directory")]
    NotADirectory {
        /// The entry.
        path: String,
    },
    /// No `.rtbw` file in any of the directories.
    #[error("tablebase path {path}: no Syzygy tables (no KxvKy.rtbw file)")]
    NoTables {
        /// The path as given.
        path: String,
    },
    /// A directory whose name holds the prober's list separator.
    #[error("tablebase directory {path}: a name with ':' cannot be passed to the prober")]
    UnsupportedPath {
        /// The directory.
        path: String,
    },
    /// Other directories' tables are open in this process.
    #[error("tablebases from {open} are open in this process; {requested} cannot be opened beside them (one set at a time)")]
    OtherSetOpen {
        /// The directories already open.
        open: String,
        /// The directories asked for.
        requested: String,
    },
    /// Table files that fail the checks made before the prober may map them (truncated, empty,
    /// not a file, wrong magic number, a header that contradicts the file): each is named.
    #[error("{}", damaged_list(.files))]
    Damaged {
        /// Each damaged file and what is wrong with it.
        files: Vec<DamagedFile>,
    },
    /// The prober refused to load the tables.
    #[error("tablebase path {path}: the prober could not load the tables ({reason})")]
    Init {
        /// The directories.
        path: String,
        /// The prober's word for it.
        reason: String,
    },
    /// More pieces than the largest table holds.
    #[error("{pieces} pieces on the board: the tables in {path} hold at most {max}")]
    TooManyPieces {
        /// Pieces on the board, kings included.
        pieces: u32,
        /// The largest table's piece count.
        max: u32,
        /// The directories.
        path: String,
    },
    /// Syzygy tables hold no position with castling rights.
    #[error("the position has castling rights: Syzygy tables hold no such position")]
    CastlingRights,
    /// A table the probe needs is not there.
    #[error("missing table {table}.{} in {path} (needed to probe {position_table})", kind.extension())]
    MissingTable {
        /// The missing table's name, e.g. `KQRvKR`.
        table: String,
        /// Which of its files.
        kind: TableKind,
        /// The position's own table.
        position_table: String,
        /// The directories searched.
        path: String,
    },
    /// Every table is there but the probe failed: a damaged file.
    #[error("probing {table} from {path} failed (a damaged table file?)")]
    ProbeFailed {
        /// The position's table.
        table: String,
        /// The directories.
        path: String,
    },
}

impl ErrorClass for TablebaseError {
    fn class(&self) -> Failure {
        match self {
            // A path the user gave that does not hold usable tables is input to fix.
            TablebaseError::Unreadable { .. }
            | TablebaseError::NotADirectory { .. }
            | TablebaseError::NoTables { .. }
            | TablebaseError::UnsupportedPath { .. }
            | TablebaseError::OtherSetOpen { .. }
            | TablebaseError::TooManyPieces { .. }
            | TablebaseError::CastlingRights
            | TablebaseError::MissingTable { .. }
            | TablebaseError::Damaged { .. } => Failure::BadInput,
            TablebaseError::Init { .. } | TablebaseError::ProbeFailed { .. } => Failure::FailedRun,
        }
    }
}

/// A table file that failed its checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedFile {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: FileProblem,
}

impl fmt::Display for DamagedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "damaged Syzygy file {}: {}",
            self.path.display(),
            self.problem
        )
    }
}

fn damaged_list(files: &[DamagedFile]) -> String {
    let each: Vec<String> = files.iter().map(DamagedFile::to_string).collect();
    each.join("; ")
}

/// One open set of tables, shared by every `Tablebases` handle on the same directories.
struct Shared {
    dirs: Vec<PathBuf>,
    shown: String,
    wdl: BTreeSet<String>,
    dtz: BTreeSet<String>,
    max_pieces: u32,
    /// Taken out under `LIFECYCLE` when the last handle goes, so a new set loads only after the
    /// old one is freed.
    prober: Option<pyrrhic_rs::TableBases<Attacks>>,
    /// The prober's root (DTZ) probe must not run on two threads at once.
    root_probe: Mutex<()>,
}

/// The open set, if any.
static OPEN: Mutex<Weak<Shared>> = Mutex::new(Weak::new());
/// Held while the prober's process-wide tables are loaded or freed.
static LIFECYCLE: Mutex<()> = Mutex::new(());

impl Drop for Shared {
    fn drop(&mut self) {
        let _freeing = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.prober.take());
    }
}

/// Syzygy tables of one or more directories, ready to probe. Cheap to clone; thread-safe.
#[derive(Clone)]
pub struct Tablebases {
    shared: Arc<Shared>,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tablebases({})", self.shared.shown)
    }
}

/// Two handles are equal when they probe the same directories.
impl PartialEq for Tablebases {
    fn eq(&self, other: &Tablebases) -> bool {
        self.shared.dirs == other.shared.dirs
    }
}

/// The table names (file stems) in `dir` with the given extension.
fn table_files(dir: &Path, ext: &str, into: &mut BTreeSet<String>) -> Result<(), TablebaseError> {
    for path in table_paths(dir)? {
        if path.extension().and_then(|e| e.to_str()) == Some(ext) {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                into.insert(stem.to_string());
            }
        }
    }
    Ok(())
}

/// Every file in `dir` named like a table (`KRPvKR.rtbw`, `.rtbz` or `.rtbm`), sorted.
fn table_paths(dir: &Path) -> Result<Vec<PathBuf>, TablebaseError> {
    let unreadable = |source| TablebaseError::Unreadable {
        path: dir.display().to_string(),
        source,
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        let ext = path.extension().and_then(|e| e.to_str());
        if ext.and_then(check::Format::of_extension).is_none() {
            continue;
        }
        // Only names the prober looks for count: a stray `notes.rtbw` is not a table.
        if path
            .file_stem()
            .and_then(|s| s.to_str())
            .is_some_and(is_table_name)
        {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// Checks every table file of `dirs` (the prober would map any of them) to `depth`: the
/// damaged ones.
fn damaged_files(
    dirs: &[PathBuf],
    depth: check::Depth,
) -> Result<Vec<DamagedFile>, TablebaseError> {
    let mut damaged = Vec::new();
    for dir in dirs {
        for path in table_paths(dir)? {
            let (Some(stem), Some(format)) = (
                path.file_stem().and_then(|s| s.to_str()),
                path.extension()
                    .and_then(|e| e.to_str())
                    .and_then(check::Format::of_extension),
            ) else {
                continue;
            };
            if let Err(problem) = check::check_file(&path, stem, format, depth) {
                damaged.push(DamagedFile { path, problem });
            }
        }
    }
    Ok(damaged)
}

/// `KRPvKR`-shaped: two sides of a king and up to five more pieces each.
fn is_table_name(stem: &str) -> bool {
    let Some((a, b)) = stem.split_once('v') else {
        return false;
    };
    let side =
        |s: &str| s.starts_with('K') && s.len() <= 7 && s[1..].chars().all(|c| "QRBNP".contains(c));
    side(a) && side(b)
}

/// What `Tablebases::verify` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    /// Table files read, whole (`.rtbw`, `.rtbz`, `.rtbm`).
    pub files: usize,
    /// The damaged ones.
    pub damaged: Vec<DamagedFile>,
}

impl Tablebases {
    /// Checks every table file in `path` (directories separated by ':') without opening the
    /// tables: the checks `open` makes, and the checksum in each file's last 16 bytes
    /// recomputed over the whole file whatever its size (`open` does so only for files up to
    /// 64 MiB, every table of up to five pieces). Reads every byte: run it once after a
    /// download, as `md5sum -c` would be.
    pub fn verify(path: impl AsRef<Path>) -> Result<Verification, TablebaseError> {
        let mut dirs = Vec::new();
        let mut files = 0;
        for dir in std::env::split_paths(path.as_ref()).filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                let shown = dir.display().to_string();
                return Err(match std::fs::metadata(&dir) {
                    Err(source) => TablebaseError::Unreadable {
                        path: shown,
                        source,
                    },
                    Ok(_) => TablebaseError::NotADirectory { path: shown },
                });
            }
            files += table_paths(&dir)?.len();
            dirs.push(dir);
        }
        if files == 0 {
            return Err(TablebaseError::NoTables {
                path: path.as_ref().display().to_string(),
            });
        }
        let damaged = damaged_files(&dirs, check::Depth::Full)?;
        Ok(Verification { files, damaged })
    }

    /// Opens the tables in `path`: a directory, or several separated by ':' as engines'
    /// `SyzygyPath` takes them. Fails when no directory holds a table, and when any table file
    /// is damaged (checked before the prober may map it, since it reads files without bounds
    /// checks): every such file is named.
    pub fn open(path: impl AsRef<Path>) -> Result<Tablebases, TablebaseError> {
        let given = path.as_ref();
        let shown = given.display().to_string();
        let mut dirs = Vec::new();
        let (mut wdl, mut dtz) = (BTreeSet::new(), BTreeSet::new());
        for dir in std::env::split_paths(given).filter(|d| !d.as_os_str().is_empty()) {
            let dir = dir
                .canonicalize()
                .map_err(|source| TablebaseError::Unreadable {
                    path: dir.display().to_string(),
                    source,
                })?;
            if !dir.is_dir() {
                return Err(TablebaseError::NotADirectory {
                    path: dir.display().to_string(),
                });
            }
            if dir.to_str().map_or(true, |d| d.contains(':')) {
                return Err(TablebaseError::UnsupportedPath {
                    path: dir.display().to_string(),
                });
            }
            table_files(&dir, "rtbw", &mut wdl)?;
            table_files(&dir, "rtbz", &mut dtz)?;
            dirs.push(dir);
        }
        // The prober maps files without bounds checks: a damaged one would crash the process.
        let damaged = damaged_files(&dirs, check::Depth::Open)?;
        if !damaged.is_empty() {
            return Err(TablebaseError::Damaged { files: damaged });
        }
        // The prober would load nothing and stay marked as loaded: refuse before calling it.
        if wdl.is_empty() {
            return Err(TablebaseError::NoTables { path: shown });
        }
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = open.upgrade() {
            if existing.dirs == dirs {
                return Ok(Tablebases { shared: existing });
            }
            let err = TablebaseError::OtherSetOpen {
                open: existing.shown.clone(),
                requested: shown,
            };
            drop(open);
            drop(existing);
            return Err(err);
        }
        let joined: Vec<&str> = dirs.iter().filter_map(|d| d.to_str()).collect();
        let prober = {
            let _loading = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
            pyrrhic_rs::TableBases::<Attacks>::new(joined.join(":")).map_err(|e| {
                TablebaseError::Init {
                    path: shown.clone(),
                    reason: format!("{e:?}"),
                }
            })?
        };
        // Counted from the files: the prober's own count survives a reload of other tables.
        let max_pieces = wdl
            .iter()
            .map(|name| name.len() as u32 - 1)
            .max()
            .unwrap_or(0);
        let shared = Arc::new(Shared {
            max_pieces,
            dirs,
            shown,
            wdl,
            dtz,
            prober: Some(prober),
            root_probe: Mutex::new(()),
        });
        *open = Arc::downgrade(&shared);
        Ok(Tablebases { shared })
    }

    /// The directories, as given to `open`.
    pub fn path(&self) -> &str {
        &self.shared.shown
    }

    /// The largest table's piece count, kings included.
    pub fn max_pieces(&self) -> u32 {
        self.shared.max_pieces
    }

    /// Whether the position's own WDL table is there (its captures' tables may still be missing).
    pub fn has_table_for(&self, pos: &Position) -> bool {
        let material = Material::of(pos);
        material.count() == 2 || self.shared.wdl.contains(&material.table_name())
    }

    fn prober(&self) -> &pyrrhic_rs::TableBases<Attacks> {
        self.shared
            .prober
            .as_ref()
            .expect("the prober lives as long as its handles")
    }

    /// The position as the prober takes it, after the checks every probe makes.
    fn board(&self, pos: &Position) -> Result<Board, TablebaseError> {
        if pos.castling_rights().0 != 0 {
            return Err(TablebaseError::CastlingRights);
        }
        let pieces = pos.occupied().len();
        if pieces > self.max_pieces() {
            return Err(TablebaseError::TooManyPieces {
                pieces,
                max: self.max_pieces(),
                path: self.shared.shown.clone(),
            });
        }
        let kind = |k: PieceKind| pos.pieces(k).0;
        Ok(Board {
            white: pos.color(Color::White).0,
            black: pos.color(Color::Black).0,
            kings: kind(PieceKind::King),
            queens: kind(PieceKind::Queen),
            rooks: kind(PieceKind::Rook),
            bishops: kind(PieceKind::Bishop),
            knights: kind(PieceKind::Knight),
            pawns: kind(PieceKind::Pawn),
            ep: pos.en_passant_square().map_or(0, |s| s.index() as u32),
            white_to_move: pos.side_to_move() == Color::White,
        })
    }

    /// The error for a probe that failed: the first table it needs that is not there, or a
    /// failure of a table that is.
    fn failure(&self, pos: &Position, kind: TableKind) -> TablebaseError {
        let material = Material::of(pos);
        let position_table = material.table_name();
        let missing = |table: String, kind| TablebaseError::MissingTable {
            table,
            kind,
            position_table: position_table.clone(),
            path: self.shared.shown.clone(),
        };
        if let Some(table) = material
            .tables_needed()
            .into_iter()
            .find(|t| !self.shared.wdl.contains(t))
        {
            return missing(table, TableKind::Wdl);
        }
        if kind == TableKind::Dtz && !self.shared.dtz.contains(&position_table) {
            return missing(position_table.clone(), TableKind::Dtz);
        }
        TablebaseError::ProbeFailed {
            table: position_table.clone(),
            path: self.shared.shown.clone(),
        }
    }

    /// Win, draw or loss for the side to move, with the fifty-move rule counted from a zeroed
    /// clock (the halfmove clock is not read).
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, TablebaseError> {
        let b = self.board(pos)?;
        self.raw_wdl(&b)
            .ok_or_else(|| self.failure(pos, TableKind::Wdl))
    }

    /// The search's probe: the WDL of a position the caller knows to be probeable (no castling
    /// rights, few enough pieces), or None when the probe fails (a table missing). Builds no
    /// error, so a search may call it at every eligible node.
    pub(crate) fn probe_wdl_quiet(&self, pos: &Position) -> Option<Wdl> {
        self.raw_wdl(&self.board(pos).ok()?)
    }

    /// The prober's WDL answer for `b`, None when it fails.
    fn raw_wdl(&self, b: &Board) -> Option<Wdl> {
        self.prober()
            .probe_wdl(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                b.ep,
                b.white_to_move,
            )
            .ok()
            .map(Wdl::from_pyrrhic)
    }

    /// Distance to zeroing (plies to the next capture or pawn move on the best path), signed as
    /// python-chess's `probe_dtz`: positive when the side to move wins, negative when it loses,
    /// 0 for a draw or stalemate, -1 when mated. The halfmove clock is not read.
    pub fn probe_dtz(&self, pos: &Position) -> Result<i32, TablebaseError> {
        Ok(self.probe_root(pos)?.dtz)
    }

    /// The root probe: the position's WDL and DTZ and every legal move's, as the prober's
    /// DTZ-guided move choice sees them.
    pub fn probe_root(&self, pos: &Position) -> Result<RootProbe, TablebaseError> {
        self.probe_root_at_clock(pos, 0)
    }

    /// `probe_root` with the fifty-move counter at `clock` half-moves: a move's win or loss
    /// that the rule would turn into a draw from there is cursed (blessed), as engines rank
    /// root moves in a game.
    pub(crate) fn probe_root_at_clock(
        &self,
        pos: &Position,
        clock: u32,
    ) -> Result<RootProbe, TablebaseError> {
        let b = self.board(pos)?;
        let result = {
            let _one_at_a_time = self
                .shared
                .root_probe
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            self.prober().probe_root(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                clock.min(100),
                b.ep,
                b.white_to_move,
            )
        }
        .map_err(|_| self.failure(pos, TableKind::Dtz))?;
        use pyrrhic_rs::DtzProbeValue as V;
        let (wdl, dtz) = match result.root {
            // Mated: python-chess and Stockfish count it as one ply from zeroing, lost.
            V::Checkmate => (Wdl::Loss, -1),
            V::Stalemate => (Wdl::Draw, 0),
            V::DtzResult(r) => signed(r),
            V::Failed => return Err(self.failure(pos, TableKind::Dtz)),
        };
        let mut moves = Vec::with_capacity(result.num_moves);
        for value in &result.moves[..result.num_moves] {
            if let V::DtzResult(r) = value {
                let (wdl, dtz) = signed(*r);
                moves.push(RootMove {
                    from: r.from_square,
                    to: r.to_square,
                    promotion: promotion_kind(r.promotion),
                    wdl,
                    dtz,
                });
            }
        }
        Ok(RootProbe { wdl, dtz, moves })
    }
}

/// A root probe's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct RootProbe {
    /// The position's WDL for the side to move.
    pub wdl: Wdl,
    /// The position's DTZ, signed as `probe_dtz` gives it.
    pub dtz: i32,
    /// Each legal move's result, for the side that plays it (`wdl` Win: the move wins).
    pub moves: Vec<RootMove>,
}

/// One legal move's result in a root probe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove {
    /// The from square's index (a1 = 0).
    pub from: u8,
    /// The to square's index.
    pub to: u8,
    /// The promotion piece, if any.
    pub promotion: Option<PieceKind>,
    /// The result after the move, for the side that plays it.
    pub wdl: Wdl,
    /// Plies to zeroing after the move, counted from before it, signed for the mover.
    pub dtz: i32,
}

fn signed(r: pyrrhic_rs::DtzResult) -> (Wdl, i32) {
    let wdl = Wdl::from_pyrrhic(r.wdl);
    let dtz = r.dtz as i32;
    (wdl, dtz * wdl.value().signum())
}

fn promotion_kind(piece: pyrrhic_rs::Piece) -> Option<PieceKind> {
    match piece {
        pyrrhic_rs::Piece::Queen => Some(PieceKind::Queen),
        pyrrhic_rs::Piece::Rook => Some(PieceKind::Rook),
        pyrrhic_rs::Piece::Bishop => Some(PieceKind::Bishop),
        pyrrhic_rs::Piece::Knight => Some(PieceKind::Knight),
        _ => None,
    }
}

/// The position as bitboards, the prober's arguments.
struct Board {
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
}
