package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.contract.BlackHoleContract;
import dev.outboxrelay.testkit.contract.ContractSource;

/** The CDC source behind a black-holed database path (replication and ordinary sessions alike). */
class CdcBlackHoleIT extends BlackHoleContract {

    @Override
    protected ContractSource source() {
        return CdcRelays.CONTRACT;
    }
}
