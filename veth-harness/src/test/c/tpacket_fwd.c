// The reference forwarder of issue 12: a one-way IPv4 router between two interfaces on AF_PACKET TPACKET_V2 mmap
// rings, as small as a userspace forwarder gets. ProcessForwardingBenchmark compiles it (gcc -O2) and measures it
// beside asic-emu and the Linux bridge, as its own process, pinned like the switch.
//
//   tpacket_fwd IN_IF OUT_IF NEXT_HOP_MAC ROUTER_MAC STATS_FILE [busy]
//
// Every IPv4 frame read on IN_IF leaves on OUT_IF with destination MAC NEXT_HOP_MAC, source MAC ROUTER_MAC and TTL - 1
// (checksum updated, RFC 1624); other frames are dropped and counted. Poll mode blocks in poll(2) when the RX ring is
// empty; "busy" spins on the ring instead. The RX ring (1024 x 2 KiB) and TX ring (256 x 2 KiB) have asic-emu's lab
// default sizes. Every 100 ms it rewrites STATS_FILE: "pid P forwarded N rx_ring_drops N not_ipv4 N" (counts cumulative), so every
// frame it got is accounted for; SIGTERM/SIGINT end it after a last write.
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_SIZE 2048
#define RX_FRAMES 1024
#define TX_FRAMES 256

struct ring {
    int fd;
    uint8_t *map;
    unsigned frames;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void open_ring(struct ring *r, const char *ifname, int option, unsigned frames) {
    r->fd = socket(AF_PACKET, SOCK_RAW, option == PACKET_RX_RING ? htons(ETH_P_ALL) : 0);
    if (r->fd < 0) die("socket");
    int version = TPACKET_V2;
    if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) < 0) die("PACKET_VERSION");
    struct tpacket_req req = {
        .tp_block_size = FRAME_SIZE * 32,
        .tp_block_nr = frames / 32,
        .tp_frame_size = FRAME_SIZE,
        .tp_frame_nr = frames,
    };
    if (setsockopt(r->fd, SOL_PACKET, option, &req, sizeof req) < 0) die("PACKET_*_RING");
    r->frames = frames;
    r->map = mmap(NULL, (size_t)frames * FRAME_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (r->map == MAP_FAILED) die("mmap");
    struct sockaddr_ll addr = {
        .sll_family = AF_PACKET,
        .sll_protocol = option == PACKET_RX_RING ? htons(ETH_P_ALL) : 0,
        .sll_ifindex = (int)if_nametoindex(ifname),
    };
    if (addr.sll_ifindex == 0) die(ifname);
    if (bind(r->fd, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
}

static void parse_mac(const char *text, uint8_t mac[6]) {
    if (sscanf(text, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]) != 6) {
        fprintf(stderr, "not a MAC address: %s\n", text);
        exit(2);
    }
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t forwarded, ring_drops, not_ipv4;

static void write_stats(const char *path, int rx_fd) {
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    if (getsockopt(rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) ring_drops += st.tp_drops; // resets on read
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) die(tmp);
    fprintf(f, "pid %d forwarded %llu rx_ring_drops %llu not_ipv4 %llu\n", (int)getpid(), (unsigned long long)forwarded,
            (unsigned long long)ring_drops, (unsigned long long)not_ipv4);
    fclose(f);
    if (rename(tmp, path) < 0) die("rename");
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s IN_IF OUT_IF NEXT_HOP_MAC ROUTER_MAC STATS_FILE [busy]\n", argv[0]);
        return 2;
    }
    const int busy = argc > 6 && strcmp(argv[6], "busy") == 0;
    uint8_t macs[12];
    parse_mac(argv[3], macs);
    parse_mac(argv[4], macs + 6);
    struct sigaction sa = {.sa_handler = on_signal}; // no SA_RESTART: poll returns EINTR
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    struct ring rx, tx;
    open_ring(&rx, argv[1], PACKET_RX_RING, RX_FRAMES);
    open_ring(&tx, argv[2], PACKET_TX_RING, TX_FRAMES);
    unsigned rx_i = 0, tx_i = 0;
    uint64_t last_stats = 0;
    write_stats(argv[5], rx.fd);
    while (!stop) {
        unsigned queued = 0;
        for (;;) {
            struct tpacket2_hdr *h = (struct tpacket2_hdr *)(rx.map + (size_t)rx_i * FRAME_SIZE);
            if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) break;
            uint8_t *in = (uint8_t *)h + h->tp_mac;
            const unsigned len = h->tp_snaplen;
            if (len >= 34 && in[12] == 0x08 && in[13] == 0x00 && (in[14] >> 4) == 4 && in[22] > 1) {
                struct tpacket2_hdr *t = (struct tpacket2_hdr *)(tx.map + (size_t)tx_i * FRAME_SIZE);
                while (__atomic_load_n(&t->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE) {
                    if (send(tx.fd, NULL, 0, 0) < 0 && errno != EAGAIN && errno != ENOBUFS) die("send");
                    queued = 0;
                }
                uint8_t *out = (uint8_t *)t + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
                memcpy(out, in, len);
                memcpy(out, macs, 12);
                out[22]--; // TTL; checksum += 0x0100 in one's complement (RFC 1624)
                uint32_t sum = ((uint32_t)out[24] << 8 | out[25]) + 0x0100;
                sum = (sum & 0xffff) + (sum >> 16);
                out[24] = (uint8_t)(sum >> 8);
                out[25] = (uint8_t)sum;
                t->tp_len = len;
                __atomic_store_n(&t->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
                tx_i = (tx_i + 1) % tx.frames;
                queued++;
                forwarded++;
            } else {
                not_ipv4++;
            }
            __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            rx_i = (rx_i + 1) % rx.frames;
            if (queued == 64) break; // kick the TX ring at least every 64 frames
        }
        if (queued > 0 && send(tx.fd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != ENOBUFS) die("send");
        const uint64_t now = now_ms();
        if (now - last_stats >= 100) {
            write_stats(argv[5], rx.fd);
            last_stats = now;
        }
        if (queued == 0 && !busy) {
            struct tpacket2_hdr *h = (struct tpacket2_hdr *)(rx.map + (size_t)rx_i * FRAME_SIZE);
            if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
                struct pollfd p = {.fd = rx.fd, .events = POLLIN};
                poll(&p, 1, 100);
            }
        }
    }
    write_stats(argv[5], rx.fd);
    return 0;
}
