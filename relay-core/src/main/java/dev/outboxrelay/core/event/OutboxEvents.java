package dev.outboxrelay.core.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Builds {@link OutboxEvent}s from column values as the sources read them (jsonb arrives as text). */
public final class OutboxEvents {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OutboxEvents() {
    }

    /**
     * Validates and converts one row.
     *
     * @param payload     the payload column as read: text ({@code String}), {@code bytea} ({@code byte[]}) or
     *                    {@code null}
     * @param headersJson the {@code headers} column as JSON text, or {@code null}
     * @throws MalformedEventException when {@code headers} is not a flat JSON object of strings
     */
    public static OutboxEvent fromRow(UUID id, String aggregateType, String aggregateId, String eventType,
                                      Object payload, String headersJson, Instant createdAt)
            throws MalformedEventException {
        return fromRow(id, aggregateType, aggregateId, eventType, payload, headersJson, createdAt, null);
    }

    /** {@link #fromRow} with the table's other columns the relay reads, by name (see {@link #column}). */
    public static OutboxEvent fromRow(UUID id, String aggregateType, String aggregateId, String eventType,
                                      Object payload, String headersJson, Instant createdAt,
                                      Map<String, Object> columns) throws MalformedEventException {
        return new OutboxEvent(id, aggregateType, aggregateId, eventType,
                payload instanceof byte[] ? null : (String) payload, parseHeaders(id, headersJson), createdAt,
                payload instanceof byte[] b ? b : null, columns);
    }

    /**
     * Other columns of a result row, {@code names.size()} of them from {@code first} on, by name (see
     * {@link #column}); an empty map for none.
     */
    public static Map<String, Object> columns(ResultSet rs, int first, List<String> names) throws SQLException {
        if (names.isEmpty()) {
            return Map.of();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(names.get(i), column(rs.getObject(first + i)));
        }
        return m;
    }

    /**
     * A column's value as events carry it, the same from JDBC and from Debezium's change events for the types
     * both give alike: integers, booleans, floating point and text as they are; anything else as its text (a uuid,
     * a numeric; timestamps differ in form between the two).
     */
    public static Object column(Object value) {
        if (value == null || value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Boolean || value instanceof Double || value instanceof Float
                || value instanceof String) {
            return value;
        }
        return value.toString();
    }

    /**
     * The payload column of a result row: {@code byte[]} for {@code bytea} (selected as it is, not as text, whose
     * hex form would be published), the text of any other type (jsonb arrives as its text), or {@code null}.
     */
    public static Object payload(ResultSet rs, int column) throws SQLException {
        return rs.getMetaData().getColumnType(column) == Types.BINARY ? rs.getBytes(column) : rs.getString(column);
    }

    /** The payload as a Debezium change event carries it: text, or a {@code bytea} column's bytes. */
    public static Object payload(Object value) {
        if (value instanceof java.nio.ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return bytes;
        }
        return value;
    }

    /** Parses the {@code headers} column: a flat object whose values are strings (numbers and booleans are accepted as text). */
    public static Map<String, String> parseHeaders(UUID id, String headersJson) throws MalformedEventException {
        if (headersJson == null) {
            return Map.of();
        }
        JsonNode node;
        try {
            node = JSON.readTree(headersJson);
        } catch (JsonProcessingException e) {
            throw new MalformedEventException(id, "headers column is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new MalformedEventException(id, "headers column must be a JSON object of strings, was a JSON "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isNull()) {
                continue;
            }
            if (!v.isValueNode()) {
                throw new MalformedEventException(id, "header '" + e.getKey()
                        + "' must be a string, was a JSON " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
            }
            headers.put(e.getKey(), v.asText());
        }
        return headers;
    }
}
