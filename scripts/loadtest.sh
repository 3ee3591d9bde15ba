#!/usr/bin/env bash
# Load test of a release build on loopback with wrk (apt-get install -y wrk): a fixed-body
# baseline (the 404 answer of the same server), then activity search, activity availability,
# hotel availability (one hotel and one room; a region and two rooms),
# activity NBC, hotel NBC, a booking Quote and booking Commits (each with its own Client
# reference), each for DURATION seconds with CONNECTIONS connections. Prints wrk's figures
# (requests/s, latency percentiles) and each one's share of the baseline. The baseline is
# measured again right before each route (PAIRED=0: once, first), so that a machine whose speed
# drifts during the run (a shared VM) does not skew the later shares.
#
#   scripts/loadtest.sh [DURATION] [CONNECTIONS]            # SQLite (the default)
#   DB=postgres scripts/loadtest.sh 10 32                   # a throw-away PostgreSQL (fsync on)
#   DB=postgres INSTANCES=3 scripts/loadtest.sh 10 32       # three gateways on it, load split
#   DB=postgres://user@host/db scripts/loadtest.sh          # an existing, empty database
#   DB=/tmp/run.db scripts/loadtest.sh                      # an existing SQLite file (e.g. a
#                                                           # copy of one that
#                                                           # scripts/seed-console-scale.sh
#                                                           # made: the console at scale)
#   DB=postgres POOLER=pgbouncer scripts/loadtest.sh        # the gateways through a throw-away
#                                                           # PgBouncer (transaction mode,
#                                                           # POOL_SIZE server connections, 20;
#                                                           # statement_cache=off)
#   ONLY="search commit" scripts/loadtest.sh                # some of the runs
#   PORT=19000 scripts/loadtest.sh                          # the gateways' first port (18088)
#   ONLY=supply scripts/loadtest.sh                         # rooms-on-sale notifications of a
#                                                           # channel manager with 1,000 hotels
#                                                           # (one night of one room type of a
#                                                           # hotel each), as fast as they go;
#                                                           # meanwhile a probe of how soon every
#                                                           # gateway shows a new amount
#   ONLY=hotelcommit scripts/loadtest.sh                    # hotel Commits of one night in those
#                                                           # 1,000 hotels; bookings committed
#                                                           # printed
#   ONLY=supplyone scripts/loadtest.sh                      # the same, all of one demo hotel
#   ONLY=supplybig scripts/loadtest.sh                      # rate notifications of 750 nights x
#                                                           # 10 room types x 4 rate plans each
#                                                           # (30,000 night-values), spread over
#                                                           # 20 hotels; night-values/s printed
#   GATEWAY=path/to/ota-gateway scripts/loadtest.sh         # that binary, not this build (e.g.
#                                                           # an older one, for before/after)
#   UPDATES_PER_SECOND=50 scripts/loadtest.sh               # every route measured without, then
#                                                           # with a channel manager pushing 50
#                                                           # notifications a second to the
#                                                           # (first) gateway meanwhile; the two
#                                                           # shares and their ratio printed
#   CONSOLE_USERS=5 scripts/loadtest.sh                     # every route measured without, then
#                                                           # with 5 operators browsing the
#                                                           # console meanwhile (each its own
#                                                           # session, a page every
#                                                           # CONSOLE_PAUSE_MS, 1000, in turn:
#                                                           # overview, traffic of the hour, the
#                                                           # week and 60 days, a booking search
#                                                           # and page, deliveries, log,
#                                                           # partners, audit, extranet)
#   EDITS_PER_SECOND=1 scripts/loadtest.sh                  # the same with a hotel user editing
#                                                           # its calendar meanwhile: one range
#                                                           # edit a second (30 nights of every
#                                                           # room type and plan of the hotel the
#                                                           # one-hotel availability reads, rooms
#                                                           # on sale and amounts in turn)
#                                                           # (UPDATES_PER_SECOND, CONSOLE_USERS
#                                                           # and EDITS_PER_SECOND together: all
#                                                           # of them meanwhile). First, what
#                                                           # runs meanwhile is measured alone:
#                                                           # the gateways' CPU time idle and
#                                                           # with it, DURATION seconds each
#   ROUNDS=5 scripts/loadtest.sh                            # every route (and its paired
#                                                           # baseline) measured 5 times, in
#                                                           # turn; the median shares printed
#   LOG=all scripts/loadtest.sh                             # the demo partner's traffic in the
#                                                           # transaction log (LOG_SAMPLE=0.1: a
#                                                           # share of its searches); the log's
#                                                           # entry counts printed at the end
#
# Durability is what production has: SQLite synchronous=FULL; the throw-away PostgreSQL keeps
# fsync and synchronous_commit on.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-32}
INSTANCES=${INSTANCES:-1}
PAIRED=${PAIRED:-1}
ONLY=${ONLY:-"baseline search availability hotelavailability hotelarea activitynbc hotelnbc quote commit"}
UPDATES_PER_SECOND=${UPDATES_PER_SECOND:-0}
CONSOLE_USERS=${CONSOLE_USERS:-0}
CONSOLE_PAUSE_MS=${CONSOLE_PAUSE_MS:-1000}
EDITS_PER_SECOND=${EDITS_PER_SECOND:-0}
ROUNDS=${ROUNDS:-1}
PORT=${PORT:-18088}
command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk" >&2; exit 1; }
if [ -n "${GATEWAY:-}" ]; then
  gateway=$(realpath "$GATEWAY")
else
  cargo build -q --release -p ota-gateway
  # The binary just built (also when CARGO_TARGET_DIR puts it elsewhere).
  gateway=${CARGO_TARGET_DIR:-target}/release/ota-gateway
fi
work=$(mktemp -d)
# As root the throw-away servers run as the postgres user, who must reach their directories.
chmod 711 "$work"
servers=()
pg_stop=()
pooler_stop=()
cleanup() {
  for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; done
  for s in "${servers[@]}"; do wait "$s" 2>/dev/null || true; done
  if [ ${#pooler_stop[@]} -gt 0 ]; then "${pooler_stop[@]}" >/dev/null 2>&1 || true; fi
  if [ ${#pg_stop[@]} -gt 0 ]; then "${pg_stop[@]}" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

db=${DB:-sqlite}
case "$db" in
  sqlite) db="$work/gateway.db" ;;
  postgres)
    # Durable (fsync and synchronous commit on), as a production server.
    db=$(scripts/throwaway-postgres.sh start "$work/pg" --durable)
    pg_stop=(scripts/throwaway-postgres.sh stop "$work/pg")
    ;;
esac
through=""
case "${POOLER:-}" in
  "") ;;
  pgbouncer)
    case "$db" in postgres://*|postgresql://*) ;; *) echo "POOLER=pgbouncer needs DB=postgres or a postgres:// URL" >&2; exit 2 ;; esac
    # The gateways keep no prepared statement on a server connection (the pooler lends another
    # one to each transaction).
    db="$(scripts/throwaway-pgbouncer.sh start "$work/pgbouncer" --upstream "$db" --pool-size "${POOL_SIZE:-20}")?statement_cache=off"
    pooler_stop=(scripts/throwaway-pgbouncer.sh stop "$work/pgbouncer")
    through=" through PgBouncer (transaction mode, ${POOL_SIZE:-20} server connections)"
    ;;
  *) echo "POOLER is pgbouncer or unset" >&2; exit 2 ;;
esac

for i in $(seq 0 $((INSTANCES - 1))); do
  RUST_LOG=warn "$gateway" serve --demo --addr 127.0.0.1:$((PORT + i)) --console-addr 127.0.0.1:$((PORT + 500 + i)) --db "$db" >"$work/server$i.log" 2>&1 &
  servers+=($!)
  # The first one migrates and seeds; the others start after it.
  for _ in $(seq 200); do curl -sf http://127.0.0.1:$((PORT + i))/healthz >/dev/null && break; sleep 0.1; done
  # Never measure another process that holds the port.
  kill -0 "${servers[-1]}" 2>/dev/null || { echo "the gateway on port $((PORT + i)) did not start (another on PORT? set PORT=…):" >&2; cat "$work/server$i.log" >&2; exit 1; }
done
echo "== $INSTANCES gateway(s) on $(case "$db" in postgres://* | postgresql://*) echo PostgreSQL ;; *) echo SQLite ;; esac)$through; $(nproc) CPUs; wrk and the gateways share them"

day() { date -u -d "+$1 days" +%Y-%m-%d; }
pos='<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>'
ns='xmlns="http://www.opentravel.org/OTA/2003/05"'

# An activity with places enough for every Commit of the run, on 28 dates.
cat >"$work/load.json" <<JSON
{"activities": [{"id": "LOADTEST01", "texts": {"en": {"name": "Load test tour"}},
  "location": {"region_code": "PMI", "region_name": "Mallorca"},
  "products": [{"code": "LOAD01", "schedules": [{"start": "10:00", "end": "12:00"}],
    "services": [{"code": "TIC", "currency": "EUR", "places": 1000000, "prices": {"10": "25.00"}}]}]}]}
JSON
"$gateway" import "$work/load.json" --db "$db" >/dev/null
# A channel manager's hotels: 1,000 of 2 room types sold room-only (the `supply` run), and 20 of
# 10 room types with 4 rate plans (the `supplybig` run); the supplier CM-LOAD owns them all.
case " $ONLY " in
  *" supply "*|*" supplybig "*|*" hotelcommit "*)
    {
      printf '{"hotels": {"boards": [{"code": "P0", "name": "Plan 0"}, {"code": "P1", "name": "Plan 1"}, {"code": "P2", "name": "Plan 2"}, {"code": "P3", "name": "Plan 3"}], "hotels": ['
      for h in $(seq 1 1020); do
        if [ "$h" -le 1000 ]; then types=2 plans=1; else types=10 plans=4; fi
        rooms="" rates=""
        for r in $(seq 1 "$types"); do
          nightly=""
          for p in $(seq 0 $((plans - 1))); do nightly="$nightly${nightly:+, }\"P$p\": \"$((80 + p)).00\""; done
          rooms="$rooms${rooms:+, }{\"code\": \"RM$r\", \"units\": 5, \"texts\": {\"en\": {\"name\": \"Room $r\"}}}"
          rates="$rates${rates:+, }{\"room\": \"RM$r\", \"currency\": \"EUR\", \"from\": \"2026-01-01\", \"to\": \"2039-12-31\", \"nightly\": {$nightly}}"
        done
        printf '%s{"code": "LH%04d", "name": "Load hotel %d", "region": "Load", "last_modified": "2026-01-01", "texts": {"en": {"description": "x"}}, "rooms": [%s], "rates": [%s]}' \
          "$([ "$h" -gt 1 ] && echo ', ')" "$h" "$h" "$rooms" "$rates"
      done
      printf ']}}\n'
    } >"$work/hotels.json"
    "$gateway" import "$work/hotels.json" --db "$db" >/dev/null
    codes=$(for h in $(seq 1 1020); do printf '"LH%04d",' "$h"; done)
    echo '{"requestors": [{"id": "CM-LOAD", "id_context": "CM-LOAD-CTX", "name": "Load channel manager", "password": "cm-load-pass", "supplier": true, "hotels": ['"${codes%,}"']}]}' >"$work/cm.json"
    "$gateway" import "$work/cm.json" --db "$db" >/dev/null
    ;;
esac
if [ -n "${LOG:-}" ]; then
  "$gateway" requestor set DEMO --log "$LOG" ${LOG_SAMPLE:+--log-sample "$LOG_SAMPLE"} --db "$db" >/dev/null
  echo "== the transaction log keeps DEMO's traffic: $LOG${LOG_SAMPLE:+ (sample $LOG_SAMPLE)}"
fi
sleep 1 # every gateway reloads its content

cat >"$work/search.xml" <<XML
<OTA_TourActivitySearchRQ $ns Version="2011.2" PrimaryLangID="en">$pos<SearchCriteria><DateTimePref Start="$(day 3)" End="$(day 10)"/><LocationPref Context="Source"><Region RegionCode="HotelCode">HTL00042</Region></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>
XML
cat >"$work/availability.xml" <<XML
<OTA_TourActivityAvailRQ $ns Version="2011.2" PrimaryLangID="en">$pos<TourActivity><BasicInfo/><Location Context="Service"><Region RegionCode="Product">LESPMIBKUI</Region></Location><Schedule StartPeriod="$(day 3)" EndPeriod="$(day 5)"/><ParticipantCount Quantity="2"><QualifierInfo>10</QualifierInfo></ParticipantCount><ParticipantCount Quantity="1"><QualifierInfo>8</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>
XML
cat >"$work/activitynbc.xml" <<XML
<OTA_ProductDescriptiveInfoRQ $ns Version="2016.2" PrimaryLangID="es">$pos<ProductDescriptiveInfos><TourActivityDescriptiveInfo TourActivityID="LESPMIBKUI"/></ProductDescriptiveInfos></OTA_ProductDescriptiveInfoRQ>
XML
cat >"$work/hotelnbc.xml" <<XML
<OTA_HotelDescriptiveInfoRQ $ns Version="2009.1" PrimaryLangID="en">$pos<HotelDescriptiveInfos><HotelDescriptiveInfo HotelCode="HTL00042"/></HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>
XML
# One hotel, one room of two adults (11 offers, 11 KB): the search before a booking.
cat >"$work/hotelavailability.xml" <<XML
<OTA_HotelAvailRQ $ns Version="2008.1" PrimaryLangID="en">$pos<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="HTL00042"/></Criterion></HotelSearchCriteria><StayDateRange Start="$(day 20)" End="$(day 24)"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>
XML
# Every hotel of a region, two rooms (2 adults + a child, 1 adult): 38 offers, 36 KB.
cat >"$work/hotelarea.xml" <<XML
<OTA_HotelAvailRQ $ns Version="2008.1" PrimaryLangID="en">$pos<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><RefPoint CodeContext="Region">Mallorca</RefPoint></Criterion></HotelSearchCriteria><StayDateRange Start="$(day 20)" End="$(day 24)"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="2"/><GuestCount AgeQualifyingCode="8" Age="9" Count="1"/></GuestCounts></RoomStayCandidate><RoomStayCandidate RPH="2"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="1"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>
XML
cat >"$work/quote.xml" <<XML
<OTA_TourActivityBookRQ $ns Version="2011.2" ResStatus="Quote">$pos<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="41" ParticipantID="2"><GivenName>Luis</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><Schedule Start="$(day 5)T10:00:00" End="$(day 5)T11:15:00"/></BookingInfo></OTA_TourActivityBookRQ>
XML
# A Commit template: {REF} and {DATE} are filled in per request by wrk.
cat >"$work/commit.xml" <<XML
<OTA_TourActivityBookRQ $ns Version="2011.2" ResStatus="Commit">$pos<BookingInfo><BasicInfo TourActivityID="LOADTEST01" SupplierProductCode="LOAD01" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Ruiz</Surname></Individual></ParticipantInfo><Schedule Start="{DATE}T00:00:00" End="{DATE}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{REF}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>
XML
dates=$(for d in $(seq 1 28); do printf '"%s",' "$(day "$d")"; done)
cat >"$work/post.lua" <<'LUA'
local f = io.open(os.getenv("BODY"), "r")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/xml"
LUA
# wrk's threads numbered 1, 2, … (`tid` in each): the start of every script that shares its
# requests out by thread.
cat >"$work/threads.lua" <<'LUA'
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
LUA
cat "$work/threads.lua" - >"$work/commit.lua" <<LUA
local f = io.open(os.getenv("BODY"), "r")
local template = f:read("*a")
f:close()
local dates = { ${dates%,} }
local n = 0
function request()
  n = n + 1
  local ref = string.format("LOAD-%s-%d-%d", os.getenv("RUN"), tid, n)
  local body = template:gsub("{REF}", ref):gsub("{DATE}", dates[(n % #dates) + 1])
  return wrk.format("POST", "/activitybook", { ["Content-Type"] = "application/xml" }, body)
end
LUA

# A hotel Commit: one night of a room of one of the channel manager's 1,000 hotels (5 rooms of
# each type a night), each its own Client reference; filled in per request by wrk.
cat >"$work/hotelcommit.xml" <<XML
<OTA_HotelResRQ $ns Version="2008.1" ResStatus="Commit">$pos<HotelReservations><HotelReservation><RoomStays><RoomStay RPH="1"><RoomTypes><RoomType RoomTypeCode="{ROOM}"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="{ROOM}"><Features><Feature><Description><Text>P0</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{DATE}" End="{NEXT}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{REF}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>
XML
cat "$work/threads.lua" - >"$work/hotelcommit.lua" <<'LUA'
local f = io.open(os.getenv("BODY"), "r")
local template = f:read("*a")
f:close()
local days = {}
for d = 0, 60 do days[#days + 1] = os.date("!%Y-%m-%d", os.time() + (15 + d) * 86400) end
local n = 0
function request()
  n = n + 1
  local hotel = string.format("LH%04d", 1 + (n * 7919 + tid * 104729) % 1000)
  local day = (n * 13 + tid * 7) % 60 + 1
  local body = template:gsub("{HOTEL}", hotel):gsub("{ROOM}", "RM" .. (n % 2 + 1)):gsub("{DATE}", days[day])
    :gsub("{NEXT}", days[day + 1]):gsub("{REF}", string.format("HC-%s-%d-%d", os.getenv("RUN"), tid, n))
  return wrk.format("POST", wrk.path, { ["Content-Type"] = "application/xml" }, body)
end
LUA

# The demo supplier's notifications: the rooms on sale (1 to 6) of a room of the demo hostal, in
# the region the availability runs read, on a day among 60 that include their nights; each
# stamped when it arrives (no TimeStamp), so every one is applied.
sup_pos='<POS><Source><RequestorID Type="22" ID="SUP-DEMO" ID_Context="SUP-DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="SUP-DEMO" MessagePassword="sup-demo-pass"/></Source></POS>'
supply_days=$(for d in $(seq 15 74); do printf '"%s",' "$(day "$d")"; done)
cat >"$work/supply.xml" <<XML
<OTA_HotelInvCountNotifRQ $ns Version="2016.1">$sup_pos<Inventories HotelCode="HTL00105"><Inventory><StatusApplicationControl Start="{DATE}" End="{DATE}" InvTypeCode="RMDB000000"/><InvCounts><InvCount CountType="2" Count="{COUNT}" ActionType="Allocation"/></InvCounts></Inventory></Inventories></OTA_HotelInvCountNotifRQ>
XML
cm_pos='<POS><Source><RequestorID Type="22" ID="CM-LOAD" ID_Context="CM-LOAD-CTX"/></Source><Source><RequestorID Type="88" ID="CM-LOAD" MessagePassword="cm-load-pass"/></Source></POS>'
cat >"$work/supplyhotels.xml" <<XML
<OTA_HotelInvCountNotifRQ $ns Version="2016.1">$cm_pos<Inventories HotelCode="{HOTEL}"><Inventory><StatusApplicationControl Start="{DATE}" End="{DATE}" InvTypeCode="{ROOM}"/><InvCounts><InvCount CountType="2" Count="{COUNT}" ActionType="Allocation"/></InvCounts></Inventory></Inventories></OTA_HotelInvCountNotifRQ>
XML
# 750 nights of 10 room types x 4 rate plans: 40 rate messages of 750 nights each.
big_items=$(for r in $(seq 1 10); do for p in 0 1 2 3; do printf '<RateAmountMessage><StatusApplicationControl Start="%s" End="%s" InvTypeCode="RM%d" RatePlanCode="P%d"/><Rates><Rate CurrencyCode="EUR"><BaseByGuestAmts><BaseByGuestAmt AmountAfterTax="{AMOUNT}"/></BaseByGuestAmts></Rate></Rates></RateAmountMessage>' "$(day 30)" "$(day 779)" "$r" "$p"; done; done)
cat >"$work/supplybig.xml" <<XML
<OTA_HotelRateAmountNotifRQ $ns Version="2016.1">$cm_pos<RateAmountMessages HotelCode="{HOTEL}">$big_items</RateAmountMessages></OTA_HotelRateAmountNotifRQ>
XML
# The channel manager's notifications: thread t of T sends to the hotels of its own share, so a
# hotel's messages come in order over one connection, as a channel manager sends them.
cat "$work/threads.lua" - >"$work/supplyhotels.lua" <<'LUA'
local f = io.open(os.getenv("BODY"), "r")
local template = f:read("*a")
f:close()
local hotels = tonumber(os.getenv("HOTELS") or "1000")
local first = tonumber(os.getenv("FIRST_HOTEL") or "1")
local days = {}
for d = 0, 59 do days[#days + 1] = os.date("!%Y-%m-%d", os.time() + (15 + d) * 86400) end
local n = 0
function request()
  n = n + 1
  local hotel = string.format("LH%04d", first + (n * 7919 + tid * 104729) % hotels)
  local body = template:gsub("{HOTEL}", hotel):gsub("{ROOM}", "RM" .. (n % 2 + 1)):gsub("{DATE}", days[(n * 7) % #days + 1])
    :gsub("{COUNT}", tostring(n % 6 + 1)):gsub("{AMOUNT}", string.format("%d.%02d", 80 + n % 40, n % 100))
  return wrk.format("POST", wrk.path, { ["Content-Type"] = "application/xml" }, body)
end
LUA
cat >"$work/supply.lua" <<LUA
local f = io.open(os.getenv("BODY"), "r")
local template = f:read("*a")
f:close()
local days = { ${supply_days%,} }
local every = tonumber(os.getenv("EVERY_MS") or "0")
local n = 0
function request()
  n = n + 1
  local body = template:gsub("{DATE}", days[(n * 7) % #days + 1]):gsub("{COUNT}", tostring(n % 6 + 1))
  return wrk.format("POST", "/hotelinvcountnotif", { ["Content-Type"] = "application/xml" }, body)
end
function delay()
  return every
end
LUA

# Each body must get a 200 success before it is measured.
for op in search:activitysearch availability:activityavailability hotelavailability:hotelavailability hotelarea:hotelavailability activitynbc:activitynbc hotelnbc:hotelnbc quote:activitybook; do
  body=${op%%:*}; path=${op##*:}
  out=$(curl -s -w '\n%{http_code}' http://127.0.0.1:$PORT/$path -H 'Content-Type: application/xml' --data-binary @"$work/$body.xml")
  case "$out" in *"<Success/>"*200) ;; *) echo "$body is not answered with Success: $out" >&2; exit 1 ;; esac
done
# The channel manager's bodies too, filled in as wrk fills them.
for op in supplyhotels:hotelinvcountnotif:LH0001 supplybig:hotelrateamountnotif:LH1001; do
  IFS=: read -r body path hotel <<<"$op"
  case " $ONLY " in *" supply "*|*" supplybig "*) ;; *) continue ;; esac
  sed -e "s/{HOTEL}/$hotel/; s/{ROOM}/RM1/; s/{DATE}/$(day 20)/g; s/{COUNT}/3/; s/{AMOUNT}/90.00/g" "$work/$body.xml" >"$work/check.xml"
  out=$(curl -s -w '\n%{http_code}' http://127.0.0.1:$PORT/$path -H 'Content-Type: application/xml' --data-binary @"$work/check.xml")
  case "$out" in *"<Success/>"*200) ;; *) echo "$body is not answered with Success: ${out:0:2000}" >&2; exit 1 ;; esac
done
: >"$work/empty.xml"

# The console's people (CONSOLE_USERS, EDITS_PER_SECOND) log in with the login form, as a
# browser does, on the first gateway's console: prints the session cookie and its CSRF token.
console=http://127.0.0.1:$((PORT + 500))
console_login() {
  local jar="$work/jar.$1.$RANDOM" token code
  token=$(curl -sf -c "$jar" "$console/login" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
  code=$(curl -s -o /dev/null -w '%{http_code}' -b "$jar" -c "$jar" "$console/login" \
    --data-urlencode "csrf=$token" --data-urlencode "name=$1" --data-urlencode "password=$2")
  [ "$code" = 303 ] || { echo "the console login of $1 answered $code" >&2; exit 1; }
  local cookie
  cookie=$(awk -F'\t' '$6 == "ota_console" {print $7}' "$jar")
  token=$(curl -sf -b "ota_console=$cookie" "$console/extranet" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
  echo "$cookie $token"
}
if [ "$CONSOLE_USERS" -gt 0 ]; then
  # A booking for the booking page (its Internal reference from the answer).
  sed -e "s/{REF}/LOAD-CONSOLE-1/; s/{DATE}/$(day 3)/g" "$work/commit.xml" >"$work/check.xml"
  booking=$(curl -s http://127.0.0.1:$PORT/activitybook -H 'Content-Type: application/xml' --data-binary @"$work/check.xml" \
    | grep -o '<Confirmation [^>]*ID_Context="Internal"' | grep -o ' ID="[^"]*"' | sed 's/ ID="//; s/"$//' || true)
  [ -n "$booking" ] || { echo "the console's booking was not made: $(curl -s http://127.0.0.1:$PORT/activitybook -H "Content-Type: application/xml" --data-binary @"$work/check.xml" | head -c 2000)" >&2; exit 1; }
  cookies=""
  for _ in $(seq 1 "$CONSOLE_USERS"); do login=$(console_login demo demo-console); cookies="$cookies${cookies:+ }${login%% *}"; done
  cat "$work/threads.lua" - >"$work/console.lua" <<LUA
local cookies = {}
for c in string.gmatch(os.getenv("COOKIES"), "%S+") do cookies[#cookies + 1] = c end
local pages = { "/", "/traffic?window=hour", "/traffic?window=week", "/traffic?window=days",
  "/bookings?surname=Ruiz", "/bookings/$booking", "/deliveries", "/log", "/partners",
  "/partners/DEMO", "/audit", "/extranet" }
local n = 0
function request()
  n = n + 1
  local page = pages[(n + tid * 5) % #pages + 1]
  return wrk.format("GET", page, { Cookie = "ota_console=" .. cookies[tid] })
end
function delay()
  return tonumber(os.getenv("EVERY_MS"))
end
LUA
  # Every page must answer 200 before it is measured.
  for page in $(grep -o '"/[^"]*"' "$work/console.lua" | tr -d '"'); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -b "ota_console=${cookies%% *}" "$console$page")
    [ "$code" = 200 ] || { echo "the console page $page answered $code" >&2; exit 1; }
  done
fi
if [ "$EDITS_PER_SECOND" -gt 0 ]; then
  login=$(console_login demo-hotel demo-extranet)
  edit_cookie=${login%% *} edit_csrf=${login#* }
  edit_path="/extranet/hotels/HTL00042/calendar?from=$(day 15)&to=$(day 44)"
  cat >"$work/edit.lua" <<LUA
local n = 0
function request()
  n = n + 1
  local body = "csrf=$edit_csrf&from=$(day 15)&to=$(day 44)&action=rooms&value=" .. (3 + n % 4)
  if n % 2 == 0 then
    body = "csrf=$edit_csrf&from=$(day 15)&to=$(day 44)&action=amount&currency=EUR&guests=&value=" .. (90 + n % 10) .. ".00"
  end
  return wrk.format("POST", "$edit_path", { Cookie = "ota_console=$edit_cookie",
    ["Content-Type"] = "application/x-www-form-urlencoded" }, body)
end
function delay()
  return tonumber(os.getenv("EVERY_MS"))
end
LUA
  # The edit must be applied (200, the outcome's notice) before it is measured.
  out=$(curl -s -w '\n%{http_code}' -b "ota_console=$edit_cookie" "$console$edit_path" \
    --data "csrf=$edit_csrf&from=$(day 15)&to=$(day 44)&action=rooms&value=4")
  case "$out" in *'notice ok outcome'*200) ;; *) echo "the calendar edit was not applied: ${out: -2000}" >&2; exit 1 ;; esac
fi

# What runs meanwhile in the second measurement of every route, in words.
besides=""
[ "$UPDATES_PER_SECOND" -gt 0 ] && besides="$UPDATES_PER_SECOND notifications/s"
[ "$CONSOLE_USERS" -gt 0 ] && besides="$besides${besides:+, }$CONSOLE_USERS console users (a page every $CONSOLE_PAUSE_MS ms each)"
[ "$EDITS_PER_SECOND" -gt 0 ] && besides="$besides${besides:+, }$EDITS_PER_SECOND calendar edits/s"
baseline=""
share=""
# Starts what runs meanwhile (not during the baselines), for DURATION seconds, each in the
# background; its pids and names in `meanwhile`. The channel manager: N notifications a second
# over a connection per 100; the operators: one connection (and session) each.
start_besides() {
  if [ "$UPDATES_PER_SECOND" -gt 0 ]; then
    # One connection per 100 a second (a connection waits for each answer), each pausing
    # between its notifications so that together they send about N a second.
    local cm=$(( (UPDATES_PER_SECOND + 99) / 100 ))
    EVERY_MS=$((1000 * cm / UPDATES_PER_SECOND)) BODY="$work/supply.xml" wrk -t1 -c"$cm" -d"${DURATION}s" -s "$work/supply.lua" "http://127.0.0.1:$PORT/hotelinvcountnotif" >"$work/beside.supply.out" &
    meanwhile+=("$!:supply:notifications/s applied")
  fi
  if [ "$CONSOLE_USERS" -gt 0 ]; then
    COOKIES="$cookies" EVERY_MS=$CONSOLE_PAUSE_MS wrk -t"$CONSOLE_USERS" -c"$CONSOLE_USERS" -d"${DURATION}s" --latency -s "$work/console.lua" "$console/" >"$work/beside.console.out" &
    meanwhile+=("$!:console:console pages/s")
  fi
  if [ "$EDITS_PER_SECOND" -gt 0 ]; then
    EVERY_MS=$((1000 / EDITS_PER_SECOND)) wrk -t1 -c1 -d"${DURATION}s" --latency -s "$work/edit.lua" "$console/" >"$work/beside.edit.out" &
    meanwhile+=("$!:edit:calendar edits/s")
  fi
}
# Waits for what runs meanwhile and prints what each did.
end_besides() {
  for m in "${meanwhile[@]}"; do
    IFS=: read -r pid what label <<<"$m"
    wait "$pid"
    echo "  meanwhile: $(awk '/Requests\/sec/ {print $2}' "$work/beside.$what.out") $label$(grep -E '^ +50%' "$work/beside.$what.out" | awk '{print ", median " $2}')$(grep -E 'Non-2xx|Socket errors' "$work/beside.$what.out" | sed 's/^ */, /')"
  done
}
# The CPU time the gateway processes have used, in clock ticks.
gateways_cpu() { for s in "${servers[@]}"; do awk '{print $14 + $15}' "/proc/$s/stat"; done | awk '{t += $1} END {print t}'; }
# CPU milliseconds per second the gateways used from ticks $1 to now, over DURATION seconds.
cpu_per_second() { awk -v d=$(($(gateways_cpu) - $1)) -v t="$(getconf CLK_TCK)" -v s="$DURATION" 'BEGIN {printf "%.1f", 1000 * d / t / s}'; }
# What runs meanwhile costs the gateways, measured alone: their CPU time over DURATION seconds
# idle, then over DURATION seconds with it (and nothing else).
if [ -n "$besides" ]; then
  echo "== what runs meanwhile, alone ($DURATION s): $besides"
  before=$(gateways_cpu); sleep "$DURATION"; idle=$(cpu_per_second "$before")
  meanwhile=()
  before=$(gateways_cpu); start_besides; end_besides; alone=$(cpu_per_second "$before")
  echo "  the gateways' CPU: $idle ms/s idle, $alone ms/s with it: it costs $(awk -v a="$alone" -v i="$idle" -v n="$(nproc)" 'BEGIN {printf "%.1f ms/s, %.1f %% of %d cores", a - i, (a - i) / 10 / n, n}')"
fi
# While the `supply` run lasts, every 200 ms: an amount of its own for one night of a demo room
# (HTL00042's RMJS000000 with BB, the demo supplier's; stamped when it arrives) sent to gateway 0,
# then each gateway's availability of that night asked every 10 ms until it shows it. Prints
# how long after the notification's answer every gateway showed it (p50, p99, max).
visibility_probe() {
  local end=$(($(date +%s) + DURATION - 1)) i=0 delays="$work/visibility.txt"
  : >"$delays"
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    local amount="$((300 + i)).$(printf %02d $((i % 100)))" night next
    night=$(day $((80 + i % 20))) next=$(day $((81 + i % 20)))
    local notification="<OTA_HotelRateAmountNotifRQ $ns Version=\"2016.1\">$sup_pos<RateAmountMessages HotelCode=\"HTL00042\"><RateAmountMessage><StatusApplicationControl Start=\"$night\" End=\"$night\" InvTypeCode=\"RMJS000000\" RatePlanCode=\"BB\"/><Rates><Rate CurrencyCode=\"EUR\"><BaseByGuestAmts><BaseByGuestAmt AmountAfterTax=\"$amount\"/></BaseByGuestAmts></Rate></Rates></RateAmountMessage></RateAmountMessages></OTA_HotelRateAmountNotifRQ>"
    local ask="<OTA_HotelAvailRQ $ns Version=\"2008.1\">$pos<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode=\"HTL00042\"/></Criterion></HotelSearchCriteria><StayDateRange Start=\"$night\" End=\"$next\"/><RoomStayCandidates><RoomStayCandidate RPH=\"1\"><GuestCounts><GuestCount AgeQualifyingCode=\"10\" Count=\"2\"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"
    curl -s "http://127.0.0.1:$PORT/hotelrateamountnotif" -H 'Content-Type: application/xml' --data-binary "$notification" | grep -q '<Success/>' \
      || { echo "  a visibility probe was not applied" >&2; return 1; }
    local answered shown
    answered=$(date +%s%N)
    for g in $(seq 0 $((INSTANCES - 1))); do
      until curl -s "http://127.0.0.1:$((PORT + g))/hotelavailability" -H 'Content-Type: application/xml' --data-binary "$ask" | grep -q "AmountAfterTax=\"$amount\""; do
        [ $(($(date +%s%N) - answered)) -lt 10000000000 ] || { echo "  probe $i: not on gateway $g after 10 s" >&2; return 1; }
        sleep 0.01
      done
    done
    shown=$(date +%s%N)
    echo $(((shown - answered) / 1000000)) >>"$delays"
    sleep 0.2
  done
}
# The probes' delays: p50, p99 and max in ms, and how many.
visibility_figures() {
  sort -n "$work/visibility.txt" | awk '{v[NR] = $1} END {if (NR) printf "p50 %d ms, p99 %d ms, max %d ms (%d probes)", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)], v[NR], NR; else printf "no probe"}'
}
# run NAME BODY PATH [SCRIPT [BESIDE]]: wrk on every gateway at once (the connections split),
# summed; with BESIDE=1, the channel manager pushes notifications, the console's operators browse
# and the hotel user edits meanwhile (those asked for). Sets `share` (the share of the baseline,
# none for a baseline).
run() {
  local name=$1 body=$2 path=$3 script=${4:-post.lua} beside=${5:-0}
  echo "== $name ($DURATION s, $CONNECTIONS connections)"
  local per=$(( (CONNECTIONS + INSTANCES - 1) / INSTANCES ))
  local pids=()
  for i in $(seq 0 $((INSTANCES - 1))); do
    RUN="$RANDOM$i" BODY="$work/$body" wrk -t2 -c"$per" -d"${DURATION}s" --timeout 10s --latency -s "$work/$script" "http://127.0.0.1:$((PORT + i))/$path" >"$work/wrk$i.out" &
    pids+=($!)
  done
  local meanwhile=() probe=""
  if [ "$beside" = 1 ]; then start_besides; fi
  if [ "$path" = hotelinvcountnotif ] && [ "$script" = supplyhotels.lua ]; then visibility_probe & probe=$!; fi
  for p in "${pids[@]}"; do wait "$p"; done
  end_besides
  if [ -n "$probe" ]; then
    wait "$probe" || exit 1
    echo "  a new amount on every gateway after its notification's answer: $(visibility_figures)"
  fi
  total=0
  for i in $(seq 0 $((INSTANCES - 1))); do
    grep -E '^ +(50|90|99)%|Non-2xx|Socket errors' "$work/wrk$i.out" | sed "s/^/  [$i]/"
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk$i.out")
    total=$(awk -v a="$total" -v b="$rps" 'BEGIN {printf "%.0f", a + b}')
  done
  if [ -z "$baseline" ]; then
    baseline=$total
    share=""
    echo "  requests/s: $total"
  else
    share=$(awk -v a="$total" -v b="$baseline" 'BEGIN {printf "%.1f", 100 * a / b}')
    echo "  requests/s: $total ($share % of the baseline$([ "$beside" = 1 ] && echo ", $besides meanwhile"))"
  fi
}
# The hotel bookings every gateway has committed so far.
hotel_bookings() {
  for i in $(seq 0 $((INSTANCES - 1))); do
    curl -s "http://127.0.0.1:$((PORT + i))/metrics" | awk '/^ota_bookings_committed_total\{kind="hotel"\}/ {print $2}'
  done | awk '{t += $1} END {printf "%d", t}'
}
# The median of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for what in $ONLY; do
  case "$what" in
    baseline) route=("baseline: fixed 404 body" empty.xml not-an-operation) ;;
    search) route=("activity search" search.xml activitysearch) ;;
    availability) route=("activity availability" availability.xml activityavailability) ;;
    hotelavailability) route=("hotel availability (one hotel, one room)" hotelavailability.xml hotelavailability) ;;
    hotelarea) route=("hotel availability (a region, two rooms)" hotelarea.xml hotelavailability) ;;
    activitynbc) route=("activity NBC" activitynbc.xml activitynbc) ;;
    hotelnbc) route=("hotel NBC" hotelnbc.xml hotelnbc) ;;
    quote) route=("activity book, Quote" quote.xml activitybook) ;;
    commit) route=("activity book, Commit (each its own Client reference)" commit.xml activitybook commit.lua) ;;
    hotelcommit) route=("hotel book, Commit (one night of one of 1,000 hotels, each its own Client reference)" hotelcommit.xml hotelbook hotelcommit.lua) ;;
    supply) route=("supply: rooms-on-sale notifications of 1,000 hotels (each applied)" supplyhotels.xml hotelinvcountnotif supplyhotels.lua) ;;
    supplyone) route=("supply: rooms-on-sale notifications of one hotel (each applied)" supply.xml hotelinvcountnotif supply.lua) ;;
    supplybig) route=("supply: rate notifications of 750 nights x 10 room types x 4 plans (30,000 night-values each)" supplybig.xml hotelrateamountnotif supplyhotels.lua) ;;
    *) echo "no route $what" >&2; exit 1 ;;
  esac
  [ ${#route[@]} -eq 4 ] || route+=(post.lua)
  # Without notifications; then with them (UPDATES_PER_SECOND), but for the baseline and the
  # notifications themselves.
  modes=0
  if [ -n "$besides" ] && [ "$what" != baseline ] && [ "${what#supply}" = "$what" ]; then modes="0 1"; fi
  without=() with=()
  for round in $(seq 1 "$ROUNDS"); do
    for beside in $modes; do
      if [ "$PAIRED" = 1 ] && [ "$what" != baseline ]; then
        baseline=""
        run "baseline: fixed 404 body" empty.xml not-an-operation
      fi
      case "$what" in supplybig) export HOTELS=20 FIRST_HOTEL=1001 ;; *) export HOTELS=1000 FIRST_HOTEL=1 ;; esac
      [ "$what" = hotelcommit ] && booked=$(hotel_bookings)
      run "${route[@]}" "$beside"
      if [ "$what" = supplybig ]; then echo "  night-values/s: $((total * 30000))"; fi
      if [ "$what" = hotelcommit ]; then echo "  hotel bookings committed: $(($(hotel_bookings) - booked)) (the rest answered with an error)"; fi
      if [ -n "$share" ]; then
        if [ "$beside" = 1 ]; then with+=("$share"); else without+=("$share"); fi
      fi
    done
  done
  if [ ${#with[@]} -gt 0 ]; then
    a=$(median "${without[@]}") b=$(median "${with[@]}")
    echo "  => ${route[0]}: $a % without, $b % with $besides (median of ${#with[@]}; $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%+.1f", 100 * (b - a) / a}') %)"
  elif [ "$ROUNDS" -gt 1 ] && [ ${#without[@]} -gt 0 ]; then
    echo "  => ${route[0]}: $(median "${without[@]}") % of the baseline (median of ${#without[@]})"
  fi
done
if [ -n "${LOG:-}" ]; then
  echo "== transaction log entries (gateway 0):"
  curl -s http://127.0.0.1:$PORT/metrics | grep '^ota_txlog_entries_total' | sed 's/^/  /' || true
fi
# SQLite: how often the WAL started again and what the writer did for it (gateway 0).
wal=$(curl -s http://127.0.0.1:$PORT/metrics | grep -E '^ota_sqlite_[a-z_]+_total' || true)
if [ -n "$wal" ]; then echo "== SQLite WAL (gateway 0):"; echo "$wal" | sed 's/^/  /'; fi
if grep -qh ERROR "$work"/server*.log; then
  echo "the gateways logged errors:" >&2
  grep -h ERROR "$work"/server*.log | head -5 >&2
  exit 1
fi
