-- Endpoints: where an organization's events go. The secrets are kept as
-- given (a receiver needs the same key to check a signature); the
-- service's schema is reachable by its own role only.
CREATE TABLE endpoints (
    id                         uuid PRIMARY KEY,
    org_id                     uuid NOT NULL,
    url                        text NOT NULL,
    description                text NOT NULL DEFAULT '',
    event_types                text[] NOT NULL,
    enabled                    boolean NOT NULL,
    credits_low                bigint NOT NULL,
    credits_low_armed          boolean NOT NULL DEFAULT true,
    credits_version            bigint NOT NULL DEFAULT 0,
    secret                     text NOT NULL,
    previous_secret            text NOT NULL DEFAULT '',
    previous_secret_expires_at timestamptz,
    failures                   integer NOT NULL DEFAULT 0,
    failing_since              timestamptz,
    disabled_reason            text NOT NULL DEFAULT '',
    -- A dispatcher serving the endpoint holds it until lease_until.
    lease_until                timestamptz NOT NULL DEFAULT '-infinity',
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL
);
CREATE INDEX endpoints_org ON endpoints (org_id, created_at DESC, id DESC);

-- Deliveries: one message to one endpoint. The body is stored as sent, so
-- every attempt signs the same bytes.
CREATE TABLE deliveries (
    seq             bigserial UNIQUE,
    id              uuid PRIMARY KEY,
    endpoint_id     uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    org_id          uuid NOT NULL,
    event_id        text NOT NULL,
    event_type      text NOT NULL,
    occurred_at     timestamptz NOT NULL,
    body            text NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    window_start    timestamptz NOT NULL,
    last_code       integer NOT NULL DEFAULT 0,
    last_latency_ms double precision NOT NULL DEFAULT 0,
    last_error      text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    delivered_at    timestamptz,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX deliveries_due ON deliveries (endpoint_id, occurred_at, seq) WHERE status = 'pending';
CREATE INDEX deliveries_due_at ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_listing ON deliveries (endpoint_id, created_at DESC, seq DESC);

CREATE TABLE attempts (
    delivery_id  uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    n            integer NOT NULL,
    attempted_at timestamptz NOT NULL,
    code         integer NOT NULL,
    latency_ms   double precision NOT NULL,
    error        text NOT NULL,
    response     text NOT NULL,
    PRIMARY KEY (delivery_id, n)
);
