#!/usr/bin/env bash
# Measures `billing rebuild` on 1,000,000 events: seeds a fresh schema with
# bench/rebuild/seed.sql, then runs the rebuild twice under /usr/bin/time -v
# (the first builds the projections, the second replaces them), and checks
# one account's balance. Usage: bench/rebuild/run.sh [schema]
set -euo pipefail
cd "$(dirname "$0")/../.."
SCHEMA=${1:-bench_rebuild}
eval "$(scripts/deps.sh start)"
DB=$HOOKLINE_TEST_DATABASE_URL
mkdir -p .hookline/bin
go build -o .hookline/bin/ ./services/billing/cmd/billing

psql "$DB" -q -v ON_ERROR_STOP=1 <<SQL
DROP SCHEMA IF EXISTS $SCHEMA CASCADE;
CREATE SCHEMA $SCHEMA;
SET search_path = $SCHEMA;
\i services/billing/migrations/0001_ledger.sql
\i services/billing/migrations/0002_reserve_guard.sql
\timing on
\i bench/rebuild/seed.sql
SQL
psql "$DB" -Atc "SELECT count(*) || ' events, ' || count(DISTINCT stream) || ' streams' FROM $SCHEMA.events"

for run in first second; do
  echo "--- rebuild ($run)"
  HOOKLINE_DATABASE_URL=$DB HOOKLINE_DB_SCHEMA=$SCHEMA \
    /usr/bin/time -v .hookline/bin/billing rebuild 2>&1 |
    grep -E 'rebuilt projections|Elapsed \(wall|Maximum resident|User time|System time'
done
# 10000 accounts × 1000 credits − 49 reservations each, a third refunded.
psql "$DB" -Atc "SELECT count(*) || ' balances, ' || sum(subscription) || ' credits, ' || (SELECT count(*) FROM $SCHEMA.usage) || ' usage rows' FROM $SCHEMA.balances"
[ -n "${KEEP:-}" ] || psql "$DB" -qc "DROP SCHEMA $SCHEMA CASCADE"
