#!/usr/bin/env bash
# Thread scaling of the main job: `qrenyi verify --all` with every statement's default trials
# times FACTOR (default 10), once per thread count; one JSON line per run on stdout:
#   {"threads":T,"factor":F,"wall_s":…,"cpu_s":…,"user_s":…,"sys_s":…,"exit":…,"report_sha256":"…"}
# report_sha256 hashes the JSON reports without their "seconds" fields (wall times), so equal
# hashes mean identical results at every thread count (trials are seeded per trial).
#
# usage: benches/verify_scaling.sh QRENYI_BINARY [THREADS …]        (default threads: 1 4 16)
#        FACTOR=5 benches/verify_scaling.sh target/release/qrenyi 1 2
# Extra verify flags (e.g. --max-dim 6) can be passed in VERIFY_FLAGS. Reports are kept in
# OUT_DIR (default: a fresh temporary directory, printed on stderr).
# Run it on an otherwise idle machine. docs/PERFORMANCE.md ("verify scaling") has the numbers.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 QRENYI_BINARY [THREADS ...]" >&2
  exit 2
fi
bin=$1
shift
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 4 16)
factor=${FACTOR:-10}
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
echo "verify_scaling: reports under $out" >&2
hash() {
  if command -v sha256sum >/dev/null; then sha256sum | cut -d' ' -f1; else shasum -a 256 | cut -d' ' -f1; fi
}
for t in "${threads[@]}"; do
  report="$out/verify-f$factor-t$t.json"
  TIMEFORMAT='%R %U %S'
  # shellcheck disable=SC2086
  times=$({ time "$bin" verify --all --trials-factor "$factor" --threads "$t" --json --no-save \
    ${VERIFY_FLAGS:-} >"$report" 2>"$out/verify-f$factor-t$t.err"; } 2>&1) && code=0 || code=$?
  if [ -z "$times" ]; then
    # `time` printed nothing (the command failed before): keep going, mark the run
    times="0 0 0"
  fi
  times=$(printf '%s\n' "$times" | tail -n 1)
  read -r wall user sys <<<"$times"
  sha=$(grep -v '"seconds":' "$report" | hash)
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  printf '{"threads":%s,"factor":%s,"wall_s":%s,"cpu_s":%s,"user_s":%s,"sys_s":%s,"exit":%s,"report_sha256":"%s"}\n' \
    "$t" "$factor" "$wall" "$cpu" "$user" "$sys" "$code" "$sha"
done
