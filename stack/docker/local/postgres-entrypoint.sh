#!/bin/bash
# First start: initdb with POSTGRES_USER as superuser (password from POSTGRES_PASSWORD, never an argument),
# password logins over the network, and POSTGRES_DB created. Then the server replaces this shell.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  [[ -n "${POSTGRES_PASSWORD:-}" ]] || { echo "set POSTGRES_PASSWORD" >&2; exit 1; }
  pw="$(mktemp)"; printf '%s' "$POSTGRES_PASSWORD" > "$pw"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  [[ "$POSTGRES_DB" == postgres ]] || createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
