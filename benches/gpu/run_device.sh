#!/bin/sh
# One session on a lent GPU machine (no Rust toolchain there): unpack the binaries built here
# (`benches/gpu/bundle.sh`), run the GPU tests, then the measurements of docs/PERFORMANCE.md
# ("GPU"). Usage, from the repository root: sh .gpu/run_device.sh SECTION... (tests, values,
# crossover, curve, cpu, batch, kernel, cpukernel, peers; short: values3 single
# batch peers3 gputests). Results go to $OUT (or ./gpu-out).
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT" /tmp/gl /tmp/m
tar xJf .gpu/bundle.tar.xz -C /tmp/gl
export LD_LIBRARY_PATH=/tmp/gl/lib:${LD_LIBRARY_PATH:-}
# the test binaries find their fixtures through the path they were built in
mkdir -p /work/wt && for w in gpu gpu2 gpu3; do ln -sfn "$PWD" /work/wt/$w; done
run=tools/blas-env
B=/tmp/gl/bin
for s in "$@"; do
  echo "=== $s $(date +%T)"
  case $s in
    tests) timeout 150 $run $B/test_gpu --test-threads=1 --nocapture 2>&1 | tee -a "$OUT/tests.log"
           timeout 60 $run $B/test_reference reference_values_cuda --nocapture 2>&1 | tee -a "$OUT/tests.log" ;;
    values) timeout 120 python3 .gpu/peers_gpu.py --save /tmp/m 256 512 1024 2048 4096 8192 | tee -a "$OUT/bench.jsonl" ;;
    crossover) timeout 150 $run $B/gpu_bench crossover | tee -a "$OUT/bench.jsonl" ;;
    curve) timeout 200 $run $B/gpu_bench curve /tmp/m 256 512 1024 2048 4096 8192 | tee -a "$OUT/bench.jsonl" ;;
    cpu) CUDA_VISIBLE_DEVICES= timeout 150 $run $B/gpu_bench cpu /tmp/m 1024 2048 4096 | tee -a "$OUT/bench.jsonl" ;;
    batch) timeout 100 $run $B/gpu_bench batch | tee -a "$OUT/bench.jsonl" ;;
    kernel) timeout 200 $run $B/gpu_bench kernel 2000 5000 10000 20000 | tee -a "$OUT/bench.jsonl" ;;
    cpukernel) CUDA_VISIBLE_DEVICES= timeout 100 $run $B/gpu_bench cpu-kernel 2000 5000 | tee -a "$OUT/bench.jsonl" ;;
    cli) for b in cuda auto lapack; do echo "backend $b:"; /usr/bin/time -f "%e s wall" $run /tmp/gl/bin/qrenyi divergence --rho /tmp/m/rho_1024.npy --sigma /tmp/m/sigma_1024.npy --kind sandwiched --alpha 2 --backend $b; done 2>&1 | tee -a "$OUT/cli.log"
         for d in 1024 4096; do echo "d = $d, --backend cuda, 3 runs:"; for i in 1 2 3; do /usr/bin/time -f "%e s wall" $run /tmp/gl/bin/qrenyi divergence --rho /tmp/m/rho_$d.npy --sigma /tmp/m/sigma_$d.npy --kind sandwiched --alpha 2 --backend cuda --json; done; done 2>&1 | tee -a "$OUT/cli.log"
         echo "no device:"; CUDA_VISIBLE_DEVICES= $run /tmp/gl/bin/qrenyi divergence --rho /tmp/m/rho_256.npy --sigma /tmp/m/sigma_256.npy --kind sandwiched --alpha 2 --backend cuda; echo "exit code $?" ;;
    gputests) timeout 110 $run $B/test_gpu --test-threads=1 --nocapture 2>&1 | tee -a "$OUT/tests.log" ;;
    single) timeout 120 $run $B/gpu_bench single /tmp/m 256 1024 4096 | tee -a "$OUT/bench.jsonl" ;;
    values3) timeout 90 python3 .gpu/peers_gpu.py --save /tmp/m 256 1024 4096 | tee -a "$OUT/bench.jsonl" ;;
    peers3) PEERS_DIMS="1024 4096" PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/peers_gpu.py | tee -a "$OUT/peers_gpu.jsonl" ;;
    profile) for d in 1024 4096; do QRENYI_CUDA_TRACE=1 timeout 100 $run $B/gpu_bench single /tmp/m $d; done 2>&1 | tee -a "$OUT/profile.log"
             QRENYI_CUDA_TRACE=1 timeout 100 $run $B/gpu_bench batch 2>&1 | tail -60 | tee -a "$OUT/profile.log"
             PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/torch_parts.py 1024 4096 2>&1 | tee -a "$OUT/profile.log" ;;
    info) nvidia-smi; which nvcc; nvcc --version; python3 -c "import nvidia, os; print(nvidia.__path__)";
          find / -name "libnvrtc*.so*" 2>/dev/null | head; find / -name "libcusolver.so*" 2>/dev/null | head; nproc; lscpu | head -20 ;;
    peers) PYTHONUNBUFFERED=1 timeout 200 python3 .gpu/peers_gpu.py | tee -a "$OUT/peers_gpu.jsonl" ;;
  esac
done
echo "=== done $(date +%T)"
