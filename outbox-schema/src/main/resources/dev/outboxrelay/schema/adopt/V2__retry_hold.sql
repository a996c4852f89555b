-- As outbox step 6: a key held for a retry keeps its hold across a restart or a takeover (retry_at, set by the
-- relay when a row fails through its own fault). A catalog-only change and a small partial index.
ALTER TABLE ${outbox} ADD COLUMN retry_at timestamptz;

COMMENT ON COLUMN ${outbox}.retry_at IS 'Set by outbox-relay: the key''s events wait until then for this row''s next attempt';

CREATE INDEX "${prefix}_retry_idx" ON ${outbox} (retry_at)
    WHERE retry_at IS NOT NULL AND sent_at IS NULL AND dead_lettered_at IS NULL;
