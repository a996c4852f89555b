package dev.outboxrelay.daemon;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /health/live}, {@code /health/ready} and {@code /metrics} on the JDK's built-in HTTP server: enough
 * for probes and scrapes, no web framework in the daemon.
 */
final class HttpEndpoints implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoints.class);
    static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** One answer: status code and JSON or text body. */
    record Answer(int status, String contentType, String body) {
        static Answer json(boolean ok, String body) {
            return new Answer(ok ? 200 : 503, "application/json", body);
        }
    }

    static final int THREADS = 8;
    static final int MAX_REQUEST_SECONDS = 5;
    static final int MAX_RESPONSE_SECONDS = 10;

    private final HttpServer server;
    private final ExecutorService executor;

    HttpEndpoints(String host, int port, Supplier<Answer> live, Supplier<Answer> ready, Supplier<String> metrics)
            throws IOException {
        limitRequestTimes();
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (java.net.BindException e) {
            throw new IOException("cannot serve health and metrics on " + host + ":" + port + ": " + e.getMessage()
                    + " (choose another --http-port, or 0 to disable)", e);
        }
        server.createContext("/health/live", ex -> answer(ex, "/health/live", live));
        server.createContext("/health/ready", ex -> answer(ex, "/health/ready", ready));
        server.createContext("/metrics", ex -> answer(ex, "/metrics",
                () -> new Answer(200, PROMETHEUS_TYPE, metrics.get())));
        server.createContext("/", ex -> send(ex, new Answer(404, "text/plain; charset=utf-8",
                "not found: try /health/live, /health/ready or /metrics\n")));
        // The JDK server reads each request on an executor thread: enough threads that a few slow or stalled
        // clients leave the probes one, and a bounded number of them.
        executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "outbox-relay-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
    }

    /**
     * The JDK server's own limits ({@code sun.net.httpserver.*}, read once per JVM): a client must send its request
     * within {@value #MAX_REQUEST_SECONDS} s and read the answer within {@value #MAX_RESPONSE_SECONDS} s, or its
     * connection is closed, so a stalled client holds a thread that long at most. Settings given with -D win.
     */
    private static void limitRequestTimes() {
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", Integer.toString(MAX_REQUEST_SECONDS));
        }
        if (System.getProperty("sun.net.httpserver.maxRspTime") == null) {
            System.setProperty("sun.net.httpserver.maxRspTime", Integer.toString(MAX_RESPONSE_SECONDS));
        }
    }

    void start() {
        server.start();
        LOG.info("Serving /health/live, /health/ready and /metrics on http://{}:{}",
                server.getAddress().getHostString(), port());
    }

    /** The bound port (the chosen one, useful with port 0 in tests). */
    int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange ex, String path, Supplier<Answer> answer) throws IOException {
        if (!ex.getRequestURI().getPath().equals(path)) {
            send(ex, new Answer(404, "text/plain; charset=utf-8", "not found\n"));
        } else if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
            send(ex, new Answer(405, "text/plain; charset=utf-8", "method not allowed: use GET\n"));
        } else {
            Answer a;
            try {
                a = answer.get();
            } catch (RuntimeException e) {
                a = new Answer(500, "text/plain; charset=utf-8", "internal error: " + e.getClass().getSimpleName()
                        + "\n");
            }
            send(ex, a);
        }
    }

    private static void send(HttpExchange ex, Answer a) throws IOException {
        byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", a.contentType());
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(a.status(), head ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            if (!head) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
