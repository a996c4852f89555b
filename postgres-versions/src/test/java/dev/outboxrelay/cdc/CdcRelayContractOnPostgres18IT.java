package dev.outboxrelay.cdc;

/** The CDC source's contract on PostgreSQL 18, the newest version. */
class CdcRelayContractOnPostgres18IT extends CdcRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 18;
    }
}
