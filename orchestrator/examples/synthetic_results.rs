//! Writes a seeded synthetic `results.jsonl` for benchmarking `council-elo`: `--games` games
//! among `--players` players with true ratings spread evenly over `--spread` Elo, simulated by
//! `orchestrator::stats::simulate::Pool` (the rating model itself). The same arguments write the
//! same file.
//!
//! ```sh
//! cargo run --release -p orchestrator --example synthetic_results -- \
//!     --players 100 --games 1000000 --seed 1 --out /tmp/bench.jsonl
//! time target/release/council-elo /tmp/bench.jsonl > /dev/null
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use orchestrator::stats::simulate::Pool;

#[derive(Debug, Parser)]
struct Args {
    #[arg(long, default_value_t = 100)]
    players: usize,
    #[arg(long, default_value_t = 1_000_000)]
    games: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// True ratings run evenly from -spread/2 to +spread/2.
    #[arg(long, default_value_t = 800.0)]
    spread: f64,
    #[arg(long, default_value_t = 30.0)]
    first_move: f64,
    #[arg(long, default_value_t = 0.3)]
    draw_rate: f64,
    /// Fraction of games played with a lance handicap worth 150 Elo (receiver is sente).
    #[arg(long, default_value_t = 0.0)]
    handicap_share: f64,
    /// USI moves written per game (placeholders; ratings ignore them), for realistic line sizes.
    #[arg(long, default_value_t = 0)]
    moves: usize,
    #[arg(long)]
    out: PathBuf,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let n = args.players.max(2);
    let pool = Pool {
        players: (0..n)
            .map(|i| {
                let elo = args.spread * (i as f64 / (n - 1) as f64 - 0.5);
                (format!("player{i:03}"), elo)
            })
            .collect(),
        first_move: args.first_move,
        draw_rate: args.draw_rate,
        handicaps: vec![("lance".to_owned(), 150.0)],
        handicap_share: args.handicap_share,
    };
    let file = File::create(&args.out).with_context(|| format!("{}", args.out.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let filler: Vec<String> = ["7g7f", "3c3d", "2g2f", "8c8d"]
        .iter()
        .cycle()
        .take(args.moves)
        .map(|m| (*m).to_owned())
        .collect();
    for mut game in pool.games(args.games, args.seed) {
        game.moves.clone_from(&filler);
        game.plies = filler.len() as u32;
        serde_json::to_writer(&mut out, &game)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
