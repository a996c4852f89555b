package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.contract.BrokerOutageContract;
import dev.outboxrelay.testkit.contract.ContractSource;

/** The poll source through a broker outage. */
class PollingBrokerOutageIT extends BrokerOutageContract {

    @Override
    protected ContractSource source() {
        return PollingRelays.CONTRACT;
    }
}
