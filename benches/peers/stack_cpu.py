# CPU-time variant of stack_quick.py (d = 4): process CPU seconds (all threads) of one 10,000-pair
# stack call (best of 9) against the CPU seconds of a Python loop of the numpy five-liners (2,000
# pairs, best of 2, times 5) — stable on a loaded machine, where wall times of the stack move 2× between
# calls. Run from benches/peers: `OPENBLAS_NUM_THREADS=1 python stack_cpu.py [alpha]` (default 2.0).
import sys, time, numpy as np, qrenyi
sys.path.insert(0, ".")
import peers
rng=np.random.default_rng(20240601); N=10000
ALPHA=float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
def best(f, k, clock):
    b=1e9
    for _ in range(k):
        t=clock(); f(); b=min(b,clock()-t)
    return b
d=4
g=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); rs=g@g.conj().transpose(0,2,1); rs/=np.trace(rs,axis1=1,axis2=2).real[:,None,None]
h=rng.normal(size=(N,d,d))+1j*rng.normal(size=(N,d,d)); ss=h@h.conj().transpose(0,2,1); ss/=np.trace(ss,axis1=1,axis2=2).real[:,None,None]
for fam, npf in [("sandwiched", peers.np_sandwiched), ("petz", peers.np_petz), ("maximal", peers.np_maximal)]:
    cpu=best(lambda: qrenyi.divergence(rs,ss,fam,ALPHA), 9, time.process_time)
    wall=best(lambda: qrenyi.divergence(rs,ss,fam,ALPHA), 5, time.perf_counter)
    lp=best(lambda: [npf(rs[k],ss[k],ALPHA) for k in range(2000)], 2, time.process_time)*5
    print(f"d={d} {fam} α={ALPHA}: stack CPU {cpu*1e3:.1f} ms (wall {wall*1e3:.1f}), numpy loop CPU {lp*1e3:.0f} ms, CPU ratio {lp/cpu:.1f}x")
