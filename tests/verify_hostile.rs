//! Hostile custom statements (audit21): the engine answers a typed error or a report, never a
//! panic, a "holds" on nothing verified, or a thread count that exhausts memory.

use qrenyi::verify::{self, Config, Custom, Expected, Instance, Item, Margin, Scale, Statement};
use qrenyi::Error;
use rand::SeedableRng;

fn cfg(trials: usize) -> Config {
    Config {
        trials: Some(trials),
        seed: 3,
        ..Config::default()
    }
}

/// Scalar items that are NaN, infinite or have non-finite bounds: refinement (which moves every
/// item) used to panic in `f64::clamp` ("min > max, or either was NaN"); such an item now stays as
/// it is, a movable finite one still moves within its bounds.
#[test]
fn refinement_keeps_unmovable_scalars() {
    let items = [
        Item::scalar(f64::NAN, f64::NAN, f64::NAN, Scale::Linear),
        Item::scalar(f64::INFINITY, f64::INFINITY, f64::INFINITY, Scale::Linear),
        Item::scalar(1.0, 0.0, f64::INFINITY, Scale::Linear),
        Item::scalar(1.0, f64::NEG_INFINITY, 2.0, Scale::Log { offset: 0.0 }),
        Item::scalar(0.5, 0.5, 0.5, Scale::Linear),
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for it in &items {
        for _ in 0..20 {
            match (it, it.perturbed(0.5, &mut rng)) {
                (Item::Scalar { value: a, .. }, Item::Scalar { value: b, .. }) => {
                    assert!(a.to_bits() == b.to_bits(), "{it:?} moved to {b}")
                }
                other => panic!("{other:?}"),
            }
        }
    }
    let movable = Item::scalar(0.5, 0.0, 1.0, Scale::Linear);
    let moved: Vec<f64> = (0..20)
        .map(|_| match movable.perturbed(0.5, &mut rng) {
            Item::Scalar { value, .. } => value,
            _ => unreachable!(),
        })
        .collect();
    assert!(moved.iter().all(|v| (0.0..=1.0).contains(v)));
    assert!(moved.iter().any(|&v| v != 0.5));

    // the whole engine on such an instance: refinement runs (margins are negative) without panic
    let s = Custom::new(
        "nan-scalars",
        Expected::Open,
        "scalars the search cannot move",
        |_, _| {
            Ok(Instance::new()
                .with_scalar("a", f64::NAN, f64::NAN, f64::NAN, Scale::Linear)
                .with_scalar("b", 1.0, 0.0, f64::INFINITY, Scale::Linear))
        },
        |_, _| Ok(Margin::new(-1.0, 0.0)),
    );
    let r = verify::run(&s, &cfg(8), &|_| {}).unwrap();
    assert_eq!(r.trials, 8);
}

/// A statement whose every margin is −∞ (set aside as a support-decision artefact) verified
/// nothing: an error, as when every trial fails, not "holds" with worst margin +∞.
#[test]
fn all_minus_infinity_margins_are_an_error() {
    let s = Custom::new(
        "minus-infinity",
        Expected::Theorem,
        "margin −∞ everywhere",
        |_, _| Ok(Instance::new().with_scalar("x", 1.0, 1.0, 1.0, Scale::Linear)),
        |_, _| Ok(Margin::new(f64::NEG_INFINITY, 0.0)),
    );
    let e = verify::run(&s, &cfg(5), &|_| {}).unwrap_err();
    assert!(
        matches!(&e, Error::Parse { reason, .. } if reason.contains("all 5 trials had margin −∞")),
        "{e}"
    );
    // some −∞ among finite margins: still a report (the −∞ ones counted and set aside)
    let s = Custom::new(
        "some-minus-infinity",
        Expected::Theorem,
        "margin −∞ on odd trials",
        |_, rng: &mut rand_chacha::ChaCha8Rng| {
            let x = if rand::Rng::random_bool(rng, 0.5) {
                1.0
            } else {
                0.0
            };
            Ok(Instance::new().with_scalar("x", x, x, x, Scale::Linear))
        },
        |inst: &Instance, _| {
            let x = inst.scalar("x")?;
            Ok(Margin::new(
                if x > 0.5 { 1.0 } else { f64::NEG_INFINITY },
                0.0,
            ))
        },
    );
    let r = verify::run(&s, &cfg(64), &|_| {}).unwrap();
    assert!(r.infinite > 0 && r.infinite < 64, "{}", r.infinite);
    assert_eq!(s.name(), "some-minus-infinity");
}

/// `--threads` / `threads=`: at most `MAX_THREADS_PER_CORE` per core (a million rayon workers got
/// the Python process killed for memory).
#[test]
fn thread_counts_are_bounded() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(verify::check_threads(1).unwrap(), 1);
    let most = verify::MAX_THREADS_PER_CORE * cores;
    assert_eq!(verify::check_threads(most).unwrap(), most);
    for t in [0, most + 1, 1_000_000, usize::MAX] {
        let e = verify::check_threads(t).unwrap_err();
        assert!(
            e.to_string().contains(&format!("must lie in 1..={most}")),
            "{e}"
        );
    }
}

/// A custom sampler's items are bounded by the search's limits (trust22): a state or channel of
/// dimension above `verify::MAX_DIM`, a distribution longer than `MAX_DISTRIBUTION_LEN`, is an
/// error saying by how much (every trial would validate, decompose and refine it: a 10⁴ × 10⁴
/// state held a search for hours); items at the limits still run.
#[test]
fn sampled_items_are_bounded_by_the_search_limits() {
    use ndarray::Array2;
    use num_complex::Complex64;
    let state = |d: usize| Item::state_from_generator(Array2::<Complex64>::eye(d));
    let cases: [(&str, Item, &str); 2] = [
        (
            "rho",
            state(verify::MAX_DIM + 8),
            "invalid dimension of the state \"rho\" = 40: must be at most 32, the search's limit \
             for a state (8 over",
        ),
        (
            "p",
            Item::Distribution(vec![1.0 / 2000.0; 2000]),
            "invalid length of the distribution \"p\" = 2000: must be at most 1024, the search's \
             limit for a distribution (976 over",
        ),
    ];
    for (name, item, want) in cases {
        let s = Custom::new(
            "too-large",
            Expected::Theorem,
            "an item above the limits",
            move |_, _| Ok(Instance::new().with(name, item.clone())),
            |_, _| Ok(Margin::new(1.0, 0.0)),
        );
        let e = verify::run(&s, &cfg(2), &|_| {}).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
    let s = Custom::new(
        "at-the-limits",
        Expected::Theorem,
        "items at the limits",
        move |_, _| {
            Ok(Instance::new().with("rho", state(verify::MAX_DIM)).with(
                "p",
                Item::Distribution(vec![
                    1.0 / verify::MAX_DISTRIBUTION_LEN as f64;
                    verify::MAX_DISTRIBUTION_LEN
                ]),
            ))
        },
        |_, _| Ok(Margin::new(1.0, 0.0)),
    );
    let r = verify::run(
        &s,
        &Config {
            restarts: 0,
            ..cfg(2)
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(r.trials, 2);
}

/// `restarts = 10⁹` reserved 48 GB for the ranked margins before the first trial and aborted the
/// process (trust22): restarts are bounded by `MAX_RESTARTS` (an error saying by how much), and the
/// ranking holds no more entries than there are trials.
#[test]
fn restarts_are_bounded() {
    let s = Custom::new(
        "restarts",
        Expected::Theorem,
        "a cheap statement",
        |_, _| Ok(Instance::new().with_scalar("x", 1.0, 0.0, 2.0, Scale::Linear)),
        |inst: &Instance, _| Ok(Margin::new(inst.scalar("x")?, 0.0)),
    );
    for restarts in [1_000_000_000, usize::MAX] {
        let e = verify::run(&s, &Config { restarts, ..cfg(1) }, &|_| {}).unwrap_err();
        let over = restarts - verify::MAX_RESTARTS;
        assert!(
            e.to_string()
                .contains(&format!("must lie in 0..=65536 ({over} over")),
            "{e}"
        );
    }
    // at the limit, with few trials: runs (the ranking is sized by the trials)
    let r = verify::run(
        &s,
        &Config {
            restarts: verify::MAX_RESTARTS,
            steps: Some(1),
            ..cfg(3)
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(r.trials, 3);
}
