//! Real games for a tune: θ± written into copies of the tuned player's config ([`apply`]), and the
//! iteration's games played by the one game scheduler ([`Scheduler`], its engines kept from game
//! to game and re-parameterised in place: [`crate::game::pool`]), each finished game appended
//! to `DIR/games.jsonl` by the one results writer ([`ResultsWriter`]) as it ends, so an
//! interrupted iteration replays only its unfinished games.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::TuneError;
use super::plan::{minus_name, plus_name};
use crate::game::scheduler::Scheduler;
use council_players::player::engine_log::EngineLog;
use council_schema::config::{
    Config, OptionValue, ParamKey, ParamTarget, PlayerConfig, PlayerKind, TuneConfig,
};
use council_schema::results::append::ResultsWriter;
use council_schema::results::read::{self, Malformed, Policy, Repeats, TornTail};
use council_schema::results::{GameResult, Winner};
use council_schema::run::schedule::GameSpec;

/// `config` with two more players: the tuned player as θ+ and as θ− (named by
/// [`plus_name`] and [`minus_name`]), each with its own copies of its members (named with the
/// same `+` or `-`), the parameters' values written in (integers rounded there).
pub fn iteration_config(config: &Config, tune: &TuneConfig, plus: &[f64], minus: &[f64]) -> Config {
    let mut out = config.clone();
    for (suffix, values) in [("+", plus), ("-", minus)] {
        let mut tree = BTreeSet::new();
        subtree(config, &tune.player, &mut tree);
        let renamed = |n: &str| format!("{n}{suffix}");
        for name in &tree {
            let mut p: PlayerConfig = config.player(name).clone();
            p.name = renamed(name);
            if let PlayerKind::Council(c) = &mut p.kind {
                for m in c.members.iter_mut() {
                    *m = renamed(m);
                }
            }
            out.players.insert(p.name.clone(), p);
        }
        for (param, &v) in tune.params.iter().zip(values) {
            if let Some(p) = out.players.get_mut(&renamed(&param.target.player)) {
                apply(&param.target, p, v);
            }
        }
    }
    debug_assert!(out.players.contains_key(&plus_name(tune)));
    debug_assert!(out.players.contains_key(&minus_name(tune)));
    out
}

/// Every `options.NAME` parameter of a USI player must be a `spin` its engine declares: the
/// engine is asked (its `usi` handshake) before any game, and the first that is not is one line
/// naming the parameter's key.
pub async fn check_declared_spins(config: &Config, tune: &TuneConfig) -> Result<(), TuneError> {
    let mut asked: BTreeMap<String, Vec<engine::usi::protocol::OptionSpec>> = BTreeMap::new();
    for (i, p) in tune.params.iter().enumerate() {
        let ParamKey::UsiOption(option) = &p.target.key else {
            continue;
        };
        let player = config.player(&p.target.player);
        let PlayerKind::Usi(settings) = &player.kind else {
            continue;
        };
        if !asked.contains_key(&player.name) {
            let specs =
                council_players::factory::declared_options(config, &player.name, settings).await?;
            asked.insert(player.name.clone(), specs);
        }
        let declared = asked.get(&player.name).map_or(&[][..], Vec::as_slice);
        let problem = match declared.iter().find(|s| s.name == *option) {
            Some(s) if matches!(s.kind, engine::usi::protocol::OptionKind::Spin { .. }) => continue,
            Some(_) => format!("declares `{option}`, but not as a spin"),
            None => format!("declares no option `{option}`"),
        };
        return Err(TuneError::Preflight(format!(
            "{}: key `tune.param[{i}].path`: `{}`: the engine of `{}` {problem}",
            config.file.display(),
            p.path,
            player.name
        )));
    }
    Ok(())
}

/// Set `target`'s key of `player` (the target player's config) to `value`, rounded when the
/// key holds whole numbers. The value is already within the parameter's [min, max].
pub fn apply(target: &ParamTarget, player: &mut PlayerConfig, value: f64) {
    let whole = value.round().max(0.0) as u64;
    let small = u32::try_from(whole).unwrap_or(u32::MAX);
    let l = &mut player.limits;
    match (&target.key, &mut player.kind) {
        (ParamKey::Nodes, _) => l.nodes = Some(whole.max(1)),
        (ParamKey::Depth, _) => l.depth = Some(small.max(1)),
        (ParamKey::MovetimeMs, _) => l.movetime_ms = Some(whole.max(1)),
        (ParamKey::TimeMs, _) => l.time_ms = Some(whole),
        (ParamKey::ByoyomiMs, _) => l.byoyomi_ms = Some(whole),
        (ParamKey::IncrementMs, _) => l.increment_ms = Some(whole),
        (ParamKey::MoveTimeoutMs, _) => player.move_timeout_ms = whole.max(1),
        (ParamKey::WinRateT, _) => player.win_rate_t = value,
        (ParamKey::Sigma, _) => player.sigma = value,
        (ParamKey::NoiseCp, PlayerKind::Internal(s)) => s.noise_cp = small,
        (ParamKey::HashMb, PlayerKind::Internal(s)) => s.hash_mb = small.max(1),
        (ParamKey::Temperature, PlayerKind::Intuition(s)) => s.temperature = value,
        (ParamKey::MlD, PlayerKind::Council(c)) => c.ml_d = value,
        (ParamKey::ApprovalK, PlayerKind::Council(c)) => c.approval_k = (whole as usize).max(1),
        (ParamKey::Weight(at), PlayerKind::Council(c)) => {
            for &i in at {
                c.weights[i] = value;
            }
        }
        (ParamKey::UsiOption(name), PlayerKind::Usi(settings)) => {
            let v = OptionValue::Int(value.round() as i64);
            match settings.options.iter_mut().find(|(n, _)| n == name) {
                Some((_, old)) => *old = v,
                None => settings.options.push((name.clone(), v)),
            }
        }
        (ParamKey::UsiOption(name), PlayerKind::Internal(s)) => {
            // Validation kept [min, max] inside the option's range.
            let _ = s.options.set(name, value.round() as i64);
        }
        // Validation made sure the key belongs to the player's kind.
        _ => {}
    }
}

/// `name` and every player below it (council members, recursively).
fn subtree(config: &Config, name: &str, out: &mut BTreeSet<String>) {
    if !out.insert(name.to_string()) {
        return;
    }
    if let Some(c) = config.player(name).kind.council() {
        for m in &c.members {
            subtree(config, m, out);
        }
    }
}

/// The games already in `games.jsonl` (an interrupted tune's), by id, and where its complete
/// lines end. A missing or empty file holds none; so does a special file in its place
/// (`/dev/full`, whose length is 0 and which reads as endless zeros).
pub fn finished_games(path: &Path) -> Result<(BTreeMap<u64, GameResult>, Option<u64>), TuneError> {
    if !std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
        return Ok((BTreeMap::new(), None));
    }
    let read = read::read(
        &[path.to_path_buf()],
        Policy {
            torn_tail: TornTail::Skip,
            malformed: Malformed::Fail,
            repeats: Repeats::FirstOfEachId,
        },
    )?;
    let len = read.files.first().map(|f| f.complete_len);
    Ok((read.games.into_iter().map(|g| (g.id, g)).collect(), len))
}

/// Play `specs` under `config` (an [`iteration_config`]) on `scheduler` (its pool re-parameterises
/// the kept engines), appending each finished game to `writer`. Returns the winners by id; a
/// game cancelled before its end is missing. The engine log (`engine_log`, when the tune keeps
/// one) failing a write stops the games as `writer` failing does, the game that found it kept.
pub async fn play(
    config: Config,
    specs: Vec<GameSpec>,
    scheduler: &Scheduler,
    writer: &mut ResultsWriter,
    engine_log: Option<&EngineLog>,
    cancel: &CancellationToken,
    mut on_game: impl FnMut(),
) -> Result<BTreeMap<u64, Winner>, TuneError> {
    let mut games = scheduler.play(Arc::new(config), specs, cancel);
    let mut winners = BTreeMap::new();
    while let Some(g) = games.next().await {
        let kept = writer
            .append(&g.result)
            .map_err(|e| TuneError::io(writer.path(), e))
            .and_then(|()| TuneError::engine_log_whole(engine_log));
        if let Err(e) = kept {
            cancel.cancel();
            games.close().await;
            return Err(e);
        }
        winners.insert(g.result.id, g.result.result);
        on_game();
    }
    Ok(winners)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_gets_its_own_copy_of_the_tree_with_its_values() {
        let text = "[match]\nplayers = [\"c\", \"x\"]\n\
            [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\nnoise_cp = 7\n\
            [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n\
            [[player]]\nname = \"c\"\nkind = \"council\"\nmembers = [\"a\", \"b\"]\nmethod = \"ml\"\n\
            [[player]]\nname = \"x\"\nkind = \"internal\"\nnodes = 10\n\
            [tune]\nplayer = \"c\"\niterations = 3\n\
            [[tune.param]]\npath = \"members.a.noise_cp\"\nstart = 5\nmin = 0\nmax = 10\nc_end = 1\nr_end = 0.1\n\
            [[tune.param]]\npath = \"ml_d\"\nstart = 50\nmin = 1\nmax = 500\nc_end = 1\nr_end = 0.1\n";
        let config = Config::parse(Path::new("t.toml"), text).expect("valid");
        let tune = config.tune.clone().expect("[tune]");
        let c = iteration_config(&config, &tune, &[3.4, 60.5], &[8.6, 40.0]);
        let noise = |n: &str| match &c.player(n).kind {
            PlayerKind::Internal(s) => s.noise_cp,
            _ => panic!("{n} is internal"),
        };
        let council = |n: &str| match &c.player(n).kind {
            PlayerKind::Council(c) => (c.members.clone(), c.ml_d),
            _ => panic!("{n} is a council"),
        };
        assert_eq!((noise("a+"), noise("a-"), noise("a")), (3, 9, 7));
        assert_eq!(
            council("c+"),
            (vec!["a+".to_string(), "b+".to_string()], 60.5)
        );
        assert_eq!(
            council("c-"),
            (vec!["a-".to_string(), "b-".to_string()], 40.0)
        );
        assert_eq!(
            council("c").1,
            100.0,
            "the config's own player is untouched"
        );
    }
}
