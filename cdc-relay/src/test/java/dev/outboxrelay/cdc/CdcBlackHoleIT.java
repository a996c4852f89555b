package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.contract.BlackHoleContract;
import dev.outboxrelay.testkit.contract.ContractSource;

/** The CDC source (its ordinary and replication sessions) behind a black-holed database path. */
class CdcBlackHoleIT extends BlackHoleContract {

    @Override
    protected ContractSource source() {
        return CdcRelays.CONTRACT;
    }
}
