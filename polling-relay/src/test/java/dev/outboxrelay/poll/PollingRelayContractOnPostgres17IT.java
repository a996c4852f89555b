package dev.outboxrelay.poll;

/** The poll source's contract on PostgreSQL 17, the version deploy/docker-compose.yml runs. */
class PollingRelayContractOnPostgres17IT extends PollingRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 17;
    }
}
