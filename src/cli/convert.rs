//! `qrenyi convert zcdp|rdp …`: sound conversions to `(ε, δ)`-DP (every value rounded up).

use super::json_number;
use qrenyi::privacy::conversion::{
    rdp_delta, rdp_epsilon, rdp_epsilon_simple, zcdp_delta, zcdp_epsilon, Converted,
};
use qrenyi::privacy::{Rdp, Zcdp};
use qrenyi::Result;

/// Arguments of `qrenyi convert`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Which side of the `(ε, δ)` trade-off is asked for: exactly one of `--epsilon` / `--delta`,
/// plus `--json`. Shared by `convert` and `dp`.
#[derive(clap::Args, Debug)]
pub struct Target {
    /// Give δ for this ε.
    #[arg(
        long,
        conflicts_with = "delta",
        required_unless_present = "delta",
        allow_negative_numbers = true
    )]
    pub epsilon: Option<f64>,
    /// Give ε for this δ.
    #[arg(long, allow_negative_numbers = true)]
    pub delta: Option<f64>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub base: super::BaseArg,
}

/// The requested conversion.
pub enum Want {
    /// δ at this ε.
    DeltaAt(f64),
    /// ε at this δ.
    EpsilonAt(f64),
}

impl Target {
    /// The requested conversion, ε in nats (clap enforces exactly one flag; the error covers a
    /// change there).
    pub fn want(&self) -> Result<Want> {
        match (self.epsilon, self.delta) {
            (Some(e), _) => Ok(Want::DeltaAt(self.base.base.to_nats(e))),
            (None, Some(d)) => Ok(Want::EpsilonAt(d)),
            (None, None) => Err(qrenyi::Error::Parse {
                what: "arguments".into(),
                reason: "give exactly one of --epsilon / --delta".into(),
            }),
        }
    }
}

#[derive(clap::Subcommand, Debug)]
enum Cmd {
    /// (ξ, ρ)-zCDP → (ε, δ): δ(ε) or ε(δ) optimised over α (seed 001, Corollary 2).
    Zcdp {
        /// zCDP slope ρ ≥ 0.
        #[arg(long = "zcdp-rho", allow_negative_numbers = true)]
        rho: f64,
        /// zCDP offset ξ ≥ 0.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        xi: f64,
        #[command(flatten)]
        target: Target,
    },
    /// (α, τ)-RDP → (ε, δ) (seed 001, Theorem 1.3 / Corollary 1; with --delta also the simpler
    /// τ + ln(1/δ)/(α−1)).
    Rdp {
        /// Rényi order α > 1.
        #[arg(long, allow_negative_numbers = true)]
        alpha: f64,
        /// RDP bound τ ≥ 0.
        #[arg(long, allow_negative_numbers = true)]
        tau: f64,
        #[command(flatten)]
        target: Target,
    },
}

fn alpha_json(c: &Converted) -> serde_json::Value {
    c.alpha.map_or(serde_json::Value::Null, json_number)
}

/// Print `key = value` (and the extra values); ε values (`key`/extras starting with `epsilon`) are
/// converted from nats to `base`.
fn emit(target: &Target, key: &str, c: &Converted, extra: &[(&str, f64)]) {
    let base = target.base.base;
    let conv = |k: &str, v: f64| {
        if k.starts_with("epsilon") {
            base.scale(v)
        } else {
            v
        }
    };
    let c = &Converted {
        value: conv(key, c.value),
        alpha: c.alpha,
    };
    let extra: Vec<(&str, f64)> = extra.iter().map(|&(k, v)| (k, conv(k, v))).collect();
    if target.json {
        let mut m = serde_json::Map::new();
        m.insert(key.into(), json_number(c.value));
        m.insert("alpha".into(), alpha_json(c));
        for (k, v) in &extra {
            m.insert((*k).into(), json_number(*v));
        }
        m.insert("base".into(), base.to_string().into());
        println!("{}", serde_json::Value::Object(m));
    } else {
        println!("{key} = {}", super::fmt_value(c.value));
        if let Some(a) = c.alpha {
            println!("alpha = {}", super::fmt_param(a));
        }
        for (k, v) in &extra {
            println!("{k} = {}", super::fmt_value(*v));
        }
        if base != qrenyi::Base::E {
            println!("(ε in {})", base.unit());
        }
    }
}

/// Run `qrenyi convert`.
pub fn run(args: &Args) -> Result<i32> {
    match &args.cmd {
        Cmd::Zcdp { rho, xi, target } => {
            let b = target.base.base;
            let z = Zcdp::new(b.to_nats(*xi), b.to_nats(*rho))?;
            match target.want()? {
                Want::DeltaAt(e) => emit(target, "delta", &zcdp_delta(z, e)?, &[]),
                Want::EpsilonAt(d) => emit(target, "epsilon", &zcdp_epsilon(z, d)?, &[]),
            }
        }
        Cmd::Rdp { alpha, tau, target } => {
            let r = Rdp::new(*alpha, target.base.base.to_nats(*tau))?;
            let at = |value| Converted {
                value,
                alpha: Some(*alpha),
            };
            match target.want()? {
                Want::EpsilonAt(d) => emit(
                    target,
                    "epsilon",
                    &at(rdp_epsilon(r, d)?),
                    &[("epsilon_simple", rdp_epsilon_simple(r, d)?)],
                ),
                Want::DeltaAt(e) => emit(target, "delta", &at(rdp_delta(r, e)?), &[]),
            }
        }
    }
    Ok(0)
}
