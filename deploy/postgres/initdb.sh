#!/usr/bin/env bash
# docker compose: the postgres image runs this once, when it initialises an
# empty data volume. One role per service, owning only its schema (clips
# and clips-worker share hookline_clips); the passwords come from the
# container's environment. On an existing volume (e.g. one from before
# clips) run it by hand, it is idempotent:
#   docker compose exec postgres /docker-entrypoint-initdb.d/10-hookline-roles.sh
set -euo pipefail
for svc in gateway billing assets thumbnails clips webhooks; do
  var="POSTGRES_${svc^^}_PASSWORD"
  HOOKLINE_ROLE_PASSWORD=${!var} /hookline/service-role.sh \
    "dbname=${POSTGRES_DB} user=${POSTGRES_USER}" "hookline_${svc}" "$svc"
done
