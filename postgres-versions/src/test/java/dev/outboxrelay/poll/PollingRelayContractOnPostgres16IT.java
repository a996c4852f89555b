package dev.outboxrelay.poll;

/** The poll source's contract on PostgreSQL 16, between the installed 15 and 18 (back in every build: issue 39). */
class PollingRelayContractOnPostgres16IT extends PollingRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 16;
    }
}
