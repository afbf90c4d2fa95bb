//! The documentation cannot drift from the programs. Every Markdown file of the repository is
//! held to the code it describes:
//!
//! - every relative link resolves to a file of the repository, and every `#anchor` to a heading
//!   of its target;
//! - the configuration reference (`docs/reference/config.md`) documents exactly the keys the
//!   config schema accepts, and every documented key passes `council-match --check` in one of
//!   the page's examples. The schema's key list comes from the program itself: a config with an
//!   unknown key is refused with serde's list of the keys that table accepts;
//! - every long flag a page shows for a program is in that program's `--help` (of the
//!   subcommand, where the page names one);
//! - no page cites a file outside the repository or an issue number;
//! - every config (`*.toml`) or shipped file (`configs/...`, `data/...`, `tests/...`) a command
//!   in a code block reads exists, from the repository root, where the README says to run them;
//! - every program of the workspace (every binary target of every member's Cargo.toml) has a row
//!   in README's program table, and is listed in the row of its crate in ARCHITECTURE.md's
//!   workspace table; neither table names a program no crate builds. The tests' own helpers
//!   (the `council-tests` package) are in ARCHITECTURE.md only.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use council_tests::{workspace_bin, workspace_root};

/// The programs whose flags the pages may show: every program of the workspace but the tests'
/// own helpers (checked against the Cargo.toml files by `the_flag_check_knows_every_program`).
const PROGRAMS: [&str; 10] = [
    "council-match",
    "council-tune",
    "council-elo",
    "council-usi",
    "council-csa",
    "council-analyze",
    "council-learn",
    "council-openings",
    "council-sim",
    "council-engine",
];

/// The package whose programs are the tests' own helpers, not programs for users.
const TEST_PACKAGE: &str = "council-tests";

/// The config reference, relative to the workspace root.
const CONFIG_DOC: &str = "docs/reference/config.md";

/// A key no table accepts: the probe that makes the program list the keys it does.
const BOGUS_KEY: &str = "zzz_not_a_key";

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("docs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

// ---------------------------------------------------------------------------------------------
// Markdown, as much of it as the checks need.

/// Every `*.md` of the repository, outside build output, virtual environments and run folders.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
            .map(|e| e.expect("a folder entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | ".venv" | ".git" | "runs" | "node_modules") {
                    walk(&path, out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&workspace_root(), &mut out);
    out
}

/// A fenced code block: its info string (`sh`, `toml`, ...), its first line number and text.
struct CodeBlock {
    lang: String,
    line: usize,
    text: String,
}

/// A Markdown file split into prose lines (1-based numbers; code blocks left out) and code blocks.
struct Page {
    path: PathBuf,
    prose: Vec<(usize, String)>,
    blocks: Vec<CodeBlock>,
}

impl Page {
    fn read(path: &Path) -> Page {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let mut prose = Vec::new();
        let mut blocks = Vec::new();
        let mut open: Option<(String, CodeBlock)> = None;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
            match (&mut open, fence) {
                (Some((f, _)), Some(_)) if trimmed.starts_with(f.as_str()) => {
                    let (_, block) = open.take().expect("an open block");
                    blocks.push(block);
                }
                (Some((_, block)), _) => {
                    block.text.push_str(line);
                    block.text.push('\n');
                }
                (None, Some(_)) => {
                    let marker: String = trimmed
                        .chars()
                        .take_while(|c| *c == '`' || *c == '~')
                        .collect();
                    let lang = trimmed[marker.len()..].trim().to_string();
                    open = Some((
                        marker,
                        CodeBlock {
                            lang,
                            line: i + 1,
                            text: String::new(),
                        },
                    ));
                }
                (None, None) => prose.push((i + 1, line.to_string())),
            }
        }
        assert!(
            open.is_none(),
            "{}: a code block is never closed",
            path.display()
        );
        Page {
            path: path.to_path_buf(),
            prose,
            blocks,
        }
    }

    fn name(&self) -> String {
        self.path
            .strip_prefix(workspace_root())
            .unwrap_or(&self.path)
            .display()
            .to_string()
    }

    /// The headings (level, text) in order.
    fn headings(&self) -> Vec<(usize, String)> {
        self.prose
            .iter()
            .filter_map(|(_, l)| {
                let level = l.chars().take_while(|c| *c == '#').count();
                (level > 0 && l[level..].starts_with(' '))
                    .then(|| (level, l[level..].trim().to_string()))
            })
            .collect()
    }
}

/// The inline code spans of a prose line.
fn code_spans(line: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        let close = "`".repeat(ticks);
        match after.find(&close) {
            Some(end) => {
                spans.push(after[..end].trim().to_string());
                rest = &after[end + ticks..];
            }
            None => break,
        }
    }
    spans
}

/// A prose line without its inline code spans (links inside code are not links).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        match after.find(&"`".repeat(ticks)) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The link targets of a prose line: `[text](target)`, `![alt](target)`, and reference
/// definitions `[label]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut targets = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(end) = trimmed.find("]:")
        && let Some(t) = trimmed[end + 2..].split_whitespace().next()
    {
        targets.push(t.to_string());
    }
    let mut rest = line.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.trim_matches(|c| c == '<' || c == '>').to_string());
        rest = &after[end.min(after.len())..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor of a page (repeated headings get `-1`, `-2`, ... as on GitHub).
fn anchors(page: &Page) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    for (_, h) in page.headings() {
        let s = slug(&h);
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// `base/target` with `.` and `..` folded, without touching the file system.
fn normalize(base: &Path, target: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(target).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// (a) Links.

/// Every broken relative link of `pages`, as `file:line: target: problem`.
fn broken_links(pages: &[Page]) -> Vec<String> {
    let root = workspace_root();
    let by_path: HashMap<PathBuf, &Page> = pages.iter().map(|p| (p.path.clone(), p)).collect();
    let mut problems = Vec::new();
    for page in pages {
        let dir = page.path.parent().expect("a file has a folder");
        for (n, line) in &page.prose {
            for target in link_targets(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target.as_str(), None),
                };
                let resolved = if file.is_empty() {
                    page.path.clone()
                } else {
                    normalize(dir, file)
                };
                let at = format!("{}:{n}: `{target}`", page.name());
                if !resolved.starts_with(&root) {
                    problems.push(format!("{at}: points outside the repository"));
                    continue;
                }
                if !resolved.exists() {
                    problems.push(format!("{at}: {} does not exist", resolved.display()));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let Some(target_page) = by_path.get(&resolved) else {
                        problems.push(format!("{at}: an anchor into a file that is not Markdown"));
                        continue;
                    };
                    if !anchors(target_page).contains(anchor) {
                        problems.push(format!(
                            "{at}: no heading of {} has the anchor #{anchor}",
                            target_page.name()
                        ));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_resolves() {
    let pages: Vec<Page> = markdown_files().iter().map(|p| Page::read(p)).collect();
    assert!(
        pages.iter().any(|p| p.name() == CONFIG_DOC)
            && pages.iter().any(|p| p.name() == "README.md"),
        "the walk finds the docs"
    );
    let problems = broken_links(&pages);
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn no_page_cites_outside_the_repository_or_an_issue() {
    let mut problems = Vec::new();
    for path in markdown_files() {
        let page = Page::read(&path);
        let text = std::fs::read_to_string(&path).expect("read");
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let issue = lower.match_indices("issue").any(|(at, w)| {
                let next = lower[at + w.len()..].trim_start().trim_start_matches('#');
                next.starts_with(|c: char| c.is_ascii_digit())
            });
            if line.contains("../shared") || line.contains("shared/spec") || issue {
                problems.push(format!("{}:{}: {line}", page.name(), i + 1));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "citations outside the repository:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// (b) Config keys.

/// The config tables, by the name the reference's key tables give them.
const TABLES: [&str; 10] = [
    "",
    "match",
    "match.draw",
    "match.resign",
    "match.sprt",
    "match.training",
    "player",
    "tune",
    "tune.param",
    "tune.simulate",
];

/// A config with [`BOGUS_KEY`] in `table`.
fn probe_config(table: &str) -> String {
    let bogus = format!("{BOGUS_KEY} = 1\n");
    match table {
        "" => format!("{bogus}[match]\nplayers = []\n"),
        "match" => format!("[match]\nplayers = []\n{bogus}"),
        "match.draw" => format!("[match]\nplayers = []\ndraw = {{ {BOGUS_KEY} = 1 }}\n"),
        "match.resign" => format!("[match]\nplayers = []\nresign = {{ {BOGUS_KEY} = 1 }}\n"),
        "match.sprt" => format!("[match]\nplayers = []\nsprt = {{ {BOGUS_KEY} = 1 }}\n"),
        "match.training" => format!("[match]\nplayers = []\ntraining = {{ {BOGUS_KEY} = 1 }}\n"),
        "player" => format!("[match]\nplayers = []\n[[player]]\n{bogus}"),
        "tune" => format!("[match]\nplayers = []\n[tune]\n{bogus}"),
        "tune.param" => format!("[match]\nplayers = []\n[[tune.param]]\n{bogus}"),
        "tune.simulate" => format!("[match]\nplayers = []\n[tune.simulate]\n{bogus}"),
        other => panic!("no probe for table {other:?}"),
    }
}

/// The keys `table` accepts, as `council-match --check` lists them when it refuses a bogus one.
fn schema_keys(dir: &Path, table: &str) -> BTreeSet<String> {
    let path = dir.join(format!(
        "probe-{}.toml",
        if table.is_empty() { "top" } else { table }
    ));
    std::fs::write(&path, probe_config(table)).expect("write probe");
    let out = Command::new(workspace_bin("council-match"))
        .arg(&path)
        .arg("--check")
        .output()
        .expect("run council-match");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "{}: the bogus key was accepted",
        path.display()
    );
    let unknown = format!("unknown key `{BOGUS_KEY}`");
    let at = stderr.find(&unknown).unwrap_or_else(|| {
        panic!(
            "{}: not refused as an unknown key: {stderr}",
            path.display()
        )
    });
    let list = &stderr[at + unknown.len()..];
    let list = list
        .split_once("(known:")
        .unwrap_or_else(|| panic!("{}: the error lists no keys: {stderr}", path.display()))
        .1;
    let keys: BTreeSet<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert!(!keys.is_empty(), "{}: no keys in {stderr}", path.display());
    keys
}

/// The keys the reference documents, per table: the first column of every table whose header's
/// first cell names the table (`` `[match]` key ``, `top-level key`).
fn documented_keys(page: &Page) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut table: Option<String> = None;
    let mut rows = page.prose.iter().peekable();
    while let Some((n, line)) = rows.next() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if !line.trim_start().starts_with('|') {
            table = None;
            continue;
        }
        let is_header = rows
            .peek()
            .is_some_and(|(_, next)| next.trim_start().starts_with("| ---"));
        if is_header {
            table = if cells[0] == "top-level key" {
                Some(String::new())
            } else if cells[0].ends_with(" key") {
                let spans = code_spans(cells[0]);
                let name = spans.first().unwrap_or_else(|| {
                    panic!("{}:{n}: a key table's header names no table", page.name())
                });
                Some(name.trim_matches(|c| c == '[' || c == ']').to_string())
            } else {
                None
            };
            rows.next(); // the separator
            continue;
        }
        if let Some(t) = &table {
            let key = code_spans(cells[0]);
            let key = key
                .first()
                .unwrap_or_else(|| panic!("{}:{n}: a key row without a `key`", page.name()));
            assert!(
                out.entry(t.clone()).or_default().insert(key.clone()),
                "{}:{n}: `{key}` documented twice in [{t}]",
                page.name()
            );
        }
    }
    out
}

/// The keys a config text sets, per table (`options`' own keys are USI option names, not keys).
fn keys_set(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let doc: toml::Table = toml::from_str(text).expect("an example is TOML");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add = |t: &str, k: &str| {
        out.entry(t.to_string()).or_default().insert(k.to_string());
    };
    for (k, v) in &doc {
        add("", k);
        match (k.as_str(), v) {
            ("match", toml::Value::Table(m)) => {
                for (mk, mv) in m {
                    add("match", mk);
                    if let ("draw" | "resign" | "sprt" | "training", toml::Value::Table(inner)) =
                        (mk.as_str(), mv)
                    {
                        for ik in inner.keys() {
                            add(&format!("match.{mk}"), ik);
                        }
                    }
                }
            }
            ("tune", toml::Value::Table(t)) => {
                for (tk, tv) in t {
                    add("tune", tk);
                    match (tk.as_str(), tv) {
                        ("param", toml::Value::Array(ps)) => {
                            for pk in ps
                                .iter()
                                .filter_map(toml::Value::as_table)
                                .flat_map(|p| p.keys())
                            {
                                add("tune.param", pk);
                            }
                        }
                        ("simulate", toml::Value::Table(sim)) => {
                            for sk in sim.keys() {
                                add("tune.simulate", sk);
                            }
                        }
                        _ => {}
                    }
                }
            }
            ("player", toml::Value::Array(players)) => {
                for p in players.iter().filter_map(toml::Value::as_table) {
                    for pk in p.keys() {
                        add("player", pk);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every problem of the config reference `page` against the program.
fn config_doc_problems(page: &Page, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let documented = documented_keys(page);
    for t in documented.keys() {
        if !TABLES.contains(&t.as_str()) {
            problems.push(format!(
                "a key table for [{t}], which the schema does not have"
            ));
        }
    }
    for t in TABLES {
        let schema = schema_keys(dir, t);
        let doc = documented.get(t).cloned().unwrap_or_default();
        for k in schema.difference(&doc) {
            problems.push(format!(
                "[{t}] `{k}`: accepted by the program, not documented"
            ));
        }
        for k in doc.difference(&schema) {
            problems.push(format!(
                "[{t}] `{k}`: documented, but the program refuses it"
            ));
        }
    }

    // The examples: each must pass --check, and together they must set every documented key.
    let shipped = std::fs::read_to_string(workspace_root().join("engine/scripts/openings.txt"))
        .expect("read engine/scripts/openings.txt");
    let openings: Vec<&str> = shipped
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(4)
        .collect();
    std::fs::write(dir.join("openings.txt"), openings.join("\n") + "\n").expect("write openings");
    // The book example's YaneuraOu book: two plies from the start.
    std::fs::write(
        dir.join("book.db"),
        "#YANEURAOU-DB2016 1.00\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
         7g7f 3c3d 50 20 7\n2g2f 8c8d 40 20 3\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n\
         3c3d none -50 20 5\n8c8d none -60 20 2\n",
    )
    .expect("write book");
    // The candidate-model example's model file: an empty model is a valid one.
    let model = engine::intuition::Model::new(engine::intuition::LearnOptions::default());
    std::fs::write(dir.join("intuition.model"), model.to_bytes()).expect("write model");
    let bin_dir = workspace_bin("council-engine")
        .parent()
        .expect("binaries live in a folder")
        .to_path_buf();
    let path_var = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    let mut covered: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let examples: Vec<&CodeBlock> = page.blocks.iter().filter(|b| b.lang == "toml").collect();
    if examples.is_empty() {
        problems.push("no ```toml example".into());
    }
    for (i, block) in examples.into_iter().enumerate() {
        let path = dir.join(format!("example-{i}.toml"));
        std::fs::write(&path, &block.text).expect("write example");
        let out = Command::new(workspace_bin("council-match"))
            .arg(&path)
            .arg("--check")
            .env("PATH", &path_var)
            .current_dir(dir)
            .output()
            .expect("run council-match");
        if !out.status.success() {
            problems.push(format!(
                "the example at line {} fails --check: {}",
                block.line,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        for (t, keys) in keys_set(&block.text) {
            covered.entry(t).or_default().extend(keys);
        }
    }
    for (t, keys) in &documented {
        for k in keys.difference(&covered.get(t).cloned().unwrap_or_default()) {
            problems.push(format!(
                "[{t}] `{k}`: documented, but set by no example that passes --check"
            ));
        }
    }
    problems
}

#[test]
fn the_config_reference_documents_exactly_the_accepted_keys() {
    let page = Page::read(&workspace_root().join(CONFIG_DOC));
    let problems = config_doc_problems(&page, &scratch("config"));
    assert!(
        problems.is_empty(),
        "{CONFIG_DOC} and the config schema disagree:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// (c) Flags.

/// What each program's `--help` (and each subcommand's) accepts.
struct Helps {
    /// (program, subcommand or "") -> long flags without the dashes.
    flags: HashMap<(String, String), BTreeSet<String>>,
    /// program -> its subcommands.
    subcommands: HashMap<String, Vec<String>>,
}

/// The long options of a `--help` text: the flags that begin an option line.
fn help_flags(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            // `-q, --quiet`: the long form after the short one.
            let l = match l.as_bytes() {
                [b'-', c, b',', b' ', ..] if *c != b'-' => &l[4..],
                _ => l,
            };
            let name = l.strip_prefix("--")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            (end > 0).then(|| name[..end].to_string())
        })
        .collect()
}

/// The subcommands a top-level `--help` lists under `Commands:`.
fn help_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .map(str::to_string)
        .collect()
}

impl Helps {
    fn load() -> Helps {
        let help = |program: &str, sub: Option<&str>| -> String {
            let mut cmd = Command::new(workspace_bin(program));
            cmd.args(sub).arg("--help");
            let out = cmd.output().expect("run --help");
            assert!(out.status.success(), "{program} {sub:?} --help failed");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let mut flags = HashMap::new();
        let mut subcommands = HashMap::new();
        for p in PROGRAMS {
            let top = help(p, None);
            flags.insert((p.to_string(), String::new()), help_flags(&top));
            let subs = help_subcommands(&top);
            for s in &subs {
                flags.insert((p.to_string(), s.clone()), help_flags(&help(p, Some(s))));
            }
            subcommands.insert(p.to_string(), subs);
        }
        Helps { flags, subcommands }
    }

    /// Whether `program` (its subcommand `sub`, or any subcommand when `None`) accepts `--flag`.
    fn accepts(&self, program: &str, sub: Option<&str>, flag: &str) -> bool {
        let has = |s: &str| {
            self.flags
                .get(&(program.to_string(), s.to_string()))
                .is_some_and(|f| f.contains(flag))
        };
        match sub {
            Some(s) => has(s) || has(""),
            None => has("") || self.subcommands[program].iter().any(|s| has(s)),
        }
    }
}

/// The long flags written in `text`: `--name` at the start or after a space, bracket, slash or bar.
fn flags_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before_ok =
            start == 0 || matches!(bytes[start - 1], b' ' | b'[' | b'(' | b'/' | b'|' | b'\t');
        let name: String = text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if before_ok && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push(name.trim_end_matches('-').to_string());
        }
        i = start + 2 + name.len();
    }
    out
}

/// The program a command's first word runs, and the words after it that are its own: `council-x
/// ...`, `target/release/council-x ...`, or `cargo run ... --bin council-x -- ...`.
fn command_program(words: &[&str]) -> Option<(&'static str, usize)> {
    let mut i = 0;
    while i < words.len()
        && ((words[i].contains('=') && !words[i].starts_with('-'))
            || matches!(words[i], "do" | "then" | "time" | "exec" | "nice" | "sudo"))
    {
        i += 1;
    }
    let first = *words.get(i)?;
    let base = first.rsplit('/').next().unwrap_or(first);
    if let Some(p) = PROGRAMS.into_iter().find(|p| *p == base) {
        return Some((p, i + 1));
    }
    if first == "cargo" && words.get(i + 1) == Some(&"run") {
        let bin = words.iter().position(|w| *w == "--bin")?;
        let p = PROGRAMS
            .into_iter()
            .find(|p| Some(p) == words.get(bin + 1))?;
        let args = words
            .iter()
            .position(|w| *w == "--")
            .map_or(words.len(), |a| a + 1);
        return Some((p, args));
    }
    None
}

/// Split a shell line into commands at `;`, `&&`, `||` and pipes (a `|` inside brackets is a
/// usage line's alternative, not a pipe).
fn shell_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if depth <= 0 && (two == "&&" || two == "||") {
            out.push(std::mem::take(&mut current));
            i += 2;
            continue;
        }
        if depth <= 0 && (c == ';' || c == '|') {
            out.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
        i += 1;
    }
    out.push(current);
    out
}

/// A shell line without its comment.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        if c == '#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            return &line[..i];
        }
    }
    line
}

/// The command lines of a code block: continuation lines (a trailing `\`, or an indented line
/// that starts with `[` or `-`, as usage lines wrap) joined to the line they continue.
fn command_lines(block: &CodeBlock) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut continues = false;
    for (i, raw) in block.text.lines().enumerate() {
        let line = strip_comment(raw);
        let indented_option =
            raw.starts_with(' ') && matches!(line.trim_start().chars().next(), Some('[' | '-'));
        let text = line.trim_end().trim_end_matches('\\').to_string();
        match out.last_mut() {
            Some((_, last)) if continues || indented_option => {
                last.push(' ');
                last.push_str(text.trim());
            }
            _ => out.push((block.line + 1 + i, text)),
        }
        continues = line.trim_end().ends_with('\\');
    }
    out
}

/// The programs a page is about: those named in code in its first heading.
fn page_programs(page: &Page) -> Vec<&'static str> {
    let Some((1, h1)) = page.headings().into_iter().next() else {
        return Vec::new();
    };
    code_spans(&h1)
        .iter()
        .filter_map(|s| s.split_whitespace().next())
        .filter_map(|w| PROGRAMS.into_iter().find(|p| *p == w))
        .collect()
}

/// Every flag a page shows that its program does not accept, as `file:line: ...`.
fn unknown_flags(page: &Page, helps: &Helps) -> Vec<String> {
    let mut problems = Vec::new();
    let check_command = |n: usize, words: &[&str], program: &str, from: usize| -> Vec<String> {
        let rest = words.get(from..).unwrap_or(&[]);
        let sub = rest
            .iter()
            .find(|w| helps.subcommands[program].iter().any(|s| s == *w))
            .copied();
        flags_in(&rest.join(" "))
            .into_iter()
            .filter(|flag| !helps.accepts(program, sub, flag))
            .map(|flag| {
                format!(
                    "{}:{n}: `{program}{}` has no --{flag}",
                    page.name(),
                    sub.map(|s| format!(" {s}")).unwrap_or_default()
                )
            })
            .collect()
    };
    // Commands in code blocks.
    for block in page
        .blocks
        .iter()
        .filter(|b| !matches!(b.lang.as_str(), "toml" | "json"))
    {
        for (n, line) in command_lines(block) {
            for command in shell_commands(&line) {
                let words: Vec<&str> = command.split_whitespace().collect();
                if let Some((program, from)) = command_program(&words) {
                    problems.extend(check_command(n, &words, program, from));
                }
            }
        }
    }
    // Commands and bare flags in inline code. A bare flag (`--resume`), or a subcommand with its
    // flags (`moves --complexity`), belongs to the program the page is about, if it is about one.
    let about = page_programs(page);
    for (n, line) in &page.prose {
        for span in code_spans(line) {
            let words: Vec<&str> = span.split_whitespace().collect();
            if let Some((program, from)) = command_program(&words) {
                problems.extend(check_command(*n, &words, program, from));
            } else if span.starts_with("--") && !about.is_empty() {
                for flag in flags_in(&span) {
                    if !about.iter().any(|p| helps.accepts(p, None, &flag)) {
                        problems.push(format!(
                            "{}:{n}: no --{flag} in {}",
                            page.name(),
                            about.join(", ")
                        ));
                    }
                }
            } else if let Some(program) = about.iter().find(|p| {
                words
                    .first()
                    .is_some_and(|w| helps.subcommands[**p].iter().any(|s| s == w))
            }) {
                problems.extend(check_command(*n, &words, program, 0));
            }
        }
    }
    problems
}

/// The files a command in a code block reads that do not exist from the repository root: every
/// `*.toml` word (a program's config) and every word under `configs/`, `data/` or `tests/`, but
/// not the value of an option that names what the program writes (`--out` and the like) or a
/// placeholder in capitals or angle brackets.
fn missing_inputs(page: &Page, root: &Path) -> Vec<String> {
    const WRITES: [&str; 6] = [
        "--out",
        "--svg",
        "--csv",
        "--log",
        "--calibration-out",
        "-o",
    ];
    let mut problems = Vec::new();
    for block in page
        .blocks
        .iter()
        .filter(|b| !matches!(b.lang.as_str(), "toml" | "json"))
    {
        for (n, line) in command_lines(block) {
            for command in shell_commands(&line) {
                let words: Vec<&str> = command.split_whitespace().collect();
                let Some((program, from)) = command_program(&words) else {
                    continue;
                };
                for (i, word) in words.iter().enumerate().skip(from) {
                    let word = word.trim_matches(|c| c == '"' || c == '\'');
                    let word = word.split_once('=').map_or(word, |(_, v)| v);
                    let written = i > 0 && WRITES.contains(&words[i - 1]);
                    let placeholder = word.contains('<')
                        || word.contains('*')
                        || word.contains('$')
                        || word.chars().any(|c| c.is_ascii_uppercase());
                    let word = word.split_once(':').map_or(word, |(path, _)| path);
                    let input = word.ends_with(".toml")
                        || ["configs/", "data/", "tests/"]
                            .iter()
                            .any(|d| word.starts_with(d));
                    if !input || written || placeholder {
                        continue;
                    }
                    for path in brace_expansion(word) {
                        if !root.join(&path).exists() {
                            problems.push(format!(
                                "{}:{n}: `{program}` reads {path}, which is not in the \
                                 repository (commands run from its root)",
                                page.name()
                            ));
                        }
                    }
                }
            }
        }
    }
    problems
}

/// A shell word's paths: `a{1,2}b` is `a1b` and `a2b` (one group, as the pages write them).
fn brace_expansion(word: &str) -> Vec<String> {
    match (word.find('{'), word.find('}')) {
        (Some(open), Some(close)) if open < close => word[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{alt}{}", &word[..open], &word[close + 1..]))
            .collect(),
        _ => vec![word.to_string()],
    }
}

#[test]
fn every_file_a_command_reads_is_in_the_repository() {
    let root = workspace_root();
    let problems: Vec<String> = markdown_files()
        .iter()
        .map(|p| Page::read(p))
        .flat_map(|page| missing_inputs(&page, &root))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_flag_the_pages_show_is_in_the_programs_help() {
    let helps = Helps::load();
    assert!(
        helps.accepts("council-analyze", Some("moves"), "complexity")
            && !helps.accepts("council-analyze", Some("ir"), "complexity"),
        "the help parser reads subcommands apart"
    );
    let mut problems = Vec::new();
    for path in markdown_files() {
        problems.extend(unknown_flags(&Page::read(&path), &helps));
    }
    assert!(
        problems.is_empty(),
        "flags no program accepts:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// (d) Programs.

/// A binary target of the workspace: its name, the package that builds it and that package's
/// manifest (relative to the workspace root).
struct Bin {
    name: String,
    package: String,
    manifest: String,
}

/// Every binary target of every workspace member, as cargo sees them: the `[[bin]]` tables of
/// its Cargo.toml, and the files cargo finds by itself (`src/main.rs`, `src/bin/*.rs`,
/// `src/bin/*/main.rs`) unless the package says `autobins = false`.
fn workspace_bins() -> Vec<Bin> {
    let root = workspace_root();
    let read = |path: &Path| -> toml::Table {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let workspace = read(&root.join("Cargo.toml"));
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("[workspace] members is a list");
    let mut bins = Vec::new();
    for member in members {
        let member = member.as_str().expect("a member is a path");
        let dir = root.join(member);
        let manifest = read(&dir.join("Cargo.toml"));
        let package = &manifest["package"];
        let name = package["name"].as_str().expect("package.name").to_string();
        let mut declared: Vec<(String, Option<PathBuf>)> = manifest
            .get("bin")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .map(|b| {
                let bin = b["name"].as_str().expect("[[bin]] name").to_string();
                (
                    bin,
                    b.get("path").and_then(|p| p.as_str()).map(|p| dir.join(p)),
                )
            })
            .collect();
        if package.get("autobins").and_then(toml::Value::as_bool) != Some(false) {
            let mut found: Vec<(String, PathBuf)> = Vec::new();
            if dir.join("src/main.rs").exists() {
                found.push((name.clone(), dir.join("src/main.rs")));
            }
            if let Ok(entries) = std::fs::read_dir(dir.join("src/bin")) {
                for entry in entries {
                    let path = entry.expect("a folder entry").path();
                    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                    if path.extension().is_some_and(|e| e == "rs") {
                        found.push((stem.to_string(), path.clone()));
                    } else if path.join("main.rs").exists() {
                        found.push((stem.to_string(), path.join("main.rs")));
                    }
                }
            }
            for (bin, path) in found {
                let known = declared
                    .iter()
                    .any(|(n, p)| *n == bin || p.as_ref() == Some(&path));
                if !known {
                    declared.push((bin, Some(path)));
                }
            }
        }
        for (bin, _) in declared {
            bins.push(Bin {
                name: bin,
                package: name.clone(),
                manifest: format!("{member}/Cargo.toml"),
            });
        }
    }
    bins.sort_by(|a, b| a.name.cmp(&b.name));
    bins
}

/// The cells of a table row, split at the `|`s outside code spans.
fn table_cells(line: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut in_code = false;
    for c in line.trim().chars() {
        match c {
            '`' => {
                in_code = !in_code;
                cell.push(c);
            }
            '|' if !in_code => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    // The leading and trailing pipes leave an empty cell at each end.
    if cells.first().is_some_and(String::is_empty) {
        cells.remove(0);
    }
    if cells.last().is_some_and(String::is_empty) {
        cells.pop();
    }
    cells
}

/// The first table under the heading `heading` of `page` (before the next heading): its header
/// row, then its rows, as cells.
fn table_under(page: &Page, heading: &str) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut under = false;
    for (_, line) in &page.prose {
        let level = line.chars().take_while(|c| *c == '#').count();
        if level > 0 && line[level..].starts_with(' ') {
            if under {
                break;
            }
            under = line[level..].trim() == heading;
            continue;
        }
        if !under {
            continue;
        }
        if line.trim_start().starts_with('|') {
            let cells = table_cells(line);
            let rule = cells.iter().all(|c| {
                let c = c.trim_matches(':');
                !c.is_empty() && c.chars().all(|ch| ch == '-')
            });
            if !rule {
                rows.push(cells);
            }
        } else if !rows.is_empty() {
            break;
        }
    }
    assert!(
        !rows.is_empty(),
        "{}: no table under the heading `{heading}`",
        page.name()
    );
    rows
}

/// The cells of `column` (named in the header row) of a table, one per row, as code spans.
fn column(page: &Page, table: &[Vec<String>], column: &str) -> Vec<Vec<String>> {
    let at = table[0]
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("{}: the table has no column `{column}`", page.name()));
    table[1..]
        .iter()
        .map(|row| row.get(at).map(|c| code_spans(c)).unwrap_or_default())
        .collect()
}

/// Every way README's program table and ARCHITECTURE.md's workspace table disagree with the
/// programs the Cargo.toml files build.
fn program_list_problems(readme: &Page, architecture: &Page, bins: &[Bin]) -> Vec<String> {
    let mut problems = Vec::new();
    let all: BTreeSet<&str> = bins.iter().map(|b| b.name.as_str()).collect();

    // README: one row per program for users, its name in the first column.
    let table = table_under(readme, "Programs");
    let listed: BTreeSet<String> = column(readme, &table, "program")
        .into_iter()
        .flatten()
        .collect();
    for bin in bins.iter().filter(|b| b.package != TEST_PACKAGE) {
        if !listed.contains(&bin.name) {
            problems.push(format!(
                "README.md's program table (## Programs) has no row for `{}`, a program of {}",
                bin.name, bin.manifest
            ));
        }
    }
    for name in &listed {
        if !all.contains(name.as_str()) {
            problems.push(format!(
                "README.md's program table lists `{name}`, which no Cargo.toml builds"
            ));
        }
    }

    // ARCHITECTURE.md: each program in the row of the crate that builds it.
    let table = table_under(architecture, "The workspace");
    let crates = column(architecture, &table, "crate");
    let programs = column(architecture, &table, "programs");
    let row_of = |package: &str| crates.iter().position(|c| c.iter().any(|s| s == package));
    for bin in bins {
        match row_of(&bin.package) {
            None => problems.push(format!(
                "ARCHITECTURE.md's workspace table has no row for crate `{}`, which builds `{}`",
                bin.package, bin.name
            )),
            Some(row) if !programs[row].contains(&bin.name) => problems.push(format!(
                "ARCHITECTURE.md's workspace table does not list `{}` in the row of `{}` ({})",
                bin.name, bin.package, bin.manifest
            )),
            Some(_) => {}
        }
    }
    for (row, names) in programs.iter().enumerate() {
        for name in names {
            let builds = bins
                .iter()
                .any(|b| b.name == *name && crates[row].contains(&b.package));
            if !builds {
                problems.push(format!(
                    "ARCHITECTURE.md's workspace table lists `{name}` under {:?}, which does not build it",
                    crates[row]
                ));
            }
        }
    }
    problems
}

#[test]
fn every_program_is_in_the_readme_and_the_architecture() {
    let bins = workspace_bins();
    assert!(
        bins.iter().any(|b| b.name == "council-match") && bins.iter().any(|b| b.name == "mock-usi"),
        "the manifests' walk finds the programs"
    );
    let root = workspace_root();
    let readme = Page::read(&root.join("README.md"));
    let architecture = Page::read(&root.join("ARCHITECTURE.md"));
    let problems = program_list_problems(&readme, &architecture, &bins);
    assert!(
        problems.is_empty(),
        "the program lists disagree with the Cargo.toml files:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_flag_check_knows_every_program() {
    let built: BTreeSet<String> = workspace_bins()
        .into_iter()
        .filter(|b| b.package != TEST_PACKAGE)
        .map(|b| b.name)
        .collect();
    let known: BTreeSet<String> = PROGRAMS.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        built, known,
        "PROGRAMS (the programs whose flags the pages may show) must be the workspace's programs"
    );
}

#[test]
fn the_program_list_check_names_what_is_missing() {
    let dir = scratch("programs");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        Page::read(&path)
    };
    let readme = write(
        "README.md",
        "# x\n\n## Programs\n\n| program | what |\n| --- | --- |\n| `council-a` | a |\n| `council-z` | z |\n\n## Next\n",
    );
    let architecture = write(
        "ARCHITECTURE.md",
        "# x\n\n## The workspace\n\n| folder | crate | programs |\n| --- | --- | --- |\n| `a/` | `a` | `council-a`, `council-b` |\n",
    );
    let bin = |name: &str, package: &str| Bin {
        name: name.into(),
        package: package.into(),
        manifest: format!("{package}/Cargo.toml"),
    };
    let bins = [
        bin("council-a", "a"),
        bin("council-b", "b"),
        bin("council-c", "a"),
    ];
    let problems = program_list_problems(&readme, &architecture, &bins).join("\n");
    for missing in [
        "no row for `council-b`",
        "no row for `council-c`",
        "lists `council-z`, which no Cargo.toml builds",
        "no row for crate `b`, which builds `council-b`",
        "does not list `council-c` in the row of `a`",
        "lists `council-b` under [\"a\"], which does not build it",
    ] {
        assert!(
            problems.contains(missing),
            "{missing:?} not in:\n{problems}"
        );
    }
}
