package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.RelayListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that records Kafka outages and recoveries as lines ("outage kafka", "recovered"), in order. */
final class OutageEvents implements RelayListener {

    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void outage(String what, Throwable cause) {
        events.add("outage " + what);
    }

    @Override
    public void recovered() {
        events.add("recovered");
    }
}
