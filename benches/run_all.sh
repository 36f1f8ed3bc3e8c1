#!/bin/sh
# Every measurement of docs/PERFORMANCE.md in one uninterrupted run (≈ 55 min on the 2-core
# reference machine; run it on a quiet machine):
#   1. the divergence / floor ratios with one thread (OpenBLAS and faer sequential);
#   2. every criterion suite with default threads (divergence, end_to_end, spectral, batch, privacy);
#   3. the generated tables of docs/PERFORMANCE.md (benches/report.py);
#   4. the peers and kernel-estimator comparison, with default threads and with one thread
#      (benches/peers/run.sh, which also rewrites its tables).
# Criterion results go to $CARGO_TARGET_DIR/crit-1thread and crit-default (fresh each run).
# OPENBLAS_CORETYPE is unset so that tools/blas-env picks the kernels from the CPU flags.
set -eu
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo bench --no-run
cargo build --release --examples
D=$CARGO_TARGET_DIR/release/deps
bin() { ls -t "$D/$1"-* | grep -v '\.d$' | head -1; }
rm -rf "$CARGO_TARGET_DIR/crit-1thread" "$CARGO_TARGET_DIR/crit-default"
CRITERION_HOME=$CARGO_TARGET_DIR/crit-1thread OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 env -u OPENBLAS_CORETYPE \
  tools/blas-env "$(bin divergence)" --bench --warm-up-time 1 --measurement-time 2 '^divergence/d=(16|64|256|1024)/'
for b in divergence end_to_end spectral batch privacy; do
  CRITERION_HOME=$CARGO_TARGET_DIR/crit-default env -u OPENBLAS_CORETYPE \
    tools/blas-env "$(bin $b)" --bench --warm-up-time 1 --measurement-time 2
done
python3 benches/report.py doc docs/PERFORMANCE.md --criterion "$CARGO_TARGET_DIR/crit-1thread" --criterion-label 1thread
python3 benches/report.py doc docs/PERFORMANCE.md --criterion "$CARGO_TARGET_DIR/crit-default"
env -u OPENBLAS_CORETYPE benches/peers/run.sh
env -u OPENBLAS_CORETYPE PEERS_LABEL=1thread OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 benches/peers/run.sh
echo "wrote docs/PERFORMANCE.md"
