package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NotYetVisibleTest {

    private final NotYetVisible waiting = new NotYetVisible();
    private final UUID a = UUID.randomUUID();
    private final UUID b = UUID.randomUUID();

    @Test
    void aRowTheMarkCouldNotSeeIsMarkedAgainUntilTheDatabaseShowsIt() {
        List<UUID> first = waiting.with(List.of(a, b), 0);
        waiting.missed(first, Set.of(b), 0); // b was sent before; a is not visible yet
        assertThat(waiting.with(List.of(), 1_000)).containsExactly(a);
        UUID c = UUID.randomUUID();
        assertThat(waiting.with(List.of(c), 2_000)).containsExactly(c, a);
        waiting.missed(List.of(c, a), Set.of(a, c), 2_000);
        assertThat(waiting.isEmpty()).isTrue();
    }

    @Test
    void aRowThatNeverAppearsIsGivenUpAfterThePatience() {
        waiting.missed(List.of(a), Set.of(), 0);
        long later = NotYetVisible.PATIENCE_NANOS;
        assertThat(waiting.with(List.of(), later)).containsExactly(a);
        waiting.missed(List.of(a), Set.of(), later); // missed again: still counted from the first miss
        assertThat(waiting.with(List.of(), NotYetVisible.PATIENCE_NANOS + 1)).isEmpty();
    }

    @Test
    void atMostMaxIdsWaitOldestDroppedFirst() {
        Set<UUID> many = new HashSet<>();
        for (int i = 0; i < NotYetVisible.MAX_IDS + 5; i++) {
            UUID id = UUID.randomUUID();
            many.add(id);
            waiting.missed(List.of(id), Set.of(), i);
        }
        assertThat(waiting.size()).isEqualTo(NotYetVisible.MAX_IDS);
        assertThat(many).containsAll(waiting.with(List.of(), NotYetVisible.MAX_IDS + 5));
    }

    @Test
    void aMarkThatChangedEveryRowLeavesNothingWaiting() {
        waiting.missed(List.of(a), Set.of(), 0);
        waiting.allSeen();
        assertThat(waiting.with(List.of(b), 1)).containsExactly(b);
    }
}
