// SPDX-License-Identifier: GPL-2.0
/*
 * udp_seq: receive one UDP flow whose datagrams start with a sequence
 * number (64-bit, big endian, counting from 0) and count how they arrived.
 *
 *   udp_seq PORT SECS
 *
 * Receives for SECS seconds, then prints
 *   "received R reordered O duplicates D lost L last S"
 * where a datagram is reordered when its number is lower than one that
 * arrived before it, a duplicate when it arrived before, and lost counts
 * the numbers below the highest one that never arrived.  Exit status 0,
 * or 1 on a socket error.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXSEQ (1u << 22)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static unsigned char seen[MAXSEQ / 8];
	unsigned long long received = 0, reordered = 0, dups = 0, lost = 0;
	long long high = -1;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[2048];
	double end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: udp_seq PORT SECS\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_port = htons(atoi(argv[1]));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udp_seq: socket");
		return 1;
	}
	end = now() + atof(argv[2]);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = end - now();
		uint64_t be, seq;
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < (ssize_t)sizeof(be))
			continue;
		memcpy(&be, buf, sizeof(be));
		seq = be64toh(be);
		if (seq >= MAXSEQ)
			continue;
		received++;
		if (seen[seq / 8] & (1 << (seq % 8))) {
			dups++;
			continue;
		}
		seen[seq / 8] |= 1 << (seq % 8);
		if ((long long)seq < high)
			reordered++;
		else
			high = seq;
	}
	for (long long s = 0; s < high; s++)
		if (!(seen[s / 8] & (1 << (s % 8))))
			lost++;
	printf("received %llu reordered %llu duplicates %llu lost %llu last %lld\n",
	       received, reordered, dups, lost, high);
	return 0;
}
