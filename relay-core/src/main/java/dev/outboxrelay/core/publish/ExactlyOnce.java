package dev.outboxrelay.core.publish;

import java.time.Duration;
import java.util.Objects;

/**
 * How a relay delivers exactly once ({@code --delivery exactly-once}): a transactional producer whose
 * {@code transactional.id} is stable across restarts and instances of the same relay (a new instance fences the
 * old one), and the state topic where each transaction also writes the rows it covers, the truth on restart.
 *
 * @param transactionalId    {@code <relay-name>.<table>}: instances and modes of one relay share it, so whichever
 *                           starts fences the others
 * @param stateTopic         compacted topic holding, per relay, the ids of the last committed transaction
 * @param stateKey           this relay's key in the state topic (the transactional id)
 * @param transactionTimeout how long the coordinator waits for a dead instance's open transaction before aborting
 *                           it (a restart of the same relay aborts it at once); read_committed consumers wait as long
 */
public record ExactlyOnce(String transactionalId, String stateTopic, String stateKey, Duration transactionTimeout) {

    /** Default transaction timeout: short, because a crashed relay's open transaction holds back consumers. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofSeconds(10);

    public ExactlyOnce {
        Objects.requireNonNull(transactionalId, "transactionalId");
        Objects.requireNonNull(stateTopic, "stateTopic");
        Objects.requireNonNull(stateKey, "stateKey");
        Objects.requireNonNull(transactionTimeout, "transactionTimeout");
    }

    /** The settings of relay {@code relayName} on {@code table} ({@code schema.table}), state in {@code stateTopic}. */
    public static ExactlyOnce of(String relayName, String table, String stateTopic) {
        String id = relayName + "." + table;
        return new ExactlyOnce(id, stateTopic, id, DEFAULT_TRANSACTION_TIMEOUT);
    }
}
