#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for the tests (Debian's postgresql package) and print its URL.
# Usage: eval "$(bash .ci/postgres.sh)"   -> exports BACCARAT_TEST_POSTGRES_URL
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
dir=$(mktemp -d /tmp/baccarat-pg.XXXXXX)
chown postgres:postgres "$dir"
port=${BACCARAT_PG_PORT:-55432}
runuser -u postgres -- "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c synchronous_commit=on" start >&2
runuser -u postgres -- "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres baccarat_test
echo "export BACCARAT_TEST_POSTGRES_URL='postgresql+psycopg://postgres@127.0.0.1:$port/baccarat_test'"
echo "export BACCARAT_TEST_POSTGRES_DIR='$dir'"
