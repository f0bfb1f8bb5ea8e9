package io.asicemu.p4rt.service;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How the P4Runtime listener protects itself and its peers: transport security and connection limits. Immutable.
 *
 * @param tls server certificate and key, optionally the CA whose client certificates are required; null = plaintext.
 * @param handshakeTimeout a connection that has not completed its TLS and HTTP/2 handshake by then is closed: a
 *     client that connects and never speaks holds a descriptor this long at most.
 * @param keepAliveTime the server pings a connection silent this long (finds peers gone without a FIN).
 * @param keepAliveTimeout and closes it if the ping is not answered in this time.
 * @param permitKeepAliveTime the most often a client may ping (more often: the connection is closed, GOAWAY
 *     ENHANCE_YOUR_CALM); clients may ping without calls in flight.
 * @param maxConnectionIdle a connection without any call in flight this long is closed (GOAWAY; a client reconnects
 *     transparently). A controller's open StreamChannel is a call in flight, so it is never idle.
 * @param maxConnectionAge a connection older than this is closed after its calls finish (grace
 *     {@code maxConnectionAgeGrace}); {@link Duration#ZERO} = never. Off by default: closing a controller's
 *     StreamChannel ends its mastership, and the backups are not promoted (P4Runtime 1.1+ arbitration).
 * @param maxConnectionAgeGrace how long calls may run after {@code maxConnectionAge}.
 * @param maxConcurrentCallsPerConnection HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: calls one connection may have open
 *     at once (a controller needs one StreamChannel plus a few unary calls). A client that opens more than it was
 *     told is answered RST_STREAM for each stream beyond it.
 * @param maxConnections connections the listener holds at once; one more is closed as soon as it is accepted.
 */
public record ServerOptions(
        Tls tls,
        Duration handshakeTimeout,
        Duration keepAliveTime,
        Duration keepAliveTimeout,
        Duration permitKeepAliveTime,
        Duration maxConnectionIdle,
        Duration maxConnectionAge,
        Duration maxConnectionAgeGrace,
        int maxConcurrentCallsPerConnection,
        int maxConnections) {
    /** Validates. */
    public ServerOptions {
        for (final Duration d : new Duration[] {
            handshakeTimeout,
            keepAliveTime,
            keepAliveTimeout,
            permitKeepAliveTime,
            maxConnectionIdle,
            maxConnectionAge,
            maxConnectionAgeGrace
        }) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException("P4Runtime server durations must be >= 0, not " + d);
            }
        }
        if (handshakeTimeout.isZero()
                || keepAliveTime.isZero()
                || keepAliveTimeout.isZero()
                || maxConnectionIdle.isZero()) {
            throw new IllegalArgumentException("the P4Runtime handshake timeout, keepalive and idle limit must be > 0");
        }
        if (maxConcurrentCallsPerConnection < 1) {
            throw new IllegalArgumentException(
                    "concurrent calls per connection must be >= 1, not " + maxConcurrentCallsPerConnection);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("P4Runtime connections must be >= 1, not " + maxConnections);
        }
    }

    /**
     * The defaults: plaintext, handshake 10 s, keepalive ping after 60 s of silence answered within 20 s, client
     * pings at most every 10 s, idle connections closed after 5 min, no age limit, 32 concurrent calls per connection, 64 connections.
     *
     * @return the defaults.
     */
    public static ServerOptions defaults() {
        return new ServerOptions(
                null,
                Duration.ofSeconds(10),
                Duration.ofSeconds(60),
                Duration.ofSeconds(20),
                Duration.ofSeconds(10),
                Duration.ofMinutes(5),
                Duration.ZERO,
                Duration.ofSeconds(30),
                32,
                64);
    }

    /** @param value TLS files. @return these options with TLS. */
    public ServerOptions withTls(final Tls value) {
        return new ServerOptions(
                value,
                handshakeTimeout,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                maxConnectionIdle,
                maxConnectionAge,
                maxConnectionAgeGrace,
                maxConcurrentCallsPerConnection,
                maxConnections);
    }

    /** @param value the handshake timeout. @return these options with it. */
    public ServerOptions withHandshakeTimeout(final Duration value) {
        return new ServerOptions(
                tls,
                value,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                maxConnectionIdle,
                maxConnectionAge,
                maxConnectionAgeGrace,
                maxConcurrentCallsPerConnection,
                maxConnections);
    }

    /** @param value the idle limit. @return these options with it. */
    public ServerOptions withMaxConnectionIdle(final Duration value) {
        return new ServerOptions(
                tls,
                handshakeTimeout,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                value,
                maxConnectionAge,
                maxConnectionAgeGrace,
                maxConcurrentCallsPerConnection,
                maxConnections);
    }

    /** @param value the age limit (ZERO = none). @return these options with it. */
    public ServerOptions withMaxConnectionAge(final Duration value) {
        return new ServerOptions(
                tls,
                handshakeTimeout,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                maxConnectionIdle,
                value,
                maxConnectionAgeGrace,
                maxConcurrentCallsPerConnection,
                maxConnections);
    }

    /** @param value calls per connection. @return these options with it. */
    public ServerOptions withMaxConcurrentCallsPerConnection(final int value) {
        return new ServerOptions(
                tls,
                handshakeTimeout,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                maxConnectionIdle,
                maxConnectionAge,
                maxConnectionAgeGrace,
                value,
                maxConnections);
    }

    /** @param value connections held at once. @return these options with it. */
    public ServerOptions withMaxConnections(final int value) {
        return new ServerOptions(
                tls,
                handshakeTimeout,
                keepAliveTime,
                keepAliveTimeout,
                permitKeepAliveTime,
                maxConnectionIdle,
                maxConnectionAge,
                maxConnectionAgeGrace,
                maxConcurrentCallsPerConnection,
                value);
    }

    /**
     * TLS for the listener (PEM files, as grpc-java's {@code GrpcSslContexts.forServer} reads them).
     *
     * @param certChain the server's certificate chain.
     * @param privateKey its private key (PKCS#8).
     * @param clientCa if not null, the CA certificates a client certificate must chain to; clients without one are
     *     refused in the handshake (mutual TLS).
     */
    public record Tls(Path certChain, Path privateKey, Path clientCa) {
        /** Checks that the files are readable (a clear error at start, not at the first connection). */
        public Tls {
            for (final Path p : new Path[] {certChain, privateKey, clientCa}) {
                if (p != null && !Files.isReadable(p)) {
                    throw new IllegalArgumentException("TLS file " + p + " is missing or not readable");
                }
            }
            if (certChain == null || privateKey == null) {
                throw new IllegalArgumentException("TLS needs both a certificate chain and a private key");
            }
        }
    }
}
