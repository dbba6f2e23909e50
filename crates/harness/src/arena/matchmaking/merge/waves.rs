//! The statistics of the merged games and the SPRT of a run played in waves: the test is read
//! at the end of each complete wave, in order, as a driver submitting the waves would see it.

use super::manifests::RunShape;
use crate::arena::matchmaking::schedule::Wave;
use crate::arena::output::pairing::PairingStats;
use crate::board::GameResult;
use crate::record::FinishedGame;
use crate::stats::{SprtDecision, SprtParams};

/// The pairings' statistics over `games` (in any order).
pub(super) fn pairing_stats(shape: &RunShape, games: &[&FinishedGame]) -> Vec<PairingStats> {
    let schedule = &shape.schedule;
    let mut pairings: Vec<PairingStats> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingStats::new(&shape.names[a], &shape.names[b]))
        .collect();
    for game in games {
        let spec = schedule.game(game.game_id - 1);
        let first_engine = schedule.pairings[spec.pairing].0;
        let white_score = match game.result {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        };
        let score = if spec.engines[0] == first_engine {
            white_score
        } else {
            1.0 - white_score
        };
        pairings[spec.pairing].add_game(spec.pair_id, score);
    }
    pairings
}

/// Per pairing: the SPRT's verdict (`Some(Continue)` when undecided; `None` without a test).
pub(super) fn sprt_decisions(
    sprt: Option<&SprtParams>,
    pairings: &[PairingStats],
) -> Vec<Option<SprtDecision>> {
    pairings
        .iter()
        .map(|p| {
            let sprt = sprt?;
            let llr = sprt.llr_ptnml(p.ptnml).ok()?;
            Some(sprt.decision(llr))
        })
        .collect()
}

/// Whether every pairing's test decided (the run would stop).
pub(super) fn all_decided(decisions: &[Option<SprtDecision>]) -> bool {
    !decisions.is_empty()
        && decisions
            .iter()
            .all(|d| matches!(d, Some(SprtDecision::AcceptH0 | SprtDecision::AcceptH1)))
}

/// Where a run of waves stands.
#[derive(Default)]
pub(super) struct WaveEnds {
    /// The wave at whose end the SPRT decided, if it did.
    pub(super) stopped_after_wave: Option<u64>,
    /// The first wave that is not complete, when the SPRT has not decided before it.
    pub(super) next_wave: Option<u64>,
}

/// Reads the SPRT at the end of each complete wave, in order, over `present` (the games in
/// game-id order); stops at the first wave that is not complete. Nothing for a run not in
/// waves.
pub(super) fn read_wave_ends(
    shape: &RunShape,
    waves: &[Option<Wave>],
    wave_complete: &[bool],
    present: &[&FinishedGame],
) -> WaveEnds {
    let total = shape.schedule.total_games();
    let mut ends = WaveEnds::default();
    for (wave, &complete) in waves.iter().zip(wave_complete) {
        let Some(wave) = wave else {
            // Not in waves.
            break;
        };
        if !complete {
            ends.next_wave = Some(wave.index);
            break;
        }
        if shape.sprt.is_none() {
            continue;
        }
        let end = wave.games(total).end;
        let so_far: Vec<&FinishedGame> = present
            .iter()
            .copied()
            .take_while(|g| g.game_id <= end)
            .collect();
        let pairings = pairing_stats(shape, &so_far);
        if all_decided(&sprt_decisions(shape.sprt.as_ref(), &pairings)) {
            ends.stopped_after_wave = Some(wave.index);
            break;
        }
    }
    ends
}

/// Per pairing: the SPRT's verdict on the merged `games` (in game-id order) whose statistics
/// are `pairings`; for waves still going, the verdict at the end of the last complete wave.
pub(super) fn merged_decisions(
    shape: &RunShape,
    (wave_pairs, next_wave): (Option<u64>, Option<u64>),
    games: &[&FinishedGame],
    pairings: &[PairingStats],
) -> Vec<Option<SprtDecision>> {
    let total = shape.schedule.total_games();
    match (wave_pairs, next_wave) {
        // Waves still going: the test is read at wave ends only, so its decision is the one
        // at the end of the complete waves, not on games past the first gap.
        (Some(pairs), Some(next)) => {
            let end = next
                .checked_sub(1)
                .map_or(0, |last| Wave { index: last, pairs }.games(total).end);
            let prefix: Vec<&FinishedGame> = games
                .iter()
                .copied()
                .take_while(|g| g.game_id <= end)
                .collect();
            sprt_decisions(shape.sprt.as_ref(), &pairing_stats(shape, &prefix))
        }
        _ => sprt_decisions(shape.sprt.as_ref(), pairings),
    }
}
