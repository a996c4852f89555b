#!/bin/bash
# What PostgreSQL 15's logical decoding (pgoutput) charges per outbox change, without a network: decodes in a
# plain backend with pg_logical_slot_get_binary_changes after N inserts (100-row transactions), after marking them
# (2048-row UPDATE ... WHERE id = ANY, as the relay marks) and after deleting them, with the publication's six
# columns and with all of them; 3 rounds. Run as root (PostgreSQL runs as the postgres user) after
# `./mvnw install -DskipTests`:  N=200000 bash bench/scripts/walsender-decode.sh
# Results: bench/results/2026-12-03-walsender.md
set -e
. "$(dirname "$0")/walsender-server.sh"
N=${N:-200000}
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
