use qrenyi::divergence::Family;
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours};
fn main() {
    let nb = Neighbours::classical(vec![0.5, 0.3, 0.2], vec![0.2, 0.3, 0.5]).unwrap();
    for me in [4000, 20000, 100000] {
        let o = CertifyOptions { max_evaluations: me, ..Default::default() };
        let t = std::time::Instant::now();
        let f = nb.fit(Family::Sandwiched, 0.1, &o).unwrap();
        println!("{me}: {:?} {:?}", f, t.elapsed());
    }
}
