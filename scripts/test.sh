#!/usr/bin/env bash
# All the tests, on a fresh machine: installs what they need when it is missing (xmllint from
# Debian's libxml2-utils, the PostgreSQL server from postgresql, PgBouncer from pgbouncer, the
# SOAP client zeep from python3-zeep, headless chromium and chromedriver from chromium and
# chromium-driver) and
# runs `cargo test --workspace` with any extra arguments. The gateway's tests start a throw-away
# PostgreSQL server of their own (scripts/throwaway-postgres.sh, stopped when they end) unless
# TEST_DATABASE_URL names one: a role that may create databases; and a throw-away PgBouncer in
# front of it (scripts/throwaway-pgbouncer.sh) for the pooler suite.
#
#   scripts/test.sh                    # everything
#   scripts/test.sh -p ota-gateway     # one package
#   TEST_DATABASE_URL=postgres://me@db.example/postgres scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

missing=()
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
if [ -z "${TEST_DATABASE_URL:-}" ] && [ ! -x "$(pg_bin)/initdb" ] && ! command -v initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
# The pooler suite puts a throw-away PgBouncer in front of the server (whichever it is).
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  missing+=(pgbouncer)
fi
# The SOAP suite drives the gateway with a real SOAP client, Python zeep (Debian's).
if ! /usr/bin/python3 -c 'import zeep' >/dev/null 2>&1 && ! python3 -c 'import zeep' >/dev/null 2>&1; then
  missing+=(python3-zeep)
fi
# The console's browser suite drives Debian's headless chromium over WebDriver (chromedriver).
if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
  missing+=(chromium chromium-driver)
fi
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "the tests need: ${missing[*]} (apt-get install -y ${missing[*]}); run as root or install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Two tests per core (unless RUST_TEST_THREADS says otherwise): most of the gateway suite's
# time is waiting (gateway processes starting, servers, time-outs, deliveries), not computing.
# Measured on 2 cores: its integration binary took 418 s with 2 threads, 296 s and 325 s with 4
# (every test passing each time). Tests that bound memory measure their own gateway processes,
# not the test process the suites share.
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-$((2 * $(nproc)))}

step "cargo test --workspace $* ($RUST_TEST_THREADS tests at once)"
cargo test --workspace "$@"
