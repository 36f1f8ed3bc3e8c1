//! `qrenyi mechanism (--kraus K.npz | --channel NAME [--d D] [--p P] [--gamma G])
//! [--trace-distance T | --registers N] [--epsilon E] [--delta D] [--family F] [--xi X]
//! [--base b] [--json]`: the privacy of a quantum channel applied to neighbouring inputs, by a
//! worst-case search over the inputs (`privacy::quantum_mechanism`). Every value is the best
//! found, a **lower bound** on the channel's parameter; for qzCDP the best pair's certified fit
//! (an upper bound for that pair) is printed beside it.

use super::{fmt_param, fmt_value, json_number, BaseArg};
use qrenyi::divergence::Family;
use qrenyi::privacy::quantum_mechanism::{
    Neighbourhood, Objective, QuantumMechanism, SearchOptions, SearchResult,
};
use qrenyi::state::Channel;
use qrenyi::{Error, Result};
use serde_json::json;

/// A named channel.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// ρ ↦ (1−p)ρ + p Tr(ρ) I/d (needs --d, --p).
    Depolarizing,
    /// Qubit amplitude damping with decay probability γ (needs --gamma).
    AmplitudeDamping,
    /// ρ ↦ (1−p)ρ + p diag(ρ) (needs --d, --p).
    Dephasing,
}

/// Arguments of `qrenyi mechanism`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kraus operators as one 3-D array (k, d_out, d_in): .npy, .npz (FILE.npz:NAME) or .json.
    #[arg(long, conflicts_with = "channel", required_unless_present = "channel")]
    kraus: Option<String>,
    /// A named channel instead of --kraus.
    #[arg(long, value_enum)]
    channel: Option<Named>,
    /// Dimension d (depolarizing, dephasing).
    #[arg(long)]
    d: Option<usize>,
    /// Probability p ∈ [0, 1] (depolarizing, dephasing).
    #[arg(long)]
    p: Option<f64>,
    /// Decay probability γ ∈ [0, 1] (amplitude-damping).
    #[arg(long)]
    gamma: Option<f64>,
    /// Neighbours: pure inputs at this trace distance τ ∈ (0, 1] (default 1).
    #[arg(long = "trace-distance", conflicts_with = "registers")]
    trace_distance: Option<f64>,
    /// Neighbours: product pure inputs on N registers (input dimension d_reg^N) differing in one.
    #[arg(long)]
    registers: Option<usize>,
    /// Also search δ(ε) at this ε.
    #[arg(long, allow_negative_numbers = true)]
    epsilon: Option<f64>,
    /// Also search ε(δ) at this δ.
    #[arg(long, allow_negative_numbers = true)]
    delta: Option<f64>,
    /// Rényi family of the qzCDP fit.
    #[arg(long, value_enum, default_value = "sandwiched")]
    family: super::qzcdp::Kind,
    /// qzCDP offset ξ ≥ 0.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    xi: f64,
    /// Random restarts of the search.
    #[arg(long, default_value_t = 6)]
    restarts: usize,
    /// Steps per restart.
    #[arg(long, default_value_t = 150)]
    iterations: usize,
    /// RNG seed of the search.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    #[command(flatten)]
    base: BaseArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn not_applicable(flag: &str, name: &str) -> Error {
    Error::Parse {
        what: flag.into(),
        reason: format!("does not apply to {name}"),
    }
}

fn need<T: Copy>(v: Option<T>, flag: &str, name: &str) -> Result<T> {
    v.ok_or_else(|| Error::Parse {
        what: flag.into(),
        reason: format!("{name} needs {flag}"),
    })
}

/// The channel and a short description.
fn channel(args: &Args) -> Result<(Channel, String)> {
    if let Some(spec) = &args.kraus {
        for (given, flag) in [
            (args.d.is_some(), "--d"),
            (args.p.is_some(), "--p"),
            (args.gamma.is_some(), "--gamma"),
        ] {
            if given {
                return Err(not_applicable(flag, "--kraus"));
            }
        }
        let st = qrenyi::io::read_stack(spec)?;
        let kraus = st.matrices.outer_iter().map(|k| k.to_owned()).collect();
        let ch = Channel::new(kraus).map_err(|e| Error::Parse {
            what: spec.clone(),
            reason: e.to_string(),
        })?;
        return Ok((ch, format!("Kraus operators from {spec}")));
    }
    let named = need(args.channel, "--channel", "mechanism")?;
    match named {
        Named::Depolarizing | Named::Dephasing => {
            let name = if named == Named::Depolarizing {
                "depolarizing"
            } else {
                "dephasing"
            };
            if args.gamma.is_some() {
                return Err(not_applicable("--gamma", name));
            }
            let (d, p) = (need(args.d, "--d", name)?, need(args.p, "--p", name)?);
            let ch = if named == Named::Depolarizing {
                Channel::depolarizing(d, p)?
            } else {
                Channel::dephasing(d, p)?
            };
            Ok((ch, format!("{name} d = {d}, p = {}", fmt_param(p))))
        }
        Named::AmplitudeDamping => {
            for (given, flag) in [(args.d.is_some(), "--d"), (args.p.is_some(), "--p")] {
                if given {
                    return Err(not_applicable(flag, "amplitude-damping"));
                }
            }
            let g = need(args.gamma, "--gamma", "amplitude-damping")?;
            Ok((
                Channel::amplitude_damping(g)?,
                format!("amplitude-damping γ = {}", fmt_param(g)),
            ))
        }
    }
}

fn neighbourhood(args: &Args, d_in: usize) -> Result<(Neighbourhood, String)> {
    match args.registers {
        Some(n) => {
            let d = (1..=d_in).find(|d| d.checked_pow(n as u32) == Some(d_in));
            match d {
                Some(d) if n >= 1 && d >= 2 => Ok((
                    Neighbourhood::Registers { n, d },
                    format!("{n} registers of dimension {d} differing in one"),
                )),
                _ => Err(Error::invalid(
                    "registers",
                    n as f64,
                    format!("the input dimension {d_in} is not d^{n} with d ≥ 2"),
                )),
            }
        }
        None => {
            let t = args.trace_distance.unwrap_or(1.0);
            Ok((
                Neighbourhood::TraceDistance(t),
                format!("pure inputs at trace distance {}", fmt_param(t)),
            ))
        }
    }
}

/// Run `qrenyi mechanism`.
pub fn run(args: &Args) -> Result<i32> {
    let (ch, what) = channel(args)?;
    let (nb, nb_what) = neighbourhood(args, ch.input_dim())?;
    let base = args.base.base;
    let opts = SearchOptions {
        restarts: args.restarts,
        iterations: args.iterations,
        seed: args.seed,
    };
    let mech = QuantumMechanism::new(ch);
    let family: Family = args.family.into();
    let search = |obj| mech.worst_case(nb, obj, &opts);
    let pure = search(Objective::PureEpsilon)?;
    let delta = args
        .epsilon
        .map(|e| search(Objective::Delta(base.to_nats(e))).map(|r| (e, r)))
        .transpose()?;
    let eps = args
        .delta
        .map(|d| search(Objective::EpsilonAtDelta(d)).map(|r| (d, r)))
        .transpose()?;
    let xi = base.to_nats(args.xi);
    let zcdp = search(Objective::Zcdp { family, xi })?;
    let evals = |r: &SearchResult| r.evaluations;
    if args.json {
        let out = json!({
            "channel": what,
            "neighbours": nb_what,
            "base": base.to_string(),
            "pure_epsilon": {"lower": json_number(base.scale(pure.value)), "evaluations": evals(&pure)},
            "delta": delta.as_ref().map(|(e, r)| json!({"epsilon": json_number(*e), "lower": json_number(r.value), "evaluations": evals(r)})),
            "epsilon": eps.as_ref().map(|(d, r)| json!({"delta": json_number(*d), "lower": json_number(base.scale(r.value)), "evaluations": evals(r)})),
            "zcdp": {
                "family": family.name(),
                "xi": json_number(args.xi),
                "lower": json_number(base.scale(zcdp.value)),
                "best_pair_upper": zcdp.pair_upper.map_or(serde_json::Value::Null, |u| json_number(base.scale(u))),
                "evaluations": evals(&zcdp),
            },
        });
        println!("{out}");
    } else {
        let unit = base.unit();
        println!("mechanism  : {what}; neighbours: {nb_what}");
        println!("(worst case found by search: lower bounds on the channel's parameters)");
        println!("pure ε     ≥ {} {unit}", fmt_value(base.scale(pure.value)));
        if let Some((e, r)) = &delta {
            println!("δ(ε = {})  ≥ {}", fmt_param(*e), fmt_value(r.value));
        }
        if let Some((d, r)) = &eps {
            println!(
                "ε(δ = {}) ≥ {} {unit}",
                fmt_param(*d),
                fmt_value(base.scale(r.value))
            );
        }
        println!(
            "qzCDP ρ*(ξ = {}) ≥ {} {unit} ({}; the best pair's certified fit ≤ {})",
            fmt_param(args.xi),
            fmt_value(base.scale(zcdp.value)),
            family.name(),
            zcdp.pair_upper
                .map_or_else(|| "n/a".into(), |u| fmt_value(base.scale(u)))
        );
    }
    Ok(0)
}
