//! Eight small Hermitian eigenproblems at once: a cyclic Jacobi method on [`LANES`] matrices
//! stored lane by lane (structure of arrays), so that every arithmetic step is two AVX2
//! instructions over the eight matrices (AVX2 where the CPU has it, chosen at run time; otherwise
//! each matrix is [`eigh_jacobi_parallel`], the same method one matrix at a time). The two
//! registers (lanes 0–3, 4–7) are two independent instruction streams: a rotation is a chain of
//! divisions and square roots whose latency, with one register (four lanes, the first version),
//! left the vector units idle; the second stream fills them (measured 1.3–1.4× per matrix,
//! docs/PERFORMANCE.md "Fifth session"). Where the CPU also has AVX-512VL the same code is compiled
//! with it: the rotations' arithmetic stays the 256-bit intrinsics, now with 32 registers instead of
//! 16 for the lanes' matrices (fewer spills; the d = 4 Petz stack 1.07–1.1× faster,
//! docs/PERFORMANCE.md "The stack route's lane Jacobi with 32 registers, borrowed group sides"); the
//! compiler may use 512-bit registers for the plain loops around them (the input copy, its
//! finiteness check and largest entry, zeroing), whose results do not depend on the vector width.
//! Each lane's numbers are unchanged (test `lane_builds_agree_bit_for_bit`).
//!
//! **The method** (docs/divergences.md, "small_lanes"): the cyclic Jacobi method of
//! [`eigh_fixed`](super::small::eigh_fixed) — the same power-of-two scaling, the Demmel–Veselić
//! skip test `|a_pq|² ≤ ε²|a_pp a_qq|` — with two changes that shorten each rotation's dependency
//! chain: (i) the pairs of a sweep in the round-robin (parallel) ordering, `⌈N/2⌉`-pair steps of
//! disjoint pairs whose rotations are computed side by side from the same matrix and then applied
//! one after the other (a rotation reads only its own `2 × 2` block, which the other rotations of
//! its step leave unchanged; Luk & Park 1989 prove the classical round-robin orderings equivalent
//! to the cyclic-by-rows one — that this labelling is one of them is not checked, so convergence rests
//! on the measured sweep counts and the 40-sweep cap, after which the caller's fallback answers); (ii) the rotation from `r = √(δ² + 4|g|²)`,
//! `u = |δ| + r`, `k = √(2/(r u))` (`δ = a_qq − a_pp`, `g = a_pq`): `c = k u/2`,
//! `s e^{iφ} = sign(δ) k g`, `t|g| = sign(δ) 2|g|²/u` — the same rotation as `eigh_fixed`'s
//! `θ`, `t`, `c` formulas in exact arithmetic, two square roots and two divisions (one off the
//! chain) instead of three and five. [`eigh_jacobi_parallel`] performs exactly these operations
//! on one matrix; every lane returns its numbers (IEEE arithmetic is per lane; Rust never
//! contracts to FMA; test `lanes_equal_one_matrix_parallel_jacobi`). A lane whose pair is skipped
//! is rotated by the identity (`c = 1`, `s = 0`, diagonal kept by a blend), which returns every
//! entry exactly (up to the sign of a zero), so a lane that has finished a rotation-free sweep is
//! unchanged by the sweeps the other lanes still need. Accuracy: backward stable as `small_jacobi`
//! (tests: the one-matrix method through `small_jacobi_meets_the_backward_stable_bound` and
//! `small_jacobi_agrees_with_lapack`, and the lanes' own residual and orthonormality).
//!
//! A lane with a non-finite entry, or that has not converged within the one-matrix solver's 40
//! sweeps, is `None`: the caller answers it with the one-matrix route.

#![allow(clippy::needless_range_loop)]

use super::small::{hermitian_copy, jacobi_finish, jacobi_rotate, Mat, SmallEigen};
use crate::error::Result;
use num_complex::Complex64;

/// Matrices per call.
pub const LANES: usize = 8;

type Lane = [f64; LANES];

/// Sweeps after which a lane gives up (as the one-matrix solver).
const MAX_SWEEPS: usize = 40;

/// The round-robin (parallel) ordering of the pairs `p < q < N`: `steps` steps, step `s` holding
/// `len[s]` disjoint pairs `pairs[s][..len[s]]` (the circle method on `N` rounded up to even, the
/// pairs with the dummy index dropped). Every pair once per sweep.
#[derive(Clone, Copy)]
struct Schedule {
    steps: usize,
    len: [usize; 16],
    pairs: [[(usize, usize); 8]; 16],
}

const fn schedule(n: usize) -> Schedule {
    let mut out = Schedule {
        steps: 0,
        len: [0; 16],
        pairs: [[(0, 0); 8]; 16],
    };
    let m = n + n % 2;
    if m < 2 {
        return out;
    }
    let mut r = 0;
    while r < m - 1 {
        let mut count = 0;
        // the fixed player m − 1 against r, then (r + i, r − i) around the circle of m − 1
        let mut i = 0;
        while i < m / 2 {
            let (a, b) = if i == 0 {
                (m - 1, r)
            } else {
                ((r + i) % (m - 1), (r + m - 1 - i) % (m - 1))
            };
            if a < n && b < n {
                out.pairs[out.steps][count] = if a < b { (a, b) } else { (b, a) };
                count += 1;
            }
            i += 1;
        }
        if count > 0 {
            out.len[out.steps] = count;
            out.steps += 1;
        }
        r += 1;
    }
    out
}

/// The lanes' method on one matrix: cyclic Jacobi in the round-robin ordering with the short
/// rotation formulas (module docs) — each lane of [`eigh_lanes`] returns these numbers bit for
/// bit; the no-AVX2 fallback. Lower triangle read (as [`eigh_fixed`](super::small::eigh_fixed));
/// `vectors = false` skips the accumulation (the vectors are then the identity).
///
/// Errors: a non-finite entry, or no convergence within 40 sweeps ([`Error::Eigensolver`](crate::Error::Eigensolver)).
pub fn eigh_jacobi_parallel<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    let (mut m, scale) = hermitian_copy(a)?;
    let mut v = super::small::zeros::<N>();
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = Complex64::new(1.0, 0.0);
    }
    let sched = const { schedule(N) };
    let mut converged = N < 2;
    for _ in 0..MAX_SWEEPS {
        if converged {
            break;
        }
        let mut rotated = false;
        for s in 0..sched.steps {
            for &(p, q) in &sched.pairs[s][..sched.len[s]] {
                let g = m[p][q];
                let (app, aqq) = (m[p][p].re, m[q][q].re);
                let abs2 = g.re * g.re + g.im * g.im;
                if abs2 <= f64::EPSILON * f64::EPSILON * (app * aqq).abs()
                    || abs2 < f64::MIN_POSITIVE
                {
                    continue;
                }
                rotated = true;
                let (c, se, ta) = rotation(app, aqq, g, abs2);
                let diagonal = (app - ta, aqq + ta);
                jacobi_rotate(&mut m, &mut v, (p, q), (c, se), diagonal, vectors);
            }
        }
        converged = !rotated;
    }
    jacobi_finish(converged, &m, v, scale, vectors)
}

/// The rotation zeroing `a_pq = g` (`|g|² = abs2`, normal): `(c, s e^{iφ}, t|g|)` by the short
/// formulas (module docs), in the lanes' order of operations.
#[inline(always)]
fn rotation(app: f64, aqq: f64, g: Complex64, abs2: f64) -> (f64, Complex64, f64) {
    let d = aqq - app;
    let r = (d * d + 4.0 * abs2).sqrt();
    let u = d.abs() + r;
    let k = (2.0 / (r * u)).sqrt();
    let sg = 1f64.copysign(d);
    let c = k * u * 0.5;
    let ks = sg * k;
    let ta = sg * ((2.0 * abs2) / u);
    (c, Complex64::new(ks * g.re, ks * g.im), ta)
}

/// Eigendecompositions of the [`LANES`] Hermitian matrices `a` (lower triangles read, as
/// [`eigh_fixed`](super::small::eigh_fixed)); `vectors = false` skips the accumulation. `None`
/// for a lane with a non-finite entry or without convergence. Each lane's numbers are
/// [`eigh_jacobi_parallel`]'s (without AVX2 each lane is that function itself).
pub fn eigh_lanes<const N: usize>(
    a: &[Mat<N>; LANES],
    vectors: bool,
) -> [Option<SmallEigen<N>>; LANES] {
    let mut out = [SmallEigen::zeroed(); LANES];
    let ok = eigh_lanes_into(a, vectors, out.each_mut());
    std::array::from_fn(|l| ok[l].then_some(out[l]))
}

/// [`eigh_lanes`] written into `out` (lane `l` into `*out[l]`, wherever the caller keeps it: no
/// copy of the results): which lanes succeeded (a lane that did not holds unspecified numbers).
/// Without `vectors` the lanes' `vectors` are the identity, as [`eigh_jacobi_parallel`] returns
/// them.
pub fn eigh_lanes_into<const N: usize>(
    a: &[Mat<N>; LANES],
    vectors: bool,
    mut out: [&mut SmallEigen<N>; LANES],
) -> [bool; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the CPU supports AVX2, AVX-512F and AVX-512VL (checked just above).
            return if vectors {
                unsafe { avx2::eigh_lanes_avx512vl::<N, true>(a, &mut out) }
            } else {
                unsafe { avx2::eigh_lanes_avx512vl::<N, false>(a, &mut out) }
            };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return if vectors {
                unsafe { avx2::eigh_lanes::<N, true>(a, &mut out) }
            } else {
                unsafe { avx2::eigh_lanes::<N, false>(a, &mut out) }
            };
        }
    }
    std::array::from_fn(|l| match eigh_jacobi_parallel::<N>(&a[l], vectors) {
        Ok(e) => {
            *out[l] = e;
            true
        }
        Err(_) => false,
    })
}

/// The lane-parallel Jacobi on AVX2 (two `__m256d` hold one entry of the eight matrices).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Lane, LANES, MAX_SWEEPS};
    use crate::spectral::small::{power_of_two_scale, Mat, SmallEigen};
    use num_complex::Complex64;
    use std::arch::x86_64::*;

    /// AVX2 registers per entry (four lanes each).
    const R: usize = LANES / 4;

    /// One entry of the [`LANES`] matrices: `R` AVX2 registers (lanes `4r … 4r + 3`). Every
    /// operation acts on each register alike; the registers are independent instruction streams,
    /// so the rotation's chain of divisions and square roots of one overlaps the others'.
    #[derive(Clone, Copy)]
    struct F([__m256d; R]);

    impl F {
        #[inline(always)]
        fn map(self, f: impl Fn(__m256d) -> __m256d) -> F {
            F(std::array::from_fn(|r| f(self.0[r])))
        }
        #[inline(always)]
        fn zip(self, o: F, f: impl Fn(__m256d, __m256d) -> __m256d) -> F {
            F(std::array::from_fn(|r| f(self.0[r], o.0[r])))
        }
        #[inline(always)]
        fn splat(x: f64) -> F {
            unsafe { F([_mm256_set1_pd(x); R]) }
        }
        #[inline(always)]
        fn load(x: &Lane) -> F {
            F(std::array::from_fn(|r| unsafe {
                _mm256_loadu_pd(x.as_ptr().add(4 * r))
            }))
        }
        #[inline(always)]
        fn store(self, x: &mut Lane) {
            for r in 0..R {
                unsafe { _mm256_storeu_pd(x.as_mut_ptr().add(4 * r), self.0[r]) }
            }
        }
        #[inline(always)]
        fn add(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_add_pd(a, b) })
        }
        #[inline(always)]
        fn sub(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_sub_pd(a, b) })
        }
        #[inline(always)]
        fn mul(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_mul_pd(a, b) })
        }
        #[inline(always)]
        fn div(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_div_pd(a, b) })
        }
        #[inline(always)]
        fn sqrt(self) -> F {
            self.map(|a| unsafe { _mm256_sqrt_pd(a) })
        }
        #[inline(always)]
        fn neg(self) -> F {
            self.zip(F::splat(-0.0), |a, b| unsafe { _mm256_xor_pd(a, b) })
        }
        #[inline(always)]
        fn abs(self) -> F {
            F::splat(-0.0).zip(self, |a, b| unsafe { _mm256_andnot_pd(a, b) })
        }
        /// `f64::signum` for non-NaN lanes: ±1 with the sign bit of `self`.
        #[inline(always)]
        fn signum(self) -> F {
            F::splat(-0.0).and(self).or(F::splat(1.0))
        }
        /// All-ones lanes where `self <= o` (false for NaN).
        #[inline(always)]
        fn le(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_cmp_pd::<_CMP_LE_OQ>(a, b) })
        }
        #[inline(always)]
        fn lt(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(a, b) })
        }
        /// `self` where `mask` is clear, `+0` where it is set.
        #[inline(always)]
        fn and_not(self, mask: F) -> F {
            mask.zip(self, |m, a| unsafe { _mm256_andnot_pd(m, a) })
        }
        /// `self` where `mask` is set, `+0` where it is clear (bitwise and).
        #[inline(always)]
        fn and(self, mask: F) -> F {
            self.zip(mask, |a, m| unsafe { _mm256_and_pd(a, m) })
        }
        #[inline(always)]
        fn or(self, o: F) -> F {
            self.zip(o, |a, b| unsafe { _mm256_or_pd(a, b) })
        }
        /// `mask ? a : b` per lane.
        #[inline(always)]
        fn select(mask: F, a: F, b: F) -> F {
            F(std::array::from_fn(|r| unsafe {
                _mm256_blendv_pd(b.0[r], a.0[r], mask.0[r])
            }))
        }
        /// The lanes whose mask is set, as bits.
        #[inline(always)]
        fn bits(self) -> i32 {
            let mut b = 0;
            for r in 0..R {
                b |= unsafe { _mm256_movemask_pd(self.0[r]) } << (4 * r);
            }
            b
        }
    }

    /// Complex `(re, im)` of the eight lanes.
    #[derive(Clone, Copy)]
    struct C(F, F);

    impl C {
        /// `self · c − other · conj(se)` and `self · se + other · c` (the one-matrix solver's
        /// update of a pair `(a_kp, a_kq)`, num-complex's operation order).
        #[inline(always)]
        fn rotate(kp: C, kq: C, c: F, sr: F, si: F) -> (C, C) {
            let nsi = si.neg();
            // kq · (sr − i si)
            let xr = kq.0.mul(sr).sub(kq.1.mul(nsi));
            let xi = kq.0.mul(nsi).add(kq.1.mul(sr));
            let np = C(kp.0.mul(c).sub(xr), kp.1.mul(c).sub(xi));
            // kp · (sr + i si)
            let yr = kp.0.mul(sr).sub(kp.1.mul(si));
            let yi = kp.0.mul(si).add(kp.1.mul(sr));
            let nq = C(yr.add(kq.0.mul(c)), yi.add(kq.1.mul(c)));
            (np, nq)
        }
    }

    /// One rotation of a step, per lane: `keep` set where the lane skips the pair (the identity:
    /// `c = 1`, `s = 0`), else `(c, s e^{iφ} = sr + i si, t|g| = ta)`.
    #[derive(Clone, Copy)]
    struct Rot {
        keep: F,
        c: F,
        sr: F,
        si: F,
        ta: F,
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn eigh_lanes<const N: usize, const VECTORS: bool>(
        a: &[Mat<N>; LANES],
        out: &mut [&mut SmallEigen<N>; LANES],
    ) -> [bool; LANES] {
        eigh_lanes_body::<N, VECTORS>(a, out)
    }

    /// [`eigh_lanes`] compiled with AVX-512VL besides AVX2: the rotations' 256-bit intrinsics,
    /// with 32 registers instead of 16 (fewer spills of the lanes' matrices; the compiler may
    /// vectorise the plain copy and checks with 512-bit registers); each lane's numbers are the
    /// same.
    #[target_feature(enable = "avx2,avx512f,avx512vl")]
    pub(super) unsafe fn eigh_lanes_avx512vl<const N: usize, const VECTORS: bool>(
        a: &[Mat<N>; LANES],
        out: &mut [&mut SmallEigen<N>; LANES],
    ) -> [bool; LANES] {
        eigh_lanes_body::<N, VECTORS>(a, out)
    }

    /// The lanes' method. Callers must have AVX2 enabled (a `#[target_feature]` function above);
    /// `#[inline(always)]` compiles the body into each caller, which is what gives the AVX-512VL
    /// build its 32 registers (without the inlining both builds would run one baseline copy).
    #[inline(always)]
    unsafe fn eigh_lanes_body<const N: usize, const VECTORS: bool>(
        a: &[Mat<N>; LANES],
        out: &mut [&mut SmallEigen<N>; LANES],
    ) -> [bool; LANES] {
        let vectors = VECTORS;
        let mut ok = [true; LANES];
        let mut scale = [1.0; LANES];
        let mut re = [[[0.0; LANES]; N]; N];
        let mut im = [[[0.0; LANES]; N]; N];
        // the one-matrix solver's `hermitian_copy`, lane by lane: the lower triangle and its
        // mirror (real diagonal), finite entries, the power-of-two scale of the largest entry —
        // applied below, in the vector registers (the same products: `(−x)·s = −(x·s)`). A failed
        // lane stays zero: it converges at once and is answered `false`.
        for l in 0..LANES {
            let a = &a[l];
            let (mut big, mut finite) = (0.0f64, true);
            for i in 0..N {
                for j in 0..i {
                    let z = a[i][j];
                    finite &= z.re.is_finite() && z.im.is_finite();
                    big = big.max(z.re.abs()).max(z.im.abs());
                }
                let d = a[i][i].re;
                finite &= d.is_finite();
                big = big.max(d.abs());
            }
            if !finite {
                ok[l] = false;
                continue;
            }
            scale[l] = power_of_two_scale(big);
            for i in 0..N {
                for j in 0..i {
                    let z = a[i][j];
                    re[i][j][l] = z.re;
                    im[i][j][l] = z.im;
                    re[j][i][l] = z.re;
                    im[j][i][l] = -z.im;
                }
                re[i][i][l] = a[i][i].re;
            }
        }
        let zero = F::splat(0.0);
        let one = F::splat(1.0);
        let s = F::load(&scale);
        let mut m = [[C(zero, zero); N]; N];
        let mut v = [[C(zero, zero); N]; N];
        for i in 0..N {
            for j in 0..N {
                m[i][j] = C(F::load(&re[i][j]).mul(s), F::load(&im[i][j]).mul(s));
            }
            v[i][i] = C(one, zero);
        }
        let eps2 = F::splat(f64::EPSILON * f64::EPSILON);
        let tiny = F::splat(f64::MIN_POSITIVE);
        let (two, half, four) = (F::splat(2.0), F::splat(0.5), F::splat(4.0));
        let all = (1 << LANES) - 1;
        let sched = const { super::schedule(N) };
        let mut converged = if N < 2 { all } else { 0 };
        let mut sweeps = 0;
        // a step's rotations (at most ⌈N/2⌉ ≤ N), read only where this step wrote them (`live`)
        let mut rots = [Rot {
            keep: zero,
            c: one,
            sr: zero,
            si: zero,
            ta: zero,
        }; N];
        while converged != all && sweeps < MAX_SWEEPS {
            sweeps += 1;
            let mut rotated = 0;
            for step in 0..sched.steps {
                let pairs = &sched.pairs[step][..sched.len[step]];
                // the step's rotations, each from its own 2 × 2 block (which the others leave
                // unchanged), computed side by side before any is applied: independent chains
                let mut live = 0u32;
                for (i, &(p, q)) in pairs.iter().enumerate() {
                    let g = m[p][q];
                    let (app, aqq) = (m[p][p].0, m[q][q].0);
                    let abs2 = g.0.mul(g.0).add(g.1.mul(g.1));
                    // Demmel–Veselić: `|g|² ≤ ε²|a_pp a_qq|`, or `|g|²` below the normal range
                    let bound = eps2.mul(app.mul(aqq).abs());
                    let keep = abs2.le(bound).or(abs2.lt(tiny));
                    let rot = !keep.bits() & all;
                    if rot == 0 {
                        continue;
                    }
                    rotated |= rot;
                    live |= 1 << i;
                    // r = √(δ² + 4|g|²), u = |δ| + r, k = √(2/(r u)): c = k u/2,
                    // s e^{iφ} = sign δ · k g, t|g| = sign δ · 2|g|²/u; skipped lanes rotate by
                    // the identity (c = 1, s = 0; their diagonal is kept by the blend below)
                    let d = aqq.sub(app);
                    let r = d.mul(d).add(four.mul(abs2)).sqrt();
                    let u = d.abs().add(r);
                    let k = two.div(r.mul(u)).sqrt();
                    let sg = d.signum();
                    let ks = sg.mul(k).and_not(keep);
                    rots[i] = Rot {
                        keep,
                        c: F::select(keep, one, k.mul(u).mul(half)),
                        sr: ks.mul(g.0),
                        si: ks.mul(g.1),
                        ta: sg.mul(two.mul(abs2).div(u)),
                    };
                }
                for (i, &(p, q)) in pairs.iter().enumerate() {
                    if live & (1 << i) == 0 {
                        continue;
                    }
                    let Rot {
                        keep,
                        c,
                        sr,
                        si,
                        ta,
                    } = rots[i];
                    let g = m[p][q];
                    let (app, aqq) = (m[p][p].0, m[q][q].0);
                    for k in 0..N {
                        if k == p || k == q {
                            continue;
                        }
                        let (np, nq) = C::rotate(m[k][p], m[k][q], c, sr, si);
                        m[k][p] = np;
                        m[p][k] = C(np.0, np.1.neg());
                        m[k][q] = nq;
                        m[q][k] = C(nq.0, nq.1.neg());
                    }
                    m[p][p].0 = F::select(keep, app, app.sub(ta));
                    m[q][q].0 = F::select(keep, aqq, aqq.add(ta));
                    m[p][q] = C(g.0.and(keep), g.1.and(keep));
                    m[q][p] = C(g.0.and(keep), g.1.neg().and(keep));
                    if vectors {
                        for k in 0..N {
                            let (np, nq) = C::rotate(v[k][p], v[k][q], c, sr, si);
                            v[k][p] = np;
                            v[k][q] = nq;
                        }
                    }
                }
            }
            converged |= !rotated & all;
        }
        let mut vr = [[[0.0; LANES]; N]; N];
        let mut vi = [[[0.0; LANES]; N]; N];
        for i in 0..N {
            m[i][i].0.store(&mut re[i][i]);
            if vectors {
                for j in 0..N {
                    v[i][j].0.store(&mut vr[i][j]);
                    v[i][j].1.store(&mut vi[i][j]);
                }
            }
        }
        std::array::from_fn(|l| {
            if !(ok[l] && converged & (1 << l) != 0) {
                return false;
            }
            // `ascending`'s insertion sort, the columns gathered once in sorted order
            let e = &mut *out[l];
            let mut order = [0usize; N];
            for k in 0..N {
                e.values[k] = re[k][k][l] / scale[l];
                order[k] = k;
            }
            for k in 1..N {
                let mut j = k;
                while j > 0 && e.values[j - 1] > e.values[j] {
                    e.values.swap(j - 1, j);
                    order.swap(j - 1, j);
                    j -= 1;
                }
            }
            for i in 0..N {
                for k in 0..N {
                    e.vectors[i][k] = if vectors {
                        let o = order[k];
                        Complex64::new(vr[i][o][l], vi[i][o][l])
                    } else if i == k {
                        Complex64::new(1.0, 0.0)
                    } else {
                        Complex64::new(0.0, 0.0)
                    };
                }
            }
            true
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectral::small::zeros;
    use rand::{Rng, SeedableRng};

    /// `U diag(λ) U†` with a random unitary `U` (Gram–Schmidt of a complex Gaussian matrix).
    fn with_spectrum<const N: usize>(lambda: &[f64; N], rng: &mut impl Rng) -> Mat<N> {
        let mut u = zeros::<N>();
        for j in 0..N {
            let mut col: [Complex64; N] = std::array::from_fn(|_| {
                Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
            });
            for k in 0..j {
                let dot: Complex64 = (0..N).map(|i| u[i][k].conj() * col[i]).sum();
                for i in 0..N {
                    col[i] -= u[i][k] * dot;
                }
            }
            let norm = col.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
            for i in 0..N {
                u[i][j] = col[i] / norm;
            }
        }
        let mut a = zeros::<N>();
        for i in 0..N {
            for j in 0..N {
                a[i][j] = (0..N).map(|k| u[i][k] * lambda[k] * u[j][k].conj()).sum();
            }
        }
        a
    }

    use num_complex::Complex64;

    /// Inputs: random Hermitian, random states, rank one, rank `N − 1`, graded to κ = 10¹²,
    /// degenerate (`I/N`, two equal halves), diagonal, scaled by 2^{±600}, the same matrix in
    /// every lane (ρ = σ).
    fn inputs<const N: usize>(seed: u64) -> Vec<Mat<N>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..8 {
            let mut m = zeros::<N>();
            for i in 0..N {
                for j in 0..=i {
                    let im = if i == j {
                        0.0
                    } else {
                        rng.random::<f64>() - 0.5
                    };
                    m[i][j] = Complex64::new(rng.random::<f64>() - 0.5, im);
                    m[j][i] = m[i][j].conj();
                }
            }
            out.push(m);
        }
        let unit = |l: [f64; N]| {
            let s: f64 = l.iter().sum();
            l.map(|x| x / s)
        };
        for _ in 0..4 {
            out.push(with_spectrum(
                &unit(std::array::from_fn(|_| rng.random())),
                &mut rng,
            ));
        }
        let mut pure = [0.0; N];
        pure[N - 1] = 1.0;
        out.push(with_spectrum(&pure, &mut rng));
        out.push(with_spectrum(
            &unit(std::array::from_fn(|k| k as f64)),
            &mut rng,
        ));
        out.push(with_spectrum(
            &unit(std::array::from_fn(|k| {
                10f64.powf(-12.0 * k as f64 / (N - 1) as f64)
            })),
            &mut rng,
        ));
        out.push(with_spectrum(&[1.0 / N as f64; N], &mut rng));
        out.push(with_spectrum(
            &std::array::from_fn(|k| if 2 * k < N { 0.1 } else { 0.3 }),
            &mut rng,
        ));
        let mut diag = zeros::<N>();
        for i in 0..N {
            diag[i][i] = Complex64::new((i as f64 - 1.5) * 0.25, 0.0);
        }
        out.push(diag);
        let base = out[9];
        for e in [600, -600] {
            out.push(base.map(|r| r.map(|z| z * 2f64.powi(e))));
        }
        out.extend([base; LANES]); // one group of equal matrices
        while out.len() % LANES != 0 {
            out.push(base);
        }
        out
    }

    fn check<const N: usize>(seed: u64) {
        let mats = inputs::<N>(seed);
        for (g, group) in mats.chunks_exact(LANES).enumerate() {
            let a: &[Mat<N>; LANES] = group.try_into().unwrap();
            for vectors in [true, false] {
                let got = eigh_lanes::<N>(a, vectors);
                let mut into = [SmallEigen::zeroed(); LANES];
                let solved = eigh_lanes_into::<N>(a, vectors, into.each_mut());
                for l in 0..LANES {
                    let want = eigh_jacobi_parallel::<N>(&a[l], vectors).unwrap();
                    let e = got[l].expect("converged");
                    // the one-matrix solver's numbers (== also equates ±0)
                    assert_eq!(e.values, want.values, "N={N} group {g} lane {l}");
                    assert_eq!(e.vectors, want.vectors, "N={N} group {g} lane {l}");
                    assert!(solved[l]);
                    assert_eq!(into[l].values, e.values);
                    assert_eq!(into[l].vectors, e.vectors);
                    if vectors {
                        // small_jacobi's bounds (docs/divergences.md): residual and
                        // orthonormality within 8Nε (relative to max|λ|)
                        let norm = e.values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                        let tol = 8.0 * N as f64 * f64::EPSILON;
                        for i in 0..N {
                            for k in 0..N {
                                let av: Complex64 =
                                    (0..N).map(|j| a[l][i][j] * e.vectors[j][k]).sum();
                                let r = (av - e.vectors[i][k] * e.values[k]).norm();
                                assert!(r <= tol * norm.max(f64::MIN_POSITIVE), "residual {r}");
                                let g: Complex64 = (0..N)
                                    .map(|j| e.vectors[j][i].conj() * e.vectors[j][k])
                                    .sum();
                                let o = (g - if i == k { 1.0 } else { 0.0 }).norm();
                                assert!(o <= tol, "orthonormality {o}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn lanes_equal_one_matrix_parallel_jacobi() {
        check::<2>(2);
        check::<3>(3);
        check::<4>(4);
        check::<5>(5);
        check::<6>(6);
        check::<8>(8);
    }

    /// Both builds of the lanes (AVX2 alone, and with AVX-512VL where the CPU has it, which
    /// [`eigh_lanes_into`] prefers) return the one-matrix method's numbers bit for bit, so the
    /// build a CPU takes does not change a value.
    #[test]
    fn lane_builds_agree_bit_for_bit() {
        fn builds<const N: usize>(seed: u64) {
            #[cfg(target_arch = "x86_64")]
            {
                if !std::arch::is_x86_feature_detected!("avx2") {
                    return;
                }
                let wide = std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl");
                let mats = inputs::<N>(seed);
                if !wide {
                    eprintln!("lane_builds_agree_bit_for_bit: no AVX-512VL, the AVX2 build alone");
                }
                for (group, vectors) in mats
                    .chunks_exact(LANES)
                    .flat_map(|g| [(g, true), (g, false)])
                {
                    let a: &[Mat<N>; LANES] = group.try_into().unwrap();
                    let mut narrow = [SmallEigen::zeroed(); LANES];
                    let mut broad = [SmallEigen::zeroed(); LANES];
                    // SAFETY: AVX2 (and for the second build AVX-512F/VL) checked above.
                    let (ok, ok_wide) = unsafe {
                        if vectors {
                            let ok = avx2::eigh_lanes::<N, true>(a, &mut narrow.each_mut());
                            let w = wide.then(|| {
                                avx2::eigh_lanes_avx512vl::<N, true>(a, &mut broad.each_mut())
                            });
                            (ok, w)
                        } else {
                            let ok = avx2::eigh_lanes::<N, false>(a, &mut narrow.each_mut());
                            let w = wide.then(|| {
                                avx2::eigh_lanes_avx512vl::<N, false>(a, &mut broad.each_mut())
                            });
                            (ok, w)
                        }
                    };
                    for l in 0..LANES {
                        let want = eigh_jacobi_parallel::<N>(&a[l], vectors).unwrap();
                        assert!(ok[l]);
                        assert_eq!(narrow[l].values, want.values, "N={N} lane {l}");
                        assert_eq!(narrow[l].vectors, want.vectors, "N={N} lane {l}");
                        if let Some(ok_wide) = ok_wide {
                            assert!(ok_wide[l]);
                            assert_eq!(broad[l].values, want.values, "N={N} lane {l}");
                            assert_eq!(broad[l].vectors, want.vectors, "N={N} lane {l}");
                        }
                    }
                }
            }
        }
        builds::<3>(13);
        builds::<4>(14);
        builds::<6>(16);
    }

    /// A non-finite lane is `None`; the other lanes are unaffected.
    #[test]
    fn lanes_report_non_finite_lanes_alone() {
        let mats = inputs::<4>(9);
        let mut a: [Mat<4>; LANES] = mats[..LANES].try_into().unwrap();
        a[2][3][1] = Complex64::new(f64::NAN, 0.0);
        let got = eigh_lanes::<4>(&a, true);
        assert!(got[2].is_none());
        for l in [0, 1, 3] {
            let want = eigh_jacobi_parallel::<4>(&a[l], true).unwrap();
            assert_eq!(got[l].unwrap().values, want.values);
        }
    }
}
