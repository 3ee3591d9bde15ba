#!/usr/bin/env bash
# A throw-away PgBouncer in transaction pooling mode, in a directory of its own, on 127.0.0.1 and
# a free port, in front of a PostgreSQL server: the one way the tests (gateway/tests/it/support)
# and scripts/loadtest.sh start one. Needs Debian's pgbouncer package (the binary on PATH or in
# /usr/sbin). As root it runs as the postgres user (PgBouncer refuses root).
#
#   scripts/throwaway-pgbouncer.sh start DIR --upstream URL [--pool-size N] [--watch PID]
#       creates DIR, starts PgBouncer (pool_mode=transaction; max_prepared_statements=200 from
#       version 1.21 on, which has it) in front of the server of URL
#       (postgres://USER[:PASSWORD]@HOST[:PORT]/DB) and prints the URL of DB through it (the same
#       user, no password: the pooler trusts its clients, and logs in to the server as USER).
#       Every database of that server is reachable through it by name (a `*` entry), each with
#       a pool of N server connections (default 10), and its console as database `pgbouncer`
#       (SHOW POOLS, SHOW CLIENTS); with --watch, PgBouncer is stopped and DIR
#       removed once process PID has ended (a test process that dies anyhow leaves nothing
#       running)
#   scripts/throwaway-pgbouncer.sh stop DIR
#       stops it and removes DIR
set -euo pipefail

self=$(readlink -f "$0")
usage() { echo "usage: $0 start DIR --upstream URL [--pool-size N] [--watch PID] | stop DIR" >&2; exit 2; }

bin=$(command -v pgbouncer || true)
if [ -z "$bin" ] && [ -x /usr/sbin/pgbouncer ]; then
  bin=/usr/sbin/pgbouncer
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
    [ -n "$bin" ] || { echo "$0: no pgbouncer binary (apt-get install pgbouncer)" >&2; exit 1; }
    upstream=""
    pool_size=10
    watch=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --upstream) upstream=${2:?}; shift ;;
        --pool-size) pool_size=${2:?}; shift ;;
        --watch) watch=${2:?}; shift ;;
        *) usage ;;
      esac
      shift
    done
    [ -n "$upstream" ] || usage
    # postgres://USER[:PASSWORD]@HOST[:PORT][/DB][?…]
    re='^postgres(ql)?://([^:@/]+)(:([^@/]*))?@([^:/?]+)(:([0-9]+))?(/([^?]*))?'
    [[ $upstream =~ $re ]] || { echo "$0: not a postgres://USER[:PASSWORD]@HOST[:PORT]/DB URL: $upstream" >&2; exit 2; }
    user=${BASH_REMATCH[2]}
    password=${BASH_REMATCH[4]}
    host=${BASH_REMATCH[5]}
    port=${BASH_REMATCH[7]:-5432}
    db=${BASH_REMATCH[9]:-$user}
    mkdir -p "$dir"
    [ ${#run[@]} -eq 0 ] || chown postgres "$dir"
    # Prepared statements carried across server connections where the version has them (1.21
    # and later); Debian 12's 1.18 has not.
    version=$("$bin" --version | awk 'NR == 1 {print $2}')
    prepared=""
    if [ "$(printf '%s\n' 1.21 "$version" | sort -V | head -n 1)" = 1.21 ]; then
      prepared="max_prepared_statements = 200"
    fi
    login="host=$host port=$port user=$user"
    [ -z "$password" ] || login="$login password=$password"
    # The pooler's own clients: trusted, by user name (auth_file lists the one user).
    printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
    # A port nobody listens on; another process may take it first, so a failed start tries
    # another one.
    started=false
    for _ in 1 2 3 4 5; do
      listen=$((20000 + RANDOM % 40000))
      while (echo >"/dev/tcp/127.0.0.1/$listen") 2>/dev/null; do listen=$((listen + 1)); done
      cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = $login

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
default_pool_size = $pool_size
max_client_conn = 1000
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
log_connections = 0
log_disconnections = 0
$prepared
EOF
      [ ${#run[@]} -eq 0 ] || chown postgres "$dir"/*
      if "${run[@]}" "$bin" -d "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1; then
        # Daemonised: wait until it listens (or has died).
        for _ in $(seq 100); do
          if (echo >"/dev/tcp/127.0.0.1/$listen") 2>/dev/null; then started=true; break; fi
          pid=$(cat "$dir/pgbouncer.pid" 2>/dev/null || true)
          [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && break
          sleep 0.05
        done
      fi
      [ "$started" = true ] && break
    done
    [ "$started" = true ] || { cat "$dir/start.log" "$dir/pgbouncer.log" >&2 2>/dev/null; exit 1; }
    if [ -n "$watch" ]; then
      # Detached, with no tie to our caller's output: it outlives this script on purpose.
      setsid bash -c "while kill -0 $watch 2>/dev/null; do sleep 1; done; \"$self\" stop \"$dir\"" </dev/null >/dev/null 2>&1 &
    fi
    echo "postgres://$user@127.0.0.1:$listen/$db"
    ;;
  stop)
    [ $# -eq 0 ] || usage
    pid=$(cat "$dir/pgbouncer.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      # SIGTERM: stop at once (its clients are gone or going).
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
    ;;
  *) usage ;;
esac
