//! The flow part end to end on small layouts, crowdnav's side alone (JuPedSim's needs
//! Python and the network; the bench run covers it): every top-level flow figure is
//! present and finite, the JSON says why JuPedSim did not run, the table and the plots
//! are there.

use crowdnav_bench::run::{run, FlowOptions, Options};
use serde_json::Value;

fn small() -> Options {
    Options {
        mode: "test".to_owned(),
        paths: None,
        crowd: None,
        mesh: None,
        flow: Some(FlowOptions {
            doors: vec![1.0, 2.4],
            room: 12.0,
            door_agents: 30,
            corridor: (16.0, 2.0),
            per_side: 8,
            seeds: vec![1],
            jupedsim: false,
            jupedsim_doors: vec![1.0],
            jupedsim_seeds: 1,
            jupedsim_corridors: true,
            fundamental_diagram: true,
        }),
        queries: None,
        edit: None,
    }
}

#[test]
fn flow_part_reports_finite_figures_for_every_layout() {
    let report = run(&small(), Err("not needed")).expect("the run succeeds");
    let json = &report.json;
    for key in [
        "flow_door_1m_specific_flow",
        "flow_counterflow_clear_over_alone",
        "flow_crossing_clear_over_alone",
        "flow_counterflow_lane_order",
        "flow_overlapping_pairs",
    ] {
        let v = json.get(key).and_then(Value::as_f64);
        assert!(v.is_some_and(f64::is_finite), "{key}: {:?}", json.get(key));
    }
    let lanes = json["flow_counterflow_lane_order"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!((-1.0..=1.0).contains(&lanes), "lane order {lanes}");
    let flow = &json["flow"];
    assert!(flow["jupedsim"]["skipped"].is_string());
    assert_eq!(
        flow["empirical_specific_flow"],
        serde_json::json!([1.6, 2.0])
    );
    let doors = flow["door"].as_array().expect("a door list");
    assert_eq!(doors.len(), 2);
    for door in doors {
        let ours = &door["crowdnav"];
        let run = &ours["runs"][0];
        assert_eq!(run["expected_forward"].as_u64(), Some(30), "{door}");
        assert!(run["ms_per_sim_second"]
            .as_f64()
            .is_some_and(|ms| ms.is_finite() && ms > 0.0));
        // No more through the door than the 30 sent forward.
        assert!(run["through"].as_u64().is_some_and(|n| n <= 30));
        assert!(door["jupedsim_cfs"]["not_run"].is_string());
        assert!(door["jupedsim_sf"]["not_run"].is_string());
    }
    // The wide door lets everyone through: a specific flow and a time to clear.
    assert!(doors[1]["crowdnav"]["specific_flow"]
        .as_f64()
        .is_some_and(|f| f.is_finite() && f > 0.0));
    for layout in ["counterflow", "crossing"] {
        let run = &flow[layout]["crowdnav"]["runs"][0];
        assert_eq!(run["expected_forward"].as_u64(), Some(8), "{layout}");
        assert!(run["alone_s"].as_f64().is_some_and(|t| t > 0.0), "{layout}");
    }
    assert!(flow["fundamental_diagram"]["skipped"].is_string());
    assert!(report.markdown.contains("### Crowd flow"));
    assert!(report.markdown.contains("| 2.4 |"));
    assert!(report
        .markdown
        .contains("| counterflow 16 × 2 m | crowdnav (defaults) |"));
    let names: Vec<&str> = report.plots.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"flow-door-specific-flow.svg"), "{names:?}");
    assert!(names.contains(&"flow-counterflow-lanes.svg"), "{names:?}");
    for (name, svg) in &report.plots {
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
            "{name}"
        );
    }
}
