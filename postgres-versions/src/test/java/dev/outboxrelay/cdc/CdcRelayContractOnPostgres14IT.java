package dev.outboxrelay.cdc;

/**
 * The CDC source's contract on PostgreSQL 14: the oldest supported version, and the last without
 * publication column lists, so the relay and migration 5 take the path without one.
 */
class CdcRelayContractOnPostgres14IT extends CdcRelayContractIT {

    @Override
    protected int postgresMajor() {
        return 14;
    }
}
