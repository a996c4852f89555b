package dev.outboxrelay.poll;

/** The poll source's contract on PostgreSQL 16. */
class PollingRelayContractOnPostgres16Test extends PollingRelayContractTest {

    @Override
    protected int postgresMajor() {
        return 16;
    }
}
