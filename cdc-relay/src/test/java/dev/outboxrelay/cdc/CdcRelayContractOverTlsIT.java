package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.contract.TlsChecks;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CDC source's contract on a TLS-only PostgreSQL: the relay verifies the server's certificate and host name
 * ({@code sslmode=verify-full}) and logs in with its client certificate, all from the JDBC URL, on its ordinary
 * connections and on Debezium's replication connections alike.
 */
class CdcRelayContractOverTlsIT extends CdcRelayContractIT {

    @Override
    protected TestPostgres postgres() {
        return TestPostgres.sharedTls();
    }

    @Test
    void theServerRefusesConnectionsWithoutTls() {
        TlsChecks.refusesPlainConnections(postgres());
    }

    @Test
    void everySessionOfTheRelayUsesTlsWithItsClientCertificate() throws Exception {
        relay(Map.of());
        TlsChecks.relaySessionsUseTlsAndStayUp(database(), true);
    }

    @Test
    void aUrlWithSeveralHostsConnectsToTheOneTheDriverPicks() throws Exception {
        String url = TlsChecks.multiHostUrl(database());
        relay(Map.of("db-url", url));
        TlsChecks.relaySessionsUseTlsAndStayUp(database(), true);
    }
}
