package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.RelayHandle;
import dev.outboxrelay.testkit.contract.TopicFailureContract;
import java.util.Map;

/** The poll source against the topic failure class (a missing topic holds only its keys). */
class PollingTopicFailureIT extends TopicFailureContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        PollingRelays.migrate(database, table);
    }

    @Override
    protected RelayHandle startRelay(RelayEnvironment env, Map<String, String> options) {
        PollingSource source = PollingRelays.start(PollingRelays.settings(env.table(), options).build(),
                env.database(), env.kafkaBootstrap(), options, Map.of(), RelayListener.none());
        return source::close;
    }
}
