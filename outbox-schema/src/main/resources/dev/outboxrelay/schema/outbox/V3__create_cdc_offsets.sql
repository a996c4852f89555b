-- Where the CDC source (--mode cdc --offset-store db) keeps Debezium's source offsets: the WAL position
-- Kafka has acknowledged up to. One row per offset key, per relay (--relay-name), so several relays can
-- share a database. Written after every acknowledged batch; tiny.
CREATE TABLE ${schema}."${prefix}_cdc_offsets" (
    relay_name   text        NOT NULL,
    offset_key   bytea       NOT NULL,
    offset_value bytea,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (relay_name, offset_key)
);

COMMENT ON TABLE ${schema}."${prefix}_cdc_offsets" IS 'outbox-relay CDC source offsets (Debezium), keyed by relay name';
