package dev.outboxrelay.core.config;

import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.delivery.Guarantee;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.core.publish.ExactlyOnce;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.publish.WeakDeliveryException;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.TableLayout;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.producer.ProducerConfig;

/** Options of the shared pipeline both sources run: routing, the Kafka producer, acknowledgement. */
public final class KafkaOptions {

    public static final Option<String> KAFKA_BOOTSTRAP = Option.string("kafka-bootstrap")
            .required()
            .validate(v -> v.matches("[^,\\s]+:\\d+(,[^,\\s]+:\\d+)*") ? null
                    : "must be host:port[,host:port...]")
            .doc("Kafka bootstrap servers.")
            .example("kafka-1:9092,kafka-2:9092")
            .build();

    public static final Option<String> TOPIC_TEMPLATE = Option.builder("topic-template",
                    OptionType.custom("template", KafkaOptions::topicTemplate))
            .defaultValue("outbox.event.${aggregateType}")
            .doc("Topic name for each event; placeholders ${aggregateType} (also ${routedByValue}, Debezium's name),"
                    + " ${eventType} and ${column.<name>} (any other column of the table, read with the event; an"
                    + " event where it is NULL is dead-lettered).")
            .example("${aggregateType}.events")
            .build();

    public static final Option<Pattern> TOPIC_ALLOW = Option.builder("topic-allow",
                    OptionType.custom("regex", KafkaOptions::topicAllow))
            .doc("Only topics matching this regular expression (whole name) may be published to; an event the"
                    + " template routes elsewhere is dead-lettered with the reason. The dead-letter topic is never a"
                    + " routing target.")
            .example("outbox\\.event\\.(Order|Invoice)")
            .build();

    public static final Option<MessageFormat.Kind> MESSAGE_FORMAT = Option.enumeration("message-format",
                    MessageFormat.Kind.class)
            .defaultValue("relay")
            .doc("Record layout: relay (payload as the value; headers id, type, aggregate_type and the row's),"
                    + " cloudevents-binary (CloudEvents 1.0: ce_* headers, payload as the value) or"
                    + " cloudevents-structured (the value is the CloudEvent as JSON) or debezium (byte for byte what"
                    + " Debezium's outbox router writes through a Connect worker; see --debezium-*). Every format keys"
                    + " by aggregate_id and carries the id header.")
            .example("cloudevents-binary")
            .build();

    public static final Option<URI> CLOUDEVENTS_SOURCE = Option.builder("cloudevents-source",
                    OptionType.custom("uri", KafkaOptions::uriReference))
            .defaultValue("/outbox-relay")
            .doc("The CloudEvents source attribute of every event (a URI reference naming the producing service),"
                    + " with --message-format cloudevents-*.")
            .example("https://orders.example.com")
            .build();

    public static final Option<OnPublish> ON_PUBLISH = Option.enumeration("on-publish", OnPublish.class)
            .defaultValue("mark")
            .doc("What to do with a row once Kafka acknowledged it: mark sets sent_at, delete removes the row.")
            .example("delete")
            .build();

    public static final Option<Integer> MAX_ATTEMPTS = Option.integer("max-attempts")
            .defaultValue("10")
            .validate(Validator.between(1, 1_000_000))
            .doc("Failed publish attempts of one row before it is dead-lettered.")
            .example("5")
            .build();

    public static final Option<OnPoison> ON_POISON = Option.enumeration("on-poison", OnPoison.class)
            .defaultValue("block")
            .doc("After a row is dead-lettered: block keeps later events of its key waiting (order), skip lets them flow.")
            .example("skip")
            .build();

    public static final Option<String> DEAD_LETTER_TOPIC = Option.string("dead-letter-topic")
            .validate(v -> v.matches("[a-zA-Z0-9._-]{1,249}") ? null
                    : "must be a Kafka topic name (letters, digits, '.', '_', '-')")
            .doc("Also send dead-lettered events to this topic (header dead_letter_reason); they stay in the table.")
            .example("outbox.dead-letters")
            .build();

    public static final Option<Duration> RETENTION = Option.duration("retention")
            .defaultValue("7d")
            .validate(Validator.atLeast(Duration.ofSeconds(1), "1s"))
            .doc("With --on-publish mark: how long sent rows are kept before they are purged in batches.")
            .example("24h")
            .build();

    public static final Option<Duration> PURGE_INTERVAL = Option.duration("purge-interval")
            .defaultValue("1m")
            .validate(Validator.atLeast(Duration.ofSeconds(1), "1s"))
            .doc("How often the purge of sent rows runs.")
            .example("10m")
            .build();

    public static final Option<MemoryBudget> MAX_IN_FLIGHT_BYTES = Option.builder("max-in-flight-bytes",
                    OptionType.custom("size|auto", MemoryBudget::parse))
            .defaultValue("auto")
            .doc("Bytes of events held at once, from fetch or the WAL until Kafka acknowledged them (poll: every"
                    + " batch in flight; cdc: Debezium's queue and the batches in flight). auto: an eighth of the heap,"
                    + " at most kafka.buffer.memory. A single larger row is still relayed, alone.")
            .example("64MiB")
            .build();

    public static final Option<Guarantee> DELIVERY = Option.enumeration("delivery", Guarantee.class)
            .defaultValue("at-least-once")
            .doc("at-least-once: consumers dedupe on the event id (the inbox). exactly-once: Kafka transactions that"
                    + " also carry the relay's position, so a read_committed consumer sees every event once, across"
                    + " crashes, restarts and mode switches (docs/exactly-once.md).")
            .example("exactly-once")
            .build();

    public static final Option<String> STATE_TOPIC = Option.string("state-topic")
            .defaultValue("outbox-relay.state")
            .validate(v -> v.matches("[a-zA-Z0-9._-]{1,249}") ? null
                    : "must be a Kafka topic name (letters, digits, '.', '_', '-')")
            .doc("With --delivery exactly-once: the compacted topic where each transaction records the rows it"
                    + " published (created if missing); relays may share it.")
            .example("orders.outbox-relay.state")
            .build();

    public static final Option<Path> KAFKA_CONFIG_FILE = Option.path("kafka-config-file")
            .validate(Validator.readableFile())
            .doc("Properties file of Kafka producer settings (keys without the kafka. prefix), e.g. SASL/TLS;"
                    + " --kafka.<property> flags and kafka.* config file keys override it.")
            .example("/etc/outbox-relay/producer.properties")
            .build();

    /** {@code --kafka.<property>=value}: producer settings, refused when they would weaken delivery. */
    public static final Passthrough KAFKA = new Passthrough("kafka",
            "Kafka producer property, checked against Kafka's own definitions (acks, idempotence, serializers and"
                    + " keyed partitioning are fixed); also RELAY_KAFKA_<PROPERTY> with dots as underscores."
                    + " Secrets (sasl.jaas.config, ssl.*.password) only from the environment or a file.",
            "--kafka.compression.type=zstd", KAFKA_CONFIG_FILE);

    /** The pipeline's options, the same in every mode, and the delivery check. */
    public static final OptionSet SET = OptionSet.builder("Kafka and delivery (both modes)")
            .add(KAFKA_BOOTSTRAP).add(TOPIC_TEMPLATE).add(TOPIC_ALLOW).add(MESSAGE_FORMAT).add(CLOUDEVENTS_SOURCE)
            .add(FormatOptions.DEBEZIUM_VALUE).add(FormatOptions.DEBEZIUM_KEY).add(FormatOptions.DEBEZIUM_FIELDS)
            .add(FormatOptions.DEBEZIUM_TOMBSTONE_ON_EMPTY).add(FormatOptions.PAYLOAD_CONTENT_TYPE)
            .add(ON_PUBLISH).add(MAX_ATTEMPTS).add(ON_POISON).add(DEAD_LETTER_TOPIC).add(RETENTION)
            .add(PURGE_INTERVAL)
            .add(MAX_IN_FLIGHT_BYTES)
            .add(DELIVERY).add(STATE_TOPIC)
            .passthrough(KAFKA)
            .check(KafkaOptions::deliveryNotWeakened)
            .check(KafkaOptions::budgetFitsProducer)
            .check(FormatOptions::check)
            .check(KafkaOptions::exactlyOnceFits)
            .build();

    private KafkaOptions() {
    }

    private static String topicTemplate(String template) {
        EventRouter.topicTemplate(template); // validates, message names the template
        return template;
    }

    private static void deliveryNotWeakened(RelayConfig config, List<String> problems) {
        config.passthrough(KAFKA.prefix()).keySet().stream()
                .filter(ProducerSettings::isSecret)
                .filter(k -> config.passthroughSource(KAFKA.prefix() + "." + k).orElse(null) == ValueSource.COMMAND_LINE)
                .forEach(k -> problems.add(KAFKA.flagPrefix() + k + ": not accepted on the command line, where other"
                        + " users can see it; set " + KAFKA.envVarOf(k) + " or put it in --kafka-config-file"));
        try {
            ProducerSettings.of(config.find(KAFKA_BOOTSTRAP).orElse(""), config.passthrough(KAFKA.prefix()));
        } catch (WeakDeliveryException e) {
            e.problems().forEach(p -> problems.add("--" + p));
        }
    }

    private static void exactlyOnceFits(RelayConfig config, List<String> problems) {
        if (config.find(DELIVERY).orElse(null) != Guarantee.EXACTLY_ONCE) {
            return;
        }
        if (config.source(InstanceOptions.RELAY_NAME).orElse(null) == ValueSource.DEFAULT) {
            problems.add("--" + InstanceOptions.RELAY_NAME.name() + ": set a name of this relay's own with --delivery"
                    + " exactly-once: it names the transactional id, and two relays of one name and table on a Kafka"
                    + " cluster would fence each other");
        }
        if (config.find(DEAD_LETTER_TOPIC).isPresent()) {
            problems.add("--" + DEAD_LETTER_TOPIC.name() + ": not supported with --delivery exactly-once (a copy"
                    + " outside the transaction could outlive an aborted one); dead letters stay in the table");
        }
        if (config.find(STATE_TOPIC).isPresent() && config.find(TOPIC_ALLOW).map(p -> p.matcher(
                config.get(STATE_TOPIC)).matches()).orElse(false)) {
            problems.add("--" + STATE_TOPIC.name() + ": " + config.get(STATE_TOPIC) + " is also a topic events may be"
                    + " routed to (--" + TOPIC_ALLOW.name() + "); use a topic of its own");
        }
    }

    /** The exactly-once settings of a validated config, when {@code --delivery exactly-once}. */
    public static java.util.Optional<ExactlyOnce> exactlyOnce(RelayConfig config) {
        if (config.find(DELIVERY).orElse(Guarantee.AT_LEAST_ONCE) != Guarantee.EXACTLY_ONCE) {
            return java.util.Optional.empty(); // a config without the option (another command's) delivers as before
        }
        return java.util.Optional.of(ExactlyOnce.of(config.get(InstanceOptions.RELAY_NAME),
                DatabaseOptions.table(config).toString(), config.get(STATE_TOPIC)));
    }

    private static void budgetFitsProducer(RelayConfig config, List<String> problems) {
        MemoryBudget budget = config.find(MAX_IN_FLIGHT_BYTES).orElse(null); // absent: its own problem is reported
        long buffer = producerBufferBytes(config);
        if (budget != null && !budget.isAuto() && buffer > 0 && budget.bytes(0, buffer) > buffer) {
            problems.add("--" + MAX_IN_FLIGHT_BYTES.name() + ": " + budget + " is more than kafka.buffer.memory ("
                    + MemoryBudget.format(buffer) + "), so records would wait in the producer; lower it or raise"
                    + " kafka.buffer.memory");
        }
    }

    /** The producer's buffer.memory as set, or Kafka's default; -1 when set to something Kafka's check refuses. */
    private static long producerBufferBytes(RelayConfig config) {
        String set = config.passthrough(KAFKA.prefix()).get(ProducerConfig.BUFFER_MEMORY_CONFIG);
        if (set == null) {
            return kafkaDefaultBufferBytes();
        }
        try {
            return Long.parseLong(set.trim());
        } catch (NumberFormatException e) {
            return -1; // reported by the producer settings check
        }
    }

    /**
     * The byte budget of settings built without a config: {@link #MAX_IN_FLIGHT_BYTES}'s default for this JVM's heap
     * and Kafka's default {@code buffer.memory}.
     */
    public static long defaultInFlightBytes() {
        return MAX_IN_FLIGHT_BYTES.parsedDefault().bytes(Runtime.getRuntime().maxMemory(), kafkaDefaultBufferBytes());
    }

    private static long kafkaDefaultBufferBytes() {
        return (Long) ProducerConfig.configDef().defaultValues().get(ProducerConfig.BUFFER_MEMORY_CONFIG);
    }

    /**
     * The relay's byte budget for events in flight ({@link #MAX_IN_FLIGHT_BYTES}) in this JVM, resolved against its
     * maximum heap and the producer's buffer.
     */
    public static long inFlightBytes(RelayConfig config) {
        return config.get(MAX_IN_FLIGHT_BYTES).bytes(Runtime.getRuntime().maxMemory(),
                Math.max(MemoryBudget.MIN_BYTES, producerBufferBytes(config)));
    }

    private static URI uriReference(String raw) {
        try {
            URI uri = new URI(raw.trim());
            if (uri.toString().isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URI reference: " + e.getReason());
        }
    }

    private static Pattern topicAllow(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("not a regular expression: " + e.getDescription());
        }
    }

    /**
     * The router of a validated config: the template, the allowed topics, never the dead-letter topic, the message
     * format.
     */
    public static EventRouter router(RelayConfig config) {
        TableLayout layout = DatabaseOptions.layout(config);
        return EventRouter.topicTemplate(config.get(TOPIC_TEMPLATE), config.find(TOPIC_ALLOW).orElse(null),
                config.find(DEAD_LETTER_TOPIC).map(Set::of).orElse(Set.of()),
                MessageFormat.of(config.get(MESSAGE_FORMAT), config.get(CLOUDEVENTS_SOURCE),
                        FormatOptions.routerSettings(config), layout,
                        config.find(FormatOptions.PAYLOAD_CONTENT_TYPE).orElse(null)), layout);
    }

    /** The producer settings, already validated by the spec. */
    public static ProducerSettings producerSettings(RelayConfig config) {
        ProducerSettings settings = ProducerSettings.of(config.get(KAFKA_BOOTSTRAP),
                Map.copyOf(config.passthrough(KAFKA.prefix())));
        return exactlyOnce(config).map(settings::exactlyOnce).orElse(settings);
    }
}
