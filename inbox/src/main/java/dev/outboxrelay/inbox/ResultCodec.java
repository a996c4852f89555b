package dev.outboxrelay.inbox;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

/**
 * Turns a work's result into the bytes stored in the inbox entry ({@code result bytea}) and back, so a duplicate
 * can be answered with the first result. Keep results small: they live as long as the entry.
 *
 * @param <T> the result type
 */
public interface ResultCodec<T> {

    /** The bytes to store for {@code value} (never called with {@code null}). */
    byte[] encode(T value);

    /** The value stored as {@code bytes}. */
    T decode(byte[] bytes);

    /** Strings as UTF-8, e.g. a JSON response body. */
    static ResultCodec<String> utf8() {
        return of(s -> s.getBytes(StandardCharsets.UTF_8), b -> new String(b, StandardCharsets.UTF_8));
    }

    /** Bytes as they are. */
    static ResultCodec<byte[]> bytes() {
        return of(b -> b, b -> b);
    }

    /** A codec from two functions, e.g. a JSON mapper's {@code writeValueAsBytes} and {@code readValue}. */
    static <T> ResultCodec<T> of(Function<? super T, byte[]> encoder, Function<byte[], ? extends T> decoder) {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(decoder, "decoder");
        return new ResultCodec<>() {
            @Override
            public byte[] encode(T value) {
                return encoder.apply(value);
            }

            @Override
            public T decode(byte[] bytes) {
                return decoder.apply(bytes);
            }
        };
    }
}
