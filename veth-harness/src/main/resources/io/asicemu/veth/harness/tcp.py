"""TCP transfer for the asic-emu veth harness: 'sink PORT TIMEOUT_S' accepts one connection and prints
"<bytes> <sha256>" of what it received; 'send ADDR PORT BYTES TIMEOUT_S' sends seeded pseudo-random bytes and prints
the same for what it sent."""
import hashlib
import random
import socket
import sys


def main():
    mode = sys.argv[1]
    if mode == "sink":
        port, timeout = int(sys.argv[2]), float(sys.argv[3])
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("0.0.0.0", port))
        srv.listen(1)
        srv.settimeout(timeout)
        conn, _ = srv.accept()
        conn.settimeout(timeout)
        digest, total = hashlib.sha256(), 0
        while True:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            digest.update(chunk)
            total += len(chunk)
        print(total, digest.hexdigest())
    elif mode == "send":
        addr, port, count, timeout = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
        rng = random.Random(4791)
        sock = socket.create_connection((addr, port), timeout=timeout)
        digest, sent = hashlib.sha256(), 0
        while sent < count:
            chunk = rng.randbytes(min(1 << 16, count - sent))
            sock.sendall(chunk)
            digest.update(chunk)
            sent += len(chunk)
        sock.shutdown(socket.SHUT_WR)
        sock.recv(1)
        sock.close()
        print(sent, digest.hexdigest())
    else:
        sys.exit("unknown mode " + mode)


main()
