#!/bin/bash
# How long a committed outbox insert waits before the walsender has sent it, with synchronous_commit off and on
# (40 single-row commits each, 20-70 ms apart, pg_recvlogical streaming): the walsender streams only WAL that was
# written out. WAL_WRITER_DELAY=10ms sets the server's wal_writer_delay. Run as root after
# `./mvnw install -DskipTests`:  [WAL_WRITER_DELAY=10ms] bash bench/scripts/walsender-latency.sh
# Results: bench/results/2026-12-03-walsender.md
set -e
W=${W:-/tmp/walsender-probe}
JAR=${JAR:-$(cd "$(dirname "$0")/../.." && pwd)/relay/target/outbox-relay.jar}
mkdir -p $W && chown postgres $W
BIN=/usr/lib/postgresql/15/bin; D=$W/data; PORT=55439
rm -rf $D; mkdir -p $D; chown postgres $D
runuser -u postgres -- $BIN/initdb -D $D -A trust -U postgres >/dev/null
cat >> $D/postgresql.conf <<C
port=$PORT
wal_level=logical
fsync=off
synchronous_commit=off
full_page_writes=off
unix_socket_directories='$W'
C
[ -n "$WAL_WRITER_DELAY" ] && echo "wal_writer_delay=$WAL_WRITER_DELAY" >> $D/postgresql.conf
runuser -u postgres -- $BIN/pg_ctl -D $D -l $W/pg.log -w start >/dev/null
trap 'kill $RL 2>/dev/null; runuser -u postgres -- $BIN/pg_ctl -D $D -m immediate stop >/dev/null 2>&1 || true' EXIT
P="psql -h $W -p $PORT -U postgres -X -q -v ON_ERROR_STOP=1"
java -jar "$JAR" migrate --print > $W/schema.sql
$P -f $W/schema.sql >/dev/null 2>&1
$P -c "SELECT 1 FROM pg_create_logical_replication_slot('s', 'pgoutput')" >/dev/null
pg_recvlogical -h $W -p $PORT -U postgres -d postgres --slot s --start -o proto_version=1 -o publication_names=outbox_relay_pub -f /dev/null &
RL=$!
sleep 1
for sc in off on; do
$P -At -c "SET synchronous_commit = $sc" -c "CREATE TEMP TABLE lat (ms float8)" -c "DO \$\$ DECLARE l pg_lsn; t0 timestamptz; BEGIN FOR i IN 1..40 LOOP INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES (gen_random_uuid(), 'a', 'k', 'e', '{}'); COMMIT; l := pg_current_wal_insert_lsn(); t0 := clock_timestamp(); LOOP EXIT WHEN (SELECT sent_lsn FROM pg_stat_replication LIMIT 1) >= l; PERFORM pg_sleep(0.0005); END LOOP; INSERT INTO lat VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000); COMMIT; PERFORM pg_sleep(0.02 + random() * 0.05); END LOOP; END \$\$" -c "SELECT 'synchronous_commit=$sc: commit -> walsender sent, ms p50 ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' p90 ' || round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' max ' || round(max(ms)::numeric, 1) FROM lat"
done
