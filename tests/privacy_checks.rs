//! Certified qzCDP check behaviour, quantum mechanisms against closed forms, and bad input.

use qrenyi::divergence::{Family, Pair};
use qrenyi::privacy::composition::{
    advanced_drv, basic, compose_qzcdp_tensor, compose_rdp, kov_delta, kov_epsilon,
};
use qrenyi::privacy::conversion::{
    cdp_delta, pure_to_qzcdp, pure_to_tcdp, rdp_epsilon, tcdp_to_mcdp, tcdp_to_pure, tcdp_to_zcdp,
    tradeoff_theorem21, zcdp_delta, zcdp_epsilon, zcdp_to_tcdp,
};
use qrenyi::privacy::quantum_mechanism::{
    Depolarizing, Neighbourhood, Objective, QuantumMechanism, SearchOptions,
};
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours, Status};
use qrenyi::privacy::{ApproxDp, PureDp, Qzcdp, Rdp, RdpCurve, Tcdp, Zcdp};
use qrenyi::state::{Channel, DensityMatrix};
use qrenyi::Error;

fn pair() -> (DensityMatrix, DensityMatrix) {
    let r = ndarray::arr2(&[[0.7, 0.2], [0.2, 0.3]]);
    let s = ndarray::arr2(&[[0.4, -0.1], [-0.1, 0.6]]);
    (
        DensityMatrix::from_real(r).unwrap(),
        DensityMatrix::from_real(s).unwrap(),
    )
}

#[test]
fn check_satisfied_pair_has_a_certified_cover() {
    let (r, s) = pair();
    let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
    let res = nb
        .check(Family::Sandwiched, 0.0, 0.38, &CertifyOptions::default())
        .unwrap();
    assert_eq!(res.status, Status::Holds);
    assert!(res.holds && res.witness_alpha.is_none() && res.margin >= 0.0);
    // the cover is contiguous from 1 to ∞ and each interval's D at its right end is below the line
    // at its left end (re-verified here from scratch with the core)
    let p = Pair::new(&r, &s).unwrap();
    assert_eq!(res.cover[0].lo, 1.0);
    assert_eq!(res.cover.last().unwrap().hi, f64::INFINITY);
    for w in res.cover.windows(2) {
        assert_eq!(w[0].hi, w[1].lo);
    }
    for c in &res.cover {
        let d = p.renyi(Family::Sandwiched, c.hi).unwrap();
        assert!(d <= 0.38 * c.lo, "interval {c:?}: D = {d}");
    }
    println!(
        "satisfied: {} intervals, {} evaluations, margin {}",
        res.cover.len(),
        res.evaluations,
        res.margin
    );
}

#[test]
fn check_violated_pair_returns_a_witness() {
    let (r, s) = pair();
    let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
    let res = nb
        .check(Family::Sandwiched, 0.0, 0.3, &CertifyOptions::default())
        .unwrap();
    assert_eq!(res.status, Status::Violated);
    let a = res.witness_alpha.unwrap();
    let d = Pair::new(&r, &s)
        .unwrap()
        .renyi(Family::Sandwiched, a)
        .unwrap();
    assert!(d > 0.3 * a);
    assert!((res.margin - (0.3 * a - d)).abs() < 1e-12 && res.margin < 0.0);
    println!(
        "violated: witness α = {a}, margin {}, {} evaluations",
        res.margin, res.evaluations
    );
}

#[test]
fn check_supports_differ_is_violated() {
    let (r, _) = pair();
    let s = DensityMatrix::diagonal(&[1.0, 0.0]).unwrap();
    let res = Neighbours::quantum(r, s)
        .unwrap()
        .check(Family::Maximal, 0.0, 10.0, &CertifyOptions::default())
        .unwrap();
    assert_eq!(res.status, Status::Violated);
    assert_eq!(res.margin, f64::NEG_INFINITY);
}

#[test]
fn check_tight_at_alpha_one_is_inconclusive_not_wrong() {
    // ξ = 0 and ρ exactly the α → 1 limit: the bound touches D at α = 1⁺, no finite cover exists
    let nb = Neighbours::classical(vec![0.5, 0.3, 0.2], vec![0.2, 0.3, 0.5]).unwrap();
    let kl = nb.curve(Family::Sandwiched, &[1.0]).unwrap()[0];
    let o = CertifyOptions {
        max_evaluations: 300,
        ..Default::default()
    };
    let res = nb.check(Family::Sandwiched, 0.0, kl, &o).unwrap();
    assert_ne!(res.status, Status::Holds);
    let res = nb
        .check(
            Family::Sandwiched,
            0.0,
            kl * (1.0 + 1e-6),
            &CertifyOptions::default(),
        )
        .unwrap();
    assert_eq!(res.status, Status::Holds);
}

#[test]
fn check_petz_warns_and_symmetric_takes_the_worse_direction() {
    let (r, s) = pair();
    let o = CertifyOptions::default();
    let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
    let res = nb.check(Family::Petz, 0.0, 1.0, &o).unwrap();
    assert_eq!(res.warnings.len(), 1);
    let fwd = nb.fit(Family::Sandwiched, 0.0, &o).unwrap().rho;
    let bwd = Neighbours::quantum(s, r)
        .unwrap()
        .fit(Family::Sandwiched, 0.0, &o)
        .unwrap()
        .rho;
    let both = nb
        .clone()
        .symmetric(true)
        .fit(Family::Sandwiched, 0.0, &o)
        .unwrap()
        .rho;
    assert_eq!(both, fwd.max(bwd));
}

#[test]
fn fit_supremum_at_alpha_one_and_at_infinity() {
    let nb = Neighbours::classical(vec![0.5, 0.3, 0.2], vec![0.2, 0.3, 0.5]).unwrap();
    let f = nb
        .fit(Family::Sandwiched, 0.0, &CertifyOptions::default())
        .unwrap();
    assert_eq!(f.alpha, Some(1.0));
    // ξ ≥ D_max: ρ* = 0 (approached at infinity)
    let f = nb
        .fit(Family::Sandwiched, 2.0, &CertifyOptions::default())
        .unwrap();
    assert_eq!((f.rho, f.alpha), (0.0, Some(f64::INFINITY)));
    // supports differ: ρ* = ∞
    let nb = Neighbours::classical(vec![0.5, 0.5], vec![1.0, 0.0]).unwrap();
    assert_eq!(
        nb.fit(Family::Maximal, 0.0, &CertifyOptions::default())
            .unwrap()
            .rho,
        f64::INFINITY
    );
}

#[test]
fn pair_views_pure_and_approximate() {
    let (r, s) = pair();
    let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
    let pe = nb.pure_epsilon().unwrap();
    let both = Pair::new(&r, &s)
        .unwrap()
        .max_relative_entropy()
        .unwrap()
        .max(Pair::new(&s, &r).unwrap().max_relative_entropy().unwrap());
    // the computed D_max plus the numerical slack η (never below the core's value)
    assert!(
        both <= pe && pe <= both + 1e-9 * both.max(1.0),
        "{pe} vs {both}"
    );
    let d = nb.delta(0.5).unwrap();
    let e = nb.epsilon(d).unwrap().value;
    assert!(e <= 0.5 + 1e-9 && nb.delta(e).unwrap() <= d);
    assert!(nb.delta(pe).unwrap() < 1e-13);
}

#[test]
fn depolarizing_search_matches_closed_form() {
    for (d, p, tau) in [(2, 0.4, 1.0), (3, 0.3, 0.5)] {
        let dep = Depolarizing::new(d, p, tau).unwrap();
        let m = QuantumMechanism::new(dep.channel().unwrap());
        let opts = SearchOptions {
            restarts: 2,
            iterations: 30,
            seed: 1,
        };
        let nbh = Neighbourhood::TraceDistance(tau);
        let s = m.worst_case(nbh, Objective::Delta(0.2), &opts).unwrap();
        let exact = dep.delta(0.2).unwrap();
        assert!(
            s.value <= exact + 1e-12 && s.value >= exact - 1e-9,
            "δ {} vs {exact}",
            s.value
        );
        let s = m.worst_case(nbh, Objective::PureEpsilon, &opts).unwrap();
        let exact = dep.pure_epsilon();
        assert!(
            s.value <= exact + 1e-12 && s.value >= exact - 1e-9,
            "ε {} vs {exact}",
            s.value
        );
    }
}

#[test]
fn depolarizing_zcdp_search_and_registers() {
    let dep = Depolarizing::new(2, 0.5, 1.0).unwrap();
    let (p, q) = dep.orthogonal_outputs();
    let exact = Neighbours::classical(p, q)
        .unwrap()
        .fit(Family::Sandwiched, 0.0, &CertifyOptions::default())
        .unwrap();
    let ch = dep.channel().unwrap();
    let opts = SearchOptions {
        restarts: 2,
        iterations: 25,
        seed: 3,
    };
    let s = QuantumMechanism::new(ch.clone())
        .worst_case(
            Neighbourhood::TraceDistance(1.0),
            Objective::Zcdp {
                family: Family::Sandwiched,
                xi: 0.0,
            },
            &opts,
        )
        .unwrap();
    assert!(
        s.value <= exact.rho && s.value >= exact.lower * (1.0 - 1e-6),
        "{} vs {:?}",
        s.value,
        exact
    );
    // two registers through N ⊗ N, neighbours differ in one register: same pure ε as one register
    let kraus: Vec<_> = ch
        .kraus()
        .iter()
        .flat_map(|a| {
            ch.kraus()
                .iter()
                .map(move |b| qrenyi::state::kron(&a.view(), &b.view()))
        })
        .collect();
    let prod = QuantumMechanism::new(Channel::new(kraus).unwrap());
    let s = prod
        .worst_case(
            Neighbourhood::Registers { n: 2, d: 2 },
            Objective::PureEpsilon,
            &SearchOptions {
                restarts: 2,
                iterations: 150,
                seed: 5,
            },
        )
        .unwrap();
    assert!(
        s.value <= dep.pure_epsilon() + 1e-9 && s.value >= dep.pure_epsilon() - 1e-4,
        "{}",
        s.value
    );
}

#[test]
fn guarantee_links_seed000() {
    let p = PureDp::new(0.5).unwrap();
    let t = pure_to_tcdp(p);
    assert_eq!((t.m(), t.z()), (0.5, 0.125));
    assert_eq!(tcdp_to_pure(t), Some(p));
    assert_eq!(tcdp_to_zcdp(t), Zcdp::from_rho(0.125).unwrap());
    let m = tcdp_to_mcdp(t).unwrap();
    assert_eq!((m.mu(), m.tau()), (0.125, 0.5625));
    assert!(tcdp_to_mcdp(Tcdp::new(f64::INFINITY, 1.0).unwrap()).is_none());
    let t = zcdp_to_tcdp(Zcdp::new(0.1, 0.2).unwrap());
    assert!(t.m().is_infinite() && t.z() >= 0.3);
    assert!(pure_to_qzcdp(p, Family::Petz).is_err());
    assert_eq!(pure_to_qzcdp(p, Family::Maximal).unwrap().rho(), 0.125);
}

/// Pure mechanisms compose to δ = 0 exactly (an exact zero is not rounded to a subnormal).
#[test]
fn basic_composition_of_pure_mechanisms_has_zero_delta() {
    let ms = vec![ApproxDp::new(0.1, 0.0).unwrap(); 10];
    assert_eq!(basic(&ms).unwrap().delta(), 0.0);
    let (rows, _) = qrenyi::privacy::composition::compare(0.1, 0.0, 10, 1e-6).unwrap();
    assert_eq!(rows[0].name, "basic");
    assert_eq!(rows[0].delta, 0.0);
}

#[test]
fn edge_cases_of_conversions() {
    assert_eq!(cdp_delta(0.0, 0.0).unwrap(), 0.0);
    assert_eq!(cdp_delta(1e3, 0.0).unwrap(), 1.0);
    assert_eq!(
        zcdp_delta(Zcdp::new(0.5, 0.0).unwrap(), 0.5).unwrap().value,
        0.0
    );
    assert!(zcdp_delta(Zcdp::new(0.5, 0.0).unwrap(), 0.1).unwrap().value > 0.0);
    assert_eq!(
        zcdp_epsilon(Zcdp::from_rho(0.1).unwrap(), 0.0)
            .unwrap()
            .value,
        f64::INFINITY
    );
    assert_eq!(
        zcdp_epsilon(Zcdp::from_rho(0.1).unwrap(), 1.0)
            .unwrap()
            .value,
        0.0
    );
    assert_eq!(
        rdp_epsilon(Rdp::new(f64::INFINITY, 0.3).unwrap(), 1e-9).unwrap(),
        0.3
    );
    // exp underflow is rounded up to the smallest positive double, never 0
    let tiny = cdp_delta(1e-3, 200.0).unwrap();
    assert!(tiny > 0.0, "{tiny}");
}

#[test]
fn bad_input_is_a_typed_error() {
    assert!(matches!(
        cdp_delta(-1.0, 0.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        cdp_delta(f64::NAN, 0.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        zcdp_epsilon(Zcdp::from_rho(1.0).unwrap(), 2.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Rdp::new(1.0, 0.1),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(RdpCurve::new(&[]).is_err());
    assert!(basic(&[]).is_err());
    assert!(advanced_drv(&[ApproxDp::new(1.0, 0.0).unwrap()], 0.0).is_err());
    assert!(kov_epsilon(1.0, 0.0, 0, 0.1).is_err());
    assert!(compose_rdp(&[
        RdpCurve::new(&[(2.0, 0.1)]).unwrap(),
        RdpCurve::new(&[(3.0, 0.1)]).unwrap()
    ])
    .is_err());
    let mixed = [
        Qzcdp::new(0.0, 0.1, Family::Petz).unwrap(),
        Qzcdp::new(0.0, 0.1, Family::Maximal).unwrap(),
    ];
    assert!(compose_qzcdp_tensor(&mixed).is_err());
    let nb = Neighbours::classical(vec![0.5, 0.5], vec![0.5, 0.5]).unwrap();
    assert!(nb
        .check(Family::Sandwiched, -1.0, 0.1, &CertifyOptions::default())
        .is_err());
    assert!(Neighbours::classical(vec![0.5, 0.6], vec![0.5, 0.5]).is_err());
    assert!(Depolarizing::new(1, 0.5, 1.0).is_err());
    let m = QuantumMechanism::new(Channel::depolarizing(2, 0.5).unwrap());
    assert!(m
        .worst_case(
            Neighbourhood::TraceDistance(0.0),
            Objective::PureEpsilon,
            &SearchOptions::default()
        )
        .is_err());
    assert!(m
        .worst_case(
            Neighbourhood::Registers { n: 2, d: 2 },
            Objective::PureEpsilon,
            &SearchOptions::default()
        )
        .is_err());
}

#[test]
fn tradeoff_theorem21_corrected_is_sound_and_the_printed_one_is_not() {
    use qrenyi::privacy::mechanisms::{Mechanism, RandomizedResponse};
    for (e, d) in [(0.5, 1e-6), (1.0, 1e-3), (0.1, 1e-9), (2.0, 0.01)] {
        // exact ε(δ) of randomized response (a pair with D_∞ = ε both ways)
        let exact = RandomizedResponse::new(e).unwrap().epsilon(d).unwrap();
        let bound = tradeoff_theorem21(e, d).unwrap();
        assert!(bound >= exact, "ε = {e}, δ = {d}: {bound} < {exact}");
        assert!(bound <= e);
        assert!(
            qrenyi::privacy::conversion::cdp_epsilon(e * e / 2.0, d).unwrap()
                <= bound * (1.0 + 1e-12)
                || bound == e
        );
    }
    // the seed's printed value ½ε²(1 + ε/√(2 ln 1/δ)) undercuts the exact ε(δ): false as printed
    let (e, d) = (0.5f64, 1e-6f64);
    let printed = 0.5 * e * e * (1.0 + e / (2.0 * (1.0 / d).ln()).sqrt());
    let exact = RandomizedResponse::new(e).unwrap().epsilon(d).unwrap();
    assert!(printed < exact, "{printed} vs {exact}");
}

/// `Neighbours::delta` at large `ε`: disjoint supports give `δ = 1` for every finite `ε` (it was 0
/// once `e^ε` overflowed), and a pair with `D_max ≤ ε` both ways gives `δ = 0` (the absolute
/// hockey-stick margin `16·d·ε_mach·e^ε` alone exceeds 1 beyond `ε ≈ 32`).
#[test]
fn pair_views_at_large_epsilon() {
    let disjoint = Neighbours::classical(vec![1.0, 0.0], vec![0.0, 1.0]).unwrap();
    for e in [1.0, 40.0, 710.0, 1e6] {
        assert_eq!(disjoint.delta(e).unwrap(), 1.0, "ε = {e}");
    }
    let (r, s) = pair();
    let nb = Neighbours::quantum(r, s).unwrap();
    for e in [40.0, 710.0] {
        assert_eq!(nb.delta(e).unwrap(), 0.0, "ε = {e}");
    }
    assert!(nb.delta(0.5).unwrap() > 0.0);
}

/// `kov_delta` against an independent brute force: the hockey-stick divergence of the `k`-fold
/// product of the canonical `(ε, δ)` pair `P̃ = (δ, (1−δ)e^ε, (1−δ), 0)/…`, `Q̃` its mirror, summed
/// over all `4^k` outcomes (KOV 2015, Thm 3.4: this pair is the worst case).
#[test]
fn kov_delta_matches_brute_force_product() {
    for &(eps, delta, k) in &[
        (1.0, 0.01, 3usize),
        (0.3, 0.1, 5),
        (0.7, 0.0, 4),
        (0.5, 0.05, 6),
    ] {
        let e = f64::exp(eps);
        let p = [
            delta,
            (1.0 - delta) * e / (1.0 + e),
            (1.0 - delta) / (1.0 + e),
            0.0,
        ];
        let q = [0.0, p[2], p[1], delta];
        for i in 0..=(2 * k) {
            let eg = i as f64 * eps / 2.0 - 0.01 * (i % 2) as f64;
            let eg = eg.max(0.0);
            let mut brute = 0.0;
            for code in 0..4usize.pow(k as u32) {
                let (mut pp, mut qq, mut c) = (1.0, 1.0, code);
                for _ in 0..k {
                    pp *= p[c % 4];
                    qq *= q[c % 4];
                    c /= 4;
                }
                brute += (pp - eg.exp() * qq).max(0.0);
            }
            let got = kov_delta(eps, delta, k, eg).unwrap();
            assert!(
                // the f64 brute force itself is accurate to ~1e-15 absolute
                got >= brute * (1.0 - 1e-12) - 1e-14 && got <= brute + 1e-12,
                "ε={eps} δ={delta} k={k} ε_g={eg}: {got} vs brute force {brute}"
            );
        }
    }
}
