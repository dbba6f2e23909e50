//! `-engine` and `-each`: limits, built-in engines, names, protocols and the configurations file.

use super::*;

#[test]
fn each_overrides_the_engines_own_keys_as_in_fastchess() {
    let c = config(
        "-each tc=5+0.05 option.Hash=32 -engine cmd=a tc=1+0.01 option.Hash=8 option.X=1 -engine cmd=b",
    );
    assert_eq!(c.time_control, TimeControl::parse_clock("5+0.05").unwrap());
    for e in &c.engines {
        assert_eq!(e.time_control, None);
        let EngineKind::Uci { options, .. } = &e.kind else {
            panic!("a UCI engine")
        };
        assert!(options.contains(&("Hash".to_string(), "32".to_string())));
    }
    let EngineKind::Uci { options, .. } = &c.engines[0].kind else {
        panic!()
    };
    assert_eq!(
        options,
        &vec![("Hash".into(), "32".into()), ("X".into(), "1".into())]
    );
}

#[test]
fn different_limits_stay_with_their_engines() {
    let c = config("-engine builtin name=a nodes=100 -engine builtin name=b depth=3");
    assert_eq!(c.time_control, TimeControl::Nodes(100));
    assert_eq!(c.engines[0].time_control, Some(TimeControl::Nodes(100)));
    assert_eq!(c.engines[1].time_control, Some(TimeControl::Depth(3)));
}

#[test]
fn builtin_engines_take_hash_weights_and_one_thread() {
    let c = config(
        "-engine builtin name=a hash=8 nodes=10 -engine cmd=builtin option.Hash=4 option.Threads=1 nodes=10",
    );
    assert_eq!(
        c.engines[0].kind,
        EngineKind::Builtin {
            weights: None,
            net: None,
            hash_mb: 8,
            search: None,
            syzygy: None,
        }
    );
    assert_eq!(
        c.engines[1].kind,
        EngineKind::Builtin {
            weights: None,
            net: None,
            hash_mb: 4,
            search: None,
            syzygy: None,
        }
    );
    assert_eq!(c.engines[1].name, "sparring");
    assert!(
        error("-engine builtin nodes=1 option.Threads=4 -engine builtin nodes=1")
            .contains("Threads=4")
    );
    assert!(
        error("-engine builtin nodes=1 option.Contempt=4 -engine builtin nodes=1")
            .contains("option.Contempt=4")
    );
}

#[test]
fn builtin_engines_take_the_syzygy_options() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let c = config(&format!(
        "-engine builtin nodes=10 option.SyzygyPath={dir} option.SyzygyProbeLimit=4 \
         -engine builtin nodes=10 option.SyzygyPath=<empty>"
    ));
    match &c.engines[0].kind {
        EngineKind::Builtin {
            syzygy: Some(tb), ..
        } => assert_eq!((tb.path.to_str(), tb.probe_limit), (Some(dir), 4)),
        other => panic!("expected tables, got {other:?}"),
    }
    assert!(matches!(
        c.engines[1].kind,
        EngineKind::Builtin { syzygy: None, .. }
    ));
    let e = error("-engine builtin nodes=1 option.SyzygyPath=/no/such/dir -engine builtin nodes=1");
    assert!(e.contains("option.SyzygyPath=/no/such/dir"), "{e}");
    let e = error("-engine builtin nodes=1 option.SyzygyProbeLimit=8 -engine builtin nodes=1");
    assert!(e.contains("SyzygyProbeLimit"), "{e}");
}

#[test]
fn same_names_are_numbered() {
    let c = config("-engine builtin nodes=1 -engine builtin nodes=1 -engine builtin nodes=1");
    let names: Vec<_> = c.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["sparring", "sparring_2", "sparring_3"]);
}

#[test]
fn engine_keys_build_the_uci_engine() {
    let mut line =
        args("-engine dir=/opt/engines cmd=./dev name=dev tc=inf depth=7 timemargin=250");
    line.push("args=--threads 1".to_string());
    line.extend(args("-engine cmd=/usr/bin/base st=0.5 timemargin=250"));
    let Ok(Request::Match(m)) = parse(&line, Flavor::Fastchess) else {
        panic!("parses")
    };
    let c = m.config;
    let EngineKind::Uci {
        command,
        args,
        working_dir,
        ..
    } = &c.engines[0].kind
    else {
        panic!()
    };
    assert_eq!(command, "/opt/engines/dev");
    assert_eq!(args, &vec!["--threads".to_string(), "1".to_string()]);
    assert_eq!(working_dir.as_deref(), Some(Path::new("/opt/engines")));
    assert_eq!(c.engines[1].name, "base");
    assert_eq!(c.margin, Duration::from_millis(250));
    assert_eq!(c.engines[0].time_control, Some(TimeControl::Depth(7)));
    assert_eq!(
        c.engines[1].time_control,
        Some(TimeControl::MoveTime(Duration::from_millis(500)))
    );
    assert!(
        error("-engine cmd=a nodes=1 timemargin=5 -engine cmd=b nodes=1 timemargin=6")
            .contains("same margin")
    );
    assert!(
        error("-engine cmd=a nodes=1 proto=winboard -engine cmd=b nodes=1")
            .contains("proto=winboard: expected uci or xboard")
    );
    assert!(
        error("-engine builtin nodes=1 proto=xboard -engine cmd=b nodes=1")
            .contains("proto=xboard")
    );
    assert!(error("-engine cmd=a nodes=1 hash=4 -engine cmd=b nodes=1").contains("hash=4"));
    assert!(
        error("-engine cmd=a tc=10+0.1 nodes=5 -engine cmd=b nodes=1")
            .contains("one limit per engine")
    );
}

#[test]
fn restart_and_proto_set_the_engine_config() {
    let c =
        config("-engine cmd=a nodes=1 restart=on proto=xboard -engine cmd=b nodes=1 restart=auto");
    assert!(c.engines[0].restart && !c.engines[1].restart);
    assert_eq!(
        (c.engines[0].protocol, c.engines[1].protocol),
        (
            sparring::arena::Protocol::Xboard,
            sparring::arena::Protocol::Uci
        )
    );
    assert!(!config(TWO).engines[0].restart);
    assert!(error(&format!("{TWO} -each restart=sometimes"))
        .contains("restart=sometimes: expected on, off or auto"));
}

/// cutechess-cli's `-engines` alone lists the configured engines; with a file it names the
/// file `conf=` reads.
#[test]
fn engines_alone_lists_the_configured_engines() {
    let dir = std::env::temp_dir().join(format!("sparring-engines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.json");
    std::fs::write(
        &file,
        r#"[{"name": "one", "command": "a"}, {"name": "two", "command": "b"}]"#,
    )
    .unwrap();
    let line = format!("-engines {} -engines", file.display());
    match parse(&args(&line), Flavor::Cutechess).unwrap() {
        Request::Engines(names) => assert_eq!(names, ["one", "two"]),
        other => panic!("{other:?}"),
    }
    let missing = format!("-engines {} -engines", dir.join("none.json").display());
    let err = parse(&args(&missing), Flavor::Cutechess).unwrap_err().0;
    assert!(err.starts_with("-engines: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
