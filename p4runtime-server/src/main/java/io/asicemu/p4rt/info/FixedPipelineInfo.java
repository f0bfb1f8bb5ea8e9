package io.asicemu.p4rt.info;

import com.google.protobuf.TextFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * The P4Info of asic-emu's fixed pipeline, loaded once from the text P4Info shipped in the jar
 * ({@value #RESOURCE}). Thread safe (immutable after class init).
 */
public final class FixedPipelineInfo {
    /** Class-path location of the text-format P4Info. */
    public static final String RESOURCE = "/io/asicemu/p4rt/info/asic_emu_fixed.p4info.txtpb";

    private static final P4Info P4INFO = load();
    private static final P4InfoModel MODEL = P4InfoModel.of(P4INFO);

    private FixedPipelineInfo() {}

    /** @return the fixed pipeline's P4Info message. */
    public static P4Info p4info() {
        return P4INFO;
    }

    /** @return the typed model of the fixed pipeline. */
    public static P4InfoModel model() {
        return MODEL;
    }

    private static P4Info load() {
        try (InputStream in = FixedPipelineInfo.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            final Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8);
            final P4Info.Builder builder = P4Info.newBuilder();
            TextFormat.merge(reader, builder);
            return builder.build();
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
