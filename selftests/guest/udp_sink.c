// SPDX-License-Identifier: GPL-2.0
/*
 * udp_sink: count the UDP datagrams that arrive on NPORTS consecutive ports,
 * for the UDP receive benchmark (selftests/bench-udp).
 *
 *   udp_sink PORT NPORTS MAXSECS IDLE_MS
 *
 * Waits at most MAXSECS in all; once traffic started, stops after IDLE_MS
 * without a datagram.  Prints "packets bytes seconds", the seconds running
 * from the first to the last datagram.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXPORTS 16
#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char bufs[BATCH][2048];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct pollfd pfd[MAXPORTS];
	unsigned long long packets = 0, bytes = 0;
	double start, first = 0, last = 0;
	int port, nports, maxsecs, idle_ms, i, j, n;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT NPORTS MAXSECS IDLE_MS\n", argv[0]);
		return 2;
	}
	port = atoi(argv[1]);
	nports = atoi(argv[2]);
	maxsecs = atoi(argv[3]);
	idle_ms = atoi(argv[4]);
	if (port <= 0 || nports <= 0 || nports > MAXPORTS || maxsecs <= 0 || idle_ms <= 0) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	for (i = 0; i < nports; i++) {
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_port = htons(port + i),
			.sin_addr.s_addr = htonl(INADDR_ANY),
		};

		pfd[i].fd = socket(AF_INET, SOCK_DGRAM, 0);
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0 || bind(pfd[i].fd, (void *)&sin, sizeof(sin))) {
			perror("udp_sink: socket/bind");
			return 1;
		}
	}
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	start = now();
	while (now() - start < maxsecs) {
		if (poll(pfd, nports, 100) < 0) {
			perror("udp_sink: poll");
			return 1;
		}
		for (i = 0; i < nports; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			n = recvmmsg(pfd[i].fd, msgs, BATCH, MSG_DONTWAIT, NULL);
			if (n <= 0)
				continue;
			last = now();
			if (!packets)
				first = last;
			packets += n;
			for (j = 0; j < n; j++)
				bytes += msgs[j].msg_len;
		}
		if (packets && (now() - last) * 1000 > idle_ms)
			break;
	}
	printf("%llu %llu %.3f\n", packets, bytes, packets ? last - first : 0.0);
	return 0;
}
