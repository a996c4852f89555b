package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.TopicFailureContract;
import java.util.Map;

/**
 * The CDC source against the topic failure class. Before, the first event for a missing topic blocked the
 * producer for 60 s and the whole stream waited until the topic existed; now its key is parked and published
 * from the table once the topic is there.
 */
class CdcTopicFailureIT extends TopicFailureContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        CdcRelays.migrate(database, table);
    }

    @Override
    protected String mode() {
        return "cdc";
    }

    @Override
    protected Map<String, String> testFlags(RelayEnvironment env) {
        return CdcRelays.testFlags(env.database());
    }
}
