#!/usr/bin/env bash
# Starts and stops a local PostgreSQL 15 cluster for lifelog, listening on 127.0.0.1 only.
#
#   scripts/pg.sh start dev          persistent cluster, data in .data/postgres (port 54329)
#   scripts/pg.sh start test DIR     throwaway cluster in DIR with fast, non-durable settings
#   scripts/pg.sh start bench DIR    throwaway cluster in DIR with durable settings (fsync on)
#   scripts/pg.sh stop  dev|DIR
#   scripts/pg.sh crash DIR          stops a throwaway cluster as a crash would (immediate mode:
#                                    no checkpoint; the next start replays the WAL)
#   scripts/pg.sh url   dev          prints the DATABASE_URL of the dev cluster
#
# PostgreSQL refuses to run as root, so when we are root the cluster runs as the `postgres` user.
# Debian's postgresql-15 package is installed only when no server binaries are present
# (installing over an existing version would upgrade it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "pg.sh: $*" >&2; exit 1; }

find_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

ensure_binaries() {
  if bindir=$(find_bindir); then return 0; fi
  [ "$(id -u)" = 0 ] || die "PostgreSQL server binaries are missing; install Debian's postgresql-15 package"
  echo "pg.sh: installing Debian's postgresql-15 package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq postgresql-15 >/dev/null || apt-get install -y -qq postgresql >/dev/null
  bindir=$(find_bindir) || die "PostgreSQL binaries still missing after installing the package"
}

# Runs a command as the cluster's OS user: `postgres` when we are root, ourselves otherwise.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

owner_can_reach() {
  [ "$(id -u)" = 0 ] || return 0
  (cd / && runuser -u postgres -- test -w "$1") 2>/dev/null
}

free_port() {
  local port
  for _ in $(seq 1 200); do
    # Below Linux's ephemeral range (32768 up): a port some outgoing connection holds as its own
    # refuses a listener, though nothing answers a connect to it (a CI run lost its fuzz step so).
    port=$(( 20000 + RANDOM % 12000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  die "found no free port on 127.0.0.1"
}

# The dev cluster keeps its data in the checkout (.data/postgres). When the checkout lives where
# the postgres user cannot reach (e.g. under /root), the data goes to /tmp and .data records where.
dev_datadir() {
  mkdir -p "$here/.data"
  if [ -f "$here/.data/postgres.location" ]; then cat "$here/.data/postgres.location"; return; fi
  local dir="$here/.data/postgres"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; chmod 700 "$dir"; fi
  if ! owner_can_reach "$dir"; then
    rmdir "$dir" 2>/dev/null || true
    dir=$(mktemp -d /tmp/lifelog-dev-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  fi
  echo "$dir" > "$here/.data/postgres.location"
  echo "$dir"
}

init_cluster() { # datadir port mode
  local dir=$1 port=$2 mode=$3
  if [ ! -f "$dir/PG_VERSION" ]; then
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; chmod 700 "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir" -U lifelog --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null \
      || as_owner "$bindir/initdb" -D "$dir" -U lifelog --auth=trust -E UTF8 --locale=C >/dev/null
    {
      echo "listen_addresses = '127.0.0.1'"
      echo "port = $port"
      echo "unix_socket_directories = '$dir'"
      echo "shared_buffers = 256MB"
      if [ "$mode" = test ]; then
        # The suite runs its tests at once, each with pools of its own (and `lifelog` processes
        # with theirs): 400 was once exceeded ("too many clients") in a fresh clone's CI.
        echo "max_connections = 1000"
        # A throwaway cluster: durability buys nothing here and costs seconds.
        echo "fsync = off"
        echo "synchronous_commit = off"
        echo "full_page_writes = off"
      else
        echo "max_connections = 400"
      fi
    } | as_owner tee -a "$dir/postgresql.conf" >/dev/null
    # Only the loopback address may connect; the cluster serves this machine's own user.
    printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' | as_owner tee "$dir/pg_hba.conf" >/dev/null
  fi
}

try_start() { # datadir: the server started (or was running)
  local dir=$1
  if as_owner "$bindir/pg_ctl" -D "$dir" status >/dev/null 2>&1; then return 0; fi
  # The server outlives this script: it must not inherit our caller's descriptors (a caller
  # waiting for a pipe or socket to close would wait for the server to stop).
  ( for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
    as_owner "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null )
}

start_cluster() { # datadir
  local dir=$1
  try_start "$dir" || { cat "$dir/server.log" >&2 || true; die "PostgreSQL did not start (log: $dir/server.log)"; }
}

# A throwaway cluster whose port was taken between the check and the bind moves to another.
start_throwaway() { # datadir
  local dir=$1 attempt
  for attempt in 1 2 3 4 5; do
    try_start "$dir" && return 0
    grep -q "Address already in use" "$dir/server.log" 2>/dev/null && [ "$attempt" -lt 5 ] || break
    as_owner truncate -s 0 "$dir/server.log"
    echo "port = $(free_port)" | as_owner tee -a "$dir/postgresql.conf" >/dev/null
  done
  cat "$dir/server.log" >&2 || true
  die "PostgreSQL did not start (log: $dir/server.log)"
}

port_of() { sed -n "s/^port = \([0-9]*\)$/\1/p" "$1/postgresql.conf" | tail -1; }

cmd=${1:-}; target=${2:-}
case "$cmd" in
  start)
    ensure_binaries
    if [ "$target" = dev ]; then
      dir=$(dev_datadir)
      init_cluster "$dir" "${LIFELOG_PG_PORT:-54329}" dev
      start_cluster "$dir"
      as_owner "$bindir/psql" -h 127.0.0.1 -p "$(port_of "$dir")" -U lifelog -d postgres -qtA \
        -c "SELECT 1 FROM pg_database WHERE datname = 'lifelog'" | grep -q 1 \
        || as_owner "$bindir/createdb" -h 127.0.0.1 -p "$(port_of "$dir")" -U lifelog lifelog
      echo "postgres://lifelog@127.0.0.1:$(port_of "$dir")/lifelog"
    elif [ "$target" = test ] || [ "$target" = bench ]; then
      dir=${3:?usage: pg.sh start test|bench DIR}
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres: "$dir"
      owner_can_reach "$dir" || die "$dir is not writable by the postgres user"
      init_cluster "$dir" "$(free_port)" "$target"
      start_throwaway "$dir"
      echo "postgres://lifelog@127.0.0.1:$(port_of "$dir")/postgres"
    else
      die "usage: pg.sh start dev | pg.sh start test DIR"
    fi
    ;;
  stop)
    bindir=$(find_bindir) || exit 0
    if [ "$target" = dev ]; then
      [ -f "$here/.data/postgres.location" ] || exit 0
      dir=$(cat "$here/.data/postgres.location")
    else
      dir=$target
    fi
    [ -n "$dir" ] && [ -f "$dir/PG_VERSION" ] || exit 0
    as_owner "$bindir/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  crash)
    bindir=$(find_bindir) || exit 0
    dir=${target:?usage: pg.sh crash DIR}
    [ "$dir" != dev ] && [ -f "$dir/PG_VERSION" ] || die "usage: pg.sh crash DIR (a throwaway cluster)"
    as_owner "$bindir/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
  url)
    [ "$target" = dev ] && [ -f "$here/.data/postgres.location" ] || die "the dev cluster has not been created"
    dir=$(cat "$here/.data/postgres.location")
    echo "postgres://lifelog@127.0.0.1:$(port_of "$dir")/lifelog"
    ;;
  *)
    die "usage: pg.sh start dev | start test DIR | stop dev|DIR | crash DIR | url dev"
    ;;
esac
