//! KIF's move notation (`７六歩(77)`, `同　銀(31)`, `４五角打`) and the `**読み筋=` pv line our
//! KIF records carry: shared by the KIF reader ([`super::kif`]), the writers
//! ([`super::convert`], [`super::kif_write`]) and [`super::kif_move`] (the live page's move
//! list), so none imports another.

use crate::position::Position;
use crate::types::{Move, PieceKind};

/// The comment line that carries an engine's expected line (after `**評価値=`).
pub(super) const PV_PREFIX: &str = "**読み筋=";
const FILE_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANK_KANJI: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The comment line for an engine's expected line `pv` after the move that led to `after`
/// (without its leading `*`, which the writer adds), or `None` if it has no legal first move.
pub(super) fn pv_comment(after: &Position, pv: &[Move]) -> Option<String> {
    if pv.is_empty() {
        return None;
    }
    let mut pos = after.clone();
    let mut words = Vec::new();
    for &mv in pv {
        if !pos.is_legal(mv) {
            break;
        }
        let mark = match pos.side_to_move() {
            crate::types::Color::Sente => '▲',
            crate::types::Color::Gote => '△',
        };
        let Some(text) = move_text(&pos, mv) else {
            break;
        };
        words.push(format!("{mark}{text}"));
        pos.play(mv);
    }
    (!words.is_empty()).then(|| format!("{}{}", &PV_PREFIX[1..], words.join(" ")))
}

/// A legal move in KIF notation: `７六歩(77)`, `同　銀(31)`, `２二角成(88)`, `２三銀不成(34)`,
/// `４五角打`.
pub(super) fn move_text(pos: &Position, mv: Move) -> Option<String> {
    let same = pos.last_move().is_some_and(|last| last.to() == mv.to());
    notation(pos, mv, same, true)
}

/// A legal move as the KIF writer's numbered lines write it (rsshogi's `export_kif`, which GUIs
/// and cshogi read): `同　` when `same_square` (the previous move's destination), and a declined
/// promotion bare (`２三銀(34)`).
pub(super) fn record_move_text(pos: &Position, mv: Move, same_square: bool) -> Option<String> {
    notation(pos, mv, same_square, false)
}

fn notation(pos: &Position, mv: Move, same_square: bool, declined: bool) -> Option<String> {
    let to = mv.to();
    let square = if same_square {
        "同　".to_string()
    } else {
        format!(
            "{}{}",
            FILE_DIGITS[usize::from(to.file()) - 1],
            RANK_KANJI[usize::from(to.rank()) - 1]
        )
    };
    if let Some(kind) = mv.dropped_kind() {
        return Some(format!("{square}{}打", kind_name(kind)));
    }
    let from = mv.from()?;
    let kind = pos.piece_at(from)?.kind;
    let suffix = if mv.is_promotion() {
        "成"
    } else if declined && pos.parse_usi_move(&format!("{}+", mv.to_usi())).is_ok() {
        "不成"
    } else {
        ""
    };
    Some(format!(
        "{square}{}{suffix}({}{})",
        kind_name(kind),
        from.file(),
        from.rank()
    ))
}

const fn kind_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "歩",
        PieceKind::Lance => "香",
        PieceKind::Knight => "桂",
        PieceKind::Silver => "銀",
        PieceKind::Gold => "金",
        PieceKind::Bishop => "角",
        PieceKind::Rook => "飛",
        PieceKind::King => "玉",
        PieceKind::ProPawn => "と",
        PieceKind::ProLance => "成香",
        PieceKind::ProKnight => "成桂",
        PieceKind::ProSilver => "成銀",
        PieceKind::Horse => "馬",
        PieceKind::Dragon => "龍",
    }
}
