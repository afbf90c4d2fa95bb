//! One perft run, by our facade or by rsshogi alone, for instruction counting:
//! `valgrind --tool=callgrind target/release/examples/perft_compare council 4`
//! `valgrind --tool=callgrind target/release/examples/perft_compare rsshogi 4`

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("council", String::as_str);
    let depth: u8 = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(4);
    let nodes = match which {
        "rsshogi" => {
            let mut pos = rsshogi::board::hirate_position();
            pos.init_stack();
            rsshogi::board::perft::compute_perft(&mut pos, depth)
        }
        _ => engine::perft::perft(&engine::position::Position::startpos(), u32::from(depth)),
    };
    println!("{nodes}");
}
