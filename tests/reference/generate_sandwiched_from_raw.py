#!/usr/bin/env python3
"""mpmath references for the sandwiched orders alpha > 1 of two raw matrices at d <= 16 on the
stack-array route (``divergence::sandwiched_from_raw``, the in-process Python call's route:
rho' = V_sigma^dagger H V_sigma by split-part products, the root-free values solve of D rho' D).

Writes ``sandwiched_from_raw.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_sandwiched_from_raw.py

Only mpmath and the standard library are needed; the output is deterministic.  The matrices and
the reference formula are those of the sibling ``generate_factor_congruence.py`` (a fixed linear
congruential generator, doubles stored exactly Hermitian, references of the stored doubles):

    D~_alpha = ln( Tr (sigma^{g/2} rho sigma^{g/2})^alpha / Tr rho ) / (alpha - 1),  g = (1-alpha)/alpha,

independently of qrenyi's route (mpmath's eighe at 60 digits; a recomputation at 90 digits is
asserted to agree to 1e-30).  Pairs at d = 3, 4, 7 (below 8: the Cholesky decision is nalgebra's
on both routes), 8, 13 and 16 (the route's largest dimension): rho Hilbert-Schmidt-like, ill-conditioned
(kappa = 1e12), rank-deficient and pure; sigma with kappa from 1 to 1e10 (always full rank: the
route declines a rank-deficient sigma).
"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_factor_congruence import graded, reference_cases, write_fixture  # noqa: E402
from generate_maximal_ritz import Lcg  # noqa: E402

ALPHAS = [1.5, 2.0, 3.7, 10.0]


def main():
    rng = Lcg(20261125)
    specs = [
        (3, graded(3, 1e2, 3), graded(3, 1e3, 3), "d 3: rho kappa 1e2, sigma kappa 1e3"),
        (4, graded(4, 1e12, 4), graded(4, 1e6, 4), "d 4: rho kappa 1e12, sigma kappa 1e6"),
        (7, graded(7, 1e3, 3), graded(7, 1e8, 7), "d 7: rho rank 3, sigma kappa 1e8"),
        (8, graded(8, 1.0, 1), graded(8, 1e10, 8), "d 8: rho pure, sigma kappa 1e10"),
        (13, graded(13, 1e12, 13), graded(13, 1e4, 13), "d 13: rho kappa 1e12, sigma kappa 1e4"),
        (16, graded(16, 1e2, 16), graded(16, 1.0, 16), "d 16: rho kappa 1e2, sigma maximally mixed"),
        (16, graded(16, 1e6, 8), graded(16, 1e10, 16), "d 16: rho rank 8, sigma kappa 1e10"),
    ]
    write_fixture(reference_cases(specs, rng, ALPHAS), "sandwiched_from_raw.json")


if __name__ == "__main__":
    main()
