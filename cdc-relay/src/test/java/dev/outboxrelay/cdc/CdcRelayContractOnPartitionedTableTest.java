package dev.outboxrelay.cdc;

/** The CDC source's contract on an outbox table partitioned by hash of id, published via its root. */
class CdcRelayContractOnPartitionedTableTest extends CdcRelayContractTest {

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }
}
