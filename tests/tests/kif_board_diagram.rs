//! KIF board diagrams (BOD) against an independent referee: seed 000's diagram after
//! move 74 (`tests/fixtures/seed000_ply74.kif`, pasted from the article, and the same position
//! as a Kifu for Windows KIF with two moves on) is read by our engine library (rsshogi's reader
//! behind our checks) and by `tests/helpers/bod_referee.py` (cshogi's board built square by
//! square): the positions must be equal and cshogi must find the article's 108 legal moves.
//! Diagrams we write must read back the same, both by us and by cshogi, and draw exactly as
//! cshogi draws the position.

use std::path::{Path, PathBuf};
use std::process::Command;

use council_tests::{python, workspace_root};
use engine::position::Position;
use engine::record::{GameRecord, RecordedMove, board_diagram};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    workspace_root().join("tests/fixtures").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kif-board-diagram");
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir.join(name)
}

/// cshogi's reading of the diagram in `file` (and its drawing of `sfen`, when given).
fn referee(file: &Path, sfen: Option<&str>) -> Value {
    let mut cmd = Command::new(python());
    cmd.arg(workspace_root().join("tests/helpers/bod_referee.py"))
        .arg(file);
    if let Some(sfen) = sfen {
        cmd.arg(sfen);
    }
    let run = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run Python for bod_referee.py: {e}"));
    assert!(
        run.status.success(),
        "bod_referee.py failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).expect("one JSON object")
}

/// Board, hands and side to move (a diagram has no move number).
fn position_part(sfen: &str) -> String {
    sfen.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_seed_000_diagram_reads_as_cshogi_reads_it_with_108_legal_moves() {
    for name in ["seed000_ply74.kif", "seed000_ply74_moves.kif"] {
        let file = fixture(name);
        let ours = GameRecord::read_file(&file)
            .unwrap_or_else(|e| panic!("{e}"))
            .start()
            .clone();
        let theirs = referee(&file, None);
        assert_eq!(theirs["legal_moves"], 108, "{name}: {theirs}");
        assert_eq!(
            position_part(&ours.to_sfen()),
            position_part(theirs["sfen"].as_str().expect("sfen")),
            "{name}"
        );
        assert_eq!(ours.legal_moves().len(), 108, "{name}");
    }
}

#[test]
fn diagrams_we_write_read_back_and_draw_as_cshogi_draws_them() {
    let start = GameRecord::read_file(fixture("seed000_ply74.kif"))
        .unwrap_or_else(|e| panic!("{e}"))
        .start()
        .clone();
    // Sente to move (the seed's position) and gote to move (after ▲３三角成).
    let mut after = start.clone();
    after.play(after.parse_usi_move("2d3c+").expect("legal"));
    let sfen = after.to_sfen();
    let (fields, _) = sfen.rsplit_once(' ').expect("SFEN fields");
    let gote = Position::from_sfen(&format!("{fields} 1")).expect("sfen");
    for pos in [start, gote] {
        let sfen = pos.to_sfen();
        // A bare diagram.
        let bod = board_diagram(&pos);
        let file = scratch("bare.kif");
        std::fs::write(&file, &bod).expect("write");
        let theirs = referee(&file, Some(&sfen));
        assert_eq!(theirs["bod_of_sfen"].as_str(), Some(bod.as_str()), "{sfen}");
        assert_eq!(
            position_part(theirs["sfen"].as_str().expect("sfen")),
            position_part(&sfen)
        );
        assert_eq!(
            GameRecord::read_file(&file)
                .unwrap_or_else(|e| panic!("{e}"))
                .start(),
            &pos
        );
        // A KIF (UTF-8 `.kifu` here) of a game from it: the diagram heads the file.
        let mut game = GameRecord::new(&pos);
        let first = pos.legal_moves()[0];
        game.push(RecordedMove::new(first)).expect("legal");
        let kif = game.to_kif().expect("write KIF");
        assert!(kif.contains("+---------------------------+"), "{kif}");
        let file = scratch("game.kifu");
        std::fs::write(&file, &kif).expect("write");
        let theirs = referee(&file, None);
        assert_eq!(
            position_part(theirs["sfen"].as_str().expect("sfen")),
            position_part(&sfen),
            "{kif}"
        );
        let back = GameRecord::read_file(&file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.start(), &pos, "{kif}");
        assert_eq!(back.moves().len(), 1);
    }
}
