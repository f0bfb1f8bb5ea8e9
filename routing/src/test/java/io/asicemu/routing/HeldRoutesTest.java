package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reconciliation across reconnects, stepped on a hand-driven timer. */
class HeldRoutesTest {
    private static final Duration GRACE = Duration.ofSeconds(30);

    private final RecordingSink sink = new RecordingSink();
    private final FpmCounters counters = new FpmCounters();
    private final ManualGraceTimer timer = new ManualGraceTimer();
    private final HeldRoutes held = new HeldRoutes(sink, counters, timer, GRACE, 3);

    private static Route route(final String prefix, final String gateway) throws Exception {
        return new Route(
                RoutePrefix.parse(prefix),
                Route.Type.UNICAST,
                196,
                0,
                List.of(new NextHop(InetAddress.getByName(gateway), "Ethernet0", 1)));
    }

    @Test
    void shouldReconcileAtOnceOnAFirstConnection() throws Exception {
        held.connected();
        held.replace(route("10.1.0.0/24", "10.0.0.2"));
        assertThat(sink.calls()).containsExactly("connected", "reconciled", "replace 10.1.0.0/24");
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldKeepRoutesWhileDisconnectedAndWithdrawOnlyThoseNotResentWhenTheGraceEnds() throws Exception {
        held.connected();
        held.replace(route("10.1.0.0/24", "10.0.0.2"));
        held.replace(route("10.2.0.0/24", "10.0.0.2"));
        held.replace(route("10.3.0.0/24", "10.0.0.2"));
        held.disconnected();
        assertThat(sink.routes()).hasSize(3);

        held.connected();
        held.replace(route("10.1.0.0/24", "10.0.0.2")); // unchanged: no churn
        held.replace(route("10.2.0.0/24", "10.0.0.3")); // changed
        timer.advance(GRACE.minusNanos(1));
        assertThat(sink.routes()).hasSize(3);
        assertThat(held.reconciling()).isTrue();

        timer.advance(Duration.ofNanos(1));
        assertThat(sink.routes().keySet())
                .containsExactlyInAnyOrder(RoutePrefix.parse("10.1.0.0/24"), RoutePrefix.parse("10.2.0.0/24"));
        assertThat(sink.calls().subList(6, sink.calls().size()))
                .containsExactly("connected", "replace 10.2.0.0/24", "withdraw 10.3.0.0/24", "reconciled");
        assertThat(counters.get(FpmCounters.Event.ROUTES_UNCHANGED)).isEqualTo(1);
        assertThat(counters.get(FpmCounters.Event.ROUTES_WITHDRAWN_STALE)).isEqualTo(1);
        assertThat(counters.get(FpmCounters.Event.RECONCILIATIONS)).isEqualTo(1);
        assertThat(held.reconciling()).isFalse();
    }

    @Test
    void shouldWaitForTheNextConnectionWhenZebraLeavesDuringTheGrace() throws Exception {
        held.connected();
        held.replace(route("10.1.0.0/24", "10.0.0.2"));
        held.disconnected();
        held.connected();
        held.disconnected();
        timer.advance(GRACE.multipliedBy(2));
        assertThat(sink.routes()).hasSize(1);

        held.connected();
        timer.advance(GRACE);
        assertThat(sink.routes()).isEmpty();
    }

    @Test
    void shouldNotWithdrawARouteZebraWithdrewAndResentDuringTheGrace() throws Exception {
        held.connected();
        held.replace(route("10.1.0.0/24", "10.0.0.2"));
        held.disconnected();
        held.connected();
        held.withdraw(RoutePrefix.parse("10.1.0.0/24"));
        held.replace(route("10.1.0.0/24", "10.0.0.2"));
        timer.advance(GRACE);
        assertThat(sink.routes()).containsKey(RoutePrefix.parse("10.1.0.0/24"));
        assertThat(counters.get(FpmCounters.Event.ROUTES_WITHDRAWN_STALE)).isZero();
    }

    @Test
    void shouldRefuseNewPrefixesBeyondTheLimitButStillChangeHeldOnes() throws Exception {
        held.connected();
        for (int i = 1; i <= 4; i++) {
            held.replace(route("10." + i + ".0.0/24", "10.0.0.2"));
        }
        assertThat(sink.routes()).hasSize(3);
        assertThat(counters.skipped(SkipReason.TABLE_FULL)).isEqualTo(1);
        held.replace(route("10.1.0.0/24", "10.0.0.9"));
        assertThat(sink.route("10.1.0.0/24").nextHops().getFirst().gateway().getHostAddress())
                .isEqualTo("10.0.0.9");
        held.withdraw(RoutePrefix.parse("10.2.0.0/24"));
        held.replace(route("10.4.0.0/24", "10.0.0.2"));
        assertThat(sink.routes()).containsKey(RoutePrefix.parse("10.4.0.0/24"));
    }

    @Test
    void shouldCountAWithdrawOfAPrefixNotHeld() {
        held.connected();
        held.withdraw(RoutePrefix.parse("10.1.0.0/24"));
        assertThat(counters.skipped(SkipReason.UNKNOWN_PREFIX)).isEqualTo(1);
        assertThat(sink.calls()).containsExactly("connected", "reconciled");
    }
}
