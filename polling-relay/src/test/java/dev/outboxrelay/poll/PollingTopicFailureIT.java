package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.TopicFailureContract;
import java.util.Map;

/** The poll source against the topic failure class (a missing topic holds only its keys). */
class PollingTopicFailureIT extends TopicFailureContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        PollingRelays.migrate(database, table);
    }

    @Override
    protected String mode() {
        return "poll";
    }

    @Override
    protected Map<String, String> testFlags(RelayEnvironment env) {
        return PollingRelays.TEST_FLAGS;
    }
}
