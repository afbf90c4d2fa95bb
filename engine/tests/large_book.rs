//! A large YaneuraOu book (100,000 positions, synthetic: `common/synthetic_book.rs`) drawn from
//! by offsets ([`Book::open`], which holds no entry) gives the same lines as the same book read
//! whole ([`Book::read`]), and so do its walks; the draw reads only the entries it reaches.

use engine::book::{Book, Choice, Sampling};
use engine::position::Position;

#[path = "common/synthetic_book.rs"]
mod synthetic_book;

#[test]
fn a_large_book_draws_the_same_lines_by_offsets_as_read_whole() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("large-book.db");
    synthetic_book::write_book(&path, 100_000, 7).expect("write the book");
    let whole = Book::read(&path).expect("reads whole");
    assert_eq!(whole.entries().map(<[_]>::len), Some(100_000));
    let indexed = Book::open(&path).expect("opens by offsets");
    assert!(indexed.entries().is_none());
    assert_eq!(indexed.duplicates, whole.duplicates);
    let root = Position::startpos();
    for (choice, seed, score_band) in [(Choice::Weighted, 1, None), (Choice::Uniform, 2, Some(190))]
    {
        let sampling = Sampling {
            depth: 14,
            min_count: 0,
            score_band,
            choice,
            lines: 300,
            seed,
        };
        let a = whole.sample(&root, &sampling).expect("draws");
        let b = indexed.sample(&root, &sampling).expect("draws");
        assert!(a.len() > 100, "{} lines", a.len());
        let usi = |v: &[Position]| v.iter().map(Position::to_usi_position).collect::<Vec<_>>();
        assert_eq!(usi(&a), usi(&b), "{choice:?}");
    }
    let a = whole.walk(&root, 4, 0).expect("walks");
    let b = indexed.walk(&root, 4, 0).expect("walks");
    let lines = |w: &engine::book::Walk| {
        w.lines
            .iter()
            .map(|l| (l.position.to_usi_position(), l.probability, l.line))
            .collect::<Vec<_>>()
    };
    assert_eq!(lines(&a), lines(&b));
    assert!(!a.lines.is_empty());
    let _ = std::fs::remove_file(&path);
}
