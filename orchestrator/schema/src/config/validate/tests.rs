//! The validation's checks, each by the one-line message a bad config gets.

use std::path::Path;

use super::super::{
    Config, ConfigError, CouncilSettings, DrawRule, DropNotation, Fairness, Format,
    InternalSettings, Method, Openings, PlayerKind, ResignRule,
};
use engine::intuition::Setting;

mod basics {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("test.toml"), text)
    }

    const BASE: &str = r#"
[match]
players = ["council", "single"]
games = 4

[[player]]
name = "single"
kind = "internal"
nodes = 1000

[[player]]
name = "a"
kind = "internal"

[[player]]
name = "council"
kind = "council"
members = ["a", "single"]
nodes = 1000
"#;

    #[test]
    fn a_valid_config_parses_with_defaults() {
        let c = parse(BASE).expect("valid");
        assert_eq!(c.format, Format::HeadToHead);
        assert_eq!(c.games, 4);
        assert_eq!(c.max_plies, 320);
        assert_eq!(c.openings, Openings::Single("startpos".into()));
        match &c.player("council").kind {
            PlayerKind::Council(CouncilSettings {
                method, fairness, ..
            }) => {
                assert_eq!(*method, Method::Majority);
                assert_eq!(*fairness, Fairness::Full);
            }
            k => panic!("{k:?}"),
        }
    }

    fn one_line_error(text: &str) -> String {
        let e = parse(text).expect_err("must fail").to_string();
        assert!(!e.contains('\n'), "error is one line: {e}");
        assert!(e.starts_with("test.toml: "), "error names the file: {e}");
        e
    }

    /// An internal player takes the engine's tunable options by their USI names; an unknown
    /// name, a value out of range or a non-number is refused naming the option.
    #[test]
    fn internal_options_are_the_engines_tunables() {
        let with = |opts: &str| {
            BASE.replace(
                "nodes = 1000\n\n[[player]]\nname = \"a\"",
                &format!("nodes = 1000\noptions = {{ {opts} }}\n\n[[player]]\nname = \"a\""),
            )
        };
        let c = parse(&with("Eval_Silver = 200, search_rfpmargin = 90")).expect("valid");
        let PlayerKind::Internal(InternalSettings { options, .. }) = &c.player("single").kind
        else {
            panic!("internal");
        };
        assert_eq!(options.get("Eval_Silver"), Some(200));
        assert_eq!(options.get("Search_RfpMargin"), Some(90));
        assert_eq!(options.get("Eval_Gold"), Some(540));
        let e = one_line_error(&with("Eval_Queen = 900"));
        assert!(
            e.contains("player[0].options.Eval_Queen") && e.contains("unknown option"),
            "{e}"
        );
        let e = one_line_error(&with("Eval_Silver = 5000"));
        assert!(
            e.contains("player[0].options.Eval_Silver") && e.contains("outside [0, 4000]"),
            "{e}"
        );
        let e = one_line_error(&with("Eval_Silver = \"lots\""));
        assert!(
            e.contains("player[0].options.Eval_Silver") && e.contains("whole number"),
            "{e}"
        );
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodez = 1\n\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("nodez"), "{e}");
        assert!(e.contains("line "), "{e}");
    }

    /// A misspelt key or value names the closest known one, not the table's every key.
    #[test]
    fn a_misspelt_key_or_value_names_the_closest() {
        let e = one_line_error(&BASE.replacen("nodes = 1000", "node = 1000", 1));
        assert!(
            e.contains("unknown key `node`: did you mean `nodes`?"),
            "{e}"
        );
        assert!(!e.contains("`sigma`"), "no list of every key: {e}");
        let e = one_line_error(&BASE.replace("[match]", "[match]\nformat = \"round-robbin\""));
        assert!(
            e.contains("unknown value `round-robbin`: did you mean `round-robin`?"),
            "{e}"
        );
        // A path of the config is shown where it was looked for: absolute, `..` folded.
        let text = BASE.replace(
            "[match]",
            "[match]\nopenings = \"../no-such-openings.sfen\"",
        );
        let e = Config::parse(Path::new("configs/test.toml"), &text)
            .expect_err("no such file")
            .to_string();
        let looked = std::env::current_dir()
            .expect("a working folder")
            .join("no-such-openings.sfen");
        assert!(
            e.contains(&format!("cannot read {}:", looked.display())),
            "{e}"
        );
        let e = one_line_error(&BASE.replace("[match]", "[match]\nzzzzzzzz = 1"));
        assert!(
            e.contains("unknown key `zzzzzzzz`") && e.contains("`players`"),
            "nothing close: the known keys are listed: {e}"
        );
    }

    #[test]
    fn unknown_player_in_match_is_rejected() {
        let e =
            one_line_error(&BASE.replace("[\"council\", \"single\"]", "[\"council\", \"nobody\"]"));
        assert!(e.contains("match.players") && e.contains("nobody"), "{e}");
    }

    #[test]
    fn council_cycles_and_unknown_members_are_rejected() {
        let e = one_line_error(&BASE.replace(
            "members = [\"a\", \"single\"]",
            "members = [\"a\", \"council\"]",
        ));
        assert!(e.contains("contains itself"), "{e}");
        let e = one_line_error(
            &BASE.replace("members = [\"a\", \"single\"]", "members = [\"a\", \"b\"]"),
        );
        assert!(e.contains("unknown member `b`"), "{e}");
    }

    #[test]
    fn missing_engine_and_missing_limits_are_rejected() {
        let text = format!(
            "{BASE}\n[[player]]\nname = \"x\"\nkind = \"usi\"\ncommand = \"/no/such/engine\"\n"
        );
        let e = one_line_error(&text);
        assert!(
            e.contains("player[3].command") && e.contains("does not exist"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("no limit"), "{e}");
    }

    #[test]
    fn bad_values_are_rejected() {
        let e = one_line_error(&BASE.replace("games = 4", "games = 0"));
        assert!(e.contains("match.games"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nformat = \"swiss\""));
        assert!(e.contains("swiss"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nhandicap = \"queen\""));
        assert!(e.contains("match.handicap"), "{e}");
        let e = one_line_error(&BASE.replace("games = 4", "games = 4\nstart = \"not an sfen\""));
        assert!(e.contains("match.start"), "{e}");
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\nmembers = []\nnodes",
        ));
        assert!(e.contains("only meaningful"), "{e}");
    }

    #[test]
    fn approval_needs_a_positive_k_and_k_needs_approval() {
        let council = |extra: &str| {
            BASE.replace(
                "members = [\"a\", \"single\"]",
                &format!("members = [\"a\", \"single\"]\n{extra}"),
            )
        };
        let c = parse(&council("method = \"approval\"\napproval_k = 3")).expect("valid");
        assert!(matches!(
            c.player("council").kind,
            PlayerKind::Council(CouncilSettings {
                method: Method::Approval,
                approval_k: 3,
                ..
            })
        ));
        for (extra, expect) in [
            ("method = \"approval\"", "needs approval_k"),
            ("method = \"approval\"\napproval_k = 0", "at least 1, got 0"),
            (
                "approval_k = 2",
                "only meaningful with method = \"approval\"",
            ),
        ] {
            let e = one_line_error(&council(extra));
            assert!(
                e.contains("player[2].approval_k") && e.contains(expect),
                "{e}"
            );
        }
    }

    #[test]
    fn weights_are_per_member_finite_and_not_negative() {
        let council = |extra: &str| {
            BASE.replace(
                "members = [\"a\", \"single\"]",
                &format!("members = [\"a\", \"single\"]\n{extra}"),
            )
        };
        let weights = |text: &str| match &parse(text).expect("valid").player("council").kind {
            PlayerKind::Council(c) => c.weights.clone(),
            k => panic!("{k:?}"),
        };
        assert_eq!(weights(BASE), vec![1.0, 1.0]);
        assert_eq!(
            weights(&council("weights = { single = 2.5 }")),
            vec![1.0, 2.5]
        );
        assert_eq!(
            weights(&council(
                "method = \"approval\"\napproval_k = 2\nweights = { a = 0, single = 3 }"
            )),
            vec![0.0, 3.0]
        );
        for (extra, at, expect) in [
            (
                "weights = { single = -1.0 }",
                "weights.single",
                "finite number >= 0, got -1",
            ),
            ("weights = { single = nan }", "weights.single", "got NaN"),
            ("weights = { a = inf }", "weights.a", "got inf"),
            ("weights = { b = 2.0 }", "weights.b", "`b` is not a member"),
            ("weights = { a = \"x\" }", "weights", ""),
            (
                "method = \"ml\"\nweights = { a = 2.0 }",
                "weights",
                "only meaningful with method = \"majority\" or \"approval\"",
            ),
        ] {
            let e = one_line_error(&council(extra));
            assert!(e.contains(at) && e.contains(expect), "{extra}: {e}");
        }
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\nweights = { a = 1.0 }\nnodes",
        ));
        assert!(
            e.contains("weights") && e.contains("only meaningful"),
            "{e}"
        );
    }

    #[test]
    fn intuition_and_candidates_read_their_model_and_name_a_bad_one() {
        let dir = std::env::temp_dir().join(format!("council-intuition-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let model = engine::intuition::Model::new(engine::intuition::LearnOptions::default());
        std::fs::write(dir.join("good.bin"), model.to_bytes()).expect("write");
        std::fs::write(dir.join("bad.bin"), b"not a model").expect("write");
        let path = dir.join("c.toml");
        let config = |players: &str| {
            format!(
                "[match]\nplayers = [\"i\", \"r\"]\n[[player]]\nname = \"i\"\nkind = \"intuition\"\n\
                 {players}\n[[player]]\nname = \"r\"\nkind = \"internal\"\nnodes = 100\n\
                 candidates = {{ model = \"good.bin\", k = 4, setting = \"b\" }}\n"
            )
        };
        let c = Config::parse(&path, &config("model = \"good.bin\"\ntemperature = 0.5"))
            .expect("valid");
        match &c.player("i").kind {
            PlayerKind::Intuition(i) => assert_eq!((i.setting, i.temperature), (Setting::D, 0.5)),
            k => panic!("{k:?}"),
        }
        match &c.player("r").kind {
            PlayerKind::Internal(InternalSettings {
                candidates: Some(cand),
                ..
            }) => assert_eq!((cand.k, cand.setting), (4, Setting::B)),
            k => panic!("{k:?}"),
        }
        for (players, key, expect) in [
            (
                "model = \"bad.bin\"",
                "player[0].model",
                "bad.bin is not a usable model file",
            ),
            (
                "model = \"none.bin\"",
                "player[0].model",
                "cannot read the model file",
            ),
            ("", "player[0].model", "needs a model file"),
            (
                "model = \"good.bin\"\nsetting = \"z\"",
                "player[0].setting",
                "unknown setting",
            ),
            (
                "model = \"good.bin\"\ntemperature = -1.0",
                "player[0].temperature",
                ">= 0",
            ),
            (
                "model = \"good.bin\"\nnodes = 5\nnoise_cp = 3",
                "player[0].noise_cp",
                "only meaningful",
            ),
        ] {
            let e = Config::parse(&path, &config(players))
                .expect_err(players)
                .to_string();
            assert!(e.contains(key) && e.contains(expect), "{players}: {e}");
        }
        let bad_k = config("model = \"good.bin\"").replace("k = 4", "k = 0");
        let e = Config::parse(&path, &bad_k).expect_err("k = 0").to_string();
        assert!(
            e.contains("player[1].candidates.k") && e.contains("at least 1"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn with_usi(extra: &str) -> String {
        BASE.replace(
            "[[player]]\nname = \"a\"\nkind = \"internal\"\n",
            &format!("[[player]]\nname = \"a\"\nkind = \"usi\"\ncommand = \"sh\"\n{extra}\n"),
        )
    }

    #[test]
    fn engine_quirks_are_read_and_checked() {
        let c = parse(&with_usi(
            "drop_notation = \"@\"\ngo_byoyomi = false\nposition_startpos = false",
        ))
        .expect("valid");
        match &c.player("a").kind {
            PlayerKind::Usi(usi) => {
                assert_eq!(usi.drop_notation, DropNotation::At);
                assert!(!usi.go_byoyomi && !usi.position_startpos && usi.go_nodes);
            }
            k => panic!("{k:?}"),
        }
        // Defaults: strict USI.
        match &parse(&with_usi("")).expect("valid").player("a").kind {
            PlayerKind::Usi(usi) => {
                assert_eq!(usi.drop_notation, DropNotation::Star);
                assert!(usi.go_byoyomi && usi.position_startpos);
            }
            k => panic!("{k:?}"),
        }
        let e = one_line_error(&with_usi("drop_notation = \"#\""));
        assert!(
            e.contains("player[1].drop_notation") && e.contains("\"#\""),
            "{e}"
        );
        let e = one_line_error(&with_usi("go_byoyomi = \"no\""));
        assert!(e.contains("go_byoyomi"), "{e}");
        let e = one_line_error(&BASE.replace(
            "kind = \"internal\"\nnodes",
            "kind = \"internal\"\ndrop_notation = \"@\"\nnodes",
        ));
        assert!(
            e.contains("drop_notation") && e.contains("only meaningful"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodes = 1000\nincrement_ms = 100\n\n[[player]]\nname = \"a\"",
        ));
        assert!(
            e.contains("player[0].increment_ms") && e.contains("time_ms"),
            "{e}"
        );
        let e = one_line_error(&BASE.replace(
            "nodes = 1000\n\n[[player]]\nname = \"a\"",
            "nodes = 1000\ntime_ms = 60000\n\n[[player]]\nname = \"a\"",
        ));
        assert!(e.contains("member `single` sets time_ms"), "{e}");
        // An engine that takes no `go nodes` under a council that only gives nodes would get
        // a bare `go`.
        let e = one_line_error(&with_usi("go_nodes = false"));
        assert!(e.contains("go_nodes") && e.contains("`a`"), "{e}");
        parse(&with_usi("go_nodes = false\nbyoyomi_ms = 500")).expect("own time limit");
    }
}

mod equal_resources {
    use super::*;

    fn parse(format: &str, council: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[match]\nformat = \"{format}\"\nplayers = [\"council\", \"single\"]\n\n\
             [[player]]\nname = \"council\"\nkind = \"council\"\nmembers = [\"weak\", \"strong\", \"mid\"]\n\
             equal_resources = true\n{council}\n\n\
             [[player]]\nname = \"single\"\nkind = \"internal\"\nnodes = 1000\n\n\
             [[player]]\nname = \"weak\"\nkind = \"internal\"\nsigma = 200.0\n\n\
             [[player]]\nname = \"strong\"\nkind = \"internal\"\nsigma = 100.0\n\n\
             [[player]]\nname = \"mid\"\nkind = \"internal\"\nsigma = 100.0\nnoise_cp = 50\n"
        );
        Config::parse(Path::new("t.toml"), &text)
    }

    #[test]
    fn the_strongest_member_alone_with_n_times_the_budget_joins_the_run() {
        let c = parse("round-robin", "nodes = 2000").expect("valid");
        // strong and mid tie on sigma: the first listed of them is the strongest.
        let r = &c.players["strong-x3"];
        assert_eq!(r.limits.nodes, Some(6000));
        assert!(matches!(
            r.kind,
            PlayerKind::Internal(InternalSettings { noise_cp: 0, .. })
        ));
        assert_eq!(c.playing, ["council", "single", "strong-x3"]);
        let c = parse("gauntlet", "nodes = 3000\nfairness = \"shared\"").expect("valid");
        assert_eq!(c.players["strong-x3"].limits.nodes, Some(3000));
        let c = parse("round-robin", "byoyomi_ms = 100").expect("valid");
        assert_eq!(c.players["strong-x3"].limits.byoyomi_ms, Some(300));
    }

    #[test]
    fn what_cannot_be_multiplied_or_added_is_refused() {
        let e = parse("head-to-head", "nodes = 2000")
            .unwrap_err()
            .to_string();
        assert!(e.contains("strong-x3") && e.contains("gauntlet"), "{e}");
        let e = parse("round-robin", "depth = 4").unwrap_err().to_string();
        assert!(e.contains("limited by depth"), "{e}");
        let text = "[match]\nplayers = [\"a\", \"b\"]\n[[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 1\nequal_resources = true\n[[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 1\n";
        let e = Config::parse(Path::new("t.toml"), text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("only meaningful for kind = \"council\""), "{e}");
    }
}

mod resign {
    use super::*;

    fn parse(resign: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\nresign = {resign}\n\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n"
        );
        Config::parse(Path::new("t.toml"), &text)
    }

    #[test]
    fn both_resign_rules_and_what_is_wrong_with_a_bad_one() {
        assert_eq!(
            parse("{ score_cp = 1500, moves = 5 }").unwrap().resign,
            Some(ResignRule::Scores {
                score_cp: 1500,
                moves: 5
            })
        );
        assert_eq!(
            parse("{ model = \"shueso\", mu = 900.0, sigma = 250.0, moves = 3 }")
                .unwrap()
                .resign,
            Some(ResignRule::Model {
                mu: 900.0,
                sigma: 250.0,
                moves: 3
            })
        );
        for (bad, says) in [
            (
                "{ score_cp = 10, model = \"shueso\", mu = 1.0, sigma = 1.0, moves = 1 }",
                "not both",
            ),
            (
                "{ model = \"other\", mu = 1.0, sigma = 1.0, moves = 1 }",
                "only resignation model",
            ),
            (
                "{ model = \"shueso\", mu = 1.0, moves = 1 }",
                "needs mu and sigma",
            ),
            (
                "{ model = \"shueso\", mu = 1.0, sigma = 0.0, moves = 1 }",
                "sigma a positive",
            ),
            ("{ score_cp = 0, moves = 1 }", "positive"),
            ("{ score_cp = 100, moves = 0 }", "at least 1"),
            ("{ score_cp = 100, moves = 2, mu = 3.0 }", "belong to model"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("match.resign") && e.contains(says), "{bad}: {e}");
        }
    }
}

mod draw {
    use super::*;

    fn parse(draw: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[match]\nplayers = [\"a\", \"b\"]\ndraw = {draw}\n\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 10\n\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 10\n"
        );
        Config::parse(Path::new("t.toml"), &text)
    }

    #[test]
    fn the_draw_rule_and_what_is_wrong_with_a_bad_one() {
        assert_eq!(
            parse("{ plies = 8, score_cp = 10 }").unwrap().draw,
            Some(DrawRule {
                after_plies: 0,
                plies: 8,
                score_cp: 10
            })
        );
        assert_eq!(
            parse("{ after_plies = 60, plies = 1, score_cp = 0 }")
                .unwrap()
                .draw
                .map(|d| d.after_plies),
            Some(60)
        );
        for (bad, says) in [
            ("{ plies = 0, score_cp = 10 }", "plies must be at least 1"),
            ("{ plies = 4, score_cp = -1 }", "score_cp must be 0 or more"),
            ("{ plies = 4 }", "score_cp"),
            ("{ plies = 4, score_cp = 5, moves = 2 }", "moves"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("draw") && e.contains(says), "{bad}: {e}");
        }
    }
}

mod book_openings {
    use super::*;

    const BOOK: &str = "#YANEURAOU-DB2016 1.00\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        7g7f 3c3d 30 20 3\n\
        2g2f 8c8d 40 20 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n\
        3c3d none -30 18 5\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2\n\
        8c8d 7g7f -45 18 2\n";

    fn setup(name: &str, book: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("council-book-cfg-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("book.db"), book).expect("write");
        std::fs::write(dir.join("lines.txt"), "startpos moves 7g7f\n").expect("write");
        dir.join("c.toml")
    }

    fn config(extra: &str) -> String {
        format!(
            "[match]\nplayers = [\"a\", \"b\"]\nseed = 5\n{extra}\n\
             [[player]]\nname = \"a\"\nkind = \"internal\"\nnodes = 100\n\
             [[player]]\nname = \"b\"\nkind = \"internal\"\nnodes = 100\n"
        )
    }

    fn lines(c: &Config) -> Vec<String> {
        match &c.openings {
            Openings::File { lines, .. } => lines.clone(),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn one_key_plays_from_a_book_detected_by_its_header() {
        let path = setup("detect", BOOK);
        let c = Config::parse(&path, &config("openings = \"book.db\"")).expect("valid");
        let mut got = lines(&c);
        got.sort();
        assert_eq!(
            got,
            vec!["startpos moves 2g2f 8c8d", "startpos moves 7g7f 3c3d"]
        );
        // The same seed draws the same lines in the same order.
        let again = Config::parse(&path, &config("openings = \"book.db\"")).expect("valid");
        assert_eq!(lines(&again), lines(&c));
        // Stated format and every book key.
        let c = Config::parse(
            &path,
            &config(
                "openings = \"book.db\"\nopenings_format = \"yaneuraou-db\"\nbook_depth = 1\n\
                 book_min_count = 2\nbook_score_band = 35\nbook_choice = \"uniform\"\nbook_lines = 4",
            ),
        )
        .expect("valid");
        assert_eq!(lines(&c), vec!["startpos moves 7g7f"]);
    }

    #[test]
    fn bad_book_keys_and_a_bad_book_line_are_one_clear_line() {
        let path = setup("bad", BOOK);
        let at = |path: &Path, extra: &str| {
            let e = Config::parse(path, &config(extra))
                .expect_err("refused")
                .to_string();
            assert!(!e.contains('\n'), "{e}");
            e
        };
        let one = |extra: &str| at(&path, extra);
        let e = one("openings = \"lines.txt\"\nbook_depth = 4");
        assert!(
            e.contains("match.book_depth") && e.contains("file of lines"),
            "{e}"
        );
        let e = one("book_lines = 4");
        assert!(
            e.contains("match.book_lines") && e.contains("needs match.openings"),
            "{e}"
        );
        let e = one("openings = \"book.db\"\nopenings_format = \"db\"");
        assert!(e.contains("give lines or yaneuraou-db"), "{e}");
        let e = one("openings = \"book.db\"\nbook_choice = \"best\"");
        assert!(e.contains("give weighted or uniform"), "{e}");
        let e = one("openings = \"book.db\"\nbook_depth = 0");
        assert!(e.contains("match.book_depth"), "{e}");
        let e = one("openings = \"book.db\"\nbook_min_count = 99");
        assert!(e.contains("count of at least 99"), "{e}");
        let corrupt = setup(
            "corrupt",
            &BOOK.replace("3c3d none -30 18 5", "3c3d none -30 x 5"),
        );
        let e = at(&corrupt, "openings = \"book.db\"");
        assert!(e.contains("book.db: line 6: "), "{e}");
    }
}
