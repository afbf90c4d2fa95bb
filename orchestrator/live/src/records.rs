//! The CSA and KIF records of the finished games, served from the run folder's `records/`
//! (`GET /records/{file}`) for the replay's links.
//!
//! Invariant: no text of a request ever becomes a path. A file is served only when its name is
//! one of the record names the run gives a finished game of this page (`record_paths`, the
//! names the runner writes), so `..`, `/`, an encoded separator or any other file of the folder
//! is simply not found.

use std::path::{Path, PathBuf};

use serde::Serialize;

use council_play::game::records::record_paths;
use council_schema::results::GameResult;

/// The record files of one game that exist in the folder: file names under `records/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordFiles {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csa: Option<String>,
    /// The `.kif` (Shift_JIS), or the `.kifu` (UTF-8) written in its place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kif: Option<String>,
}

/// The record files a game may have in `folder/records/`, those that exist: CSA, then KIF
/// (`.kif`, else `.kifu`).
fn existing(folder: &Path, game: &GameResult) -> [Option<PathBuf>; 2] {
    let (csa, kif) = record_paths(&folder.join("records"), game);
    let kifu = kif.with_extension("kifu");
    let kif = [kif, kifu].into_iter().find(|p| p.is_file());
    [Some(csa).filter(|p| p.is_file()), kif]
}

fn name_of(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// The record files of `game` in `folder`, by name.
pub fn record_files(folder: &Path, game: &GameResult) -> RecordFiles {
    let [csa, kif] = existing(folder, game);
    RecordFiles {
        csa: csa.as_deref().and_then(name_of),
        kif: kif.as_deref().and_then(name_of),
    }
}

/// The path of the record file called `name` of one of `games`, if it exists in `folder`.
pub fn find_record<'g>(
    folder: &Path,
    games: impl IntoIterator<Item = &'g GameResult>,
    name: &str,
) -> Option<PathBuf> {
    games
        .into_iter()
        .flat_map(|g| existing(folder, g))
        .flatten()
        .find(|p| p.file_name().is_some_and(|n| n == name))
}

/// The content type a record file is served with: KIF's `.kif` is Shift_JIS, the rest UTF-8.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("kif") => "text/plain; charset=shift_jis",
        _ => "text/plain; charset=utf-8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64, sente: &str, gote: &str) -> GameResult {
        serde_json::from_value(serde_json::json!({
            "id": id, "sente": sente, "gote": gote, "start": "startpos", "moves": ["7g7f"],
            "result": "sente", "reason": "resign", "plies": 1,
        }))
        .expect("a results line")
    }

    #[test]
    fn only_the_records_of_finished_games_are_found() {
        let dir = std::env::temp_dir().join(format!("council-live-records-{}", std::process::id()));
        let records = dir.join("records");
        std::fs::create_dir_all(&records).expect("a scratch folder");
        std::fs::write(dir.join("run.json"), "{}").expect("write");
        std::fs::write(records.join("0001-a-vs-b.csa"), "csa").expect("write");
        std::fs::write(records.join("0001-a-vs-b.kif"), "kif").expect("write");
        std::fs::write(records.join("0002-b-vs-_x_.kifu"), "kifu").expect("write");
        std::fs::write(records.join("0009-a-vs-b.csa"), "not a game of the page").expect("write");
        let games = [game(1, "a", "b"), game(2, "b", "<x>")];

        assert_eq!(
            record_files(&dir, &games[0]),
            RecordFiles {
                csa: Some("0001-a-vs-b.csa".into()),
                kif: Some("0001-a-vs-b.kif".into())
            }
        );
        // Its CSA is missing; its KIF is the UTF-8 .kifu.
        assert_eq!(
            record_files(&dir, &games[1]),
            RecordFiles {
                csa: None,
                kif: Some("0002-b-vs-_x_.kifu".into())
            }
        );
        assert_eq!(
            find_record(&dir, &games, "0002-b-vs-_x_.kifu"),
            Some(records.join("0002-b-vs-_x_.kifu"))
        );
        for name in [
            "0009-a-vs-b.csa",
            "0002-b-vs-_x_.csa",
            "../run.json",
            "..",
            "",
            "records/0001-a-vs-b.csa",
            "/etc/passwd",
        ] {
            assert_eq!(find_record(&dir, &games, name), None, "{name}");
        }
        assert_eq!(
            content_type(Path::new("a.kif")),
            "text/plain; charset=shift_jis"
        );
        assert_eq!(
            content_type(Path::new("a.kifu")),
            "text/plain; charset=utf-8"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
