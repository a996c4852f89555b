package dev.outboxrelay.core.publish;

/**
 * Another instance of the same relay started a transactional producer with the same {@code transactional.id}
 * ({@link ExactlyOnce}): Kafka refuses this instance's transactions from now on. Not a bug and not an outage:
 * the instance stops publishing and stands by, whatever it had sent in its open transaction aborted.
 */
public final class FencedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FencedException(String transactionalId, Throwable cause) {
        super("another instance of relay '" + transactionalId + "' took over exactly-once publishing (producer fenced)",
                cause);
    }
}
