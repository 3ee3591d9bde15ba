#!/usr/bin/env bash
# A throw-away PostgreSQL server in a directory of its own, on 127.0.0.1 and a free port: the one
# way the tests (gateway/tests/it/support) and scripts/loadtest.sh start one. Needs the server
# binaries (Debian's postgresql package; the newest /usr/lib/postgresql/*/bin, else PATH's). As
# root the server runs as the postgres user (initdb refuses root).
#
#   scripts/throwaway-postgres.sh start DIR [--durable] [--watch PID]
#       creates DIR, starts the server and prints its URL (a superuser, trust authentication);
#       fsync and synchronous commit are off unless --durable; with --watch, the server is
#       stopped and DIR removed once process PID has ended (a test process that dies anyhow
#       leaves nothing running)
#   scripts/throwaway-postgres.sh stop DIR
#       stops it and removes DIR
set -euo pipefail

self=$(readlink -f "$0")
usage() { echo "usage: $0 start DIR [--durable] [--watch PID] | stop DIR" >&2; exit 2; }

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  initdb_path=$(command -v initdb || true)
  [ -n "$initdb_path" ] || { echo "$0: no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }
  bin=$(dirname "$initdb_path")
fi
run=()
if [ "$(id -u)" = 0 ]; then
  run=(runuser -u postgres --)
fi

[ $# -ge 2 ] || usage
command=$1
dir=$2
shift 2

case "$command" in
  start)
    durable=false
    watch=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --durable) durable=true ;;
        --watch) watch=${2:?}; shift ;;
        *) usage ;;
      esac
      shift
    done
    mkdir -p "$dir"
    [ ${#run[@]} -eq 0 ] || chown postgres "$dir"
    options="-c listen_addresses=127.0.0.1 -c max_connections=300"
    nosync=()
    if [ "$durable" = false ]; then
      options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
      nosync=(--no-sync)
    fi
    "${run[@]}" "$bin/initdb" -A trust -U postgres "${nosync[@]}" -E UTF8 -D "$dir/data" >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # A port nobody listens on; another process may take it first, so a failed start tries
    # another one.
    started=false
    for _ in 1 2 3 4 5; do
      port=$((20000 + RANDOM % 40000))
      while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
      if "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-p $port -k $dir $options" start >/dev/null; then
        started=true
        break
      fi
    done
    [ "$started" = true ] || { cat "$dir/server.log" >&2; exit 1; }
    if [ -n "$watch" ]; then
      # Detached, with no tie to our caller's output: it outlives this script on purpose.
      setsid bash -c "while kill -0 $watch 2>/dev/null; do sleep 1; done; \"$self\" stop \"$dir\"" </dev/null >/dev/null 2>&1 &
    fi
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ $# -eq 0 ] || usage
    if [ -d "$dir/data" ]; then
      "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *) usage ;;
esac
