package io.asicemu.operator.gnmi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.asicemu.operator.gnmi.proto.Encoding;
import io.asicemu.operator.gnmi.proto.TypedValue;
import io.grpc.Status;
import io.grpc.StatusException;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Turns a {@link SonicPathResolver.Resolved} into the {@link TypedValue} SONiC's telemetry sends: a field as
 * {@code string_val}, an object as JSON text with the keys sorted (Go's encoding/json, which SONiC uses, sorts them),
 * in {@code json_ietf_val} for JSON_IETF and {@code json_val} for JSON. Stateless; any thread.
 */
final class GnmiValues {
    /** The encodings served (Capabilities lists them). */
    static final List<Encoding> SUPPORTED = List.of(Encoding.JSON, Encoding.JSON_IETF);

    private static final ObjectMapper JSON = new ObjectMapper();

    private GnmiValues() {}

    /**
     * @param encoding the request's encoding.
     * @throws StatusException UNIMPLEMENTED for an encoding other than JSON and JSON_IETF (spec 3.3.1).
     */
    static void checkEncoding(final Encoding encoding) throws StatusException {
        if (!SUPPORTED.contains(encoding)) {
            throw Status.UNIMPLEMENTED
                    .withDescription("encoding " + encoding + " is not supported; use JSON or JSON_IETF")
                    .asException();
        }
    }

    /**
     * @param value what a path names.
     * @param encoding JSON or JSON_IETF.
     * @return the typed value.
     */
    static TypedValue typed(final SonicPathResolver.Resolved value, final Encoding encoding) {
        if (value.scalar() != null) {
            return TypedValue.newBuilder().setStringVal(value.scalar()).build();
        }
        return json(value.object(), encoding);
    }

    /**
     * @param object field → value, or key → (field → value).
     * @param encoding JSON or JSON_IETF.
     * @return the object as JSON text in the encoding's field.
     */
    static TypedValue json(final SortedMap<String, Object> object, final Encoding encoding) {
        final ByteString text;
        try {
            text = ByteString.copyFrom(JSON.writeValueAsBytes(new TreeMap<>(object)));
        } catch (final JsonProcessingException e) {
            // maps of strings always serialize; a failure here is a bug, not bad input
            throw new IllegalStateException("cannot write JSON", e);
        }
        return encoding == Encoding.JSON_IETF
                ? TypedValue.newBuilder().setJsonIetfVal(text).build()
                : TypedValue.newBuilder().setJsonVal(text).build();
    }
}
