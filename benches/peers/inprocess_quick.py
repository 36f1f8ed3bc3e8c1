# Quick same-run check, in-process: qrenyi.divergence on two raw matrices against the numpy five-liners
# of peers.py (one order), d = 64, 256, 512. Run from benches/peers with the package on PYTHONPATH and
# OPENBLAS_NUM_THREADS=1: `python inprocess_quick.py` (best of 7, of 3 at d = 512; last column: deviation).
import sys, time, math, numpy as np, qrenyi
sys.path.insert(0, ".")
import peers
rng=np.random.default_rng(7)
def hs(d):
    g=rng.normal(size=(d,d))+1j*rng.normal(size=(d,d)); r=g@g.conj().T; return r/np.trace(r).real
def best(f,k):
    b=1e9
    for _ in range(k):
        t=time.perf_counter(); f(); b=min(b,time.perf_counter()-t)
    return b
for d in (64,256,512):
    r,s=hs(d),hs(d); k=7 if d<512 else 3
    rows=[("petz α=2",lambda: qrenyi.divergence(r,s,"petz",2.0),lambda: peers.np_petz(r,s,2.0)),
          ("sandwiched α=2",lambda: qrenyi.divergence(r,s,"sandwiched",2.0),lambda: peers.np_sandwiched(r,s,2.0)),
          ("maximal α=2",lambda: qrenyi.divergence(r,s,"maximal",2.0),lambda: peers.np_maximal(r,s,2.0)),
          ("umegaki",lambda: qrenyi.divergence(r,s,"umegaki"),lambda: peers.np_umegaki(r,s)),
          ("hockey-stick γ=e",lambda: qrenyi.divergence(r,s,"hockey-stick",gamma=math.e),lambda: peers.np_hockey(r,s,math.e)),
          ("fidelity",lambda: qrenyi.divergence(r,s,"fidelity"),lambda: peers.np_fidelity(r,s))]
    for name,q,n in rows:
        a=q(); b=n()
        tq=best(q,k); tn=best(n,k)
        print(f"| {d} | {name} | {tq*1e3:.2f} ms | {tn*1e3:.2f} ms | **{tn/tq:.2f}×** | {abs(a-b)/max(1,abs(b)):.1e} |")
