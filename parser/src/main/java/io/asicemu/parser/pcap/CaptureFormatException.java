package io.asicemu.parser.pcap;

/** Thrown when a capture's file or section header is not pcap or pcapng. */
public final class CaptureFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with {@code message}. */
    public CaptureFormatException(final String message) {
        super(message);
    }
}
