//! What `council-elo --by` groups games by, and each game's group: the key
//! [`council_schema::results::family`] gives it (the one place games are labelled).

use council_schema::results::GameResult;
use council_schema::results::family::{family_key, row_name_ja, row_order};

/// What games are grouped by (`--by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The opening family of each game's record.
    Family,
}

impl GroupBy {
    /// The group `game` belongs to.
    #[must_use]
    pub fn key(self, game: &GameResult) -> String {
        match self {
            Self::Family => family_key(game),
        }
    }

    /// The group's name for people (the family's Japanese name).
    #[must_use]
    pub fn name(self, key: &str) -> String {
        match self {
            Self::Family => row_name_ja(key),
        }
    }

    /// The order groups are shown in.
    pub(crate) fn order(self, key: &str) -> (usize, String) {
        match self {
            Self::Family => row_order(key),
        }
    }
}
