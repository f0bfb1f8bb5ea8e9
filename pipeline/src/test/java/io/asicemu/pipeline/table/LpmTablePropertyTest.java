package io.asicemu.pipeline.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** LPM against a brute-force reference (scan all prefixes, keep the longest match) on random tables and edits. */
class LpmTablePropertyTest {

    /** One prefix: (high, low, length) normalized, plus a value. */
    record Route(long high, long low, int length, int value) {
        static Route of(final boolean v6, final long high, final long low, final int length, final int value) {
            if (v6) {
                final long hm = length == 0 ? 0 : length >= 64 ? -1L : -1L << (64 - length);
                final long lm = length <= 64 ? 0 : length >= 128 ? -1L : -1L << (128 - length);
                return new Route(high & hm, low & lm, length, value);
            }
            final long m = length == 0 ? 0 : (0xffff_ffffL << (32 - length)) & 0xffff_ffffL;
            return new Route(0, low & 0xffff_ffffL & m, length, value);
        }

        boolean covers(final boolean v6, final long h, final long l) {
            return of(v6, h, l, length, value).equals(this);
        }
    }

    /** One edit: add (value > 0) or delete (value 0). */
    record Edit(Route route, boolean delete) {}

    private static int reference(final Map<String, Route> table, final boolean v6, final long h, final long l) {
        Route best = null;
        for (final Route r : table.values()) {
            if (r.covers(v6, h, l) && (best == null || r.length() > best.length())) {
                best = r;
            }
        }
        return best == null ? 0 : best.value();
    }

    private static String key(final Route r) {
        return r.high() + "/" + r.low() + "/" + r.length();
    }

    private static void apply(final LpmTable lpm, final Map<String, Route> table, final Edit e, final boolean v6) {
        final Route r = e.route();
        if (!e.delete()) {
            table.put(key(r), r);
            lpm.add(r.high(), r.low(), r.length(), r.value());
            return;
        }
        if (table.remove(key(r)) == null) {
            return;
        }
        Route cover = null;
        for (int len = r.length() - 1; len >= 0 && cover == null; len--) {
            cover = table.get(key(Route.of(v6, r.high(), r.low(), len, 0)));
        }
        lpm.delete(
                r.high(), r.low(), r.length(), cover == null ? -1 : cover.length(), cover == null ? 0 : cover.value());
    }

    @Provide
    Arbitrary<List<Edit>> v4Edits() {
        // Addresses drawn from a small pool of /8s so prefixes nest and overlap often.
        final Arbitrary<Long> address = Combinators.combine(
                        Arbitraries.of(10L, 11L, 192L), Arbitraries.integers().between(0, 0xffffff))
                .as((a, b) -> (a << 24) | b);
        final Arbitrary<Edit> edit = Combinators.combine(
                        address,
                        Arbitraries.integers().between(0, 32),
                        Arbitraries.integers().between(1, LpmTable.MAX_VALUE),
                        Arbitraries.integers().between(0, 3))
                .as((a, len, value, op) -> new Edit(Route.of(false, 0, a, len, value), op == 0));
        return edit.list().ofMinSize(1).ofMaxSize(120);
    }

    @Provide
    Arbitrary<List<Edit>> v6Edits() {
        final Arbitrary<Long> high = Combinators.combine(
                        Arbitraries.of(0x2001_0db8_0000_0000L, 0xfd00_0000_0000_0000L),
                        Arbitraries.longs().between(0, 0xffff_ffffL))
                .as((p, r) -> p | r);
        final Arbitrary<Edit> edit = Combinators.combine(
                        high,
                        Arbitraries.longs(),
                        Arbitraries.integers().between(0, 128),
                        Arbitraries.integers().between(1, 1000),
                        Arbitraries.integers().between(0, 3))
                .as((h, l, len, value, op) -> new Edit(Route.of(true, h, l, len, value), op == 0));
        return edit.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 200)
    void shouldAgreeWithBruteForceWhenIpv4RoutesAreAddedAndDeleted(
            @ForAll("v4Edits") final List<Edit> edits,
            @ForAll @Size(50) final List<@net.jqwik.api.constraints.IntRange(min = 0, max = 0xffffff) Integer> probes) {
        final LpmTable lpm = new LpmTable(32);
        final Map<String, Route> table = new LinkedHashMap<>();
        for (final Edit e : edits) {
            apply(lpm, table, e, false);
        }
        final List<Long> addresses = new ArrayList<>();
        for (final Route r : table.values()) {
            addresses.add(r.low());
            addresses.add(r.low() | ((1L << (32 - r.length())) - 1));
        }
        for (final int p : probes) {
            addresses.add((10L << 24) | p);
            addresses.add((192L << 24) | p);
        }
        for (final long a : addresses) {
            final int expected = reference(table, false, 0, a);
            assertThat(lpm.lookup(0, a)).as("lookup %s", Long.toHexString(a)).isEqualTo(expected);
            assertThat(lpm.lookupV4((int) a)).isEqualTo(expected);
        }
    }

    @Property(tries = 100)
    void shouldAgreeWithBruteForceWhenIpv6RoutesAreAddedAndDeleted(@ForAll("v6Edits") final List<Edit> edits) {
        final LpmTable lpm = new LpmTable(128);
        final Map<String, Route> table = new LinkedHashMap<>();
        for (final Edit e : edits) {
            apply(lpm, table, e, true);
        }
        for (final Route r : table.values()) {
            for (final long[] a : new long[][] {
                {r.high(), r.low()}, {r.high() | 1, r.low() ^ 0x8000_0000_0000_0001L}, {r.high(), r.low() | 0xff}
            }) {
                assertThat(lpm.lookup(a[0], a[1])).isEqualTo(reference(table, true, a[0], a[1]));
            }
        }
    }

    @Property(tries = 30)
    void shouldLeaveOtherLookupsUnchangedWhenAnUnrelatedRouteIsAdded(@ForAll("v4Edits") final List<Edit> edits) {
        final LpmTable lpm = new LpmTable(32);
        final Map<String, Route> table = new LinkedHashMap<>();
        for (final Edit e : edits) {
            apply(lpm, table, e, false);
        }
        final long probe = (11L << 24) | 0x123456;
        final int before = lpm.lookup(0, probe);
        lpm.add(0, 172L << 24 | 16L << 16, 12, 77);
        assertThat(lpm.lookup(0, probe)).isEqualTo(before);
        assertThat(lpm.lookup(0, (172L << 24) | (20L << 16) | 5)).isEqualTo(77);
    }

    @net.jqwik.api.Example
    void shouldHoldOneMillionIpv4RoutesInWellUnderOneGibibyte() {
        final LpmTable lpm = new LpmTable(32);
        final java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        for (int i = 0; i < 1_000_000; i++) {
            final long a = random.nextLong(1L << 32);
            final int len = i % 10 == 0 ? 20 + random.nextInt(13) : 24;
            lpm.add(0, a, len, 1 + (i & 0xffff));
        }
        final long bytes = (long) lpm.chunkCount() * 256 * 4 + (1 << 16) * 4;
        assertThat(bytes).as("trie bytes").isLessThan(512L << 20);
    }
}
