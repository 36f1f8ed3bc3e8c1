//! `e^x` and `ln x` (qrenyi's own) on `L` lanes at once with the same numbers on every lane width and every CPU
//! (docs/divergences.md, "exp_lanes").
//!
//! Used by the small-pair Petz kernel (`petz::PetzStack`) so that an α-curve can evaluate several
//! orders per AVX2 register while a single call, one order on one lane, gets the same value bit for
//! bit. Each lane runs the same IEEE operations in the same order (additions, multiplications,
//! comparisons and integer bit operations only — no `mul_add`, and Rust contracts no `a·b + c`), so
//! the AVX2 build, the portable build and any lane count agree exactly.
//!
//! Algorithm: `k = round(x/ln 2)` (the `1.5·2⁵²` shifter), `r = (x − k·ln2_hi) − k·ln2_lo`
//! (Cody–Waite; the first subtraction is exact), `e^r = 1 + (r + r²q(r))` with `q` the Taylor
//! polynomial of `(e^r − 1 − r)/r²` through `r¹¹/13!` (Estrin's scheme), then `·2^{k₁}·2^{k₂}` (`k₁ + k₂ = k`, each
//! factor a normal power of two, so only the last product can round — where the result is
//! subnormal). Inputs are clamped to `[−746, 709.8]` first (the results there are already `0` and
//! `+∞`); NaN propagates. Proven error (docs): at most 1.5 ulp for normal results (measured
//! against mpmath: `tools/exp_lanes/check.py`); subnormal results within one subnormal ulp more.

/// `ln 2` split for Cody–Waite: `LN2_HI` has 32 significant bits (its low 21 bits are zero), so
/// `k·LN2_HI` is exact for `|k| < 2²¹`; `LN2_LO ≈ ln 2 − LN2_HI` (fdlibm's constants).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// `1.5·2⁵²`: `(y + SHIFTER) − SHIFTER` rounds `|y| < 2⁵¹` to the nearest integer (ties to even).
const SHIFTER: f64 = 6_755_399_441_055_744.0;
/// Above `ln(f64::MAX) ≈ 709.7827`: `e^x = +∞` there, and `k ≤ 1024` after the clamp.
const HI: f64 = 709.8;
/// Below `ln 2⁻¹⁰⁷⁵ ≈ −745.13`: `e^x` rounds to 0 there, and `k ≥ −1077` after the clamp.
const LO: f64 = -746.0;

/// `1/n!` for `n = 2 … 13` (each the double nearest to it).
const INV_FACT: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `e^x` (one lane of [`exp_lanes`]).
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    exp_lanes([x])[0]
}

/// `e^{x_l}` for every lane `l`; each lane's value is [`exp`] of it, bit for bit.
#[inline(always)]
pub fn exp_lanes<const L: usize>(x: [f64; L]) -> [f64; L] {
    let mut out = [0.0; L];
    for l in 0..L {
        out[l] = lane(x[l]);
    }
    out
}

/// The operations of one lane (written without branches so that loops over lanes vectorise).
#[inline(always)]
fn lane(x: f64) -> f64 {
    // clamp by comparisons (a NaN compares false and stays NaN)
    let x = if x > HI { HI } else { x };
    let x = if x < LO { LO } else { x };
    let shifted = x * INV_LN2 + SHIFTER;
    let k = shifted - SHIFTER;
    // exact: k·LN2_HI has ≤ 43 significant bits, and x − k·LN2_HI is exact by Sterbenz's lemma
    let hi = x - k * LN2_HI;
    let r = hi - k * LN2_LO;
    // q(r) = Σ_{n<12} r^n/(n+2)! by Estrin's scheme (pairs, then r², then r⁴: a short latency
    // chain; every coefficient positive and |r| ≤ 0.3466, so no step cancels)
    let c = &INV_FACT;
    let r2 = r * r;
    let r4 = r2 * r2;
    let p01 = c[0] + c[1] * r;
    let p23 = c[2] + c[3] * r;
    let p45 = c[4] + c[5] * r;
    let p67 = c[6] + c[7] * r;
    let p89 = c[8] + c[9] * r;
    let p1011 = c[10] + c[11] * r;
    let q0 = p01 + r2 * p23;
    let q1 = p45 + r2 * p67;
    let q2 = p89 + r2 * p1011;
    let q = q0 + r4 * (q1 + r4 * q2);
    let p = 1.0 + (r + r2 * q);
    // k = k₁ + k₂ with k₁ = round(k/2): both in [−539, 512], so 2^{k₁}, 2^{k₂} are normal
    let k1 = (k * 0.5 + SHIFTER) - SHIFTER;
    let k2 = k - k1;
    p * pow2(k1) * pow2(k2)
}

/// `2^k` for an integer-valued `k ∈ [−1022, 1023]`: the low 52 bits of `k + 1023 + SHIFTER` are
/// `k + 1023 + 2⁵¹`, and shifting them into the exponent field drops the `2⁵¹` (it leaves the
/// 64-bit word). A NaN `k` gives some finite power (the NaN survives in the other factor).
#[inline(always)]
fn pow2(k: f64) -> f64 {
    f64::from_bits((k + (SHIFTER + 1023.0)).to_bits() << 52)
}

/// `ln x` (one lane of [`ln_lanes`]).
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    ln_lanes([x])[0]
}

/// `ln x_l` for every lane `l`; each lane's value is [`ln`] of it, bit for bit (qrenyi's own,
/// written without branches so that a loop over lanes vectorises; docs/divergences.md,
/// "exp_lanes"). Measured within 0.73 ulp of the correctly rounded value, a-priori about
/// 1.5 ulp; the tests require 1 ulp (`tests/exp_lanes.rs`, `tools/exp_lanes/check.py`); `ln 0 = −∞`, `ln(+∞) = +∞`, negative or NaN: NaN.
#[inline(always)]
pub fn ln_lanes<const L: usize>(x: [f64; L]) -> [f64; L] {
    let mut out = [0.0; L];
    for l in 0..L {
        out[l] = ln_lane(x[l]);
    }
    out
}

/// `2^54`: scales a subnormal argument into the normal range exactly.
const TWO54: f64 = 18_014_398_509_481_984.0;
/// `2^52`: `from_bits(e | bits(2^52)) − 2^52 = e` exactly for an integer `0 ≤ e < 2^52`.
const TWO52: f64 = 4_503_599_627_370_496.0;
/// Mask of a double's 52 fraction bits.
const FRACTION: u64 = 0x000f_ffff_ffff_ffff;

/// `2/(2j + 3)` for `j = 0 … 9`: the Taylor coefficients of `R(z)/z`, where
/// `ln(1+f) = 2s + s·R(s²)`, `s = f/(2+f)`, `R(z) = Σ_{j≥1} 2z^j/(2j+1)` (the series of `2 artanh s`).
const LN_SERIES: [f64; 10] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
];

/// The operations of one lane of [`ln_lanes`]: `x = 2^k m` with `m ∈ [√½, √2)` (a subnormal `x`
/// first scaled by `2^54`), `f = m − 1` (exact by Sterbenz's lemma), and
/// `ln x = k·ln2_hi + (f − (f²/2 − (s(f²/2 + R) + k·ln2_lo)))`, the identity
/// `2s = f − f²/2 + s·f²/2` rearranged so that the large part `f` is added last.
#[inline(always)]
fn ln_lane(x: f64) -> f64 {
    let tiny = x < f64::MIN_POSITIVE;
    let scaled = if tiny { x * TWO54 } else { x };
    let bits = scaled.to_bits();
    let m = f64::from_bits((bits & FRACTION) | 1f64.to_bits());
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { 0.5 * m } else { m };
    // the biased exponent as a double (exact), then k
    let e = f64::from_bits(((bits >> 52) & 0x7ff) | TWO52.to_bits()) - TWO52;
    let k = e - if tiny { 1023.0 + 54.0 } else { 1023.0 } + if big { 1.0 } else { 0.0 };
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    // R/z = Σ_{j<10} c_j z^j by Estrin's scheme (a short latency chain; every coefficient
    // positive and 0 ≤ z ≤ 0.0295, so no step cancels)
    let c = &LN_SERIES;
    let z2 = z * z;
    let z4 = z2 * z2;
    let q0 = (c[0] + c[1] * z) + z2 * (c[2] + c[3] * z);
    let q1 = (c[4] + c[5] * z) + z2 * (c[6] + c[7] * z);
    let q2 = c[8] + c[9] * z;
    let r = z * (q0 + z4 * (q1 + z4 * q2));
    let hfsq = 0.5 * f * f;
    let y = k * LN2_HI + (f - (hfsq - (s * (hfsq + r) + k * LN2_LO)));
    // special values by selection: 0 → −∞, +∞ → +∞, negative or NaN → NaN
    let y = if x == f64::INFINITY { x } else { y };
    let y = if x == 0.0 { f64::NEG_INFINITY } else { y };
    if x >= 0.0 {
        y
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Distance in ulps between two finite doubles of the same sign (or zero).
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// `exp_lanes_special`: the special and boundary values.
    #[test]
    fn exp_lanes_special() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(709.79), f64::INFINITY);
        assert_eq!(exp(1e6), f64::INFINITY);
        assert_eq!(exp(-745.2), 0.0);
        assert_eq!(exp(-1e6), 0.0);
        assert!(exp(709.78).is_finite() && exp(709.78) > 1e308);
        // smallest subnormal: e^{−745} ≈ 4.94e−324 = 2⁻¹⁰⁷⁴ (rounded)
        assert_eq!(exp(-745.0), f64::from_bits(1));
        assert!(ulps(exp(1.0), std::f64::consts::E) <= 1);
    }

    /// `ln_lanes_std`: within 2 ulps of the platform's `ln` on 4·10⁶ points (normal and subnormal
    /// arguments, near 1), the same bits on every lane width, and the special values.
    #[test]
    fn ln_lanes_std() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
        assert!(ln(-1.0).is_nan() && ln(f64::NAN).is_nan() && ln(f64::NEG_INFINITY).is_nan());
        assert!(ulps(ln(f64::from_bits(1)), f64::from_bits(1).ln()) <= 1);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut worst = 0;
        for n in 0..1_000_000 {
            let x: [f64; 4] = std::array::from_fn(|l| match (n + l) % 4 {
                0 => 10f64.powf(rng.random_range(-307.0..308.0)),
                1 => 1.0 + rng.random_range(-0.3..0.5),
                2 => 1.0 + rng.random_range(-1.0..1.0) * 2f64.powi(-30),
                _ => f64::from_bits(rng.random_range(1..1u64 << 52)),
            });
            let four = ln_lanes(x);
            for l in 0..4 {
                let one = ln(x[l]);
                assert_eq!(one.to_bits(), four[l].to_bits(), "lane {l} at {:e}", x[l]);
                let want = x[l].ln();
                if want == 0.0 {
                    assert_eq!(one, 0.0);
                } else if (want > 0.0) == (one > 0.0) {
                    worst = worst.max(ulps(one, want));
                } else {
                    panic!("sign at {:e}: {one:e} vs {want:e}", x[l]);
                }
            }
        }
        assert!(worst <= 2, "{worst} ulps from std");
    }

    /// `exp_lanes_std`: within 2 ulps of the platform's `exp` (itself < 1 ulp) on 4·10⁶ points over
    /// the whole normal range and on `|x| < 2⁻²⁰`, and every lane width gives the same bits.
    #[test]
    fn exp_lanes_std() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let mut worst = 0;
        for n in 0..1_000_000 {
            let x: [f64; 4] = std::array::from_fn(|l| match (n + l) % 4 {
                0 => rng.random_range(-708.0..709.0),
                1 => rng.random_range(-1.0..1.0),
                2 => rng.random_range(-1.0..1.0) * 2f64.powi(-20),
                _ => rng.random_range(-40.0..1.0),
            });
            let four = exp_lanes(x);
            for l in 0..4 {
                let one = exp(x[l]);
                assert_eq!(one.to_bits(), four[l].to_bits(), "lane {l} at {:e}", x[l]);
                worst = worst.max(ulps(one, x[l].exp()));
            }
        }
        assert!(worst <= 2, "{worst} ulps from std");
    }
}
