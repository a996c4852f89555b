package dev.outboxrelay.cdc;

/**
 * The CDC source's contract on PostgreSQL 16, the first with pgoutput's {@code origin} option and logical decoding
 * on standbys (neither used by the relay; its publication and slot must work the same).
 */
class CdcRelayContractOnPostgres16IT extends CdcRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 16;
    }
}
