/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.c - the table of sources, and what resolves through it.
 */
#include "registry.h"

#include <string.h>

#include "cgroup.h"
#include "cpu.h"
#include "mem.h"
#include "pcap.h"
#include "proc.h"
#include "tcp.h"
#include "probes.h"
#include "../runtime/snapshot.h"

const struct source_ops *const source_registry[] = {
	&cpu_source_ops, &mem_source_ops, &proc_source_ops, &tcp_source_ops,
	&pcap_source_ops, &probes_source_ops, &cgroup_source_ops, NULL,
};

const struct source_ops *source_by_index(unsigned index)
{
	for (size_t i = 0; source_registry[i] != NULL; i++)
		if (source_registry[i]->index == index)
			return source_registry[i];
	return NULL;
}

unsigned source_index_by_name(const char *name)
{
	for (size_t i = 0; source_registry[i] != NULL; i++)
		if (strcmp(source_registry[i]->name, name) == 0)
			return source_registry[i]->index;
	return 0;
}

const char *source_method(unsigned index)
{
	const struct source_ops *ops = source_by_index(index);
	const char *method = NULL;
	struct snapshot *s;

	if (ops == NULL || ops->method == NULL || ops->slot == NULL)
		return "periodic";
	s = snapshot_acquire(ops->slot);
	if (s != NULL)
		method = ops->method(s);
	snapshot_release(ops->slot, s);
	return method != NULL ? method : "periodic";
}
