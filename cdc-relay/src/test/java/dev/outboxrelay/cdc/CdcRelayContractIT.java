package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayContract;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import java.util.Map;

/** The CDC source against the contract every source must pass. */
class CdcRelayContractIT extends RelayContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        CdcRelays.migrate(database, table);
    }

    @Override
    protected String mode() {
        return "cdc";
    }

    @Override
    protected Map<String, String> testFlags(RelayEnvironment env) {
        return CdcRelays.testFlags(env.database());
    }
}
