package io.asicemu.p4rt.info;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * The P4Info of asic-emu's fixed pipeline, loaded once from the binary P4Info shipped in the jar
 * ({@value #BINARY_RESOURCE}), which is the text P4Info ({@value #RESOURCE}, the one edited and read by people)
 * serialised: protobuf's text parser cost about 100 ms of CPU and much JIT work at every start of a switch (docs/LAB.md
 * session 9). {@code FixedPipelineInfoBinaryTest} fails when the two differ and regenerates the binary. Thread safe
 * (immutable after class init).
 */
public final class FixedPipelineInfo {
    /** Class-path location of the text-format P4Info, the source of the binary one. */
    public static final String RESOURCE = "/io/asicemu/p4rt/info/asic_emu_fixed.p4info.txtpb";

    /** Class-path location of the binary P4Info (the text one serialised), what a switch reads. */
    public static final String BINARY_RESOURCE = "/io/asicemu/p4rt/info/asic_emu_fixed.p4info.binpb";

    private static final P4Info P4INFO = loadBinary();
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

    private static P4Info loadBinary() {
        try (InputStream in = open(BINARY_RESOURCE)) {
            return P4Info.parseFrom(in);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static InputStream open(final String resource) {
        final InputStream in = FixedPipelineInfo.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException("missing resource " + resource);
        }
        return in;
    }
}
