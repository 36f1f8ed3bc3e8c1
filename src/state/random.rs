//! Random states, unitaries and channels (Hilbert–Schmidt, Bures, Haar), from a caller-supplied
//! [`rand::Rng`].

use super::operators::dagger;
use super::{Channel, DensityMatrix};
use crate::error::{Error, Result};
use nalgebra::DMatrix;
use ndarray::{s, Array2};
use num_complex::Complex64;
use rand::Rng;
use rand_distr::StandardNormal;

impl DensityMatrix {
    /// Hilbert–Schmidt random state of rank `rank` (`1 ≤ rank ≤ d`): `G G† / Tr(G G†)` with `G` a
    /// `d × rank` complex Ginibre matrix. `rank = d` is the Hilbert–Schmidt measure.
    pub fn random_hilbert_schmidt<R: Rng + ?Sized>(
        d: usize,
        rank: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if d == 0 || rank == 0 || rank > d {
            return Err(Error::invalid(
                "rank",
                rank as f64,
                format!("must be in 1..={d} (and d ≥ 1)"),
            ));
        }
        let g = ginibre(d, rank, rng);
        normalized_gram(&g)
    }

    /// Bures random state: `(I + U) G G† (I + U)† / Tr(·)` with `U` Haar-random and `G` Ginibre
    /// (Osipov, Sommers, Życzkowski, J. Phys. A 43 (2010) 055302).
    pub fn random_bures<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Result<Self> {
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let mut a = haar_unitary(d, rng);
        for i in 0..d {
            a[[i, i]] += Complex64::new(1.0, 0.0);
        }
        normalized_gram(&a.dot(&ginibre(d, d, rng)))
    }

    /// Haar-random pure state `|ψ⟩⟨ψ|` (normalised complex Gaussian vector).
    pub fn random_pure<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Result<Self> {
        Self::random_hilbert_schmidt(d, 1, rng)
    }
}

/// `d × k` complex Ginibre matrix (i.i.d. standard complex normal entries).
pub fn ginibre<R: Rng + ?Sized>(d: usize, k: usize, rng: &mut R) -> Array2<Complex64> {
    Array2::from_shape_fn((d, k), |_| {
        Complex64::new(
            rng.sample::<f64, _>(StandardNormal),
            rng.sample::<f64, _>(StandardNormal),
        )
    })
}

fn normalized_gram(g: &Array2<Complex64>) -> Result<DensityMatrix> {
    let m = g.dot(&dagger(&g.view()));
    let tr: f64 = (0..m.nrows()).map(|i| m[[i, i]].re).sum();
    DensityMatrix::new(m.mapv(|z| z / tr))
}

/// Haar-random `d × d` unitary: QR of a Ginibre matrix with the phases of `R`'s diagonal removed
/// (Mezzadri, Notices AMS 54 (2007) 592).
pub fn haar_unitary<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Array2<Complex64> {
    let g = ginibre(d, d, rng);
    let m = DMatrix::from_fn(d, d, |i, j| g[[i, j]]);
    let qr = m.qr();
    let (q, r) = (qr.q(), qr.r());
    Array2::from_shape_fn((d, d), |(i, j)| {
        let rjj = r[(j, j)];
        let phase = if rjj.norm() > 0.0 {
            rjj / rjj.norm()
        } else {
            Complex64::new(1.0, 0.0)
        };
        q[(i, j)] * phase
    })
}

impl Channel {
    /// Random channel from a Haar-random Stinespring isometry `V: ℂ^{d_in} → ℂ^{k} ⊗ ℂ^{d_out}`
    /// (the first `d_in` columns of a Haar unitary of size `k·d_out`), `K_i = (⟨i| ⊗ I) V`.
    pub fn random<R: Rng + ?Sized>(
        d_in: usize,
        d_out: usize,
        n_kraus: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if d_in == 0 || d_out == 0 || n_kraus == 0 || n_kraus * d_out < d_in {
            return Err(Error::invalid(
                "n_kraus",
                n_kraus as f64,
                format!(
                    "need d_in, d_out, k ≥ 1 and k·d_out ≥ d_in (d_in = {d_in}, d_out = {d_out})"
                ),
            ));
        }
        let u = haar_unitary(n_kraus * d_out, rng);
        let v = u.slice(s![.., 0..d_in]);
        Channel::new(
            (0..n_kraus)
                .map(|i| v.slice(s![i * d_out..(i + 1) * d_out, ..]).to_owned())
                .collect(),
        )
    }
}
