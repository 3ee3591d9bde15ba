#!/usr/bin/env bash
# Load test of a release build on loopback with wrk (apt-get install -y wrk):
# a fixed-body baseline (the 404 answer of the same server), an activity search and a booking
# Quote, each for DURATION seconds with CONNECTIONS connections. Prints wrk's figures
# (requests/s, latency percentiles). Usage: scripts/loadtest.sh [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-32}
PORT=18088
command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk" >&2; exit 1; }
cargo build -q --release -p ota-gateway
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
RUST_LOG=warn target/release/ota-gateway serve --addr 127.0.0.1:$PORT --db "$work/db" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done

day() { date -u -d "+$1 days" +%Y-%m-%d; }
pos='<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>'
cat >"$work/search.xml" <<XML
<OTA_TourActivitySearchRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" PrimaryLangID="en">$pos<SearchCriteria><DateTimePref Start="$(day 3)" End="$(day 10)"/><LocationPref Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>
XML
cat >"$work/quote.xml" <<XML
<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Quote">$pos<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="41" ParticipantID="2"><GivenName>Luis</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><Schedule Start="$(day 5)T10:00:00" End="$(day 5)T11:15:00"/></BookingInfo></OTA_TourActivityBookRQ>
XML
cat >"$work/post.lua" <<'LUA'
local f = io.open(os.getenv("BODY"), "r")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/xml"
LUA
# Each body must get a 200 success before it is measured.
for op in search:activitysearch quote:activitybook; do
  body=${op%%:*}; path=${op##*:}
  out=$(curl -s -w '\n%{http_code}' http://127.0.0.1:$PORT/$path -H 'Content-Type: application/xml' --data-binary @"$work/$body.xml")
  case "$out" in *"<Success/>"*200) ;; *) echo "$body is not answered with Success: $out" >&2; exit 1 ;; esac
done
: >"$work/empty.xml"
run() {
  echo "== $1 ($DURATION s, $CONNECTIONS connections)"
  BODY="$work/$2" wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$work/post.lua" "http://127.0.0.1:$PORT/$3" |
    grep -E 'Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors'
}
run "baseline: fixed 404 body" empty.xml not-an-operation
run "activity search" search.xml activitysearch
run "activity book, Quote" quote.xml activitybook
