package dev.outboxrelay.cdc;

/** The CDC source's contract on a partitioned outbox table on PostgreSQL 14 (no publication column lists). */
class CdcRelayContractOnPartitionedTableOnPostgres14IT extends CdcRelayContractOnPartitionedTableIT {

    @Override
    protected int postgresMajor() {
        return 14;
    }
}
