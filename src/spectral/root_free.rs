//! The Pal–Walker–Kahan root-free QL iteration for the eigenvalues of a real symmetric tridiagonal
//! matrix (LAPACK `dsterf`'s QL branch; Parlett, *The Symmetric Eigenvalue Problem*, §8.15), with
//! its step regrouped so that it waits on one division (docs/divergences.md, "tridiagonal_values").
//!
//! [`root_free_ql`] is the iteration on `(d, e²)` of matrices already scaled to entries of order
//! one: the fixed-size values solve of `ρ − γσ` and `D ρ' D` (`difference::tridiagonal_values`)
//! runs it on stack arrays. [`sterf`] is the whole of `dsterf`'s job on any tridiagonal matrix —
//! exact power-of-two scaling, the split into unreduced blocks, QL or QR by which end of a block is
//! larger — for the tridiagonal matrices LAPACK's reductions (`zhetrd`, `dsytrd`) produce.

/// Sweeps allowed per eigenvalue (LAPACK `dsterf`'s `MAXIT`): at most `30 n` in all.
pub(crate) const SWEEPS_PER_VALUE: usize = 30;

/// The smallest `r = p + e_i²` at which a step is regrouped (`2⁻²⁰⁰`; with [`NUM_FROM`] and a
/// normal `r p_old`, the regrouped step is taken only where all its quantities are normal numbers).
/// The numerator `n` of a block of size `s` against the matrix's scale scales as `s³` and `n²` as
/// `s⁶` where `dsterf`'s quantities scale as `s` and `s²` (review25: unguarded, the step returned
/// no values for blocks of size `10⁻¹⁴⁰…10⁻¹⁶²` and lost the relative accuracy of blocks from
/// `10⁻⁴⁷` down).
const REGROUPED_FROM: f64 = f64::from_bits((1023 - 200) << 52);

/// The smallest `|n|` at which a step is regrouped (`2⁻⁵¹¹`, so that `n²` is a normal number):
/// `n = rγ` is small where `γ` is, whatever `r` (review25b: `d = 0`, `e = (10⁻¹³⁰, 10⁻¹³, 10⁻²,
/// 10⁻³¹, 10⁻¹⁷)` lost the largest value to `n²`'s underflow, 10⁶ n ε ‖T‖ off).
const NUM_FROM: f64 = f64::from_bits((1023 - 511) << 52);

/// The root-free QL iteration on the symmetric tridiagonal matrix with diagonal `d` and squared
/// off-diagonal `e2` (`e2[k] = e_k²`, `k < n − 1`; `e2.len() ≥ n − 1`), both overwritten: `d`
/// ends holding the eigenvalues (in no order). `false` where more than `max_sweeps` sweeps were
/// needed. The entries must be of order one (the caller scales by a power of two): no square
/// below overflows; a step is regrouped only where its quantities are normal numbers
/// ([`REGROUPED_FROM`], [`NUM_FROM`]), `dsterf`'s own step elsewhere.
///
/// Each sweep deflates at the top of the unreduced block `l … m` ([`block_end`]), with
/// Wilkinson's shift from the block's leading `2 × 2` ([`wilkinson_shift`]); a `2 × 2` block is
/// solved in closed form ([`eigenvalues_2x2`]). Cost: `O(n)` per sweep, about two sweeps per eigenvalue; accuracy:
/// backward stable like `dsterf` — the values are exact for `T + E`, `‖E‖₂ ≤ c n ε ‖T‖₂`.
#[inline(always)]
pub(crate) fn root_free_ql(d: &mut [f64], e2: &mut [f64], max_sweeps: usize) -> bool {
    let n = d.len();
    let mut sweeps = 0;
    let mut l = 0;
    while l < n {
        let m = block_end(d, e2, l);
        if m == l {
            l += 1;
            continue;
        }
        if m == l + 1 {
            let (rt1, rt2) = eigenvalues_2x2(d[l], e2[l], d[l + 1]);
            d[l] = rt1;
            d[l + 1] = rt2;
            e2[l] = 0.0;
            l += 2;
            continue;
        }
        sweeps += 1;
        if sweeps > max_sweeps {
            return false;
        }
        let sigma = wilkinson_shift(d[l], e2[l], d[l + 1]);
        let (mut c, mut s) = (1.0f64, 0.0f64);
        let mut gamma = d[m] - sigma;
        let mut p = gamma * gamma;
        let mut i = m;
        while i > l {
            i -= 1;
            let bb = e2[i];
            let r = p + bb;
            if i + 1 != m {
                e2[i + 1] = s * r;
            }
            let oldc = c;
            let oldgam = gamma;
            let alpha = d[i];
            // dsterf's c = p/r, s = e²/r, γ ← c(α − σ) − sγ, p ← γ²/c, regrouped: with
            // n = p(α − σ) − e²γ, γ ← n/r and p ← n²/(rp) — the next step waits on one division
            // (n²/(rp)) instead of two in a row (c, then γ²/c). Only where r, n² and rp are
            // normal numbers (else dsterf's own step): there each regrouped quantity is a small
            // relative perturbation of dsterf's
            let num = p * (alpha - sigma) - bb * oldgam;
            let rp = r * p;
            if r >= REGROUPED_FROM && num.abs() >= NUM_FROM && rp >= f64::MIN_POSITIVE {
                let inv = 1.0 / r;
                c = p * inv;
                s = bb * inv;
                gamma = num * inv;
                p = (num * num) / rp;
            } else {
                c = p / r;
                s = bb / r;
                gamma = c * (alpha - sigma) - s * oldgam;
                p = if c != 0.0 {
                    (gamma * gamma) / c
                } else {
                    oldc * bb
                };
            }
            d[i + 1] = oldgam + (alpha - gamma);
        }
        e2[l] = s * p;
        d[l] = sigma + gamma;
    }
    true
}

/// The eigenvalues (ascending) of the real symmetric tridiagonal matrix with diagonal `d` and
/// off-diagonal `e` (both overwritten, `d` with the values) — LAPACK `dsterf`'s job by
/// [`root_free_ql`]: `false` for a non-finite entry, an `e` shorter than `n − 1`, or where the
/// iteration exceeds `30 n` sweeps in a block (the caller then calls `dsterf` on its own copy).
///
/// 1. `T` is scaled by the power of two that brings its largest entry near 1 — exact but for
///    entries the scaling pushes below the normal range (each changes by ≤ 2⁻¹⁰⁷⁴ after scaling,
///    ≲ 2⁻¹⁰⁷⁰ ‖T‖ before) — and `e` squared (an `e_k` below 2⁻⁵³⁷ after scaling may flush to 0,
///    a change ≤ 2⁻⁵³⁷ ‖T‖): both far inside the backward error.
/// 2. Each unreduced block (ended by an `e_k²` negligible as in [`root_free_ql`]) is iterated as
///    QL when its last diagonal entry is at least its first in modulus, else reversed first (QR on
///    the block, `dsterf`'s choice: the iteration deflates at the end that converges first on
///    graded matrices).
/// 3. Unscaled and sorted ascending.
///
/// Cost `O(n²)` (about `2n` sweeps of length ≤ `n`), no allocation; accuracy as `dsterf`:
/// backward stable, the values exact for `T + E`, `‖E‖₂ ≤ c n ε ‖T‖₂` — with `dsterf`'s one
/// weakness: where `p` reaches the subnormal range inside a sweep (entries ≲ 10⁻¹⁶⁰ ‖T‖ in a
/// particular arrangement) `γ²/c` loses digits (review25b: 22 of 20,000 log-uniform matrices with
/// entries down to 10⁻³⁰⁰, against 15 for `dsterf`; docs/divergences.md, "tridiagonal_values").
// its callers follow LAPACK's reductions (feature `openblas`); the tests run it in every build
#[cfg_attr(not(feature = "openblas"), allow(dead_code))]
pub(crate) fn sterf(d: &mut [f64], e: &mut [f64]) -> bool {
    let n = d.len();
    if n == 0 {
        return true;
    }
    let Some(e) = e.get_mut(..n - 1) else {
        return false;
    };
    let mut big = 0.0f64;
    for x in d.iter().chain(e.iter()) {
        if !x.is_finite() {
            return false;
        }
        big = big.max(x.abs());
    }
    let scale = crate::spectral::small::power_of_two_scale(big);
    for x in d.iter_mut() {
        *x *= scale;
    }
    for x in e.iter_mut() {
        *x *= scale;
        *x *= *x;
    }
    let mut start = 0;
    while start < n {
        let end = block_end(d, e, start);
        if end > start {
            let (db, eb) = (&mut d[start..=end], &mut e[start..end]);
            if db[db.len() - 1].abs() < db[0].abs() {
                db.reverse();
                eb.reverse();
            }
            if !root_free_ql(db, eb, SWEEPS_PER_VALUE * db.len()) {
                return false;
            }
        }
        start = end + 1;
    }
    for x in d.iter_mut() {
        *x /= scale;
    }
    d.sort_unstable_by(f64::total_cmp);
    d.iter().all(|x| x.is_finite())
}

/// The last row `m ≥ from` of the unreduced block that starts at `from`: the first `k ≥ from`
/// with `e_k² ≤ ε²(|d_k| + |d_{k+1}|)²` (that `e2[k]` is set to 0: `|e_k| ≤ 2ε‖T‖₂` neglected),
/// or `n − 1`.
#[inline(always)]
fn block_end(d: &[f64], e2: &mut [f64], from: usize) -> usize {
    let eps2 = f64::EPSILON * f64::EPSILON;
    let mut m = from;
    while m + 1 < d.len() {
        let t = d[m].abs() + d[m + 1].abs();
        if e2[m] <= eps2 * t * t {
            e2[m] = 0.0;
            break;
        }
        m += 1;
    }
    m
}

/// Wilkinson's shift for the root-free QL sweep: the eigenvalue of `[[a, b], [b, c]]` nearer `a`,
/// from `b² = e2 > 0`, as `a − b²/(δ + sign(δ)√(δ² + b²))`, `δ = (c − a)/2` — `dsterf`'s
/// `a − b/(g + sign(g)√(g² + 1))`, `g = δ/b`, with `b` cancelled: no square root of `e2` and one
/// division, so the sweep starts ≈ 40 cycles earlier. The denominator is at least `√e2 ≥ 2⁻⁵³⁷`
/// (the two terms have one sign), and `δ²` cannot overflow on the scaled matrix (`|δ| ≤ ‖T‖₂`,
/// entries of order one), so the shift is finite. Any finite shift leaves the iteration backward
/// stable; it only sets how fast the sweeps converge.
#[inline(always)]
fn wilkinson_shift(a: f64, e2: f64, c: f64) -> f64 {
    let delta = 0.5 * (c - a);
    a - e2 / (delta + (delta * delta + e2).sqrt().copysign(delta))
}

/// The eigenvalues `(rt1, rt2)`, `|rt1| ≥ |rt2|`, of the real symmetric `[[a, b], [b, c]]` from
/// `b²` (LAPACK `dlae2`: the smaller one from the determinant, no cancellation).
fn eigenvalues_2x2(a: f64, b2: f64, c: f64) -> (f64, f64) {
    let sm = a + c;
    let df = a - c;
    // the entries are of order one here (scaled): the square neither overflows nor matters
    // when it underflows
    let rt = (df * df + 4.0 * b2).sqrt();
    let (acmx, acmn) = if a.abs() > c.abs() { (a, c) } else { (c, a) };
    if sm < 0.0 {
        let rt1 = 0.5 * (sm - rt);
        (rt1, (acmx / rt1) * acmn - b2 / rt1)
    } else if sm > 0.0 {
        let rt1 = 0.5 * (sm + rt);
        (rt1, (acmx / rt1) * acmn - b2 / rt1)
    } else {
        (0.5 * rt, -0.5 * rt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of `T` = diag(1) ⊕ (the path of `n − 1` nodes with weight `t`): `1` and
    /// `2t cos(jπ/n)`, `j = 1 … n − 1`, ascending.
    fn path_block(n: usize, t: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut d = vec![0.0; n];
        d[0] = 1.0;
        let e: Vec<f64> = (0..n - 1).map(|k| if k == 0 { 0.0 } else { t }).collect();
        let mut want: Vec<f64> = (1..n)
            .map(|j| 2.0 * t * (j as f64 * std::f64::consts::PI / n as f64).cos())
            .chain([1.0])
            .collect();
        want.sort_unstable_by(f64::total_cmp);
        (d, e, want)
    }

    /// `root_free_ql_keeps_tiny_blocks`: an unreduced block far below the matrix's scale (size
    /// `t` beside an entry 1) converges and keeps its values to relative accuracy down to
    /// `t = 10⁻¹⁵⁰` (review25's inputs: the regrouped step alone returned nothing for
    /// `t = 10⁻¹⁶⁰` and lost the block's values from `t ≈ 10⁻⁴⁷` down); below that, where `t²`
    /// underflows, within the documented `8 n ε ‖T‖₂`.
    #[test]
    fn root_free_ql_keeps_tiny_blocks() {
        let mut checked = 0;
        for n in [4usize, 8, 16, 40] {
            for k in 0..=31 {
                let t = 10f64.powi(-10 * k);
                let (mut d, e, want) = path_block(n, t);
                let mut e2: Vec<f64> = e.iter().map(|x| x * x).collect();
                assert!(
                    root_free_ql(&mut d, &mut e2, SWEEPS_PER_VALUE * n),
                    "n = {n}, t = {t:e}"
                );
                d.sort_unstable_by(f64::total_cmp);
                let bound = if t >= 1e-150 {
                    8.0 * n as f64 * f64::EPSILON * 2.0 * t
                } else {
                    8.0 * n as f64 * f64::EPSILON
                };
                for (x, y) in d.iter().zip(&want) {
                    if *y == 1.0 {
                        assert!((x - y).abs() <= 8.0 * n as f64 * f64::EPSILON, "n = {n}");
                    } else {
                        assert!((x - y).abs() <= bound, "n = {n}, t = {t:e}: {x:e} vs {y:e}");
                    }
                }
                // and by `sterf`, which splits the block off first
                let (mut d, mut e, _) = path_block(n, t);
                assert!(sterf(&mut d, &mut e));
                for (x, y) in d.iter().zip(&want) {
                    assert!(
                        (x - y).abs()
                            <= bound.max(f64::EPSILON * (y == &1.0) as u8 as f64 * 8.0 * n as f64)
                    );
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 4 * 32);
        assert_eq!(REGROUPED_FROM, 2f64.powi(-200));
    }

    /// `sterf_matches_dsterf`: [`sterf`] against LAPACK's `dsterf` on random, graded (either
    /// way, so that both QL and the reversed block's QR run), Wilkinson `W⁺`, glued, split,
    /// zero and extreme-scale tridiagonal matrices, `n = 1 … 300`: ascending, and every value
    /// within `16 n ε ‖T‖` of `dsterf`'s (both are backward stable, `8 n ε ‖T‖` each); review25b's
    /// input where `n²` underflows and 1,500 log-uniform tridiagonals (entries `10⁻¹⁴⁰ … 1`, a
    /// third of the diagonal zero, `n = 3 … 40`); non-finite entries and a short `e` are declined.
    #[cfg(feature = "openblas")]
    #[test]
    fn sterf_matches_dsterf() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
        let mut cases: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        for n in [1usize, 2, 3, 4, 7, 16, 33, 64, 129, 300] {
            let m = n.saturating_sub(1);
            let uniform = |rng: &mut rand_chacha::ChaCha8Rng, k: usize| -> Vec<f64> {
                (0..k).map(|_| rng.random::<f64>() - 0.5).collect()
            };
            cases.push((uniform(&mut rng, n), uniform(&mut rng, m)));
            let up: Vec<f64> = (0..n)
                .map(|k| 10f64.powf(-16.0 * k as f64 / n as f64))
                .collect();
            let ue: Vec<f64> = (0..m)
                .map(|k| 10f64.powf(-16.0 * (k as f64 + 0.5) / n as f64))
                .collect();
            let (mut down, mut de) = (up.clone(), ue.clone());
            down.reverse();
            de.reverse();
            cases.push((up, ue));
            cases.push((down, de));
            let half = n as f64 / 2.0;
            cases.push((
                (0..n).map(|k| (k as f64 - half).abs()).collect(),
                vec![1.0; m],
            ));
            // glued: blocks joined by tiny off-diagonals, some exactly zero
            let glued: Vec<f64> = (0..m)
                .map(|k| match k % 5 {
                    4 => 1e-18,
                    2 => 0.0,
                    _ => 1.0,
                })
                .collect();
            cases.push((vec![2.0; n], glued));
            cases.push((vec![0.0; n], vec![0.0; m]));
            cases.push((
                uniform(&mut rng, n),
                (0..m)
                    .map(|k| if k % 2 == 0 { 0.0 } else { 1e-200 })
                    .collect(),
            ));
        }
        let mut scaled = Vec::new();
        for (d, e) in cases.iter().step_by(3) {
            for f in [1e-300, 1e300, 3e-310, 1e-150] {
                scaled.push((
                    d.iter().map(|x| x * f).collect(),
                    e.iter().map(|x| x * f).collect(),
                ));
            }
        }
        cases.extend(scaled);
        let mut worst = 0.0f64;
        for (d0, e0) in &cases {
            let n = d0.len();
            let (mut d, mut e) = (d0.clone(), e0.clone());
            e.push(0.0); // LAPACK's e may be longer than n − 1
            assert!(sterf(&mut d, &mut e), "n = {n}");
            let (mut w, mut f) = (d0.clone(), e0.clone());
            f.push(0.0);
            let mut info = 0;
            // SAFETY: w holds n values, f at least n − 1.
            unsafe { lapack::dsterf(n as i32, &mut w, &mut f, &mut info) };
            assert_eq!(info, 0);
            let norm = d0.iter().chain(e0).fold(0.0f64, |m, x| m.max(x.abs())) * 3.0;
            for pair in d.windows(2) {
                assert!(pair[0] <= pair[1], "not ascending");
            }
            for (x, y) in d.iter().zip(&w) {
                let err = (x - y).abs();
                if norm > 1e-290 {
                    worst = worst.max(err / (n as f64 * f64::EPSILON * norm));
                }
                assert!(
                    err <= (16.0 * n as f64 * f64::EPSILON * norm).max(1e-320),
                    "n = {n}: {x:e} vs {y:e}"
                );
            }
        }
        eprintln!(
            "sterf vs dsterf: worst {worst:.3} n ε ‖T‖ over {} matrices",
            cases.len()
        );
        // review25b: n² underflows while r does not (the largest value was 10⁶ n ε ‖T‖ off),
        // through `sterf` and, scaled to order one, through `root_free_ql` as the fixed-size
        // solve calls it
        let e = [1e-130, 1e-13, 1e-2, 1e-31, 1e-17];
        let (mut d, mut f) = (vec![0.0; 6], e.to_vec());
        assert!(sterf(&mut d, &mut f));
        assert!(
            (d[5] - 1e-2).abs() <= 6.0 * 8.0 * f64::EPSILON * 1e-2,
            "{d:?}"
        );
        let (mut d, mut e2) = (vec![0.0; 6], e.map(|x| (x * 64.0) * (x * 64.0)).to_vec());
        assert!(root_free_ql(&mut d, &mut e2, 180));
        let top = d.iter().fold(0.0f64, |m, x| m.max(*x));
        assert!((top - 0.64).abs() <= 6.0 * 8.0 * f64::EPSILON, "{d:?}");
        // log-uniform entries down to 10⁻¹⁴⁰ (review25b's fuzz, milder: its 10⁻³⁰⁰ reaches a
        // subnormal-p weakness dsterf shares), a third of the diagonal zero
        let mut fuzz_worst = 0.0f64;
        for k in 0..1500usize {
            let n = 3 + k % 38;
            let mut draw = |zero: bool| {
                let v = 10f64.powf(-140.0 * rng.random::<f64>());
                let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
                if zero && rng.random::<f64>() < 1.0 / 3.0 {
                    0.0
                } else {
                    sign * v
                }
            };
            let d0: Vec<f64> = (0..n).map(|_| draw(true)).collect();
            let e0: Vec<f64> = (0..n - 1).map(|_| draw(false)).collect();
            let (mut d, mut e) = (d0.clone(), e0.clone());
            assert!(sterf(&mut d, &mut e));
            let (mut w, mut f) = (d0.clone(), e0.clone());
            let mut info = 0;
            // SAFETY: w holds n values, f n − 1.
            unsafe { lapack::dsterf(n as i32, &mut w, &mut f, &mut info) };
            assert_eq!(info, 0);
            let norm = d0.iter().chain(&e0).fold(0.0f64, |m, x| m.max(x.abs())) * 3.0;
            for (x, y) in d.iter().zip(&w) {
                let err = (x - y).abs() / (n as f64 * f64::EPSILON * norm);
                fuzz_worst = fuzz_worst.max(err);
                assert!(err <= 16.0, "fuzz {k}, n = {n}: {x:e} vs {y:e}");
            }
        }
        eprintln!("log-uniform fuzz: worst {fuzz_worst:.3} n ε ‖T‖");
        let (mut d, mut e) = (vec![1.0, f64::NAN, 2.0], vec![0.5, 0.5]);
        assert!(!sterf(&mut d, &mut e));
        let (mut d, mut e) = (vec![1.0, 2.0, 3.0], vec![0.5]);
        assert!(!sterf(&mut d, &mut e));
        assert!(sterf(&mut [], &mut []));
    }
}
