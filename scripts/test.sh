#!/usr/bin/env bash
# All the tests, on a fresh machine: installs what they need when it is missing (xmllint from
# Debian's libxml2-utils, the PostgreSQL server from postgresql), starts a throw-away
# PostgreSQL server for the run (unless TEST_DATABASE_URL names one: a role that may create
# databases), runs `cargo test --workspace` with any extra arguments, and stops the server.
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

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  bin=$(pg_bin)
  [ -n "$bin" ] || bin=$(dirname "$(command -v initdb)")
  dir=$(mktemp -d /tmp/ota-test-pg.XXXXXX)
  # initdb refuses root: the server runs as the postgres user then.
  run=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$dir"
    run=(runuser -u postgres --)
  fi
  port=55432
  while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  step "starting a throw-away PostgreSQL ($("$bin/postgres" --version)) on 127.0.0.1:$port"
  "${run[@]}" "$bin/initdb" -A trust -U postgres --no-sync -E UTF8 -D "$dir/data" >"$dir/initdb.log"
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
  stop_server() {
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$dir"
  }
  trap stop_server EXIT
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
fi

step "cargo test --workspace $*"
cargo test --workspace "$@"
