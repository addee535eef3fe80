/* SPDX-License-Identifier: BSD-2-Clause */
/* specfilter.c - the spec-and-filter columns of two tables (specfilter.h). */
#include "specfilter.h"

#include <stdio.h>
#include <string.h>

#include "engine/rowtable.h"

void sf_defaults(struct sf_fields *f)
{
	f->spec[0] = '\0';
	filter_default(&f->filter);
}

bool sf_owns(const struct sf_columns *c, unsigned col)
{
	return col == c->spec || col == c->pid || col == c->cpu || col == c->every;
}

static int check_integer(const netsnmp_variable_list *var, long lo, long hi)
{
	if (var->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	return *var->val.integer >= lo && *var->val.integer <= hi ? SNMP_ERR_NOERROR :
								    SNMP_ERR_WRONGVALUE;
}

static int check_spec(const struct sf_columns *c, const netsnmp_variable_list *var)
{
	char text[SPEC_MAX_TEXT + 1], why[256];
	struct probe_spec parsed;

	if (var->type != ASN_OCTET_STR)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len < 1 || var->val_len > SPEC_MAX_TEXT)
		return SNMP_ERR_WRONGLENGTH;
	memcpy(text, var->val.string, var->val_len);
	text[var->val_len] = '\0';
	/* A NUL inside would cut the spec short of what the manager sent. */
	if (strlen(text) != var->val_len || c->spec_parse(text, &parsed, why, sizeof(why)) != 0) {
		snmp_log(LOG_INFO, "clustermond: %s '%s' refused: %s\n", c->spec_name, text,
			 strlen(text) != var->val_len ? "a NUL byte inside" : why);
		return SNMP_ERR_WRONGVALUE;
	}
	return SNMP_ERR_NOERROR;
}

int sf_check(const struct sf_columns *c, unsigned col, const netsnmp_variable_list *var)
{
	if (col == c->spec)
		return check_spec(c, var);
	if (col == c->pid)
		return check_integer(var, -1, INT32_MAX);
	if (col == c->cpu)
		return check_integer(var, -1, FILTER_MAX_CPU);
	if (col == c->every)
		return rt_check_unsigned(var, 1, FILTER_MAX_EVERY);
	return SNMP_ERR_NOTWRITABLE;
}

void sf_set(const struct sf_columns *c, struct sf_fields *f, unsigned col,
	    const netsnmp_variable_list *var)
{
	char text[SPEC_MAX_TEXT + 1], why[256];

	if (col == c->spec) {
		memcpy(text, var->val.string, var->val_len);
		text[var->val_len] = '\0';
		sf_set_spec(c, f, text, why, sizeof(why));   /* sf_check took it */
	} else if (col == c->pid) {
		f->filter.tgid = (int32_t)*var->val.integer;
	} else if (col == c->cpu) {
		f->filter.cpu = (int32_t)*var->val.integer;
	} else if (col == c->every) {
		f->filter.every = (uint32_t)*var->val.integer;
	}
}

int sf_get(const struct sf_columns *c, const struct sf_fields *f, unsigned col,
	   struct mib_value *v)
{
	if (col == c->spec)
		return mib_string(v, f->spec);
	if (col == c->pid)
		return mib_u64(v, ASN_INTEGER, (uint64_t)(int64_t)f->filter.tgid);
	if (col == c->cpu)
		return mib_u64(v, ASN_INTEGER, (uint64_t)(int64_t)f->filter.cpu);
	if (col == c->every)
		return mib_u64(v, ASN_UNSIGNED, f->filter.every);
	return MIB_ABSENT;
}

int sf_set_spec(const struct sf_columns *c, struct sf_fields *f, const char *text, char *why,
		size_t whylen)
{
	struct probe_spec parsed;

	if (strlen(text) > SPEC_MAX_TEXT) {
		snprintf(why, whylen, "a spec is at most %d characters", SPEC_MAX_TEXT);
		return -1;
	}
	if (c->spec_parse(text, &parsed, why, whylen) != 0)
		return -1;
	strcpy(f->spec, text);
	f->parsed = parsed;
	return 0;
}

bool sf_same(const struct sf_fields *a, const struct sf_fields *b)
{
	return strcmp(a->spec, b->spec) == 0 && a->filter.tgid == b->filter.tgid &&
	       a->filter.cpu == b->filter.cpu && a->filter.every == b->filter.every;
}
