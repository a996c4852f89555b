-- A key held for a retry keeps its hold across a restart or a takeover: when a row fails through its own fault and
-- is not dead-lettered yet, the relay sets retry_at to the end of its backoff, and whoever relays the table next
-- publishes nothing of that key before then. NULL for every row that never failed; a catalog-only change.
ALTER TABLE ${outbox} ADD COLUMN retry_at timestamptz;

COMMENT ON COLUMN ${outbox}.retry_at IS 'Set by the relay: the key''s events wait until then for this row''s next attempt';

-- What a relay reads when it becomes active: the unsent rows still held. Tiny: rows that failed and wait.
CREATE INDEX "${prefix}_retry_idx" ON ${outbox} (retry_at)
    WHERE retry_at IS NOT NULL AND sent_at IS NULL AND dead_lettered_at IS NULL;
