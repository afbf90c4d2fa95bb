//! perft speed: our facade's perft against rsshogi's own, from the start position, in one run.
//! `cargo bench -p engine --bench perft` (nodes/s = 19,861,490 / reported time at depth 5).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::position::Position;
use std::hint::black_box;

const DEPTH: u32 = 5;
const NODES: u64 = 19_861_490;

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft startpos depth 5");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(NODES));
    let ours = Position::startpos();
    group.bench_function("council facade", |b| {
        b.iter(|| assert_eq!(engine::perft::perft(black_box(&ours), DEPTH), NODES));
    });
    let mut theirs = rsshogi::board::hirate_position();
    theirs.init_stack();
    group.bench_function("rsshogi perft", |b| {
        b.iter(|| {
            assert_eq!(
                rsshogi::board::perft::compute_perft(black_box(&mut theirs), 5),
                NODES
            )
        });
    });
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
