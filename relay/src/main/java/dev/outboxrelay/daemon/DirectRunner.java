package dev.outboxrelay.daemon;

import dev.outboxrelay.core.OutboxSource;
import java.util.function.Supplier;

/** Runs one source for the daemon's lifetime; the source takes the table's relay lock itself. */
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
        return s != null && s.isActive();
    }

    @Override
    public java.util.Optional<Throwable> failure() {
        OutboxSource s = source;
        return s == null ? java.util.Optional.empty() : s.failure();
    }

    @Override
    public boolean isHealthy() {
        OutboxSource s = source;
        return s != null && s.isHealthy();
    }

    @Override
    public String problem() {
        OutboxSource s = source;
        return s == null ? null : s.problem();
    }

    @Override
    public void close() {
        OutboxSource s = source;
        if (s != null) {
            s.close();
        }
    }
}
