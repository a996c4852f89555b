package dev.outboxrelay.core.config;

import java.util.Objects;

/**
 * A secret configuration value. {@link #toString()} never reveals it, so a password that ends up in a log
 * statement, an exception message or a config dump prints as {@code [hidden]}.
 */
public final class Password {

    /** What every password prints as. */
    public static final String HIDDEN = "[hidden]";

    private final String value;

    private Password(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /** Wraps a secret. */
    public static Password of(String value) {
        return new Password(value);
    }

    /** The secret itself, only for handing to the driver or client that needs it. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return HIDDEN;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Password other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }
}
