package dev.outboxrelay.client;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids made later sort later and
 * land at the right edge of the primary key's index instead of all over it. Within one millisecond a 12-bit counter
 * (started at a random value) keeps ids of this JVM increasing (RFC 9562, method 1).
 */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static long lastMillis = -1;
    private static int counter;

    private UuidV7() {
    }

    /** A new UUIDv7 for now. */
    public static UUID next() {
        return next(System.currentTimeMillis());
    }

    static UUID next(long nowMillis) {
        long millis;
        int seq;
        synchronized (UuidV7.class) {
            if (nowMillis > lastMillis) {
                lastMillis = nowMillis;
                counter = RANDOM.nextInt(1 << 11); // room left to count up within the millisecond
            } else if (++counter >= 1 << 12) {
                lastMillis++; // the counter ran out: borrow the next millisecond, still increasing
                counter = 0;
            }
            millis = lastMillis;
            seq = counter;
        }
        long msb = (millis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | seq;
        long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** The Unix milliseconds a UUIDv7 was made at. */
    public static long millisOf(UUID v7) {
        if (v7.version() != 7) {
            throw new IllegalArgumentException("not a UUIDv7: " + v7);
        }
        return v7.getMostSignificantBits() >>> 16;
    }
}
