"""Markdown tables for docs/PERFORMANCE.md ("GPU") from the JSON lines of benches/gpu.rs and
benches/gpu/peers_gpu.py:  python3 benches/gpu/table.py bench.jsonl peers_gpu.jsonl [cpu.jsonl]"""
import json
import sys

def parse(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


rows = [r for f in sys.argv[1:] for l in open(f) if l.startswith("{") and (r := parse(l))]


def pick(**kw):
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def fmt(s):
    return "–" if s is None else (f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s")


def one(lst, key="s"):
    return lst[-1][key] if lst else None


print("| d | qrenyi GPU, 1 order | torch five-liner, 1 order | qrenyi CPU (16 cores), 1 order"
      " | qrenyi GPU, 16 orders | torch, 16 orders | torch/qrenyi (16 orders) |")
print("|---|---|---|---|---|---|---|")
for d in [256, 512, 1024, 2048, 4096, 8192]:
    g1 = one(pick(what="sandwiched", path="cuda", d=d, orders=1))
    g16 = one(pick(what="sandwiched", path="cuda", d=d, orders=16))
    t1 = one(pick(what="torch_five_liner", d=d, orders=1))
    t16 = one(pick(what="torch_five_liner", d=d, orders=16))
    c1 = one(pick(what="sandwiched", path="cpu", d=d, orders=1))
    ratio = f"{t16 / g16:.1f}×" if t16 and g16 else "–"
    print(f"| {d} | {fmt(g1)} | {fmt(t1)} | {fmt(c1)} | {fmt(g16)} | {fmt(t16)} | {ratio} |")
print()
print("| d | eigh GPU | eigh faer | eigh zheevd | eigvalsh GPU | eigvalsh zheevd | Cholesky GPU |"
      " Cholesky zpotrf | one order GPU | one order faer | one order lapack |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for d in sorted({r["d"] for r in pick(what="crossover")}):
    c = {r["backend"]: r for r in pick(what="crossover", d=d)}
    g = lambda b, k: fmt(c.get(b, {}).get(k))
    print(f"| {d} | {g('cuda', 'eigh_s')} | {g('faer', 'eigh_s')} | {g('lapack-zheevd', 'eigh_s')}"
          f" | {g('cuda', 'eigvalsh_s')} | {g('lapack-zheevd', 'eigvalsh_s')} | {g('cuda', 'cholesky_s')}"
          f" | {g('lapack-zheevd', 'cholesky_s')} | {g('cuda', 'sandwiched_one_order_s')}"
          f" | {g('faer', 'sandwiched_one_order_s')} | {g('lapack-zheevd', 'sandwiched_one_order_s')} |")
print()
print("| n = m | Gram blocks (CPU) | build: dsyevd K_YY + C (GPU) | one (α, λ) | 3 orders | CPU build | CPU one (α, λ) |")
print("|---|---|---|---|---|---|---|")
for n in sorted({r["n"] for r in pick(what="kernel")}):
    g = pick(what="kernel", path="cuda", n=n)
    c = pick(what="kernel", path="cpu", n=n)
    gg = g[-1] if g else {}
    cc = c[-1] if c else {}
    print(f"| {n} | {fmt(gg.get('gram_s'))} | {fmt(gg.get('build_s'))} | {fmt(gg.get('one_s'))}"
          f" | {fmt(gg.get('grid3_s'))} | {fmt(cc.get('build_s'))} | {fmt(cc.get('one_s'))} |")
print()
print("| d | pairs | qrenyi auto (16 cores): validate + divergence | pairs/s | torch batched | numpy stacks |")
print("|---|---|---|---|---|---|")
for r in pick(what="batch", path="auto"):
    t = [p for p in pick(what="batch", d=r["d"]) if "torch_s" in p]
    tt = t[-1] if t else {}
    print(f"| {r['d']} | {r['n']} | {fmt(r['validate_s'] + r['divergence_s'])} | {r['pairs_per_s'] / 1e3:.0f} k"
          f" | {fmt(tt.get('torch_s'))} | {fmt(tt.get('numpy_s'))} |")
print()
print("| d | qrenyi GPU, ρ not decomposed, 1 order | torch five-liner, 1 order | ratio | 16 orders | torch, 16 orders | ratio |"
      " qrenyi GPU pair route, 1 order |")
print("|---|---|---|---|---|---|---|---|")
for d in sorted({r["d"] for r in pick(what="sandwiched", path="cuda-direct")}):
    g1 = one(pick(what="sandwiched", path="cuda-direct", d=d, orders=1))
    g16 = one(pick(what="sandwiched", path="cuda-direct", d=d, orders=16))
    t1 = one(pick(what="torch_five_liner", d=d, orders=1))
    t16 = one(pick(what="torch_five_liner", d=d, orders=16))
    p1 = one(pick(what="sandwiched", path="cuda", d=d, orders=1))
    r1 = f"{t1 / g1:.2f}×" if t1 and g1 else "–"
    r16 = f"{t16 / g16:.2f}×" if t16 and g16 else "–"
    print(f"| {d} | {fmt(g1)} | {fmt(t1)} | {r1} | {fmt(g16)} | {fmt(t16)} | {r16} | {fmt(p1)} |")
print()
print("| d | pairs | qrenyi GPU batched (validation included) | pairs/s | qrenyi Auto, matrices | qrenyi CPU batch (16 cores) | torch batched | numpy stacks |")
print("|---|---|---|---|---|---|---|---|")
for r in pick(what="batch", path="auto"):
    d, n = r["d"], r["n"]
    g = pick(what="batch", path="cuda-batched", d=d, n=n)
    a = pick(what="batch", path="auto-matrices", d=d, n=n)
    t = [p for p in pick(what="batch", d=d, n=n) if "torch_s" in p]
    tt = t[-1] if t else {}
    gs = g[-1]["s"] if g else None
    rate = f"{n / gs / 1e6:.2f} M" if gs else "–"
    print(f"| {d} | {n} | {fmt(gs)} | {rate} | {fmt(a[-1]['s'] if a else None)}"
          f" | {fmt(r['validate_s'] + r['divergence_s'])} | {fmt(tt.get('torch_s'))} | {fmt(tt.get('numpy_s'))} |")
