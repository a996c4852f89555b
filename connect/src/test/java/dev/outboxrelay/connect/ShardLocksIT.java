package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.schema.AdvisoryLocks;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tasks' advisory locks on a real PostgreSQL: shards, splits, and the daemon's lock of the same table. */
class ShardLocksIT {

    private static final OutboxTable TABLE = OutboxTable.DEFAULT;
    private TestDatabase database;

    @BeforeEach
    void setUp() {
        database = TestPostgres.shared().createDatabase("shardlocks");
    }

    @AfterEach
    void tearDown() {
        database.drop();
    }

    @Test
    void tasksOfOneSplitShareTheTableAndANewSplitWaitsForTheOldOne() throws Exception {
        try (Connection a = database.connect(); Connection b = database.connect(); Connection c = database.connect();
             Connection daemon = database.connect()) {
            assertThat(AdvisoryLocks.tryShardLocks(a, TABLE, 0, 4)).isTrue();
            assertThat(AdvisoryLocks.tryShardLocks(b, TABLE, 1, 4)).as("another shard of the same split").isTrue();
            assertThat(AdvisoryLocks.tryShardLocks(c, TABLE, 1, 4)).as("a shard taken").isFalse();
            assertThat(AdvisoryLocks.tryShardLocks(c, TABLE, 0, 2)).as("a new split while the old runs").isFalse();
            assertThat(AdvisoryLocks.tryRelayLock(daemon, TABLE)).as("a daemon beside the connector").isFalse();
            assertThat(a.getAutoCommit()).as("the session's mode is restored").isTrue();
            a.close();
            assertThat(AdvisoryLocks.tryShardLocks(c, TABLE, 0, 2)).as("one task of the old split left").isFalse();
            b.close();
            // A closed session's locks go when its backend has exited, a moment after the close.
            await().atMost(Duration.ofSeconds(10)).until(() -> AdvisoryLocks.tryShardLocks(c, TABLE, 0, 2));
            assertThat(AdvisoryLocks.tryRelayLock(daemon, TABLE)).isFalse();
        }
        try (Connection daemon = database.connect(); Connection task = database.connect()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> AdvisoryLocks.tryRelayLock(daemon, TABLE));
            assertThat(AdvisoryLocks.tryShardLocks(task, TABLE, 0, 1)).as("a task beside the daemon").isFalse();
        }
    }
}
