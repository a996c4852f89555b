package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class TopicLimitsTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final TopicLimits limits = new TopicLimits.CachedTopicLimits(null, now::get);

    @Test
    void withoutLimitsKnownEveryTopicTakesAnyRecord() {
        assertThat(limits.maxMessageBytes("orders")).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aTopicThatFailedAsTheTopicsFaultWaitsThenIsTriedAgain() {
        limits.unusable("orders", new TopicAuthorizationException(Set.of("orders")));
        assertThat(limits.maxMessageBytes("orders")).isEqualTo(TopicLimits.UNUSABLE);
        assertThat(limits.maxMessageBytes("payments")).as("other topics go on").isEqualTo(Integer.MAX_VALUE);

        now.addAndGet(TimeUnit.SECONDS.toNanos(TopicLimits.RETRY_UNUSABLE_SECONDS) - 1);
        assertThat(limits.maxMessageBytes("orders")).isEqualTo(TopicLimits.UNUSABLE);
        now.addAndGet(1);
        assertThat(limits.maxMessageBytes("orders")).as("tried again after the hold").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aNewFailureStartsANewHold() {
        limits.unusable("orders", new TopicAuthorizationException(Set.of("orders")));
        now.addAndGet(TimeUnit.SECONDS.toNanos(TopicLimits.RETRY_UNUSABLE_SECONDS));
        assertThat(limits.maxMessageBytes("orders")).isEqualTo(Integer.MAX_VALUE);
        limits.unusable("orders", new TopicAuthorizationException(Set.of("orders")));
        assertThat(limits.maxMessageBytes("orders")).isEqualTo(TopicLimits.UNUSABLE);
        limits.published("orders");
        limits.close();
    }
}
