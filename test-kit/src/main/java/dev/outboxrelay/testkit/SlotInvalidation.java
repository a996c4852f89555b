package dev.outboxrelay.testkit;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

/**
 * Makes PostgreSQL invalidate an inactive replication slot for real, for one of its reasons:
 * {@code wal_removed} ({@code max_slot_wal_keep_size}, every version) or {@code idle_timeout}
 * ({@code idle_replication_slot_timeout}, PostgreSQL 18). The setting is changed on the database's whole server
 * for the moment of the invalidation only, so run it where no other test uses that server at the same time.
 */
public final class SlotInvalidation {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private SlotInvalidation() {
    }

    /** Invalidates {@code slot} of {@code db}'s server and returns once its {@code wal_status} is {@code lost}. */
    public static void invalidate(TestDatabase db, String slot, String reason) {
        String setting = switch (reason) {
            case "idle_timeout" -> "idle_replication_slot_timeout = '1s'";
            case "wal_removed" -> "max_slot_wal_keep_size = '1MB'";
            default -> throw new IllegalArgumentException("unknown invalidation reason " + reason);
        };
        db.execute("ALTER SYSTEM SET " + setting);
        db.execute("SELECT pg_reload_conf()");
        try {
            // The checkpointer invalidates: after the slot was idle for a second, or its WAL segment fell behind the
            // limit (a segment switch per round moves the WAL on).
            await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
                db.execute("SELECT pg_switch_wal()");
                db.execute("CHECKPOINT");
                return "lost".equals(db.queryString("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '"
                        + slot + "'"));
            });
        } finally {
            db.execute("ALTER SYSTEM RESET " + setting.substring(0, setting.indexOf(' ')));
            db.execute("SELECT pg_reload_conf()");
        }
    }
}
