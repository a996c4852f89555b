#!/bin/bash
# What the walsender charges per outbox event while it streams live to a client (pg_recvlogical) behind one writer
# (N rows in 100-row transactions, flat out), with MARK=1 also behind a concurrent marker as in the relay's mark
# mode; NOSENTIDX=1 drops the retention index on sent_at first; STRACE=1 counts the walsender's system calls;
# ORIGIN=1 (PostgreSQL 16+) runs the marker under a replication origin that pgoutput filters out (origin=none).
# Walsender CPU from /proc/<pid>/stat. Run as root after `./mvnw install -DskipTests`:
#   N=400000 [MARK=1] [BIN=/other/postgres/bin] bash bench/scripts/walsender-live.sh
# Results: bench/results/2026-12-03-walsender.md
set -e
. "$(dirname "$0")/walsender-server.sh"
[ "$NOSENTIDX" = 1 ] && $P -c "DROP INDEX outbox_sent_at_idx"
N=${N:-400000}
ORIGIN_OPT=(); MARK_SETUP=()
if [ "$ORIGIN" = 1 ]; then
  $P -c "SELECT pg_replication_origin_create('relay_marker')" >/dev/null
  ORIGIN_OPT=(-o origin=none); MARK_SETUP=(-c "SELECT pg_replication_origin_session_setup('relay_marker')")
fi
pg_recvlogical -h $W -p $PORT -U postgres -d postgres --slot s --start -o proto_version=1 -o publication_names=outbox_relay_pub "${ORIGIN_OPT[@]}" -f /dev/null &
RL=$!
sleep 1
WS=$($P -At -c "SELECT pid FROM pg_stat_replication")
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
c0=$(cpu $WS); t0=$(date +%s.%N)
if [ "$STRACE" = 1 ]; then strace -c -p $WS -o $W/strace.txt & ST=$!; sleep 0.5; fi
if [ "$MARK" = 1 ]; then
  $P "${MARK_SETUP[@]}" -c "DO \$\$ DECLARE ids uuid[]; n int := 0; BEGIN LOOP SELECT array_agg(id) INTO ids FROM (SELECT id FROM outbox WHERE sent_at IS NULL LIMIT 2048) x; IF ids IS NULL THEN PERFORM pg_sleep(0.01); n := n + 1; EXIT WHEN n > 300; CONTINUE; END IF; n := 0; UPDATE outbox SET sent_at = now() WHERE id = ANY(ids); COMMIT; END LOOP; END \$\$" &
  MK=$!
fi
$P -c "DO \$\$ BEGIN FOR b IN 0..$((N/100-1)) LOOP INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) SELECT gen_random_uuid(), 'order', 'key-' || (g % 1000), 'created', $PAYLOAD FROM generate_series(b*100+1, b*100+100) g; COMMIT; END LOOP; END \$\$"
t1=$(date +%s.%N)
[ -n "$MK" ] && wait $MK
# let the walsender finish the tail
END=$($P -At -c "SELECT pg_current_wal_lsn()")
for i in $(seq 1 100); do
  S=$($P -At -c "SELECT sent_lsn >= '$END' FROM pg_stat_replication"); [ "$S" = t ] && break; sleep 0.2
done
c1=$(cpu $WS); t2=$(date +%s.%N)
if [ -n "$ST" ]; then kill -INT $ST; wait $ST || true; fi
echo "$($P -At -c "SHOW server_version") mark=${MARK:-0} origin=${ORIGIN:-0} nosentidx=${NOSENTIDX:-0} N=$N writer $(echo "$t1 - $t0" | bc) s; walsender CPU $(( c1 - c0 )) ticks = $(echo "scale=2; ($c1 - $c0) * 10000 / $N" | bc) us/event over $(echo "$t2 - $t0" | bc) s"
kill $RL; wait $RL 2>/dev/null || true
