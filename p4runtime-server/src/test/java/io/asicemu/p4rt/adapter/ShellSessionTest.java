package io.asicemu.p4rt.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.info.FixedPipelineInfo;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.pipeline.counter.PuntReason;
import io.asicemu.pipeline.port.InMemoryPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Preamble;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * The p4runtime-shell session of the module README ("Driving it from p4runtime-shell"), replayed the way that shell
 * encodes it, against the production backend behind a real gRPC server: tables, actions, fields and packet metadata
 * are found by the P4Info's name or alias (as {@code p4runtime_sh.context} does), values are parsed with the shell's
 * rules ({@code p4runtime_sh/bytes_utils.parse_value}: full-width big-endian bytes; dotted IPv4 text for 32-bit,
 * MAC text for 48-bit and IPv6 text for 128-bit fields; an integer otherwise, {@code 0x} allowed), and a PacketOut
 * carries every metadata of {@code packet_out} (the shell initialises them all to 0). The shell itself cannot be
 * installed on this machine kind (PyPI is not reachable), so this test is what shows that the session works.
 */
@Timeout(60)
class ShellSessionTest {
    private static final P4Info INFO = FixedPipelineInfo.p4info();
    private static final String CONFIG = """
        {"DEVICE_METADATA": {"localhost": {"mac": "02:aa:00:00:00:01"}},
         "PORT": {"Ethernet0": {"speed": "10000", "admin_status": "up"},
                  "Ethernet4": {"speed": "10000", "admin_status": "up"},
                  "Ethernet8": {"speed": "10000", "admin_status": "up"}}}
        """;

    private final LoopbackRig rig;
    private final LoopbackRig.Controller controller;

    ShellSessionTest() throws Exception {
        rig = new LoopbackRig(CONFIG, true);
        // p4runtime-sh --grpc-addr …:9559 --device-id 1 --election-id 0,1
        controller = rig.controller(1);
    }

    @AfterEach
    void close() throws Exception {
        controller.close();
        rig.close();
    }

    @Test
    void shouldRouteCountAndCarryPacketsAsTheReadmesShellSessionWritesThem() throws Exception {
        final String eth0 = Integer.toString(rig.port("Ethernet0"));
        final String eth8 = Integer.toString(rig.port("Ethernet8"));
        // te = table_entry["router_interface_table"](action="set_port_and_src_mac"); te.match[...] = ...; te.insert()
        insert(
                "router_interface_table",
                "set_port_and_src_mac",
                List.of("router_interface_id", "1"),
                "port",
                eth0,
                "src_mac",
                "02:aa:00:00:00:01");
        insert(
                "router_interface_table",
                "set_port_and_src_mac",
                List.of("router_interface_id", "3"),
                "port",
                eth8,
                "src_mac",
                "02:aa:00:00:00:01");
        // an IPv4 neighbor in the bit<128> neighbor_id: IPv6 text in the shell, "::10.0.12.2" == 0x0a000c02
        assertThat(new BigInteger(1, shellValue("::10.0.12.2", 128).toByteArray()))
                .isEqualTo(BigInteger.valueOf(0x0a000c02L));
        insert(
                "neighbor_table",
                "set_dst_mac",
                List.of("router_interface_id", "3", "neighbor_id", "::10.0.12.2"),
                "dst_mac",
                "02:bb:00:00:00:02");
        insert(
                "nexthop_table",
                "set_ip_nexthop",
                List.of("nexthop_id", "100"),
                "router_interface_id",
                "3",
                "neighbor_id",
                "::10.0.12.2");
        // the alias set_nexthop_id is routing_lookup's; routing_resolution's is "routing_resolution.set_nexthop_id"
        insert("ipv4_table", "set_nexthop_id", List.of("vrf_id", "0", "ipv4_dst", "10.2.1.2/32"), "nexthop_id", "100");

        // table_entry["ipv4_table"].read(lambda e: print(e))
        final List<Entity> routes = read(Entity.newBuilder()
                .setTableEntry(TableEntry.newBuilder().setTableId(id(INFO.getTablesList(), "ipv4_table")))
                .build());
        assertThat(routes).hasSize(1);
        final TableEntry route = routes.get(0).getTableEntry();
        assertThat(route.getAction().getAction().getActionId()).isEqualTo(id(INFO.getActionsList(), "set_nexthop_id"));
        assertThat(new BigInteger(
                        1, route.getAction().getAction().getParams(0).getValue().toByteArray()))
                .isEqualTo(BigInteger.valueOf(100));

        // a frame from a host behind Ethernet0 to 10.2.1.2 leaves Ethernet8 for the neighbor
        final InMemoryPort in = rig.ports.get("Ethernet0");
        final InMemoryPort out = rig.ports.get("Ethernet8");
        final byte[] frame = udp(0x02aa00000001L, 0x020000000102L, 0x0a000102, 0x0a020102);
        assertThat(in.inject(frame, rig.clock.nowNs())).isTrue();
        step(() -> out.transmittedCount() > 0);
        assertThat(out.transmittedCount()).isEqualTo(1);
        final byte[] routed = out.transmitted(0);
        assertThat(Arrays.copyOf(routed, 6)).isEqualTo(mac(0x02bb00000002L));
        assertThat(routed[22] & 0xff).as("TTL decremented").isEqualTo(63);
        out.clearTransmitted();

        // counter_entry["port_in_counter"].read(lambda c: print(c)): a wildcard read, one entry per index
        final List<Entity> counters = read(Entity.newBuilder()
                .setCounterEntry(CounterEntry.newBuilder().setCounterId(id(INFO.getCountersList(), "port_in_counter")))
                .build());
        final CounterEntry ethernet0In = counters.stream()
                .map(Entity::getCounterEntry)
                .filter(c -> c.getIndex().getIndex() == rig.port("Ethernet0"))
                .findFirst()
                .orElseThrow();
        assertThat(ethernet0In.getData().getPacketCount()).isEqualTo(1);
        assertThat(ethernet0In.getData().getByteCount()).isEqualTo(frame.length);

        // te = table_entry["acl_ingress_table"](action="acl_trap"); te.match["ether_type"] = "0x0806&&&0xffff"; ...
        final WriteRequest.Builder trap = write();
        trap.addUpdates(Update.newBuilder()
                .setType(Update.Type.INSERT)
                .setEntity(Entity.newBuilder()
                        .setTableEntry(entry(
                                        "acl_ingress_table",
                                        "acl_trap",
                                        List.of(),
                                        "cpu_queue",
                                        "0",
                                        "punt_reason",
                                        "1")
                                .setPriority(10)
                                .addMatch(FieldMatch.newBuilder()
                                        .setFieldId(fieldId("acl_ingress_table", "ether_type"))
                                        .setTernary(FieldMatch.Ternary.newBuilder()
                                                .setValue(shellValue("0x0806", 16))
                                                .setMask(shellValue("0xffff", 16)))))));
        rig.stub.write(trap.build());
        step(() -> true);
        // packet_in.sniff(lambda m: print(m), timeout=1): an ARP request from the host
        final byte[] arp = LoopbackRig.arpRequest();
        assertThat(in.inject(arp, rig.clock.nowNs())).isTrue();
        step(() -> false);
        final StreamMessageResponse punted = controller.next();
        assertThat(punted.getPacket().getPayload().toByteArray()).isEqualTo(arp);
        assertThat(metadata(punted, "packet_in", "ingress_port")).isEqualTo(rig.port("Ethernet0"));
        assertThat(metadata(punted, "packet_in", "punt_reason")).isEqualTo(PuntReason.ACL_TRAP.index());

        // p = packet_out(payload=b"...", egress_port="<Ethernet8>"); p.send()
        final PacketOut.Builder packetOut = PacketOut.newBuilder().setPayload(ByteString.copyFrom(arp));
        for (final var md : controllerMetadata("packet_out").getMetadataList()) {
            final String value = md.getName().equals("egress_port") ? eth8 : "0";
            packetOut.addMetadata(PacketMetadata.newBuilder()
                    .setMetadataId(md.getId())
                    .setValue(shellValue(value, md.getBitwidth())));
        }
        controller.out.onNext(
                StreamMessageRequest.newBuilder().setPacket(packetOut).build());
        step(() -> out.transmittedCount() > 0);
        assertThat(out.transmittedCount()).isEqualTo(1);
        assertThat(out.transmitted(0)).isEqualTo(arp);
    }

    /** {@code bytes_utils.parse_value(text, bitwidth)} of p4runtime-shell. */
    static ByteString shellValue(final String text, final int bitwidth) throws Exception {
        final int bytes = (bitwidth + 7) / 8;
        if (bitwidth == 32 && text.contains(".")) {
            return ByteString.copyFrom(InetAddress.getByName(text).getAddress());
        }
        if (bitwidth == 48 && text.contains(":")) {
            return ByteString.copyFrom(mac(Long.parseLong(text.replace(":", ""), 16)));
        }
        if (bitwidth == 128 && text.contains(":")) {
            final byte[] address = InetAddress.getByName(text).getAddress();
            final byte[] v6 = new byte[16];
            if (address.length == 4) { // Java folds ::ffff:a.b.c.d to IPv4; Python's IPv6Address keeps the 16 bytes
                v6[10] = (byte) 0xff;
                v6[11] = (byte) 0xff;
            }
            System.arraycopy(address, 0, v6, 16 - address.length, address.length);
            return ByteString.copyFrom(v6);
        }
        final BigInteger value =
                text.startsWith("0x") ? new BigInteger(text.substring(2), 16) : new BigInteger(text, 10);
        final byte[] raw = value.toByteArray();
        final byte[] full = new byte[bytes];
        final int n = Math.min(raw.length, bytes);
        System.arraycopy(raw, raw.length - n, full, bytes - n, n);
        return ByteString.copyFrom(full);
    }

    private void insert(final String table, final String action, final List<String> match, final String... params)
            throws Exception {
        rig.stub.write(write().addUpdates(Update.newBuilder()
                        .setType(Update.Type.INSERT)
                        .setEntity(Entity.newBuilder().setTableEntry(entry(table, action, match, params))))
                .build());
        step(() -> true);
    }

    /** The shell's TableEntry: match fields by name ("a.b.c.d/len" for LPM), action parameters by name. */
    private static TableEntry.Builder entry(
            final String table, final String action, final List<String> match, final String... params)
            throws Exception {
        final var t = first(INFO.getTablesList(), x -> named(x.getPreamble(), table));
        final TableEntry.Builder e =
                TableEntry.newBuilder().setTableId(t.getPreamble().getId());
        for (int i = 0; i < match.size(); i += 2) {
            final String name = match.get(i);
            final var f = first(t.getMatchFieldsList(), x -> x.getName().equals(name));
            final String text = match.get(i + 1);
            final FieldMatch.Builder m = FieldMatch.newBuilder().setFieldId(f.getId());
            switch (f.getMatchType()) {
                case EXACT -> m.setExact(FieldMatch.Exact.newBuilder().setValue(shellValue(text, f.getBitwidth())));
                case LPM -> {
                    final String[] prefix = text.split("/");
                    m.setLpm(FieldMatch.LPM
                            .newBuilder()
                            .setValue(shellValue(prefix[0], f.getBitwidth()))
                            .setPrefixLen(Integer.parseInt(prefix[1])));
                }
                default -> throw new IllegalArgumentException("not used by the session: " + f.getMatchType());
            }
            e.addMatch(m);
        }
        final var a = first(INFO.getActionsList(), x -> named(x.getPreamble(), action));
        final Action.Builder call =
                Action.newBuilder().setActionId(a.getPreamble().getId());
        for (int i = 0; i < params.length; i += 2) {
            final String name = params[i];
            final var p = first(a.getParamsList(), x -> x.getName().equals(name));
            call.addParams(Action.Param.newBuilder()
                    .setParamId(p.getId())
                    .setValue(shellValue(params[i + 1], p.getBitwidth())));
        }
        return e.setAction(TableAction.newBuilder().setAction(call));
    }

    /** The first element the lookup accepts (the shell resolves every name by such a scan of the P4Info). */
    private static <T> T first(final List<T> elements, final Predicate<? super T> accepted) {
        return elements.stream().filter(accepted).findFirst().orElseThrow();
    }

    private static boolean named(final Preamble p, final String name) {
        return p.getName().equals(name) || p.getAlias().equals(name);
    }

    private static int id(final List<?> objects, final String name) {
        for (final Object o : objects) {
            final Preamble p = preamble(o);
            if (named(p, name)) {
                return p.getId();
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static Preamble preamble(final Object o) {
        if (o instanceof p4.config.v1.P4InfoOuterClass.Table t) {
            return t.getPreamble();
        }
        if (o instanceof p4.config.v1.P4InfoOuterClass.Action a) {
            return a.getPreamble();
        }
        return ((p4.config.v1.P4InfoOuterClass.Counter) o).getPreamble();
    }

    private static int fieldId(final String table, final String field) {
        return INFO.getTablesList().stream()
                .filter(t -> named(t.getPreamble(), table))
                .flatMap(t -> t.getMatchFieldsList().stream())
                .filter(f -> f.getName().equals(field))
                .findFirst()
                .orElseThrow()
                .getId();
    }

    private static p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata controllerMetadata(final String name) {
        return first(INFO.getControllerPacketMetadataList(), c -> named(c.getPreamble(), name));
    }

    private static long metadata(final StreamMessageResponse m, final String header, final String name) {
        final int id = first(
                        controllerMetadata(header).getMetadataList(),
                        x -> x.getName().equals(name))
                .getId();
        return m.getPacket().getMetadataList().stream()
                .filter(x -> x.getMetadataId() == id)
                .map(x -> new BigInteger(1, x.getValue().toByteArray()).longValue())
                .findFirst()
                .orElseThrow();
    }

    private static WriteRequest.Builder write() {
        return WriteRequest.newBuilder()
                .setDeviceId(1)
                .setElectionId(Uint128.newBuilder().setLow(1));
    }

    private List<Entity> read(final Entity filter) {
        final List<Entity> out = new java.util.ArrayList<>();
        rig.stub
                .read(ReadRequest.newBuilder()
                        .setDeviceId(1)
                        .addEntities(filter)
                        .build())
                .forEachRemaining(r -> out.addAll(r.getEntitiesList()));
        return out;
    }

    /** Steps the data plane (commands, frames, timers) until {@code done} or 2 s, at least once. */
    private void step(final java.util.function.BooleanSupplier done) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        do {
            rig.pipeline.agent().doWork();
            final long next = rig.pipeline.agent().nextDeadlineNs();
            if (next != Long.MAX_VALUE && next > rig.clock.nowNs()) {
                rig.clock.nowNs(Math.min(next, rig.clock.nowNs() + 1_000_000L));
            }
        } while (!done.getAsBoolean() && System.nanoTime() < deadline);
    }

    private static byte[] mac(final long mac) {
        final byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) (mac >>> (40 - 8 * i));
        }
        return b;
    }

    private static byte[] udp(final long dstMac, final long srcMac, final int src, final int dst) {
        final MemorySegment s = Arena.ofAuto().allocate(256);
        final int length = new FrameBuilder()
                .reset()
                .macs(dstMac, srcMac)
                .ipv4(src, dst)
                .ttl(64)
                .udpPorts(49152, 4791)
                .bth(0x04, 0x100, 1)
                .buildRoce(s, 0, 64);
        return s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }
}
