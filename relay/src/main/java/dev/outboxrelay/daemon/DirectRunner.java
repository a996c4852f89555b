package dev.outboxrelay.daemon;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.poll.PollingSource;
import java.util.function.Supplier;

/** Runs one source for the daemon's lifetime; the poll source elects its active poller itself. */
final class DirectRunner implements SourceRunner {

    private final Supplier<OutboxSource> sources;
    private volatile OutboxSource source;

    DirectRunner(Supplier<OutboxSource> sources) {
        this.sources = sources;
    }

    @Override
    public void start() {
        OutboxSource s = sources.get();
        source = s;
        s.start();
    }

    @Override
    public boolean isActive() {
        OutboxSource s = source;
        if (s instanceof PollingSource poll) {
            return poll.isActive();
        }
        return s != null && s.isHealthy();
    }

    @Override
    public boolean isHealthy() {
        OutboxSource s = source;
        return s != null && s.isHealthy();
    }

    @Override
    public void close() {
        OutboxSource s = source;
        if (s != null) {
            s.close();
        }
    }
}
