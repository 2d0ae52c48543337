// SPDX-License-Identifier: GPL-2.0
/*
 * The netdev netlink family's NAPI commands, for guests without ynl:
 *
 *   napi_nl get <ifname>            one line per NAPI instance:
 *                                   "id=<id> irq=<irq> pid=<pid> threaded=<t>"
 *   napi_nl set <napi-id> <0|1|2>   NETDEV_A_NAPI_THREADED (disabled,
 *                                   enabled, busy-poll)
 *
 * Exit status 0 on success; an error from the kernel is printed with its
 * errno and exits 1; bad usage exits 2.  Values of the uapi enums as of
 * Linux 7.3 (include/uapi/linux/netdev.h), since the build host's headers
 * are older.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#define NETDEV_CMD_NAPI_GET		11
#define NETDEV_CMD_NAPI_SET		14
#define NETDEV_A_NAPI_IFINDEX		1
#define NETDEV_A_NAPI_ID		2
#define NETDEV_A_NAPI_IRQ		3
#define NETDEV_A_NAPI_PID		4
#define NETDEV_A_NAPI_THREADED		8

struct req {
	struct nlmsghdr		nh;
	struct genlmsghdr	gh;
	char			attrs[256];
};

static int sock;
static unsigned int seq;

static void put_attr(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void init_req(struct req *r, uint16_t family, uint8_t cmd, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = family;
	r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nh.nlmsg_seq = ++seq;
	r->gh.cmd = cmd;
	r->gh.version = 1;
}

/* Sends @r and calls @cb for each reply; returns 0 or a negative errno */
static int talk(struct req *r, void (*cb)(struct nlmsghdr *nh, void *arg), void *arg)
{
	static char buf[65536];
	ssize_t n;

	if (send(sock, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nh;

		n = recv(sock, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != r->nh.nlmsg_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				return e->error;
			}
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				cb(nh, arg);
			if (!(nh->nlmsg_flags & NLM_F_MULTI) && !(r->nh.nlmsg_flags & NLM_F_DUMP))
				return 0;
		}
	}
}

static void each_attr(struct nlmsghdr *nh, void (*fn)(struct nlattr *a, void *arg), void *arg)
{
	int len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);

	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len) {
		fn(a, arg);
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

static void family_attr(struct nlattr *a, void *arg)
{
	if (a->nla_type == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)arg = *(uint16_t *)((char *)a + NLA_HDRLEN);
}

static void family_cb(struct nlmsghdr *nh, void *arg)
{
	each_attr(nh, family_attr, arg);
}

struct napi {
	uint32_t id, irq, pid, threaded;
	int has_irq, has_pid, has_threaded;
};

static void napi_attr(struct nlattr *a, void *arg)
{
	struct napi *n = arg;
	uint32_t v = *(uint32_t *)((char *)a + NLA_HDRLEN);

	switch (a->nla_type) {
	case NETDEV_A_NAPI_ID: n->id = v; break;
	case NETDEV_A_NAPI_IRQ: n->irq = v; n->has_irq = 1; break;
	case NETDEV_A_NAPI_PID: n->pid = v; n->has_pid = 1; break;
	case NETDEV_A_NAPI_THREADED: n->threaded = v; n->has_threaded = 1; break;
	}
}

static void napi_cb(struct nlmsghdr *nh, void *arg)
{
	struct napi n = { 0 };

	each_attr(nh, napi_attr, &n);
	printf("id=%u irq=%d pid=%d threaded=%d\n", n.id, n.has_irq ? (int)n.irq : -1,
	       n.has_pid ? (int)n.pid : 0, n.has_threaded ? (int)n.threaded : -1);
	++*(int *)arg;
}

static int usage(void)
{
	fprintf(stderr, "usage: napi_nl get <ifname> | set <napi-id> <0|1|2>\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint16_t family = 0;
	struct req r;
	int err;

	if (argc < 3)
		return usage();
	sock = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("netlink socket");
		return 1;
	}
	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	err = talk(&r, family_cb, &family);
	if (err || !family) {
		fprintf(stderr, "napi_nl: no netdev genetlink family: %s\n", strerror(-err));
		return 1;
	}

	if (!strcmp(argv[1], "get") && argc == 3) {
		uint32_t ifindex = if_nametoindex(argv[2]);
		int found = 0;

		if (!ifindex) {
			fprintf(stderr, "napi_nl: no interface %s\n", argv[2]);
			return 1;
		}
		init_req(&r, family, NETDEV_CMD_NAPI_GET, NLM_F_DUMP);
		put_attr(&r, NETDEV_A_NAPI_IFINDEX, &ifindex, sizeof(ifindex));
		err = talk(&r, napi_cb, &found);
		if (!err && !found) {
			fprintf(stderr, "napi_nl: %s has no NAPI instance\n", argv[2]);
			return 1;
		}
	} else if (!strcmp(argv[1], "set") && argc == 4) {
		char *end;
		uint32_t id = strtoul(argv[2], &end, 0), t;

		if (*end || !*argv[2])
			return usage();
		t = strtoul(argv[3], &end, 0);
		if (*end || !*argv[3] || t > 2)
			return usage();
		init_req(&r, family, NETDEV_CMD_NAPI_SET, NLM_F_ACK);
		put_attr(&r, NETDEV_A_NAPI_ID, &id, sizeof(id));
		put_attr(&r, NETDEV_A_NAPI_THREADED, &t, sizeof(t));
		err = talk(&r, NULL, NULL);
	} else {
		return usage();
	}
	if (err) {
		fprintf(stderr, "napi_nl %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
