package dev.outboxrelay.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The child JVM of a {@link ChildContender}: builds one in-process contender, starts it, and obeys {@code pause},
 * {@code resume} and {@code close} read from stdin, answering on stdout. Not for people: the bench starts it.
 */
public final class ChildMain {

    static final String PASSWORD_ENV = "BENCH_DB_PASSWORD";
    static final String FAILED = "failed ";

    private ChildMain() {
    }

    /** The table name of a child contender. */
    static String name(String slug) {
        return switch (slug) {
            case "naive" -> PollerBaseline.NAIVE;
            case "batched" -> PollerBaseline.BATCHED;
            case "debezium" -> StockDebezium.NAME;
            case "floor-poll" -> FloorPoller.NAME;
            case "floor-cdc" -> FloorDebezium.NAME;
            default -> throw new IllegalArgumentException("unknown child contender " + slug);
        };
    }

    /** {@code slug jdbcUrl host port database user bootstrap topic}; the password in {@link #PASSWORD_ENV}. */
    public static void main(String[] args) throws Exception {
        // Answers go to the real stdout; anything a library prints goes to the log with the rest.
        PrintStream answers = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err);
        String slug = args[0];
        String url = args[1];
        String host = args[2];
        int port = Integer.parseInt(args[3]);
        String database = args[4];
        String user = args[5];
        String bootstrap = args[6];
        String topic = args[7];
        String password = System.getenv(PASSWORD_ENV);
        Contender contender;
        try {
            contender = switch (slug) {
                case "naive" -> PollerBaseline.naive(url, user, password, bootstrap, topic);
                case "batched" -> PollerBaseline.batched(url, user, password, bootstrap, topic);
                case "debezium" -> new StockDebezium(host, port, database, user, password, bootstrap, topic);
                case "floor-poll" -> new FloorPoller(url, user, password, bootstrap, topic);
                case "floor-cdc" -> new FloorDebezium(host, port, database, user, password, bootstrap, topic);
                default -> throw new IllegalArgumentException("unknown child contender " + slug);
            };
            contender.start();
        } catch (Exception e) {
            answers.println(FAILED + e);
            e.printStackTrace();
            System.exit(2);
            return;
        }
        answers.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null && !line.equals("close"); ) {
                switch (line) {
                    case "pause" -> {
                        contender.pause();
                        answers.println("paused");
                    }
                    case "resume" -> {
                        contender.resume();
                        answers.println("resumed");
                    }
                    default -> answers.println(FAILED + "unknown command " + line);
                }
            }
        } catch (Exception e) {
            answers.println(FAILED + e);
            e.printStackTrace();
        } finally {
            contender.close();
        }
        System.exit(0);
    }
}
