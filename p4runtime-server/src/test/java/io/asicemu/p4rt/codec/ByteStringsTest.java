package io.asicemu.p4rt.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.backend.UpdateStatus;
import java.math.BigInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Canonical bytestrings (spec "Bytestrings"): shortest out, padded in, width checked, empty refused. */
class ByteStringsTest {
    @Test
    void shouldEncodeShortestFormWhenSendingSpecExamples() {
        assertThat(ByteStrings.encode(0).toByteArray()).containsExactly(0);
        assertThat(ByteStrings.encode(99).toByteArray()).containsExactly(0x63);
        assertThat(ByteStrings.encode(0x80).toByteArray()).containsExactly(0x80);
        assertThat(ByteStrings.encode(0x0A000000L).toByteArray()).containsExactly(0x0A, 0, 0, 0);
    }

    @Property
    void shouldDecodeAnyZeroPaddingToTheSameValueWhenValueFitsWidth(
            @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) final long value,
            @ForAll @IntRange(min = 0, max = 6) final int pad)
            throws CodecException {
        final byte[] canonical = ByteStrings.encode(value).toByteArray();
        final byte[] padded = new byte[canonical.length + pad];
        System.arraycopy(canonical, 0, padded, pad, canonical.length);
        assertThat(ByteStrings.decode(ByteString.copyFrom(padded), 32, "v")).isEqualTo(BigInteger.valueOf(value));
        assertThat(canonical.length == 1 || canonical[0] != 0)
                .as("no leading zero byte")
                .isTrue();
    }

    @Property
    void shouldRejectValueWhenItNeedsMoreBitsThanTheWidth(@ForAll @IntRange(min = 1, max = 31) final int width) {
        final var ex = catchThrowableOfType(
                CodecException.class, () -> ByteStrings.decode(ByteStrings.encode(1L << width), width, "v"));
        assertThat(ex.status()).isEqualTo(UpdateStatus.INVALID_ARGUMENT);
    }

    @Test
    void shouldRejectEmptyStringWhenDecoding() {
        final var ex = catchThrowableOfType(CodecException.class, () -> ByteStrings.decode(ByteString.EMPTY, 8, "v"));
        assertThat(ex.status()).isEqualTo(UpdateStatus.INVALID_ARGUMENT);
    }
}
