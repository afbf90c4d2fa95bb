//! `Position`: a validated shogi position with the game that led to it, the rules facade over
//! rsshogi that the rest of the workspace uses.
//!
//! A `Position` is a validated shogi position plus the moves played since its root, so it can
//! judge repetition, undo moves and write itself back as a USI `position` command. Invariants:
//! the inner rsshogi position always matches `root` + `played`; `trail` has one entry per
//! position from the root to the current one; legality means membership in rsshogi's
//! `LegalAll` list (every legal move, including every legal non-promotion).
//!
//! Nothing here exposes an rsshogi type publicly. Search code inside the engine crate may reach
//! the rsshogi position through `raw()` / `raw_mut()`.

use super::handicap::Handicap;
use super::impasse::{self, ImpasseError};
use super::legality::{self, IllegalReason, MoveError};
use super::repetition::{self, Repetition, Trail};
use super::sfen::{self, SfenError};
use crate::notation::UsiMove;
use crate::types::{Color, Move, Piece, PieceKind, Square};
use rsshogi::board::{Move32List, Position as RsPosition};
use rsshogi::types::{HandPiece, Move32};
use std::fmt;

/// A shogi position with the history of the game that led to it.
#[derive(Clone)]
pub struct Position {
    inner: RsPosition,
    /// The SFEN the game started from (as given, normalised to four fields).
    root: String,
    /// Moves played since the root, as rsshogi needs them to undo.
    played: Vec<Move32>,
    /// One entry per position since the root, the current one last.
    trail: Vec<Trail>,
}

impl Position {
    /// The even-game start position.
    #[must_use]
    pub fn startpos() -> Self {
        Self::handicap(Handicap::Even)
    }

    /// A named start position (the even game or a handicap).
    #[must_use]
    pub fn handicap(handicap: Handicap) -> Self {
        Self::from_sfen(handicap.sfen())
            .unwrap_or_else(|e| unreachable!("built-in start position {handicap} rejected: {e}"))
    }

    /// Parses and validates an SFEN (the move number may be omitted; it then is 1).
    ///
    /// # Errors
    /// [`SfenError`] names the field that is malformed or the rule the position breaks.
    pub fn from_sfen(sfen: &str) -> Result<Self, SfenError> {
        let inner = sfen::parse(sfen)?;
        Ok(Self::from_validated(inner))
    }

    fn from_validated(inner: RsPosition) -> Self {
        let root = inner.to_sfen(None);
        let trail = vec![Trail {
            key: inner.key().low_u64(),
            to_move: Color::from_rs(inner.turn()),
            by_check: false,
        }];
        Self {
            inner,
            root,
            played: Vec::new(),
            trail,
        }
    }

    /// The position as SFEN, with the move number.
    #[must_use]
    pub fn to_sfen(&self) -> String {
        self.inner.to_sfen(None)
    }

    /// The SFEN of the position the game started from.
    #[must_use]
    pub fn root_sfen(&self) -> &str {
        &self.root
    }

    /// The moves played since the root, first move first.
    #[must_use]
    pub fn moves(&self) -> Vec<Move> {
        self.moves_played().collect()
    }

    /// The moves played since the root, first move first, without collecting them.
    pub fn moves_played(&self) -> impl ExactSizeIterator<Item = Move> + Clone + '_ {
        self.played.iter().map(|m| Move::from_rs(m.to_move()))
    }

    /// The last move played since the root.
    #[must_use]
    pub fn last_move(&self) -> Option<Move> {
        self.played.last().map(|m| Move::from_rs(m.to_move()))
    }

    /// The arguments of a USI `position` command that reproduce this game:
    /// `startpos moves 7g7f ...` or `sfen <sfen> moves ...` (no `moves` when none were played).
    #[must_use]
    pub fn to_usi_position(&self) -> String {
        let mut out = if self.root == Handicap::Even.sfen() {
            "startpos".to_string()
        } else {
            format!("sfen {}", self.root)
        };
        if !self.played.is_empty() {
            out.push_str(" moves");
            for m in &self.played {
                out.push(' ');
                out.push_str(&Move::from_rs(m.to_move()).to_usi());
            }
        }
        out
    }

    /// The side to move.
    #[must_use]
    pub fn side_to_move(&self) -> Color {
        Color::from_rs(self.inner.turn())
    }

    /// The move number as SFEN counts it (1 at the start of a game, +1 per ply).
    #[must_use]
    pub fn ply(&self) -> u32 {
        u32::from(self.inner.game_ply())
    }

    /// Zobrist key of the whole position (board, hands, side to move).
    #[must_use]
    pub fn key(&self) -> u64 {
        self.inner.key().low_u64()
    }

    /// The piece on a square.
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        Piece::from_rs(self.inner.piece_on(square.to_rs()))
    }

    /// How many pieces of `kind` `color` holds in hand (0 for kinds that cannot be held).
    #[must_use]
    pub fn hand_count(&self, color: Color, kind: PieceKind) -> u32 {
        HandPiece::from_piece_type(kind.to_rs())
            .map_or(0, |hp| self.inner.hand(color.to_rs()).count(hp))
    }

    /// Where `color`'s king stands.
    #[must_use]
    pub fn king_square(&self, color: Color) -> Square {
        Square::from_rs(self.inner.king_square(color.to_rs()))
            .unwrap_or_else(|| unreachable!("validated positions have both kings"))
    }

    /// Every legal move, including every legal non-promotion.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = Move32List::new();
        rsshogi::movegen::generate_legal_all_move32(&self.inner, &mut list);
        list.iter().map(|m| Move::from_rs(m.to_move())).collect()
    }

    /// Whether `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_move32(mv).is_some()
    }

    /// `mv` with its piece filled in, if it is legal here: rsshogi's check of one move (the
    /// piece is there and moves so, the square is free, nifu, pawn-drop mate, the king safe;
    /// every legal non-promotion allowed), not a generation of every legal move. The unit test
    /// `one_move_judged_alone_agrees_with_the_generated_legal_moves` holds the two together.
    fn legal_move32(&self, mv: Move) -> Option<Move32> {
        let m32 = self.inner.move32_from_move(mv.to_rs());
        self.inner.is_legal_move32(m32).then_some(m32)
    }

    /// Reads USI move text and checks it is legal here.
    ///
    /// # Errors
    /// [`MoveError::Malformed`] when the text is not a USI move, [`MoveError::Illegal`] with the
    /// broken rule (nifu, pawn-drop mate, leaves king in check, no such piece, ...) otherwise.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, MoveError> {
        let mv = text.parse::<UsiMove>()?.to_move();
        if self.is_legal(mv) {
            Ok(mv)
        } else {
            Err(MoveError::Illegal {
                text: text.to_string(),
                reason: legality::diagnose(&self.inner, mv.to_rs()),
            })
        }
    }

    /// Plays the USI move `text` if it is legal here, with one look-up in the legal moves
    /// (what [`Self::parse_usi_move`] and then [`Self::play`] do in two); the position is left
    /// as it was when it is not.
    ///
    /// # Errors
    /// As [`Self::parse_usi_move`]: malformed text, or the rule the move breaks, named by `text`.
    pub fn play_usi_move(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = text.parse::<UsiMove>()?.to_move();
        match self.try_play(mv) {
            Ok(()) => Ok(mv),
            Err(MoveError::Illegal { reason, .. }) => Err(MoveError::Illegal {
                text: text.to_string(),
                reason,
            }),
            Err(e) => Err(e),
        }
    }

    /// Plays a legal move.
    ///
    /// # Panics
    /// If `mv` is not legal here: moves come from [`Self::legal_moves`] or
    /// [`Self::parse_usi_move`] of this very position; use [`Self::try_play`] otherwise.
    pub fn play(&mut self, mv: Move) {
        if let Err(e) = self.try_play(mv) {
            panic!("Position::play({mv}) in {}: {e}", self.to_sfen());
        }
    }

    /// Plays `mv` if it is legal here.
    ///
    /// # Errors
    /// [`MoveError::Illegal`] with the reason, leaving the position unchanged.
    pub fn try_play(&mut self, mv: Move) -> Result<(), MoveError> {
        if self.inner.game_ply() == u16::MAX {
            return Err(MoveError::Illegal {
                text: mv.to_usi(),
                reason: IllegalReason::PlyLimit,
            });
        }
        let Some(m32) = self.legal_move32(mv) else {
            return Err(MoveError::Illegal {
                text: mv.to_usi(),
                reason: legality::diagnose(&self.inner, mv.to_rs()),
            });
        };
        let mover = self.side_to_move();
        self.inner.apply_move32(m32);
        self.played.push(m32);
        self.trail.push(Trail {
            key: self.key(),
            to_move: mover.opposite(),
            by_check: self.inner.is_in_check(),
        });
        Ok(())
    }

    /// Takes back the last move played since the root.
    pub fn undo(&mut self) -> Option<Move> {
        let m32 = self.played.pop()?;
        self.trail.pop();
        if let Err(e) = self.inner.undo_move32(m32) {
            unreachable!("undo of the move just played failed: {e:?}");
        }
        Some(Move::from_rs(m32.to_move()))
    }

    /// Whether the side to move is in check.
    #[must_use]
    pub fn in_check(&self) -> bool {
        self.inner.is_in_check()
    }

    /// Whether the side to move has no legal move, which loses in shogi (there is no stalemate:
    /// docs/reference/rules.md counts this as checkmate even in the rare case without check).
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.inner.is_mated()
    }

    /// Whether a legal move `mv` gives check.
    #[must_use]
    pub fn gives_check(&self, mv: Move) -> bool {
        self.legal_move32(mv)
            .is_some_and(|m| self.inner.gives_check_move32(m))
    }

    /// 千日手 verdict for the current position (see [`Repetition`]).
    #[must_use]
    pub fn repetition(&self) -> Repetition {
        repetition::verdict(&self.trail)
    }

    /// Whether the side to move may declare a win under the CSA 27-point rule.
    ///
    /// # Errors
    /// [`ImpasseError`] names the first condition that fails.
    pub fn impasse_declaration(&self) -> Result<(), ImpasseError> {
        impasse::check(&self.inner)
    }

    /// The inner rsshogi position, for search code in this crate.
    pub(crate) fn raw(&self) -> &RsPosition {
        &self.inner
    }

    /// Mutable access for search code in this crate. Every move applied through it must be
    /// undone before the `Position` is used again, or its history no longer matches the board.
    #[allow(dead_code)]
    pub(crate) fn raw_mut(&mut self) -> &mut RsPosition {
        &mut self.inner
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl PartialEq for Position {
    /// Same board, hands, side to move (and move number); the history is not compared.
    fn eq(&self, other: &Self) -> bool {
        self.to_sfen() == other.to_sfen()
    }
}
