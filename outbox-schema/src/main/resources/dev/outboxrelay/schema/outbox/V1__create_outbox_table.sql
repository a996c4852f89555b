-- The outbox table. Applications write only the contract columns (id .. created_at); everything below
-- "relay bookkeeping" has a default and is maintained by the relay.
CREATE TABLE ${outbox} (
    id               uuid        PRIMARY KEY,
    aggregate_type   text        NOT NULL,
    aggregate_id     text        NOT NULL,
    event_type       text        NOT NULL,
    payload          jsonb,
    headers          jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- relay bookkeeping
    seq              bigint      GENERATED ALWAYS AS IDENTITY,
    sent_at          timestamptz,
    attempts         integer     NOT NULL DEFAULT 0,
    last_error       text,
    dead_lettered_at timestamptz
);

COMMENT ON TABLE ${outbox} IS 'Transactional outbox: rows are relayed to Kafka by outbox-relay';
COMMENT ON COLUMN ${outbox}.seq IS 'Insertion order; the poll source publishes each key in this order';
COMMENT ON COLUMN ${outbox}.sent_at IS 'Set by the relay after Kafka acknowledged the record';
COMMENT ON COLUMN ${outbox}.attempts IS 'Failed publish attempts so far';
COMMENT ON COLUMN ${outbox}.last_error IS 'Why the last publish attempt failed';
COMMENT ON COLUMN ${outbox}.dead_lettered_at IS 'Set when the row gave up after max attempts; kept for operators';

-- What the poll source claims: unsent, not dead, oldest first.
CREATE INDEX "${prefix}_unsent_idx" ON ${outbox} (seq) WHERE sent_at IS NULL AND dead_lettered_at IS NULL;
-- Retention purge of sent rows.
CREATE INDEX "${prefix}_sent_at_idx" ON ${outbox} (sent_at) WHERE sent_at IS NOT NULL;
-- Dead letters, and the keys blocked behind them.
CREATE INDEX "${prefix}_dead_idx" ON ${outbox} (aggregate_id) WHERE dead_lettered_at IS NOT NULL;

-- The CDC source streams inserts only: the relay's own marking (UPDATE) and applications' deletes are
-- never part of the stream, and an insert deleted in the same transaction is still published.
CREATE PUBLICATION ${publication} FOR TABLE ${outbox} WITH (publish = 'insert');
