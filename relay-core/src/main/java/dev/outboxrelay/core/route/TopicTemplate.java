package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.OutboxEvent;
import java.util.ArrayList;
import java.util.List;

/** A parsed topic template: literal parts and placeholders, resolved per event. */
final class TopicTemplate {

    static final int MAX_TOPIC_LENGTH = 249;

    private enum Part { AGGREGATE_TYPE, EVENT_TYPE }

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
            switch (name) {
                case "aggregateType" -> parts.add(Part.AGGREGATE_TYPE);
                case "eventType" -> parts.add(Part.EVENT_TYPE);
                default -> throw new IllegalArgumentException("topic template '" + template + "' has unknown placeholder ${"
                        + name + "}: use ${aggregateType} or ${eventType}");
            }
            i = end + 1;
        }
        return new TopicTemplate(template, List.copyOf(parts));
    }

    /** The topic for {@code event}, or {@code null} if the result is not a legal Kafka topic name. */
    String resolve(OutboxEvent event) {
        StringBuilder topic = new StringBuilder();
        for (Object part : parts) {
            if (part == Part.AGGREGATE_TYPE) {
                topic.append(event.aggregateType());
            } else if (part == Part.EVENT_TYPE) {
                topic.append(event.eventType());
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
