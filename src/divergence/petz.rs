//! The Petz–Rényi quasi-entropy `Q̄_α = Tr ρ^α σ^{1−α}` in factorised form.
//!
//! With `ρ = Σ λ_i |a_i⟩⟨a_i|`, `σ = Σ μ_j |b_j⟩⟨b_j|` and the overlaps `O_ij = |⟨a_i|b_j⟩|²`
//! (Nussbaum & Szkoła, Ann. Stat. 37 (2009)),
//!
//! ```text
//! Q̄_α = Σ_ij λ_i^α O_ij μ_j^{1−α} = Σ_i λ_i^α (O μ^{1−α})_i ,
//! ```
//!
//! so an order costs `2d` powers and one real matrix–vector product, and an α-curve of `k` orders
//! one real `d × d × k` matrix product, instead of `d²` exponentials per order. Two forms are used
//! (derivation: `docs/divergences.md`, "petz_factorised"); with `t = α − 1`, `ℓ_i = ln λ_i`,
//! `m_j = ln μ_j` and `W = Σ_ij λ_i O_ij` (the trace of ρ seen by the sum):
//!
//! * **far from α = 1** (`|ln(Q̄/W)| > 0.05`): `ln(Q̄/W) = c + c' + ln Σ_i e^{αℓ_i − c} (O v)_i − ln W`
//!   with `v_j = e^{−t m_j − c'}` and the shifts `c = max αℓ_i`, `c' = max −t m_j`, so nothing
//!   overflows at any finite α;
//! * **near α = 1** (`|ln(Q̄/W)| ≤ 0.05`, where `ln Q̄` is small and must keep relative accuracy):
//!   `e^{t(ℓ_i − m_j)} − 1 = a_i + b_j + a_i b_j` with `a_i = expm1(tℓ_i)`, `b_j = expm1(−t m_j)`,
//!   hence `N = Q̄/W − 1 = [Σ_i λ_i a_i (R_i + (O b)_i) + Σ_j c_j b_j − K]/W` with the row sums
//!   `R_i = Σ_j O_ij`, the column weights `c_j = Σ_i λ_i O_ij` and the weight `K` of ρ on `ker σ`
//!   (terms with `μ_j = 0` contribute `e^{−∞} − 1 = −1` for α < 1), and `D̄_α = log1p(N)/t`.
//!
//! Each form certifies itself or declines (returns `None`, and the caller evaluates the `d²`-term
//! Rényi mean as before): the far form needs the shifted sum above `10⁻²⁵⁰` (so terms lost to
//! underflow, each below `10⁻³⁰⁸`, cannot matter); the near form needs
//! `Σ|λ_i a_i|(R_i + (O|b|)_i) + Σ c_j|b_j| + K ≤ 256 |N W|` — it bounds the cancellation, so the
//! relative error of `N` stays within `256 × ` a few `ε`, comparable to the term-wise sum.

use super::exp_lanes::{exp_lanes, ln_lanes};
use ndarray::Array2;

/// Largest cancellation factor the near form accepts (see the module docs).
const MAX_CANCELLATION: f64 = 256.0;

/// Largest ratio of the near form's rounding magnitude to the term-wise sum's (`|t| M`) that the
/// near form accepts when its cancellation exceeds [`MAX_CANCELLATION`] (nearly equal states).
const MAX_TERMWISE_RATIO: f64 = 4.0;

/// The far form is used when `|ln(Q̄/W)| >` this: its relative error in `D̄_α` is the relative
/// error of `Q̄` (a sum of positive terms, a few `ε` times the exponents' size) over `|ln(Q̄/W)|`,
/// so at most ≈ 20× that; closer to α = 1 (or to ρ = σ) the near form keeps relative accuracy.
const FAR_MIN_LOG: f64 = 0.05;

/// Smallest shifted sum the far form accepts (see the module docs).
const MIN_SHIFTED_SUM: f64 = 1e-250;

/// The α-independent data of the factorised Petz sum (both supports, overlaps, marginals).
pub(super) struct PetzFactors {
    /// `λ_i` on `supp ρ`.
    lambda: Vec<f64>,
    /// `ln λ_i`.
    ln_lambda: Vec<f64>,
    /// `ln μ_j` on `supp σ`.
    ln_mu: Vec<f64>,
    /// `Oᵀ`: rows `j ∈ supp σ`, columns `i ∈ supp ρ`, overlaps at rounding level set to 0.
    ot: Array2<f64>,
    /// `R_i = Σ_{j ∈ supp σ} O_ij`.
    row: Vec<f64>,
    /// `c_j = Σ_i λ_i O_ij`.
    col: Vec<f64>,
    /// `K = Σ_i λ_i Σ_{j ∈ ker σ} O_ij` (0 when `supp ρ ⊆ supp σ`, where those terms are dropped).
    kernel_mass: f64,
    /// `W = Σ_i λ_i R_i + K` and `ln W`.
    weight: f64,
    ln_weight: f64,
    /// `M = Σ_i λ_i |ℓ_i| R_i + Σ_j c_j |m_j|`: the size of the log-ratios `|ℓ_i − m_j|` the
    /// term-wise sum rounds (its absolute error in `N` is `≈ ε |t| M / W` near α = 1).
    log_magnitude: f64,
}

impl PetzFactors {
    /// From `λ` (on `supp ρ`), `ln μ` (on `supp σ`), `Oᵀ` (`supp σ × supp ρ`) and `K`.
    pub(super) fn new(
        lambda: Vec<f64>,
        ln_mu: Vec<f64>,
        ot: Array2<f64>,
        kernel_mass: f64,
    ) -> Self {
        let ln_lambda: Vec<f64> = lambda.iter().map(|l| l.ln()).collect();
        let row = ot.sum_axis(ndarray::Axis(0)).to_vec();
        let col = ot.dot(&ndarray::ArrayView1::from(&lambda)).to_vec();
        let (weight, log_magnitude) =
            weight_and_magnitude(&lambda, &ln_lambda, &row, &col, &ln_mu, kernel_mass);
        PetzFactors {
            lambda,
            ln_lambda,
            ln_mu,
            ot,
            row,
            col,
            kernel_mass,
            weight,
            ln_weight: weight.ln(),
            log_magnitude,
        }
    }

    /// The Nussbaum–Szkoła terms `(λ_i O_ij / W, ln λ_i − ln μ_j)` over nonzero overlaps, with the
    /// weight on `ker σ` as one term at `+∞` (the Rényi mean only sees its total).
    pub(super) fn terms(&self) -> Vec<(f64, f64)> {
        let mut terms = Vec::with_capacity(self.ot.len() + 1);
        for (row, &lm) in self.ot.outer_iter().zip(&self.ln_mu) {
            for ((&o, &l), &ll) in row.iter().zip(&self.lambda).zip(&self.ln_lambda) {
                if o > 0.0 {
                    terms.push((l * o / self.weight, ll - lm));
                }
            }
        }
        if self.kernel_mass > 0.0 {
            terms.push((self.kernel_mass / self.weight, f64::INFINITY));
        }
        terms
    }

    /// Umegaki `D(ρ‖σ) = Σ_ij (λ_i O_ij / W)(ℓ_i − m_j) = [Σ_i λ_i ℓ_i R_i − Σ_j c_j m_j]/W` when
    /// `supp ρ ⊆ supp σ`; `None` when the two sums cancel by more than [`MAX_CANCELLATION`].
    ///
    /// The term-wise sum has the same absolute error `≈ ε M / W` (each `ℓ_i − m_j` is rounded), so
    /// this form is accepted whenever the two sums are finite.
    pub(super) fn umegaki(&self) -> Option<f64> {
        umegaki_sum(
            &self.lambda,
            &self.ln_lambda,
            &self.row,
            &self.col,
            &self.ln_mu,
            self.weight,
        )
    }

    /// `D̄_α(ρ‖σ)` at each finite order `α ≠ 1` (for α > 1 the caller has checked
    /// `supp ρ ⊆ supp σ`); `None` where neither form certifies its accuracy.
    pub(super) fn renyi(&self, alphas: &[f64]) -> Vec<Option<f64>> {
        let k = alphas.len();
        let ns = self.ln_mu.len();
        let max_of = |it: &mut dyn Iterator<Item = f64>| it.fold(f64::NEG_INFINITY, f64::max);
        // far form: v_j = e^{−t m_j − c'} for every order at once, then one matrix product
        let shift_mu: Vec<f64> = alphas
            .iter()
            .map(|&a| max_of(&mut self.ln_mu.iter().map(|m| (1.0 - a) * m)))
            .collect();
        let v = Array2::from_shape_fn((ns, k), |(j, c)| {
            ((1.0 - alphas[c]) * self.ln_mu[j] - shift_mu[c]).exp()
        });
        let y = self.ot.t().dot(&v);
        let mut out = vec![None; k];
        let mut near = Vec::new();
        for (c, &a) in alphas.iter().enumerate() {
            let shift = max_of(&mut self.ln_lambda.iter().map(|l| a * l));
            let s: f64 = self
                .ln_lambda
                .iter()
                .zip(y.column(c))
                .map(|(l, yi)| (a * l - shift).exp() * yi)
                .sum();
            match far_form(shift + shift_mu[c], s, s.ln(), self.ln_weight, a) {
                Far::Value(v) => out[c] = Some(v),
                Far::Near => near.push(c),
                Far::Declined => {}
            }
        }
        if !near.is_empty() {
            self.near_one(alphas, &near, &mut out);
        }
        out
    }

    /// The near form for the orders `alphas[c]`, `c ∈ near` (one matrix product for all of them).
    fn near_one(&self, alphas: &[f64], near: &[usize], out: &mut [Option<f64>]) {
        // columns 2n, 2n+1: b and |b| of order near[n]
        let b = Array2::from_shape_fn((self.ln_mu.len(), 2 * near.len()), |(j, c)| {
            let x = (-(alphas[near[c / 2]] - 1.0) * self.ln_mu[j]).exp_m1();
            if c % 2 == 0 {
                x
            } else {
                x.abs()
            }
        });
        let ob = self.ot.t().dot(&b);
        for (n, &c) in near.iter().enumerate() {
            let t = alphas[c] - 1.0;
            let (mut num, mut mag) = (-self.kernel_mass, self.kernel_mass);
            for (i, (&l, &ll)) in self.lambda.iter().zip(&self.ln_lambda).enumerate() {
                let la = l * (t * ll).exp_m1();
                num += la * (self.row[i] + ob[[i, 2 * n]]);
                mag += la.abs() * (self.row[i] + ob[[i, 2 * n + 1]]);
            }
            for (cj, bj) in self.col.iter().zip(b.column(2 * n)) {
                num += cj * bj;
                mag += (cj * bj).abs();
            }
            out[c] = near_form(num, mag, self.weight, t, self.log_magnitude);
        }
    }
}

/// The far form's decision for one order `a`, shared by [`PetzFactors::renyi`] and
/// [`PetzStack::renyi`]: from the shifted sum `sum` (shifts adding to `shift`), its logarithm and
/// `ln W`, `ln Q = shift + ln sum − ln W`; the value `ln Q/(a − 1)` where `|ln Q| > FAR_MIN_LOG`, the near
/// form below it, declined where the sum underflowed or `ln Q` is not finite.
enum Far {
    Value(f64),
    Near,
    Declined,
}

#[inline(always)]
fn far_form(shift: f64, sum: f64, ln_sum: f64, ln_weight: f64, a: f64) -> Far {
    let ln_q = shift + ln_sum - ln_weight;
    far_decision(sum, ln_q, ln_q / (a - 1.0))
}

/// [`far_form`]'s decision from the shifted sum, `ln Q` and the quotient `ln Q/(a − 1)` computed
/// beforehand (the lanes of [`PetzStack`] compute the last two for all their orders at once).
#[inline(always)]
fn far_decision(sum: f64, ln_q: f64, value: f64) -> Far {
    if !(sum > MIN_SHIFTED_SUM && ln_q.is_finite()) {
        Far::Declined
    } else if ln_q.abs() > FAR_MIN_LOG {
        Far::Value(value)
    } else {
        Far::Near
    }
}

/// The near form's value `ln(1 + N/W)/t` from the numerator `N`, its magnitude `M_N` and
/// `t = a − 1`, shared by [`PetzFactors`] and [`PetzStack`]: certified when accurate relative to
/// `N`, or as accurate as the term-wise sum (absolute error `ε|t|M`); `None` otherwise.
#[inline(always)]
fn near_form(num: f64, mag: f64, weight: f64, t: f64, log_magnitude: f64) -> Option<f64> {
    let ratio = num / weight;
    let certified =
        mag <= MAX_CANCELLATION * num.abs() || mag <= MAX_TERMWISE_RATIO * t.abs() * log_magnitude;
    (num.is_finite() && num != 0.0 && certified && ratio > -1.0).then(|| ratio.ln_1p() / t)
}

/// `W = Σ_i λ_i R_i + K` and `M = Σ_i |λ_i ℓ_i R_i| + Σ_j |c_j m_j|` (module docs).
fn weight_and_magnitude(
    lambda: &[f64],
    ln_lambda: &[f64],
    row: &[f64],
    col: &[f64],
    ln_mu: &[f64],
    kernel_mass: f64,
) -> (f64, f64) {
    let weight = lambda.iter().zip(row).map(|(l, r)| l * r).sum::<f64>() + kernel_mass;
    let log_magnitude = lambda
        .iter()
        .zip(ln_lambda)
        .zip(row)
        .map(|((l, ll), r): ((&f64, &f64), &f64)| (l * ll * r).abs())
        .sum::<f64>()
        + col
            .iter()
            .zip(ln_mu)
            .map(|(c, m)| (c * m).abs())
            .sum::<f64>();
    (weight, log_magnitude)
}

/// Umegaki `[Σ_i λ_i ℓ_i R_i − Σ_j c_j m_j]/W` when the two sums are finite.
fn umegaki_sum(
    lambda: &[f64],
    ln_lambda: &[f64],
    row: &[f64],
    col: &[f64],
    ln_mu: &[f64],
    weight: f64,
) -> Option<f64> {
    let num: f64 = lambda
        .iter()
        .zip(ln_lambda)
        .zip(row)
        .map(|((l, ll), r)| l * ll * r)
        .sum::<f64>()
        - col.iter().zip(ln_mu).map(|(c, m)| c * m).sum::<f64>();
    num.is_finite().then(|| num / weight)
}

/// The far form's shifts, shifted sums and their logarithms at [`CURVE_LANES`] orders.
type Lanes3 = ([f64; CURVE_LANES], [f64; CURVE_LANES], [f64; CURVE_LANES]);

/// The first index where `better(v[i], best)` no longer finds a better value (the first extreme).
fn arg_extreme(v: &[f64], better: impl Fn(f64, f64) -> bool) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if better(x, v[best]) {
            best = i;
        }
    }
    best
}

/// [`PetzFactors`] on stack arrays for one pair of dimension `N ≤ 16` (the small-pair kernel,
/// `divergence::small`, docs/divergences.md "petz_factorised_small"): the same data, the same far
/// and near forms with the same certificates and constants, evaluated per order by plain loops in
/// place of `ndarray`'s products (sums in index order, so the values can differ from
/// [`PetzFactors`]' in the last bits only), no heap allocation. `None` from [`Self::renyi`] /
/// [`Self::umegaki`]: the form declines, the caller evaluates the `d²` Nussbaum–Szkoła terms.
pub(super) struct PetzStack<const N: usize> {
    /// `λ_x`, `ln λ_x` for the `r` indices of `supp ρ`.
    lambda: [f64; N],
    ln_lambda: [f64; N],
    r: usize,
    /// `ln μ_y` for the `s` indices of `supp σ`.
    ln_mu: [f64; N],
    s: usize,
    /// `Oᵀ`: `ot[y][x]` (overlaps at rounding level set to 0).
    ot: [[f64; N]; N],
    row: [f64; N],
    col: [f64; N],
    kernel_mass: f64,
    weight: f64,
    ln_weight: f64,
    log_magnitude: f64,
    /// Indices of the largest `ℓ_x` and of the largest and smallest `m_y`: at every order one
    /// shifted exponent of each factor is exactly `0` there (`e^0 = 1`, no exponential needed).
    top_lambda: usize,
    top_mu: usize,
    bottom_mu: usize,
}

/// Orders per chunk of [`PetzStack::renyi_chunk`] (one AVX-512 register of doubles, two AVX2).
pub(super) const CURVE_LANES: usize = 8;

// Index loops over the leading `r`/`s` entries of several arrays at once.
#[allow(clippy::needless_range_loop)]
impl<const N: usize> PetzStack<N> {
    /// From `λ` (`r` values on `supp ρ`), `ln μ` (`s` values on `supp σ`), `Oᵀ` (`s × r` in the
    /// leading block of `ot`) and `K` — [`PetzFactors::new`]'s arguments.
    pub(super) fn new(
        lambda: [f64; N],
        r: usize,
        ln_mu: [f64; N],
        s: usize,
        ot: [[f64; N]; N],
        kernel_mass: f64,
    ) -> Self {
        let mut ln_lambda = [0.0; N];
        for x in 0..r {
            ln_lambda[x] = lambda[x].ln();
        }
        let (mut row, mut col) = ([0.0; N], [0.0; N]);
        for y in 0..s {
            let mut c = 0.0;
            for x in 0..r {
                row[x] += ot[y][x];
                c += ot[y][x] * lambda[x];
            }
            col[y] = c;
        }
        let (weight, log_magnitude) = weight_and_magnitude(
            &lambda[..r],
            &ln_lambda[..r],
            &row[..r],
            &col[..s],
            &ln_mu[..s],
            kernel_mass,
        );
        PetzStack {
            lambda,
            ln_lambda,
            r,
            ln_mu,
            s,
            ot,
            row,
            col,
            kernel_mass,
            weight,
            ln_weight: weight.ln(),
            log_magnitude,
            top_lambda: arg_extreme(&ln_lambda[..r], |x, y| x > y),
            top_mu: arg_extreme(&ln_mu[..s], |x, y| x > y),
            bottom_mu: arg_extreme(&ln_mu[..s], |x, y| x < y),
        }
    }

    /// `Σ_y Oᵀ_yx f_y` for every `x < r`.
    fn times(&self, f: &[f64; N]) -> [f64; N] {
        let mut out = [0.0; N];
        for y in 0..self.s {
            for x in 0..self.r {
                out[x] += self.ot[y][x] * f[y];
            }
        }
        out
    }

    /// [`PetzFactors::umegaki`].
    pub(super) fn umegaki(&self) -> Option<f64> {
        let (r, s) = (self.r, self.s);
        umegaki_sum(
            &self.lambda[..r],
            &self.ln_lambda[..r],
            &self.row[..r],
            &self.col[..s],
            &self.ln_mu[..s],
            self.weight,
        )
    }

    /// [`PetzFactors::renyi`] at one finite order `α ≠ 1` (for α > 1 the caller has checked
    /// `supp ρ ⊆ supp σ`). The far form's exponentials are [`exp_lanes`]' (one lane), so the value
    /// is [`Self::renyi_chunk`]'s at the same order bit for bit.
    pub(super) fn renyi(&self, a: f64) -> Option<f64> {
        let (ln_q, value, sum) = self.far_lanes([a]);
        self.finish(a, ln_q[0], value[0], sum[0])
    }

    /// [`Self::renyi`] at [`CURVE_LANES`] orders (each finite, `≠ 1`, and `< 1` unless
    /// `supp ρ ⊆ supp σ`): the far form's sums for all of them at once (AVX-512 or AVX2 where the
    /// CPU has it; every lane runs [`Self::renyi`]'s operations, so each value equals the single
    /// call's bit for bit — docs/divergences.md, "petz_curve_lanes").
    pub(super) fn renyi_chunk(&self, a: [f64; CURVE_LANES]) -> [Option<f64>; CURVE_LANES] {
        let (ln_q, value, sum) = self.far_chunk(a);
        std::array::from_fn(|l| self.finish(a[l], ln_q[l], value[l], sum[l]))
    }

    /// [`Self::far_lanes`] on [`CURVE_LANES`] orders, compiled for AVX-512 or AVX2 where the CPU
    /// has it (the same operations: Rust contracts no `a·b + c`).
    #[inline(always)]
    fn far_chunk(&self, a: [f64; CURVE_LANES]) -> Lanes3 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked just above).
                return unsafe { self.far_chunk_avx512(a) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { self.far_chunk_avx2(a) };
            }
        }
        self.far_lanes(a)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn far_chunk_avx512(&self, a: [f64; CURVE_LANES]) -> Lanes3 {
        self.far_lanes(a)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn far_chunk_avx2(&self, a: [f64; CURVE_LANES]) -> Lanes3 {
        self.far_lanes(a)
    }

    /// The far form's `ln Q = (c + c') + ln S − ln W`, its quotient `ln Q/(a − 1)` and the shifted
    /// sums `S = Σ_x e^{aℓ_x − c} (O v)_x` at `L` orders,
    /// lane by lane the operations of one order (`v_y = e^{(1−a)m_y − c'}`, the product `Oᵀ v` over
    /// `y = 0, 1, …`, the sum over `x = 0, 1, …`). Where a shifted exponent is exactly `±0` in every
    /// lane — at the largest `ℓ_x` (α > 0, so `c = α ℓ_max` rounded, and `α ℓ_max − c = 0`), at the
    /// largest `m_y` when every lane has α < 1 and at the smallest when every lane has α > 1 — the
    /// exponential is not evaluated: [`exp_lanes`] returns exactly `1` there, so the values are the
    /// same with or without the skip.
    #[inline(always)]
    fn far_lanes<const L: usize>(&self, a: [f64; L]) -> ([f64; L], [f64; L], [f64; L]) {
        let (r, s) = (self.r, self.s);
        let c: [f64; L] = std::array::from_fn(|l| 1.0 - a[l]);
        let one_mu = if c.iter().all(|&c| c > 0.0) {
            self.top_mu
        } else if c.iter().all(|&c| c < 0.0) {
            self.bottom_mu
        } else {
            usize::MAX
        };
        // the largest exponent (ties and order do not matter: `max` is exact)
        let larger = |x: f64, y: f64| if y > x { y } else { x };
        let mut shift_mu = [f64::NEG_INFINITY; L];
        for y in 0..s {
            for l in 0..L {
                shift_mu[l] = larger(shift_mu[l], c[l] * self.ln_mu[y]);
            }
        }
        let mut ov = [[0.0; L]; N];
        for y in 0..s {
            let v = if y == one_mu {
                [1.0; L]
            } else {
                exp_lanes::<L>(std::array::from_fn(|l| c[l] * self.ln_mu[y] - shift_mu[l]))
            };
            for x in 0..r {
                for l in 0..L {
                    ov[x][l] += self.ot[y][x] * v[l];
                }
            }
        }
        let mut shift = [f64::NEG_INFINITY; L];
        for x in 0..r {
            for l in 0..L {
                shift[l] = larger(shift[l], a[l] * self.ln_lambda[x]);
            }
        }
        let mut sum = [0.0; L];
        for x in 0..r {
            let e = if x == self.top_lambda {
                [1.0; L]
            } else {
                exp_lanes::<L>(std::array::from_fn(|l| a[l] * self.ln_lambda[x] - shift[l]))
            };
            for l in 0..L {
                sum[l] += e[l] * ov[x][l];
            }
        }
        let ln_sum = ln_lanes(sum);
        // the far form's `ln Q` and its quotient by `a − 1`, lane by lane (`far_form`'s operations)
        let ln_q: [f64; L] =
            std::array::from_fn(|l| (shift[l] + shift_mu[l]) + ln_sum[l] - self.ln_weight);
        let value = std::array::from_fn(|l| ln_q[l] / (a[l] - 1.0));
        (ln_q, value, sum)
    }

    /// The far form's decision from `ln Q`, its quotient and the shifted sum, else the near form
    /// (`None`: both decline).
    #[inline(always)]
    fn finish(&self, a: f64, ln_q: f64, value: f64, sum: f64) -> Option<f64> {
        match far_decision(sum, ln_q, value) {
            Far::Value(v) => return Some(v),
            Far::Declined => return None,
            Far::Near => {}
        }
        // the near form
        let (r, s) = (self.r, self.s);
        let t = a - 1.0;
        let (mut b, mut b_abs) = ([0.0; N], [0.0; N]);
        for y in 0..s {
            b[y] = (-t * self.ln_mu[y]).exp_m1();
            b_abs[y] = b[y].abs();
        }
        let (ob, ob_abs) = (self.times(&b), self.times(&b_abs));
        let (mut num, mut mag) = (-self.kernel_mass, self.kernel_mass);
        for x in 0..r {
            let la = self.lambda[x] * (t * self.ln_lambda[x]).exp_m1();
            num += la * (self.row[x] + ob[x]);
            mag += la.abs() * (self.row[x] + ob_abs[x]);
        }
        for y in 0..s {
            num += self.col[y] * b[y];
            mag += (self.col[y] * b[y]).abs();
        }
        near_form(num, mag, self.weight, t, self.log_magnitude)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A `PetzStack` of random data: `r` eigenvalues `λ` (some equal), `s` logarithms `m`, random
    /// overlaps (some zero), optionally a kernel weight.
    fn random_stack<const N: usize>(rng: &mut impl Rng, r: usize, s: usize) -> PetzStack<N> {
        let mut lambda = [0.0; N];
        for l in lambda.iter_mut().take(r) {
            *l = 10f64.powf(rng.random_range(-16.0..0.0));
        }
        if r > 2 {
            lambda[1] = lambda[0];
        }
        let mut ln_mu = [0.0; N];
        for m in ln_mu.iter_mut().take(s) {
            *m = -rng.random_range(0.0..37.0);
        }
        let mut ot = [[0.0; N]; N];
        for row in ot.iter_mut().take(s) {
            for o in row.iter_mut().take(r) {
                *o = if rng.random_range(0.0..1.0) < 0.1 {
                    0.0
                } else {
                    rng.random_range(0.0..1.0)
                };
            }
        }
        let kernel = if rng.random_range(0.0..1.0) < 0.3 {
            rng.random_range(0.0..0.1)
        } else {
            0.0
        };
        PetzStack::new(lambda, r, ln_mu, s, ot, kernel)
    }

    fn same(a: &[f64], b: &[f64]) -> bool {
        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// `petz_chunk_paths_agree`: the far form's chunk on the portable, AVX2 and AVX-512 builds (those
    /// the CPU has) and the one-lane single call give the same bits, and `renyi_chunk` equals
    /// `renyi` order by order, for orders 10⁻³…10⁶ around 1 in mixed chunks (both sides of 1 in
    /// one chunk and not), d = 1…16.
    #[test]
    fn petz_chunk_paths_agree() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        for case in 0..400 {
            let (r, s) = (1 + case % 16, 1 + (case / 16) % 16);
            let stack = random_stack::<16>(&mut rng, r, s);
            let a: [f64; CURVE_LANES] = std::array::from_fn(|l| match (case + l) % 5 {
                0 => 10f64.powf(rng.random_range(-3.0..6.0)),
                1 => 1.0 + rng.random_range(-1.0..1.0) * 10f64.powf(rng.random_range(-9.0..0.0)),
                2 if case % 2 == 0 => rng.random_range(0.0..1.0),
                _ => rng.random_range(1.0..10.0),
            });
            let portable = stack.far_lanes(a);
            let mut got = vec![portable];
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    got.push(unsafe { stack.far_chunk_avx2(a) });
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    got.push(unsafe { stack.far_chunk_avx512(a) });
                }
            }
            got.push(stack.far_chunk(a));
            for g in &got {
                assert!(same(&g.0, &portable.0) && same(&g.1, &portable.1));
                assert!(same(&g.2, &portable.2), "case {case}");
            }
            let chunk = stack.renyi_chunk(a);
            for l in 0..CURVE_LANES {
                let one = stack.far_lanes([a[l]]);
                assert!(same(
                    &[one.0[0], one.1[0], one.2[0]],
                    &[portable.0[l], portable.1[l], portable.2[l]]
                ));
                let single = stack.renyi(a[l]);
                assert_eq!(
                    chunk[l].map(f64::to_bits),
                    single.map(f64::to_bits),
                    "case {case} α={}",
                    a[l]
                );
            }
        }
    }
}
