package io.asicemu.scenario;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A scenario file: switches (each its own config_db.json), hosts attached to switch ports, switch-to-switch links,
 * flows, DCQCN settings and how long to run. Unknown fields are refused, naming them. Format: scenario/README.md.
 *
 * @param name the scenario's name, used in the report
 * @param seed makes the flows' entropy ports and any randomised workload reproducible
 * @param durationUs virtual time to run at most (µs)
 * @param sampleUs queue-depth and rate sampling period (µs)
 * @param dcqcn "paper", "nic", "off" (no congestion control: CE is not answered, the rate never drops), or a map:
 *     {@code base} ("paper"/"nic") plus NIC knob overrides by name
 * @param host NIC settings shared by all hosts
 * @param captures hosts whose traffic is written to {@code <host>-rx.pcap} and {@code <host>-tx.pcap}
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record ScenarioSpec(
        String name,
        long seed,
        long durationUs,
        long sampleUs,
        Object dcqcn,
        HostSettings host,
        List<SwitchSpec> switches,
        List<HostSpec> hosts,
        List<LinkSpec> links,
        List<FlowSpec> flows,
        List<WorkloadSpec> workloads,
        List<String> captures) {

    /** NIC settings: RC payload per packet, window in packets, ACK timeout, data DSCP and PFC priority. */
    public record HostSettings(int mtuPayload, int windowPackets, long ackTimeoutUs, int dataDscp, int dataPriority) {
        static HostSettings defaults() {
            return new HostSettings(1024, 256, 1000, 3, 3);
        }
    }

    /** @param config path of the switch's config_db.json, relative to the scenario file */
    public record SwitchSpec(String name, String config) {}

    /** @param attach {@code switch:port}, e.g. {@code leaf1:Ethernet0} */
    public record HostSpec(String name, String mac, String ip, String attach, long cableNs) {}

    /** A cable between two switch ports ({@code switch:port} each). */
    public record LinkSpec(String a, String b, long cableNs) {}

    /**
     * @param bytes bytes per flow, cut evenly over its QPs and messages (ignored with {@code sizeCdf})
     * @param qps queue pairs the flow's bytes are split over (each its own entropy port)
     * @param messages messages per QP (1: one RDMA WRITE per QP)
     * @param sizeCdf message sizes drawn from this CDF instead: rows of {bytes, cumulative probability}, the last
     *     probability 1; sizes are interpolated linearly between rows
     * @param meanGapUs messages of a QP posted with exponentially distributed gaps of this mean instead of all at
     *     the start (0: all at the start)
     */
    public record FlowSpec(
            String name,
            String from,
            String to,
            long bytes,
            long startUs,
            int qps,
            int messages,
            List<List<Double>> sizeCdf,
            double meanGapUs) {
        public FlowSpec(String name, String from, String to, long bytes, long startUs, int qps, int messages) {
            this(name, from, to, bytes, startUs, qps, messages, null, 0);
        }
    }

    /**
     * A traffic pattern expanded into flows named {@code <name>-<from>-<to>}.
     *
     * @param type {@code incast} (every sender to the receiver), {@code permutation} (each host to one other, a
     *     seeded derangement) or {@code all-to-all} (every ordered pair)
     */
    public record WorkloadSpec(
            String type,
            String name,
            List<String> hosts,
            List<String> senders,
            String receiver,
            long bytes,
            long startUs,
            int qps,
            int messages,
            List<List<Double>> sizeCdf,
            double meanGapUs) {}

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(JsonParser.Feature.ALLOW_COMMENTS)
            .build();

    public static ScenarioSpec load(Path file) {
        try {
            ScenarioSpec spec = MAPPER.readValue(Files.readString(file), ScenarioSpec.class);
            return spec.withDefaults();
        } catch (JsonMappingException e) {
            throw new ScenarioException(file + ": " + e.getOriginalMessage() + " at " + e.getPathReference());
        } catch (IOException e) {
            throw new ScenarioException(file + ": " + e.getMessage());
        }
    }

    ScenarioSpec withDefaults() {
        HostSettings h = host == null ? HostSettings.defaults() : host;
        return new ScenarioSpec(
                name == null ? "scenario" : name,
                seed,
                durationUs,
                sampleUs <= 0 ? 10 : sampleUs,
                dcqcn == null ? "paper" : dcqcn,
                h,
                orEmpty(switches),
                orEmpty(hosts),
                orEmpty(links),
                Workloads.expand(orEmpty(flows), orEmpty(workloads), seed),
                List.of(),
                orEmpty(captures));
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** The flows' DCQCN settings: a named base with knob overrides. */
    @SuppressWarnings("unchecked")
    io.asicemu.rdma.dcqcn.DcqcnParameters dcqcnParameters() {
        if (dcqcn instanceof String s) {
            return base(s);
        }
        if (dcqcn instanceof Map<?, ?> m) {
            Object baseName = m.containsKey("base") ? m.get("base") : "paper";
            return DcqcnKnobs.apply(base(String.valueOf(baseName)), (Map<String, Object>) m);
        }
        throw new ScenarioException("dcqcn: expected \"paper\", \"nic\", \"off\" or an object, got " + dcqcn);
    }

    boolean congestionControl() {
        return !"off".equals(dcqcn);
    }

    private static io.asicemu.rdma.dcqcn.DcqcnParameters base(String name) {
        return switch (name) {
            case "paper", "off" -> io.asicemu.rdma.dcqcn.DcqcnParameters.paperSettings();
            case "nic" -> io.asicemu.rdma.dcqcn.DcqcnParameters.nicDefaults();
            default -> throw new ScenarioException("dcqcn: base must be \"paper\" or \"nic\", got \"" + name + "\"");
        };
    }
}
