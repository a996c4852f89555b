-- The inbox: one row per (consumer, event id) a consumer has processed. A row is written in the same
-- transaction as the consumer's business work, so "processed" and "recorded" commit or roll back together.
CREATE TABLE ${inbox} (
    consumer     text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    result       bytea,
    PRIMARY KEY (consumer, event_id)
);

COMMENT ON TABLE ${inbox} IS 'Idempotent consumer: event ids already processed, per consumer (outbox-relay inbox)';
COMMENT ON COLUMN ${inbox}.consumer IS 'Logical consumer name; each consumer processes every event once';
COMMENT ON COLUMN ${inbox}.event_id IS 'The event id (Kafka header id from outbox-relay)';
COMMENT ON COLUMN ${inbox}.expires_at IS 'After this the entry may be purged; must outlast every redelivery window';
COMMENT ON COLUMN ${inbox}.result IS 'Optional encoded result of the first processing, returned for duplicates';

-- Batched purge of expired entries, oldest first.
CREATE INDEX "${prefix}_expires_at_idx" ON ${inbox} (expires_at);
