package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.contract.BrokerOutageContract;
import dev.outboxrelay.testkit.contract.ContractSource;

/** The CDC source through a broker outage. */
class CdcBrokerOutageIT extends BrokerOutageContract {

    @Override
    protected ContractSource source() {
        return CdcRelays.CONTRACT;
    }
}
