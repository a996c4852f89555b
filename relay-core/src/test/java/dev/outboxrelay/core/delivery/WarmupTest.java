package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WarmupTest {

    @Test
    void everySyntheticEventGoesThroughTheRelaysRouterToTheDiscardingPublisher() throws Exception {
        Warmup.Report report = Warmup.pipeline(EventRouter.topicTemplate("outbox.${aggregateType}"))
                .run(5_000, Duration.ofMinutes(1));

        assertThat(report.events()).isEqualTo(5_000);
        assertThat(report.published()).isEqualTo(5_000);
        assertThat(report.took()).isPositive();
    }

    @Test
    void rowsTheRelaysAllowedTopicsRefuseAreDeadLetteredInsideTheWarmupAndDoNotStallIt() throws Exception {
        EventRouter onlyOrders = EventRouter.topicTemplate("outbox.${aggregateType}",
                Pattern.compile("orders\\..*"), Set.of());

        Warmup.Report report = Warmup.pipeline(onlyOrders).run(1_000, Duration.ofMinutes(1));

        assertThat(report.events()).isEqualTo(1_000);
        assertThat(report.published()).isZero();
    }

    @Test
    void stopsSubmittingOnceItsTimeIsUp() throws Exception {
        Warmup.Report report = Warmup.pipeline(EventRouter.topicTemplate("outbox.${aggregateType}"))
                .run(1_000_000, Duration.ZERO);

        assertThat(report.events()).isZero();
        assertThat(report.published()).isZero();
    }
}
