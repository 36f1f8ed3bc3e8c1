//! A thin builder of conic programs over Clarabel, with Hermitian matrix variables.
//!
//! Clarabel solves `min cᵀx  s.t.  b − Ax = s ∈ K` (here `P = 0`) and returns the dual
//! `z ∈ K*`, the multiplier of `s` in the Lagrangian `cᵀx − ⟨z, b − Ax⟩`. Every constraint
//! below is written as "an affine expression lies in a cone": the constant goes to `b` and
//! the coefficients, negated, to `A`.
//!
//! A complex Hermitian `m × m` expression `H = A + iB` enters the PSD cone through its real
//! embedding `S(H) = [[A, −B], [B, A]]` (`S(H) ⪰ 0 ⟺ H ⪰ 0`); when every datum is real the
//! expression is kept real (`S(H) = A`, half the size). The cone stores the upper triangle of `S`
//! column by column with the off-diagonal entries scaled by √2 (Clarabel's `svec`). The dual block
//! `Z = [[P, Q], [Qᵀ, T]]` maps back to `Y = (P + T) + i(Qᵀ − Q)`, for which
//! `Re Tr(Y H) = ⟨Z, S(H)⟩` — the pairing the derivations in docs/smooth.md use.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use ndarray::Array2;
use num_complex::Complex64;

use crate::{Error, Result};

/// A Hermitian `d × d` matrix variable: `d` diagonal columns, then per pair `i < j` the real part
/// and (complex programs only) the imaginary part of entry `(i, j)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HermVar {
    pub offset: usize,
    pub d: usize,
    pub real: bool,
}

/// A general (not Hermitian) `d × d` matrix variable: real parts, then imaginary parts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MatVar {
    pub offset: usize,
    pub d: usize,
    pub real: bool,
}

/// An affine Hermitian `m × m` expression `C + Σ_k x_k G_k`, each `G_k` given by its entries on and
/// above the diagonal (`(r, c, z)` means `H_rc = z`, `H_cr = z̄`, `r ≤ c`).
pub(crate) struct HermExpr {
    m: usize,
    constant: Vec<(usize, usize, Complex64)>,
    terms: Vec<(usize, usize, usize, Complex64)>, // (col, r, c, coefficient)
}

impl HermExpr {
    pub fn new(m: usize) -> Self {
        HermExpr {
            m,
            constant: Vec::new(),
            terms: Vec::new(),
        }
    }

    /// Add `w · M` (a constant Hermitian matrix) placed at block offset `(at, at)`.
    pub fn constant(&mut self, m: &Array2<Complex64>, w: f64, at: usize) -> &mut Self {
        for c in 0..m.nrows() {
            for r in 0..=c {
                let z = m[[r, c]] * w;
                if z != Complex64::new(0.0, 0.0) {
                    self.constant.push((r + at, c + at, z));
                }
            }
        }
        self
    }

    /// Add `x_col · w · M` for a scalar variable column `col`.
    pub fn scalar(&mut self, col: usize, m: &Array2<Complex64>, w: f64) -> &mut Self {
        for c in 0..m.nrows() {
            for r in 0..=c {
                let z = m[[r, c]] * w;
                if z != Complex64::new(0.0, 0.0) {
                    self.terms.push((col, r, c, z));
                }
            }
        }
        self
    }

    /// Add `w · X` for a Hermitian variable `X`, placed at block offset `(at, at)`.
    pub fn herm(&mut self, v: HermVar, w: f64, at: usize) -> &mut Self {
        for (col, r, c, z) in v.basis() {
            self.terms.push((col, r + at, c + at, z * w));
        }
        self
    }

    /// Add `w · X` for a general variable `X` in the upper-right block `(0, at)` (with `X†` in
    /// the lower-left block by Hermiticity); needs `at ≥ X.d`.
    pub fn offdiag(&mut self, v: MatVar, w: f64, at: usize) -> &mut Self {
        let d = v.d;
        for i in 0..d {
            for j in 0..d {
                let k = i * d + j;
                self.terms
                    .push((v.offset + k, i, j + at, Complex64::new(w, 0.0)));
                if !v.real {
                    self.terms
                        .push((v.offset + d * d + k, i, j + at, Complex64::new(0.0, w)));
                }
            }
        }
        self
    }
}

impl HermVar {
    pub fn len(d: usize, real: bool) -> usize {
        if real {
            d * (d + 1) / 2
        } else {
            d * d
        }
    }

    /// `(column, r, c, z)`: the variable's basis matrices as upper entries.
    fn basis(&self) -> Vec<(usize, usize, usize, Complex64)> {
        let mut out = Vec::with_capacity(Self::len(self.d, self.real));
        let mut col = self.offset;
        for i in 0..self.d {
            out.push((col, i, i, Complex64::new(1.0, 0.0)));
            col += 1;
        }
        for c in 0..self.d {
            for r in 0..c {
                out.push((col, r, c, Complex64::new(1.0, 0.0)));
                col += 1;
                if !self.real {
                    out.push((col, r, c, Complex64::new(0.0, 1.0)));
                    col += 1;
                }
            }
        }
        out
    }

    /// `Re Tr(X S)` as coefficients on the variable's columns.
    pub fn trace_with(&self, s: &Array2<Complex64>, w: f64) -> Vec<(usize, f64)> {
        // Tr(XS) = Σ_i X_ii S_ii + Σ_{r<c} 2 Re(X_rc S_cr)
        self.basis()
            .into_iter()
            .map(|(col, r, c, z)| {
                let v = if r == c {
                    (z * s[[r, r]]).re
                } else {
                    2.0 * (z * s[[c, r]]).re
                };
                (col, w * v)
            })
            .collect()
    }

    /// The matrix this variable takes at the point `x`.
    pub fn value(&self, x: &[f64]) -> Array2<Complex64> {
        let mut m = Array2::<Complex64>::zeros((self.d, self.d));
        for (col, r, c, z) in self.basis() {
            m[[r, c]] += z * x[col];
            if r != c {
                m[[c, r]] += (z * x[col]).conj();
            }
        }
        m
    }
}

impl MatVar {
    pub fn len(d: usize, real: bool) -> usize {
        if real {
            d * d
        } else {
            2 * d * d
        }
    }

    /// `Re Tr X` as coefficients.
    pub fn re_trace(&self, w: f64) -> Vec<(usize, f64)> {
        (0..self.d)
            .map(|i| (self.offset + i * self.d + i, w))
            .collect()
    }
}

/// Index of `(r, c)`, `r ≤ c`, in the column-wise upper-triangle vector.
fn svec_index(r: usize, c: usize) -> usize {
    c * (c + 1) / 2 + r
}

/// Real-embedding entries of an upper entry `(r, c, z)` of an `m × m` Hermitian matrix, as
/// `(row, col)` of the embedded matrix (upper triangle) with values.
fn embed(m: usize, real: bool, r: usize, c: usize, z: Complex64) -> Vec<(usize, usize, f64)> {
    let mut out = vec![(r, c, z.re)];
    if !real {
        out.push((m + r, m + c, z.re));
        if r != c {
            // S[r, m+c] = −Im H_rc, S[c, m+r] = −Im H_cr = Im H_rc
            out.push((r, m + c, -z.im));
            out.push((c, m + r, z.im));
        }
    }
    out
}

/// A conic program under construction.
pub(crate) struct Program {
    n: usize,
    c: Vec<f64>,
    rows: Vec<Vec<(usize, f64)>>, // A, row by row
    b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
    /// First row of each cone, in order.
    starts: Vec<usize>,
    real: bool,
}

/// Constraint rows from which Clarabel's supernodal `faer` LDL replaces QDLDL: the real embedding
/// of the purified-ball block (`4d × 4d`) makes a dense `~8d⁴`-entry KKT block that QDLDL factors
/// in minutes at d = 16 (faer: seconds); below this QDLDL is as fast and more accurate (measured,
/// docs/PERFORMANCE.md "Smooth divergences").
const FAER_FROM: usize = 2000;

/// Solver output: primal `x` and the dual block of every cone, in the order added.
pub(crate) struct Solved {
    pub x: Vec<f64>,
    pub z: Vec<Vec<f64>>,
}

impl Program {
    pub fn new(real: bool) -> Self {
        Program {
            n: 0,
            c: Vec::new(),
            rows: Vec::new(),
            b: Vec::new(),
            cones: Vec::new(),
            starts: Vec::new(),
            real,
        }
    }

    pub fn scalar(&mut self) -> usize {
        self.n += 1;
        self.c.push(0.0);
        self.n - 1
    }

    pub fn herm(&mut self, d: usize) -> HermVar {
        let v = HermVar {
            offset: self.n,
            d,
            real: self.real,
        };
        self.n += HermVar::len(d, self.real);
        self.c.resize(self.n, 0.0);
        v
    }

    pub fn general(&mut self, d: usize) -> MatVar {
        let v = MatVar {
            offset: self.n,
            d,
            real: self.real,
        };
        self.n += MatVar::len(d, self.real);
        self.c.resize(self.n, 0.0);
        v
    }

    pub fn objective(&mut self, coeffs: &[(usize, f64)]) {
        for &(k, v) in coeffs {
            self.c[k] += v;
        }
    }

    fn start(&mut self, cone: SupportedConeT<f64>) -> usize {
        self.starts.push(self.b.len());
        self.cones.push(cone);
        self.cones.len() - 1
    }

    /// Scalar constraints `constant_i + Σ coeffs_i ≥ 0` (or `= 0` when `equality`).
    pub fn linear(&mut self, rows: Vec<(f64, Vec<(usize, f64)>)>, equality: bool) -> usize {
        let k = rows.len();
        let id = self.start(if equality {
            SupportedConeT::ZeroConeT(k)
        } else {
            SupportedConeT::NonnegativeConeT(k)
        });
        for (b, coeffs) in rows {
            self.b.push(b);
            self.rows
                .push(coeffs.into_iter().map(|(j, v)| (j, -v)).collect());
        }
        id
    }

    /// Power cone `x^a y^{1−a} ≥ |z|` on three affine scalars.
    pub fn power(&mut self, a: f64, xyz: [(f64, Vec<(usize, f64)>); 3]) -> usize {
        let id = self.start(SupportedConeT::PowerConeT(a));
        for (b, coeffs) in xyz {
            self.b.push(b);
            self.rows
                .push(coeffs.into_iter().map(|(j, v)| (j, -v)).collect());
        }
        id
    }

    /// `H ⪰ 0` for an affine Hermitian expression.
    pub fn psd(&mut self, h: &HermExpr) -> usize {
        let dim = if self.real { h.m } else { 2 * h.m };
        let id = self.start(SupportedConeT::PSDTriangleConeT(dim));
        let base = self.b.len();
        let len = dim * (dim + 1) / 2;
        self.b.resize(base + len, 0.0);
        self.rows.resize(base + len, Vec::new());
        let scale = |r: usize, c: usize| {
            if r == c {
                1.0
            } else {
                std::f64::consts::SQRT_2
            }
        };
        for &(r, c, z) in &h.constant {
            for (rr, cc, v) in embed(h.m, self.real, r, c, z) {
                self.b[base + svec_index(rr, cc)] += v * scale(rr, cc);
            }
        }
        for &(col, r, c, z) in &h.terms {
            for (rr, cc, v) in embed(h.m, self.real, r, c, z) {
                if v != 0.0 {
                    self.rows[base + svec_index(rr, cc)].push((col, -v * scale(rr, cc)));
                }
            }
        }
        id
    }

    /// Dual matrix of PSD cone `id` (built from an `m × m` Hermitian expression) as a complex
    /// Hermitian `m × m` matrix `Y` with `Re Tr(Y H) = ⟨z, s⟩`.
    pub fn psd_dual(&self, solved: &Solved, id: usize, m: usize) -> Array2<Complex64> {
        let z = &solved.z[id];
        let dim = if self.real { m } else { 2 * m };
        let mut s = Array2::<f64>::zeros((dim, dim));
        let mut k = 0;
        for c in 0..dim {
            for r in 0..=c {
                let v = if r == c {
                    z[k]
                } else {
                    z[k] * std::f64::consts::FRAC_1_SQRT_2
                };
                s[[r, c]] = v;
                s[[c, r]] = v;
                k += 1;
            }
        }
        if self.real {
            return s.mapv(|v| Complex64::new(v, 0.0));
        }
        Array2::from_shape_fn((m, m), |(i, j)| {
            Complex64::new(s[[i, j]] + s[[m + i, m + j]], s[[j, m + i]] - s[[i, m + j]])
        })
    }

    /// Solve with tight tolerances. Any status other than (almost) solved is an error; the
    /// callers certify the answer independently, so "almost solved" points are usable.
    pub fn solve(&self, what: &str) -> Result<Solved> {
        let m = self.b.len();
        // CSC from rows
        let mut cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.n];
        for (i, row) in self.rows.iter().enumerate() {
            for &(j, v) in row {
                cols[j].push((i, v));
            }
        }
        let mut colptr = Vec::with_capacity(self.n + 1);
        let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
        colptr.push(0);
        for col in &mut cols {
            col.sort_by_key(|e| e.0);
            // merge duplicates
            let mut last: Option<usize> = None;
            for &(i, v) in col.iter() {
                if last == Some(i) {
                    // unreachable: `last == Some(i)` only after a push to `nzval`
                    *nzval.last_mut().unwrap() += v;
                } else {
                    rowval.push(i);
                    nzval.push(v);
                    last = Some(i);
                }
            }
            colptr.push(rowval.len());
        }
        let a = CscMatrix::new(m, self.n, colptr, rowval, nzval);
        let p = CscMatrix::<f64>::zeros((self.n, self.n));
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .tol_gap_abs(1e-10)
            .tol_gap_rel(1e-10)
            .tol_feas(1e-10)
            .max_iter(200)
            .direct_solve_method(if m > FAER_FROM { "faer" } else { "qdldl" }.to_string())
            .build()
            .map_err(|e| solver_error(what, &format!("{e:?}")))?;
        let mut solver = DefaultSolver::new(&p, &self.c, &a, &self.b, &self.cones, settings)
            .map_err(|e| solver_error(what, &e.to_string()))?;
        // Clarabel's dense work is on matrices of size ≤ 4d: one BLAS thread (docs/ARCHITECTURE.md).
        crate::spectral::with_single_blas_thread(|| solver.solve());
        let sol = &solver.solution;
        match sol.status {
            SolverStatus::Solved
            | SolverStatus::AlmostSolved
            | SolverStatus::InsufficientProgress
            | SolverStatus::MaxIterations => {}
            st => return Err(solver_error(what, &format!("{st:?}"))),
        }
        if sol.x.iter().chain(&sol.z).any(|v| !v.is_finite()) {
            return Err(solver_error(what, "non-finite iterate"));
        }
        let z = self
            .starts
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                let e = self.starts.get(k + 1).copied().unwrap_or(m);
                sol.z[s..e].to_vec()
            })
            .collect();
        Ok(Solved {
            x: sol.x.clone(),
            z,
        })
    }
}

fn solver_error(what: &str, reason: &str) -> Error {
    Error::SmoothNotCertified {
        what: what.to_string(),
        width: f64::INFINITY,
        reason: format!("conic solver: {reason}"),
    }
}
