# Quick same-run check of the 10,000-pair stack against a Python loop of the numpy five-liners
# (sandwiched, Petz, maximal at α = 2; d = 2, 4). Run from benches/peers with the package on
# PYTHONPATH and OPENBLAS_NUM_THREADS=1: `python stack_quick.py [alpha [dims]]` (defaults 2.0 and
# "2,4"; e.g. `python stack_quick.py 1.5 4`). Best of 7 stack calls, best of 2 loops.
import sys, time, numpy as np, qrenyi
sys.path.insert(0, ".")
import peers
rng=np.random.default_rng(20240601); N=10000
ALPHA=float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
DIMS=[int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [2, 4]
def best(f, k):
    b=1e9
    for _ in range(k):
        t=time.perf_counter(); f(); b=min(b,time.perf_counter()-t)
    return b
for d in DIMS:
    g=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); rs=g@g.conj().transpose(0,2,1); rs/=np.trace(rs,axis1=1,axis2=2).real[:,None,None]
    h=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); ss=h@h.conj().transpose(0,2,1); ss/=np.trace(ss,axis1=1,axis2=2).real[:,None,None]
    for fam, npf in [("sandwiched", peers.np_sandwiched), ("petz", peers.np_petz), ("maximal", peers.np_maximal)]:
        st=best(lambda: qrenyi.divergence(rs,ss,fam,ALPHA), 7)
        lp=best(lambda: [npf(rs[k],ss[k],ALPHA) for k in range(N)], 2)
        print(f"d={d} {fam}: stack {st*1e3:.2f} ms, numpy loop {lp*1e3:.0f} ms, ratio {lp/st:.1f}x")
