#!/usr/bin/env bash
# A database at the console's scale — 100,000 hotel bookings with their history and deliveries,
# 5,000 hotels, 20 partners, 10 suppliers, 5,000 audit entries and 60 days of traffic rollups
# (the console bench's seeding, `gateway/benches/console.rs`) — with the demo content and the
# demo console logins on top, so that `scripts/loadtest.sh` can measure the partners' read
# shares while console users browse and a hotel user edits at that scale (issues 30 and 31):
#
#   scripts/seed-console-scale.sh /tmp/console.db          # SQLite (a new file)
#   scripts/seed-console-scale.sh postgres://…/db          # an empty PostgreSQL database
#   cp /tmp/console.db /tmp/run.db                         # the load test writes: run on a copy
#   DB=/tmp/run.db CONSOLE_USERS=5 scripts/loadtest.sh 5 32
#
# GATEWAY=path/to/ota-gateway uses that binary for the imports (else a release build of this
# tree); the seeding itself is the bench's (a release build of the bench).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/seed-console-scale.sh FILE.db|postgres://…}
case "$target" in
  postgres://* | postgresql://*) export BENCH_DATABASE_URL="$target" ;;
  *)
    [ ! -e "$target" ] || { echo "$target exists: give a new file" >&2; exit 2; }
    target=$(realpath -m "$target")
    export BENCH_SQLITE="$target"
    ;;
esac
if [ -n "${GATEWAY:-}" ]; then
  gateway=$(realpath "$GATEWAY")
else
  cargo build -q --release -p ota-gateway
  gateway=${CARGO_TARGET_DIR:-target}/release/ota-gateway
fi
echo "== seeding $target with the console bench's data (it then measures one page)"
BENCH_PAGES=home cargo bench -q -p ota-gateway --bench console 2>&1 | grep -E '^seed:|^\| home' || true
echo "== the demo content and logins on top"
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
# The demo's hotels and activities files are the `hotels` and `activities` parts of an import file.
for part in hotels activities; do
  { printf '{"%s": ' "$part"; cat "gateway/demo/$part.json"; printf '}\n'; } >"$parts/$part.json"
  "$gateway" import "$parts/$part.json" --db "$target" >/dev/null
done
"$gateway" import gateway/demo/requestors.json --db "$target" >/dev/null
echo demo-console | "$gateway" operator add demo --role admin --db "$target" >/dev/null
echo demo-extranet | "$gateway" operator add demo-hotel --role hotel --supplier SUP-DEMO --db "$target" >/dev/null
echo "== $target is ready: run the load test on a copy of it (DB=…)"
