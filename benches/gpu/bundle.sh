#!/bin/sh
# Build the GPU test and bench binaries (feature `cuda`) and pack them, with the OpenBLAS they
# link, into .gpu/bundle.tar.xz of the checkout given as $1 (default: this one) for
# benches/gpu/run_device.sh.
set -eu
dest=${1:-.}
cargo test --release --features cuda --no-run --test gpu --test reference --bench gpu 2>&1 |
  tee /tmp/gpu_bundle.log | tail -3
cargo build --release --features cuda --bin qrenyi 2>&1 | tail -1
# "Executable SOURCE (target/release/deps/NAME-HASH)" lines of cargo's output
pick() { grep -o "$1 (target/release/deps/[^)]*" /tmp/gpu_bundle.log | head -1 | sed 's/.*(//'; }
tmp=$(mktemp -d); mkdir -p "$tmp/bin" "$tmp/lib"
cp "$(pick benches/gpu.rs)" "$tmp/bin/gpu_bench"
cp "$(pick tests/reference.rs)" "$tmp/bin/test_reference"
cp "$(pick tests/gpu.rs)" "$tmp/bin/test_gpu"
cp target/release/qrenyi "$tmp/bin/qrenyi"
strip "$tmp"/bin/*
for l in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do
  cp -L "$(ldconfig -p | grep -m1 "$l " | sed 's/.*=> //')" "$tmp/lib/$l"
done
mkdir -p "$dest/.gpu"
cp benches/gpu/peers_gpu.py benches/gpu/torch_parts.py benches/gpu/run_device.sh "$dest/.gpu/"
tar cJf "$dest/.gpu/bundle.tar.xz" -C "$tmp" bin lib
ls -la "$dest/.gpu"
