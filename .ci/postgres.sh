# shellcheck shell=bash
# Sourced by .ci/run: start a throwaway PostgreSQL cluster on 127.0.0.1 and export MEMLENS_TEST_PG_URL, so the
# `postgres`-marked tests run against a real server. The cluster lives in a temp folder and is stopped on exit.
#
# Also usable by hand:  source .ci/postgres.sh   (then: python -m pytest -m postgres)
# Without a PostgreSQL installation it warns and returns; the postgres tests then skip with a clear reason.

memlens_pg_start() {
  local bindir pgdata port owner run
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$bindir" ] && command -v pg_ctl >/dev/null 2>&1; then bindir=$(dirname "$(command -v pg_ctl)"); fi
  if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
    echo "postgres.sh: no PostgreSQL found (apt-get install postgresql); postgres tests will skip" >&2
    return 0
  fi
  pgdata=$(mktemp -d "${TMPDIR:-/tmp}/memlens-pg.XXXXXX")
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

  # initdb refuses to run as root: run the server as the `postgres` system user in that case.
  run=()
  if [ "$(id -u)" = 0 ]; then
    owner=postgres
    id -u "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
    chown "$owner" "$pgdata"
    chmod 700 "$pgdata"
    run=(runuser -u "$owner" --)
  fi

  "${run[@]}" "$bindir/initdb" -D "$pgdata/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
    >"$pgdata/initdb.log" 2>&1 || { cat "$pgdata/initdb.log" >&2; return 1; }
  # Durability settings off: this cluster is thrown away after the run and only has to be fast.
  "${run[@]}" "$bindir/pg_ctl" -D "$pgdata/data" -l "$pgdata/server.log" -w -t 60 start -o \
    "-p $port -k $pgdata -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off \
     -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=64MB" >/dev/null \
    || { cat "$pgdata/server.log" >&2; return 1; }

  MEMLENS_PG_DIR=$pgdata
  MEMLENS_PG_CTL="$bindir/pg_ctl"
  MEMLENS_PG_RUN="${run[*]}"
  export MEMLENS_TEST_PG_URL="postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
  echo "postgres.sh: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($pgdata)" >&2
  trap memlens_pg_stop EXIT
}

memlens_pg_stop() {
  [ -n "${MEMLENS_PG_DIR:-}" ] || return 0
  # shellcheck disable=SC2086  # MEMLENS_PG_RUN is a word list on purpose (empty or `runuser -u postgres --`)
  $MEMLENS_PG_RUN "$MEMLENS_PG_CTL" -D "$MEMLENS_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$MEMLENS_PG_DIR"
  MEMLENS_PG_DIR=
}

memlens_pg_start
