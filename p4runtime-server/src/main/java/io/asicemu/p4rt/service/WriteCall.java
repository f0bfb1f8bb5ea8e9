package io.asicemu.p4rt.service;

import io.asicemu.p4rt.codec.WireWriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * A Write as {@link WriteMarshaller} parsed it: read from the wire ({@code wire}, the common shape, with the
 * {@code bytes} it was read from and aliases) or by the generated parser ({@code request}, {@code bytes} null);
 * exactly one of {@code request} and {@code wire} is not null. Not to be changed once made.
 */
record WriteCall(WriteRequest request, WireWriteRequest wire, byte[] bytes) {}
