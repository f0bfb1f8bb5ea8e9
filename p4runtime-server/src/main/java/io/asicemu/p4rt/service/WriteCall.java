package io.asicemu.p4rt.service;

import io.asicemu.p4rt.codec.WireWriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A Write as {@link WriteMarshaller} parsed it: read from the wire ({@code wire}, the common shape) or by the
 * generated parser ({@code request}); exactly one is not null. Immutable.
 */
record WriteCall(WriteRequest request, WireWriteRequest wire) {}
