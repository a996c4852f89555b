package dev.outboxrelay.daemon;

/** Minimal JSON text helpers for the endpoints and {@code status --json}; no JSON library in the daemon. */
public final class Json {

    private Json() {
    }

    /** {@code text} as a JSON string literal, or {@code null}. */
    public static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder s = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.append('"').toString();
    }
}
