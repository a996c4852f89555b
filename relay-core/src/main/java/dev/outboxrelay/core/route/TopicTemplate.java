package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.OutboxEvent;
import java.util.ArrayList;
import java.util.List;

/** A parsed topic template: literal parts and placeholders, resolved per event. */
final class TopicTemplate {

    static final int MAX_TOPIC_LENGTH = 249;

    private enum Part { AGGREGATE_TYPE, EVENT_TYPE }

    /** A {@code ${column.<name>}} placeholder: another column of the table, read with the event. */
    private record ColumnPart(String name) {
    }

    private static final java.util.regex.Pattern COLUMN = java.util.regex.Pattern.compile(
            "column\\.([A-Za-z_][A-Za-z0-9_]{0,62})");

    private final String source;
    private final List<Object> parts;

    private TopicTemplate(String source, List<Object> parts) {
        this.source = source;
        this.parts = parts;
    }

    static TopicTemplate parse(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("topic template must not be empty");
        }
        List<Object> parts = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int start = template.indexOf("${", i);
            String literal = template.substring(i, start < 0 ? template.length() : start);
            if (!legalChars(literal)) {
                throw new IllegalArgumentException("topic template '" + template + "' contains characters Kafka does"
                        + " not allow in topic names (allowed: letters, digits, '.', '_', '-')");
            }
            if (!literal.isEmpty()) {
                parts.add(literal);
            }
            if (start < 0) {
                break;
            }
            int end = template.indexOf('}', start);
            if (end < 0) {
                throw new IllegalArgumentException("topic template '" + template + "' has an unclosed placeholder");
            }
            String name = template.substring(start + 2, end);
            java.util.regex.Matcher column = COLUMN.matcher(name);
            switch (name) {
                // ${routedByValue}: Debezium's name for it, so a route.topic.replacement can be copied as it is.
                case "aggregateType", "routedByValue" -> parts.add(Part.AGGREGATE_TYPE);
                case "eventType" -> parts.add(Part.EVENT_TYPE);
                default -> {
                    if (!column.matches()) {
                        throw new IllegalArgumentException("topic template '" + template + "' has unknown placeholder"
                                + " ${" + name + "}: use ${aggregateType}, ${eventType} or ${column.<name>}");
                    }
                    parts.add(new ColumnPart(column.group(1)));
                }
            }
            i = end + 1;
        }
        return new TopicTemplate(template, List.copyOf(parts));
    }

    /** The columns its {@code ${column.<name>}} placeholders name, in order. */
    java.util.List<String> columns() {
        return parts.stream().filter(p -> p instanceof ColumnPart).map(p -> ((ColumnPart) p).name()).distinct()
                .toList();
    }

    /**
     * This template on a table laid out as {@code layout}: a column placeholder naming the column of the aggregate
     * type, event type or another role reads that part of the event.
     */
    TopicTemplate bind(dev.outboxrelay.schema.TableLayout layout) {
        List<Object> bound = new ArrayList<>();
        for (Object part : parts) {
            dev.outboxrelay.schema.TableLayout.Column role = part instanceof ColumnPart c ? layout.roleOf(c.name()) : null;
            bound.add(role == dev.outboxrelay.schema.TableLayout.Column.AGGREGATE_TYPE ? Part.AGGREGATE_TYPE
                    : role == dev.outboxrelay.schema.TableLayout.Column.EVENT_TYPE ? Part.EVENT_TYPE
                    : role != null ? new RolePart(role) : part);
        }
        return new TopicTemplate(source, List.copyOf(bound));
    }

    /** A placeholder naming the column of a role other than the two types (e.g. the aggregate id). */
    private record RolePart(dev.outboxrelay.schema.TableLayout.Column role) {
    }

    /** The topic for {@code event}, or {@code null} if the result is not a legal Kafka topic name. */
    String resolve(OutboxEvent event) {
        StringBuilder topic = new StringBuilder();
        for (Object part : parts) {
            if (part == Part.AGGREGATE_TYPE) {
                topic.append(event.aggregateType());
            } else if (part == Part.EVENT_TYPE) {
                topic.append(event.eventType());
            } else if (part instanceof ColumnPart c) {
                Object value = event.columns().get(c.name());
                if (value == null) {
                    return null;
                }
                topic.append(value);
            } else if (part instanceof RolePart r) {
                topic.append(switch (r.role()) {
                    case ID -> event.id().toString();
                    case AGGREGATE_ID -> event.aggregateId();
                    // Refused by the configuration check (--topic-template); never part of a name.
                    default -> throw new IllegalStateException("topic placeholder for the " + r.role() + " column");
                });
            } else {
                topic.append((String) part);
            }
        }
        String name = topic.toString();
        boolean legal = !name.isEmpty() && name.length() <= MAX_TOPIC_LENGTH && legalChars(name)
                && !name.equals(".") && !name.equals("..");
        return legal ? name : null;
    }

    /** {@code [a-zA-Z0-9._-]*} without a regex: it runs for every event, and the regex showed in profiles. */
    private static boolean legalChars(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
                    || ch == '.' || ch == '_' || ch == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return source;
    }
}
