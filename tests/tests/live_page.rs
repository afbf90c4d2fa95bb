//! The live page of a run (`council-match CONFIG --serve`, `council-match serve RUN_DIR`), as a
//! user sees it: Debian's headless `chromium` driven over WebDriver (`chromium-driver`) watches
//! a short node-limited run of built-in engines, the JSON endpoints are held against the run's
//! own files, and a client that stops reading the event stream is dropped while the run goes on.
//! The page of a tune (`council-tune CONFIG --serve`, `council-match serve TUNE_DIR`) draws each
//! parameter's course as `tune.jsonl` grows, and serves the tune's own lines and games. A run
//! folder's page is read on a machine without any CJK font (a fontconfig that sees DejaVu only):
//! its pieces are drawn in the page's own kanji font, with coordinates, the run's name, a move
//! list with the council's votes, and links to the records, which no path escapes.
//!
//! Nothing here is skipped: a missing `chromium` or `chromedriver` fails, naming `bash
//! tests/run.sh`, which installs them. Waits are bounded (a hang fails with what was awaited),
//! and no assertion is about time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use council_tests::workspace_bin;
use engine::position::Position;
use engine::types::{Color, PieceKind, Square};
use serde_json::{Value, json};

/// A name that would run script if the page ever took data for markup.
const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("live-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// A council of three built-in engines against the single engine named [`HOSTILE`].
fn config(dir: &Path, games: u32, nodes: u32, max_plies: u32) -> PathBuf {
    let text = format!(
        "[match]\nplayers = [\"council\", \"{HOSTILE}\"]\ngames = {games}\nmax_plies = {max_plies}\nseed = 7\n\n\
         [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"strong\", \"medium\", \"weak\"]\n\
         method = \"majority\"\nnodes = {nodes}\n\n\
         [[player]]\nname = \"{HOSTILE}\"\nkind = \"internal\"\nnodes = {nodes}\n\n\
         [[player]]\nname = \"strong\"\nkind = \"internal\"\nsigma = 100.0\n\n\
         [[player]]\nname = \"medium\"\nkind = \"internal\"\nnoise_cp = 60\nsigma = 150.0\n\n\
         [[player]]\nname = \"weak\"\nkind = \"internal\"\nnoise_cp = 120\nsigma = 200.0\n"
    );
    let path = dir.join("live.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Wait until `f` gives something, for at most `limit` (then fail, naming `what`).
fn wait_for<T>(what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let began = Instant::now();
    loop {
        if let Some(x) = f() {
            return x;
        }
        assert!(
            began.elapsed() < limit,
            "gave up after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A `council-match` process serving a live page; killed when dropped.
struct Served {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Served {
    fn start(args: &[&std::ffi::OsStr], log: &str) -> Self {
        Self::start_bin("council-match", args, log)
    }

    /// As [`Self::start`], for the workspace binary `bin`.
    fn start_bin(bin: &str, args: &[&std::ffi::OsStr], log: &str) -> Self {
        let mut child = Command::new(workspace_bin(bin))
            .args(args)
            .env("RUST_LOG", log)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {bin}: {e}"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("stderr is piped");
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = sink.lock().expect("stderr lock");
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut served = Served {
            child,
            url: String::new(),
            stderr,
        };
        served.url = wait_for("the live page's address", Duration::from_secs(60), || {
            let err = served.stderr();
            if let Ok(Some(status)) = served.child.try_wait() {
                panic!("{bin} exited ({status}) before serving: {err}");
            }
            err.lines()
                .find_map(|l| l.split("http://").nth(1))
                .map(|rest| format!("http://{}", rest.split_whitespace().next().unwrap_or("")))
        });
        served
    }

    /// A run of `config` into `out`, served on a free loopback port, logging at `log`
    /// (`RUST_LOG`).
    fn run(config: &Path, out: &Path, log: &str) -> Self {
        Self::start(
            &[
                config.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
                "--quiet".as_ref(),
                "--concurrency".as_ref(),
                "2".as_ref(),
                "--serve".as_ref(),
                "127.0.0.1:0".as_ref(),
            ],
            log,
        )
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").clone()
    }

    /// Wait until the run has ended (the page stays up after it).
    fn wait_run_over(&self, limit: Duration) {
        wait_for("the end of the run", limit, || {
            let err = self.stderr();
            assert!(
                !err.contains("council-match:"),
                "council-match failed: {err}"
            );
            err.contains("the run is over").then_some(())
        });
    }

    fn get(&self, path: &str) -> Value {
        let url = format!("{}{}", self.url.trim_end_matches('/'), path);
        let mut response = ureq::get(&url)
            .call()
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        let text = response
            .body_mut()
            .read_to_string()
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("GET {url}: not JSON ({e}): {text}"))
    }

    fn addr(&self) -> SocketAddr {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .expect("the page's address")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line is JSON"))
        .collect()
}

fn summary_file(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary.json"))
        .expect("summary.json is JSON")
}

/// The position after the first `ply` moves of a results line, by the engine's rules.
fn position_after(game: &Value, ply: usize) -> Position {
    let mut p = Position::from_start_text(game["start"].as_str().expect("start"))
        .expect("a start position");
    for m in game["moves"].as_array().expect("moves").iter().take(ply) {
        let mv = p
            .parse_usi_move(m.as_str().expect("a move"))
            .expect("a legal move");
        p.play(mv);
    }
    p
}

/// The 81 squares as the page must draw them (rank a to i, file 9 to 1): the kanji, with `v`
/// before a gote piece, or nothing.
fn expected_cells(p: &Position) -> Vec<String> {
    let mut cells = Vec::new();
    for rank in 'a'..='i' {
        for file in (1..=9).rev() {
            let sq = Square::from_usi(&format!("{file}{rank}")).expect("a square");
            cells.push(match p.piece_at(sq) {
                None => String::new(),
                Some(piece) => {
                    let gote = piece.color == Color::Gote;
                    let kanji = match piece.kind {
                        PieceKind::Pawn => "歩",
                        PieceKind::Lance => "香",
                        PieceKind::Knight => "桂",
                        PieceKind::Silver => "銀",
                        PieceKind::Gold => "金",
                        PieceKind::Bishop => "角",
                        PieceKind::Rook => "飛",
                        PieceKind::King if gote => "王",
                        PieceKind::King => "玉",
                        PieceKind::ProPawn => "と",
                        PieceKind::ProLance => "杏",
                        PieceKind::ProKnight => "圭",
                        PieceKind::ProSilver => "全",
                        PieceKind::Horse => "馬",
                        PieceKind::Dragon => "龍",
                    };
                    format!("{}{kanji}", if gote { "v" } else { "" })
                }
            });
        }
    }
    cells
}

/// A board's coordinates: files 9..1 across the top, ranks 一..九 down the side as a shogi
/// board shows them, each with its USI letter a..i (every move the page shows is USI).
const FILES: [&str; 9] = ["9", "8", "7", "6", "5", "4", "3", "2", "1"];
const RANKS: [&str; 9] = [
    "一a", "二b", "三c", "四d", "五e", "六f", "七g", "八h", "九i",
];

/// What a board on the page shows, read in one script call so it cannot change halfway: its
/// squares, and its coordinates (files across the top, ranks down the side).
const READ_BOARD: &str = r#"
const b = document.querySelector(arguments[0]);
if (!b) return null;
return { game: Number(b.dataset.game), ply: Number(b.dataset.ply), sfen: b.dataset.sfen,
  cells: [...b.querySelectorAll('.sq')].map(c => (c.classList.contains('gote') ? 'v' : '') + c.textContent),
  files: [...b.querySelectorAll('.coord-file')].map(c => c.textContent),
  ranks: [...b.querySelectorAll('.coord-rank')].map(c => c.textContent) };
"#;

/// Where a board's coordinates stand: for each file label (9..1), whether it is above the
/// squares of its file (its centre within their column, its bottom at most their top); for
/// each rank label (一a..九i), whether it is right of the squares of its rank (centre within their
/// row, left edge at least their right edge).
const READ_COORDS: &str = r#"
const b = document.querySelector(arguments[0]);
const sq = [...b.querySelectorAll('.sq')].map(c => c.getBoundingClientRect());
const files = [...b.querySelectorAll('.coord-file')].map((c, i) => {
  const r = c.getBoundingClientRect(), s = sq[i], x = (r.left + r.right) / 2;
  return [c.textContent, s.left <= x && x <= s.right && r.bottom <= s.top + 1];
});
const ranks = [...b.querySelectorAll('.coord-rank')].map((c, i) => {
  const r = c.getBoundingClientRect(), s = sq[9 * i + 8], y = (r.top + r.bottom) / 2;
  return [c.textContent, s.top <= y && y <= s.bottom && r.left >= s.right - 1];
});
return { files, ranks };
"#;

/// Which of `arguments[0]`'s characters the page's font draws as tofu, once it is loaded:
/// `boxes`, alike pixel for pixel on a canvas to a character no font here has (鬱, U+E000:
/// the ".notdef" glyph), and `blank`, without ink; `references_inked`, whether those two
/// references drew anything (a box does; the subset's ".notdef" is empty).
const NOT_TOFU: &str = r#"
const done = arguments[arguments.length - 1];
const chars = [...arguments[0]];
const font = '32px "Council Kanji"';
document.fonts.load(font, arguments[0] + '\u9b31').then(() => {
  const c = document.createElement('canvas');
  c.width = 48; c.height = 48;
  const g = c.getContext('2d', { willReadFrequently: true });
  const draw = (ch) => {
    g.clearRect(0, 0, 48, 48);
    g.font = font; g.textBaseline = 'top'; g.fillStyle = '#000';
    g.fillText(ch, 8, 8);
    const px = g.getImageData(0, 0, 48, 48).data;
    return { key: px.join(','), inked: px.some((v, i) => i % 4 === 3 && v > 0) };
  };
  const refs = [draw('\u9b31'), draw('\ue000')];
  const drawn = chars.map((ch) => [ch, draw(ch)]);
  done({
    references_inked: refs.every((r) => r.inked),
    boxes: drawn.filter(([, d]) => refs.some((r) => r.key === d.key)).map(([ch]) => ch),
    blank: drawn.filter(([, d]) => !d.inked).map(([ch]) => ch),
  });
}, (e) => done({ error: String(e) }));
"#;

/// The standings table as the page shows it: name, games, W, D, L per row.
const READ_STANDINGS: &str = r#"
return [...document.querySelectorAll('#standings tbody tr')].map(tr =>
  [...tr.cells].map(td => td.textContent));
"#;

/// A WebDriver session with Debian's headless chromium; when dropped, the session is ended
/// (chromedriver then stops its chromium, also after a test failed before [`Self::close`]) and
/// the driver is killed.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
    client: Option<fantoccini::Client>,
}

impl Browser {
    async fn start() -> Self {
        Self::start_with_env(&[]).await
    }

    /// As [`Self::start`], with `env` set for chromedriver and so for the chromium it starts.
    async fn start_with_env(env: &[(&str, &std::ffi::OsStr)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start chromedriver ({e}): install it with `bash tests/run.sh --setup-only`")
            });
        assert!(
            Path::new("/usr/bin/chromium").exists(),
            "no /usr/bin/chromium: install it with `bash tests/run.sh --setup-only`"
        );
        wait_for("chromedriver to listen", Duration::from_secs(30), || {
            TcpStream::connect(("127.0.0.1", port)).ok()
        });
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1400,1800"],
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = fantoccini::ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a WebDriver session with chromium");
        let session = client
            .session_id()
            .await
            .expect("the session id")
            .expect("a session");
        Browser {
            driver,
            port,
            session,
            client: Some(client),
        }
    }

    /// A Chrome DevTools Protocol command, through chromedriver's `goog/cdp/execute`: what
    /// WebDriver cannot ask, such as the fonts a node's text was really drawn with.
    async fn cdp(&self, cmd: &str, params: Value) -> Value {
        let url = format!(
            "http://127.0.0.1:{}/session/{}/goog/cdp/execute",
            self.port, self.session
        );
        let body = json!({ "cmd": cmd, "params": params }).to_string();
        let what = cmd.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut response = ureq::post(&url)
                .header("Content-Type", "application/json")
                .send(&body)
                .unwrap_or_else(|e| panic!("CDP {what}: {e}"));
            let text = response
                .body_mut()
                .read_to_string()
                .unwrap_or_else(|e| panic!("CDP {what}: {e}"));
            let reply: Value = serde_json::from_str(&text).expect("a JSON reply");
            reply["value"].clone()
        })
        .await
        .expect("the CDP call")
    }

    /// The fonts the text of each element matching `selector` was drawn with, by CDP's
    /// `CSS.getPlatformFontsForNode`: per element, `(family, custom, glyphs)` of every font
    /// used, where `custom` is a web font of the page rather than one of the machine's, and
    /// `glyphs` how many glyphs it drew.
    async fn fonts_drawn(&self, selector: &str) -> Vec<Vec<(String, bool, u64)>> {
        self.cdp("DOM.enable", json!({})).await;
        self.cdp("CSS.enable", json!({})).await;
        let root = self.cdp("DOM.getDocument", json!({ "depth": 0 })).await;
        let nodes = self
            .cdp(
                "DOM.querySelectorAll",
                json!({ "nodeId": root["root"]["nodeId"], "selector": selector }),
            )
            .await;
        let mut out = Vec::new();
        for node in nodes["nodeIds"].as_array().expect("node ids") {
            let fonts = self
                .cdp("CSS.getPlatformFontsForNode", json!({ "nodeId": node }))
                .await;
            out.push(
                fonts["fonts"]
                    .as_array()
                    .expect("fonts")
                    .iter()
                    .map(|f| {
                        (
                            f["familyName"].as_str().unwrap_or("").to_owned(),
                            f["isCustomFont"].as_bool().unwrap_or(false),
                            f["glyphCount"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect(),
            );
        }
        out
    }

    fn client(&self) -> &fantoccini::Client {
        self.client.as_ref().expect("a session")
    }

    async fn script(&self, script: &str, args: Vec<Value>) -> Value {
        self.client()
            .execute(script, args)
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}"))
    }

    /// Poll `script` until `done` accepts its value (bounded, like [`wait_for`]).
    async fn wait_script(
        &self,
        what: &str,
        script: &str,
        args: Vec<Value>,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let began = Instant::now();
        loop {
            let v = self.script(script, args.clone()).await;
            if done(&v) {
                return v;
            }
            assert!(
                began.elapsed() < Duration::from_secs(300),
                "gave up waiting for {what}; last seen {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn close(mut self) {
        if let Some(c) = self.client.take() {
            let _ = c.close().await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // A test that failed before `close`: killing the driver alone would leave its chromium
        // running, so the session is ended first (WebDriver's Delete Session), best effort.
        if self.client.take().is_some() {
            let url = format!("http://127.0.0.1:{}/session/{}", self.port, self.session);
            let _ = ureq::delete(&url)
                .config()
                .timeout_global(Some(Duration::from_secs(20)))
                .build()
                .call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn games_in(standings: &Value) -> u64 {
    standings
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|r| r[2].as_str()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_run_as_it_plays_and_replays_its_games() {
    let dir = scratch("browser");
    let out = dir.join("run");
    // Short games of small searches, so that games end while the page watches; the browser is
    // up before the run starts.
    let browser = Browser::start().await;
    let served = Served::run(&config(&dir, 6, 5000, 80), &out, "warn");
    browser
        .client()
        .goto(&served.url)
        .await
        .expect("open the live page");

    // A board of a game in play, as the page draws it.
    let board = browser
        .wait_script(
            "a board of a game in play",
            READ_BOARD,
            vec![json!("#boards .board-wrap")],
            |v| v["ply"].as_u64().is_some_and(|p| p > 0),
        )
        .await;
    assert_eq!(board["files"], json!(FILES), "files across the top");
    assert_eq!(board["ranks"], json!(RANKS), "ranks down the side");
    // The standings while the run plays, then again once more games have ended.
    let early = browser.script(READ_STANDINGS, vec![]).await;
    let early_games = games_in(&early);
    let later = browser
        .wait_script("the standings to change", READ_STANDINGS, vec![], |v| {
            games_in(v) > early_games
        })
        .await;
    assert!(games_in(&later) > early_games);

    served.wait_run_over(Duration::from_secs(600));
    let games = results(&out);
    let summary = summary_file(&out);
    assert_eq!(games.len(), 6, "every game is recorded");

    // The board showed a real position of that game: the one after its `ply` moves.
    let id = board["game"].as_u64().expect("the board's game");
    let ply = board["ply"].as_u64().expect("the board's ply") as usize;
    let game = games
        .iter()
        .find(|g| g["id"] == id)
        .expect("the board's game is recorded");
    let expected = position_after(game, ply);
    assert_eq!(board["sfen"], json!(expected.to_sfen()), "board {board}");
    let cells: Vec<String> = serde_json::from_value(board["cells"].clone()).expect("cells");
    assert_eq!(cells, expected_cells(&expected), "the squares of {board}");

    // The final standings are summary.json's, and the hostile name is shown as text.
    let last = browser
        .wait_script("the final standings", READ_STANDINGS, vec![], |v| {
            games_in(v) == 12
        })
        .await;
    for p in summary["players"].as_array().expect("players") {
        let row = last
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r[1] == p["name"]))
            .unwrap_or_else(|| panic!("no standings row for {} in {last}", p["name"]));
        let shown: Vec<&str> = (2..6).map(|i| row[i].as_str().unwrap_or("")).collect();
        let wanted: Vec<String> = ["games", "wins", "draws", "losses"]
            .iter()
            .map(|k| p[k].to_string())
            .collect();
        assert_eq!(shown, wanted, "{}", p["name"]);
    }
    // Six games each: under the games a rating needs, so the Elo chart draws no line yet
    // (it once drew ±800 after a player's first game).
    let chart = browser
        .script(
            "const c = document.getElementById('elo-chart'); return [c.querySelectorAll('polyline').length, c.textContent];",
            vec![],
        )
        .await;
    assert_eq!(
        chart,
        json!([0, "the chart starts at a player's 10th game"]),
        "the Elo chart"
    );
    let hostile_rows = browser
        .script(
            "return [...document.querySelectorAll('#standings td')].filter(td => td.textContent === arguments[0]).length;",
            vec![json!(HOSTILE)],
        )
        .await;
    assert_eq!(hostile_rows, json!(1), "the hostile name appears as text");
    // The by-family table holds summary.json's by_family: each family's row and games.
    let shown = browser
        .script(
            "return [...document.querySelectorAll('#families tbody tr')].map(tr => [tr.dataset.family, tr.cells[1].textContent]);",
            vec![],
        )
        .await;
    let mut shown: Vec<Value> = serde_json::from_value(shown).expect("rows");
    let mut wanted: Vec<Value> = summary["by_family"]
        .as_object()
        .expect("by_family")
        .iter()
        .map(|(key, row)| json!([key, row["games"].to_string()]))
        .collect();
    shown.sort_by_key(Value::to_string);
    wanted.sort_by_key(Value::to_string);
    assert!(!wanted.is_empty());
    assert_eq!(shown, wanted, "the families table");
    let images = browser
        .script("return document.querySelectorAll('img').length;", vec![])
        .await;
    assert_eq!(images, json!(0), "no data became markup");
    assert!(
        browser.client().get_alert_text().await.is_err(),
        "no script of the hostile name ran"
    );

    // Replay a finished game to its last position with the arrow keys.
    let game = games
        .iter()
        .max_by_key(|g| g["plies"].as_u64())
        .expect("a game");
    let id = game["id"].as_u64().expect("id");
    let plies = game["moves"].as_array().expect("moves").len();
    browser
        .client()
        .find(fantoccini::Locator::Css(&format!(
            "#finished tr[data-game=\"{id}\"]"
        )))
        .await
        .expect("the finished game's row")
        .click()
        .await
        .expect("open its replay");
    browser
        .wait_script(
            "the replay's first position",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["game"] == id && v["ply"] == 0,
        )
        .await;
    let body = browser
        .client()
        .find(fantoccini::Locator::Css("body"))
        .await
        .expect("the page body");
    let right = "\u{E014}".repeat(plies + 3); // past the end stays at the end
    body.send_keys(&right).await.expect("arrow keys");
    let end = browser
        .wait_script(
            "the replay's last position",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["ply"].as_u64() == Some(plies as u64),
        )
        .await;
    let last_position = position_after(game, plies);
    assert_eq!(end["sfen"], json!(last_position.to_sfen()));
    let cells: Vec<String> = serde_json::from_value(end["cells"].clone()).expect("cells");
    assert_eq!(cells, expected_cells(&last_position));
    // One step back with the left arrow.
    body.send_keys("\u{E012}").await.expect("arrow key");
    let back = browser
        .wait_script(
            "one move back",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["ply"].as_u64() == Some(plies as u64 - 1),
        )
        .await;
    assert_eq!(
        back["sfen"],
        json!(position_after(game, plies - 1).to_sfen())
    );
    browser.close().await;
}

#[test]
fn the_endpoints_serve_what_the_run_folder_holds() {
    let dir = scratch("endpoints");
    let out = dir.join("run");
    let served = Served::run(&config(&dir, 4, 1000, 80), &out, "warn");
    served.wait_run_over(Duration::from_secs(600));
    let games = results(&out);
    assert_eq!(games.len(), 4);
    let summary = summary_file(&out);
    let check = |s: &Served| {
        assert_eq!(
            s.get("/api/summary"),
            summary,
            "/api/summary is summary.json"
        );
        // In the order the games finished, as the file has them.
        let served_games: Vec<Value> =
            serde_json::from_value(s.get("/api/games")).expect("an array");
        for (served, line) in served_games.iter().zip(&games) {
            assert!(
                served == line,
                "/api/games differs from results.jsonl for game {}:\n{served}\n{line}",
                line["id"]
            );
        }
        assert_eq!(served_games.len(), games.len(), "/api/games has every game");
        assert_eq!(s.get("/api/live"), json!([]), "no game in play");
        for g in &games {
            let id = g["id"].as_u64().expect("id");
            let sfens = s.get(&format!("/api/games/{id}/positions"))["sfens"].clone();
            let moves = g["moves"].as_array().expect("moves").len();
            assert_eq!(sfens.as_array().map(Vec::len), Some(moves + 1));
            assert_eq!(sfens[moves], json!(position_after(g, moves).to_sfen()));
        }
    };
    check(&served);
    drop(served);

    // The same folder, served on its own.
    let follower = Served::start(
        &[
            "serve".as_ref(),
            out.as_os_str(),
            "--addr".as_ref(),
            "127.0.0.1:0".as_ref(),
        ],
        "warn",
    );
    wait_for("the folder's games", Duration::from_secs(60), || {
        (follower.get("/api/summary")["games"] == json!(4)).then_some(())
    });
    check(&follower);
    drop(follower);

    // A folder that holds no run is refused, by name.
    let empty = scratch("endpoints-empty");
    let refused = Command::new(workspace_bin("council-match"))
        .args(["serve".as_ref(), empty.as_os_str()])
        .output()
        .expect("run council-match serve");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(&empty.display().to_string()) && err.contains("no run.json"),
        "{err}"
    );
}

#[test]
fn a_client_that_stops_reading_is_dropped_and_the_run_goes_on() {
    let dir = scratch("stalled");
    let out = dir.join("run");
    // The page says at debug level when a write to a browser starts to wait.
    let served = Served::run(
        &config(&dir, 10, 2000, 200),
        &out,
        "warn,council_live=debug",
    );

    // A client with a tiny receive window asks for the event stream and never reads it.
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    socket
        .set_recv_buffer_size(4096)
        .expect("a small receive buffer");
    socket
        .connect(&served.addr().into())
        .expect("connect to the page");
    let mut stalled: TcpStream = socket.into();
    let local = stalled.local_addr().expect("the client's address");
    stalled
        .write_all(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("send the request");

    served.wait_run_over(Duration::from_secs(900));
    assert_eq!(results(&out).len(), 10, "every game is recorded");
    assert_eq!(summary_file(&out)["games"], json!(10));
    // The client's buffers and the server's send buffer filled while the run played: a write
    // to it had to wait, and the run went on to its end all the same.
    let err = served.stderr();
    let waiting = err
        .find(&format!("live page: {local} is not reading"))
        .unwrap_or_else(|| panic!("no write to the stalled client ever waited: {err}"));
    assert!(
        waiting < err.find("the run is over").expect("the run is over"),
        "the send buffer was full before the run ended: {err}"
    );
    // Then it is dropped (the page stays up after the run, so this may come after its end).
    wait_for(
        "the stalled client to be dropped",
        Duration::from_secs(120),
        || {
            served
                .stderr()
                .contains(&format!("live page: dropped {local}"))
                .then_some(())
        },
    );

    // The server closed the connection: reading it now ends (it would block if still open).
    stalled
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a read timeout");
    let mut received = Vec::new();
    match stalled.read_to_end(&mut received) {
        Ok(_) => assert!(
            String::from_utf8_lossy(&received).contains("event: snapshot"),
            "it got the stream's start before it stalled"
        ),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the stalled stream is still open: {e}"),
    }
}

/// A council of two built-in engines tuning a member's noise and its vote weight against itself
/// (θ+ against θ−), in games long enough that iterations end while the page watches.
fn tune_config(dir: &Path) -> PathBuf {
    let text = "[match]\nplayers = [\"w\", \"x\"]\nmax_plies = 60\n\n\
         [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 2000\nnoise_cp = 100\n\n\
         [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 2000\n\n\
         [[player]]\nname = \"w\"\nkind = \"council\"\nmembers = [\"a\", \"b\"]\nmethod = \"majority\"\n\n\
         [[player]]\nname = \"x\"\nkind = \"internal\"\nnodes = 100\n\n\
         [tune]\nplayer = \"w\"\niterations = 12\npairs = 1\nseed = 4\n\n\
         [[tune.param]]\npath = \"members.a.noise_cp\"\nstart = 100\nmin = 0\nmax = 300\nc_end = 30\nr_end = 0.1\n\n\
         [[tune.param]]\npath = \"weights.a\"\nstart = 1\nmin = 0\nmax = 3\nc_end = 0.4\nr_end = 0.1\n";
    let path = dir.join("tune.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Each parameter's chart as the page draws it: its title and the points of its θ line.
const READ_TUNE: &str = r#"
const charts = [...document.querySelectorAll('#tune-charts .tune-chart')];
return { hidden: document.getElementById('tune-section').hidden,
  progress: document.getElementById('tune-progress').textContent,
  charts: charts.map(c => ({ title: c.querySelector('h3').textContent,
    points: (c.querySelector('polyline.theta')?.getAttribute('points') || '').split(' ').filter(p => p).length })) };
"#;

fn points(v: &Value) -> u64 {
    v["charts"][0]["points"].as_u64().unwrap_or(0)
}

/// `OUT/tune.jsonl`'s iteration lines.
fn tune_lines(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("tune.jsonl"))
        .expect("read tune.jsonl")
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tune_page_draws_each_parameter_as_the_tune_goes() {
    let dir = scratch("tune");
    let out = dir.join("tune");
    let config = tune_config(&dir);
    let browser = Browser::start().await;
    let served = Served::start_bin(
        "council-tune",
        &[
            config.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
            "--concurrency".as_ref(),
            "2".as_ref(),
            "--serve".as_ref(),
            "127.0.0.1:0".as_ref(),
        ],
        "warn",
    );
    browser
        .client()
        .goto(&served.url)
        .await
        .expect("open the tune's page");
    // The course drawn part way, then further: the charts follow tune.jsonl as it grows.
    let early = browser
        .wait_script("a tune chart part way", READ_TUNE, vec![], |v| {
            (2..13).contains(&points(v))
        })
        .await;
    assert_eq!(early["hidden"], json!(false));
    let titles: Vec<&str> = early["charts"]
        .as_array()
        .expect("charts")
        .iter()
        .map(|c| c["title"].as_str().unwrap_or(""))
        .collect();
    assert!(
        titles[0].starts_with("members.a.noise_cp") && titles[1].starts_with("weights.a"),
        "{titles:?}"
    );
    let done = browser
        .wait_script("the whole course", READ_TUNE, vec![], |v| points(v) == 13)
        .await;
    assert!(points(&done) > points(&early));
    wait_for("the end of the tune", Duration::from_secs(600), || {
        served.stderr().contains("the tune is over").then_some(())
    });
    // The last θ the page names is tune.jsonl's.
    let lines = tune_lines(&out);
    assert_eq!(lines.len(), 12);
    let last = lines[11]["theta_next"][0].as_f64().expect("θ");
    let done = browser
        .wait_script("the final progress", READ_TUNE, vec![], |v| {
            v["progress"]
                .as_str()
                .is_some_and(|p| p.contains("iteration 12 / 12") && p.contains("24 games"))
        })
        .await;
    let title = done["charts"][0]["title"].as_str().unwrap_or("");
    // The page writes θ with one decimal from 100 up, else three.
    let shown = if last.abs() >= 100.0 {
        format!("{last:.1}")
    } else {
        format!("{last:.3}")
    };
    assert!(title.ends_with(&format!("θ {shown}")), "{title} vs {last}");
    browser.close().await;

    // The endpoints hold the tune's own lines and games, here and from another process.
    let games: Vec<Value> = std::fs::read_to_string(out.join("games.jsonl"))
        .expect("read games.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a game"))
        .collect();
    let check = |s: &Served| {
        let tune = s.get("/api/tune");
        assert_eq!(
            tune["lines"],
            json!(lines),
            "/api/tune's lines are tune.jsonl's"
        );
        assert_eq!(tune["iterations"], json!(12));
        assert_eq!(tune["params"][1]["max"], json!(3.0));
        assert_eq!(
            s.get("/api/games"),
            json!(games),
            "/api/games is games.jsonl"
        );
    };
    check(&served);
    drop(served);
    let follower = Served::start(
        &[
            "serve".as_ref(),
            out.as_os_str(),
            "--addr".as_ref(),
            "127.0.0.1:0".as_ref(),
        ],
        "warn",
    );
    wait_for("the folder's tune", Duration::from_secs(60), || {
        (follower.get("/api/tune")["lines"].as_array().map(Vec::len) == Some(12)
            && follower.get("/api/games").as_array().map(Vec::len) == Some(24))
        .then_some(())
    });
    check(&follower);
}

/// A finished run of two short games into `dir/name`, played by `council-match` as a user runs
/// it (the page then serves the folder).
fn finished_run(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    council_tests::succeeded(&council_tests::council_match(
        &config(dir, 2, 1000, 60),
        &out,
        &["--concurrency", "2"],
    ));
    out
}

/// `council-match serve DIR` on a free loopback port.
fn serve_folder(out: &Path) -> Served {
    Served::start(
        &[
            "serve".as_ref(),
            out.as_os_str(),
            "--addr".as_ref(),
            "127.0.0.1:0".as_ref(),
        ],
        "warn",
    )
}

/// A fontconfig that sees Debian's DejaVu fonts and nothing else: no CJK font at all. The
/// system's rules (`/etc/fonts/conf.d`: aliases such as sans-serif) still apply, as on a
/// machine that has only those fonts installed; they name fonts but add no folder.
fn fontconfig_without_cjk(dir: &Path) -> PathBuf {
    let conf = dir.join("fonts.conf");
    let text = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig>\n  \
         <dir>/usr/share/fonts/truetype/dejavu</dir>\n  <cachedir>{}</cachedir>\n  \
         <include ignore_missing=\"yes\">/etc/fonts/conf.d</include>\n</fontconfig>\n",
        dir.join("fontconfig-cache").display()
    );
    std::fs::write(&conf, text).expect("write fonts.conf");
    conf
}

/// `fc-list ARGS` under the fontconfig `conf`: one line per font it sees.
fn fc_list(conf: &Path, args: &[&str]) -> String {
    let out = Command::new("fc-list")
        .args(args)
        .env("FONTCONFIG_FILE", conf)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run fc-list ({e}): install it with `bash tests/run.sh --setup-only`")
        });
    assert!(out.status.success(), "fc-list {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every character of the page's kanji font, as `orchestrator/live/font/glyphs.txt` lists them.
fn font_glyphs() -> String {
    let path = council_tests::workspace_root().join("orchestrator/live/font/glyphs.txt");
    std::fs::read_to_string(&path)
        .expect("glyphs.txt")
        .chars()
        .filter(|c| *c != '\n')
        .collect()
}

/// Open the replay of game `id` (a click on its row) and wait for its first position.
async fn open_replay(browser: &Browser, id: u64) {
    browser
        .wait_script(
            "the finished game's row",
            "return document.querySelector(arguments[0]) !== null;",
            vec![json!(format!("#finished tr[data-game=\"{id}\"]"))],
            |v| v == &json!(true),
        )
        .await;
    browser
        .client()
        .find(fantoccini::Locator::Css(&format!(
            "#finished tr[data-game=\"{id}\"]"
        )))
        .await
        .expect("the finished game's row")
        .click()
        .await
        .expect("open its replay");
    browser
        .wait_script(
            "the replay's first position",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["game"] == id && v["ply"] == 0,
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_folder_reads_in_kanji_on_a_machine_without_any_cjk_font() {
    let dir = scratch("no-cjk");
    // The run's name is its folder's, and a name is text, never markup.
    let name = format!("run {HOSTILE}");
    let out = finished_run(&dir, &name);
    let games = results(&out);
    let game = games
        .iter()
        .max_by_key(|g| g["plies"].as_u64())
        .expect("a game");
    let id = game["id"].as_u64().expect("id");
    let plies = game["moves"].as_array().expect("moves").len();

    // The browser's fontconfig sees DejaVu only: this machine has no CJK font for it.
    let conf = fontconfig_without_cjk(&dir);
    assert!(
        fc_list(&conf, &[]).contains("DejaVu"),
        "the fontconfig sees DejaVu"
    );
    assert_eq!(
        fc_list(&conf, &[":lang=ja"]),
        "",
        "the fontconfig sees no Japanese font"
    );
    assert_eq!(
        fc_list(&conf, &[":charset=6b69"]),
        "",
        "the fontconfig sees no font with 歩 (U+6B69)"
    );
    let browser = Browser::start_with_env(&[("FONTCONFIG_FILE", conf.as_os_str())]).await;
    let served = serve_folder(&out);
    browser
        .client()
        .goto(&served.url)
        .await
        .expect("open the page");

    // The run's name in the header and the title.
    let header = browser
        .wait_script(
            "the run's name",
            "return [document.getElementById('run-name').textContent, \
                     document.getElementById('run-config').textContent, document.title];",
            vec![],
            |v| v[0] != json!(""),
        )
        .await;
    assert_eq!(
        header,
        json!([
            name,
            dir.join("live.toml").display().to_string(),
            format!("{name} · council live")
        ])
    );

    // The replay of the longest game, at its last position.
    open_replay(&browser, id).await;
    browser
        .client()
        .find(fantoccini::Locator::Css("body"))
        .await
        .expect("the page body")
        .send_keys("\u{E010}") // End
        .await
        .expect("End");
    let end = browser
        .wait_script(
            "the replay's last position",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["ply"].as_u64() == Some(plies as u64),
        )
        .await;
    let last = position_after(game, plies);
    let cells: Vec<String> = serde_json::from_value(end["cells"].clone()).expect("cells");
    assert_eq!(cells, expected_cells(&last));

    // Coordinates: files 9..1 over their columns, ranks 一..九 (a..i) beside their rows.
    let coords = browser
        .script(READ_COORDS, vec![json!("#replay-board")])
        .await;
    let at = |labels: [&str; 9]| json!(labels.map(|l| json!([l, true])));
    assert_eq!(coords["files"], at(FILES), "{coords}");
    assert_eq!(coords["ranks"], at(RANKS), "{coords}");

    // The page's font is loaded and holds the pieces' glyphs.
    let pieces = "玉王飛角金銀桂香歩龍馬全圭杏と";
    let fonts = browser
        .client()
        .execute_async(
            "const done = arguments[arguments.length - 1];
             document.fonts.ready.then(() => done({
               check: document.fonts.check('20px \"Council Kanji\"', arguments[0]),
               faces: [...document.fonts].map(f => [f.family.replace(/\"/g, ''), f.status]),
               family: getComputedStyle(document.querySelector('#replay-board .sq span')).fontFamily,
             }));",
            vec![json!(pieces)],
        )
        .await
        .expect("document.fonts");
    assert_eq!(fonts["check"], json!(true), "{fonts}");
    assert!(
        fonts["faces"]
            .as_array()
            .is_some_and(|f| f.contains(&json!(["Council Kanji", "loaded"]))),
        "{fonts}"
    );
    assert!(
        fonts["family"]
            .as_str()
            .is_some_and(|f| f.starts_with("\"Council Kanji\"")),
        "{fonts}"
    );

    // No character the page draws in kanji is tofu: drawn in the page's font on a canvas, each
    // has ink and differs from what a character no font here has (鬱, U+E000) is drawn as (the
    // ".notdef" glyph: an empty box, or nothing at all in the page's subset). A font that
    // lacks a piece, or did not load, fails here; the check below cannot tell, as a missing
    // glyph is drawn with its element's first font's ".notdef".
    let glyphs = font_glyphs();
    let mut shown: Vec<char> = cells.concat().chars().filter(|&c| c != 'v').collect();
    shown.extend(glyphs.chars().filter(|c| !c.is_whitespace()));
    shown.sort_unstable();
    shown.dedup();
    let tofu = browser
        .client()
        .execute_async(NOT_TOFU, vec![json!(shown.iter().collect::<String>())])
        .await
        .expect("the canvas");
    assert_eq!(
        tofu["boxes"],
        json!([]),
        "drawn as the font's empty box (glyphs of {}): {tofu}",
        shown.iter().collect::<String>()
    );
    assert_eq!(tofu["blank"], json!([]), "drawn as nothing: {tofu}");

    // Every piece on the board was drawn with the page's font and no other; so was every glyph
    // the font claims to hold. A kanji in a font of the machine is not: there is none here.
    let probe = "const p = document.createElement('span'); p.id = arguments[0]; \
                 p.style.fontFamily = arguments[1]; p.textContent = arguments[2]; \
                 document.body.append(p); return true;";
    browser
        .script(
            probe,
            vec![
                json!("glyph-probe"),
                json!("\"Council Kanji\""),
                json!(font_glyphs()),
            ],
        )
        .await;
    browser
        .script(
            probe,
            vec![json!("system-probe"), json!("serif"), json!("歩")],
        )
        .await;
    let drawn = browser.fonts_drawn("#replay-board .sq span").await;
    let on_board = cells.iter().filter(|c| !c.is_empty()).count();
    assert_eq!(drawn.len(), on_board, "one element per piece");
    for fonts in &drawn {
        assert!(
            !fonts.is_empty() && fonts.iter().all(|(_, custom, _)| *custom),
            "a piece drawn with a font of the machine: {drawn:?}"
        );
    }
    let glyphs = browser.fonts_drawn("#glyph-probe").await;
    let listed = font_glyphs().chars().count() as u64;
    assert!(
        glyphs.len() == 1
            && glyphs[0].iter().all(|(_, custom, _)| *custom)
            && glyphs[0].iter().map(|f| f.2).sum::<u64>() == listed,
        "every glyph of glyphs.txt ({listed}) is in the page's font: {glyphs:?}"
    );
    let system = browser.fonts_drawn("#system-probe").await;
    assert!(
        system.len() == 1
            && !system[0].is_empty()
            && system[0].iter().all(|(_, custom, _)| !*custom),
        "a kanji in the machine's fonts is drawn without the page's font: {system:?}"
    );
    browser
        .script(
            "document.getElementById('glyph-probe').remove(); \
             document.getElementById('system-probe').remove(); return true;",
            vec![],
        )
        .await;
    // Wherever the page shows kanji (hands, coordinates, move list, families, headings), the
    // page's font drew every one of them: none fell to a font of the machine as an empty box.
    let counted = browser
        .script(
            "const glyphs = new Set(arguments[0]); const counts = [];
             for (const e of document.querySelectorAll('body *')) {
               const own = [...e.childNodes].filter(c => c.nodeType === 3).map(c => c.textContent).join('');
               const n = [...own].filter(c => glyphs.has(c)).length;
               if (n && e.getClientRects().length) {
                 e.dataset.kanji = n;
                 counts.push([n, e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                   [...e.classList].map(c => '.' + c).join('') + ' ' + JSON.stringify(own)]);
               }
             }
             return counts;",
            vec![json!(font_glyphs())],
        )
        .await;
    let counted: Vec<(u64, String)> = serde_json::from_value(counted).expect("counts");
    let drawn = browser.fonts_drawn("[data-kanji]").await;
    assert_eq!(drawn.len(), counted.len());
    assert!(
        counted.len() > on_board + 10,
        "kanji beyond the board: {counted:?}"
    );
    for (fonts, (n, element)) in drawn.iter().zip(&counted) {
        let by_page: u64 = fonts.iter().filter(|f| f.1).map(|f| f.2).sum();
        assert_eq!(
            by_page, *n,
            "kanji of {element} drawn by a font of the machine: {fonts:?}"
        );
    }
    browser
        .script(
            "document.getElementById('replay-section').scrollIntoView(); return true;",
            vec![],
        )
        .await;

    // A screenshot to look at: the board, hands and move list in kanji.
    let png = browser.client().screenshot().await.expect("a screenshot");
    let shot = dir.join("page-without-cjk-fonts.png");
    std::fs::write(&shot, &png).expect("write the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "{}", shot.display());
    eprintln!("screenshot: {}", shot.display());

    assert_eq!(
        browser
            .script("return document.querySelectorAll('img').length;", vec![])
            .await,
        json!(0),
        "no name became markup"
    );
    browser.close().await;
}

/// The move list as the page shows it: per row its ply, mark, USI and KIF text, and each
/// council vote with its members' names and moves (and whether each is the chosen move).
const READ_KIFU: &str = r#"
return [...document.querySelectorAll('#kifu .kifu-row')].map(r => ({
  ply: Number(r.dataset.ply), current: r.classList.contains('current'),
  mark: r.querySelector('.mark')?.textContent ?? null,
  usi: r.querySelector('.usi').textContent, ja: r.querySelector('.ja')?.textContent ?? null,
  votes: [...r.querySelectorAll('.kifu-vote')].map(v => ({ council: v.dataset.council,
    members: [...v.querySelectorAll('.member')].map(m => [m.querySelector('.member-name').textContent,
      m.querySelector('.member-move').textContent, m.classList.contains('chosen')]) })) }));
"#;

/// Each move of a results line in KIF notation, by the independent cshogi referee.
fn cshogi_kif(game: &Value) -> Vec<String> {
    let script = r#"
import json, sys
import cshogi
import cshogi.KIF
game = json.load(sys.stdin)
start = game["start"].strip()
start = start[len("position "):] if start.startswith("position ") else start
board = cshogi.Board() if start == "startpos" else cshogi.Board(start.removeprefix("sfen "))
prev, out = None, []
for text in game["moves"]:
    move = board.move_from_usi(text)
    out.append(cshogi.KIF.move_to_kif(move, prev))
    board.push(move)
    prev = move
print(json.dumps(out))
"#;
    let mut child = Command::new(council_tests::python())
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the cshogi referee");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(game.to_string().as_bytes())
        .expect("send the game");
    let out = child.wait_with_output().expect("the referee's answer");
    assert!(out.status.success(), "the cshogi referee failed");
    serde_json::from_slice(&out.stdout).expect("a JSON list")
}

/// `GET path` sent byte for byte (no client tidies `..` away): status, lower-cased head, body.
fn raw_get(addr: SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect to the page");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a read timeout");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .expect("send the request");
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).expect("the response");
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&bytes[..split]).to_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, head, bytes[split + 4..].to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_lists_the_moves_with_the_councils_votes_and_links_the_records() {
    let dir = scratch("kifu");
    let out = finished_run(&dir, "run");
    let games = results(&out);
    let game = games
        .iter()
        .max_by_key(|g| g["votes"].as_array().map_or(0, Vec::len))
        .expect("a game");
    let id = game["id"].as_u64().expect("id");
    let moves: Vec<&str> = game["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("a move"))
        .collect();
    let votes = game["votes"].as_array().expect("the council's votes");
    assert!(!votes.is_empty(), "the council voted");

    let browser = Browser::start().await;
    let served = serve_folder(&out);
    browser
        .client()
        .goto(&served.url)
        .await
        .expect("open the page");
    open_replay(&browser, id).await;

    // A row per move after the start's, each with its side's mark, its USI and KIF text.
    let rows = browser.script(READ_KIFU, vec![]).await;
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), moves.len() + 1, "the start, then each move");
    assert_eq!(rows[0]["ply"], json!(0));
    assert_eq!(
        rows[0]["current"],
        json!(true),
        "the replay starts at the start"
    );
    let kif = cshogi_kif(game);
    for (i, mv) in moves.iter().enumerate() {
        let row = &rows[i + 1];
        assert_eq!(row["ply"], json!(i + 1));
        assert_eq!(row["usi"], json!(mv), "move {}", i + 1);
        let side = position_after(game, i).side_to_move();
        assert_eq!(
            row["mark"],
            json!(if side == Color::Sente { "▲" } else { "△" }),
            "move {}",
            i + 1
        );
        // cshogi writes no 不成 for a declined promotion and names a promoted lance, knight or
        // silver by its one-character form (杏, 圭, 全); the page writes 不成 and 成香, 成桂,
        // 成銀, as Kifu for Windows and our KIF records do.
        let ja = row["ja"]
            .as_str()
            .unwrap_or("")
            .replace("不成", "")
            .replace("成香", "杏")
            .replace("成桂", "圭")
            .replace("成銀", "全");
        assert_eq!(ja, kif[i], "move {} ({mv})", i + 1);
        // The council's vote on its moves: each member's move, the chosen ones marked.
        let wanted: Vec<Value> = votes
            .iter()
            .filter(|v| v["ply"] == json!(i))
            .map(|v| {
                let members: Vec<Value> = v["members"]
                    .as_array()
                    .expect("members")
                    .iter()
                    .map(|m| {
                        let shown = m["mv"].as_str().unwrap_or("✗");
                        json!([m["name"], shown, m["mv"] == v["chosen"]])
                    })
                    .collect();
                json!({ "council": v["council"], "members": members })
            })
            .collect();
        assert_eq!(row["votes"], json!(wanted), "the votes on move {}", i + 1);
        if !wanted.is_empty() {
            assert!(
                wanted[0]["members"]
                    .as_array()
                    .is_some_and(|m| m.iter().any(|m| m[2] == json!(true))),
                "a member's move was chosen"
            );
            assert_eq!(
                json!(mv),
                votes.iter().find(|v| v["ply"] == json!(i)).expect("vote")["chosen"]
            );
        }
    }

    // A click on a council's move puts the replay on the position after it.
    let k = votes[votes.len() / 2]["ply"].as_u64().expect("ply") as usize + 1;
    browser
        .client()
        .find(fantoccini::Locator::Css(&format!(
            "#kifu .kifu-row[data-ply=\"{k}\"]"
        )))
        .await
        .expect("the move's row")
        .click()
        .await
        .expect("click the move");
    let board = browser
        .wait_script(
            "the position after the clicked move",
            READ_BOARD,
            vec![json!("#replay-board")],
            |v| v["ply"].as_u64() == Some(k as u64),
        )
        .await;
    assert_eq!(board["sfen"], json!(position_after(game, k).to_sfen()));
    let current: Vec<u64> = browser
        .script(READ_KIFU, vec![])
        .await
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["current"] == json!(true))
        .filter_map(|r| r["ply"].as_u64())
        .collect();
    assert_eq!(current, [k as u64], "the clicked move is the current one");

    // The record links: the game's CSA and KIF files in the run folder, served as they are.
    let links = browser
        .script(
            "return [...document.querySelectorAll('#replay-records a')].map(a => \
             [a.dataset.format, a.getAttribute('href'), a.getAttribute('download')]);",
            vec![],
        )
        .await;
    let links: Vec<(String, String, String)> = serde_json::from_value(links).expect("links");
    let mut on_disk: Vec<String> = std::fs::read_dir(out.join("records"))
        .expect("records/")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.starts_with(&format!("{id:04}-")))
        .collect();
    on_disk.sort();
    let mut linked: Vec<String> = links.iter().map(|(_, _, file)| file.clone()).collect();
    linked.sort();
    assert_eq!(linked, on_disk, "a link per record file of the game");
    assert_eq!(
        links.iter().map(|(f, _, _)| f.as_str()).collect::<Vec<_>>(),
        ["csa", "kif"]
    );
    for (format, href, file) in &links {
        assert_eq!(href, &format!("/records/{file}"));
        let (status, head, body) = raw_get(served.addr(), href);
        assert_eq!(status, 200, "{href}");
        assert_eq!(
            body,
            std::fs::read(out.join("records").join(file)).expect("the record file"),
            "{href} is the file"
        );
        let charset = if file.ends_with(".kif") {
            "shift_jis"
        } else {
            "utf-8"
        };
        assert!(
            head.contains(&format!("content-type: text/plain; charset={charset}")),
            "{format}: {head}"
        );
    }

    // No path escapes the records: not `..` however written, not a file of the folder that is
    // no game's record, not an absolute path.
    let secret = "SECRET-OF-THE-FOLDER";
    std::fs::write(out.join("secret.txt"), secret).expect("write");
    std::fs::write(out.join("records").join("notes.txt"), secret).expect("write");
    for path in [
        "/records/../secret.txt",
        "/records/..%2Fsecret.txt",
        "/records/..%2fsecret.txt",
        "/records/%2e%2e%2fsecret.txt",
        "/records/%2E%2E%2Fsecret.txt",
        "/records/..%5Csecret.txt",
        "/records/..%252Fsecret.txt",
        "/records/notes.txt",
        "/records/.%2Fnotes.txt",
        "/records/%2Fetc%2Fpasswd",
        "/records//etc/passwd",
        "/records/..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/records/..",
        "/records/%2e%2e",
        "/records/run.json",
        "/records/..%2Frun.json",
    ] {
        let (status, _, body) = raw_get(served.addr(), path);
        assert_ne!(status, 200, "{path} was served");
        let body = String::from_utf8_lossy(&body);
        assert!(
            !body.contains(secret) && !body.contains("root:") && !body.contains("\"plan\""),
            "{path}: {body}"
        );
    }
    browser.close().await;
}
