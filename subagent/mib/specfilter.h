/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * specfilter.h - the columns clusterMonProbeTable and clusterMonTraceTable
 * share: a spec and its filters (Spec, FilterPid, FilterCpu, SampleEvery).
 * Each table names its column numbers and judges the spec with its own
 * parser; checking, setting, reading and comparing are done once, here.
 */
#ifndef CLUSTERMON_MIB_SPECFILTER_H
#define CLUSTERMON_MIB_SPECFILTER_H

#include <stdbool.h>

#include "engine/group.h"
#include "common/spec.h"

struct sf_columns {
	unsigned spec, pid, cpu, every;   /* the table's column numbers */
	const char *spec_name;            /* for the log: clusterMonProbeSpec */
	/* The table's parser of a spec: 0 when it takes the text, else -1
	 * with why. */
	int (*spec_parse)(const char *spec, struct probe_spec *out, char *why, size_t whylen);
};

struct sf_fields {
	char spec[SPEC_MAX_TEXT + 1];   /* as the manager wrote it */
	struct probe_spec parsed;       /* what it says, read when it was set */
	struct probe_filter filter;
};

void sf_defaults(struct sf_fields *f);
/* Whether col is one of the shared columns. */
bool sf_owns(const struct sf_columns *c, unsigned col);
/* A SET's value for one of the shared columns: SNMP_ERR_*. */
int sf_check(const struct sf_columns *c, unsigned col, const netsnmp_variable_list *var);
/* Stores a value sf_check accepted (a spec is parsed here, once). */
void sf_set(const struct sf_columns *c, struct sf_fields *f, unsigned col,
	    const netsnmp_variable_list *var);
int sf_get(const struct sf_columns *c, const struct sf_fields *f, unsigned col,
	   struct mib_value *v);
bool sf_same(const struct sf_fields *a, const struct sf_fields *b);
/* Stores a spec text the table's parser accepts: 0, or -1 with why. */
int sf_set_spec(const struct sf_columns *c, struct sf_fields *f, const char *text, char *why,
		size_t whylen);

#endif
