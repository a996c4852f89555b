package dev.outboxrelay.core.publish;

import java.util.Locale;

/** Recognizes configuration keys that carry secrets, so dumps and logs can mask them. */
public final class Secrets {

    /** What a masked value prints as. */
    public static final String MASK = "[hidden]";

    private Secrets() {
    }

    /** True for keys such as {@code sasl.jaas.config}, {@code ssl.keystore.password} or {@code *.secret}. */
    public static boolean looksSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("jaas") || k.contains("token")
                || k.contains("credential") || k.endsWith(".key") || k.contains("private");
    }
}
