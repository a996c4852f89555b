package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.contract.ContractSource;
import dev.outboxrelay.testkit.contract.RelayContract;

/** The poll source against the contract every source must pass. */
class PollingRelayContractIT extends RelayContract {

    @Override
    protected ContractSource source() {
        return PollingRelays.CONTRACT;
    }
}
