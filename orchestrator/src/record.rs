//! Game records: each finished game as CSA (with `'** <score> <pv>` comments) and KIF, written
//! through the engine crate's `engine::record` (pending: that module has not landed yet).

use std::path::Path;

use crate::config::Config;
use crate::runner::game::PlayedGame;

/// Write `records/<id>-<sente>-vs-<gote>.csa` and `.kif` (a no-op until `engine::record` lands).
pub fn write_records(_dir: &Path, _config: &Config, _game: &PlayedGame) -> std::io::Result<()> {
    Ok(())
}
