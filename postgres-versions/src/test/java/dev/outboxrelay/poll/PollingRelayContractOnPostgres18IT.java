package dev.outboxrelay.poll;

/** The poll source's contract on PostgreSQL 18, the newest version. */
class PollingRelayContractOnPostgres18IT extends PollingRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 18;
    }
}
