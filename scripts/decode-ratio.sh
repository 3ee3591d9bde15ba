#!/usr/bin/env bash
# Decode cost ÷ bare roxmltree parse cost, counted in instructions with callgrind (repeatable on
# a shared machine, unlike wall-clock times). For each FILE (default: the full request and
# response samples) it prints the instructions of one parse, of one decode, and their ratio.
# Each count is over N (default 1000) iterations, so that one-time costs (compiling a
# pattern on first use) do not weigh on small messages.
# Usage: N=1000 scripts/decode-ratio.sh [FILE...]   (apt-get install -y valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required: apt-get install -y valgrind" >&2; exit 1; }
N=${N:-1000}
cargo build -q --release -p ota-messages --example decode_cost
bin="${CARGO_TARGET_DIR:-target}/release/examples/decode_cost"
if [ $# -eq 0 ]; then
  set -- $(ls spec/samples/*.xml | grep -E '/[a-z_]+(\.rs)?\.xml$')
fi
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
printf '%-34s %12s %12s %6s\n' file parse decode ratio
for f in "$@"; do
  base=$(ir none 0 "$f"); parse=$(ir parse "$N" "$f"); decode=$(ir decode "$N" "$f")
  awk -v f="$(basename "$f")" -v b="$base" -v p="$parse" -v d="$decode" -v n="$N" \
    'BEGIN { printf "%-34s %12d %12d %6.2f\n", f, (p-b)/n, (d-b)/n, (d-b)/(p-b) }'
done
