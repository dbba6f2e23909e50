//! `EvalParams`: every evaluation weight as a flat vector of tapered (middlegame, endgame) pairs
//! with a static layout, so the evaluation indexes it directly and the tuner sees one vector.

use super::scale::EndgameScale;
use std::fmt;

/// Where each term's weights start in the flat vector. The evaluation indexes with these, the
/// tuner and the weights file go through the term registry built on them.
pub mod layout {
    /// Piece values, pawn..queen (the king has none).
    pub const MATERIAL: usize = 0;
    /// Six 64-square tables, pawn..king, each indexed by square from White's view (a1 = 0).
    pub const PST: usize = MATERIAL + 5;
    /// Knight mobility by number of safe target squares (not occupied by an own piece, not
    /// attacked by an enemy pawn), 0..=8.
    pub(crate) const MOBILITY_KNIGHT: usize = PST + 6 * 64;
    /// Bishop mobility by number of safe target squares, 0..=13.
    pub(crate) const MOBILITY_BISHOP: usize = MOBILITY_KNIGHT + MOBILITY_LEN[0];
    /// Rook mobility by number of safe target squares, 0..=14.
    pub(crate) const MOBILITY_ROOK: usize = MOBILITY_BISHOP + MOBILITY_LEN[1];
    /// Queen mobility by number of safe target squares, 0..=27.
    pub(crate) const MOBILITY_QUEEN: usize = MOBILITY_ROOK + MOBILITY_LEN[2];
    /// Entries per mobility table (knight, bishop, rook, queen): one per possible target count.
    pub(crate) const MOBILITY_LEN: [usize; 4] = [9, 14, 15, 28];
    /// Mobility offsets indexed by `PieceKind::index()` (pawn and king entries unused).
    pub(crate) const MOBILITY: [usize; 6] = [
        0,
        MOBILITY_KNIGHT,
        MOBILITY_BISHOP,
        MOBILITY_ROOK,
        MOBILITY_QUEEN,
        0,
    ];
    /// Passed pawns by relative rank 2..7.
    pub(crate) const PASSED: usize = MOBILITY_QUEEN + MOBILITY_LEN[3];
    /// Connected pawns (defended by a pawn or beside one) by relative rank 2..7.
    pub(crate) const CONNECTED: usize = PASSED + 6;
    /// Doubled pawns: each pawn with an own pawn ahead of it on its file.
    pub(crate) const DOUBLED: usize = CONNECTED + 6;
    /// Isolated pawns: no own pawn on either adjacent file.
    pub(crate) const ISOLATED: usize = DOUBLED + 1;
    /// Backward pawns: every neighbour is ahead, and the square in front is attacked by an enemy
    /// pawn.
    pub(crate) const BACKWARD: usize = ISOLATED + 1;
    /// Two or more bishops of one side.
    pub const BISHOP_PAIR: usize = BACKWARD + 1;
    /// Rooks on a file with no pawns of either colour.
    pub const ROOK_OPEN_FILE: usize = BISHOP_PAIR + 1;
    /// Rooks on a file with enemy pawns but no own pawn.
    pub(crate) const ROOK_HALF_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
    /// Own pawns in front of the king: [near (one rank ahead), far (two ranks ahead)].
    pub(crate) const KING_SHIELD: usize = ROOK_HALF_OPEN_FILE + 1;
    /// Files at or beside the king without an own pawn.
    pub(crate) const KING_OPEN_FILE: usize = KING_SHIELD + 2;
    /// Attacked squares of the enemy king zone, per attacker: knight, bishop, rook, queen.
    pub(crate) const KING_ATTACKS: usize = KING_OPEN_FILE + 1;
    /// The side-to-move bonus: counted +1 with White to move, -1 with Black to move.
    pub const TEMPO: usize = KING_ATTACKS + 4;
    /// Squares from which a piece could check the enemy king safely, per checker kind: knight,
    /// bishop, rook, queen.
    pub(crate) const SAFE_CHECKS: usize = TEMPO + 1;
    /// Enemy pieces attacked by a pawn, per victim: knight, bishop, rook, queen.
    pub(crate) const THREAT_BY_PAWN: usize = SAFE_CHECKS + 4;
    /// Enemy pieces attacked by a knight or bishop, per victim: knight, bishop, rook, queen.
    pub(crate) const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 4;
    /// Enemy queens attacked by a rook.
    pub(crate) const THREAT_ROOK_ON_QUEEN: usize = THREAT_BY_MINOR + 4;
    /// Enemy pieces (not pawns or kings) attacked and not defended.
    pub(crate) const THREAT_HANGING: usize = THREAT_ROOK_ON_QUEEN + 1;
    /// Enemy pawns attacked by a piece and not defended.
    pub(crate) const THREAT_WEAK_PAWN: usize = THREAT_HANGING + 1;
    /// Enemy pieces a safe pawn push would attack.
    pub(crate) const THREAT_PAWN_PUSH: usize = THREAT_WEAK_PAWN + 1;
    /// Passed pawns: distance of the own king to the square in front, by relative rank 2..7.
    pub(crate) const PASSED_OWN_KING: usize = THREAT_PAWN_PUSH + 1;
    /// Passed pawns: distance of the enemy king to the square in front, by relative rank 2..7.
    pub(crate) const PASSED_ENEMY_KING: usize = PASSED_OWN_KING + 6;
    /// Passed pawns whose square in front is empty and not attacked by the enemy, by relative
    /// rank 2..7.
    pub(crate) const PASSED_FREE: usize = PASSED_ENEMY_KING + 6;
    /// Knights and bishops on an outpost: relative rank 4..6, defended by an own pawn, out of
    /// reach of enemy pawns.
    pub(crate) const OUTPOST: usize = PASSED_FREE + 6;
    /// Rooks on the relative seventh rank.
    pub(crate) const ROOK_SEVENTH: usize = OUTPOST + 2;
    /// Knights and bishops directly behind an own pawn.
    pub(crate) const MINOR_BEHIND_PAWN: usize = ROOK_SEVENTH + 1;
    /// King danger: one entry per danger bucket of the side attacking the enemy king (a one-hot
    /// table, so a non-linear function of the attack stays linear in its weights).
    pub const KING_DANGER: usize = MINOR_BEHIND_PAWN + 1;
    /// Entries of the king-danger table: buckets 0..=15.
    pub const KING_DANGER_BUCKETS: usize = 16;
    /// The number of (mg, eg) parameters.
    pub const NUM_PARAMS: usize = KING_DANGER + KING_DANGER_BUCKETS;
}

use layout::*;

/// The family a parameter belongs to, so a tuner can freeze or select whole families.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ParamGroup {
    /// Piece values, pawn to queen (`material`).
    Material,
    /// Piece-square tables, pawn to king (`pst`).
    Pst,
    /// Mobility tables of knight, bishop, rook and queen (`mobility`).
    Mobility,
    /// Passed, connected, doubled, isolated and backward pawns.
    Pawns,
    /// King shield, open files next to the king, king-zone attacks, safe checks and the
    /// king-danger table (`king_safety`).
    KingSafety,
    /// Bishop pair and rooks on open or half-open files.
    Pieces,
    /// The side-to-move bonus (`tempo`).
    Tempo,
    /// Attacks on enemy pieces and pawns (`threats`).
    Threats,
    /// Passed pawns' king distances and free paths (`passers`).
    Passers,
}

impl ParamGroup {
    /// Every group, in layout order (the default for `model.tune`).
    pub const ALL: [ParamGroup; 9] = [
        ParamGroup::Material,
        ParamGroup::Pst,
        ParamGroup::Mobility,
        ParamGroup::Pawns,
        ParamGroup::KingSafety,
        ParamGroup::Pieces,
        ParamGroup::Tempo,
        ParamGroup::Threats,
        ParamGroup::Passers,
    ];

    /// The name used on command lines and as the first component of parameter names.
    pub const fn name(self) -> &'static str {
        match self {
            ParamGroup::Material => "material",
            ParamGroup::Pst => "pst",
            ParamGroup::Mobility => "mobility",
            ParamGroup::Pawns => "pawns",
            ParamGroup::KingSafety => "king_safety",
            ParamGroup::Pieces => "pieces",
            ParamGroup::Tempo => "tempo",
            ParamGroup::Threats => "threats",
            ParamGroup::Passers => "passers",
        }
    }

    /// Parses one of the names `name()` returns.
    pub fn from_name(name: &str) -> Option<ParamGroup> {
        ParamGroup::ALL.into_iter().find(|g| g.name() == name)
    }
}

impl fmt::Display for ParamGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the entries of a term are named (and laid out in the weights file).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Labels {
    /// A single weight; its name is the term's path.
    Scalar,
    /// 64 entries a1..h8, printed as a board.
    Squares,
    /// Indexed by a count from 0.
    Counts,
    /// Indexed by relative rank 2..7.
    Ranks,
    Names(&'static [&'static str]),
}

/// One table of the weights file: a contiguous run of parameters.
#[derive(Debug)]
pub(crate) struct Term {
    /// Dotted path, e.g. "pst.knight"; also the prefix of each parameter's name.
    pub path: &'static str,
    pub offset: usize,
    pub len: usize,
    pub group: ParamGroup,
    pub labels: Labels,
    /// Comment written above the table in the weights file.
    pub doc: &'static str,
}

impl Term {
    /// The short label of entry `i` within the term (the last component of its name).
    pub(super) fn label(&self, i: usize) -> String {
        match self.labels {
            Labels::Scalar => String::new(),
            Labels::Squares => square_name(i),
            Labels::Counts => i.to_string(),
            Labels::Ranks => format!("rank{}", i + 2),
            Labels::Names(names) => names[i].to_string(),
        }
    }

    /// The name of entry `i` of this term, e.g. "pst.knight.e4" or "mobility.bishop.7".
    pub(crate) fn entry_name(&self, i: usize) -> String {
        match self.labels {
            Labels::Scalar => self.path.to_string(),
            _ => format!("{}.{}", self.path, self.label(i)),
        }
    }
}

/// "a1".."h8" for a square index.
pub(crate) fn square_name(i: usize) -> String {
    format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1)
}

macro_rules! pst_term {
    ($path:expr, $kind:expr, $doc:expr) => {
        Term {
            path: $path,
            offset: PST + 64 * $kind,
            len: 64,
            group: ParamGroup::Pst,
            labels: Labels::Squares,
            doc: $doc,
        }
    };
}

macro_rules! mobility_term {
    ($path:expr, $i:expr, $doc:expr) => {
        Term {
            path: $path,
            offset: MOBILITY[$i + 1],
            len: MOBILITY_LEN[$i],
            group: ParamGroup::Mobility,
            labels: Labels::Counts,
            doc: $doc,
        }
    };
}

const fn scalar(path: &'static str, offset: usize, group: ParamGroup, doc: &'static str) -> Term {
    Term {
        path,
        offset,
        len: 1,
        group,
        labels: Labels::Scalar,
        doc,
    }
}

/// Every term in layout order; the weights file has one table per entry.
pub(crate) static TERMS: [Term; 37] = [
    Term {
        path: "material",
        offset: MATERIAL,
        len: 5,
        group: ParamGroup::Material,
        labels: Labels::Names(&["pawn", "knight", "bishop", "rook", "queen"]),
        doc: "Material: the value of each piece kind in the order pawn, knight, bishop, rook, queen\n\
              (the king has none).",
    },
    pst_term!(
        "pst.pawn",
        0,
        "Piece-square tables: a bonus for a piece standing on each square, from White's point of\n\
         view (Black's pieces read the square mirrored top to bottom). Laid out as a board is\n\
         printed: rank 8 first, a-file on the left. Pawns: ranks 1 and 8 are never used."
    ),
    pst_term!("pst.knight", 1, "Knight piece-square table."),
    pst_term!("pst.bishop", 2, "Bishop piece-square table."),
    pst_term!("pst.rook", 3, "Rook piece-square table."),
    pst_term!("pst.queen", 4, "Queen piece-square table."),
    pst_term!("pst.king", 5, "King piece-square table."),
    mobility_term!(
        "mobility.knight",
        0,
        "Mobility: indexed by the number of safe squares a piece attacks (0..8 for a knight);\n\
         safe = not occupied by an own piece and not attacked by an enemy pawn. A pinned piece\n\
         counts only the squares along its pin."
    ),
    mobility_term!("mobility.bishop", 1, "Bishop mobility, 0..13 safe squares."),
    mobility_term!("mobility.rook", 2, "Rook mobility, 0..14 safe squares."),
    mobility_term!("mobility.queen", 3, "Queen mobility, 0..27 safe squares."),
    Term {
        path: "pawns.passed",
        offset: PASSED,
        len: 6,
        group: ParamGroup::Pawns,
        labels: Labels::Ranks,
        doc: "Passed pawn (no enemy pawn ahead on its own or an adjacent file, no own pawn ahead on its\n\
              file) by relative rank 2..7.",
    },
    Term {
        path: "pawns.connected",
        offset: CONNECTED,
        len: 6,
        group: ParamGroup::Pawns,
        labels: Labels::Ranks,
        doc: "Connected pawn (defended by an own pawn or with one beside it) by relative rank 2..7.",
    },
    scalar(
        "pawns.doubled",
        DOUBLED,
        ParamGroup::Pawns,
        "Doubled pawn: counted for each pawn with an own pawn ahead of it on its file.",
    ),
    scalar(
        "pawns.isolated",
        ISOLATED,
        ParamGroup::Pawns,
        "Isolated pawn: no own pawn on an adjacent file.",
    ),
    scalar(
        "pawns.backward",
        BACKWARD,
        ParamGroup::Pawns,
        "Backward pawn: own pawns on adjacent files are all ahead of it and an enemy pawn guards\n\
         the square in front of it.",
    ),
    scalar(
        "pieces.bishop_pair",
        BISHOP_PAIR,
        ParamGroup::Pieces,
        "Bishop pair: two or more bishops.",
    ),
    scalar(
        "pieces.rook_open_file",
        ROOK_OPEN_FILE,
        ParamGroup::Pieces,
        "Rook on a file without pawns.",
    ),
    scalar(
        "pieces.rook_half_open_file",
        ROOK_HALF_OPEN_FILE,
        ParamGroup::Pieces,
        "Rook on a file with enemy pawns but no own pawn.",
    ),
    Term {
        path: "king_safety.shield",
        offset: KING_SHIELD,
        len: 2,
        group: ParamGroup::KingSafety,
        labels: Labels::Names(&["near", "far"]),
        doc: "Pawn shield: own pawns on the king's file or a neighbouring file, one rank ahead of the\n\
              king (near) or two ranks ahead (far).",
    },
    scalar(
        "king_safety.open_file",
        KING_OPEN_FILE,
        ParamGroup::KingSafety,
        "Each file at or beside the king with no own pawn on it.",
    ),
    Term {
        path: "king_safety.attacks",
        offset: KING_ATTACKS,
        len: 4,
        group: ParamGroup::KingSafety,
        labels: Labels::Names(&["knight", "bishop", "rook", "queen"]),
        doc: "Attacks on the enemy king zone (the king's square and its neighbours): for each\n\
              attacking piece, the number of zone squares it attacks, per attacker kind\n\
              (knight, bishop, rook, queen). A bonus for the attacker.",
    },
    scalar(
        "tempo",
        TEMPO,
        ParamGroup::Tempo,
        "Tempo: a bonus for the side to move.",
    ),
    Term {
        path: "king_safety.safe_checks",
        offset: SAFE_CHECKS,
        len: 4,
        group: ParamGroup::KingSafety,
        labels: Labels::Names(&["knight", "bishop", "rook", "queen"]),
        doc: "Safe checks: squares from which a piece of each kind could check the enemy king,\n\
              attacked by such a piece, not occupied by an own piece and not attacked by the enemy.",
    },
    Term {
        path: "threats.by_pawn",
        offset: THREAT_BY_PAWN,
        len: 4,
        group: ParamGroup::Threats,
        labels: Labels::Names(&["knight", "bishop", "rook", "queen"]),
        doc: "Enemy pieces attacked by an own pawn, per victim kind.",
    },
    Term {
        path: "threats.by_minor",
        offset: THREAT_BY_MINOR,
        len: 4,
        group: ParamGroup::Threats,
        labels: Labels::Names(&["knight", "bishop", "rook", "queen"]),
        doc: "Enemy pieces attacked by an own knight or bishop, per victim kind.",
    },
    scalar(
        "threats.rook_on_queen",
        THREAT_ROOK_ON_QUEEN,
        ParamGroup::Threats,
        "Enemy queens attacked by an own rook.",
    ),
    scalar(
        "threats.hanging",
        THREAT_HANGING,
        ParamGroup::Threats,
        "Enemy knights, bishops, rooks and queens attacked and not defended.",
    ),
    scalar(
        "threats.weak_pawn",
        THREAT_WEAK_PAWN,
        ParamGroup::Threats,
        "Enemy pawns attacked by an own piece and not defended.",
    ),
    scalar(
        "threats.pawn_push",
        THREAT_PAWN_PUSH,
        ParamGroup::Threats,
        "Enemy pieces an own pawn would attack after a push to an empty square no enemy pawn\n\
         attacks.",
    ),
    Term {
        path: "passers.own_king",
        offset: PASSED_OWN_KING,
        len: 6,
        group: ParamGroup::Passers,
        labels: Labels::Ranks,
        doc: "Passed pawn: counted once per square of distance (king steps) from the own king to the\n\
              square in front of the pawn, by relative rank 2..7.",
    },
    Term {
        path: "passers.enemy_king",
        offset: PASSED_ENEMY_KING,
        len: 6,
        group: ParamGroup::Passers,
        labels: Labels::Ranks,
        doc: "Passed pawn: counted once per square of distance (king steps) from the enemy king to\n\
              the square in front of the pawn, by relative rank 2..7.",
    },
    Term {
        path: "passers.free",
        offset: PASSED_FREE,
        len: 6,
        group: ParamGroup::Passers,
        labels: Labels::Ranks,
        doc: "Passed pawn whose square in front is empty and not attacked by the enemy, by relative\n\
              rank 2..7.",
    },
    Term {
        path: "pieces.outpost",
        offset: OUTPOST,
        len: 2,
        group: ParamGroup::Pieces,
        labels: Labels::Names(&["knight", "bishop"]),
        doc: "Outpost: a knight or bishop on relative rank 4..6, defended by an own pawn, on a\n\
              square no enemy pawn can ever attack.",
    },
    scalar(
        "pieces.rook_seventh",
        ROOK_SEVENTH,
        ParamGroup::Pieces,
        "Rook on the relative seventh rank.",
    ),
    scalar(
        "pieces.minor_behind_pawn",
        MINOR_BEHIND_PAWN,
        ParamGroup::Pieces,
        "Knight or bishop directly behind an own pawn.",
    ),
    Term {
        path: "king_safety.danger",
        offset: KING_DANGER,
        len: KING_DANGER_BUCKETS,
        group: ParamGroup::KingSafety,
        labels: Labels::Counts,
        doc: "King danger, a bonus for the attacker by danger bucket 0..15. Units: for each knight,\n\
              bishop, rook or queen attacking the enemy king zone, 2, 2, 3 or 5 per zone square it\n\
              attacks, plus 3, 3, 4 or 4 per safe check of that kind; bucket = units / 3, at most 15.\n\
              Bucket 0 when fewer than two pieces attack the zone or the attacker has no queen.",
    },
];

/// The term holding parameter `i` (panics if `i >= NUM_PARAMS`).
pub(crate) fn term_of(i: usize) -> &'static Term {
    assert!(
        i < NUM_PARAMS,
        "parameter index {i} out of range 0..{NUM_PARAMS}"
    );
    let k = TERMS.partition_point(|t| t.offset <= i) - 1;
    &TERMS[k]
}

/// All evaluation weights. Each is a tapered (middlegame, endgame) pair; see `layout` for the
/// order and `name` for what each one means.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EvalParams {
    pub(crate) weights: Vec<(i32, i32)>,
    /// The endgame scale factors (the weights file's `[scale]` table; neutral without one).
    pub(crate) scale: EndgameScale,
}

impl EvalParams {
    /// Every weight zero: a base for building parameter sets by hand.
    pub fn zeroed() -> EvalParams {
        EvalParams {
            weights: vec![(0, 0); NUM_PARAMS],
            scale: EndgameScale::NEUTRAL,
        }
    }

    /// The hand-set weights with everything but material and tempo set to zero (a deliberately
    /// weak opponent for gauntlet demos; shipped as configs/weights/material-only.toml).
    pub fn material_only() -> EvalParams {
        let mut params = EvalParams::handset();
        for i in 0..NUM_PARAMS {
            if !matches!(params.group(i), ParamGroup::Material | ParamGroup::Tempo) {
                params.set(i, (0, 0));
            }
        }
        params
    }

    /// The number of parameters (always `layout::NUM_PARAMS`).
    #[inline]
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Never true; present because `len` is.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// The (mg, eg) pair of parameter `i`.
    #[inline]
    pub fn get(&self, i: usize) -> (i32, i32) {
        self.weights[i]
    }

    /// Replaces the (mg, eg) pair of parameter `i`; panics if `i` is not below `NUM_PARAMS`.
    #[inline]
    pub fn set(&mut self, i: usize, value: (i32, i32)) {
        self.weights[i] = value;
    }

    /// All parameters in layout order.
    #[inline]
    pub fn as_slice(&self) -> &[(i32, i32)] {
        &self.weights
    }

    /// The endgame scale factors.
    #[inline]
    pub fn scale(&self) -> &EndgameScale {
        &self.scale
    }

    /// Replaces the endgame scale factors.
    pub fn set_scale(&mut self, scale: EndgameScale) {
        self.scale = scale;
    }

    /// The dotted name of parameter `i`, e.g. "pst.knight.e4", "mobility.bishop.7",
    /// "material.rook", "pawns.passed.rank6", "tempo".
    pub fn name(&self, i: usize) -> String {
        let term = term_of(i);
        term.entry_name(i - term.offset)
    }

    /// The group parameter `i` belongs to; panics if `i` is not below `NUM_PARAMS`.
    pub fn group(&self, i: usize) -> ParamGroup {
        term_of(i).group
    }

    /// The index of the parameter called `name` (the inverse of `name`).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        let term = TERMS
            .iter()
            .filter(|t| name == t.path || name.starts_with(&format!("{}.", t.path)))
            .max_by_key(|t| t.path.len())?;
        (0..term.len)
            .find(|&i| term.entry_name(i) == name)
            .map(|i| term.offset + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_tile_the_layout() {
        let mut next = 0;
        for term in &TERMS {
            assert_eq!(
                term.offset, next,
                "{} starts where the previous ends",
                term.path
            );
            assert_eq!(
                term.len == 1,
                term.labels == Labels::Scalar,
                "{}",
                term.path
            );
            next += term.len;
        }
        assert_eq!(next, NUM_PARAMS);
    }

    #[test]
    fn names_are_unique_and_invert() {
        let params = EvalParams::zeroed();
        let mut seen = std::collections::HashSet::new();
        for i in 0..params.len() {
            let name = params.name(i);
            assert!(seen.insert(name.clone()), "duplicate name {name}");
            assert_eq!(params.index_of(&name), Some(i), "{name}");
            assert!(name.starts_with(params.group(i).name()), "{name}");
        }
        assert_eq!(params.name(PST + 64 + 28), "pst.knight.e4");
        assert_eq!(params.name(MOBILITY_BISHOP + 7), "mobility.bishop.7");
        assert_eq!(params.name(MATERIAL + 3), "material.rook");
        assert_eq!(params.name(TEMPO), "tempo");
        assert_eq!(params.index_of("pst.knight.i9"), None);
    }

    #[test]
    fn group_names_round_trip() {
        for g in ParamGroup::ALL {
            assert_eq!(ParamGroup::from_name(g.name()), Some(g));
        }
        assert_eq!(
            ParamGroup::from_name("king_safety"),
            Some(ParamGroup::KingSafety)
        );
        assert_eq!(ParamGroup::from_name("nonsense"), None);
    }
}
