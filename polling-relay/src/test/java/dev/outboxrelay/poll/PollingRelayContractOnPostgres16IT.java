package dev.outboxrelay.poll;

/** The poll source's contract on PostgreSQL 16. */
class PollingRelayContractOnPostgres16IT extends PollingRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 16;
    }
}
