#!/bin/sh
# The stand-in postgres image's entrypoint (postgres.Containerfile): as root, it makes the data
# directory the postgres user's and runs itself again as that user; then, on an empty data
# directory, it makes the cluster with POSTGRES_USER as its superuser (password
# POSTGRES_PASSWORD), password connections from any address, and the database POSTGRES_DB; last
# it runs the server, listening on every interface.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" --encoding=UTF8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
  if [ "$db" != postgres ]; then
    createdb --username="$user" "$db"
  fi
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
  echo "postgres-entrypoint: made the cluster, user $user, database $db"
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
