#!/bin/sh
# Creates or upgrades Temporal's PostgreSQL schemas (persistence and visibility) to the versions
# shipped in this admin-tools image. Idempotent: run on every `docker-compose up`.
set -eu

: "${POSTGRES_SEEDS:=postgres}"
: "${DB_PORT:=5432}"
: "${POSTGRES_USER:=temporal}"
: "${POSTGRES_PWD:?POSTGRES_PWD must be set}"
: "${DBNAME:=temporal}"
: "${VISIBILITY_DBNAME:=temporal_visibility}"
: "${SCHEMA_DIR:=/etc/temporal/schema/postgresql/v12}"
: "${WAIT_ATTEMPTS:=30}"
: "${WAIT_SECONDS:=2}"

# The schema tool reads the password from the environment, so it never shows in a process list.
SQL_PASSWORD=$POSTGRES_PWD
export SQL_PASSWORD

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

# setup-schema -v 0.0 only creates the version tables (and leaves a newer version alone), so it is
# safe to repeat; the first call doubles as a bounded wait for the database.
setup() {
  db=$1
  attempt=1
  until sql_tool --db "$db" setup-schema -v 0.0; do
    if [ "$attempt" -ge "$WAIT_ATTEMPTS" ]; then
      echo "setup-schema: database $db at $POSTGRES_SEEDS:$DB_PORT not usable after $attempt attempts" >&2
      exit 1
    fi
    attempt=$((attempt + 1))
    sleep "$WAIT_SECONDS"
  done
  sql_tool --db "$db" update-schema -d "$2"
  echo "setup-schema: $db is up to date"
}

setup "$DBNAME" "$SCHEMA_DIR/temporal/versioned"
setup "$VISIBILITY_DBNAME" "$SCHEMA_DIR/visibility/versioned"
