//! `verify::run_cancellable`: a run whose flag is never set is `verify::run`'s run; a set flag
//! stops a long run promptly with `Error::Interrupted` (the Python binding's Ctrl-C).

use qrenyi::verify::{self, Config};
use qrenyi::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn statement() -> Box<dyn verify::Statement> {
    verify::find("kl-nonnegative").expect("built-in statement")
}

#[test]
fn an_unset_flag_changes_nothing() {
    let cfg = Config {
        trials: Some(300),
        seed: 7,
        ..Config::default()
    };
    let s = statement();
    let a = verify::run(s.as_ref(), &cfg, &|_| {}).unwrap();
    let b = verify::run_cancellable(s.as_ref(), &cfg, &|_| {}, &AtomicBool::new(false)).unwrap();
    let strip = |r: &verify::Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn a_flag_set_before_the_run_stops_it() {
    let cfg = Config {
        trials: Some(300),
        ..Config::default()
    };
    let r = verify::run_cancellable(statement().as_ref(), &cfg, &|_| {}, &AtomicBool::new(true));
    assert!(matches!(r, Err(Error::Interrupted)), "{r:?}");
}

#[test]
fn the_flag_is_polled_within_a_bounded_time() {
    let cfg = Config {
        trials: Some(100_000_000),
        ..Config::default()
    };
    let cancel = AtomicBool::new(false);
    let s = statement();
    let latency = std::thread::scope(|sc| {
        let h = sc.spawn(|| verify::run_cancellable(s.as_ref(), &cfg, &|_| {}, &cancel));
        std::thread::sleep(Duration::from_millis(200));
        let set = Instant::now();
        cancel.store(true, Ordering::Relaxed);
        let r = h.join().unwrap();
        assert!(matches!(r, Err(Error::Interrupted)), "{r:?}");
        set.elapsed()
    });
    // generous: the machine running the tests may be loaded; the flag is read per task of at
    // most 32 trials of microseconds each
    assert!(
        latency < Duration::from_secs(5),
        "stopped {latency:?} after the flag"
    );
}
