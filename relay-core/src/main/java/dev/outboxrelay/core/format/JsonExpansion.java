package dev.outboxrelay.core.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.util.SchemaUtil;

/**
 * {@code table.expand.json.payload=true} of Debezium's outbox router, rule for rule (its {@code JsonSchemaData} with
 * the default null, empty-array and field-name settings): a schema is inferred from the JSON document and the
 * document becomes a Connect {@link Struct} of it, built with Kafka's own Connect classes so that the same documents
 * fail the same way. Whatever the router cannot expand (a document not starting with an object or array, a
 * top-level array, mixed-type arrays, integers beyond 64 bits) stays the payload string, as it does there.
 * Null fields and empty arrays disappear from the output, as they do there.
 */
final class JsonExpansion {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonExpansion() {
    }

    /**
     * The payload as the router's next step sees it: an expanded struct with its schema, or the text with
     * {@code textSchema} when it does not expand.
     *
     * @param payloadColumn the payload column's name: the router names the inferred struct after it
     */
    static SchemaAndValue expand(String payloadColumn, String payload, Schema textSchema) {
        if (payload == null || !(payload.startsWith("{") || payload.startsWith("["))) {
            return new SchemaAndValue(textSchema, payload);
        }
        try {
            JsonNode node = JSON.readTree(payload);
            Schema schema = schemaOf(payloadColumn, node);
            return new SchemaAndValue(schema, structOf(node, schema));
        } catch (Exception e) {
            // The router logs a warning and publishes the string; so does the relay, without the payload in the log.
            return new SchemaAndValue(textSchema, payload);
        }
    }

    private static Schema schemaOf(String key, JsonNode node) {
        switch (node.getNodeType()) {
            case STRING:
                return Schema.OPTIONAL_STRING_SCHEMA;
            case BOOLEAN:
                return Schema.OPTIONAL_BOOLEAN_SCHEMA;
            case NUMBER:
                if (node.isInt()) {
                    return Schema.OPTIONAL_INT32_SCHEMA;
                }
                if (node.isLong()) {
                    return Schema.OPTIONAL_INT64_SCHEMA;
                }
                return Schema.OPTIONAL_FLOAT64_SCHEMA;
            case ARRAY:
                ArrayNode array = (ArrayNode) node;
                return array.isEmpty() ? null : SchemaBuilder.array(elementSchema(key, array)).optional().build();
            case OBJECT:
                SchemaBuilder builder = SchemaBuilder.struct().name(key).optional();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = it.next();
                    String name = entry.getKey();
                    String fieldKey = (key == null || key.isBlank() ? "" : key + ".") + name;
                    Schema fieldSchema = schemaOf(fieldKey, entry.getValue());
                    if (fieldSchema != null && builder.field(name) == null) {
                        builder.field(name, fieldSchema);
                    }
                }
                return builder.build();
            default:
                return null; // null, and node types JSON text cannot produce
        }
    }

    private static Schema elementSchema(String key, ArrayNode array) {
        JsonNode sample = firstElement(array);
        if (!sample.isObject()) {
            Schema schema = schemaOf(null, sample);
            if (schema == null) {
                throw new IllegalArgumentException("array of nulls");
            }
            return schema;
        }
        // A hash set as in the router: its iteration order decides the merged field order, so it must be the same.
        Set<Schema> elementSchemas = new HashSet<>();
        for (JsonNode element : array) {
            if (element.isObject()) {
                elementSchemas.add(schemaOf(key, element));
            }
        }
        Schema merged = null;
        for (Schema element : elementSchemas) {
            merged = merge(merged, element);
        }
        return merged;
    }

    private static Schema merge(Schema left, Schema right) {
        if (left == null) {
            return right;
        }
        Map<String, Field> fields = new LinkedHashMap<>();
        left.fields().forEach(f -> fields.put(f.name(), f));
        for (Field f : right.fields()) {
            Field old = fields.get(f.name());
            if (old == null || (!old.schema().equals(f.schema()) && old.schema().type() == Schema.Type.BYTES
                    && f.schema().type() != Schema.Type.BYTES)) {
                fields.put(f.name(), f);
            }
        }
        SchemaBuilder builder = SchemaUtil.copySchemaBasics(left);
        fields.forEach((name, f) -> builder.field(name, f.schema()));
        return builder.build();
    }

    /** The first non-null element; all non-null elements must be of its type (numbers: of its schema). */
    private static JsonNode firstElement(ArrayNode array) {
        JsonNode ref = NullNode.getInstance();
        Schema refSchema = null;
        for (JsonNode element : array) {
            if (element.isNull()) {
                continue;
            }
            if (ref.isNull()) {
                ref = element;
            }
            if (element.getNodeType() != ref.getNodeType()) {
                throw new IllegalArgumentException("not a homogeneous array");
            }
            if (ref.getNodeType() == JsonNodeType.NUMBER) {
                if (refSchema == null) {
                    refSchema = schemaOf(null, ref);
                }
                if (refSchema != schemaOf(null, element)) {
                    throw new IllegalArgumentException("not a homogeneous array of numbers");
                }
            }
        }
        return ref;
    }

    private static Struct structOf(JsonNode document, Schema schema) {
        Struct struct = new Struct(schema); // a top-level array fails here, as in the router
        for (Field field : schema.fields()) {
            if (document.has(field.name())) {
                struct.put(field.name(), valueOf(document.path(field.name()), field.schema()));
            }
        }
        return struct;
    }

    private static Object valueOf(JsonNode node, Schema schema) {
        switch (node.getNodeType()) {
            case STRING:
                return node.asText();
            case BOOLEAN:
                return node.asBoolean();
            case NUMBER:
                if (node.isFloat()) {
                    return node.floatValue();
                }
                if (node.isDouble()) {
                    return node.asDouble();
                }
                if (node.isInt()) {
                    return node.asInt();
                }
                if (node.isLong()) {
                    return node.asLong();
                }
                return node.decimalValue(); // refused by the FLOAT64 schema: the payload stays a string
            case ARRAY:
                List<Object> list = new ArrayList<>(node.size());
                for (JsonNode element : node) {
                    list.add(valueOf(element, schema.valueSchema()));
                }
                return list;
            case OBJECT:
                return structOf(node, schema);
            default:
                return null;
        }
    }
}
