package dev.outboxrelay.cdc;

/**
 * The CDC source's contract on PostgreSQL 17, the version deploy/docker-compose.yml runs. Only CDC: its
 * replication protocol and pgoutput are what changes between versions; poll's plain SQL runs on 14, 15 and 18.
 */
class CdcRelayContractOnPostgres17Test extends CdcRelayContractTest {

    @Override
    protected int postgresMajor() {
        return 17;
    }
}
