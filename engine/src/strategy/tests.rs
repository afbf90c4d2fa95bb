use super::*;

fn sfen(text: &str) -> Position {
    Position::from_sfen(text).expect("test sfen")
}

fn side(rook: Rook, castle: Castle) -> SideLabel {
    SideLabel { rook, castle }
}

use Castle as C;
use RangingFile as F;
use Rook::{Ranging, Static};

/// Hand-built positions from the textbook diagrams (each reached by the legal moves in its
/// comment, the boards checked by eye), one or more per family and per castle.
#[test]
fn every_family_and_castle_on_hand_built_positions() {
    let cases: [(&str, &str, Label, Family); 10] = [
        (
            // 7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 8b4b 5i6h 5a6b 6h7h 6b7b 5g5f 7b8b 8h7g 7a7b
            // 7h8h 9c9d 9i9h 4a5b 8h9i 6c6d 7i8h 5b6c 6i7i
            "居飛車穴熊 (K9九 L9八 S8八) against 四間飛車 (△4二飛) with 高美濃 (△8二玉 7二銀 6一金 6三金)",
            "ln1g2snl/1ks2r3/1ppgp1bpp/p2p1pp2/7P1/2P1P4/PPBP1PP1P/LS3S1R1/KNG2G1NL w - 26",
            Label {
                sente: side(Static, C::Anaguma),
                gote: side(Ranging(F::FourthFile), C::TakaMino),
            },
            Family::StaticVsRanging(F::FourthFile),
        ),
        (
            // The same three moves earlier: no silver beside the king yet, and gote's second
            // gold on 5二 (本美濃).
            "穴熊 without a guard beside the king is no castle; 本美濃",
            "ln1g2snl/1ks1gr3/1pp1p1bpp/p2p1pp2/7P1/2P1P4/PPBP1PP1P/L4S1R1/KNSG1G1NL b - 23",
            Label {
                sente: side(Static, C::None),
                gote: side(Ranging(F::FourthFile), C::Mino),
            },
            Family::StaticVsRanging(F::FourthFile),
        ),
        (
            // 7g7f 3c3d 6g6f 8c8d 2h7h 5a4b 5i4h 4b3b 4h3h 6a5b 3h2h 8d8e 3i3h 7a6b 9g9f 9c9d
            "三間飛車 (▲7八飛) with 片美濃 (▲2八玉 3八銀 4九金) against 舟囲い (△3二玉 4一金 5二金)",
            "ln3gsnl/1r1sg1kb1/2pppp1pp/p5p2/1p7/P1PP5/1P2PPPPP/1BR3SK1/LNSG1G1NL b - 17",
            Label {
                sente: side(Ranging(F::ThirdFile), C::Mino),
                gote: side(Static, C::Funagakoi),
            },
            Family::StaticVsRanging(F::ThirdFile),
        ),
        (
            // 7g7f 5c5d 8h7g 8c8d 5i6h 8b5b 6h7h 5a6b 7h8h 6b7b 7i7h 7b8b 2g2f 7a7b 2f2e 7b8c
            // 9g9f 6a7b
            "左美濃 (▲8八玉 7八銀 6九金) against 中飛車 (△5二飛) with 銀冠 (△8二玉 8三銀 7二金)",
            "ln3gsnl/1kg1r2b1/pspp1pppp/1p2p4/7P1/P1P6/1PBPPPP1P/1KS4R1/LN1G1GSNL b - 19",
            Label {
                sente: side(Static, C::HidariMino),
                gote: side(Ranging(F::Central), C::Ginkan),
            },
            Family::StaticVsRanging(F::Central),
        ),
        (
            // 7g7f 4c4d 8h7g 5c5d 2h8h 3a4b 9g9f 4b4c 1g1f 7a6b 6g6f 6b5c 5g5f 4a3b 4g4f 5a4a
            "向かい飛車 (▲8八飛), king at home, against 雁木 (△4三銀 5三銀 3二金 4一玉)",
            "ln1g1k1nl/1r4gb1/ppppssppp/4pp3/9/P1PPPP2P/1PB3PP1/1R7/LNSGKGSNL b - 17",
            Label {
                sente: side(Ranging(F::Opposing), C::None),
                gote: side(Static, C::Gangi),
            },
            Family::StaticVsRanging(F::Opposing),
        ),
        (
            // 7g7f 3c3d 6g6f 4c4d 7i6h 3a4b 8h7i 2b3a 6h7g 4b3c 5i6h 5a4b 6h7h 4b3b 7h8h 3b2b
            // 6i7h 4a3b 4i5h 6a5b 5h6g 5b4c
            "相矢倉: 金矢倉 on both sides (▲8八玉 7八金 7七銀 6七金)",
            "lns3bnl/1r4gk1/pppppgspp/5pp2/9/2PP5/PPSGPPPPP/1KG4R1/LNB3SNL b - 23",
            Label {
                sente: side(Static, C::Yagura),
                gote: side(Static, C::Yagura),
            },
            Family::StaticVsStatic,
        ),
        (
            // 5g5f 3c3d 2h5h 8b3b
            "相振り飛車: 中飛車 against 三間飛車 (△3二飛)",
            "lnsgkgsnl/6rb1/pppppp1pp/6p2/9/4P4/PPPP1PPPP/1B2R4/LNSGKGSNL b - 5",
            Label {
                sente: side(Ranging(F::Central), C::None),
                gote: side(Ranging(F::ThirdFile), C::None),
            },
            Family::RangingVsRanging,
        ),
        (
            // 7g7f 3c3d 8h7g 8c8d 2h9h
            "九間飛車 (▲9八飛)",
            "lnsgkgsnl/1r5b1/p1pppp1pp/1p4p2/9/2P6/PPBPPPPPP/R8/LNSGKGSNL w - 6",
            Label {
                sente: side(Ranging(F::NinthFile), C::None),
                gote: side(Static, C::None),
            },
            Family::StaticVsRanging(F::NinthFile),
        ),
        (
            "the start position",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            Label {
                sente: side(Static, C::None),
                gote: side(Static, C::None),
            },
            Family::StaticVsStatic,
        ),
        (
            // Gote's 振り飛車穴熊 on its 1九 (9一 on the board) with the lance on 9二, a silver
            // on 8二; sente's 銀矢倉 (▲6七銀 instead of the gold); a position, not a game.
            "振り飛車穴熊 and 銀矢倉",
            "kn6l/ls3r3/pppp5/9/9/9/2SS5/1KG6/LN7 b - 1",
            Label {
                sente: side(Static, C::Yagura),
                gote: side(Ranging(F::FourthFile), C::Anaguma),
            },
            Family::StaticVsRanging(F::FourthFile),
        ),
    ];
    for (what, text, expected, family) in cases {
        let got = label(&sfen(text));
        assert_eq!(got, expected, "{what}");
        assert_eq!(got.family(), family, "{what}");
    }
}

#[test]
fn the_rook_rule_reads_the_game_up_to_the_position() {
    // ▲5八飛 then back to 2八: the game ranged (中飛車) though the board shows a static rook.
    let line = "startpos moves 5g5f 3c3d 2h5h 8c8d 5h2h";
    let game = Position::from_usi_position(line).expect("legal");
    assert_eq!(label(&game).sente.rook, Ranging(F::Central));
    assert_eq!(label(&sfen(&game.to_sfen())).sente.rook, Static);
    // 四間 then 向かい: the last ranging file counts.
    let game = Position::from_usi_position("startpos moves 7g7f 3c3d 2h6h 8c8d 8h7g 8d8e 6h8h")
        .expect("legal");
    assert_eq!(label(&game).sente.rook, Ranging(F::Opposing));
    // A rook lifted to rank 6 and moved across does not range: ▲2六飛 ▲5六飛 (浮き飛車).
    let game = Position::from_usi_position("startpos moves 2g2f 8c8d 2f2e 8d8e 2h2f 3c3d 2f5f")
        .expect("legal");
    assert_eq!(label(&game).sente.rook, Static);
}

#[test]
fn families_and_castles_have_stable_keys() {
    let keys: Vec<String> = Family::all().iter().map(|f| f.key()).collect();
    assert_eq!(
        keys,
        [
            "static-vs-static",
            "static-vs-ranging:central",
            "static-vs-ranging:fourth-file",
            "static-vs-ranging:third-file",
            "static-vs-ranging:opposing",
            "static-vs-ranging:ninth-file",
            "ranging-vs-ranging"
        ]
    );
    for f in Family::all() {
        assert_eq!(f.key().parse::<Family>(), Ok(f));
    }
    assert_eq!(
        Family::StaticVsRanging(F::FourthFile).name_ja(),
        "対抗形:四間飛車"
    );
    assert!("static".parse::<Family>().is_err());
    let castles: Vec<&str> = Castle::ALL.iter().map(|c| c.key()).collect();
    assert_eq!(
        castles,
        [
            "anaguma",
            "ginkan",
            "takamino",
            "mino",
            "hidarimino",
            "yagura",
            "gangi",
            "funagakoi",
            "none"
        ]
    );
}

/// Positions of real games: gpsshogi self-play from its book (the gps-selfplay corpus run,
/// game ids as in its results.jsonl), each at ply 30 with the moves that led there; boards
/// checked by eye.
#[test]
fn real_games_at_ply_30() {
    let cases: [(&str, &str, &str, Label); 4] = [
        (
            // Game 1: ▲居飛車穴熊 (9九玉 9八香 8八銀) against △ゴキゲン中飛車 with 美濃 (8二玉 7二銀 6一金).
            "ln1g1g1nl/1ks1r2b1/1pp4pp/3ppsp2/p4p3/2PSP2P1/PPBP1PP1P/LS1G3R1/KN1G3NL b - 31",
            "2g2f 3c3d 7g7f 4c4d 3i4h 3a4b 5g5f 5c5d 4i5h 8b5b 5i6h 5a6b 6h7h 6b7b 4h5g 7b8b \
             8h7g 7a7b 7h8h 9c9d 9i9h 9d9e 8h9i 4b4c 7i8h 4d4e 5g6f 4c4d 5h6h 6c6d",
            "startpos",
            Label {
                sente: side(Static, C::Anaguma),
                gote: side(Ranging(F::Central), C::Mino),
            },
        ),
        (
            // Game 127: 相矢倉, both kings one step from entering (7九 / 3一).
            "ln4knl/1r1s2g2/p2p1gspp/1ppbppp2/9/2PPP1P2/PPSG1PSPP/2GB3R1/LNK4NL b - 31",
            "7g7f 8c8d 7i6h 3c3d 6g6f 7a6b 5g5f 5c5d 3i4h 3a4b 4i5h 4a3b 6h7g 5a4a 5h6g 7c7d \
             6i7h 6a5b 5i6i 4b3c 8h7i 2b3a 3g3f 4c4d 4h3g 3a6d 7i6h 5b4c 6i7i 4a3a",
            "startpos",
            Label {
                sente: side(Static, C::Yagura),
                gote: side(Static, C::Yagura),
            },
        ),
        (
            // Game 142: ▲左美濃 (8七玉 7八銀 6九金) against △四間飛車 高美濃.
            "ln1g3nl/1ks2r3/1p1gpsbpp/p1pp1pp2/7P1/PPP1PSP2/1K1P1P2P/1BS1G2R1/LN1G3NL b - 31",
            "7g7f 3c3d 2g2f 4c4d 3i4h 8b4b 5i6h 5a6b 6h7h 3a3b 5g5f 6b7b 4h5g 7b8b 4i5h 3b4c \
             9g9f 9c9d 8g8f 7a7b 7h8g 4a5b 7i7h 6c6d 3g3f 5b6c 2f2e 2b3c 5g4f 7c7d",
            "startpos",
            Label {
                sente: side(Static, C::HidariMino),
                gote: side(Ranging(F::FourthFile), C::TakaMino),
            },
        ),
        (
            // Game 334: ▲三間飛車 美濃 against △居飛車穴熊 (1一玉 1二香 2二銀).
            "ln1g3nk/3s2gsl/p1pp1pbpp/1r4p2/1p2pS2P/2PP5/PPB1PPPP1/2R1G1SK1/LN3G1NL b - 31",
            "7g7f 3c3d 6g6f 7a6b 2h7h 5a4b 5i4h 4b3b 4h3h 8c8d 7i6h 8d8e 8h7g 2b3c 3h2h 3b2b \
             6h6g 4a3b 3i3h 5c5d 1g1f 1a1b 1f1e 2b1a 6g5f 5d5e 5f4e 8b8d 6i5h 3a2b",
            "startpos",
            Label {
                sente: side(Ranging(F::ThirdFile), C::Mino),
                gote: side(Static, C::Anaguma),
            },
        ),
    ];
    for (board, moves, start, expected) in cases {
        let game = Position::from_usi_position(&format!("{start} moves {moves}")).expect("legal");
        assert_eq!(game.to_sfen(), board);
        assert_eq!(label(&game), expected, "{board}");
        assert_eq!(label(&sfen(board)), expected, "{board} without its history");
    }
}
