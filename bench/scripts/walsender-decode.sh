#!/bin/bash
# What PostgreSQL 15's logical decoding (pgoutput) charges per outbox change, without a network: decodes in a
# plain backend with pg_logical_slot_get_binary_changes after N inserts (100-row transactions), after marking them
# (2048-row UPDATE ... WHERE id = ANY, as the relay marks) and after deleting them, with the publication's six
# columns and with all of them; 3 rounds. Run as root (PostgreSQL runs as the postgres user) after
# `./mvnw install -DskipTests`:  N=200000 bash bench/scripts/walsender-decode.sh
# Results: bench/results/2026-12-03-walsender.md
set -e
W=${W:-/tmp/walsender-probe}
JAR=${JAR:-$(cd "$(dirname "$0")/../.." && pwd)/relay/target/outbox-relay.jar}
mkdir -p $W && chown postgres $W
BIN=/usr/lib/postgresql/15/bin
D=$W/data; PORT=55439
rm -rf $D; mkdir -p $D; chown postgres $D
runuser -u postgres -- $BIN/initdb -D $D -A trust -U postgres >/dev/null
cat >> $D/postgresql.conf <<C
port=$PORT
wal_level=logical
fsync=off
synchronous_commit=off
full_page_writes=off
shared_buffers=128MB
max_wal_size=4GB
autovacuum=off
unix_socket_directories='$W'
C
runuser -u postgres -- $BIN/pg_ctl -D $D -l $D/../pg.log -w start >/dev/null
trap 'runuser -u postgres -- $BIN/pg_ctl -D $D -m immediate stop >/dev/null 2>&1 || true' EXIT
P="psql -h $W -p $PORT -U postgres -X -q -v ON_ERROR_STOP=1"
java -jar "$JAR" migrate --print > $W/schema.sql
$P -f $W/schema.sql >/dev/null
$P -c "SELECT 1 FROM pg_create_logical_replication_slot('s', 'pgoutput')" >/dev/null
N=${N:-200000}
PAYLOAD="jsonb_build_object('orderId', g, 'customer', 'customer-' || (g % 997), 'currency', 'EUR', 'total', g * 1.5, 'items', jsonb_build_array(jsonb_build_object('sku', 'sku-' || (g % 101), 'qty', 1 + g % 5, 'price', 12.5), jsonb_build_object('sku', 'sku-' || (g % 103), 'qty', 2, 'price', 7.25)), 'note', repeat('x', 90))"
insert() { # 100-row transactions
  $P -c "DO \$\$ BEGIN FOR b IN 0..$((N/100-1)) LOOP INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) SELECT gen_random_uuid(), 'order', 'key-' || (g % 1000), 'created', $PAYLOAD FROM generate_series(b*100+1, b*100+100) g; COMMIT; END LOOP; END \$\$"
}
mark() { # 2048-row UPDATE ... WHERE id = ANY, as the relay marks
  $P -c "DO \$\$ DECLARE ids uuid[]; BEGIN LOOP SELECT array_agg(id) INTO ids FROM (SELECT id FROM outbox WHERE sent_at IS NULL LIMIT 2048) x; EXIT WHEN ids IS NULL; UPDATE outbox SET sent_at = now() WHERE id = ANY(ids); COMMIT; END LOOP; END \$\$"
}
del() {
  $P -c "DO \$\$ DECLARE ids uuid[]; BEGIN LOOP SELECT array_agg(id) INTO ids FROM (SELECT id FROM outbox LIMIT 2048) x; EXIT WHEN ids IS NULL; DELETE FROM outbox WHERE id = ANY(ids); COMMIT; END LOOP; END \$\$"
}
decode() { # prints ms to decode everything since the last call, and the messages
  $P -At -c "\\timing on" -c "SELECT count(*) FROM pg_logical_slot_get_binary_changes('s', NULL, NULL, 'proto_version', '1', 'publication_names', 'outbox_relay_pub')" | tr '\n' ' '
  echo
}
cols() { $P -At -c "SELECT array_length(attnames, 1) FROM pg_publication_tables WHERE pubname = 'outbox_relay_pub'"; }
decode >/dev/null
for round in 1 2 3; do
  for list in six all; do
    if [ $list = all ]; then
      $P -c "ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox; ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox"
    else
      $P -c "ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox; ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox (id, aggregate_type, aggregate_id, event_type, payload, headers)"
    fi
    fresh() { $P -c "CHECKPOINT"; decode >/dev/null; $P -c "CHECKPOINT"; decode >/dev/null; }
    fresh; insert; echo "round $round columns=$(cols) insert: $(decode)"
    fresh; mark;   echo "round $round columns=$(cols) mark:   $(decode)"
    fresh; del;    echo "round $round columns=$(cols) delete: $(decode)"
    fresh;         echo "round $round columns=$(cols) nothing: $(decode)"
    $P -c "VACUUM outbox" 
  done
done
runuser -u postgres -- $BIN/pg_ctl -D $D -m fast stop >/dev/null
