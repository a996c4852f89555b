-- The CDC source reads six columns of each inserted row. Without a column list, pgoutput sends all of them
-- (created_at, seq, attempts, ...): the walsender renders each as text and Debezium decodes each, per event,
-- for nothing. PostgreSQL 15 added column lists to publications; older servers keep publishing every column.
-- A publication that no longer holds the table is left alone: the CDC relay names what is missing at start.
-- PostgreSQL refuses a column list for a partitioned table published per partition; the relay streams only the
-- table's own name and refuses such a publication anyway, so its rows are published under the table's name first.
DO $v5$
BEGIN
    IF current_setting('server_version_num')::int >= 150000 AND EXISTS (
            SELECT 1 FROM pg_publication p JOIN pg_publication_rel r ON r.prpubid = p.oid
            WHERE p.pubname = '${publicationname}' AND r.prrelid = '${outbox}'::regclass) THEN
        EXECUTE 'ALTER PUBLICATION ${publication} DROP TABLE ${outbox}';
        IF EXISTS (SELECT 1 FROM pg_class WHERE oid = '${outbox}'::regclass AND relkind = 'p') THEN
            EXECUTE 'ALTER PUBLICATION ${publication} SET (publish_via_partition_root = true)';
        END IF;
        EXECUTE 'ALTER PUBLICATION ${publication} ADD TABLE ${outbox} (id, aggregate_type, aggregate_id, event_type, payload, headers)';
    END IF;
END
$v5$;
