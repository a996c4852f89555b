package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.RelayHandle;
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
    protected RelayHandle startRelay(RelayEnvironment env, Map<String, String> options) {
        OutboxSource source = CdcRelays.start(CdcRelays.settings(env.database(), env.table(), options).build(),
                env.kafkaBootstrap(), options, RelayListener.none());
        return source::close;
    }
}
