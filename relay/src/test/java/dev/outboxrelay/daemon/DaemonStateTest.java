package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DaemonStateTest {

    @Test
    void theHappyPathIsLegal() {
        Lifecycle l = new Lifecycle();
        l.move(DaemonState.NEW, DaemonState.STARTING);
        l.move(DaemonState.STARTING, DaemonState.RUNNING);
        l.move(DaemonState.RUNNING, DaemonState.STOPPING);
        l.move(DaemonState.STOPPING, DaemonState.STOPPED);
        assertThat(l.state()).isEqualTo(DaemonState.STOPPED);
        assertThat(l.state().terminal()).isTrue();
    }

    @Test
    void anIllegalTransitionNamesBothStatesAndTheLegalOnes() {
        Lifecycle l = new Lifecycle();
        assertThatThrownBy(() -> l.move(DaemonState.NEW, DaemonState.RUNNING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("illegal daemon state transition NEW -> RUNNING (from NEW only [STARTING, STOPPED])");
        assertThatThrownBy(() -> l.move(DaemonState.STOPPED, DaemonState.STARTING))
                .hasMessage("illegal daemon state transition STOPPED -> STARTING (from STOPPED only [])");
    }

    @Test
    void aTransitionFromAStateTheDaemonIsNoLongerInFailsAndTryMoveSaysNo() {
        Lifecycle l = new Lifecycle();
        l.move(DaemonState.NEW, DaemonState.STARTING);
        assertThatThrownBy(() -> l.move(DaemonState.NEW, DaemonState.STARTING))
                .hasMessage("cannot move the daemon from NEW to STARTING: it is STARTING");
        assertThat(l.tryMove(DaemonState.RUNNING, DaemonState.STOPPING)).isFalse();
        assertThat(l.tryMove(DaemonState.STARTING, DaemonState.FAILED)).isTrue();
        assertThat(l.state()).isEqualTo(DaemonState.FAILED);
    }

    @Test
    void stopBeforeStartAndRepeatedStopsAreHarmless() {
        RelayDaemon d = RelayDaemon.create(new DaemonSettings("poll", "r", dev.outboxrelay.schema.OutboxTable.DEFAULT,
                dev.outboxrelay.core.SourceFactory.Coordination.SOURCE, dev.outboxrelay.core.SourceInspector.none(),
                java.util.List.of(), "127.0.0.1", 0, java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1),
                java.time.Duration.ofSeconds(1), new dev.outboxrelay.core.db.ConnectionFactory() {
                    @Override
                    public java.sql.Connection open(java.util.Properties extra) {
                        throw new AssertionError("nothing may be contacted");
                    }

                    @Override
                    public String target() {
                        return "nowhere";
                    }
                }, java.util.Map.of()), listener -> {
                    throw new AssertionError("no source before start");
                });
        assertThat(d.stop()).isTrue();
        assertThat(d.stop()).isTrue();
        d.close();
        assertThat(d.state()).isEqualTo(DaemonState.STOPPED);
        assertThatThrownBy(d::start).hasMessage("cannot move the daemon from NEW to STARTING: it is STOPPED");
    }

    @Test
    void jsonQuotingEscapesWhatWouldBreakTheDocument() {
        assertThat(Json.quote("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
        assertThat(Json.quote(null)).isEqualTo("null");
    }
}
