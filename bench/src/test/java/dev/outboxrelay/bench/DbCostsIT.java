package dev.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.TestPostgres;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the database-cost probe ({@code outbox-bench.jar --db-costs}) honest with tiny counts against the test
 * kit's PostgreSQL: every variant's statements run, every row is fetched and acknowledged (the probe itself
 * fails otherwise), and each variant gets a row of the report. No timing is asserted.
 */
class DbCostsIT {

    @Test
    void everyVariantDrainsTheOutboxAndIsReported() throws Exception {
        List<DbCosts.Cost> costs = DbCosts.measure(TestPostgres.shared(), 2_050, 1);

        assertThat(costs).extracting(DbCosts.Cost::variant).containsExactlyElementsOf(DbCosts.VARIANTS);
        assertThat(costs).allSatisfy(c -> {
            assertThat(c.insertMicros()).as(c.variant().name()).isPositive();
            assertThat(c.fetchMicros()).as(c.variant().name()).isPositive();
            assertThat(c.ackMicros()).as(c.variant().name()).isPositive();
        });
        String markdown = DbCosts.markdown(costs, "test", Instant.now(), 1, "PostgreSQL: 15");
        for (DbCosts.Variant v : DbCosts.VARIANTS) {
            assertThat(markdown).contains("| " + v.name() + " |");
        }
    }
}
