package dev.outboxrelay.core.delivery;

/** What happens to later events of a key after one of its rows is dead-lettered; the same in every mode. */
public enum OnPoison {
    /** Later events of the key wait until an operator resolves the dead letter (keeps per-key order). */
    BLOCK,
    /** Later events of the key flow on; the dead letter stays in the table for an operator. */
    SKIP
}
