//! A synthetic YaneuraOu book of N positions, and the draw of its lines, for measuring a large
//! book (time and peak memory under `/usr/bin/time -v`):
//! `synthetic_book write BOOK N [SEED]` writes one (`tests/common/synthetic_book.rs`);
//! `synthetic_book draw BOOK [LINES] [DEPTH]` opens it as `[match] openings` does (by offsets)
//! and prints the lines drawn, one a line; `draw-whole` reads it whole first (the reader
//! `[match] openings` used before), for comparison.

#[path = "../tests/common/synthetic_book.rs"]
mod synthetic_book;

use std::path::Path;

use engine::book::{Book, Choice, Sampling};
use engine::position::Position;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    match (arg(1), arg(2)) {
        (Some("write"), Some(path)) => {
            let n: usize = arg(3).unwrap_or("1000000").parse()?;
            let seed: u64 = arg(4).unwrap_or("1").parse()?;
            let bytes = synthetic_book::write_book(Path::new(path), n, seed)?;
            eprintln!("{path}: {n} positions, {bytes} bytes");
        }
        (Some(mode @ ("draw" | "draw-whole")), Some(path)) => {
            let sampling = Sampling {
                depth: arg(4).unwrap_or("16").parse()?,
                min_count: 0,
                score_band: None,
                choice: Choice::Weighted,
                lines: arg(3).unwrap_or("100").parse()?,
                seed: 1,
            };
            let book = if mode == "draw" {
                Book::open(Path::new(path))?
            } else {
                Book::read(Path::new(path))?
            };
            for line in book.sample(&Position::startpos(), &sampling)? {
                println!("{}", line.to_usi_position());
            }
        }
        _ => {
            return Err(
                "usage: synthetic_book write BOOK N [SEED] | draw|draw-whole BOOK [LINES] [DEPTH]"
                    .into(),
            );
        }
    }
    Ok(())
}
