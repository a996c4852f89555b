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

    private final HttpServer server;
    private final ExecutorService executor;

    HttpEndpoints(String host, int port, Supplier<Answer> live, Supplier<Answer> ready, Supplier<String> metrics)
            throws IOException {
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
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "outbox-relay-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
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
