//! The USI engine front end (`council-engine`): reads GUI lines, feeds them to the shared
//! [`Session`] state machine (which owns the session rules: one `bestmove` per `go`, held
//! answers, rejected positions, ...), and carries out its actions with its own [`Engine`],
//! options and search thread, so that `stop`, `ponderhit`, `isready` and `quit` are answered
//! while it thinks. The search thread reports its end to the session, which says whether the
//! `bestmove` goes out now or waits for `stop`/`ponderhit`.

use super::protocol::{
    EngineMessage, Go, IdField, Info, InfoScore, OptionKind, OptionSpec, ScoreBound, UsiBestMove,
};
use super::session::{Action, Rules, Session};
use crate::position::Position;
use crate::search::options::{self, TUNABLES};
use crate::search::{
    BestMove, Engine, EngineSettings, LeafCounts, Limits, SearchInfo, SearchResult, StopFlag,
};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where the engine's lines go; shared with the search thread.
type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn send(out: &Out, msg: &EngineMessage) {
    let mut w = lock(out);
    // A GUI that closed our stdout cannot be told anything more; the read loop ends on EOF.
    let _ = writeln!(w, "{msg}");
    let _ = w.flush();
}

fn info_string(out: &Out, text: &str) {
    send(
        out,
        &EngineMessage::Info(Info {
            string: Some(text.to_string()),
            ..Info::default()
        }),
    );
}

/// The options we declare, with the setting each one controls.
fn option_specs(s: &EngineSettings) -> Vec<OptionSpec> {
    let spin = |name: &str, default: i64, min: i64, max: i64| OptionSpec {
        name: name.to_string(),
        kind: OptionKind::Spin {
            default: Some(default),
            min: Some(min),
            max: Some(max),
        },
    };
    vec![
        spin("USI_Hash", s.hash_mb as i64, 1, 4096),
        OptionSpec {
            name: "USI_Ponder".into(),
            kind: OptionKind::Check {
                default: Some(false),
            },
        },
        spin("MultiPV", s.multipv as i64, 1, 600),
        spin(
            "NodeLimit",
            s.node_limit.map_or(0, |n| n as i64),
            0,
            i64::MAX,
        ),
        spin("DepthLimit", s.depth_limit.map_or(0, i64::from), 0, 127),
        spin(
            "MoveTime",
            s.move_time.map_or(0, |d| d.as_millis() as i64),
            0,
            i64::MAX,
        ),
        spin("NoiseSD", s.noise_sd_cp.round() as i64, 0, 100_000),
        spin("NoiseSeed", s.noise_seed as i64, 0, i64::MAX),
        spin("ByoyomiMargin", s.margin_ms as i64, 0, 60_000),
    ]
    .into_iter()
    .chain(
        TUNABLES
            .iter()
            .map(|t| spin(t.name, t.default.into(), t.min.into(), t.max.into())),
    )
    .collect()
}

/// Applies `setoption`; an error message names the option and the value.
fn apply_option(s: &mut EngineSettings, name: &str, value: Option<&str>) -> Result<(), String> {
    let number = |v: Option<&str>| -> Result<u64, String> {
        let v = v.ok_or_else(|| format!("option {name} needs a value"))?;
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("option {name}: value `{v}` is not a non-negative integer"))
    };
    match name.to_ascii_lowercase().as_str() {
        "usi_hash" | "hash" => s.hash_mb = number(value)?.clamp(1, 4096) as usize,
        "multipv" => s.multipv = number(value)?.clamp(1, 600) as usize,
        "nodelimit" => s.node_limit = Some(number(value)?).filter(|&n| n > 0),
        "depthlimit" => s.depth_limit = Some(number(value)?.min(127) as u32).filter(|&d| d > 0),
        "movetime" => {
            s.move_time = Some(number(value)?)
                .filter(|&m| m > 0)
                .map(Duration::from_millis)
        }
        "noisesd" => s.noise_sd_cp = number(value)? as f64,
        "noiseseed" => s.noise_seed = number(value)?,
        "byoyomimargin" => s.margin_ms = number(value)?,
        "usi_ponder" => {}
        _ if options::find(name).is_some() => {
            let v = value.ok_or_else(|| format!("option {name} needs a value"))?;
            let v = v
                .trim()
                .parse::<i64>()
                .map_err(|_| format!("option {name}: value `{v}` is not an integer"))?;
            s.tuning.set(name, v).map_err(|e| e.to_string())?;
        }
        _ => return Err(format!("unknown option `{name}`")),
    }
    Ok(())
}

/// The search limits of `go` in `position` (whose legal moves its `searchmoves` name; the
/// session has left out any that are not).
fn limits_from_go(go: &Go, position: &Position) -> Limits {
    Limits {
        nodes: go.nodes,
        depth: go.depth,
        movetime: go.movetime.map(Duration::from_millis),
        clock: go.clocks(),
        infinite: go.infinite,
        searchmoves: (!go.searchmoves.is_empty()).then(|| {
            go.searchmoves
                .iter()
                .filter_map(|m| position.parse_usi_move(m).ok())
                .collect()
        }),
    }
}

fn info_line(info: &SearchInfo) -> EngineMessage {
    EngineMessage::Info(Info {
        depth: Some(info.depth),
        seldepth: Some(info.seldepth),
        time: Some(info.time.as_millis() as u64),
        nodes: Some(info.nodes),
        nps: Some(info.nps),
        hashfull: Some(info.hashfull),
        multipv: Some(info.multipv as u32),
        score: Some(InfoScore {
            value: info.score,
            bound: ScoreBound::Exact,
        }),
        currmove: None,
        pv: info.pv.iter().map(|m| m.to_usi()).collect(),
        string: None,
    })
}

fn bestmove_line(r: &SearchResult) -> EngineMessage {
    EngineMessage::BestMove(match r.best {
        BestMove::Move(mv) => UsiBestMove::Move {
            mv: mv.to_usi(),
            ponder: r.ponder().map(|p| p.to_usi()),
        },
        BestMove::Resign => UsiBestMove::Resign,
        BestMove::Win => UsiBestMove::Win,
    })
}

/// The answer when the search itself failed: any legal move, or resign when there is none.
fn fallback_result(position: &Position) -> SearchResult {
    let best = position
        .legal_moves()
        .first()
        .map_or(BestMove::Resign, |&m| BestMove::Move(m));
    SearchResult {
        best,
        score: crate::types::Score::Cp(0),
        depth: 0,
        seldepth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: Vec::new(),
        leaves: LeafCounts::default(),
    }
}

/// The answer to a search: the leaf counts of models.md section 8 as an `info string`
/// (`leaves N positive P`: N evaluated leaves, P of them good for sente), then `bestmove`.
fn send_answer(out: &Out, r: &SearchResult) {
    info_string(out, &leaves_text(r.leaves));
    send(out, &bestmove_line(r));
}

fn leaves_text(leaves: LeafCounts) -> String {
    format!("leaves {} positive {}", leaves.leaves, leaves.positive)
}

/// The front end: the engine and its search thread; the session rules live in [`Session`].
struct FrontEnd {
    out: Out,
    /// Shared with the search thread, which reports its end through it.
    session: Arc<Mutex<Session<SearchResult>>>,
    settings: EngineSettings,
    engine: Arc<Mutex<Engine>>,
    stop: StopFlag,
    search: Option<JoinHandle<()>>,
}

impl FrontEnd {
    fn new(out: Out) -> Self {
        let settings = EngineSettings::default();
        Self {
            out,
            session: Arc::new(Mutex::new(Session::new(Rules::COUNCIL_ENGINE))),
            engine: Arc::new(Mutex::new(Engine::new(settings.clone()))),
            settings,
            stop: StopFlag::new(),
            search: None,
        }
    }

    /// Waits for the search thread, which has answered or is about to.
    fn join(&mut self) {
        if let Some(handle) = self.search.take()
            && handle.join().is_err()
        {
            info_string(&self.out, "internal error: the search thread panicked");
        }
    }

    /// Carries out the session's actions; false on `quit`.
    fn perform(&mut self, actions: Vec<Action<SearchResult>>) -> bool {
        for action in actions {
            match action {
                Action::Send(msg) => send(&self.out, &msg),
                Action::Identify => self.identify(),
                Action::SetOption { name, value } => {
                    match apply_option(&mut self.settings, &name, value.as_deref()) {
                        Ok(()) => lock(&self.engine).set_settings(self.settings.clone()),
                        Err(e) => info_string(&self.out, &e),
                    }
                }
                Action::Prepare | Action::GameOver(_) => {}
                Action::NewGame => lock(&self.engine).new_game(),
                Action::Search { position, go } => self.start(position, &go),
                Action::PonderHit => self.stop.set_pondering(false),
                // The thread answers through the session (or not, when abandoned) before it ends.
                Action::Stop | Action::Abandon => {
                    self.stop.stop();
                    self.join();
                }
                Action::Answer { answer, .. } => send_answer(&self.out, &answer),
                Action::Quit => return false,
            }
        }
        true
    }

    fn identify(&self) {
        send(
            &self.out,
            &EngineMessage::Id(IdField::Name(format!(
                "council-engine {}",
                env!("CARGO_PKG_VERSION")
            ))),
        );
        send(
            &self.out,
            &EngineMessage::Id(IdField::Author("the council project".into())),
        );
        for spec in option_specs(&self.settings) {
            send(&self.out, &EngineMessage::Option(spec));
        }
        send(&self.out, &EngineMessage::UsiOk);
    }

    /// Searches `position` on a thread that reports its end to the session and sends the
    /// `bestmove` when the session says so.
    fn start(&mut self, position: Position, go: &Go) {
        self.join();
        let limits = limits_from_go(go, &position);
        self.stop.reset();
        self.stop.set_pondering(go.ponder);
        let stop = self.stop.clone();
        let out = Arc::clone(&self.out);
        let engine = Arc::clone(&self.engine);
        let session = Arc::clone(&self.session);
        self.search = Some(std::thread::spawn(move || {
            let mut engine = lock(&engine);
            let mut observer = |info: &SearchInfo| send(&out, &info_line(info));
            // A bug in the search must not leave the GUI without an answer: fall back to a
            // legal move (resign only when there is none) and say what happened.
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                engine.search(&position, &limits, &stop, &mut observer)
            }));
            let result = searched.unwrap_or_else(|_| {
                info_string(
                    &out,
                    "internal error: the search failed; playing the first legal move",
                );
                fallback_result(&position)
            });
            // The session answers now, or holds the answer for `stop`/`ponderhit`.
            let mut session = lock(&session);
            for action in session.finished(result) {
                if let Action::Answer { answer, .. } = action {
                    send_answer(&out, &answer);
                }
            }
        }));
    }
}

/// Runs the USI loop until `quit` or the end of input.
///
/// # Errors
/// Only when reading standard input fails.
pub fn run(mut input: impl BufRead, output: impl Write + Send + 'static) -> io::Result<()> {
    let mut front = FrontEnd::new(Arc::new(Mutex::new(Box::new(output))));
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        // Bytes that are not UTF-8 cannot be a valid command; keep them visible in the complaint.
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\n', '\r']);
        tracing::trace!(target: "usi", "<< {line}");
        let actions = lock(&front.session).line(line);
        if !front.perform(actions) {
            return Ok(());
        }
    }
    // End of input: behave as on quit.
    let actions = lock(&front.session).end_of_input();
    front.perform(actions);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_set_the_strength_controls() {
        let mut s = EngineSettings::default();
        apply_option(&mut s, "NodeLimit", Some("5000")).expect("ok");
        apply_option(&mut s, "DepthLimit", Some("7")).expect("ok");
        apply_option(&mut s, "NoiseSD", Some("120")).expect("ok");
        apply_option(&mut s, "NoiseSeed", Some("9")).expect("ok");
        apply_option(&mut s, "MultiPV", Some("3")).expect("ok");
        apply_option(&mut s, "MoveTime", Some("250")).expect("ok");
        assert_eq!(s.node_limit, Some(5000));
        assert_eq!(s.depth_limit, Some(7));
        assert_eq!(s.noise_sd_cp, 120.0);
        assert_eq!(s.noise_seed, 9);
        assert_eq!(s.multipv, 3);
        assert_eq!(s.move_time, Some(Duration::from_millis(250)));
        apply_option(&mut s, "NodeLimit", Some("0")).expect("ok");
        assert_eq!(s.node_limit, None);
        let err = apply_option(&mut s, "NodeLimit", Some("lots")).expect_err("bad value");
        assert!(err.contains("NodeLimit") && err.contains("lots"), "{err}");
        assert!(apply_option(&mut s, "Nonsense", Some("1")).is_err());
    }

    /// Runs the USI loop on `input` and returns everything it wrote.
    fn run_text(input: &str) -> String {
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                lock(&self.0).extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        run(input.as_bytes(), Shared(Arc::clone(&buf))).expect("run");
        String::from_utf8(lock(&buf).clone()).expect("utf-8")
    }

    /// `go searchmoves` restricts the search: with MultiPV 3 and two listed moves (one more
    /// that is not legal), every `info ... pv` line and the `bestmove` use the listed ones.
    #[test]
    fn go_searchmoves_restricts_the_search_to_the_listed_moves() {
        let input = "usi\nsetoption name MultiPV value 3\nisready\nposition startpos\n\
                     go depth 3 searchmoves 1g1f 9g9f 5a4b\nquit\n";
        let text = run_text(input);
        assert!(
            text.contains("info string searchmoves: `5a4b` is not a legal move here; left out"),
            "{text}"
        );
        let mut pvs = 0;
        for l in text.lines() {
            if let Some(at) = l.find(" pv ") {
                let first = l[at + 4..].split_whitespace().next().unwrap_or("");
                assert!(first == "1g1f" || first == "9g9f", "{l}");
                assert!(!l.contains("multipv 3"), "only two lines: {l}");
                pvs += 1;
            }
        }
        assert!(pvs >= 2, "{text}");
        let best = text
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("no bestmove in {text}"));
        let best = best.split_whitespace().next().unwrap_or("");
        assert!(best == "1g1f" || best == "9g9f", "{best}");
    }

    /// The leaf counts go out before `bestmove`, in the documented form.
    #[test]
    fn a_search_reports_its_leaves_before_bestmove() {
        let text = run_text("usi\nisready\nposition startpos\ngo depth 4\nquit\n");
        let lines: Vec<&str> = text.lines().collect();
        let best = lines
            .iter()
            .position(|l| l.starts_with("bestmove "))
            .unwrap_or_else(|| panic!("no bestmove in {text}"));
        let words: Vec<&str> = lines[best - 1].split_whitespace().collect();
        let ["info", "string", "leaves", n, "positive", p] = words[..] else {
            panic!("not a leaves line before bestmove: {}", lines[best - 1]);
        };
        let (n, p): (u64, u64) = (n.parse().expect("N"), p.parse().expect("P"));
        assert!(n > 0 && p <= n, "{n} {p}");
    }

    /// The last `score cp` of a search's output.
    fn last_cp(text: &str) -> i64 {
        text.lines()
            .rev()
            .filter_map(|l| l.split(" score cp ").nth(1))
            .find_map(|r| r.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no score cp in {text}"))
    }

    /// `usi` declares every tunable as a spin with its default and range, and setting one
    /// changes the search: Sente's extra gold is worth nothing once `Eval_Gold` is 0.
    #[test]
    fn tunables_are_spin_options_that_change_the_search() {
        let text = run_text("usi\nquit\n");
        for t in TUNABLES {
            let line = format!(
                "option name {} type spin default {} min {} max {}",
                t.name, t.default, t.min, t.max
            );
            assert!(text.lines().any(|l| l == line), "no `{line}` in {text}");
        }
        assert!(text.contains("option name Eval_Silver type spin default 495 min 0 max 4000"));
        let go = "isready\nposition sfen 4k4/9/9/9/9/9/9/4G4/4K4 b - 1\ngo depth 3\nquit\n";
        let base = last_cp(&run_text(&format!("usi\n{go}")));
        let zero = last_cp(&run_text(&format!(
            "usi\nsetoption name Eval_Gold value 0\n{go}"
        )));
        assert!(
            base - zero > 400,
            "gold at 0 should cost about 540 cp: {base} vs {zero}"
        );
        let bad = run_text("usi\nsetoption name Eval_Gold value 5000\nquit\n");
        assert!(
            bad.contains("info string option `Eval_Gold`: 5000 is outside [0, 4000]"),
            "{bad}"
        );
    }
}
