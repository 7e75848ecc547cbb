#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests (Debian's postgresql package). The test command runs
# this itself (tests/provision.py); by hand:
#   eval "$(bash .ci/postgres.sh)"                          exports BACCARAT_TEST_POSTGRES_URL (and _DIR)
#   bash .ci/postgres.sh stop "$BACCARAT_TEST_POSTGRES_DIR"  stops that server and removes its files
# It needs PostgreSQL installed (scripts/provision installs Debian's postgresql); as root it runs the server
# as the postgres user, as anyone else as that user.  The server trades durability for speed (fsync off):
# it is thrown away with the tests.
# It listens on 127.0.0.1 at $BACCARAT_PG_PORT, or at a free port.
set -euo pipefail

pg_bin() {  # the directory of the newest PostgreSQL server programs, or nothing
  local initdb
  initdb=$( (ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null || true) | sort -V | tail -1)
  [ -n "$initdb" ] || initdb=$(command -v initdb || true)
  if [ -n "$initdb" ]; then dirname "$initdb"; fi
}

as_pg() {  # initdb and the server refuse to run as root
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = stop ]; then
  dir=${2:?usage: bash .ci/postgres.sh stop DIR}
  case "$(basename "$dir")" in baccarat-pg.*) ;; *) echo "postgres.sh: $dir is not one of ours" >&2; exit 2 ;; esac
  bin=$(pg_bin)
  if [ -n "$bin" ] && [ -d "$dir/data" ]; then
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  exit 0
fi

bin=$(pg_bin)
if [ -z "$bin" ]; then
  echo "postgres.sh: PostgreSQL is not installed (no initdb): run scripts/provision (as root), or install it" >&2
  exit 1
fi
port=${BACCARAT_PG_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
dir=$(mktemp -d /tmp/baccarat-pg.XXXXXX)
started=
cleanup() {  # a server that did not come up leaves nothing behind
  if [ -n "$started" ]; then return; fi
  local why=""
  if [ -f "$dir/log" ]; then why=$(sed -nE 's/^.*(FATAL|PANIC): +//p' "$dir/log" | tail -1); fi
  echo "postgres.sh: could not start PostgreSQL ($bin) on port $port${why:+: $why}" >&2
  if [ -f "$dir/log" ]; then tail -5 "$dir/log" >&2; fi
  as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; fi
as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >&2
as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres baccarat_test
started=1
echo "export BACCARAT_TEST_POSTGRES_URL='postgresql+psycopg://postgres@127.0.0.1:$port/baccarat_test'"
echo "export BACCARAT_TEST_POSTGRES_DIR='$dir'"
