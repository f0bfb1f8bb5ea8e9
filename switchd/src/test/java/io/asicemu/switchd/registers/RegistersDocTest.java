package io.asicemu.switchd.registers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/REGISTERS.md is what {@link RegistersDoc} generates from {@link ChipRegister}: this test fails when they
 * differ. Regenerate: {@code bin/mvn -B -q -o -pl switchd -am test -Dtest=RegistersDocTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dregisters.regenerate=true}.
 */
class RegistersDocTest {
    private static final Path DOC = Path.of("..", "docs", "REGISTERS.md");

    @Test
    void shouldMatchTheCheckedInDocument() throws Exception {
        final String generated = RegistersDoc.render();
        if (Boolean.getBoolean("registers.regenerate")) {
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as("docs/REGISTERS.md is stale; regenerate it with -Dregisters.regenerate=true (see RegistersDoc)")
                .isEqualTo(generated);
    }

    @Test
    void shouldGiveEveryRegisterItsOwnAddresses() {
        final ChipRegister[] all = ChipRegister.values();
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                assertThat(all[i].base()).as(all[i] + " vs " + all[j]).isNotEqualTo(all[j].base());
            }
        }
        for (final ChipRegister r : all) {
            assertThat(r.resetValue()).as(r + " reset value fits").isBetween(0L, r.maxValue());
            assertThat(r.writable())
                    .as(r + " writable iff it has a P4Runtime register")
                    .isEqualTo(r.p4Register() != null);
        }
    }
}
