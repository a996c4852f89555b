package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.contract.ContractSource;
import dev.outboxrelay.testkit.contract.TopicFailureContract;

/**
 * The CDC source against the topic failure class. Before, the first event for a missing topic blocked the
 * producer for 60 s and the whole stream waited until the topic existed; now its key is parked and published
 * from the table once the topic is there.
 */
class CdcTopicFailureIT extends TopicFailureContract {

    @Override
    protected ContractSource source() {
        return CdcRelays.CONTRACT;
    }
}
