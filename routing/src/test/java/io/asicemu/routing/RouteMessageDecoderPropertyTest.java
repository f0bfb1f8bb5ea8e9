package io.asicemu.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Round trips through the test builder and the decoder, and the decoder's promise never to throw. */
class RouteMessageDecoderPropertyTest {
    private static final InterfaceNames NAMES =
            ifindex -> ifindex >= 1 && ifindex <= 64 ? "Ethernet" + 4 * (ifindex - 1) : null;

    private static List<Object> decode(final byte[] payload) {
        final RecordingHandler handler = new RecordingHandler();
        new RouteMessageDecoder(NAMES).decode(Unpooled.wrappedBuffer(payload), handler);
        return handler.events;
    }

    /** A route and the rtnexthop hops and ifindexes it was built from. */
    record Built(Route expected, byte[] message) {}

    @Provide
    Arbitrary<Built> routes() {
        final Arbitrary<Boolean> v6 = Arbitraries.of(true, false);
        return v6.flatMap(isV6 -> {
            final int bytes = isV6 ? 16 : 4;
            final Arbitrary<byte[]> address =
                    Arbitraries.bytes().array(byte[].class).ofSize(bytes);
            final Arbitrary<Integer> length = Arbitraries.integers().between(0, bytes * 8);
            final Arbitrary<List<Object[]>> hops = Combinators.combine(
                            address.injectNull(0.3),
                            Arbitraries.integers().between(1, 70),
                            Arbitraries.integers().between(0, 255))
                    .as((gw, ifindex, rtnhHops) -> new Object[] {gw, ifindex, rtnhHops})
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(16);
            return Combinators.combine(
                            address,
                            length,
                            Arbitraries.integers().between(0, 255),
                            Arbitraries.longs().between(0, 0xffffffffL),
                            hops,
                            Arbitraries.of(true, false))
                    .as((dst, len, protocol, metric, hopList, multipath) ->
                            build(isV6, dst, len, protocol, metric, hopList, multipath));
        });
    }

    private static Built build(
            final boolean v6,
            final byte[] destination,
            final int length,
            final int protocol,
            final long metric,
            final List<Object[]> hops,
            final boolean multipath) {
        final AddressFamily family = v6 ? AddressFamily.IPV6 : AddressFamily.IPV4;
        final RoutePrefix prefix = new RoutePrefix(family, destination, length);
        final RouteFrames.Message message = RouteFrames.newRoute(family.number(), length, protocol, 1)
                .attribute(1, prefix.address())
                .u32(6, metric);
        final List<NextHop> expected = new ArrayList<>();
        final List<RouteFrames.Hop> built = new ArrayList<>();
        final List<Object[]> used = multipath ? hops : hops.subList(0, 1);
        for (final Object[] hop : used) {
            final InetAddress gateway = address((byte[]) hop[0]);
            final int ifindex = (Integer) hop[1];
            final int rtnhHops = multipath ? (Integer) hop[2] : 0;
            final String name = NAMES.nameOf(ifindex);
            expected.add(new NextHop(gateway, name == null ? "unknown" : name, rtnhHops + 1));
            built.add(new RouteFrames.Hop(gateway, ifindex, rtnhHops));
        }
        if (multipath) {
            message.multipath(built);
        } else {
            message.u32(4, built.getFirst().ifindex());
            if (built.getFirst().gateway() != null) {
                message.attribute(5, built.getFirst().gateway().getAddress());
            }
        }
        return new Built(new Route(prefix, Route.Type.UNICAST, protocol, metric, expected), message.bytes());
    }

    private static InetAddress address(final byte[] bytes) {
        try {
            return bytes == null
                    ? null
                    : bytes.length == 16 ? Inet6Address.getByAddress(null, bytes, -1) : InetAddress.getByAddress(bytes);
        } catch (final java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Property
    void shouldDecodeWhatTheBuilderEncoded(@ForAll("routes") final Built built) {
        assertThat(decode(built.message())).containsExactly(built.expected());
    }

    @Property
    void shouldDecodeADeleteToItsPrefix(@ForAll("routes") final Built built) {
        final RoutePrefix prefix = built.expected().prefix();
        final byte[] delete = RouteFrames.deleteRoute(prefix.family().number(), prefix.length())
                .attribute(1, prefix.address())
                .bytes();
        assertThat(decode(delete)).containsExactly(prefix);
    }

    @Property
    void shouldNeverThrowOnAnyBytes(@ForAll @Size(max = 300) final byte[] payload) {
        assertThat(decode(payload)).isNotNull();
    }

    @Property
    void shouldNeverThrowOnACorruptedOrTruncatedRoute(
            @ForAll("routes") final Built built,
            @ForAll @IntRange(min = 0, max = 400) final int at,
            @ForAll final byte value,
            @ForAll @IntRange(min = 0, max = 400) final int cut) {
        final byte[] corrupted = built.message().clone();
        corrupted[at % corrupted.length] = value;
        final List<Object> events = decode(Arrays.copyOf(corrupted, Math.min(corrupted.length, cut)));
        assertThat(events)
                .allSatisfy(
                        event -> assertThat(event).isInstanceOfAny(Route.class, RoutePrefix.class, SkipReason.class));
    }
}
