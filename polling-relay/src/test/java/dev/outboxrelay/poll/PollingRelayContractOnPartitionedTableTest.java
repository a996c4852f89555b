package dev.outboxrelay.poll;

/** The poll source's contract on an outbox table partitioned by hash of id. */
class PollingRelayContractOnPartitionedTableTest extends PollingRelayContractTest {

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }
}
