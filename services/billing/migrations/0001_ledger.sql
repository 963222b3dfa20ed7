-- The event store: one stream per account ("account-<orgId>"). The unique
-- (stream, version) pair is the optimistic-concurrency guard: two writers
-- that loaded the same version cannot both append.
CREATE TABLE events (
    stream      text        NOT NULL,
    version     bigint      NOT NULL CHECK (version > 0),
    type        text        NOT NULL,
    data        jsonb       NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream, version)
);

CREATE TABLE snapshots (
    stream   text PRIMARY KEY,
    version  bigint      NOT NULL,
    state    jsonb       NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);

-- Projections, written in the same transaction as the events and
-- rebuildable from them (billing rebuild).
CREATE TABLE balances (
    org_id        uuid PRIMARY KEY,
    tier          text        NOT NULL,
    billing_cycle text        NOT NULL,
    subscription  bigint      NOT NULL CHECK (subscription >= 0),
    purchased     bigint      NOT NULL CHECK (purchased >= 0),
    reserved      bigint      NOT NULL CHECK (reserved >= 0),
    granted       bigint      NOT NULL,
    committed     bigint      NOT NULL,
    version       bigint      NOT NULL
);

CREATE TABLE usage (
    reservation_id text PRIMARY KEY,
    org_id         uuid        NOT NULL,
    operation      text        NOT NULL,
    credits        bigint      NOT NULL CHECK (credits > 0),
    subscription   bigint      NOT NULL,
    purchased      bigint      NOT NULL,
    status         text        NOT NULL CHECK (status IN ('reserved', 'committed', 'refunded', 'expired')),
    resource_type  text        NOT NULL,
    resource_id    text        NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    settled_at     timestamptz
);
CREATE INDEX usage_org_recent ON usage (org_id, created_at DESC, reservation_id DESC);
CREATE INDEX usage_pending_expiry ON usage (expires_at) WHERE status = 'reserved';

-- A settlement that arrived before its reservation (the broker may reorder,
-- or an owner may report a failure for a reserve call that was still in
-- flight). The reservation applies it when it lands.
CREATE TABLE early_settlements (
    reservation_id text PRIMARY KEY,
    org_id         uuid        NOT NULL,
    outcome        text        NOT NULL CHECK (outcome IN ('completed', 'failed')),
    event_id       text        NOT NULL,
    received_at    timestamptz NOT NULL DEFAULT now()
);
