package io.asicemu.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link RedisConfigDb} is the Redis view of CONFIG_DB the operator's commands read: whatever the table and key names
 * (tables that are prefixes of others, keys with {@code |}), it holds exactly the flat {@code TABLE|key} map it was
 * made of, {@link RedisConfigDb#sorted()} walks it in a sorted map's order (KEYS and SCAN), and a version made from
 * another shares the tables it was given again.
 */
class RedisConfigDbTest {
    @Provide
    Arbitrary<Map<String, Map<String, Map<String, String>>>> configs() {
        final Arbitrary<String> table =
                Arbitraries.of("PORT", "PORT_QOS_MAP", "PORTCHANNEL", "P", "QUEUE", "STATIC_ROUTE", "A_B", "A", "AB");
        final Arbitrary<String> key = Arbitraries.of(
                "Ethernet0", "Ethernet4", "Ethernet0|3", "Ethernet0|10.0.0.1/24", "10.1.0.0/16", "", "|", "a|b|c", "~");
        final Arbitrary<Map<String, Map<String, String>>> keys = Arbitraries.maps(
                        key, Arbitraries.maps(Arbitraries.of("f", "g@"), Arbitraries.of("1", "2")))
                .ofMaxSize(5)
                .map(LinkedHashMap::new);
        return Arbitraries.maps(table, keys).ofMaxSize(6).map(LinkedHashMap::new);
    }

    @Property(tries = 300)
    void holdsTheFlatMapAndSortsItAsATreeMap(@ForAll("configs") final Map<String, Map<String, Map<String, String>>> c) {
        final Map<String, Map<String, String>> flat = new LinkedHashMap<>();
        c.forEach((table, keys) -> keys.forEach((key, hash) -> flat.put(table + "|" + key, hash)));
        final RedisConfigDb db = new RedisConfigDb(c);

        assertThat(db).isEqualTo(flat).hasSize(flat.size());
        flat.forEach((k, v) -> assertThat(db.get(k)).isSameAs(v));
        assertThat(db.containsKey("NOPE|x")).isFalse();
        assertThat(new ArrayList<>(db.keySet())).as("the config's order").containsExactlyElementsOf(flat.keySet());
        final List<String> sorted = new ArrayList<>(db.sorted().keySet());
        assertThat(sorted).as("Redis' key order").containsExactlyElementsOf(new TreeMap<>(flat).keySet());
        assertThat(db.sorted()).isEqualTo(flat);
    }

    @Property(tries = 100)
    void aNewVersionSharesTheTablesGivenAgain(
            @ForAll("configs") final Map<String, Map<String, Map<String, String>>> c) {
        final RedisConfigDb before = new RedisConfigDb(c);
        before.sorted().keySet().forEach(k -> {});
        final Map<String, Map<String, Map<String, String>>> next = new LinkedHashMap<>(c);
        next.put("WRED_PROFILE", Map.of("AZURE_LOSSLESS", Map.of("green_min_threshold", "1")));
        final RedisConfigDb after = new RedisConfigDb(next, before);
        before.tables()
                .forEach((table, keys) -> assertThat(after.tables().get(table)).isSameAs(keys));
        assertThat(after.get("WRED_PROFILE|AZURE_LOSSLESS")).containsEntry("green_min_threshold", "1");
        final Map<String, Map<String, String>> flat = new TreeMap<>();
        next.forEach((table, keys) -> keys.forEach((key, hash) -> flat.put(table + "|" + key, hash)));
        assertThat(new ArrayList<>(after.sorted().keySet())).containsExactlyElementsOf(flat.keySet());
    }
}
