package io.asicemu.p4rt.info;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Preamble;

/** The P4_16 documentation source and the shipped text P4Info must declare the same objects (names and ids). */
class PipelineSourceConsistencyTest {
    private static final Pattern NAME_ID = Pattern.compile("@name\\(\"([^\"]+)\"\\)\\s*@id\\((0x[0-9a-fA-F]+)\\)");
    private static final Pattern TABLE_SIZE =
            Pattern.compile("@name\\(\"([^\"]+)\"\\)[^\\n]*\\n\\s*table [^{]*\\{(.*?)size = (\\d+);", Pattern.DOTALL);

    private static Map<String, Integer> fromP4Info(final P4Info info) {
        final Map<String, Integer> m = new TreeMap<>();
        info.getTablesList().forEach(x -> put(m, x.getPreamble()));
        info.getActionsList().forEach(x -> put(m, x.getPreamble()));
        info.getActionProfilesList().forEach(x -> put(m, x.getPreamble()));
        info.getCountersList().forEach(x -> put(m, x.getPreamble()));
        info.getDirectCountersList().forEach(x -> put(m, x.getPreamble()));
        info.getMetersList().forEach(x -> put(m, x.getPreamble()));
        info.getDirectMetersList().forEach(x -> put(m, x.getPreamble()));
        info.getRegistersList().forEach(x -> put(m, x.getPreamble()));
        info.getDigestsList().forEach(x -> put(m, x.getPreamble()));
        info.getControllerPacketMetadataList().forEach(x -> put(m, x.getPreamble()));
        return m;
    }

    private static void put(final Map<String, Integer> m, final Preamble p) {
        m.put(p.getName(), p.getId());
    }

    private static String source() throws IOException {
        return Files.readString(Path.of("src/main/p4/asic_emu_fixed.p4"));
    }

    @Test
    void shouldDeclareSameNamesAndIdsWhenComparingP4SourceWithP4Info() throws IOException {
        final Map<String, Integer> fromSource = new TreeMap<>();
        final Matcher m = NAME_ID.matcher(source());
        while (m.find()) {
            fromSource.put(m.group(1), Integer.decode(m.group(2)));
        }
        assertThat(fromSource).isEqualTo(fromP4Info(FixedPipelineInfo.p4info()));
    }

    @Test
    void shouldDeclareSameTableSizesWhenComparingP4SourceWithP4Info() throws IOException {
        final Map<String, Long> fromSource = new TreeMap<>();
        final Matcher m = TABLE_SIZE.matcher(source());
        while (m.find()) {
            fromSource.put(m.group(1), Long.parseLong(m.group(3)));
        }
        final Map<String, Long> fromInfo = new TreeMap<>();
        FixedPipelineInfo.p4info()
                .getTablesList()
                .forEach(t -> fromInfo.put(t.getPreamble().getName(), t.getSize()));
        assertThat(fromSource).isEqualTo(fromInfo);
    }

    @Test
    void shouldUseTheIdPrefixOfEachKindWhenReadingTheP4Info() {
        final P4Info info = FixedPipelineInfo.p4info();
        info.getTablesList()
                .forEach(t -> assertThat(t.getPreamble().getId() >>> 24).isEqualTo(0x02));
        info.getActionsList()
                .forEach(t -> assertThat(t.getPreamble().getId() >>> 24).isEqualTo(0x01));
        info.getRegistersList()
                .forEach(t -> assertThat(t.getPreamble().getId() >>> 24).isEqualTo(0x16));
        info.getDirectCountersList()
                .forEach(t -> assertThat(t.getPreamble().getId() >>> 24).isEqualTo(0x13));
        info.getTablesList().forEach(t -> assertThat(t.getPreamble().getAlias()).isNotEmpty());
        info.getActionsList()
                .forEach(t -> assertThat(t.getPreamble().getAlias()).isNotEmpty());
    }

    @Test
    void shouldExposeIssueTablesWhenBuildingTheTypedModel() {
        final P4InfoModel model = FixedPipelineInfo.model();
        assertThat(model.tables())
                .extracting(TableInfo::alias)
                .contains(
                        "l3_admit_table",
                        "vrf_table",
                        "ipv4_table",
                        "ipv6_table",
                        "router_interface_table",
                        "neighbor_table",
                        "nexthop_table",
                        "wcmp_group_table",
                        "l2_fdb_table",
                        "vlan_table",
                        "acl_ingress_table",
                        "acl_egress_table",
                        "dscp_to_tc_table",
                        "tc_to_queue_table");
        final TableInfo acl = model.tables().stream()
                .filter(t -> t.alias().equals("acl_ingress_table"))
                .findFirst()
                .orElseThrow();
        assertThat(acl.needsPriority()).isTrue();
        assertThat(acl.directCounterId()).isNotZero();
        assertThat(acl.directMeterId()).isNotZero();
        assertThat(model.actionProfile(0x11000001).maxGroupSize()).isEqualTo(256);
        assertThat(model.packetIn())
                .extracting(PacketMetadataInfo::name)
                .containsExactly("ingress_port", "target_egress_port", "punt_reason");
        assertThat(model.digest(0x17000001).members())
                .extracting(ParamInfo::bitwidth)
                .containsExactly(12, 48, 16);
        assertThat(P4InfoCompatibility.differences(model, model)).isEmpty();
    }
}
