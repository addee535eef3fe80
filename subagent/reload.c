/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reload.c - what a read of the config files sets in motion, in one place
 * and in this order. Net-SNMP runs every pre-read callback, reads the
 * files (conf.c's directives and the read-create tables' lines and saved
 * rows land in staging copies), then runs every post-read callback; we
 * register one of each, so the steps below do not depend on who registered
 * first. (Before any of them, conf.c's refuse_start ends a start-up whose
 * files had errors: it must run before the AgentX connection is made, so
 * it keeps its highest-priority callback of its own.)
 *
 *  1. conf.c: the staged directives become the configuration in force, or
 *     (a line was wrong) everything running is kept and nothing below
 *     changes but the staged rows being dropped.
 *  2. The sampler: the sources' part goes to every source at once, one
 *     immutable object, queued to each source's own thread.
 *  3. The MIB's own copies of writable settings (the procFilter scalars)
 *     go back to the configuration's.
 *  4. The read-create tables: `probe`/`threshold`/... lines replace the
 *     readOnly rows and saved rows go in; the probe table then queues its
 *     rows for the probes source, after step 2 so the source already has
 *     the helperSocket they are attached through.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "reload.h"

#include "conf.h"
#include "mib/mib.h"
#include "mib/engine/publish.h"
#include "mib/engine/rowtable.h"
#include "runtime/sampler.h"
#include "sources/top.h"

static int before_read(int major, int minor, void *server, void *client)
{
	(void)major, (void)minor, (void)server, (void)client;
	conf_read_begin();
	rt_read_begin(conf_error);
	return SNMP_ERR_NOERROR;
}

static int after_read(int major, int minor, void *server, void *client)
{
	bool ok;

	(void)major, (void)minor, (void)server, (void)client;
	ok = conf_read_end();
	if (ok) {
		top_configure(&conf_active()->sources);
		sampler_configure(&conf_active()->sources);
		mib_proc_configure(&conf_active()->sources.proc_filter);
		publish_configure(conf_active()->sources.image_path);
	}
	rt_read_end(ok);
	return SNMP_ERR_NOERROR;
}

void reload_init(void)
{
	conf_init();
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_PRE_READ_CONFIG,
			       before_read, NULL);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_POST_READ_CONFIG,
			       after_read, NULL);
}
