//! The state of one run as the live page shows it ([`Live`]): the games in play, the finished
//! games, the summary, and the broadcast channel every browser's event stream reads.
//!
//! The run is named by its folder ([`RunName`]), whose `records/` the page links to.
//!
//! Invariants: a feed call only locks the state briefly, updates it and `send`s on the
//! broadcast channel, which never waits for a receiver, so no browser can slow the run; the
//! summary is recomputed off the run's path (a blocking task, woken per finished game) from
//! running counts ([`SummaryTally`]); the finished games are the very `GameResult`s the run
//! writes, and the final summary the very [`Summary`] `summary.json` holds, so the endpoints and
//! the files cannot drift. Memory stays flat however long the run: the page keeps the last
//! [`RECENT_GAMES`] finished games and counts of the rest; an older game is read back from the
//! folder's `results.jsonl` when asked for.

use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use engine::types::{ByColor, Score};
use serde::{Serialize, Serializer};
use tokio::sync::{Notify, broadcast};

use council_play::game::feed::{ClockView, GameStart, MoveEvent, RunFeed, RunStart};
use council_play::runner::sprt_stop::SprtStop;
use council_schema::results::GameResult;
use council_schema::results::votes::CouncilVote;
use council_schema::run::plan::RunPlan;
use council_schema::run::ratings::MIN_RATED_GAMES;
use council_schema::run::summary::{Summary, SummaryTally};

/// Finished games the page keeps whole (its list of games); the rest are counted.
pub const RECENT_GAMES: usize = 100;

/// Events kept for a lagging browser before it is dropped (it reconnects and starts from a
/// snapshot).
const EVENT_BUFFER: usize = 1024;

/// A game being played, as `/api/live` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LiveGame {
    pub id: u64,
    pub sente: String,
    pub gote: String,
    /// Start position, SFEN.
    pub start: String,
    /// The position now, SFEN.
    pub sfen: String,
    /// Moves so far from `start`, USI (opening moves included).
    pub moves: Vec<String>,
    /// Each side's clock, latest score (its own view) and principal variation (JSON
    /// `[sente, gote]`, as the page reads them).
    pub clocks: ByColor<ClockView>,
    pub scores: ByColor<Option<Score>>,
    pub pvs: ByColor<Vec<String>>,
    /// The council decisions behind the latest council move of the game (see `votes_ply`).
    pub votes: Vec<CouncilVote>,
    /// The number of moves in the game after the move `votes` decided.
    pub votes_ply: Option<u32>,
}

/// Where the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Games are being played by this process.
    Playing,
    /// Reading a run folder as it grows.
    Following,
    /// The run is over.
    Finished,
}

/// One server-sent event, serialized once for every browser.
#[derive(Debug, Clone)]
pub struct Message {
    pub kind: &'static str,
    pub data: Arc<str>,
}

/// The summary the page shows: `null` until the first is computed or read. Served (at
/// `/api/summary`, in snapshots and `summary` events) as the `summary.json` object with its keys
/// in alphabetical order, as the page has always served it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageSummary(pub Option<Summary>);

impl Serialize for PageSummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => serializer.serialize_none(),
            // A JSON value keeps its object keys sorted.
            Some(summary) => serde_json::to_value(summary)
                .map_err(serde::ser::Error::custom)?
                .serialize(serializer),
        }
    }
}

/// The run as the page's header and title name it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunName {
    /// The run folder's name (`3vs1-2026-11-27T05-12-33`), else the config file's stem.
    pub name: Option<String>,
    /// The config file the run was started with, as given to it (when known).
    pub config: Option<String>,
}

/// What a page needs to draw the run at once (the first event of every stream).
#[derive(Debug, Serialize)]
pub struct Snapshot {
    pub run: RunName,
    pub phase: Phase,
    /// Games the run will play (when known), finished ones included.
    pub total: Option<usize>,
    pub finished: usize,
    pub summary: Arc<PageSummary>,
    /// Games a player needs before it is rated; the Elo chart starts there.
    pub min_games: u64,
    pub live: Vec<LiveGame>,
    /// A tune's course (a tune folder's page only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tune: Option<TuneView>,
}

/// A tune as the page shows it (`/api/tune`, `tune` in snapshots): its parameters and every
/// finished iteration as `tune.jsonl` holds it; `tune_iteration` events add the next ones.
#[derive(Debug, Clone, Serialize)]
pub struct TuneView {
    pub params: Vec<TuneParamView>,
    pub iterations: u64,
    /// Unknown when the tune's config cannot be read from here.
    pub games_per_iteration: Option<u64>,
    pub simulate: bool,
    pub lines: Vec<council_play::tune::log::IterationLine>,
}

/// One tuned parameter: its path, and its start and range when the tune's config could be read.
#[derive(Debug, Clone, Serialize)]
pub struct TuneParamView {
    pub path: String,
    pub start: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    seed: u64,
    total: Option<usize>,
    /// The last [`RECENT_GAMES`] finished games, in the order they finished.
    recent: VecDeque<Arc<GameResult>>,
    /// Finished games, all of them.
    finished: usize,
    /// Their counts, for the summary (`None` without a plan); and the SPRT on them.
    tally: Option<SummaryTally>,
    sprt: Option<SprtStop>,
    /// Finished before this session (not counted as played now).
    finished_before: usize,
    running: BTreeMap<u64, LiveGame>,
    summary: Arc<PageSummary>,
    /// `summary` is the run's own `summary.json`: no recomputation replaces it.
    summary_final: bool,
    tune: Option<TuneView>,
    /// The run or tune folder (where `records/` is), when the page knows it.
    folder: Option<PathBuf>,
}

/// The state of one run and the channel its events go out on.
#[derive(Debug)]
pub struct Live {
    state: Mutex<State>,
    events: broadcast::Sender<Message>,
    /// Wakes the summary task after a game ends.
    recompute: Notify,
    /// The run's plan: the summary is recomputed from it (`None`: only a `summary.json` read
    /// from the folder is shown).
    config: std::sync::OnceLock<Arc<RunPlan>>,
    began: Instant,
}

impl Live {
    /// A view of a run of `config`, whose state the feed or the follower fills in. Starts the
    /// summary task on the current tokio runtime.
    pub fn new(config: Option<Arc<RunPlan>>, phase: Phase) -> Arc<Self> {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let live = Arc::new(Live {
            state: Mutex::new(State {
                phase,
                seed: 0,
                total: None,
                recent: VecDeque::new(),
                finished: 0,
                tally: config.as_deref().map(|c| SummaryTally::new(&c.playing)),
                sprt: config.as_deref().and_then(SprtStop::new),
                finished_before: 0,
                running: BTreeMap::new(),
                summary: Arc::new(PageSummary(None)),
                summary_final: false,
                tune: None,
                folder: None,
            }),
            events,
            recompute: Notify::new(),
            config: config.map_or_else(std::sync::OnceLock::new, std::sync::OnceLock::from),
            began: Instant::now(),
        });
        tokio::spawn(summarize(Arc::downgrade(&live)));
        live
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves a state that is still a valid view.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish<T: Serialize>(&self, kind: &'static str, data: &T) {
        if self.events.receiver_count() == 0 {
            return;
        }
        if let Ok(text) = serde_json::to_string(data) {
            // No receiver is not an error: nobody is watching.
            let _ = self.events.send(Message {
                kind,
                data: text.into(),
            });
        }
    }

    /// A receiver of every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Message> {
        self.events.subscribe()
    }

    pub fn snapshot(&self) -> Snapshot {
        let run = self.run_name();
        let s = self.state();
        Snapshot {
            run,
            phase: s.phase,
            total: s.total,
            finished: s.finished,
            summary: s.summary.clone(),
            min_games: MIN_RATED_GAMES,
            live: s.running.values().cloned().collect(),
            tune: s.tune.clone(),
        }
    }

    /// The run's folder: it names the run, and its `records/` are served.
    pub(crate) fn set_folder(&self, dir: &Path) {
        self.state().folder = Some(dir.to_path_buf());
    }

    /// The run or tune folder, when known.
    pub fn folder(&self) -> Option<PathBuf> {
        self.state().folder.clone()
    }

    /// The run's name: its folder's, else its config file's.
    pub fn run_name(&self) -> RunName {
        let config = self.config.get().map(|p| p.config_file.clone());
        let folder = self.state().folder.clone();
        let name = folder.as_deref().and_then(folder_name).or_else(|| {
            let file = Path::new(config.as_deref()?);
            Some(file.file_stem()?.to_string_lossy().into_owned())
        });
        RunName { name, config }
    }

    /// The tune's course, when this is a tune's page.
    pub fn tune(&self) -> Option<TuneView> {
        self.state().tune.clone()
    }

    /// Show a tune (its header read; its lines so far in `view`).
    pub(crate) fn set_tune(&self, view: TuneView) {
        self.state().tune = Some(view.clone());
        self.publish("tune", &view);
    }

    /// One more finished iteration of the tune.
    pub(crate) fn add_tune_iteration(&self, line: council_play::tune::log::IterationLine) {
        let mut s = self.state();
        let Some(t) = s.tune.as_mut() else { return };
        t.lines.push(line.clone());
        drop(s);
        self.publish("tune_iteration", &line);
    }

    pub fn summary(&self) -> Arc<PageSummary> {
        self.state().summary.clone()
    }

    pub fn live_games(&self) -> Vec<LiveGame> {
        self.state().running.values().cloned().collect()
    }

    /// The last [`RECENT_GAMES`] finished games, in the order they finished.
    pub fn finished(&self) -> Vec<Arc<GameResult>> {
        self.state().recent.iter().cloned().collect()
    }

    /// How many games have finished.
    pub fn finished_count(&self) -> usize {
        self.state().finished
    }

    /// Finished game `id`: a recent one, else read back from the folder's `results.jsonl`
    /// (a blocking read of the file).
    pub fn finished_game(&self, id: u64) -> Option<Arc<GameResult>> {
        let folder = {
            let s = self.state();
            if let Some(g) = s.recent.iter().find(|g| g.id == id) {
                return Some(g.clone());
            }
            s.folder.clone()?
        };
        read_back(&folder.join("results.jsonl"), id).map(Arc::new)
    }

    /// Set the run's total and seed (the follower; the runner does it through the feed).
    pub(crate) fn set_run(&self, seed: u64, total: Option<usize>) {
        let mut s = self.state();
        s.seed = seed;
        s.total = total;
        drop(s);
        self.recompute.notify_one();
    }

    /// Show `summary` (the run's `summary.json`) as it is, until another game finishes.
    pub(crate) fn set_final_summary(&self, summary: Summary) {
        let summary = Arc::new(PageSummary(Some(summary)));
        let mut s = self.state();
        s.summary = summary.clone();
        s.summary_final = true;
        drop(s);
        self.publish("summary", &*summary);
    }

    pub(crate) fn add_finished(&self, game: &GameResult) {
        let mut s = self.state();
        s.running.remove(&game.id);
        s.count(game);
        s.summary_final = false;
        drop(s);
        self.publish("game_end", game);
        self.recompute.notify_one();
    }

    pub(crate) fn snapshot_phase(&self) -> Phase {
        self.state().phase
    }

    pub(crate) fn set_phase(&self, phase: Phase) {
        self.state().phase = phase;
        self.publish("phase", &phase);
    }

    /// The summary of the finished games as `summary.json` would hold it now.
    fn compute_summary(&self) -> Option<Summary> {
        let config = self.config.get()?;
        let (tally, sprt, seed, played_now) = {
            let s = self.state();
            if s.summary_final {
                return None;
            }
            (
                s.tally.clone()?,
                s.sprt.as_ref().map(SprtStop::summary),
                s.seed,
                s.finished.saturating_sub(s.finished_before),
            )
        };
        let mut summary = tally.summary(config, seed, played_now, self.began.elapsed());
        summary.sprt = sprt;
        Some(summary)
    }
}

impl State {
    /// One more finished game: kept among the recent ones, counted.
    fn count(&mut self, game: &GameResult) {
        if self.recent.len() == RECENT_GAMES {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::new(game.clone()));
        self.finished += 1;
        if let Some(t) = &mut self.tally {
            t.add(game);
        }
        if let Some(stop) = &mut self.sprt {
            // The decision, if any, stays inside `stop`.
            let _ = stop.add(game);
        }
    }
}

/// Game `id` read back from `results` (the first line of that id), or `None`: no such line,
/// or no such file.
fn read_back(results: &Path, id: u64) -> Option<GameResult> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: u64,
    }
    let file = std::fs::File::open(results).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter(|line| serde_json::from_str::<Id>(line).is_ok_and(|g| g.id == id))
        .find_map(|line| serde_json::from_str(&line).ok())
}

/// A folder's own name, also when it is given as `.` or `runs/x/..`.
fn folder_name(dir: &Path) -> Option<String> {
    let named = |p: &Path| -> Option<String> {
        p.components()
            .next_back()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
    };
    named(dir).or_else(|| named(&dir.canonicalize().ok()?))
}

/// Recompute the summary after each finished game, off the run's path, until `live` is gone.
async fn summarize(live: std::sync::Weak<Live>) {
    loop {
        let Some(strong) = live.upgrade() else { return };
        // Wait without keeping the state alive.
        let notified = {
            let l = strong.clone();
            async move { l.recompute.notified().await }
        };
        drop(strong);
        notified.await;
        let Some(strong) = live.upgrade() else { return };
        let computed = tokio::task::spawn_blocking({
            let l = strong.clone();
            move || l.compute_summary()
        })
        .await;
        if let Ok(Some(summary)) = computed {
            let summary = Arc::new(PageSummary(Some(summary)));
            let mut s = strong.state();
            if s.summary_final {
                continue;
            }
            s.summary = summary.clone();
            drop(s);
            strong.publish("summary", &*summary);
        }
    }
}

impl RunFeed for Live {
    fn run_started(&self, start: RunStart<'_>) {
        // A page started beside its run learns the run's plan here (a follower's is read).
        let _ = self.config.set(Arc::new(start.plan.clone()));
        let mut s = self.state();
        s.seed = start.seed;
        s.total = Some(start.total);
        s.recent.clear();
        s.finished = 0;
        s.tally = self.config.get().map(|c| SummaryTally::new(&c.playing));
        s.sprt = self.config.get().map(Arc::as_ref).and_then(SprtStop::new);
        for g in start.finished {
            s.count(g);
        }
        s.finished_before = start.finished.len();
        drop(s);
        self.recompute.notify_one();
    }

    fn game_started(&self, game: GameStart) {
        let g = LiveGame {
            id: game.id,
            sente: game.sente,
            gote: game.gote,
            start: game.start,
            sfen: game.sfen,
            moves: game.moves,
            clocks: game.clocks,
            scores: ByColor::default(),
            pvs: ByColor::default(),
            votes: Vec::new(),
            votes_ply: None,
        };
        self.publish("game_start", &g);
        self.state().running.insert(g.id, g);
    }

    fn moved(&self, event: MoveEvent) {
        {
            let mut s = self.state();
            if let Some(g) = s.running.get_mut(&event.id) {
                g.moves.push(event.mv.clone());
                g.sfen.clone_from(&event.sfen);
                g.clocks = event.clocks;
                g.scores[event.mover] = event.score;
                g.pvs[event.mover].clone_from(&event.pv);
                if !event.votes.is_empty() {
                    g.votes.clone_from(&event.votes);
                    g.votes_ply = Some(event.ply);
                }
            }
        }
        self.publish("move", &event);
    }

    fn game_ended(&self, game: &GameResult) {
        self.add_finished(game);
    }

    fn run_ended(&self, summary: &Summary) {
        {
            let mut s = self.state();
            // Games still listed were cancelled: they will never end.
            s.running.clear();
        }
        self.set_final_summary(summary.clone());
        self.set_phase(Phase::Finished);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::position::Position;

    fn after(moves: &[&str]) -> Position {
        let mut p = Position::startpos();
        for m in moves {
            let mv = p.parse_usi_move(m).expect("a legal move");
            p.play(mv);
        }
        p
    }

    #[tokio::test]
    async fn the_feed_keeps_the_games_in_play_and_tells_every_subscriber_in_order() {
        let text = "[match]\nplayers = [\"a\", \"<b>\"]\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"<b>\"\nkind = \"internal\"\nnodes = 10\n";
        let plan = RunPlan::of(
            &council_schema::config::Config::parse(std::path::Path::new("t.toml"), text)
                .expect("a config"),
        );
        let live = Live::new(None, Phase::Playing);
        let mut rx = live.subscribe();
        live.run_started(RunStart {
            plan: &plan,
            seed: 1,
            total: 2,
            finished: &[],
        });
        let start = Position::startpos().to_sfen();
        live.game_started(GameStart {
            id: 3,
            sente: "a".into(),
            gote: "<b>".into(),
            start: start.clone(),
            moves: Vec::new(),
            sfen: start.clone(),
            clocks: Default::default(),
        });
        let one = after(&["7g7f"]).to_sfen();
        let event = MoveEvent {
            id: 3,
            ply: 1,
            mv: "7g7f".into(),
            mover: engine::types::Color::Sente,
            sfen: one.clone(),
            time_ms: 5,
            score: Some(Score::Cp(30)),
            pv: vec!["7g7f".into(), "3c3d".into()],
            clocks: Default::default(),
            votes: Vec::new(),
        };
        // The page's move event names the mover and gives both clocks, sente's first.
        let json = serde_json::json!(event);
        assert_eq!(json["mover"], "sente");
        assert_eq!(json["clocks"].as_array().map(Vec::len), Some(2));
        live.moved(event);
        let games = live.live_games();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(
            (g.moves.as_slice(), g.sfen.as_str()),
            (&["7g7f".to_string()][..], one.as_str())
        );
        assert_eq!(
            g.scores,
            ByColor {
                sente: Some(Score::Cp(30)),
                gote: None
            },
            "the mover's score, on its side"
        );
        assert_eq!(g.pvs.sente, ["7g7f", "3c3d"]);
        // The page reads each per-side value as `[sente, gote]`.
        let json = serde_json::json!(g);
        assert_eq!(json["scores"], serde_json::json!([{ "cp": 30 }, null]));
        assert_eq!(json["pvs"], serde_json::json!([["7g7f", "3c3d"], []]));
        assert_eq!(json["clocks"][1]["remaining_ms"], 0);

        let line = serde_json::json!({
            "id": 3, "sente": "a", "gote": "<b>", "start": start, "moves": ["7g7f", "3c3d"],
            "result": "draw", "reason": "max_plies", "plies": 2,
        });
        let result: GameResult = serde_json::from_value(line).expect("a results line");
        live.game_ended(&result);
        assert!(
            live.live_games().is_empty(),
            "an ended game is no longer in play"
        );
        assert_eq!(live.finished().len(), 1);
        let snapshot = live.snapshot();
        assert_eq!((snapshot.total, snapshot.finished), (Some(2), 1));

        let kinds: Vec<&str> = [rx.recv().await, rx.recv().await, rx.recv().await]
            .into_iter()
            .map(|m| m.expect("an event").kind)
            .collect();
        assert_eq!(kinds, ["game_start", "move", "game_end"]);
    }

    /// The header names the run by its folder, else by its config file.
    /// However long the run, the page keeps the last `RECENT_GAMES` games whole and counts the
    /// rest; an older game is read back from the folder's `results.jsonl` when asked for.
    #[tokio::test]
    async fn the_page_keeps_the_recent_games_and_reads_older_ones_back() {
        let dir = std::env::temp_dir().join(format!("council-live-recent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let live = Live::new(None, Phase::Playing);
        live.set_folder(&dir);
        let n = RECENT_GAMES as u64 + 5;
        let mut lines = String::new();
        for id in 0..n {
            let line = serde_json::json!({
                "id": id, "sente": "a", "gote": "b", "start": "startpos", "moves": ["7g7f"],
                "result": "sente", "reason": "resign", "plies": 1,
            });
            lines.push_str(&format!("{line}\n"));
            let g: GameResult = serde_json::from_value(line).expect("a results line");
            live.game_ended(&g);
        }
        std::fs::write(dir.join("results.jsonl"), lines).expect("results.jsonl");
        let kept: Vec<u64> = live.finished().iter().map(|g| g.id).collect();
        assert_eq!(
            kept,
            (5..n).collect::<Vec<_>>(),
            "the last {RECENT_GAMES}, in order"
        );
        assert_eq!(
            (live.finished_count(), live.snapshot().finished),
            (n as usize, n as usize)
        );
        let old = live.finished_game(2).expect("game 2, read back");
        assert_eq!(
            (old.id, old.moves.as_slice()),
            (2, &["7g7f".to_string()][..])
        );
        assert!(live.finished_game(n).is_none(), "no such game");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn the_run_is_named_by_its_folder_else_by_its_config() {
        let text = "[match]\nplayers = [\"a\", \"b\"]\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let plan = RunPlan::of(
            &council_schema::config::Config::parse(std::path::Path::new("configs/3vs1.toml"), text)
                .expect("a config"),
        );
        let live = Live::new(Some(Arc::new(plan)), Phase::Playing);
        let config = Some("configs/3vs1.toml".to_owned());
        assert_eq!(
            live.run_name(),
            RunName {
                name: Some("3vs1".into()),
                config: config.clone()
            }
        );
        live.set_folder(Path::new("runs/3vs1-2026-11-27T05-12-33/"));
        assert_eq!(
            live.snapshot().run,
            RunName {
                name: Some("3vs1-2026-11-27T05-12-33".into()),
                config
            }
        );
        // A folder given as `.` is named by what it is.
        let tune = Live::new(None, Phase::Following);
        tune.set_folder(Path::new("."));
        let here = std::env::current_dir().expect("the current folder");
        assert_eq!(
            tune.run_name().name.as_deref(),
            here.file_name().and_then(|n| n.to_str())
        );
        assert_eq!(tune.run_name().config, None);
    }

    /// The summary is served as the page served it when it held `summary.json` as a plain
    /// JSON value: the same bytes, keys in alphabetical order.
    #[test]
    fn the_summary_is_served_as_summary_json_read_as_plain_json() {
        let text = "[match]\nplayers = [\"a\", \"b\"]\ngames = 4\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let config = RunPlan::of(
            &council_schema::config::Config::parse(std::path::Path::new("t.toml"), text)
                .expect("a config"),
        );
        let games: Vec<GameResult> = (0..4)
            .map(|id| {
                let (sente, gote) = if id % 2 == 0 { ("a", "b") } else { ("b", "a") };
                let result = ["sente", "gote", "draw", "sente"][id];
                serde_json::from_value(serde_json::json!({
                    "id": id, "sente": sente, "gote": gote, "start": "startpos",
                    "moves": ["7g7f"], "result": result,
                    "reason": "resign", "plies": 1, "started_unix_ms": 1000 * id as u64,
                    "wall_ms": 1500,
                }))
                .expect("a results line")
            })
            .collect();
        let summary = Summary::new(
            &config,
            &games,
            3,
            4,
            std::time::Duration::from_millis(5_250),
        );
        let dir = std::env::temp_dir().join(format!("council-page-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        summary.write(&dir).expect("written");
        let file = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
        let plain: serde_json::Value = serde_json::from_str(&file).expect("JSON");
        let read = Summary::read(&dir).expect("read back");
        let served = serde_json::to_string(&PageSummary(Some(read))).expect("served");
        assert_eq!(served, serde_json::to_string(&plain).expect("plain"));
        assert!(
            served.starts_with("{\"by_family\":{\"static-vs-static\":{\"games\":4,"),
            "{served}"
        );
        assert!(
            served.contains("},\"config\":\"t.toml\",\"councils\":[]"),
            "{served}"
        );
        assert_eq!(
            serde_json::to_string(&PageSummary(None)).expect("served"),
            "null"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The by-family table reaches the page through the summary the state recomputes after
    /// each finished game: a new family gets its row as its first game ends.
    #[tokio::test]
    async fn the_summary_gives_results_by_family_as_games_finish() {
        let text = "[match]\nplayers = [\"a\", \"b\"]\ngames = 3\n\
                    [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\
                    [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n";
        let config = RunPlan::of(
            &council_schema::config::Config::parse(std::path::Path::new("t.toml"), text)
                .expect("a config"),
        );
        let live = Live::new(Some(Arc::new(config.clone())), Phase::Playing);
        let mut rx = live.subscribe();
        live.run_started(RunStart {
            plan: &config,
            seed: 1,
            total: 3,
            finished: &[],
        });
        let game = |id: u64, sente: &str, gote: &str, moves: &[&str], result: &str| -> GameResult {
            serde_json::from_value(serde_json::json!({
                "id": id, "sente": sente, "gote": gote, "start": Position::startpos().to_sfen(),
                "moves": moves, "result": result, "reason": "resign", "plies": moves.len(),
            }))
            .expect("a results line")
        };
        // The next `summary` event's by_family: family key -> (games, a's W-L-D).
        let mut next_families = async || -> BTreeMap<String, (u64, [u64; 3])> {
            loop {
                let m = tokio::time::timeout(std::time::Duration::from_secs(60), rx.recv())
                    .await
                    .expect("a summary within a minute")
                    .expect("an event");
                if m.kind != "summary" {
                    continue;
                }
                let s: serde_json::Value = serde_json::from_str(&m.data).expect("JSON");
                let rows = s["by_family"].as_object().expect("by_family").clone();
                if rows
                    .values()
                    .map(|r| r["games"].as_u64().unwrap_or(0))
                    .sum::<u64>()
                    < live.finished().len() as u64
                {
                    // A summary of fewer games, computed before the last one ended.
                    continue;
                }
                return rows
                    .into_iter()
                    .map(|(k, r)| {
                        let a = &r["players"]["a"];
                        let n = |key: &str| a[key].as_u64().unwrap_or(0);
                        (
                            k,
                            (
                                r["games"].as_u64().unwrap_or(0),
                                [n("wins"), n("losses"), n("draws")],
                            ),
                        )
                    })
                    .collect();
            }
        };
        live.game_ended(&game(0, "a", "b", &["2g2f", "8c8d"], "sente"));
        assert_eq!(
            next_families().await,
            BTreeMap::from([("static-vs-static".to_owned(), (1, [1, 0, 0]))])
        );
        // b ranges its rook to the fourth file as gote (△4二飛) and beats a.
        let ranging = [
            "7g7f", "3c3d", "2g2f", "4c4d", "2f2e", "2b3c", "3i4h", "8b4b",
        ];
        live.game_ended(&game(1, "a", "b", &ranging, "gote"));
        assert_eq!(
            next_families().await,
            BTreeMap::from([
                ("static-vs-static".to_owned(), (1, [1, 0, 0])),
                ("static-vs-ranging:fourth-file".to_owned(), (1, [0, 1, 0])),
            ])
        );
    }
}
