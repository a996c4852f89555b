package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnginePropertiesTest {

    @Test
    void settingsThatChangeWhatIsPublishedOrSkippedAreRefused() {
        for (String key : new String[] {"column.mask.with.5.chars", "skipped.operations", "errors.max.retries",
            "column.truncate.to.10.chars", "message.key.columns", "tombstones.on.delete", "snapshot.mode"}) {
            assertThatThrownBy(() -> EngineProperties.checkPassthrough(Map.of(key, "x")))
                    .as(key).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("debezium." + key);
        }
        assertThatThrownBy(() -> EngineProperties.checkPassthrough(Map.of("skipped.operations", "c")))
                .hasMessageStartingWith("debezium.skipped.operations is not among the Debezium settings the relay"
                        + " lets you tune, which cannot change what is published: errors.retry.delay.initial.ms,");
        assertThatThrownBy(() -> EngineProperties.checkPassthrough(Map.of("slot.name", "x")))
                .hasMessage("debezium.slot.name is set by the relay and cannot be overridden (use the relay's own"
                        + " options)");
    }

    @Test
    void tuningIsAccepted() {
        assertThatCode(() -> EngineProperties.checkPassthrough(Map.of("max.batch.size", "4096",
                "max.queue.size.in.bytes", "67108864", "poll.interval.ms", "5",
                "statistics.metrics.enabled", "true"))).doesNotThrowAnyException();
    }
}
