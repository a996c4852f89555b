package dev.outboxrelay.cdc;

/** The CDC source's contract on PostgreSQL 16, between the installed 15 and 18 (back in every build: issue 39). */
class CdcRelayContractOnPostgres16IT extends CdcRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 16;
    }
}
