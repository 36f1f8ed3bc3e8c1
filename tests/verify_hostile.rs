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
