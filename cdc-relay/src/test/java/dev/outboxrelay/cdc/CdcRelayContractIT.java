package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.RelayContract;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.RelayHandle;
import java.util.Map;

/** The CDC source against the contract every source must pass. */
class CdcRelayContractIT extends RelayContract {

    @Override
    protected void migrate(TestDatabase database, String table) throws Exception {
        CdcRelays.migrate(database, table);
    }

    @Override
    protected RelayHandle startRelay(RelayEnvironment env, Map<String, String> options) {
        OutboxSource source = CdcRelays.start(CdcRelays.settings(env.database(), env.table(), options).build(),
                env.kafkaBootstrap(), options, RelayListener.none());
        return source::close;
    }
}
