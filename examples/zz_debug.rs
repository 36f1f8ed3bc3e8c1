use qrenyi::divergence::{Family, Pair};
use qrenyi::state::DensityMatrix;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let r = DensityMatrix::new(qrenyi::io::read_matrix(&a[1]).unwrap()).unwrap();
    let s = DensityMatrix::new(qrenyi::io::read_matrix(&a[2]).unwrap()).unwrap();
    let al: f64 = a[3].parse().unwrap();
    let p = Pair::new(&r, &s).unwrap();
    println!(
        "supported {:?} leakage {:?} rank r {} s {}",
        p.is_supported(),
        p.leakage(),
        r.rank(),
        s.rank()
    );
    println!(
        "r eig {:?}\ns eig {:?} thr {}",
        r.eigen().values(),
        s.eigen().values(),
        s.eigen().threshold()
    );
    println!("r mat {:?}", r.matrix());
    for f in Family::ALL {
        println!("{:?} {:?}", f, p.renyi(f, al));
    }
    println!("dmax {:?}", p.max_relative_entropy());
}
