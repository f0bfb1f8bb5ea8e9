package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A Write's view of a model map: fetched at first use, copied at first change, the committed map never touched. */
class StagedMapTest {
    @Test
    void theSourceIsFetchedOnlyWhenFirstReadAndOnlyOnce() {
        final AtomicInteger fetches = new AtomicInteger();
        final StagedMap<Integer, Integer> staged = new StagedMap<>(
                () -> {
                    fetches.incrementAndGet();
                    return Map.of(1, 10);
                },
                HashMap::new);

        assertThat(fetches).hasValue(0);
        assertThat(staged.get(1)).isEqualTo(10);
        assertThat(staged.containsKey(2)).isFalse();
        assertThat(staged.size()).isEqualTo(1);
        assertThat(fetches).hasValue(1);
        assertThat(staged.changed()).isFalse();
    }

    @Test
    void aChangeGoesToTheWritesCopyAndNeverToTheCommittedMap() {
        final Map<Integer, Integer> committed = new HashMap<>(Map.of(1, 10, 2, 20));
        final StagedMap<Integer, Integer> staged = new StagedMap<>(() -> committed, HashMap::new);

        staged.put(3, 30);
        staged.remove(1);

        assertThat(staged.changed()).isTrue();
        assertThat(staged).containsExactlyInAnyOrderEntriesOf(Map.of(2, 20, 3, 30));
        assertThat(staged.values()).containsExactlyInAnyOrder(20, 30);
        assertThat(committed).containsExactlyInAnyOrderEntriesOf(Map.of(1, 10, 2, 20));
    }

    @Test
    void beforeItsFirstChangeTheViewsCannotChangeTheCommittedMap() {
        final Map<Integer, Integer> committed = new HashMap<>(Map.of(1, 10));
        final StagedMap<Integer, Integer> staged = new StagedMap<>(() -> committed, HashMap::new);

        assertThatThrownBy(() -> staged.keySet().remove(1)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> staged.values().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> staged.entrySet().iterator().next().setValue(11))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(committed).containsExactlyEntriesOf(Map.of(1, 10));
        assertThat(staged.changed()).isFalse();
    }

    @Test
    void aFreshSourceIsChangedInPlaceAndKeepsItsOrder() {
        final LinkedHashMap<String, Integer> fresh = new LinkedHashMap<>();
        fresh.put("b", 2);
        fresh.put("a", 1);
        final StagedMap<String, Integer> staged = new StagedMap<>(() -> fresh, UnaryOperator.identity());

        staged.put("c", 3);

        assertThat(staged.keySet()).containsExactly("b", "a", "c");
        assertThat(fresh).containsKey("c");
    }
}
