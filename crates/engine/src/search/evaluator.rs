//! Which evaluation the search calls: the hand-crafted one ([`EvalParams`]) or a network
//! ([`Network`]), whose accumulators the searcher keeps in step with every move it makes and
//! takes back.

use super::Searcher;
use crate::board::{Move, Position, Undo};
use crate::eval::{evaluate_cached, EvalParams};
use crate::nnue::{search_score, AccumulatorStack, Network};
use crate::search::SearchParams;
use std::sync::Arc;

/// The evaluation a searcher plays with.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// The hand-crafted evaluation with these weights.
    Hce(Arc<EvalParams>),
    /// A network in bullet's simple architecture; the search's score is its output scaled by
    /// `eval.net_scale` and clamped as the hand-crafted evaluation is ([`search_score`]).
    Net(Arc<Network>),
}

impl Default for Evaluator {
    /// The shipped default: the shipped network ([`crate::nnue::shipped`]), which beat the
    /// hand-crafted evaluation at equal time (docs/strength.md, row 30).
    fn default() -> Evaluator {
        Evaluator::Net(crate::nnue::shipped())
    }
}

impl Evaluator {
    /// The hand-crafted evaluation with the built-in weights (`--hce`, `EvalFile <hce>`).
    pub fn hand_crafted() -> Evaluator {
        Evaluator::Hce(Arc::new(EvalParams::default()))
    }

    /// The static evaluation a search with the constants `search` uses for `pos` (a network's
    /// output scaled by its `eval.net_scale`), from the side to move's view, computed from
    /// scratch (`sparring eval`; the search computes the same incrementally).
    pub fn evaluate_with(&self, pos: &Position, search: &SearchParams) -> i32 {
        match self {
            Evaluator::Hce(params) => crate::eval::evaluate(pos, params),
            Evaluator::Net(net) => search_score(net.evaluate(pos), search.net_scale),
        }
    }
}

impl Searcher {
    /// Plays with `evaluator` from the next search on; the table keeps its entries. With a
    /// network the hand-crafted weights stay as they were (for `params` and tracing).
    pub fn set_evaluator(&mut self, evaluator: &Evaluator) {
        match evaluator {
            Evaluator::Hce(params) => {
                self.set_params(params.clone());
                self.net = None;
            }
            Evaluator::Net(net) => self.net = Some(Box::new(AccumulatorStack::new(net.clone()))),
        }
    }

    /// The evaluation in use.
    pub fn evaluator(&self) -> Evaluator {
        match &self.net {
            Some(stack) => Evaluator::Net(stack.network().clone()),
            None => Evaluator::Hce(self.params.clone()),
        }
    }

    /// Starts the network's accumulators from `pos`, the root of a search.
    pub(super) fn reset_accumulators(&mut self, pos: &Position) {
        if let Some(stack) = self.net.as_mut() {
            stack.reset(pos);
        }
    }

    /// Makes `mv` on the board and, with a network, on the accumulators.
    #[inline(always)]
    pub(super) fn make(&mut self, pos: &mut Position, mv: Move) -> Undo {
        if let Some(stack) = self.net.as_mut() {
            stack.push(pos, mv);
        }
        pos.make_move(mv)
    }

    /// Takes back `mv` from the board and the accumulators.
    #[inline(always)]
    pub(super) fn unmake(&mut self, pos: &mut Position, mv: Move, undo: Undo) {
        if let Some(stack) = self.net.as_mut() {
            stack.pop();
        }
        pos.unmake_move(mv, undo);
    }

    /// The static evaluation, inside ±`MAX_EVAL` whatever the weights or net (both clamp). A
    /// null move needs nothing of the accumulators: they are White's and Black's, and the side
    /// to move picks which comes first.
    #[inline]
    pub(super) fn evaluate(&mut self, pos: &Position) -> i32 {
        match &self.net {
            Some(stack) => {
                let output = stack.evaluate(pos.side_to_move());
                // Tests (debug assertions) check every incremental output against a recount.
                debug_assert_eq!(output, stack.network().evaluate(pos), "{pos}");
                search_score(output, self.tuning.net_scale)
            }
            None => evaluate_cached(pos, &self.params, &mut self.pawn_table),
        }
    }
}
