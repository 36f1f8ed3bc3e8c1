# Quick same-run check of the 10,000-pair stack against a Python loop of the numpy five-liners
# (sandwiched, Petz, maximal at α = 2; d = 2, 4). Run from benches/peers with the package on
# PYTHONPATH and OPENBLAS_NUM_THREADS=1: `python stack_quick.py [alpha [dims]] [--cpu]` (defaults
# 2.0 and "2,4"; e.g. `python stack_quick.py 1.5 4`). Best of 7 stack calls, best of 2 loops.
# `--cpu` adds process CPU time (all threads, `time.process_time`) of the stack call (best of 7)
# and of the loop (2,000 pairs, best of 2, times 5): steadier than wall time on a shared machine.
import sys, time, numpy as np, qrenyi
sys.path.insert(0, ".")
import peers
CPU = "--cpu" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--cpu"]
rng=np.random.default_rng(20240601); N=10000
ALPHA=float(ARGS[0]) if len(ARGS) > 0 else 2.0
DIMS=[int(x) for x in ARGS[1].split(",")] if len(ARGS) > 1 else [2, 4]
def best(f, k, clock=time.perf_counter):
    b=1e9
    for _ in range(k):
        t=clock(); f(); b=min(b,clock()-t)
    return b
for d in DIMS:
    g=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); rs=g@g.conj().transpose(0,2,1); rs/=np.trace(rs,axis1=1,axis2=2).real[:,None,None]
    h=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); ss=h@h.conj().transpose(0,2,1); ss/=np.trace(ss,axis1=1,axis2=2).real[:,None,None]
    for fam, npf in [("sandwiched", peers.np_sandwiched), ("petz", peers.np_petz), ("maximal", peers.np_maximal)]:
        st=best(lambda: qrenyi.divergence(rs,ss,fam,ALPHA), 7)
        lp=best(lambda: [npf(rs[k],ss[k],ALPHA) for k in range(N)], 2)
        line=f"d={d} {fam}: stack {st*1e3:.2f} ms, numpy loop {lp*1e3:.0f} ms, ratio {lp/st:.1f}x"
        if CPU:
            sc=best(lambda: qrenyi.divergence(rs,ss,fam,ALPHA), 7, time.process_time)
            lc=best(lambda: [npf(rs[k],ss[k],ALPHA) for k in range(2000)], 2, time.process_time)*5
            line+=f"; CPU stack {sc*1e3:.2f} ms ({sc*1e2:.3f} µs/pair), loop {lc*1e3:.0f} ms, CPU ratio {lc/sc:.1f}x"
        print(line, flush=True)
