package dev.outboxrelay.cdc;

/** The CDC source's contract on an outbox table partitioned by hash of id, published via its root. */
class CdcRelayContractOnPartitionedTableIT extends CdcRelayContractIT {

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }
}
