package io.asicemu.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.testsupport.Tshark;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2:1 incast of RoCEv2 writes through a real switch pipeline in virtual time, with DCQCN endpoints: the design
 * notes' "ECN before PFC" ordering shown by experiment, the loop's counters agreeing end to end, and runs that repeat
 * to the byte.
 */
class IncastScenarioTest {
    @TempDir
    Path out;

    static Path resource(String name) {
        try {
            return Path.of(IncastScenarioTest.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void withKmaxBelowXoffEcnAndDcqcnHandleTheIncastAndNoPfcIsSent() throws IOException {
        Scenario.Result r = Scenario.run(resource("incast_ecn_before_pfc.json"), out);

        assertThat(r.allComplete()).isTrue();
        assertThat(r.framesLostOnCables()).isZero();
        assertThat(r.pfcFramesSent()).isZero();
        long ceAtReceiver = r.flows().stream()
                .mapToLong(Scenario.FlowResult::ceMarksReceived)
                .sum();
        assertThat(r.ecnMarked()).isPositive().isEqualTo(ceAtReceiver);
        for (Scenario.FlowResult f : r.flows()) {
            assertThat(f.cnpsSent()).as(f.name()).isPositive().isEqualTo(f.cnpsReceived());
            // The paper's settings cut once per CNP (no coalescing period).
            assertThat(f.rateCuts()).as(f.name()).isEqualTo(f.cnpsReceived());
            assertThat(f.packetsRetransmitted()).as(f.name()).isZero();
        }
        assertThat(r.queues()).allSatisfy(q -> assertThat(q.dropped()).isZero());
        String report = Files.readString(out.resolve("report.html"));
        assertThat(report).contains("<svg", "Goodput per flow", "Queue depth", "leaf:Ethernet8:3");
    }

    @Test
    void withTheThresholdsInvertedPfcPausesTheSendersAndNothingIsMarked() {
        Scenario.Result r = Scenario.run(resource("incast_pfc_before_ecn.json"), out);

        assertThat(r.allComplete()).isTrue();
        assertThat(r.ecnMarked()).isZero();
        assertThat(r.pfcFramesSent()).isPositive();
        assertThat(r.pfc()).allSatisfy(p -> assertThat(p.priority()).isEqualTo(3));
        assertThat(r.pfc()).extracting(Scenario.PfcResult::port).containsOnly("Ethernet0", "Ethernet4");
        assertThat(r.queues()).allSatisfy(q -> assertThat(q.dropped()).isZero());
        assertThat(r.flows()).allSatisfy(f -> assertThat(f.cnpsSent()).isZero());
    }

    @Test
    void tsharkSeesInTheHostCapturesWhatTheCountersSay() {
        ScenarioSpec base = ScenarioSpec.load(resource("incast_ecn_before_pfc.json"));
        ScenarioSpec spec = new ScenarioSpec(
                base.name(),
                base.seed(),
                base.durationUs(),
                base.sampleUs(),
                base.dcqcn(),
                base.host(),
                base.switches(),
                base.hosts(),
                base.links(),
                base.flows(),
                List.of(),
                List.of("h1", "h3"));
        Scenario.Result r =
                Scenario.run(spec, resource("incast_ecn_before_pfc.json").getParent(), out);

        long ce = r.flows().stream()
                .mapToLong(Scenario.FlowResult::ceMarksReceived)
                .sum();
        long cnps = r.flows().stream().mapToLong(Scenario.FlowResult::cnpsSent).sum();
        Path h3rx = out.resolve("h3-rx.pcap");
        Path h3tx = out.resolve("h3-tx.pcap");
        Path h1rx = out.resolve("h1-rx.pcap");
        assertThat(Tshark.fields(h3rx, "udp.dstport == 4791 && ip.dsfield.ecn == 3", "frame.number"))
                .hasSize((int) ce);
        assertThat(Tshark.fields(h3tx, "infiniband.bth.opcode == 129", "frame.number"))
                .hasSize((int) cnps);
        assertThat(Tshark.fields(h1rx, "infiniband.bth.opcode == 129", "frame.number"))
                .hasSize((int) r.flow("f1").cnpsReceived());
        // Every data frame h3 took in arrived routed: TTL 63, from the switch's MAC.
        assertThat(Tshark.fields(
                        h3rx,
                        "infiniband.bth.opcode == 10 || infiniband.bth.opcode == 6 "
                                + "|| infiniband.bth.opcode == 7 || infiniband.bth.opcode == 8",
                        "ip.ttl",
                        "eth.src"))
                .isNotEmpty()
                .allSatisfy(row -> assertThat(row).containsExactly("63", "02:aa:00:00:00:01"));
    }

    @Test
    void theSameScenarioGivesByteIdenticalResults() throws IOException {
        Scenario.run(resource("incast_ecn_before_pfc.json"), out.resolve("one"));
        Scenario.run(resource("incast_ecn_before_pfc.json"), out.resolve("two"));
        for (String file : List.of(
                "flows.csv",
                "messages.csv",
                "queues.csv",
                "pfc.csv",
                "queue_depth.csv",
                "rates.csv",
                "summary.txt",
                "report.html")) {
            assertThat(Files.readAllBytes(out.resolve("one").resolve(file)))
                    .as(file)
                    .isNotEmpty()
                    .isEqualTo(Files.readAllBytes(out.resolve("two").resolve(file)));
        }
    }
}
