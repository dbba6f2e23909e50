//! cutechess-cli's engine keys (`arg`, `initstr`, `stderr`, `trust`, `whitepov`, `tscale`, `debug`, `book`) on the line and in engines.json.

use super::*;

/// `conf=` takes cutechess's per-engine settings from engines.json as the keys: init strings
/// (but `uci` and `setoption`) as `initstr`, `validateClaims: false` as `trust`, the flags,
/// `restart`, a `timeoutScaleFactor` held to cutechess's bounds; an empty `stderrFile` is none.
#[test]
fn engine_configurations_carry_the_cutechess_engine_keys() {
    let dir = std::env::temp_dir().join(format!("sparring-conf-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.json");
    std::fs::write(
        &file,
        r#"[{"name": "one", "command": "x", "stderrFile": "", "timeoutScaleFactor": 500,
             "initStrings": ["uci", "hello", "setoption name A value 1"], "whitepov": true,
             "validateClaims": false, "debug": true, "ponder": false, "restart": "on"}]"#,
    )
    .unwrap();
    let line = format!(
        "-engines {} -engine conf=one nodes=1 initstr=mine -engine cmd=y nodes=1",
        file.display()
    );
    let c = match parse(&args(&line), Flavor::Cutechess).unwrap() {
        Request::Match(m) => m.config,
        other => panic!("{other:?}"),
    };
    let (e, s) = (&c.engines[0], &c.engines[0].settings);
    assert_eq!(s.init_strings, ["hello", "mine"]);
    assert!(s.white_pov && s.trust_claims && s.debug && !s.ponder && e.restart);
    assert_eq!((s.timeout_scale, &s.stderr_file), (Some(120.0), &None));
    let EngineKind::Uci { options, .. } = &e.kind else {
        panic!("an external engine")
    };
    assert_eq!(options, &[("A".to_string(), "1".to_string())]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// cutechess's per-engine keys: each becomes the engine's setting, and round-trips through
/// `--dump-config`'s TOML.
#[test]
fn cutechess_engine_keys_become_engine_settings() {
    let c = config("-engine cmd=x nodes=1 ponder -engine cmd=y nodes=1");
    assert!(c.engines[0].settings.ponder);
    assert!(!c.engines[1].settings.ponder);
    let again = MatchConfig::parse(&c.to_toml(), "again").unwrap();
    assert_eq!(again.engines, c.engines);
    assert!(
        error("-engine builtin nodes=1 ponder -engine cmd=y nodes=1")
            .contains("the built-in engine does not ponder")
    );
}

/// The rest of cutechess's engine keys: `arg` and `initstr` repeat (in order, `-each`'s
/// after), flags and values become settings, and all round-trip through the dumped TOML.
#[test]
fn the_other_cutechess_engine_keys_become_settings_and_round_trip() {
    let dir = std::env::temp_dir().join(format!("sparring-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("empty.bin");
    std::fs::write(&book, b"").unwrap();
    let c = config(&format!(
        "-engine cmd=x nodes=1 args=a arg=b arg=c initstr=one\\ntwo initstr=three \
         stderr=e.log trust whitepov tscale=2.5 debug book={} bookdepth=4 \
         -engine cmd=y nodes=1 -each arg=z",
        book.display()
    ));
    let EngineKind::Uci { args, .. } = &c.engines[0].kind else {
        panic!("an external engine")
    };
    assert_eq!(args, &["a", "b", "c", "z"]);
    let s = &c.engines[0].settings;
    assert_eq!(s.init_strings, ["one", "two", "three"]);
    assert_eq!(
        s.stderr_file.as_deref(),
        Some(std::path::Path::new("e.log"))
    );
    assert!(s.trust_claims && s.white_pov && s.debug);
    assert_eq!(s.timeout_scale, Some(2.5));
    assert_eq!(s.book.as_deref(), Some(book.as_path()));
    assert_eq!(s.book_depth, Some(4));
    assert_eq!(c.engines[1].settings.book, None);
    let again = MatchConfig::parse(&c.to_toml(), "again").unwrap();
    assert_eq!(again.engines, c.engines);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bad values name their key; the built-in engine refuses every one of them by name.
#[test]
fn bad_cutechess_engine_key_values_are_refused_by_name() {
    let bad = |keys: &str| {
        error(&format!(
            "-engine cmd=x nodes=1 {keys} -engine cmd=y nodes=1"
        ))
    };
    assert!(bad("tscale=0").contains("tscale=0: expected a factor from 0.2 to 120"));
    assert!(bad("tscale=x").contains("tscale=x"));
    assert!(bad("bookdepth=0").contains("bookdepth=0: expected a positive number"));
    assert!(bad("bookdepth=-3").contains("bookdepth=-3"));
    let missing = bad("book=/nonexistent/book.bin");
    assert!(missing.contains("book=/nonexistent/book.bin"), "{missing}");
    for key in [
        "arg=1",
        "initstr=x",
        "stderr=e",
        "trust",
        "whitepov",
        "tscale=2",
        "debug",
    ] {
        let err = error(&format!(
            "-engine builtin nodes=1 {key} -engine cmd=y nodes=1"
        ));
        let name = key.split('=').next().unwrap();
        assert!(
            err.contains(&format!("{name}: only an external engine")),
            "{err}"
        );
    }
}
