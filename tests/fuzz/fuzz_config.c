/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_config.c - clustermond.conf lines, as net-snmp hands them to our
 * directive handlers: whatever a line holds, a handler must stay inside
 * its buffers and either accept it or report an error (counted, so the
 * file would be refused). In-process, like Net-SNMP's own fuzzers.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "runtime/sampler.h"
#include "sources/probes.h"
#include "sources/cgroup.h"
#include "sources/cpu.h"
#include "sources/mem.h"
#include "sources/pcap.h"
#include "sources/tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input goes through a file, as a clustermond.conf does: net-snmp
 * only dispatches lines to an application's handlers while reading one. */
static char path[64];

static void setup(void)
{
	int fd;

	if (path[0] != '\0')
		return;
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_APPTYPE, "clustermond");
	snmp_disable_log();
	/* The sources the directives name, so their checks run too. */
	sampler_add(&cpu_source_ops, "");
	sampler_add(&mem_source_ops, "");
	sampler_add(&tcp_source_ops, "");
	sampler_add(&pcap_source_ops, "");
	sampler_add(&probes_source_ops, "");
	sampler_add(&cgroup_source_ops, "");
	conf_init();
	strcpy(path, "/tmp/fuzz_config.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f;

	setup();
	f = fopen(path, "w");
	if (f == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	read_config_with_type(path, "clustermond");
	return 0;
}

#ifdef FUZZ_SMOKE_MAIN
static const char *const fuzz_splices[] = {
	"sampleInterval ", "tcpFilter ", "procFilter ", "pcapInterface ", "helperSocket ",
	" port=", " state=", "/128", "/33", "\"", "-", "=", ",", "4294967296", " filter \"",
	"name=", "uid=", "top=", "::", "..", "\t",
};
static const size_t fuzz_nsplices = sizeof(fuzz_splices) / sizeof(fuzz_splices[0]);
static const char *const fuzz_seeds[] = { "config/all.conf" };
static const size_t fuzz_nseeds = sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]);
#include "smoke.h"
#endif
