package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.contract.BlackHoleContract;
import dev.outboxrelay.testkit.contract.ContractSource;

/** The poll source behind a black-holed database path. */
class PollingBlackHoleIT extends BlackHoleContract {

    @Override
    protected ContractSource source() {
        return PollingRelays.CONTRACT;
    }
}
