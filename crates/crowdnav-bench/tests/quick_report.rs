//! The benchmark run end to end on a tiny sample: every part runs, the JSON has its
//! top-level figures and they are finite, the plots are SVG. Without the benchmark data
//! the data parts must say "skipped" and the crowd part still runs.

use crowdnav_bench::data::{data_dir, data_required};
use crowdnav_bench::paths::Selection;
use crowdnav_bench::run::{
    run, CrowdOptions, EditOptions, MeshOptions, Options, PathOptions, QueryOptions,
};
use serde_json::Value;

fn tiny() -> Options {
    Options {
        mode: "test".to_owned(),
        paths: Some(PathOptions {
            maps: vec!["aurora".to_owned(), "iron-harvest".to_owned()],
            r0: Selection {
                reps: 1,
                every: 500,
                only: None,
            },
            radii: vec![0.5],
            inflated: Selection {
                reps: 1,
                every: 1000,
                only: None,
            },
            guard: None,
            disc_over_point: Some((
                1.0,
                Selection {
                    reps: 1,
                    every: 300,
                    only: None,
                },
            )),
        }),
        crowd: Some(CrowdOptions {
            sizes: vec![100, 200],
            threads: vec![1, 2],
            warmup: 2,
            steps: 2,
            finish_caps: vec![(100, 50)],
            detour_finish_caps: Vec::new(),
            bottleneck: false,
            detour: true,
        }),
        mesh: Some(MeshOptions {
            maps: vec![0],
            reps: 1,
        }),
        flow: None,
        queries: Some(QueryOptions {
            radii: vec![0.0, 1.0],
            count: 50,
            reps: 1,
        }),
        edit: Some(EditOptions {
            edits: 20,
            live: 4,
            rebuilds: 1,
            polyanya_edits: 2,
        }),
    }
}

fn number(json: &serde_json::Map<String, Value>, key: &str) -> Option<f64> {
    json.get(key).and_then(Value::as_f64)
}

#[test]
fn tiny_run_reports_finite_top_level_figures() {
    let dir = data_dir();
    let report = run(&tiny(), dir.as_deref().map_err(String::as_str)).expect("the run succeeds");
    let json = &report.json;
    for key in [
        "mode",
        "date_utc",
        "machine",
        "path_median_ratio_vs_polyanya",
        "disc_over_point_median_ratio",
        "orca_step_ratio_vs_dodgy",
        "orca_step_ratio_vs_detour",
        "paths",
        "crowd",
        "mesh",
        "queries",
        "edit",
        "edit_median_ms",
        "edit_over_rebuild",
    ] {
        assert!(json.contains_key(key), "missing key {key}");
    }
    let orca = number(json, "orca_step_ratio_vs_dodgy").expect("a crowd ratio");
    assert!(orca.is_finite() && orca > 0.0, "orca ratio {orca}");
    assert!(report.markdown.contains("| circle-200 | 200 | 2 |"));
    // DetourCrowd: timed on one thread, run to the finish where the others are; without
    // the `detour` feature every one of its entries says why it did not run.
    let circle = &json["crowd"]["circle-100"];
    if cfg!(feature = "detour") {
        let q = number(json, "orca_step_ratio_vs_detour").expect("a DetourCrowd ratio");
        assert!(q.is_finite() && q > 0.0, "DetourCrowd ratio {q}");
        assert!(circle["detour"]["ms"]["median"]
            .as_f64()
            .is_some_and(|ms| ms.is_finite() && ms > 0.0));
        assert_eq!(circle["finish"]["detour"]["threads"].as_u64(), Some(1));
        assert!(circle["finish"]["detour"]["arrived"].as_u64().is_some());
        assert!(report.markdown.contains("DetourCrowd ms/step"));
    } else {
        assert!(circle["detour"]["not_run"].is_string());
        assert!(circle["finish"]["detour"]["not_run"].is_string());
        assert!(report.markdown.contains("not built"));
    }
    match dir {
        Ok(_) => {
            let ratio = number(json, "path_median_ratio_vs_polyanya").expect("a path ratio");
            assert!(ratio.is_finite() && ratio > 0.0, "path ratio {ratio}");
            let aurora = &json["paths"]["aurora"];
            assert!(aurora["r0"]["agree"].as_u64() == aurora["r0"]["queries"].as_u64());
            assert!(aurora["inflated"][0]["polyanya_bake_s"].as_f64().is_some());
            let disc = number(json, "disc_over_point_median_ratio").expect("a disc ratio");
            assert!(disc.is_finite() && disc > 0.0, "disc/point ratio {disc}");
            let timed = aurora["disc_over_point"]["queries"].as_u64().unwrap_or(0);
            let without = aurora["disc_over_point"]["queries_without_path"].as_u64();
            assert!(
                timed > 0 && without.is_some(),
                "{}",
                aurora["disc_over_point"]
            );
            assert!(report.markdown.contains("| aurora | 1 |"));
            assert!(json["mesh"]["aurora (polyanya v2 mesh)"]["ours_s"]
                .as_f64()
                .is_some_and(f64::is_finite));
            // Paths and crowd, and the edit part's per-edit times.
            assert_eq!(report.plots.len(), 3);
            // The mesh queries, one run per radius: our time per query of each kind;
            // Detour's and the ratio with the `detour` feature, else why not.
            let runs = json["queries"]["runs"].as_array().expect("runs");
            assert_eq!(runs.len(), 2);
            for (run, radius) in runs.iter().zip([0.0, 1.0]) {
                assert_eq!(run["radius"].as_f64(), Some(radius));
                assert!(run["first_query_ms"].as_f64().is_some_and(|ms| ms > 0.0));
                for kind in [
                    "raycast",
                    "raycast_from_its_triangle",
                    "nearest_point",
                    "random_point",
                ] {
                    let q = &run[kind];
                    assert!(q["ours_us"].as_f64().is_some_and(|us| us > 0.0), "{q}");
                    if cfg!(feature = "detour") {
                        assert!(
                            q["ratio_vs_detour"].as_f64().is_some_and(|x| x > 0.0),
                            "{q}"
                        );
                    } else {
                        assert!(q["detour_note"].is_string(), "{q}");
                    }
                }
                assert!(run["point_location"]["ours_us"]
                    .as_f64()
                    .is_some_and(|us| us > 0.0));
            }
            assert!(report.markdown.contains("### Mesh queries"));
            // The edit part: median edit time and its ratio to a full build.
            for key in ["edit_median_ms", "edit_over_rebuild"] {
                let x = number(json, key).expect(key);
                assert!(x.is_finite() && x > 0.0, "{key} {x}");
            }
            assert!(report.markdown.contains("### Mesh edits"));
            // The first path query after each edit (it brings up to date the indexes
            // the edit left to it), and the same query again, at r = 0.5 and r = 0.
            for key in [
                "first_query_ms",
                "warm_query_ms",
                "first_query_r0_ms",
                "warm_query_r0_ms",
            ] {
                let ms = json["edit"][key]["median"].as_f64();
                assert!(ms.is_some_and(|ms| ms > 0.0), "{key} {}", json["edit"]);
            }
            // Edits through a running world, and the step after each.
            for key in ["edit_ms", "step_after_ms"] {
                let ms = json["edit"]["world"][key]["median"].as_f64();
                assert!(ms.is_some_and(|ms| ms > 0.0), "{key} {}", json["edit"]);
            }
            // polyanya building the edited level, at r = 0 and r = 0.5.
            for key in ["polyanya_r0", "polyanya_r05"] {
                let p = &json["edit"][key];
                assert!(p["count"].as_u64().is_some_and(|n| n > 0), "{key} {p}");
                let ms = p["build_ms"]["median"].as_f64();
                assert!(ms.is_some_and(|ms| ms > 0.0), "{key} {p}");
                assert!(p["edit_over_polyanya"].as_f64().is_some_and(|x| x > 0.0));
            }
            assert!(report
                .plots
                .iter()
                .any(|(name, _)| name == "bench-edit-times.svg"));
        }
        Err(why) => {
            assert!(!data_required(), "CI=true needs the benchmark data: {why}");
            println!("skipped: the data parts (no benchmark data)");
            assert!(json["paths"]["skipped"].is_string());
            assert!(json["mesh"]["skipped"].is_string());
            assert!(json["queries"]["skipped"].is_string());
            assert!(json["edit"]["skipped"].is_string());
            assert!(report.markdown.contains("skipped"));
        }
    }
    for (name, svg) in &report.plots {
        assert!(name.ends_with(".svg") && svg.starts_with("<svg"), "{name}");
    }
}
