-- Adopts ${tablename}, an existing table (e.g. Debezium's outbox table), so outbox-relay can relay it in poll
-- mode and mark rows: the relay's bookkeeping columns, its indexes, the insert notification, the CDC offsets
-- table and the publication. The application keeps writing the columns it writes today.
--
-- Cost, for the DBA. The table is not rewritten: columns are added without volatile defaults, which changes the
-- catalog only. But everything below runs in one transaction, and its first ALTER TABLE takes an ACCESS
-- EXCLUSIVE lock that is held until COMMIT: reads and writes of the table wait for the whole script, which lasts
-- about three scans of the table (one per CREATE INDEX): milliseconds for the small tables outboxes usually are,
-- longer for one that kept every event. Run it when no long transaction holds the table (the lock waits for it).
--
-- Rows already in the table count as sent, at the time of adoption: the relay publishes rows written after it.
-- The relay's retention purge (--retention, default 7 days) deletes sent rows, these included, once older.
DO $adopt$
DECLARE
    t regclass := pg_catalog.to_regclass('${outbox}');
    col record;
    found text;
BEGIN
    IF t IS NULL THEN
        RAISE EXCEPTION 'outbox-relay: table ${tablename} does not exist';
    END IF;
    FOR col IN SELECT * FROM (VALUES ${expected}) AS e(name, types, required) LOOP
        SELECT pg_catalog.format_type(a.atttypid, NULL) INTO found FROM pg_catalog.pg_attribute a
            WHERE a.attrelid = t AND a.attname = col.name AND a.attnum > 0 AND NOT a.attisdropped;
        IF found IS NULL AND col.required THEN
            RAISE EXCEPTION 'outbox-relay: table ${tablename} has no column %: check --table-format and --column',
                col.name;
        ELSIF found IS NOT NULL AND NOT found = ANY (pg_catalog.string_to_array(col.types, ',')) THEN
            RAISE EXCEPTION 'outbox-relay: column % of ${tablename} is %, the relay needs %', col.name, found,
                pg_catalog.replace(col.types, ',', ' or ');
        END IF;
    END LOOP;
    SELECT pg_catalog.string_agg(a.attname, ', ') INTO found FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = t AND a.attnum > 0 AND NOT a.attisdropped
        AND a.attname IN ('seq', 'sent_at', 'attempts', 'last_error', 'dead_lettered_at', 'discarded_at',
                          'discarded_by');
    IF found IS NOT NULL THEN
        RAISE EXCEPTION 'outbox-relay: table ${tablename} already has column(s) %, which the relay would add', found;
    END IF;
END
$adopt$;

ALTER TABLE ${outbox}
    ADD COLUMN seq bigint,
    ADD COLUMN sent_at timestamptz DEFAULT pg_catalog.now(),
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN last_error text,
    ADD COLUMN dead_lettered_at timestamptz,
    ADD COLUMN discarded_at timestamptz,
    ADD COLUMN discarded_by text,
    ADD COLUMN IF NOT EXISTS ${createdat} timestamptz NOT NULL DEFAULT pg_catalog.now();
-- Existing rows keep the adoption time as sent_at; new rows start unsent. seq numbers new rows in the order they
-- draw it (CACHE 1, which the poll source's commit horizon needs); existing rows, all sent, have none.
ALTER TABLE ${outbox} ALTER COLUMN sent_at DROP DEFAULT;
CREATE SEQUENCE ${seqsequence} CACHE 1 OWNED BY ${outbox}.seq;
ALTER TABLE ${outbox} ALTER COLUMN seq SET DEFAULT pg_catalog.nextval('${seqsequence}');

CREATE INDEX IF NOT EXISTS "${prefix}_unsent_idx" ON ${outbox} (seq) WHERE sent_at IS NULL AND dead_lettered_at IS NULL;
CREATE INDEX IF NOT EXISTS "${prefix}_sent_at_idx" ON ${outbox} (sent_at) WHERE sent_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS "${prefix}_dead_idx" ON ${outbox} (${aggregateid})
    WHERE dead_lettered_at IS NOT NULL AND discarded_at IS NULL;

CREATE FUNCTION ${notifyfunction}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('${channel}', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER "${prefix}_relay_notify" AFTER INSERT ON ${outbox}
    FOR EACH STATEMENT EXECUTE FUNCTION ${notifyfunction}();

CREATE TABLE ${schema}."${prefix}_cdc_offsets" (
    relay_name   text        NOT NULL,
    offset_key   bytea       NOT NULL,
    offset_value bytea,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (relay_name, offset_key)
);

-- Inserts only, and on PostgreSQL 15+ only the columns the CDC source reads. An existing publication of that name
-- (e.g. Debezium's own) is left as it is: the CDC relay checks at start that it publishes what it reads.
DO $pub$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = '${publicationname}') THEN
        IF current_setting('server_version_num')::int >= 150000 THEN
            EXECUTE 'CREATE PUBLICATION ${publication} FOR TABLE ${outbox} (${streamed}) WITH (publish = ''insert'')';
        ELSE
            EXECUTE 'CREATE PUBLICATION ${publication} FOR TABLE ${outbox} WITH (publish = ''insert'')';
        END IF;
    END IF;
END
$pub$;
