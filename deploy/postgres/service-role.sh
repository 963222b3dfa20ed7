#!/usr/bin/env bash
# Creates or updates the Postgres role of one Hookline service and gives it
# its schema, and nothing else (ARCHITECTURE §1: each service its own role
# and schema; another service's schema answers "permission denied").
# Idempotent: make up runs it at every start, and it takes over a schema,
# with its tables and functions, that an older stack created as another
# role.
#
#   HOOKLINE_ROLE_PASSWORD=... deploy/postgres/service-role.sh <admin-conninfo> <role> <schema>
#
# <admin-conninfo> is a libpq URL or key=value string of a role allowed to
# create roles (the password travels in the environment, not in argv).
# Used by scripts/up.sh, deploy/postgres/initdb.sh (docker compose) and
# pkg/platform/pgkit's tests; see deploy/README.md for managed databases.
set -euo pipefail
if [ $# -ne 3 ] || [ -z "${HOOKLINE_ROLE_PASSWORD:-}" ]; then
  echo "usage: HOOKLINE_ROLE_PASSWORD=... $0 <admin-conninfo> <role> <schema>" >&2
  exit 2
fi
psql "$1" -X -q -v ON_ERROR_STOP=1 -v role="$2" -v schema="$3" <<'SQL'
\getenv password HOOKLINE_ROLE_PASSWORD
SELECT format('CREATE ROLE %I', :'role')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L',
  :'role', :'password') \gexec
-- CREATE on the database: every start runs CREATE SCHEMA IF NOT EXISTS,
-- which checks this privilege before it finds the schema.
SELECT format('GRANT CONNECT, CREATE ON DATABASE %I TO %I', current_database(), :'role') \gexec
SELECT format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', :'schema', :'role') \gexec
SELECT format('ALTER SCHEMA %I OWNER TO %I', :'schema', :'role') \gexec
SELECT format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', :'schema') \gexec
-- Objects an older stack created as another role (sequences of serial and
-- identity columns follow their tables).
SELECT format('ALTER TABLE %I.%I OWNER TO %I', n.nspname, c.relname, :'role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = :'schema' AND c.relkind IN ('r', 'p', 'v', 'm')
    AND pg_get_userbyid(c.relowner) <> :'role' \gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'role')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = :'schema' AND pg_get_userbyid(p.proowner) <> :'role' \gexec
SQL
