package dev.outboxrelay.inbox;

import java.util.Optional;

/**
 * What {@link Inbox#process} did with one event.
 *
 * @param <T> the work's result type
 */
public final class Outcome<T> {

    private final boolean ran;
    private final T firstResult;

    private Outcome(boolean ran, T firstResult) {
        this.ran = ran;
        this.firstResult = firstResult;
    }

    static <T> Outcome<T> ran(T result) {
        return new Outcome<>(true, result);
    }

    static <T> Outcome<T> duplicate(T storedResult) {
        return new Outcome<>(false, storedResult);
    }

    /** True when the work ran now; false when the event was a duplicate and the work was skipped. */
    public boolean ran() {
        return ran;
    }

    /** True when the event was already processed by this consumer and the work was skipped. */
    public boolean duplicate() {
        return !ran;
    }

    /**
     * The result of the event's first (and only) processing: the work's return value when it {@link #ran()};
     * for a duplicate, the stored result when the event was processed with a {@link ResultCodec}. Empty when
     * the work returned {@code null} or, for a duplicate, when no result was stored.
     */
    public Optional<T> firstResult() {
        return Optional.ofNullable(firstResult);
    }

    @Override
    public String toString() {
        return ran ? "Outcome[ran]" : "Outcome[duplicate]";
    }
}
