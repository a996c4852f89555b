package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.contract.ContractSource;
import dev.outboxrelay.testkit.contract.RelayContract;

/** The CDC source against the contract every source must pass. */
class CdcRelayContractIT extends RelayContract {

    @Override
    protected ContractSource source() {
        return CdcRelays.CONTRACT;
    }
}
