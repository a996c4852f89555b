-- Operators give up on a dead letter with `dead-letters discard`: the row is kept (with who and when) for
-- audit, but it is no longer a dead letter: it neither blocks its key (--on-poison block) nor counts in
-- status and metrics, and it is never relayed (dead_lettered_at stays set, so no source fetches it).
ALTER TABLE ${outbox} ADD COLUMN discarded_at timestamptz;
ALTER TABLE ${outbox} ADD COLUMN discarded_by text;

COMMENT ON COLUMN ${outbox}.discarded_at IS 'Set when an operator discarded the dead letter; it is never relayed';
COMMENT ON COLUMN ${outbox}.discarded_by IS 'Who discarded the dead letter (dead-letters discard --by, default the OS user)';

-- Live dead letters only: the keys they block, and what status and metrics count.
DROP INDEX ${schema}."${prefix}_dead_idx";
CREATE INDEX "${prefix}_dead_idx" ON ${outbox} (aggregate_id) WHERE dead_lettered_at IS NOT NULL AND discarded_at IS NULL;
