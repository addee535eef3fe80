/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_netlink.c - feeds arbitrary bytes to the sock_diag reply parser as
 * if recv() had returned them: whatever the kernel (or a corrupted buffer)
 * sends, the parser must stay inside the buffer and hand out only sockets
 * with a known family.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "collect/inetdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_conn(const struct tcp_conn *c, void *arg)
{
	(void)arg;
	if (c->family != AF_INET && c->family != AF_INET6) {
		fprintf(stderr, "contract broken: family %u handed out\n", c->family);
		abort();
	}
	if (c->present >= 1u << TCPF_COUNT) {
		fprintf(stderr, "contract broken: unknown fields marked present\n");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size, aligned heap copy: ASan catches any read past it. */
	void *buf = malloc(size ? size : 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	inetdiag_parse(buf, size, check_conn, NULL);
	free(buf);
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_splices[] = {
	"\x14\0\0\0\x03\0", "\xff\xff\xff\xff", "\x08\0\x02\0", "\x04\0\x02\0", "\0\0\0\0",
	"\x02", "\x0a", "\x14\0",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = {
	"inetdiag/ipv4-established.bin", "inetdiag/ipv6-established.bin",
};
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
#include "smoke.h"
#endif
