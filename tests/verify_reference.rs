//! `qrenyi::verify`: the bound formulas and the 256-bit classical divergences against mpmath
//! (tests/reference/verify_bounds.json, made by tests/reference/generate_verify_bounds.py),
//! property tests of the theorems behind them, and the engine's library contract
//! (determinism, shards, merge, custom statements).

mod common;

use proptest::prelude::*;
use qrenyi::verify::bounds::{
    bounded_divergence_bound, kl_bound, rdp_delta, sinh_bound, tradeoff_bound,
    tradeoff_bound_as_printed,
};
use qrenyi::verify::real::{Hp, Real};
use qrenyi::verify::{self, Config, Custom, Expected, Instance, Item, Margin, Scale, Status};
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/verify_bounds.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

#[test]
fn sinh_bound_matches_mpmath_and_the_two_point_pair() {
    for e in fixture()["sinh_bound"].as_array().unwrap() {
        let (a, eps) = (num(&e["alpha"]), num(&e["eps"]));
        let (v, err) = sinh_bound(a, eps);
        let exact = num(&e["value"]);
        assert!(rel(v, exact) < 1e-12, "α={a} ε={eps}: {v} vs {exact}");
        assert!(
            (v - exact).abs() <= err.max(4.0 * f64::EPSILON * exact),
            "error estimate"
        );
        assert!(rel(num(&e["two_point"]), exact) < 1e-14);
        // and the privacy module's implementation of the same bound
        let tight = qrenyi::privacy::conversion::bounded_divergence_tight(eps, a).unwrap();
        assert!(rel(tight, exact) < 1e-12, "privacy: {tight} vs {exact}");
        assert!(v <= bounded_divergence_bound(eps, a));
    }
}

#[test]
fn rdp_delta_matches_mpmath_in_both_arithmetics() {
    for e in fixture()["rdp_delta"].as_array().unwrap() {
        let (a, t, eps) = (num(&e["alpha"]), num(&e["tau"]), num(&e["eps"]));
        let exact = num(&e["value"]);
        let v: f64 = rdp_delta(a, t, eps);
        assert!(rel(v, exact) < 1e-12, "α={a} τ={t} ε={eps}: {v} vs {exact}");
        let h = rdp_delta(a, Hp::lit(t), Hp::lit(eps)).to_f64();
        assert!(rel(h, exact) < 1e-15, "256-bit: {h} vs {exact}");
        // the privacy module rounds up and caps at 1
        let p = <f64 as Real>::rdp_delta(a, t, eps).unwrap();
        assert!(p >= exact.min(1.0) && rel(p, exact.min(1.0)) < 1e-12);
    }
}

#[test]
fn tradeoff_bound_is_the_minimum_over_alpha_and_the_printed_form_is_smaller() {
    for e in fixture()["tradeoff_bound"].as_array().unwrap() {
        let (eps, delta) = (num(&e["eps"]), num(&e["delta"]));
        let min = num(&e["minimum"]);
        assert!(rel(tradeoff_bound(eps, delta), min) < 1e-12);
        assert!(rel(tradeoff_bound(Hp::lit(eps), delta).to_f64(), min) < 1e-15);
        assert!(rel(tradeoff_bound_as_printed(eps, delta), num(&e["printed"])) < 1e-12);
        // for ε ≤ 1 the printed form lies below the true minimum (so it is not what Lemma 19 and
        // Theorem 7 give; the search refutes it, `delta-epsilon-tradeoff-as-printed`)
        if eps <= 1.0 {
            assert!(num(&e["printed"]) < min);
        }
    }
}

#[test]
fn hp_classical_divergences_match_mpmath() {
    for c in fixture()["classical"].as_array().unwrap() {
        let p: Vec<f64> = serde_json::from_value(c["p"].clone()).unwrap();
        let q: Vec<f64> = serde_json::from_value(c["q"].clone()).unwrap();
        for r in c["renyi"].as_array().unwrap() {
            let a = num(&r["alpha"]);
            let exact = num(&r["value"]);
            assert!(rel(Hp::renyi(&p, &q, a).unwrap().to_f64(), exact) < 1e-15);
            assert!((f64::renyi(&p, &q, a).unwrap() - exact).abs() < 1e-13 * (1.0 + exact));
        }
        let dmax = num(&c["dmax"]);
        assert!(rel(Hp::max_divergence(&p, &q).unwrap().to_f64(), dmax) < 1e-15);
        for h in c["hockey_stick"].as_array().unwrap() {
            let g = num(&h["gamma"]);
            let v = Hp::hockey_stick(&p, &q, &Hp::lit(g)).unwrap().to_f64();
            assert!((v - num(&h["value"])).abs() < 1e-15);
        }
        for m in c["approx_max"].as_array().unwrap() {
            let d = num(&m["delta"]);
            let exact = num(&m["value"]);
            let v = Hp::approx_max_divergence(&p, &q, d).unwrap().to_f64();
            assert!(rel(v, exact) < 1e-14, "δ={d}: {v} vs {exact}");
            let w = f64::approx_max_divergence(&p, &q, d).unwrap();
            assert!(rel(w, exact) < 1e-12, "core δ={d}: {w} vs {exact}");
        }
    }
}

fn distribution() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1e-6f64..1.0, 2..6).prop_map(|w| {
        let s: f64 = w.iter().sum();
        w.iter().map(|x| x / s).collect()
    })
}

proptest! {
    #![proptest_config(common::proptest_config(32))]

    /// seed 000, Theorem 22's tight form lies between 0 and ½ε²α (Theorem 7).
    #[test]
    fn sinh_bound_between_zero_and_half_eps_squared_alpha(a in 1.0001f64..50.0, e in 1e-3f64..4.0) {
        let (v, _) = sinh_bound(a, e);
        prop_assert!(v >= 0.0);
        prop_assert!(v <= bounded_divergence_bound(e, a) * (1.0 + 1e-14));
        // and at α → 1 it is at most the KL bound ε(e^ε − 1) of seed 003, Lemma 6
        prop_assert!(sinh_bound(1.0 + 1e-9, e).0 <= kl_bound(e) * (1.0 + 1e-6));
    }

    /// The f64 (core) and 256-bit evaluations of a classical Rényi divergence agree.
    #[test]
    fn hp_and_core_renyi_agree(p in distribution(), q in distribution(), a in 0.1f64..20.0) {
        prop_assume!(p.len() == q.len());
        let x = f64::renyi(&p, &q, a).unwrap();
        let y = Hp::renyi(&p, &q, a).unwrap().to_f64();
        prop_assert!((x - y).abs() < 1e-11 * (1.0 + x.abs()), "{} vs {}", x, y);
    }

    /// Seed 000, Lemma 19 on random pairs, in 256-bit arithmetic.
    #[test]
    fn lemma_19_holds_in_high_precision(p in distribution(), q in distribution(), a in 1.01f64..20.0, u in 0.01f64..1.0) {
        prop_assume!(p.len() == q.len());
        let tv = f64::total_variation(&p, &q).unwrap();
        prop_assume!(tv > 1e-6);
        let delta = u * tv * 0.999;
        let lhs = Hp::approx_max_divergence(&p, &q, delta).unwrap();
        let rhs = Hp::renyi(&p, &q, a).unwrap() - Hp::lit(delta).ln() / Hp::lit(a - 1.0);
        prop_assert!(lhs <= rhs);
    }
}

#[test]
fn margin_rules() {
    assert_eq!(Margin::le(1.0, f64::INFINITY, 0.0).value, f64::INFINITY);
    assert_eq!(Margin::le(f64::INFINITY, 1.0, 0.0).value, f64::NEG_INFINITY);
    assert_eq!(Margin::le(1.0, 3.0, 0.0).value, 2.0);
    assert_eq!(Margin::eq(f64::INFINITY, f64::INFINITY, 0.0).value, 0.0);
    assert!(Margin::new(-1e-12, 1e-11).upper() > 0.0);
    assert!(!Margin::new(-1e-12, 1e-11).is_violation());
    assert!(Margin::new(-1e-10, 1e-11).is_violation());
}

/// A false custom statement (`Tr ρ² ≤ ½`) is refuted by the search; a true one holds.
#[test]
fn custom_statements_and_engine_contract() {
    let make = |bound: f64, expected| {
        Custom::new(
            "purity-bound",
            expected,
            "Tr ρ² ≤ bound",
            |ctx, rng| {
                let d = ctx.dim(rng);
                Ok(Instance::new().with(
                    "rho",
                    verify::sample::state(d, verify::sample::StateEnsemble::random(rng), rng),
                ))
            },
            move |inst, b| {
                let rho = inst.state("rho", b)?;
                Ok(Margin::le(rho.purity(), bound, 1e-12))
            },
        )
    };
    let cfg = Config {
        trials: Some(40),
        seed: 7,
        ..Config::default()
    };
    let holds = verify::run(&make(1.0, Expected::Theorem), &cfg, &|_| {}).unwrap();
    assert_eq!(holds.status, Status::Holds);
    assert!(!holds.is_bug());
    let refuted = verify::run(&make(0.5, Expected::False), &cfg, &|_| {}).unwrap();
    assert_eq!(refuted.status, Status::Refuted);
    let cx = refuted.counterexample.as_ref().unwrap();
    assert!(cx.margin < -cx.error);
    assert_eq!(cx.seed, verify::trial_seed(7, "purity-bound", cx.trial));

    // shards partition the trials; merging restores the count and the worst margin
    let s = make(1.0, Expected::Theorem);
    let no_refine = Config {
        restarts: 0,
        ..cfg.clone()
    };
    let full = verify::run(&s, &no_refine, &|_| {}).unwrap();
    let parts: Vec<_> = (0..3)
        .map(|i| {
            verify::run(
                &s,
                &Config {
                    shard: (i, 3),
                    ..no_refine.clone()
                },
                &|_| {},
            )
            .unwrap()
        })
        .collect();
    // a shard of another run (another seed) is refused, not silently merged
    let mut foreign = parts.clone();
    foreign[2].seed += 1;
    let err = verify::merge(foreign).unwrap_err().to_string();
    assert!(err.contains("another run"), "{err}");
    let merged = verify::merge(parts).unwrap();
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].trials, 40);
    assert_eq!(merged[0].worst_margin, full.worst_margin);
    assert!(Config {
        shard: (3, 3),
        ..Config::default()
    }
    .validate()
    .is_err());
}

#[test]
fn instance_scalars_stay_in_range_under_refinement_moves() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut it = Item::scalar(1.5, 1.0 + 1e-9, 10.0, Scale::Log { offset: 1.0 });
    for _ in 0..200 {
        it = it.perturbed(2.0, &mut rng);
        let Item::Scalar { value, .. } = it else {
            unreachable!()
        };
        assert!((1.0 + 1e-9..=10.0).contains(&value));
    }
}

#[test]
fn every_builtin_statement_is_listed_once_with_a_kebab_case_name() {
    let all = verify::builtin();
    let mut names: Vec<&str> = all.iter().map(|s| s.name()).collect();
    assert!(names.len() >= 30);
    assert!(names.iter().all(|n| n
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')));
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n);
    for (name, exp) in [
        ("triangle-inequality", Expected::False),
        ("bounded-divergence", Expected::Theorem),
        ("bounded-divergence-petz", Expected::Open),
        ("petz-below-sandwiched", Expected::False),
        ("data-processing-petz-above-2", Expected::False),
        ("data-processing-sandwiched-below-half", Expected::False),
    ] {
        assert_eq!(verify::find(name).unwrap().expected(), exp, "{name}");
    }
}

/// ρ = σ satisfies the hypothesis of the bounded-divergence statements with ε = 0; the computed
/// `D_max` may come out as −1e-16, which must not turn the instance into an error (skipped, and a
/// dead end for refinement): the margins are finite and ≥ −error.
#[test]
fn bounded_divergence_margins_accept_equal_states() {
    use qrenyi::spectral::Backend;
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for name in [
        "bounded-divergence",
        "bounded-divergence-sandwiched",
        "bounded-divergence-sinh",
    ] {
        let s = verify::find(name).unwrap();
        for t in 0..60 {
            let d = 2 + t % 3;
            let rho =
                verify::sample::state(d, verify::sample::StateEnsemble::HilbertSchmidt, &mut rng);
            let inst = Instance::new()
                .with("rho", rho.clone())
                .with("sigma", rho)
                .with_scalar("alpha", 3.0, 1.0, 1e4, Scale::Log { offset: 1.0 });
            let m = s
                .margin(&inst, Backend::default())
                .unwrap_or_else(|e| panic!("{name}, trial {t}: {e}"));
            assert!(m.value >= -m.error, "{name}: {m:?}");
        }
    }
}
