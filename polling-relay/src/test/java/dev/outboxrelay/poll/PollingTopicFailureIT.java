package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.contract.ContractSource;
import dev.outboxrelay.testkit.contract.TopicFailureContract;

/** The poll source against the topic failure class (a missing topic holds only its keys). */
class PollingTopicFailureIT extends TopicFailureContract {

    @Override
    protected ContractSource source() {
        return PollingRelays.CONTRACT;
    }
}
