//! `council-analyze moves`: forward analysis of recorded games by a reference engine (the
//! built-in engine in process, or any USI engine of a config), at a node budget or a fixed depth:
//! the data intrinsic ratings are made of. Two ways to spend less on positions the data rules
//! drop anyway: a seeded sample of the positions (`--sample`), and a screen (`--screen-cp`) that
//! gives the MultiPV search only to positions a single-line search of the same budget scores
//! below the threshold (models.md section 7 leaves out `|V0| >= 300`).
//!
//! Invariants: the built-in reference analyses every position from scratch (hash and history
//! cleared, one search thread), so its line does not depend on the order, the number of workers
//! or a resume (a USI reference is as deterministic as the engine is); the played move is always
//! scored (when the MultiPV search leaves it out: the built-in engine searches the position
//! after it at the same budget and negates the score, a USI engine searches the position with
//! `go searchmoves <played>`); lines are appended whole and flushed as positions finish, so a
//! killed analysis resumes with `--resume` and analyses every position exactly once; resumed with
//! a larger `--sample` of the same seed, it adds the positions the larger sample holds.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use engine::position::{Position, replay};
use engine::search::ebf::EbfOutcome;
use engine::search::{BestMove, Engine, EngineSettings, LeafCounts, Limits, SearchInfo, StopFlag};
use engine::types::{Color, Move, Score};
use thiserror::Error;

use super::analysis::{
    self, AnalysedPosition, AnalysisError, AnalysisWriter, Candidate, Reference,
};
use council_players::player::usi::UsiPlayer;
use council_players::player::{Player, PlayerError};
use council_schema::config::{Config, ConfigError, PlayerKind, UsiEngineSettings};
use council_schema::results::{self, GameResult};

/// Why an analysis stopped or could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MovesError {
    #[error("give a run folder or a results file to analyse")]
    NoInputs,
    #[error("--nodes must be at least 1")]
    ZeroNodes,
    #[error("--depth must be between 1 and 64")]
    Depth,
    #[error("--screen-cp must be above 0")]
    ScreenCp,
    #[error("--sample {fraction}: give the share of positions to analyse, above 0 and at most 1")]
    Sample { fraction: f64 },
    #[error("--multipv must be between 1 and 600")]
    MultiPv,
    #[error(
        "--reference {text}: write CONFIG:PLAYER, e.g. configs/vs-fairy-stockfish.toml:fairy-stockfish"
    )]
    ReferenceSpec { text: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("--reference: {file} has no player `{player}`")]
    NoSuchReference { file: String, player: String },
    #[error("--complexity counts the built-in engine's leaves and nodes: leave out --reference")]
    ComplexityWithUsi,
    #[error(
        "--reference: `{name}` is not a USI engine (for the built-in engine leave --reference out)"
    )]
    NotUsi { name: String },
    /// The inputs could not be read, or a game does not replay.
    #[error(transparent)]
    Games(#[from] GamesError),
    #[error("--player {name}: no game of the inputs has a player of that name")]
    NoPlayer { name: String },
    #[error(
        "{} already holds an analysis: pass --resume to continue it, or choose another --out",
        .path.display()
    )]
    Exists { path: PathBuf },
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// Resuming an analysis made otherwise.
    #[error(
        "{}: analysed by {analysed}, not by {wanted}: resume with the same reference and options",
        .path.display()
    )]
    OtherReference {
        path: PathBuf,
        analysed: String,
        wanted: String,
    },
    #[error(
        "{}: analysed without --complexity; resume it the same way, or analyse into another --out",
        .path.display()
    )]
    NoComplexity { path: PathBuf },
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    #[error("game {game} ply {ply}")]
    Position {
        game: u64,
        ply: u32,
        #[source]
        source: ReferenceError,
    },
    #[error("{}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The reference engine failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReferenceError {
    #[error("cannot start an async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("reference `{name}`")]
    Start {
        name: String,
        #[source]
        source: PlayerError,
    },
    #[error(transparent)]
    Engine(#[from] PlayerError),
    #[error("the reference did not score the played move {played} when told to search only it")]
    PlayedNotScored { played: String },
    #[error("the reference gave no score for {sfen}")]
    NoScore { sfen: String },
}

/// Which engine analyses.
#[derive(Debug, Clone)]
pub enum ReferenceEngine {
    /// The built-in engine, in process.
    Builtin,
    /// A USI engine as a config defines it (its command, options and quirks).
    Usi(Box<UsiReference>),
}

/// A USI reference engine: a `kind = "usi"` player of a config.
#[derive(Debug, Clone)]
pub struct UsiReference {
    pub name: String,
    pub settings: UsiEngineSettings,
    /// Its `move_timeout_ms`: how long one analysis may take.
    pub move_timeout_ms: u64,
}

impl ReferenceEngine {
    /// `--reference CONFIG:PLAYER`: that player of that config (its players alone are read).
    pub fn from_spec(text: &str) -> Result<ReferenceEngine, MovesError> {
        let (file, player) = text
            .rsplit_once(':')
            .ok_or_else(|| MovesError::ReferenceSpec { text: text.into() })?;
        let config = Config::load_players(Path::new(file))?;
        let p = config
            .players
            .get(player)
            .ok_or_else(|| MovesError::NoSuchReference {
                file: file.into(),
                player: player.into(),
            })?;
        let PlayerKind::Usi(settings) = &p.kind else {
            return Err(MovesError::NotUsi {
                name: p.name.clone(),
            });
        };
        Ok(ReferenceEngine::Usi(Box::new(UsiReference {
            name: p.name.clone(),
            settings: settings.clone(),
            move_timeout_ms: p.move_timeout_ms,
        })))
    }
}

/// How far the reference searches each position (not a player's time budget: a fixed amount
/// of search, so that the analysis repeats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceLimit {
    Nodes(u64),
    /// A fixed nominal depth (seed 001 prefers a fixed depth to a fixed time).
    Depth(u32),
}

impl ReferenceLimit {
    /// A node budget of at least 1, or a depth of 1 to 64.
    ///
    /// # Errors
    /// [`MovesError::ZeroNodes`] or [`MovesError::Depth`].
    pub fn check(self) -> Result<(), MovesError> {
        match self {
            ReferenceLimit::Nodes(0) => Err(MovesError::ZeroNodes),
            ReferenceLimit::Depth(d) if !(1..=64).contains(&d) => Err(MovesError::Depth),
            _ => Ok(()),
        }
    }
    /// The node budget, if it is one.
    #[must_use]
    pub fn nodes(self) -> Option<u64> {
        match self {
            ReferenceLimit::Nodes(n) => Some(n),
            ReferenceLimit::Depth(_) => None,
        }
    }
    /// The depth, if it is one.
    #[must_use]
    pub fn depth(self) -> Option<u32> {
        match self {
            ReferenceLimit::Nodes(_) => None,
            ReferenceLimit::Depth(d) => Some(d),
        }
    }
}

/// A seeded share of the positions: whether a position is in it depends only on the seed, the
/// game's id and the ply, never on the order, the workers or a resume.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub fraction: f64,
    pub seed: u64,
}

impl Sample {
    #[must_use]
    pub fn contains(&self, game: u64, ply: u32) -> bool {
        let x = council_schema::seed::game_seed(
            council_schema::seed::game_seed(self.seed, game),
            u64::from(ply),
        );
        // The top 53 bits as a uniform number in [0, 1).
        ((x >> 11) as f64) / ((1u64 << 53) as f64) < self.fraction
    }
}

/// What to analyse and how.
#[derive(Debug, Clone)]
pub struct MovesOptions {
    /// Run folders or results files.
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    pub reference: ReferenceEngine,
    /// How far the reference searches each position.
    pub limit: ReferenceLimit,
    /// Positions a single-line search scores at this or more either way get no MultiPV search.
    pub screen_cp: Option<i32>,
    /// Analyse only this seeded share of the positions.
    pub sample: Option<Sample>,
    /// Analyse only the moves of these players (all when empty).
    pub players: Vec<String>,
    /// Candidates per position (MultiPV).
    pub multipv: usize,
    /// Positions before this ply are not analysed (the opening).
    pub skip_plies: u32,
    /// Also measure each position's complexity (built-in reference only): root score, leaves,
    /// leaf ratio, and the EBF with this frontier-node threshold.
    pub complexity: Option<u64>,
    pub concurrency: usize,
    pub resume: bool,
    pub progress: bool,
}

/// What an analysis did.
#[derive(Debug, Clone)]
pub struct MovesReport {
    /// The analysis file.
    pub out: PathBuf,
    pub games: usize,
    pub positions: usize,
    pub analysed_now: usize,
    pub wall: Duration,
}

impl MovesReport {
    /// The one line `moves` prints (the analysis file is its data).
    #[must_use]
    pub fn table(&self) -> String {
        format!(
            "{} positions of {} games in {} ({} analysed now, {:.1} s)\n",
            self.positions,
            self.games,
            self.out.display(),
            self.analysed_now,
            self.wall.as_secs_f64()
        )
    }
}

/// Games that cannot be analysed: the message names the file or the game.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GamesError {
    #[error(
        "{}: game id {id} appears twice in the inputs: analyse one run (or a merged one) at a time",
        .file.display()
    )]
    RepeatedId { file: PathBuf, id: u64 },
    #[error(transparent)]
    Read(results::read::ReadError),
    /// A game's moves do not replay from its start.
    #[error("game {game}: {problem}")]
    Replay { game: u64, problem: String },
}

/// The games of the inputs (a run folder's `results.jsonl`, or results files), ids unique.
pub fn read_games(inputs: &[PathBuf]) -> Result<Vec<GameResult>, GamesError> {
    let paths: Vec<PathBuf> = inputs
        .iter()
        .map(|input| {
            if input.is_dir() {
                input.join("results.jsonl")
            } else {
                input.clone()
            }
        })
        .collect();
    // One run's games: a line still being written is left for later, and a game id read twice
    // means two runs (or one given twice).
    let read = results::read::read(
        &paths,
        results::read::Policy {
            torn_tail: results::read::TornTail::Skip,
            malformed: results::read::Malformed::Fail,
            repeats: results::read::Repeats::RefuseIds,
        },
    )
    .map_err(|e| match e {
        results::read::ReadError::RepeatedId { id, file, .. } => {
            GamesError::RepeatedId { file, id }
        }
        e => GamesError::Read(e),
    })?;
    for file in read.files.iter().filter(|f| f.torn_tail) {
        tracing::warn!("{}: ignoring a cut-off last line", file.path.display());
    }
    let mut games = read.games;
    games.sort_by_key(|g| g.id);
    Ok(games)
}

/// A game's position before move `ply` (history included, for repetitions), and that move.
fn position_before(game: &GameResult, ply: usize) -> Result<(Position, Move), GamesError> {
    let at = |e: &dyn std::fmt::Display| GamesError::Replay {
        game: game.id,
        problem: e.to_string(),
    };
    let missing = || at(&format!("has no move {}", ply + 1));
    let mut game_replay = replay(&game.start, &game.moves).map_err(|e| at(&e))?;
    while game_replay.played() < ply {
        game_replay
            .step()
            .ok_or_else(missing)?
            .map_err(|e| at(&e))?;
    }
    let mv = game_replay
        .peek()
        .ok_or_else(missing)?
        .map_err(|e| at(&e))?;
    Ok((game_replay.into_position(), mv))
}

/// The score of a move from the mover's view, given the search of the position after it.
fn negate_child(score: Score) -> Score {
    match score {
        Score::Cp(cp) => Score::Cp(-cp),
        Score::Mate(n) if n > 0 => Score::Mate(-(n.saturating_add(1))),
        Score::Mate(n) => Score::Mate(n.saturating_abs().saturating_add(1)),
    }
}

/// What `--complexity` adds to a line.
struct Complexity {
    root_cp: i32,
    leaves: u64,
    leaf_ratio: Option<f64>,
    ebf: Option<f64>,
    ebf_depth: Option<u32>,
}

/// MultiPV lines: each line's first move and score, best first.
type Lines = Vec<(Move, Score)>;

/// One worker's built-in reference engine.
struct Analyst {
    engine: Engine,
    limit: ReferenceLimit,
    multipv: usize,
    /// With MultiPV 1, the candidates' search of the position is the single-line search that
    /// `complexity` needs (same settings, cleared tables): its score and leaves, kept for it.
    single_line: Option<(Score, LeafCounts)>,
}

impl Analyst {
    fn new(limit: ReferenceLimit, multipv: usize) -> Self {
        let settings = EngineSettings {
            hash_mb: 16,
            multipv,
            ..EngineSettings::default()
        };
        Analyst {
            engine: Engine::new(settings),
            limit,
            multipv,
            single_line: None,
        }
    }

    fn search(&mut self, pos: &Position, multipv: usize) -> (Lines, BestMove, Score, LeafCounts) {
        self.search_with(pos, multipv, self.limit)
    }

    fn search_with(
        &mut self,
        pos: &Position,
        multipv: usize,
        limit: ReferenceLimit,
    ) -> (Lines, BestMove, Score, LeafCounts) {
        let mut settings = self.engine.settings().clone();
        settings.multipv = multipv;
        self.engine.set_settings(settings);
        self.engine.new_game();
        let want = multipv.min(pos.legal_moves().len()).max(1);
        let (mut current, mut complete): (Lines, Lines) = (Vec::new(), Vec::new());
        let mut observer = |info: &SearchInfo| {
            if info.multipv == 1 {
                current.clear();
            }
            if let Some(&mv) = info.pv.first() {
                current.push((mv, info.score));
            }
            if current.len() == want {
                complete = current.clone();
            }
        };
        let limits = Limits {
            nodes: limit.nodes(),
            depth: limit.depth(),
            ..Limits::default()
        };
        let r = self
            .engine
            .search(pos, &limits, &StopFlag::new(), &mut observer);
        (complete, r.best, r.score, r.leaves)
    }

    /// The position's complexity: root score (sente's view) and leaves of a normal single-line
    /// search at the budget, and its EBF at threshold `nth`.
    fn complexity(&mut self, pos: &Position, nth: u64) -> Complexity {
        let (score, leaves) = match self.single_line.take() {
            Some(kept) => kept,
            None => {
                let (_, _, score, leaves) = self.search(pos, 1);
                (score, leaves)
            }
        };
        let mover = score.to_cp_scale();
        let root_cp = if pos.side_to_move() == Color::Sente {
            mover
        } else {
            -mover
        };
        let (ebf, ebf_depth) = if nth == 0 {
            (None, None) // --ebf-nodes 0: no EBF (the root-leaf series alone)
        } else {
            match self.engine.measure_ebf(pos, nth) {
                EbfOutcome::Measured(m) => (Some(m.ebf), Some(m.depth)),
                EbfOutcome::Dropped { .. } => (None, None),
            }
        };
        Complexity {
            root_cp,
            leaves: leaves.leaves,
            leaf_ratio: leaves.ratio(),
            ebf,
            ebf_depth,
        }
    }

    /// The candidates of `pos` (best first, mover's view), `played` among them; or, when a
    /// single-line search scores the position at `screen_cp` or more either way, its best move
    /// alone (`Screened`).
    fn candidates(&mut self, pos: &Position, played: Move, screen_cp: Option<i32>) -> Scored {
        if let Some(cp) = screen_cp {
            let (_, best, score, leaves) = self.search(pos, 1);
            self.single_line = Some((score, leaves));
            let v0 = score.to_cp_scale();
            if let BestMove::Move(m) = best
                && v0.abs() >= cp
            {
                return Scored::Screened(Candidate {
                    mv: m.to_usi(),
                    cp: v0,
                });
            }
        }
        let (mut lines, best, score, leaves) = self.search(pos, self.multipv);
        // The single-line search `complexity` reuses: this one with MultiPV 1, else the screen's.
        if self.multipv == 1 {
            self.single_line = Some((score, leaves));
        } else if screen_cp.is_none() {
            self.single_line = None;
        }
        if lines.is_empty()
            && let BestMove::Move(m) = best
        {
            lines.push((m, score));
        }
        if !lines.iter().any(|(m, _)| *m == played) {
            let mut child = pos.clone();
            child.play(played);
            // The MultiPV lines search each root move one ply shallower than the root.
            let limit = match self.limit {
                ReferenceLimit::Depth(d) => ReferenceLimit::Depth(d.saturating_sub(1).max(1)),
                nodes => nodes,
            };
            let (_, _, child_score, _) = self.search_with(&child, 1, limit);
            lines.push((played, negate_child(child_score)));
        }
        let mut out: Vec<Candidate> = Vec::new();
        for (m, s) in lines {
            let mv = m.to_usi();
            if !out.iter().any(|c| c.mv == mv) {
                out.push(Candidate {
                    mv,
                    cp: s.to_cp_scale(),
                });
            }
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.cp));
        Scored::Candidates(out)
    }
}

/// What the reference made of a position.
#[derive(Debug, PartialEq)]
enum Scored {
    /// Best first, the played move among them.
    Candidates(Vec<Candidate>),
    /// Left out by the screen: the single-line search's best move and score.
    Screened(Candidate),
}

/// One worker's USI reference engine, driven on its own single-threaded runtime.
struct UsiAnalyst {
    player: UsiPlayer,
    runtime: tokio::runtime::Runtime,
    limit: ReferenceLimit,
    multipv: usize,
    timeout: Duration,
}

impl UsiAnalyst {
    fn new(
        config: &UsiReference,
        limit: ReferenceLimit,
        multipv: usize,
    ) -> Result<Self, ReferenceError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ReferenceError::Runtime)?;
        let mut player = UsiPlayer::new(&config.name, &config.settings, false);
        runtime
            .block_on(player.new_game(0))
            .map_err(|source| ReferenceError::Start {
                name: config.name.clone(),
                source,
            })?;
        Ok(UsiAnalyst {
            player,
            runtime,
            limit,
            multipv,
            timeout: Duration::from_millis(config.move_timeout_ms),
        })
    }

    fn candidates(
        &mut self,
        pos: &Position,
        played: Move,
        screen_cp: Option<i32>,
    ) -> Result<Scored, ReferenceError> {
        let played = played.to_usi();
        let (nodes, depth) = (self.limit.nodes(), self.limit.depth());
        let (multipv, timeout) = (self.multipv, self.timeout);
        if let Some(cp) = screen_cp {
            let single =
                self.runtime
                    .block_on(self.player.analyse(pos, nodes, depth, 1, &[], timeout))?;
            if let Some(best) = single.first()
                && best.score.to_cp_scale().abs() >= cp
            {
                return Ok(Scored::Screened(Candidate {
                    mv: best.mv.clone(),
                    cp: best.score.to_cp_scale(),
                }));
            }
        }
        let mut lines =
            self.runtime.block_on(
                self.player
                    .analyse(pos, nodes, depth, multipv, &[], timeout),
            )?;
        if !lines.iter().any(|l| l.mv == played) {
            let only = self.runtime.block_on(self.player.analyse(
                pos,
                nodes,
                depth,
                1,
                std::slice::from_ref(&played),
                timeout,
            ))?;
            let line = only
                .into_iter()
                .find(|l| l.mv == played)
                .ok_or(ReferenceError::PlayedNotScored { played })?;
            lines.push(line);
        }
        let mut out: Vec<Candidate> = Vec::new();
        for l in lines {
            if !out.iter().any(|c| c.mv == l.mv) {
                out.push(Candidate {
                    mv: l.mv,
                    cp: l.score.to_cp_scale(),
                });
            }
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.cp));
        Ok(Scored::Candidates(out))
    }
}

impl UsiAnalyst {
    /// The score of a single-line search of `pos` at the limit (mover's view).
    fn score(&mut self, pos: &Position) -> Result<Score, ReferenceError> {
        let (nodes, depth, timeout) = (self.limit.nodes(), self.limit.depth(), self.timeout);
        let lines =
            self.runtime
                .block_on(self.player.analyse(pos, nodes, depth, 1, &[], timeout))?;
        lines
            .first()
            .map(|l| l.score)
            .ok_or_else(|| ReferenceError::NoScore {
                sfen: pos.to_sfen(),
            })
    }
}

impl Drop for UsiAnalyst {
    fn drop(&mut self) {
        self.runtime.block_on(self.player.shutdown());
    }
}

/// A worker's reference.
enum Worker {
    Builtin(Box<Analyst>),
    Usi(Box<UsiAnalyst>),
}

impl Worker {
    /// The reference `opts` names, ready to analyse.
    fn start(opts: &MovesOptions) -> Result<Worker, ReferenceError> {
        Worker::new(&opts.reference, opts.limit, opts.multipv)
    }

    /// `reference` at `limit` with `multipv` lines, ready to analyse.
    fn new(
        reference: &ReferenceEngine,
        limit: ReferenceLimit,
        multipv: usize,
    ) -> Result<Worker, ReferenceError> {
        Ok(match reference {
            ReferenceEngine::Builtin => Worker::Builtin(Box::new(Analyst::new(limit, multipv))),
            ReferenceEngine::Usi(p) => Worker::Usi(Box::new(UsiAnalyst::new(p, limit, multipv)?)),
        })
    }

    /// The score of a single-line search of `pos` (mover's view).
    fn score(&mut self, pos: &Position) -> Result<Score, ReferenceError> {
        match self {
            Worker::Builtin(a) => Ok(a.search(pos, 1).2),
            Worker::Usi(a) => a.score(pos),
        }
    }

    fn candidates(
        &mut self,
        pos: &Position,
        played: Move,
        screen_cp: Option<i32>,
    ) -> Result<Scored, ReferenceError> {
        match self {
            Worker::Builtin(a) => Ok(a.candidates(pos, played, screen_cp)),
            Worker::Usi(a) => a.candidates(pos, played, screen_cp),
        }
    }

    fn complexity(&mut self, pos: &Position, nth: u64) -> Option<Complexity> {
        match self {
            Worker::Builtin(a) => Some(a.complexity(pos, nth)),
            Worker::Usi(_) => None,
        }
    }
}

/// `moves`: analyse the games of `opts.inputs` into `opts.out` (resuming what is there with
/// `opts.resume`).
pub fn run(opts: &MovesOptions) -> Result<MovesReport, MovesError> {
    check_options(opts)?;
    let games = read_games(&opts.inputs).map_err(MovesError::Games)?;
    let reference = Reference {
        name: match &opts.reference {
            ReferenceEngine::Builtin => format!("council-engine multipv {}", opts.multipv),
            ReferenceEngine::Usi(p) => format!("{} multipv {}", p.name, opts.multipv),
        },
        nodes: opts.limit.nodes(),
        depth: opts.limit.depth(),
        screen_cp: opts.screen_cp,
        sample: opts.sample.map(|s| s.fraction),
        seed: opts.sample.map(|s| s.seed),
    };
    if matches!(opts.reference, ReferenceEngine::Usi(_)) && opts.complexity.is_some() {
        return Err(MovesError::ComplexityWithUsi);
    }
    let done = already_done(opts, &reference)?;
    for name in &opts.players {
        if !games.iter().any(|g| g.sente == *name || g.gote == *name) {
            return Err(MovesError::NoPlayer { name: name.clone() });
        }
    }
    let (todo, positions) = plan(opts, &games, &done.positions);
    // Every move must replay before any work starts.
    for g in &games {
        if !g.moves.is_empty() {
            position_before(g, g.moves.len() - 1).map_err(MovesError::Games)?;
        }
    }
    let mut writer = AnalysisWriter::open(&opts.out, done.complete_len)?;
    let started = Instant::now();
    let analysed_now = analyse_all(opts, &games, &todo, &reference, &mut writer)?;
    Ok(MovesReport {
        out: opts.out.clone(),
        games: games.len(),
        positions,
        analysed_now,
        wall: started.elapsed(),
    })
}

/// What `--out` already holds.
#[derive(Default)]
struct Done {
    /// (game, ply) of every complete line.
    positions: HashSet<(u64, u32)>,
    /// The file's length without a cut-off last line; `None`: nothing there.
    complete_len: Option<u64>,
}

/// Resume: what `opts.out` already holds, which must be this analysis's.
fn already_done(opts: &MovesOptions, reference: &Reference) -> Result<Done, MovesError> {
    let mut done = Done::default();
    let existing = opts.out.metadata().map(|m| m.len() > 0).unwrap_or(false);
    if !existing {
        return Ok(done);
    }
    if !opts.resume {
        return Err(MovesError::Exists {
            path: opts.out.clone(),
        });
    }
    let read = analysis::read(&opts.out)?;
    for p in &read.positions {
        if p.reference != *reference && !sample_grows(&p.reference, reference) {
            return Err(MovesError::OtherReference {
                path: opts.out.clone(),
                analysed: p.reference.describe(),
                wanted: reference.describe(),
            });
        }
        if opts.complexity.is_some() && p.root_cp.is_none() {
            return Err(MovesError::NoComplexity {
                path: opts.out.clone(),
            });
        }
        done.positions.insert((p.game, p.ply));
    }
    done.complete_len = Some(read.complete_len);
    Ok(done)
}

/// The positions to analyse now, as (game index, ply), and how many the analysis holds when
/// done: past `skip_plies`, in the sample, the chosen players' moves.
fn plan(
    opts: &MovesOptions,
    games: &[GameResult],
    done: &HashSet<(u64, u32)>,
) -> (Vec<(usize, u32)>, usize) {
    let mover_wanted = |g: &GameResult, ply: u32| {
        opts.players.is_empty() || opts.players.iter().any(|p| p == g.mover_at(ply as usize))
    };
    let mut todo: Vec<(usize, u32)> = Vec::new();
    let mut positions = 0;
    for (gi, g) in games.iter().enumerate() {
        for ply in opts.skip_plies..g.moves.len() as u32 {
            if opts.sample.is_some_and(|s| !s.contains(g.id, ply)) || !mover_wanted(g, ply) {
                continue;
            }
            positions += 1;
            if !done.contains(&(g.id, ply)) {
                todo.push((gi, ply));
            }
        }
    }
    (todo, positions)
}

/// Analyse `todo` on `opts.concurrency` workers, appending each line as it finishes; the first
/// failure stops the workers. How many lines were written.
fn analyse_all(
    opts: &MovesOptions,
    games: &[GameResult],
    todo: &[(usize, u32)],
    reference: &Reference,
    writer: &mut AnalysisWriter,
) -> Result<usize, MovesError> {
    let bar = progress_bar(todo.len() as u64, opts.progress);
    let mut analysed_now = 0;
    let done = on_workers(
        todo.len(),
        opts.concurrency,
        || Worker::start(opts).map_err(MovesError::from),
        |worker, i| {
            let (gi, ply) = todo[i];
            analyse_position(worker, &games[gi], ply, opts, reference)
        },
        |_, p| {
            writer.append(&p).map_err(|source| MovesError::Write {
                path: opts.out.clone(),
                source,
            })?;
            analysed_now += 1;
            bar.inc(1);
            Ok(())
        },
    );
    bar.finish_and_clear();
    done.map(|()| analysed_now)
}

/// Items `0..len` on `concurrency` threads, each with its own worker made by `start` (on the
/// thread: a worker need not be `Send`); each item's result goes to `sink` on the calling
/// thread as it finishes (completion order). The first error, from a start, an item or the
/// sink, stops the workers (no further items are taken) and is returned.
fn on_workers<W, T: Send, E: Send>(
    len: usize,
    concurrency: usize,
    start: impl Fn() -> Result<W, E> + Sync,
    work: impl Fn(&mut W, usize) -> Result<T, E> + Sync,
    mut sink: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<(usize, T), E>>(64);
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1) {
            let (tx, next, start, work) = (tx.clone(), &next, &start, &work);
            scope.spawn(move || {
                let mut worker = match start() {
                    Ok(w) => w,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= len {
                        break;
                    }
                    if tx.send(work(&mut worker, i).map(|t| (i, t))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for done in rx {
            if let Err(e) = done.and_then(|(i, t)| sink(i, t)) {
                failure = Some(e);
                // Stop the workers: no more items.
                next.store(usize::MAX / 2, Ordering::Relaxed);
                break;
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// One position's line: the game replayed to `ply`, the reference's candidates (and the
/// position's complexity).
fn analyse_position(
    worker: &mut Worker,
    g: &GameResult,
    ply: u32,
    opts: &MovesOptions,
    reference: &Reference,
) -> Result<AnalysedPosition, MovesError> {
    let (pos, played) = position_before(g, ply as usize).map_err(MovesError::Games)?;
    let scored = worker
        .candidates(&pos, played, opts.screen_cp)
        .map_err(|source| MovesError::Position {
            game: g.id,
            ply,
            source,
        })?;
    let (candidates, screened) = match scored {
        Scored::Candidates(c) => (c, false),
        Scored::Screened(best) => (vec![best], true),
    };
    let c = opts.complexity.and_then(|nth| worker.complexity(&pos, nth));
    Ok(AnalysedPosition {
        root_cp: c.as_ref().map(|c| c.root_cp),
        leaves: c.as_ref().map(|c| c.leaves),
        leaf_ratio: c.as_ref().and_then(|c| c.leaf_ratio),
        ebf: c.as_ref().and_then(|c| c.ebf),
        ebf_depth: c.as_ref().and_then(|c| c.ebf_depth),
        game: g.id,
        ply,
        player: g.mover_at(ply as usize).to_string(),
        sfen: pos.to_sfen(),
        played: played.to_usi(),
        candidates,
        reference: reference.clone(),
        screened,
    })
}

/// Whether `now` is `before` with a larger sample of the same seed: resuming with it adds the
/// positions the larger sample holds (a position in a sample is in every larger one of its seed).
fn sample_grows(before: &Reference, now: &Reference) -> bool {
    let same_but_sample = Reference {
        sample: now.sample,
        ..before.clone()
    };
    same_but_sample == *now
        && before.seed.is_some()
        && before.sample.zip(now.sample).is_some_and(|(b, n)| b <= n)
}

fn check_options(opts: &MovesOptions) -> Result<(), MovesError> {
    if opts.inputs.is_empty() {
        return Err(MovesError::NoInputs);
    }
    opts.limit.check()?;
    if opts.screen_cp.is_some_and(|cp| cp <= 0) {
        return Err(MovesError::ScreenCp);
    }
    if let Some(s) = opts.sample
        && !(s.fraction > 0.0 && s.fraction <= 1.0)
    {
        return Err(MovesError::Sample {
            fraction: s.fraction,
        });
    }
    if !(1..=600).contains(&opts.multipv) {
        return Err(MovesError::MultiPv);
    }
    Ok(())
}

/// The built-in reference's best move of each position (a single-line search at `limit`, each
/// position from scratch as in the analysis, so the answer does not depend on the order or the
/// workers), on `concurrency` workers; `None` where the engine finds no move.
#[must_use]
pub fn best_moves(
    positions: &[Position],
    limit: ReferenceLimit,
    concurrency: usize,
    progress: bool,
) -> Vec<Option<Move>> {
    let bar = progress_bar(positions.len() as u64, progress);
    let mut best = vec![None; positions.len()];
    let done = on_workers(
        positions.len(),
        concurrency,
        || Ok::<_, std::convert::Infallible>(Analyst::new(limit, 1)),
        |analyst, i| {
            let (_, found, _, _) = analyst.search(&positions[i], 1);
            Ok(match found {
                BestMove::Move(m) => Some(m),
                _ => None,
            })
        },
        |i, mv| {
            best[i] = mv;
            bar.inc(1);
            Ok(())
        },
    );
    bar.finish_and_clear();
    match done {
        Ok(()) => best,
        Err(never) => match never {},
    }
}

/// The reference's score of each position in centipawns from **sente's view** (a single-line
/// search at `limit`; the built-in engine searches each position from scratch, so the answer
/// does not depend on the order or the workers), on `concurrency` workers, with a progress bar
/// when `progress`. Mates are on the `Score::to_cp_scale` scale.
///
/// # Errors
/// [`ReferenceError`] when the reference cannot start or fails on a position (the first
/// failure stops the workers).
pub fn root_scores(
    positions: &[Position],
    reference: &ReferenceEngine,
    limit: ReferenceLimit,
    concurrency: usize,
    progress: bool,
) -> Result<Vec<i32>, ReferenceError> {
    let bar = progress_bar(positions.len() as u64, progress);
    let mut scores = vec![0; positions.len()];
    let done = on_workers(
        positions.len(),
        concurrency,
        || Worker::new(reference, limit, 1),
        |worker, i| {
            let pos = &positions[i];
            let mover = worker.score(pos)?.to_cp_scale();
            Ok(if pos.side_to_move() == Color::Sente {
                mover
            } else {
                -mover
            })
        },
        |i, cp| {
            scores[i] = cp;
            bar.inc(1);
            Ok(())
        },
    );
    bar.finish_and_clear();
    done.map(|()| scores)
}

fn progress_bar(len: u64, show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} positions  {per_sec}  {elapsed} elapsed, {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Where `moves` writes when the input is one folder and no `--out` is given.
#[must_use]
pub fn default_out(input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join("analysis.jsonl")
    } else {
        input.with_extension("analysis.jsonl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_outside_the_multipv_is_scored_from_the_position_after_it() {
        let mut analyst = Analyst::new(ReferenceLimit::Nodes(2000), 1);
        let pos = Position::startpos();
        // 1g1f is not the engine's first choice at 2000 nodes with MultiPV 1.
        let played = pos.parse_usi_move("1g1f").unwrap();
        let Scored::Candidates(c) = analyst.candidates(&pos, played, None) else {
            panic!("no screen, yet screened");
        };
        assert!(c.len() >= 2, "{c:?}");
        assert!(c.iter().any(|x| x.mv == "1g1f"));
        assert!(
            c.windows(2).all(|w| w[0].cp >= w[1].cp),
            "best first: {c:?}"
        );
        // Deterministic: the same position gives the same line.
        assert_eq!(
            analyst.candidates(&pos, played, None),
            Scored::Candidates(c.clone())
        );
        // A screen above the start's score leaves the position to the MultiPV search; one at
        // 1 cp screens it out unless the engine scores it exactly level.
        assert_eq!(
            analyst.candidates(&pos, played, Some(2000)),
            Scored::Candidates(c.clone())
        );
        if c[0].cp != 0 {
            assert!(matches!(
                analyst.candidates(&pos, played, Some(1)),
                Scored::Screened(_)
            ));
        }
    }

    #[test]
    fn a_sample_is_seeded_and_nested() {
        let half = Sample {
            fraction: 0.5,
            seed: 7,
        };
        let more = Sample {
            fraction: 0.8,
            ..half
        };
        let other = Sample { seed: 8, ..half };
        let keys: Vec<(u64, u32)> = (0..200)
            .flat_map(|g| (16..66).map(move |p| (g, p)))
            .collect();
        let inside = |s: Sample| keys.iter().filter(|&&(g, p)| s.contains(g, p)).count();
        // 10000 positions: a half sample holds close to half of them (4.5 sd either side).
        assert!((4775..=5225).contains(&inside(half)), "{}", inside(half));
        for &(g, p) in &keys {
            assert!(!half.contains(g, p) || more.contains(g, p), "nested");
        }
        assert!(
            keys.iter()
                .any(|&(g, p)| half.contains(g, p) != other.contains(g, p))
        );
    }

    #[test]
    fn child_scores_become_the_movers_scores() {
        assert_eq!(negate_child(Score::Cp(40)), Score::Cp(-40));
        assert_eq!(negate_child(Score::Mate(3)), Score::Mate(-4));
        assert_eq!(negate_child(Score::Mate(-2)), Score::Mate(3));
        assert_eq!(negate_child(Score::Mate(0)), Score::Mate(1));
    }
}
