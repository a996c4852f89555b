# Sourced by the walsender-*.sh scripts: starts a throwaway PostgreSQL 15 (or the server in $BIN; wal_level=logical, fsync off,
# asynchronous commit unless the caller's EXTRA_CONF says otherwise) as the postgres user in $W, applies the relay's
# schema (`migrate --print` of the built jar) and creates the logical slot `s`. Defines $P (psql) and $PAYLOAD (a
# 286-byte JSON payload over generate_series' g); the server stops when the calling script exits.
W=${W:-/tmp/walsender-probe}
JAR=${JAR:-$(cd "$(dirname "$0")/../.." && pwd)/relay/target/outbox-relay.jar}
BIN=${BIN:-/usr/lib/postgresql/15/bin}
D=$W/data; PORT=55439
mkdir -p $W && chown postgres $W
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
${EXTRA_CONF:-}
C
runuser -u postgres -- $BIN/pg_ctl -D $D -l $W/pg.log -w start >/dev/null
trap 'kill ${RL:-} 2>/dev/null || true; runuser -u postgres -- $BIN/pg_ctl -D $D -m immediate stop >/dev/null 2>&1 || true' EXIT
P="psql -h $W -p $PORT -U postgres -X -q -v ON_ERROR_STOP=1"
java -jar "$JAR" migrate --print > $W/schema.sql
$P -f $W/schema.sql >/dev/null 2>&1
$P -c "SELECT 1 FROM pg_create_logical_replication_slot('s', 'pgoutput')" >/dev/null
PAYLOAD="jsonb_build_object('orderId', g, 'customer', 'customer-' || (g % 997), 'currency', 'EUR', 'total', g * 1.5, 'items', jsonb_build_array(jsonb_build_object('sku', 'sku-' || (g % 101), 'qty', 1 + g % 5, 'price', 12.5), jsonb_build_object('sku', 'sku-' || (g % 103), 'qty', 2, 'price', 7.25)), 'note', repeat('x', 90))"
