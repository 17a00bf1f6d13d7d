#!/usr/bin/env bash
# Builds the API fuzzer (Release, CUDA off) and runs it: 10^6 cases unless told otherwise.
# Usage: scripts/fuzz.sh [cases=1000000] [seed=1] [build-dir=build-fuzz]
# Prints the findings (each with its replay command), cases/s and the total time; exits 1 when a
# case found something. See tests/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-1000000}
seed=${2:-1}
build=${3:-build-fuzz}
scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTORCH_BUILD_CUDA=OFF -DCTORCH_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ctorch_api_fuzz
start=$(date +%s.%N)
status=0
"$build/tests/fuzz/ctorch_api_fuzz" --seed "$seed" --cases "$cases" --max-findings 100 || status=$?
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$cases" \
  'BEGIN { t = e - s; printf "fuzz.sh: %d cases in %.1f s (%.0f cases/s, including startup)\n", n, t, n / t }'
exit "$status"
