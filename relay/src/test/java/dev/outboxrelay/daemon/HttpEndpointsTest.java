package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.Pacing;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpEndpointsTest {

    @Test
    void stalledClientsDoNotStarveTheProbes() throws Exception {
        try (HttpEndpoints http = new HttpEndpoints("127.0.0.1", 0,
                () -> HttpEndpoints.Answer.json(true, "{\"status\":\"live\"}\n"),
                () -> HttpEndpoints.Answer.json(true, "{}\n"), () -> "")) {
            http.start();
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    // Connect and send half a request, then nothing: each holds a server thread while it reads.
                    Socket s = new Socket("127.0.0.1", http.port());
                    OutputStream out = s.getOutputStream();
                    out.write("GET /health/live HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    stalled.add(s);
                }
                // Time for the server to take the stalled connections onto its threads. Were it slower, the probes
                // below would pass without proving anything: this pause can weaken the test, never make it flake.
                Pacing.pause(200);
                HttpClient client = HttpClient.newHttpClient();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> live = client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + http.port() + "/health/live"))
                            .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(live.statusCode()).isEqualTo(200);
                }
                // The server closes a connection whose request did not arrive in time.
                Instant deadline = Instant.now().plusSeconds(HttpEndpoints.MAX_REQUEST_SECONDS + 10);
                stalled.get(0).setSoTimeout(1000);
                int read = 0;
                while (Instant.now().isBefore(deadline)) {
                    try {
                        read = stalled.get(0).getInputStream().read();
                        break;
                    } catch (java.net.SocketTimeoutException e) {
                        // still open
                    }
                }
                assertThat(read).as("the stalled connection was closed by the server").isEqualTo(-1);
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
        }
    }
}
