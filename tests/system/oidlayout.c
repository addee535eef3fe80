/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * oidlayout - every object clustermond's MIB groups serve, as registered in
 * the agent library, one per line for tests/mib-oids.sh to hold against
 * net-snmp's own reading of CLUSTER-MON-MIB:
 *
 *   scalar OID ACCESS      a group's scalar (base.arc)
 *   column OID ACCESS      each column of a table (base.arc.1.col)
 *
 * ACCESS is rw for a scalar or column with a setter, ro for one without and
 * * for the columns of a read-create table (its row code decides per column).
 * Nothing here is read from the MIB or the generated header: the numbers are
 * those the groups register, whatever names they were written with.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <stdio.h>

#include "conf.h"
#include "mib/engine/group.h"
#include "mib/mib.h"

static void print_oid(const char *kind, const oid *base, size_t len, const oid *tail, size_t n,
		      const char *access)
{
	printf("%s ", kind);
	for (size_t i = 0; i < len; i++)
		printf(".%lu", (unsigned long)base[i]);
	for (size_t i = 0; i < n; i++)
		printf(".%lu", (unsigned long)tail[i]);
	printf(" %s\n", access);
}

static void print_group(const struct mib_group *g)
{
	for (size_t k = 0; k < g->nobjects; k++) {
		const struct mib_object *o = &g->objects[k];
		const struct mib_table *t = o->table;

		if (t == NULL) {
			oid tail[1] = { o->arc };

			print_oid("scalar", g->base, g->base_len, tail, 1, o->setter ? "rw" : "ro");
			continue;
		}
		for (unsigned c = t->min_col; c <= t->max_col; c++) {
			oid tail[3] = { o->arc, 1, c };
			const char *access = g->set_request ? "*" :
					     (c == t->writable_col && t->setter) ? "rw" : "ro";

			print_oid("column", g->base, g->base_len, tail, 3, access);
		}
	}
}

int main(void)
{
	const struct mib_group *g;

	snmp_disable_log();
	init_agent("oidlayout");
	conf_init();
	if (mib_register_all() != 0) {
		fprintf(stderr, "oidlayout: cannot register the CLUSTER-MON-MIB groups\n");
		return 1;
	}
	for (size_t i = 0; (g = mib_group_nth(i)) != NULL; i++)
		print_group(g);
	return 0;
}
