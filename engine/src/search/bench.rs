//! `council-engine bench`: a fixed set of positions searched to a fixed depth from a fresh
//! engine each, so the node total is a fingerprint of the search (same build, same total) and
//! nodes per second a rough speed measure.
//!
//! Invariant: nothing here depends on time; the positions, the depth and the settings are
//! constants of the build, and each position starts from cleared tables.

use super::{BestMove, Engine, EngineSettings, Limits, Silent, StopFlag};
use crate::position::Position;
use std::time::{Duration, Instant};

/// Positions: the start, opening and middle-game positions with castles, a tactical
/// middle game, an endgame race with many pieces in hand, and a handicap start.
pub const BENCH_SFENS: &[&str] = &[
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "ln1g3nl/1r3kg2/p2pppsp1/2ps2p1p/1p7/2P1P1P1P/PPSP1PN2/2GK3R1/LN3G2L b Bb 31",
    "lr5nl/3g1kg2/2n1ppsp1/p1pps1p1p/1p5P1/P1PP1PP1P/1PS1P1N2/1KG1G2R1/LN6L b BSb 45",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124",
    "3g1k2l/5g3/2n1p1sp1/p1pP1p2p/9/P1P1P1P1P/1P1G1P3/2+r1G4/L2K3NL b BNS2Pbrslnp 81",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// Depth every bench position is searched to.
pub const BENCH_DEPTH: u32 = 10;

/// Totals of one bench run.
#[derive(Clone, Copy, Debug)]
pub struct BenchReport {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchReport {
    #[must_use]
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// Runs the bench; `on_position` hears each position's index, SFEN, nodes and best move.
pub fn run(depth: u32, on_position: &mut dyn FnMut(usize, &str, u64, String)) -> BenchReport {
    let settings = EngineSettings {
        hash_mb: 16,
        ..EngineSettings::default()
    };
    let mut engine = Engine::new(settings);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    let start = Instant::now();
    for (i, sfen) in BENCH_SFENS.iter().enumerate() {
        engine.new_game();
        let pos = Position::from_sfen(sfen).expect("bench SFENs are valid");
        let r = engine.search(&pos, &limits, &StopFlag::new(), &mut Silent);
        nodes += r.nodes;
        let best = match r.best {
            BestMove::Move(m) => m.to_usi(),
            BestMove::Resign => "resign".to_string(),
            BestMove::Win => "win".to_string(),
        };
        on_position(i, sfen, r.nodes, best);
    }
    BenchReport {
        nodes,
        elapsed: start.elapsed(),
    }
}
