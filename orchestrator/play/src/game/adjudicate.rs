//! The arbiter's rules, each a small piece with no I/O: the end of a game read off the position
//! (checkmate, repetition with the perpetual-check rule, impasse declarations), the maximum
//! length, a player's failure to answer, resign and draw adjudication by score, and the arbiter's
//! own clock. The `arbiter` applies them in order; here they are plain functions and trackers.
//!
//! Invariant: nothing here trusts an engine. Moves are checked against the full legal-move list
//! by `Position::parse_usi_move`, declarations by the 27-point rule, and time by the arbiter's
//! own measurement of each move.

use engine::position::{MoveError, Position, Repetition};
use engine::types::Move;
use engine::types::{ByColor, Color};

use council_players::player::PlayerError;
use council_schema::config::{DrawRule, ResignRule};
use council_schema::results::{Reason, Winner};
use council_schema::stats::resignation;
use engine::types::Score;

/// A finished game's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub result: Winner,
    pub reason: Reason,
    /// A human sentence for logs and records (which rule, which move).
    pub detail: String,
}

impl Verdict {
    pub(crate) fn loss(loser: Color, reason: Reason, detail: impl Into<String>) -> Self {
        Verdict {
            result: win_for(loser.opposite()),
            reason,
            detail: detail.into(),
        }
    }

    pub(crate) fn draw(reason: Reason, detail: impl Into<String>) -> Self {
        Verdict {
            result: Winner::Draw,
            reason,
            detail: detail.into(),
        }
    }
}

fn win_for(c: Color) -> Winner {
    match c {
        Color::Sente => Winner::Sente,
        Color::Gote => Winner::Gote,
    }
}

/// The verdict the position itself gives, before the side to move is asked: checkmate (no legal
/// move) or the repetition that the last move completed.
pub(crate) fn position_verdict(pos: &Position) -> Option<Verdict> {
    match pos.repetition() {
        Repetition::Draw => return Some(Verdict::draw(Reason::Repetition, "fourfold repetition")),
        Repetition::PerpetualCheck { loser } => {
            return Some(Verdict::loss(
                loser,
                Reason::PerpetualCheck,
                "fourfold repetition with perpetual check",
            ));
        }
        _ => {}
    }
    // No legal move: the generation stops at the first legal move it finds.
    if pos.is_checkmate() {
        return Some(Verdict::loss(
            pos.side_to_move(),
            Reason::Checkmate,
            "no legal move",
        ));
    }
    None
}

/// The arbiter's judgement of the move text `player` answered for the side to move: the move,
/// when it is in the position's full legal-move list; otherwise the mover's loss, by
/// `illegal_move` for a well-formed move that breaks a rule (the detail names the rule: nifu,
/// pawn-drop mate, ...) and by `malformed_move` for text that is not a USI move at all.
pub fn judge_move(pos: &Position, player: &str, text: &str) -> Result<Move, Verdict> {
    pos.parse_usi_move(text)
        .map_err(|e| move_verdict(pos.side_to_move(), player, text, e))
}

/// [`judge_move`] and the move played on `pos` at once, when it is legal (the position is left
/// as it was when it is not): one look-up in the legal-move list, as the arbiter judges every
/// move of a game.
pub(crate) fn play_move(pos: &mut Position, player: &str, text: &str) -> Result<Move, Verdict> {
    let mover = pos.side_to_move();
    pos.play_usi_move(text)
        .map_err(|e| move_verdict(mover, player, text, e))
}

/// The mover's loss for move text that cannot be played.
fn move_verdict(mover: Color, player: &str, text: &str, e: MoveError) -> Verdict {
    let reason = match e {
        MoveError::Malformed(_) => Reason::MalformedMove,
        _ => Reason::IllegalMove,
    };
    Verdict::loss(mover, reason, format!("{player} played `{text}`: {e}"))
}

/// The verdict on an impasse declaration (`bestmove win`) by the side to move.
pub(crate) fn impasse_verdict(pos: &Position) -> Verdict {
    let me = pos.side_to_move();
    match pos.impasse_declaration() {
        Ok(()) => Verdict::loss(
            me.opposite(),
            Reason::Impasse,
            "impasse declaration (27-point rule)",
        ),
        Err(e) => Verdict::loss(
            me,
            Reason::IllegalImpasse,
            format!("impasse declaration fails the 27-point rule: {e}"),
        ),
    }
}

/// The draw when `plies` (opening moves included) reached `max_plies` without a result.
pub(crate) fn max_plies_verdict(plies: usize, max_plies: usize) -> Option<Verdict> {
    (plies >= max_plies).then(|| {
        Verdict::draw(
            Reason::MaxPlies,
            format!("{max_plies} plies without a result"),
        )
    })
}

/// The verdict for a player's failure to answer (or to get ready): the failing side loses.
pub(crate) fn failure_verdict(failing: Color, e: &PlayerError) -> Verdict {
    let reason = match e {
        PlayerError::Crash { .. } => Reason::Crash,
        PlayerError::Timeout { .. } => Reason::Timeout,
        PlayerError::Malformed { .. } => Reason::MalformedMove,
    };
    Verdict::loss(failing, reason, e.to_string())
}

/// Resign adjudication: both players agree (each from its own side) that the same side is lost
/// by at least `score_cp` for `moves` consecutive moves each.
#[derive(Debug, Clone)]
pub(crate) struct ResignTracker {
    rule: Option<ResignRule>,
    /// Scores rule: consecutive plies on which both last scores agreed, and on whom.
    streak: u32,
    loser: Option<Color>,
    last: ByColor<Option<Score>>,
    /// Model rule: each side's consecutive own moves with `p_r >= 0.5`, and its last `p_r`.
    own_streak: ByColor<u32>,
    last_p: ByColor<f64>,
}

impl ResignTracker {
    pub(crate) fn new(rule: Option<ResignRule>) -> Self {
        Self {
            rule,
            streak: 0,
            loser: None,
            last: ByColor::default(),
            own_streak: ByColor::default(),
            last_p: ByColor::default(),
        }
    }

    /// Record the score `mover` reported for its move (from its own side).
    pub(crate) fn update(&mut self, mover: Color, eval: Option<Score>) {
        match self.rule {
            None => {}
            Some(ResignRule::Scores { score_cp, .. }) => self.update_scores(mover, eval, score_cp),
            Some(ResignRule::Model { mu, sigma, .. }) => {
                // No score: no evidence either way, the streak ends.
                let p = eval.map_or(0.0, |e| {
                    resignation::probability(-f64::from(e.to_cp_scale()), mu, sigma)
                });
                self.last_p[mover] = p;
                self.own_streak[mover] = if p >= 0.5 {
                    self.own_streak[mover] + 1
                } else {
                    0
                };
                if p >= 0.5 {
                    self.loser = Some(mover);
                }
            }
        }
    }

    fn update_scores(&mut self, mover: Color, eval: Option<Score>, score_cp: i32) {
        self.last[mover] = eval;
        let lost = |e: Option<Score>| match e {
            Some(Score::Cp(cp)) => cp <= -score_cp,
            Some(Score::Mate(n)) => n < 0,
            None => false,
        };
        let won = |e: Option<Score>| match e {
            Some(Score::Cp(cp)) => cp >= score_cp,
            Some(Score::Mate(n)) => n > 0,
            None => false,
        };
        let (me, them) = (self.last[mover], self.last[mover.opposite()]);
        let loser = if lost(me) && won(them) {
            Some(mover)
        } else if won(me) && lost(them) {
            Some(mover.opposite())
        } else {
            None
        };
        if loser.is_some() && loser == self.loser {
            self.streak += 1;
        } else {
            self.streak = u32::from(loser.is_some());
        }
        self.loser = loser;
    }

    pub(crate) fn verdict(&self) -> Option<Verdict> {
        match self.rule? {
            ResignRule::Scores { score_cp, moves } => (self.streak >= 2 * moves).then(|| {
                let loser = self.loser?;
                Some(Verdict::loss(
                    loser,
                    Reason::Adjudication,
                    format!(
                        "both players scored the game at least {score_cp} cp against {loser:?} for {moves} moves each"
                    ),
                ))
            })?,
            ResignRule::Model { mu, sigma, moves } => {
                let loser = self.loser?;
                (self.own_streak[loser] >= moves).then(|| {
                    Verdict::loss(
                        loser,
                        Reason::Adjudication,
                        format!(
                            "resignation model shueso (mu {mu}, sigma {sigma}): {loser:?} would resign, p_r >= 0.5 on {moves} consecutive moves of its own (last p_r {:.3})",
                            self.last_p[loser]
                        ),
                    )
                })
            }
        }
    }
}

/// Draw adjudication (Shogitest's `-draw`): once the engines have played `after_plies` plies,
/// the game is a draw when each of the last `plies` plies was scored within `±score_cp` by the
/// player that moved. A mate score or a move without a score ends the run.
#[derive(Debug, Clone)]
pub(crate) struct DrawTracker {
    rule: Option<DrawRule>,
    /// Plies the engines have played (the opening's not counted).
    played: u32,
    /// Consecutive plies, up to the last, scored within the window.
    level: u32,
}

impl DrawTracker {
    pub(crate) fn new(rule: Option<DrawRule>) -> Self {
        Self {
            rule,
            played: 0,
            level: 0,
        }
    }

    /// Record the score the mover reported for the move it played.
    pub(crate) fn update(&mut self, eval: Option<Score>) {
        let Some(rule) = self.rule else { return };
        self.played = self.played.saturating_add(1);
        let within = matches!(eval, Some(Score::Cp(cp)) if cp.unsigned_abs() <= rule.score_cp.unsigned_abs());
        self.level = if within {
            self.level.saturating_add(1)
        } else {
            0
        };
    }

    pub(crate) fn verdict(&self) -> Option<Verdict> {
        let DrawRule {
            after_plies,
            plies,
            score_cp,
        } = self.rule?;
        (self.played >= after_plies && self.level >= plies).then(|| {
            Verdict::draw(
                Reason::DrawAdjudication,
                format!(
                    "both players scored the game within ±{score_cp} cp for {plies} plies in a row (after ply {after_plies})"
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(pos: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = pos.parse_usi_move(m).expect("legal test move");
            pos.play(mv);
        }
    }

    #[test]
    fn checkmate_repetition_and_impasse_verdicts() {
        // Gote's king on 1a boxed in by its own knight and silver; a gold drop on 1b, guarded
        // by the pawn on 1c, mates.
        let mut p = Position::from_sfen("7nk/7s1/8P/9/9/9/9/9/4K4 b G 1").expect("sfen");
        assert_eq!(position_verdict(&p), None);
        play(&mut p, "G*1b");
        let v = position_verdict(&p).expect("mate");
        assert_eq!((v.result, v.reason), (Winner::Sente, Reason::Checkmate));

        // Kings walking back and forth: the fourth occurrence is a draw, not before.
        let mut p = Position::startpos();
        for _ in 0..2 {
            play(&mut p, "5i5h 5a5b 5h5i 5b5a");
            assert_eq!(position_verdict(&p), None);
        }
        play(&mut p, "5i5h 5a5b 5h5i 5b5a");
        let v = position_verdict(&p).expect("repetition");
        assert_eq!((v.result, v.reason), (Winner::Draw, Reason::Repetition));

        // Declaring a win at the start fails the 27-point rule: the declarer loses.
        let v = impasse_verdict(&Position::startpos());
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::IllegalImpasse));
    }

    #[test]
    fn moves_are_judged_against_the_legal_list_with_the_rule_they_break() {
        // Sente to move with a pawn in hand; gote's king on 1a is boxed in by its own lance and
        // pawn, and the knight on 2d guards 1b: P*1b would mate, so it is illegal.
        let p = Position::from_sfen("7lk/7p1/9/7N1/9/9/9/9/4K4 b P 1").expect("sfen");
        let v = judge_move(&p, "x", "P*1b").expect_err("pawn-drop mate");
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::IllegalMove));
        assert!(v.detail.contains("uchifuzume"), "{}", v.detail);
        assert!(v.detail.starts_with("x played `P*1b`"), "{}", v.detail);
        // Another pawn drop is fine.
        assert!(judge_move(&p, "x", "P*1c").is_ok());
        // `@` is not USI: malformed, whoever sent it (translation is the USI player's job).
        let v = judge_move(&p, "x", "P@1c").expect_err("not USI");
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::MalformedMove));
        let v = judge_move(&Position::startpos(), "x", "7g7e").expect_err("no such move");
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::IllegalMove));
    }

    #[test]
    fn a_move_played_as_judged_has_the_judged_verdict_and_leaves_a_refused_move_unplayed() {
        let p = Position::from_sfen("7lk/7p1/9/7N1/9/9/9/9/4K4 b P 1").expect("sfen");
        for text in ["P*1b", "P@1c", "7g7e", "5i5j", "", "P*1c", "5i4h"] {
            let mut played = p.clone();
            let got = play_move(&mut played, "x", text);
            assert_eq!(got, judge_move(&p, "x", text), "{text}");
            match got {
                Ok(mv) => {
                    let mut expected = p.clone();
                    expected.play(mv);
                    assert_eq!(played.to_sfen(), expected.to_sfen(), "{text}");
                }
                Err(_) => assert_eq!(played.to_sfen(), p.to_sfen(), "{text}"),
            }
        }
    }

    #[test]
    fn resign_adjudication_needs_both_sides_to_agree_for_long_enough() {
        let rule = ResignRule::Scores {
            score_cp: 500,
            moves: 2,
        };
        let mut t = ResignTracker::new(Some(rule));
        t.update(Color::Sente, Some(Score::Cp(-600)));
        t.update(Color::Gote, Some(Score::Cp(700)));
        t.update(Color::Sente, Some(Score::Cp(-800)));
        assert_eq!(t.verdict(), None);
        t.update(Color::Gote, Some(Score::Mate(5)));
        // Three plies of agreement so far; the fourth makes two moves each.
        assert_eq!(t.verdict(), None);
        t.update(Color::Sente, Some(Score::Cp(-900)));
        let v = t.verdict().expect("adjudicated");
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::Adjudication));
        // A disagreement resets the count.
        let mut t = ResignTracker::new(Some(rule));
        for (mover, cp) in [
            (Color::Sente, -600),
            (Color::Gote, 700),
            (Color::Sente, -100),
            (Color::Gote, 700),
            (Color::Sente, -600),
        ] {
            t.update(mover, Some(Score::Cp(cp)));
        }
        assert_eq!(t.verdict(), None);
        // Off by default.
        let mut t = ResignTracker::new(None);
        for _ in 0..10 {
            t.update(Color::Sente, Some(Score::Cp(-5000)));
            t.update(Color::Gote, Some(Score::Cp(5000)));
        }
        assert_eq!(t.verdict(), None);
    }

    #[test]
    fn draw_adjudication_needs_level_scores_for_long_enough_after_the_first_plies() {
        let rule = DrawRule {
            after_plies: 6,
            plies: 4,
            score_cp: 20,
        };
        let feed = |t: &mut DrawTracker, cps: &[i32]| {
            for &cp in cps {
                t.update(Some(Score::Cp(cp)));
            }
        };
        // Level from the first ply: four plies in a row are not enough before ply 6.
        let mut t = DrawTracker::new(Some(rule));
        feed(&mut t, &[0, 5, -20, 10]);
        assert_eq!(t.verdict(), None, "before after_plies");
        feed(&mut t, &[15]);
        assert_eq!(t.verdict(), None, "ply 5");
        feed(&mut t, &[-3]);
        let v = t.verdict().expect("ply 6, six level plies");
        assert_eq!(
            (v.result, v.reason),
            (Winner::Draw, Reason::DrawAdjudication)
        );
        assert!(v.detail.contains("±20 cp"), "{}", v.detail);

        // One score outside the window (or a mate score, or none) starts the count again.
        for breaker in [Some(Score::Cp(21)), Some(Score::Mate(9)), None] {
            let mut t = DrawTracker::new(Some(rule));
            feed(&mut t, &[0, 0, 0, 0, 0]);
            t.update(breaker);
            feed(&mut t, &[0, 0, 0]);
            assert_eq!(t.verdict(), None, "{breaker:?} broke the run");
            feed(&mut t, &[-20]);
            assert!(t.verdict().is_some(), "four level plies after {breaker:?}");
        }

        // Off by default.
        let mut t = DrawTracker::new(None);
        feed(&mut t, &[0; 40]);
        assert_eq!(t.verdict(), None);
    }

    #[test]
    fn the_resignation_model_adjudicates_on_the_movers_own_consecutive_moves() {
        // mu = 1000: p_r >= 0.5 once the mover's own score is -1000 cp or worse.
        let rule = ResignRule::Model {
            mu: 1000.0,
            sigma: 300.0,
            moves: 3,
        };
        let mut t = ResignTracker::new(Some(rule));
        // Gote's own scores do not matter to sente's streak; a better move breaks it.
        for (mover, cp) in [
            (Color::Sente, -1200),
            (Color::Gote, 300),
            (Color::Sente, -1300),
            (Color::Gote, 200),
            (Color::Sente, -900),
            (Color::Gote, 900),
            (Color::Sente, -1100),
            (Color::Gote, 1000),
            (Color::Sente, -1500),
        ] {
            t.update(mover, Some(Score::Cp(cp)));
            assert_eq!(t.verdict(), None, "after {mover:?} {cp}");
        }
        t.update(Color::Gote, Some(Score::Cp(1200)));
        t.update(Color::Sente, Some(Score::Mate(-7)));
        let v = t.verdict().expect("three own moves at p_r >= 0.5");
        assert_eq!((v.result, v.reason), (Winner::Gote, Reason::Adjudication));
        assert!(v.detail.contains("shueso"), "{}", v.detail);
    }
}
