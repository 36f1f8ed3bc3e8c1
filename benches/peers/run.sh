#!/bin/sh
# The peer comparison in one command (see docs/PERFORMANCE.md, "Rerun"):
#   benches/peers/run.sh
# 1. creates benches/peers/.venv (gitignored) and installs numpy, scipy, QuTiP and toqito from PyPI;
# 2. writes seeded random state pairs as .npy files (benches/peers/data, gitignored);
# 3. times qrenyi in-process on those files (examples/peer_timing.rs, release build) and the Python
#    implementations (benches/peers/peers.py) under the same environment, and the kernel estimator
#    (examples/kernel_timing.rs against benches/peers/kernel_paper.py) at n = m = 250…2000;
# 4. checks that every implementation agrees with qrenyi, then writes the machine and peers tables
#    of docs/PERFORMANCE.md (benches/report.py). Exit status 1 if any implementation disagrees.
# PEERS_LABEL (default "default") names the run: results in benches/peers/results/LABEL and the
# blocks peers-LABEL, machine-LABEL of the document (e.g. PEERS_LABEL=1thread OPENBLAS_NUM_THREADS=1).
# OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS, when set, apply to both sides (NumPy's bundled
# OpenBLAS reads them too); unset, each library picks its own kernels and uses every core.
set -eu
cd "$(dirname "$0")/../.."
PEERS=benches/peers
VENV=$PEERS/.venv
DATA=$PEERS/data
LABEL=${PEERS_LABEL:-default}
OUT=$PEERS/results/$LABEL
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check numpy scipy qutip toqito
mkdir -p "$DATA" "$OUT"
"$VENV/bin/python" "$PEERS/peers.py" inputs "$DATA"
cargo run --quiet --release --example peer_timing -- "$DATA" > "$OUT/qrenyi.json"
"$VENV/bin/python" "$PEERS/peers.py" time "$DATA" "$OUT/python.json"
# kernel estimator: qrenyi (best of 3) against seed 002's non-symmetric numpy formulation
# (best of 3 up to n = 1000, one run at n = 2000: two general 4000×4000 eigendecompositions)
KDATA=$DATA/kernel
mkdir -p "$KDATA"
cargo run --quiet --release --example kernel_timing -- --sizes 250,500,1000,2000 --repeats 3 \
  --write-npy "$KDATA" > "$OUT/kernel_qrenyi.jsonl"
{
  for _ in 1 2 3; do "$VENV/bin/python" "$PEERS/kernel_paper.py" --dir "$KDATA" --sizes 250,500,1000; done
  "$VENV/bin/python" "$PEERS/kernel_paper.py" --dir "$KDATA" --sizes 2000
} > "$OUT/kernel_numpy.jsonl"
python3 benches/report.py doc docs/PERFORMANCE.md --peers "$OUT/qrenyi.json" "$OUT/python.json" \
  --kernel "$OUT/kernel_qrenyi.jsonl" "$OUT/kernel_numpy.jsonl" --label "$LABEL"
echo "wrote docs/PERFORMANCE.md (raw results in $OUT/)"
