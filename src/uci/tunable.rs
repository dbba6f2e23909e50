//! The search constants of the UCI engine: starting it with a search file (`sparring uci
//! --search FILE`).

use super::UciEngine;
use crate::search::SearchParams;

impl UciEngine {
    /// Replaces the search constants for later searches (a running search finishes first).
    pub fn set_search_params(&mut self, search: SearchParams) {
        self.finish_search(self.search_waits());
        if let Some(searcher) = self.searcher.as_mut() {
            searcher.set_search_params(search);
        }
    }
}
