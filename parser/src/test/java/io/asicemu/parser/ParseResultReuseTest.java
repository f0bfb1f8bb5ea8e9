package io.asicemu.parser;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * A {@link ParseResult} reused frame after frame (as the data plane reuses one per batch slot) reads exactly as a
 * fresh one would: every field, for any sequence of frame kinds, tags, truncations and mutations. The result clears
 * only the field groups the previous frame wrote, so a stale value left behind would show here.
 */
class ParseResultReuseTest {
    private static final int[] PROTOCOLS = {
        -1,
        EtherType.PROTO_TCP,
        EtherType.PROTO_ICMP,
        EtherType.PROTO_ICMPV6,
        EtherType.PROTO_IPV6_NONXT,
        EtherType.PROTO_UDP,
        0,
        43,
        44,
        51,
        60
    };
    private static final List<Field> FIELDS = compared();

    private final MemorySegment frame = Arena.ofAuto().allocate(16_384);
    private final FrameBuilder builder = new FrameBuilder();

    record FrameSpec(int shape, int tags, int opcode, int payload, int protocol, List<Integer> mutations, int cut) {}

    @Property(tries = 1500)
    void shouldReadAsAFreshResultWhenReusedAcrossFrames(
            @ForAll @Size(min = 1, max = 12) final List<@From("frames") FrameSpec> frames)
            throws IllegalAccessException {
        final PacketParser parser = new PacketParser(14, PacketParser.MAX_FRAME_LENGTH);
        final ParseResult reused = new ParseResult();
        for (final FrameSpec spec : frames) {
            final int length = build(spec);
            final ParseResult fresh = new ParseResult();
            final ParseReason expected = parser.parse(frame, 0, length, fresh);

            assertThat(parser.parse(frame, 0, length, reused)).isEqualTo(expected);
            for (final Field field : FIELDS) {
                assertThat(field.get(reused))
                        .as(field.getName() + " after " + spec)
                        .isEqualTo(field.get(fresh));
            }
        }
    }

    @Provide
    Arbitrary<FrameSpec> frames() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 9),
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.integers().between(0, 0x1F),
                        Arbitraries.integers().between(0, 120),
                        Arbitraries.integers().between(0, PROTOCOLS.length - 1),
                        Arbitraries.integers().between(0, 0xFFFFFF).list().ofMaxSize(4),
                        Arbitraries.integers().between(0, 200))
                .as((shape, tags, opcode, payload, protocol, mutations, cut) ->
                        new FrameSpec(shape, tags, opcode, payload, PROTOCOLS[protocol], mutations, cut));
    }

    private int build(final FrameSpec spec) {
        builder.reset().bth(spec.opcode(), 0x123, 1);
        if (spec.tags() == 1) {
            builder.vlan(10, 1);
        } else if (spec.tags() == 2) {
            builder.doubleTagged(EtherType.QINQ, 10, 1, 20, 2);
        }
        final boolean v6 = spec.shape() % 2 == 1;
        if (v6) {
            builder.ipv6(1, 2, 3, 4);
        }
        final int length = switch (spec.shape()) {
            case 0, 1 -> builder.buildRoce(frame, 0, spec.payload());
            case 2, 3 -> builder.udpPorts(1000, 2000).buildUdp(frame, 0, spec.payload());
            case 4, 5 -> builder.buildIcmpEcho(frame, 0, 7, 8, spec.payload());
            case 6 -> builder.buildArp(frame, 0, 1, 1, 2, 3, 4);
            case 7 -> MacControlFrames.writePfc(frame, 0, 1, 0xFF, new int[8], false);
            case 8 -> MacControlFrames.writePause(frame, 0, 1, 0xFFFF, false);
            default -> randomBytes(spec);
        };
        final int l3 = EthernetFlyweight.HEADER_LENGTH + VlanTagFlyweight.TAG_LENGTH * spec.tags();
        if (spec.protocol() >= 0 && spec.shape() < 6) {
            NetworkOrder.u8(frame, l3 + (v6 ? 6 : 9), spec.protocol());
        }
        for (final int mutation : spec.mutations()) {
            NetworkOrder.u8(frame, (mutation >>> 8) % length, mutation);
        }
        return Math.max(0, length - spec.cut());
    }

    private int randomBytes(final FrameSpec spec) {
        final int length = 14 + spec.payload();
        long x = spec.opcode() * 0x9E37_79B9_7F4A_7C15L + spec.payload();
        for (int i = 0; i < length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            NetworkOrder.u8(frame, i, (int) (x >>> 56));
        }
        // Random headers behind each EtherType the parser walks.
        final int[] etherTypes = {
            EtherType.IPV4,
            EtherType.IPV6,
            EtherType.ARP,
            EtherType.VLAN,
            EtherType.QINQ,
            EtherType.MAC_CONTROL,
            EtherType.LLDP,
            0x1234
        };
        NetworkOrder.u16(frame, EthernetFlyweight.ETHER_TYPE_OFFSET, etherTypes[spec.opcode() % etherTypes.length]);
        return length;
    }

    private static List<Field> compared() {
        final List<Field> fields = new ArrayList<>();
        for (final Field field : ParseResult.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    || field.getName().equals("groups")
                    || field.getName().equals("stale")) {
                continue;
            }
            field.setAccessible(true);
            fields.add(field);
        }
        return fields;
    }
}
