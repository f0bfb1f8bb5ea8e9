package io.asicemu.flowlet.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever string a known field holds, parsing either succeeds or fails with a FlowletConfigException naming that
 * table, key and field: never another exception.
 */
class FlowletConfigRobustnessTest {
    private static final String[][] FIELDS = {
        {"SWITCH_HASH", "GLOBAL", "ecmp_hash"}, {"SWITCH_HASH", "GLOBAL", "ecmp_hash_algorithm"},
        {"SWITCH_HASH", "GLOBAL", "lag_hash_rdma"}, {"SWITCH_HASH", "GLOBAL", "ecmp_hash_seed"},
        {"SWITCH_HASH", "GLOBAL", "ecmp_hash_offset"}, {"SWITCH_HASH", "GLOBAL", "ecmp_lb_mode"},
        {"SWITCH_HASH", "GLOBAL", "random_seed"}, {"ARS_PROFILE", "p", "sampling_interval"},
        {"ARS_PROFILE", "p", "past_load_max_value"}, {"ARS_PROFILE", "p", "ipv6_enable"},
        {"ARS_PROFILE", "p", "default_ars_object"}, {"ARS_OBJECT", "o", "assign_mode"},
        {"ARS_OBJECT", "o", "flowlet_idle_time"}, {"ARS_OBJECT", "o", "max_flows"},
        {"ARS_INTERFACES", "Ethernet0", "scaling_factor"}, {"ARS_NEXTHOP_GROUP", "g", "lb_mode"},
        {"ARS_NEXTHOP_GROUP", "g", "resilient_buckets"}
    };

    @Property(tries = 500)
    void shouldFailOnlyWithAFieldNamingExceptionWhenValuesAreArbitrary(
            @ForAll("fieldIndex") final int index, @ForAll("values") final String value) {
        final String[] f = FIELDS[index];
        try {
            FlowletConfigParser.parse(Map.of(f[0], Map.of(f[1], Map.of(f[2], value))));
        } catch (final FlowletConfigException ex) {
            assertThat(ex.table()).isEqualTo(f[0]);
            assertThat(ex.key()).isEqualTo(f[1]);
            assertThat(ex.field()).isEqualTo(f[2]);
        }
    }

    @Provide
    Arbitrary<Integer> fieldIndex() {
        return Arbitraries.integers().between(0, FIELDS.length - 1);
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.of("CRC", "SRC_IP,DST_IP", "RDMA_BTH_DEST_QP", "true", "flowlet_quality", "o", "256", ""));
    }
}
