package dev.outboxrelay.cdc;

/** The CDC source's contract on PostgreSQL 17, the version deploy/docker-compose.yml runs. */
class CdcRelayContractOnPostgres17IT extends CdcRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 17;
    }
}
