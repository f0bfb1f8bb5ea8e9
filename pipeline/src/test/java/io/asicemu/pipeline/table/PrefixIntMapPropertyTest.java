package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link PrefixIntMap} against a {@link HashMap} of the same prefixes, IPv4 and IPv6 mixed. */
class PrefixIntMapPropertyTest {
    private static final int MISSING = Integer.MIN_VALUE;

    /** One step: put (value ≥ 0) or remove (value -1). Few distinct addresses, so steps hit the same keys. */
    record Step(IpPrefix prefix, int value) {}

    @Provide
    Arbitrary<Step> steps() {
        final Arbitrary<IpPrefix> v4 = Combinators.combine(
                        Arbitraries.longs().between(0, 7).map(a -> 0x0A00_0000L | a << 8 | a),
                        Arbitraries.integers().between(0, 32))
                .as((a, l) -> new IpPrefix(false, 0, a, l));
        final Arbitrary<IpPrefix> v6 = Combinators.combine(
                        Arbitraries.longs().between(0, 7).map(a -> 0x2001_0db8_0000_0000L | a),
                        Arbitraries.longs().between(0, 3),
                        Arbitraries.integers().between(0, 128))
                .as((h, lo, l) -> new IpPrefix(true, h, lo, l));
        return Combinators.combine(
                        Arbitraries.oneOf(v4, v6), Arbitraries.integers().between(-1, Integer.MAX_VALUE))
                .as(Step::new);
    }

    @Property(tries = 200)
    void behavesAsAMapOfPrefixes(@ForAll @Size(max = 200) final List<@From("steps") Step> steps) {
        final PrefixIntMap map = new PrefixIntMap(MISSING);
        final Map<IpPrefix, Integer> reference = new HashMap<>();
        for (final Step s : steps) {
            final Integer before = reference.get(s.prefix());
            final int expected = before == null ? MISSING : before;
            if (s.value() < 0) {
                reference.remove(s.prefix());
                assertThat(map.removeKey(s.prefix())).isEqualTo(expected);
            } else {
                reference.put(s.prefix(), s.value());
                assertThat(map.put(s.prefix(), s.value())).isEqualTo(expected);
            }
            assertThat(map.getValue(s.prefix())).isEqualTo(s.value() < 0 ? MISSING : s.value());
            assertThat(map.size()).isEqualTo(reference.size());
        }
        assertThat(map).isEqualTo(reference);
        assertThat(new HashMap<>(map)).isEqualTo(reference);
        final Map<IpPrefix, Integer> visited = new HashMap<>();
        map.forEachInt((p, v) -> assertThat(visited.put(p, v)).isNull());
        assertThat(visited).isEqualTo(reference);
        final PrefixIntMap copy = new PrefixIntMap(map);
        map.clear();
        assertThat(map).isEmpty();
        assertThat(copy).isEqualTo(reference);
    }

    @Test
    void keepsFamiliesAndLengthsApart() {
        final PrefixIntMap map = new PrefixIntMap(0);
        map.put(IpPrefix.parse("10.0.0.0/8"), 1);
        map.put(IpPrefix.parse("10.0.0.0/16"), 2);
        map.put(IpPrefix.parse("0.0.0.0/0"), 3);
        map.put(IpPrefix.parse("::a00:0/128"), 4); // IPv6 whose low 64 bits are those of 10.0.0.0
        map.put(IpPrefix.parse("::/0"), 5);
        assertThat(map.getValue(IpPrefix.parse("10.0.0.0/8"))).isEqualTo(1);
        assertThat(map.getValue(IpPrefix.parse("10.0.0.0/16"))).isEqualTo(2);
        assertThat(map.getValue(IpPrefix.parse("10.0.0.0/24"))).isZero();
        assertThat(map.getValue(IpPrefix.parse("0.0.0.0/0"))).isEqualTo(3);
        assertThat(map.getValue(IpPrefix.parse("::/0"))).isEqualTo(5);
        assertThat(map.getValue(IpPrefix.parse("::a00:0/128"))).isEqualTo(4);
        assertThat(map.getValue(IpPrefix.parse("10.0.0.0/32"))).isZero();
        assertThat(map.get(IpPrefix.parse("255.255.255.255/32"))).isNull();
        assertThat(map.containsKey("10.0.0.0/8")).isFalse();
        assertThat(map).hasSize(5);
    }

    @Test
    void refusesTheMissingValue() {
        final PrefixIntMap map = new PrefixIntMap(0);
        assertThatThrownBy(() -> map.put(IpPrefix.parse("10.0.0.0/8"), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(map).isEmpty();
    }
}
