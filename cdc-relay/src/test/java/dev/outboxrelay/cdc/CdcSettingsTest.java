package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.config.InstanceOptions;
import org.junit.jupiter.api.Test;

/** The programmatic settings: defaults from the option declarations, the options' own validation rules. */
class CdcSettingsTest {

    private static CdcSettings.Builder builder() {
        return CdcSettings.builder("jdbc:postgresql://localhost/app", "relay", (String) null);
    }

    @Test
    void defaultsAreTheDeclaredOptionDefaults() {
        CdcSettings s = builder().build();
        assertThat(s.relayName()).isEqualTo(InstanceOptions.DEFAULT_RELAY_NAME);
        assertThat(s.relayName()).isEqualTo(InstanceOptions.RELAY_NAME.parsedDefault());
    }

    @Test
    void relayNameFollowsTheOptionsRule() {
        assertThat(builder().relayName("orders-relay.v2_a").build().relayName()).isEqualTo("orders-relay.v2_a");
        assertThatThrownBy(() -> builder().relayName("orders relay").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'orders relay' is not a valid relay name: expected 1 to 100 letters, digits, '.', '_'"
                        + " or '-'");
        assertThatThrownBy(() -> builder().relayName("x".repeat(101)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
