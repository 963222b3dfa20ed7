-- Organizations, their API keys and idempotency records of the gateway.

CREATE TABLE organizations (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    tier       text        NOT NULL,
    created_at timestamptz NOT NULL
);

-- Only the SHA-256 of a key is stored; the secret is shown once at
-- creation. The unique index on the hash is the authentication lookup.
CREATE TABLE api_keys (
    id              uuid        PRIMARY KEY,
    organization_id uuid        NOT NULL REFERENCES organizations (id),
    name            text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    prefix          text        NOT NULL,
    key_hash        bytea       NOT NULL CHECK (octet_length(key_hash) = 32),
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz,
    revoked_at      timestamptz,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);

CREATE INDEX api_keys_organization_id ON api_keys (organization_id);

-- One row per (organization, Idempotency-Key). An in_flight row is a claim
-- that blocks the key until locked_until (so a crashed gateway cannot block
-- it for a day); a done row holds the response to replay until expires_at.
CREATE TABLE idempotency_records (
    organization_id uuid        NOT NULL,
    key             text        NOT NULL CHECK (octet_length(key) BETWEEN 1 AND 255),
    fingerprint     bytea       NOT NULL CHECK (octet_length(fingerprint) = 32),
    state           text        NOT NULL CHECK (state IN ('in_flight', 'done')),
    status          integer,
    content_type    text,
    body            bytea,
    created_at      timestamptz NOT NULL,
    locked_until    timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, key),
    CHECK (state = 'in_flight' OR (status IS NOT NULL AND body IS NOT NULL))
);

CREATE INDEX idempotency_records_expires_at ON idempotency_records (expires_at);
