package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of zebra's replaces and withdraws, reconnects and time against a plain model: the sink always
 * holds what the model says, never receives a replace equal to what it holds, and never a withdraw of what it lacks.
 */
class HeldRoutesPropertyTest {
    private static final Duration GRACE = Duration.ofSeconds(10);

    /** One step: 0 replace, 1 withdraw, 2 reconnect, 3 time passes (half a grace period). */
    record Step(int kind, int prefix, int variant) {}

    @Provide
    Arbitrary<List<Step>> steps() {
        return Arbitraries.integers()
                .between(0, 9)
                .map(k -> k < 5 ? 0 : k < 7 ? 1 : k < 8 ? 2 : 3)
                .flatMap(kind -> Arbitraries.integers()
                        .between(0, 7)
                        .flatMap(prefix ->
                                Arbitraries.integers().between(0, 2).map(variant -> new Step(kind, prefix, variant))))
                .list()
                .ofMaxSize(60);
    }

    private static Route route(final int prefix, final int variant) {
        try {
            return new Route(
                    RoutePrefix.parse("10." + prefix + ".0.0/16"),
                    Route.Type.UNICAST,
                    186,
                    0,
                    List.of(new NextHop(InetAddress.getByName("10.255.0." + (variant + 1)), "Ethernet0", 1)));
        } catch (final java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A sink that holds routes and refuses calls that would be churn. */
    private static final class StrictSink implements RouteSink {
        final Map<RoutePrefix, Route> routes = new HashMap<>();

        @Override
        public void replace(final Route route) {
            assertThat(routes.get(route.prefix()))
                    .as("a replace equal to what the sink holds")
                    .isNotEqualTo(route);
            routes.put(route.prefix(), route);
        }

        @Override
        public void withdraw(final RoutePrefix prefix) {
            assertThat(routes.remove(prefix))
                    .as("a withdraw of a prefix the sink lacks")
                    .isNotNull();
        }
    }

    @Property
    void shouldLeaveTheSinkWithWhatTheModelHolds(@ForAll("steps") final List<Step> steps) {
        final StrictSink sink = new StrictSink();
        final ManualGraceTimer timer = new ManualGraceTimer();
        final HeldRoutes held = new HeldRoutes(sink, new FpmCounters(), timer, GRACE, 1_000);
        final Map<RoutePrefix, Route> model = new HashMap<>();
        final Set<RoutePrefix> resent = new HashSet<>();
        long reconcileAtNs = -1;
        long nowNs = 0;
        held.connected();
        for (final Step step : steps) {
            switch (step.kind()) {
                case 0 -> {
                    final Route route = route(step.prefix(), step.variant());
                    held.replace(route);
                    model.put(route.prefix(), route);
                    resent.add(route.prefix());
                }
                case 1 -> {
                    final RoutePrefix prefix = route(step.prefix(), 0).prefix();
                    held.withdraw(prefix);
                    model.remove(prefix);
                    resent.add(prefix);
                }
                case 2 -> {
                    held.disconnected();
                    held.connected();
                    resent.clear();
                    reconcileAtNs = model.isEmpty() ? -1 : nowNs + GRACE.toNanos();
                }
                default -> {
                    nowNs += GRACE.toNanos() / 2;
                    timer.advance(GRACE.dividedBy(2));
                    if (reconcileAtNs >= 0 && nowNs >= reconcileAtNs) {
                        model.keySet().retainAll(resent);
                        reconcileAtNs = -1;
                    }
                }
            }
            assertThat(sink.routes).isEqualTo(model);
            assertThat(held.size()).isEqualTo(model.size());
        }
    }
}
