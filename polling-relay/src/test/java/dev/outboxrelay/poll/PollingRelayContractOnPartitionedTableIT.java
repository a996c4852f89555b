package dev.outboxrelay.poll;

/** The poll source's contract on an outbox table partitioned by hash of id. */
class PollingRelayContractOnPartitionedTableIT extends PollingRelayContractIT {

    @Override
    protected boolean partitionedOutbox() {
        return true;
    }
}
