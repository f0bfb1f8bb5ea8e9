package io.asicemu.p4rt.backend;

import io.asicemu.p4rt.info.MatchKind;
import java.math.BigInteger;

/**
 * One validated key field: EXACT/OPTIONAL use {@code value}; LPM adds {@code prefixLength}; TERNARY adds
 * {@code mask}; RANGE is {@code value}..{@code high}. Unused parts are {@link BigInteger#ZERO} / 0. Immutable.
 */
public record FieldMatchValue(
        int fieldId, MatchKind kind, BigInteger value, BigInteger mask, int prefixLength, BigInteger high) {
    public static FieldMatchValue exact(final int fieldId, final BigInteger value) {
        return new FieldMatchValue(fieldId, MatchKind.EXACT, value, BigInteger.ZERO, 0, BigInteger.ZERO);
    }
}
