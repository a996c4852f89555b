package dev.outboxrelay.poll;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayContract;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import java.util.Map;

/** The poll source against the contract every source must pass. */
class PollingRelayContractIT extends RelayContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        PollingRelays.migrate(database, table);
    }

    @Override
    protected String mode() {
        return "poll";
    }

    @Override
    protected Map<String, String> testFlags(RelayEnvironment env) {
        return PollingRelays.TEST_FLAGS;
    }
}
