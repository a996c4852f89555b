#!/bin/bash
# How long a committed outbox insert waits before the walsender has sent it, with synchronous_commit off and on
# (40 single-row commits each, 20-70 ms apart, pg_recvlogical streaming): the walsender streams only WAL that was
# written out. WAL_WRITER_DELAY=10ms sets the server's wal_writer_delay. Run as root after
# `./mvnw install -DskipTests`:  [WAL_WRITER_DELAY=10ms] bash bench/scripts/walsender-latency.sh
# Results: bench/results/2026-12-03-walsender.md
set -e
EXTRA_CONF=${WAL_WRITER_DELAY:+wal_writer_delay=$WAL_WRITER_DELAY}
. "$(dirname "$0")/walsender-server.sh"
pg_recvlogical -h $W -p $PORT -U postgres -d postgres --slot s --start -o proto_version=1 -o publication_names=outbox_relay_pub -f /dev/null &
RL=$!
sleep 1
for sc in off on; do
$P -At -c "SET synchronous_commit = $sc" -c "CREATE TEMP TABLE lat (ms float8)" -c "DO \$\$ DECLARE l pg_lsn; t0 timestamptz; BEGIN FOR i IN 1..40 LOOP INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES (gen_random_uuid(), 'a', 'k', 'e', '{}'); COMMIT; l := pg_current_wal_insert_lsn(); t0 := clock_timestamp(); LOOP EXIT WHEN (SELECT sent_lsn FROM pg_stat_replication LIMIT 1) >= l; PERFORM pg_sleep(0.0005); END LOOP; INSERT INTO lat VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000); COMMIT; PERFORM pg_sleep(0.02 + random() * 0.05); END LOOP; END \$\$" -c "SELECT 'synchronous_commit=$sc: commit -> walsender sent, ms p50 ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' p90 ' || round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' max ' || round(max(ms)::numeric, 1) FROM lat"
done
