package io.asicemu.p4rt.service;

import io.asicemu.p4rt.codec.WireWriteRequest;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * gRPC's request marshaller of Write: a request of the common shape is read from its bytes by {@link WireWriteRequest}
 * (no builder tree per message), anything else — and every malformed request — by the generated marshaller, so a
 * client sees the same parse and the same errors either way. Stateless; called on the connection's I/O thread.
 */
final class WriteMarshaller implements MethodDescriptor.Marshaller<WriteCall> {
    private static final MethodDescriptor.Marshaller<WriteRequest> GENERATED =
            P4RuntimeGrpc.getWriteMethod().getRequestMarshaller();

    @Override
    public InputStream stream(final WriteCall value) {
        // a wire-read Write is its bytes, unchanged
        return value.request() != null ? GENERATED.stream(value.request()) : new ByteArrayInputStream(value.bytes());
    }

    private static byte[] concat(final byte[] head, final int next, final byte[] tail) {
        final byte[] all = Arrays.copyOf(head, head.length + 1 + tail.length);
        all[head.length] = (byte) next;
        System.arraycopy(tail, 0, all, head.length + 1, tail.length);
        return all;
    }

    @Override
    public WriteCall parse(final InputStream stream) {
        final byte[] bytes;
        try {
            // a fresh array per request: the parsed byte strings alias it (the generated marshaller copies them out)
            // (gRPC's message streams know their length; readAllBytes alone would make a 16 KB buffer per Write)
            final byte[] head = stream.readNBytes(stream instanceof KnownLength ? stream.available() : 0);
            final int next = stream.read();
            bytes = next == -1 ? head : concat(head, next, stream.readAllBytes());
        } catch (final IOException e) {
            throw Status.INTERNAL
                    .withDescription("Invalid protobuf byte sequence")
                    .withCause(e)
                    .asRuntimeException();
        }
        final WireWriteRequest wire = WireWriteRequest.parse(bytes);
        return wire != null
                ? new WriteCall(null, wire, bytes)
                : new WriteCall(GENERATED.parse(new ByteArrayInputStream(bytes)), null, null);
    }
}
