package io.asicemu.p4rt.info;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.TextFormat;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * The binary P4Info a switch reads must be the text P4Info serialised. After editing the text one, regenerate it:
 * {@code bin/mvn -B -q -o -pl p4runtime-server -am test -Dtest=FixedPipelineInfoBinaryTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dp4info.regenerate=true}.
 */
class FixedPipelineInfoBinaryTest {
    private static final Path BINARY =
            Path.of("src", "main", "resources", FixedPipelineInfo.BINARY_RESOURCE.substring(1));

    @Test
    void shouldShipTheTextP4InfoSerialised() throws Exception {
        final P4Info.Builder parsed = P4Info.newBuilder();
        try (Reader reader = new InputStreamReader(
                FixedPipelineInfoBinaryTest.class.getResourceAsStream(FixedPipelineInfo.RESOURCE),
                StandardCharsets.UTF_8)) {
            TextFormat.merge(reader, parsed);
        }
        final P4Info text = parsed.build();
        if (Boolean.getBoolean("p4info.regenerate")) {
            Files.write(BINARY, text.toByteArray());
        }
        assertThat(P4Info.parseFrom(Files.readAllBytes(BINARY)))
                .as(BINARY + " is stale; regenerate it with -Dp4info.regenerate=true (see this test's javadoc)")
                .isEqualTo(text);
        // and what a switch reads (the class path's copy, as packaged)
        assertThat(FixedPipelineInfo.p4info()).isEqualTo(text);
    }
}
