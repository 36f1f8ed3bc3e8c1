use num_complex::Complex64 as C;
use qrenyi::divergence::{Family, Pair};
use qrenyi::state::DensityMatrix;
fn main() -> qrenyi::Result<()> {
    let s = 0.5f64.sqrt();
    let zero = DensityMatrix::pure(&[C::new(1.0, 0.0), C::new(0.0, 0.0)])?;
    let plus = DensityMatrix::pure(&[C::new(s, 0.0), C::new(s, 0.0)])?;
    let one = DensityMatrix::pure(&[C::new(0.0, 0.0), C::new(1.0, 0.0)])?;
    let p = Pair::new(&zero, &plus)?;
    for f in Family::ALL {
        println!("{:?} 0.5: {}  2: {}", f, p.renyi(f, 0.5)?, p.renyi(f, 2.0)?);
    }
    println!(
        "expect petz½ = 2ln2 = {}, sandwiched½ = ln2 = {}",
        2.0 * 2f64.ln(),
        2f64.ln()
    );
    println!(
        "fid {} td {} (expect .5, {})",
        p.fidelity()?,
        p.trace_distance()?,
        s
    );
    let q = Pair::new(&zero, &one)?;
    for f in Family::ALL {
        println!(
            "orth {:?} 0.5: {} 2: {}",
            f,
            q.renyi(f, 0.5)?,
            q.renyi(f, 2.0)?
        );
    }
    let r = DensityMatrix::diagonal(&[0.7, 0.3])?;
    let m = DensityMatrix::maximally_mixed(2)?;
    let pr = Pair::new(&r, &m)?;
    for f in Family::ALL {
        println!(
            "{:?}: {:?}",
            f,
            pr.curve(
                f,
                &[0.5, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 2.0, 1e6, f64::INFINITY]
            )?
        );
    }
    println!(
        "classical 0.5: {}",
        qrenyi::divergence::classical::renyi(&[0.7, 0.3], &[0.5, 0.5], 0.5)?
    );
    println!("kl: {}  dmax {}", pr.umegaki()?, pr.max_relative_entropy()?);
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let a = DensityMatrix::random_hilbert_schmidt(4, 4, &mut rng)?;
    let b = DensityMatrix::random_bures(4, &mut rng)?;
    let pab = Pair::new(&a, &b)?;
    for f in Family::ALL {
        println!(
            "rand {:?}: {:?}",
            f,
            pab.curve(f, &[0.5, 1.0 - 1e-7, 1.0, 1.0 + 1e-7, 2.0, 50.0])?
        );
    }
    println!(
        "umegaki {} bs {} dmax {}",
        pab.umegaki()?,
        pab.belavkin_staszewski()?,
        pab.max_relative_entropy()?
    );
    let an = a.with_backend(qrenyi::spectral::Backend::Nalgebra)?;
    let bn = b.with_backend(qrenyi::spectral::Backend::Nalgebra)?;
    let pn = Pair::new(&an, &bn)?;
    for f in Family::ALL {
        println!("nalg {:?}: {:?}", f, pn.curve(f, &[0.5, 2.0, 50.0])?);
    }
    Ok(())
}
