// qrenyi's own GPU kernels (feature `cuda`), compiled to PTX by `tools/gen-ptx` (NVRTC, target
// compute_80, no fast math, no fused multiply-add contraction) into `kernels.ptx` beside this file,
// which the crate embeds and the CUDA driver compiles for the GPU at hand on first use. Edit this
// file, then rerun `tools/gen-ptx`; `tests/gpu_kernels.rs` checks that the PTX matches this source.
//
// Row-major matrices of complex doubles (`double2`: re, im). No headers: NVRTC's built-in math.

#define EPS 2.220446049250313e-16
#define MIN_POSITIVE 2.2250738585072014e-308
#define MAX_SWEEPS 40

__device__ __forceinline__ double2 cmul(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ double2 cmulc(double2 a, double2 b) {  // conj(a) * b
    return make_double2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
__device__ __forceinline__ double2 conj2(double2 a) { return make_double2(a.x, -a.y); }
__device__ __forceinline__ double2 scale2(double2 a, double s) { return make_double2(a.x * s, a.y * s); }
__device__ __forceinline__ double2 add2(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 sub2(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ bool is_finite(double x) { return x - x == 0.0; }

// Load the symmetrised matrix (A + A†)/2 of the stored `a` — `state::validation`'s
// `symmetrize_checked`, operation for operation — and return its validation statistics: the
// largest |a_ij|², the largest |a_ij − conj(a_ji)|², whether every entry is finite, and the
// trace Σ_i Re a_ii summed in index order.
struct Stats {
    double norm2, dev2, trace;
    bool finite;
};

template <int N>
__device__ Stats load_symmetrised(int d, const double2* a, double2 (*m)[N]) {
    Stats st = {0.0, 0.0, 0.0, true};
    for (int i = 0; i < d; i++) {
        for (int j = 0; j <= i; j++) {
            double2 z = a[i * d + j], w = a[j * d + i];
            st.finite = st.finite && is_finite(z.x) && is_finite(z.y) && is_finite(w.x) && is_finite(w.y);
            st.norm2 = fmax(st.norm2, fmax(z.x * z.x + z.y * z.y, w.x * w.x + w.y * w.y));
            double2 dv = make_double2(z.x - w.x, z.y + w.y);
            st.dev2 = fmax(st.dev2, dv.x * dv.x + dv.y * dv.y);
            double2 h = make_double2((z.x + w.x) * 0.5, (z.y - w.y) * 0.5);
            m[i][j] = h;
            m[j][i] = conj2(h);
        }
    }
    for (int i = 0; i < d; i++) st.trace += m[i][i].x;
    return st;
}

// Cyclic Jacobi on the Hermitian `m` (d × d): the algorithm, rotation and Demmel–Veselić stopping
// rule of `spectral::small::eigh_fixed`, line for line. On return the eigenvalues sit in
// `values[0..d]` in ascending order and, with `vectors`, `v` holds the eigenvectors as columns in
// the same order. Returns whether it converged within MAX_SWEEPS.
template <int N>
__device__ bool jacobi(int d, double2 (*m)[N], double2 (*v)[N], bool vectors, double* values) {
    if (vectors) {
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) v[i][j] = make_double2(i == j ? 1.0 : 0.0, 0.0);
    }
    bool converged = d < 2;
    for (int sweep = 0; sweep < MAX_SWEEPS && !converged; sweep++) {
        bool rotated = false;
        for (int p = 0; p < d; p++) {
            for (int q = p + 1; q < d; q++) {
                double2 g = m[p][q];
                double app = m[p][p].x, aqq = m[q][q].x;
                double abs2 = g.x * g.x + g.y * g.y;
                if (abs2 <= EPS * EPS * fabs(app * aqq) || abs2 == 0.0) continue;
                double abs = (is_finite(abs2) && abs2 >= MIN_POSITIVE) ? sqrt(abs2) : hypot(g.x, g.y);
                if (abs <= EPS * sqrt(fabs(app) * fabs(aqq)) || abs < MIN_POSITIVE) continue;
                rotated = true;
                double theta = (aqq - app) / (2.0 * abs);
                double t;
                if (fabs(theta) > 1e150) {
                    t = 0.5 / theta;
                } else {
                    double sgn = theta > 0.0 ? 1.0 : (theta < 0.0 ? -1.0 : 0.0);
                    // Rust's f64::signum(0.0) is 1.0
                    if (theta == 0.0) sgn = 1.0;
                    t = sgn / (fabs(theta) + sqrt(1.0 + theta * theta));
                }
                double c = 1.0 / sqrt(1.0 + t * t);
                double2 phase = make_double2(g.x / abs, g.y / abs);
                double2 se = scale2(phase, t * c);
                double2 sec = conj2(se);
                for (int k = 0; k < d; k++) {
                    if (k == p || k == q) continue;
                    double2 akp = m[k][p], akq = m[k][q];
                    double2 np = sub2(scale2(akp, c), cmul(akq, sec));
                    double2 nq = add2(cmul(akp, se), scale2(akq, c));
                    m[k][p] = np;
                    m[p][k] = conj2(np);
                    m[k][q] = nq;
                    m[q][k] = conj2(nq);
                }
                m[p][p] = make_double2(app - t * abs, 0.0);
                m[q][q] = make_double2(aqq + t * abs, 0.0);
                m[p][q] = make_double2(0.0, 0.0);
                m[q][p] = make_double2(0.0, 0.0);
                if (vectors) {
                    for (int k = 0; k < d; k++) {
                        double2 vkp = v[k][p], vkq = v[k][q];
                        v[k][p] = sub2(scale2(vkp, c), cmul(vkq, sec));
                        v[k][q] = add2(cmul(vkp, se), scale2(vkq, c));
                    }
                }
            }
        }
        converged = !rotated;
    }
    // ascending order: insertion sort of the values, the vector columns permuted alike
    int order[N];
    for (int k = 0; k < d; k++) {
        values[k] = m[k][k].x;
        order[k] = k;
    }
    for (int k = 1; k < d; k++) {
        for (int j = k; j > 0 && values[j - 1] > values[j]; j--) {
            double tv = values[j - 1];
            values[j - 1] = values[j];
            values[j] = tv;
            int to = order[j - 1];
            order[j - 1] = order[j];
            order[j] = to;
        }
    }
    if (vectors) {
        // permute columns through m (no longer needed) as scratch
        for (int i = 0; i < d; i++)
            for (int k = 0; k < d; k++) m[i][k] = v[i][order[k]];
        for (int i = 0; i < d; i++)
            for (int k = 0; k < d; k++) v[i][k] = m[i][k];
    }
    return converged;
}

// One sandwiched pair (ρ, σ), both d × d, α > 1, per thread, from the raw stored matrices
// (symmetrised here as the host validation does). Writes, for pair k (rows of d numbers):
// mu: σ's ascending eigenvalues; diag: the diagonal of ρ' = V†ρV; nu: the ascending eigenvalues
// of Dρ'D with D = diag(e^{(γ ln μ_j − c)/2}), γ = (1−α)/α, c = max_j γ ln μ_j (only when σ has
// full rank: μ_0 > 16 d ε μ_{d−1}); and 8 numbers in `info`: ρ's smallest eigenvalue, c, then
// (max |ρ_ij|², max |ρ_ij − conj ρ_ji|², Tr ρ) and the same three for σ. flags: bit 0 every
// solve converged, bit 1 σ of full rank, bit 2 every entry finite.
template <int N>
__device__ void sandwiched_pair(int d, int count, const double2* rho, const double2* sigma,
                                double alpha, double* mu, double* diag, double* nu, double* info,
                                int* flags) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    double2 a[N][N], v[N][N], t[N][N];
    double w[N];
    for (int j = 0; j < N; j++) w[j] = 0.0;
    size_t off = (size_t)k * d * d, row = (size_t)k * d;
    const double2* r = rho + off;
    double* inf = info + (size_t)k * 8;
    Stats ss = load_symmetrised<N>(d, sigma + off, a);
    bool ok = ss.finite && jacobi<N>(d, a, v, true, w);
    for (int j = 0; j < d; j++) mu[row + j] = w[j];
    Stats sr = load_symmetrised<N>(d, r, a);
    bool fin = ss.finite && sr.finite;
    ok = ok && sr.finite && jacobi<N>(d, a, t, false, w);
    inf[0] = w[0];
    inf[2] = sr.norm2;
    inf[3] = sr.dev2;
    inf[4] = sr.trace;
    inf[5] = ss.norm2;
    inf[6] = ss.dev2;
    inf[7] = ss.trace;
    // ρ' = V† ρ V: t = ρ V, then a = V† t
    load_symmetrised<N>(d, r, a);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double2 s = make_double2(0.0, 0.0);
            for (int l = 0; l < d; l++) s = add2(s, cmul(a[i][l], v[l][j]));
            t[i][j] = s;
        }
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double2 s = make_double2(0.0, 0.0);
            for (int l = 0; l < d; l++) s = add2(s, cmulc(v[l][i], t[l][j]));
            a[i][j] = s;
        }
    for (int j = 0; j < d; j++) diag[row + j] = a[j][j].x;
    double tau = fmax(16.0 * d * EPS * mu[row + d - 1], MIN_POSITIVE);
    bool full = ok && mu[row] > tau;
    double c = 0.0;
    if (full) {
        double gamma = (1.0 - alpha) / alpha;
        double logs[N];
        c = -1.0 / 0.0;
        for (int j = 0; j < d; j++) {
            logs[j] = gamma * log(mu[row + j]);
            c = fmax(c, logs[j]);
        }
        for (int j = 0; j < d; j++) w[j] = exp(0.5 * (logs[j] - c));
        // D ρ' D from its lower triangle (as the solver reads it), Hermitian
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < i; j++) {
                a[i][j] = scale2(a[i][j], w[i] * w[j]);
                a[j][i] = conj2(a[i][j]);
            }
            a[i][i] = make_double2(a[i][i].x * (w[i] * w[i]), 0.0);
        }
        ok = ok && jacobi<N>(d, a, t, false, w);
        for (int j = 0; j < d; j++) nu[row + j] = w[j];
    } else {
        for (int j = 0; j < d; j++) nu[row + j] = 0.0;
    }
    inf[1] = c;
    flags[k] = (ok ? 1 : 0) | (full ? 2 : 0) | (fin ? 4 : 0);
}

#define SANDWICHED(N)                                                                          \
    extern "C" __global__ void sandwiched_pairs_##N(int d, int count, const double2* rho,       \
                                                    const double2* sigma, double alpha,         \
                                                    double* mu, double* diag, double* nu,       \
                                                    double* info, int* flags) {                 \
        sandwiched_pair<N>(d, count, rho, sigma, alpha, mu, diag, nu, info, flags);            \
    }
SANDWICHED(4)
SANDWICHED(8)
SANDWICHED(16)

// Gram-block entries from distances: on entry g (column-major p × q, leading dimension p) holds
// ⟨a_i, b_j⟩ of centred, power-of-two-scaled samples and na, nb their squared norms; on exit
// g_ij = k(u), u = max(na_i + nb_j − 2g_ij, 0)·r² (u = 0 for a zero distance), with
// kind 0 = RBF e^{−u}, 1 = Laplace e^{−√u}, 2 = IMQ (1 + u)^{−1/2} — `kernel::gram`'s formula.
// With `sym`, only the lower triangle of g is read (a `dsyrk` result), both triangles are
// written and the diagonal is 1.
extern "C" __global__ void gram_entries(int p, int q, const double* na, const double* nb,
                                        double r2, int kind, int sym, double* g) {
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)p * q) return;
    int i = (int)(idx % p), j = (int)(idx / p);
    if (sym && j > i) return;
    double x = fmax(na[i] + nb[j] - 2.0 * g[idx], 0.0);
    double u = x == 0.0 ? 0.0 : x * r2;
    double val = kind == 0 ? exp(-u) : (kind == 1 ? exp(-sqrt(u)) : 1.0 / sqrt(1.0 + u));
    if (sym) {
        if (i == j) val = 1.0;
        g[(size_t)i * p + j] = val;
    }
    g[idx] = val;
}

// Validation statistics of one stored d × d matrix (row-major), as `load_symmetrised` computes
// them for a small one: out[0] = max |a_ij|², out[1] = max |a_ij − conj(a_ji)|² (as the bit
// patterns of non-negative doubles, whose integer order is their numeric order), out[2] = the
// number of blocks that saw a non-finite entry. One thread per entry, one atomic per block.
extern "C" __global__ void hermitian_stats(int d, const double2* a, unsigned long long* out) {
    __shared__ double sn[256], sd[256];
    __shared__ int bad;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    double n2 = 0.0, d2 = 0.0;
    if (idx < (size_t)d * d) {
        size_t i = idx / d, j = idx % d;
        double2 z = a[idx], w = a[j * d + i];
        if (!(is_finite(z.x) && is_finite(z.y))) bad = 1;
        n2 = z.x * z.x + z.y * z.y;
        double2 dv = make_double2(z.x - w.x, z.y + w.y);
        d2 = dv.x * dv.x + dv.y * dv.y;
    }
    sn[threadIdx.x] = n2;
    sd[threadIdx.x] = d2;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sn[threadIdx.x] = fmax(sn[threadIdx.x], sn[threadIdx.x + s]);
            sd[threadIdx.x] = fmax(sd[threadIdx.x], sd[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (bad) {
            atomicAdd(&out[2], 1ull);
        } else {
            atomicMax(&out[0], (unsigned long long)__double_as_longlong(sn[0]));
            atomicMax(&out[1], (unsigned long long)__double_as_longlong(sd[0]));
        }
    }
}

// a ← (a + a†)/2 in place, entry for entry as `symmetrize_checked` (one thread per lower entry);
// diag ← Re a_ii.
extern "C" __global__ void symmetrise(int d, double2* a, double* diag) {
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)d * d) return;
    size_t i = idx / d, j = idx % d;
    if (j > i) return;
    double2 z = a[idx], w = a[j * d + i];
    double2 h = make_double2((z.x + w.x) * 0.5, (z.y - w.y) * 0.5);
    a[j * d + i] = conj2(h);
    a[idx] = h;
    if (i == j) diag[i] = h.x;
}
