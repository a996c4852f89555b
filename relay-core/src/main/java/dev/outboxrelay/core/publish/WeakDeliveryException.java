package dev.outboxrelay.core.publish;

import java.util.List;

/** Passthrough producer settings that would weaken at-least-once, per-key-ordered delivery. */
public final class WeakDeliveryException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    WeakDeliveryException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per offending setting. */
    public List<String> problems() {
        return problems;
    }
}
