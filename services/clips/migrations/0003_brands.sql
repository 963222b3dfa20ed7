-- The read model of the assets service's brands (ARCHITECTURE §4), for the
-- renders' brand frame and logo: applied from assets.brand.* events, once
-- per event (inbox), never moving back in time.

CREATE TABLE brands (
    id         uuid        PRIMARY KEY,
    org_id     uuid        NOT NULL,
    name       text        NOT NULL DEFAULT '',
    colors     text[]      NOT NULL DEFAULT '{}',
    logo_url   text        NOT NULL DEFAULT '',
    deleted    boolean     NOT NULL DEFAULT false,
    changed_at timestamptz NOT NULL
);
