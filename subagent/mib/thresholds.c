/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * thresholds.c - clusterMonThresholdTable: RMON alarms (RFC 2819) on any
 * numeric instance this agent serves, with 64-bit levels, and the
 * clusterMonThresholdRising/Falling notifications sent through the master.
 *
 * Rows come from `threshold` lines of clustermond.conf (readOnly) or from
 * SETs (volatile or nonVolatile). Each active row samples its variable on
 * the watch timer: absolute rows once per interval, delta rows every half
 * interval so a change straddling two intervals is still seen whole.
 */
#include "engine/rowtable.h"
#include "mib.h"
#include "engine/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/number.h"
#include "core/ring.h"
#include "core/threshold.h"

static const oid thresholds_oid[] = { CM_OID_clusterMonThresholds };
static const oid entry_oid[] = { CM_OID_clusterMonThresholdEntry };
static const oid rising_trap_oid[] = { CM_OID_clusterMonThresholdRising };
static const oid falling_trap_oid[] = { CM_OID_clusterMonThresholdFalling };

enum {
	COL_VARIABLE = CM_ARC_clusterMonThresholdVariable,
	COL_SAMPLE_TYPE = CM_ARC_clusterMonThresholdSampleType,
	COL_INTERVAL = CM_ARC_clusterMonThresholdIntervalMs,
	COL_RISING = CM_ARC_clusterMonThresholdRisingLevel,
	COL_FALLING = CM_ARC_clusterMonThresholdFallingLevel,
	COL_STARTUP = CM_ARC_clusterMonThresholdStartupAlarm,
	COL_VALUE = CM_ARC_clusterMonThresholdValue,
	COL_STATE = CM_ARC_clusterMonThresholdState,
	COL_STORAGE = CM_ARC_clusterMonThresholdStorageType,
	COL_STATUS = CM_ARC_clusterMonThresholdRowStatus,
	COL_OWNER = CM_ARC_clusterMonThresholdOwner
};
enum state { STATE_ARMED = 1, STATE_RISEN = 2, STATE_FALLEN = 3 };

#define LEVEL_DIGITS_MAX 20
/* Issue 40: each row samples on the SNMP thread and may send a trap per
 * crossing. At most this many rows (config lines included), each at most
 * every THRESHOLD_INTERVAL_MIN_MS: 10,240 samples a second at worst, where
 * 65,535 rows at 10 ms were 6.5 million. */
#define THRESHOLD_MAX_ROWS 1024u
#define THRESHOLD_INTERVAL_MIN_MS 100u

struct threshold_row {
	struct rt_row hdr;
	oid var[MAX_OID_LEN];
	size_t var_len;
	int sample_type;
	uint32_t interval_ms;
	uint64_t rising, falling;
	bool have_rising, have_falling;
	int startup;
	char owner[RT_OWNER_MAX + 1];
};

struct threshold_runtime {
	struct threshold machine;
	uint64_t next_due;
	enum state state;
};

static struct rt_table table;

/* ------------------------------------------------------------ columns */

static void defaults(struct rt_row *r)
{
	struct threshold_row *t = (struct threshold_row *)r;

	t->sample_type = THRESHOLD_ABSOLUTE;
	t->interval_ms = 1000;
	t->startup = STARTUP_BOTH;
}

/* A ClusterMonDecimal64: 1..20 digits, at most 2^64-1. */
static int parse_level(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len < 1 || len > LEVEL_DIGITS_MAX)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int check_integer(const netsnmp_variable_list *var, long lo, long hi)
{
	if (var->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len != sizeof(long))
		return SNMP_ERR_WRONGLENGTH;
	return *var->val.integer >= lo && *var->val.integer <= hi ? SNMP_ERR_NOERROR :
								    SNMP_ERR_WRONGVALUE;
}

static int check_level(const netsnmp_variable_list *var)
{
	uint64_t v;

	if (var->type != ASN_OCTET_STR)
		return SNMP_ERR_WRONGTYPE;
	if (var->val_len < 1 || var->val_len > LEVEL_DIGITS_MAX)
		return SNMP_ERR_WRONGLENGTH;
	return parse_level((const char *)var->val.string, var->val_len, &v) == 0 ?
		       SNMP_ERR_NOERROR : SNMP_ERR_WRONGVALUE;
}

static int check(unsigned col, const netsnmp_variable_list *var)
{
	switch (col) {
	case COL_VARIABLE:
		return rt_check_variable(var);
	case COL_SAMPLE_TYPE:
		return check_integer(var, THRESHOLD_ABSOLUTE, THRESHOLD_DELTA);
	case COL_INTERVAL:
		return rt_check_unsigned(var, THRESHOLD_INTERVAL_MIN_MS, RING_INTERVAL_MAX_MS);
	case COL_RISING:
	case COL_FALLING:
		return check_level(var);
	case COL_STARTUP:
		return check_integer(var, STARTUP_RISING, STARTUP_BOTH);
	case COL_OWNER:
		return rt_check_owner(var);
	default: /* Value, State */
		return SNMP_ERR_NOTWRITABLE;
	}
}

static void set(struct rt_row *r, unsigned col, const netsnmp_variable_list *var)
{
	struct threshold_row *t = (struct threshold_row *)r;

	switch (col) {
	case COL_VARIABLE: rt_set_variable(t->var, &t->var_len, var); break;
	case COL_SAMPLE_TYPE: t->sample_type = (int)*var->val.integer; break;
	case COL_INTERVAL: t->interval_ms = (uint32_t)*var->val.integer; break;
	case COL_RISING:
		t->have_rising = parse_level((const char *)var->val.string, var->val_len,
					     &t->rising) == 0;
		break;
	case COL_FALLING:
		t->have_falling = parse_level((const char *)var->val.string, var->val_len,
					      &t->falling) == 0;
		break;
	case COL_STARTUP: t->startup = (int)*var->val.integer; break;
	case COL_OWNER: rt_set_owner(t->owner, var); break;
	}
}

static bool ready(const struct rt_row *r)
{
	const struct threshold_row *t = (const struct threshold_row *)r;

	return t->var_len > 0 && t->have_rising && t->have_falling;
}

static bool same_variable(const struct threshold_row *a, const struct threshold_row *b)
{
	return snmp_oid_compare(a->var, a->var_len, b->var, b->var_len) == 0;
}

static unsigned inconsistent(const struct rt_row *r, const struct rt_row *o)
{
	const struct threshold_row *t = (const struct threshold_row *)r;
	const struct threshold_row *old = (const struct threshold_row *)o;
	bool activating = r->status == ROW_ACTIVE && (o == NULL || o->status != ROW_ACTIVE);

	if (t->have_rising && t->have_falling && t->falling > t->rising)
		return COL_FALLING;
	if (!rt_variable_ok(t->var, t->var_len, old ? old->var : NULL, old ? old->var_len : 0,
			    activating))
		return COL_VARIABLE;
	return 0;
}

static bool same(const struct rt_row *ra, const struct rt_row *rb)
{
	const struct threshold_row *a = (const struct threshold_row *)ra;
	const struct threshold_row *b = (const struct threshold_row *)rb;

	return same_variable(a, b) && a->sample_type == b->sample_type &&
	       a->interval_ms == b->interval_ms && a->rising == b->rising &&
	       a->falling == b->falling && a->startup == b->startup &&
	       strcmp(a->owner, b->owner) == 0;
}

static bool same_sampling(const struct threshold_row *a, const struct threshold_row *b)
{
	return same_variable(a, b) && a->sample_type == b->sample_type &&
	       a->interval_ms == b->interval_ms && a->rising == b->rising &&
	       a->falling == b->falling && a->startup == b->startup;
}

/* An active row keeps sampling through changes that do not touch how it
 * samples (owner, storage type); anything else starts it afresh, startup
 * alarm included, as RMON does for a re-activated alarmEntry. */
static int prepare(struct rt_row *r, const struct rt_row *o)
{
	struct threshold_row *t = (struct threshold_row *)r;
	struct threshold_runtime *rt;

	if (r->status != ROW_ACTIVE) {
		r->runtime = NULL;
		return 0;
	}
	if (o != NULL && o->status == ROW_ACTIVE && o->runtime != NULL &&
	    same_sampling(t, (const struct threshold_row *)o)) {
		r->runtime = o->runtime;
		return 0;
	}
	rt = calloc(1, sizeof(*rt));
	if (rt == NULL)
		return -1;
	threshold_init(&rt->machine, (enum threshold_type)t->sample_type,
		       (enum threshold_startup)t->startup, t->rising, t->falling);
	rt->state = STATE_ARMED;
	rt->next_due = 0;
	r->runtime = rt;
	return 0;
}

static int get(const struct rt_row *r, unsigned col, const void *src, struct mib_value *v)
{
	(void)src;
	const struct threshold_row *t = (const struct threshold_row *)r;
	const struct threshold_runtime *rt = r->runtime;
	char digits[LEVEL_DIGITS_MAX + 1];

	switch (col) {
	case COL_VARIABLE:
		return rt_get_oid(v, t->var, t->var_len);
	case COL_SAMPLE_TYPE: return mib_u64(v, ASN_INTEGER, (uint64_t)t->sample_type);
	case COL_INTERVAL: return mib_u64(v, ASN_UNSIGNED, t->interval_ms);
	case COL_RISING:
	case COL_FALLING:
		if (!(col == COL_RISING ? t->have_rising : t->have_falling))
			return MIB_ABSENT;
		snprintf(digits, sizeof(digits), "%llu",
			 (unsigned long long)(col == COL_RISING ? t->rising : t->falling));
		return mib_string(v, digits);
	case COL_STARTUP: return mib_u64(v, ASN_INTEGER, (uint64_t)t->startup);
	case COL_VALUE:
		if (rt == NULL || !rt->machine.have_value)
			return MIB_ABSENT;
		return mib_u64(v, ASN_COUNTER64, rt->machine.value);
	case COL_STATE:
		return mib_u64(v, ASN_INTEGER, rt != NULL ? rt->state : STATE_ARMED);
	case COL_OWNER: return mib_string(v, t->owner);
	default: return MIB_ABSENT;
	}
}

/* ------------------------------------------------------------ persistence */

static void save(const struct rt_row *r, char *buf, size_t len)
{
	const struct threshold_row *t = (const struct threshold_row *)r;
	char *p;
	int n;

	/* Worst case: 128 sub-identifiers of 10 digits, an owner in hex. */
	if (len < 1800)
		return;
	p = read_config_save_objid(buf, (oid *)t->var, t->var_len);
	n = snprintf(p, len - (size_t)(p - buf), " %d %u %d %llu %d %llu %d ", t->sample_type,
		     t->interval_ms, t->have_rising, (unsigned long long)t->rising,
		     t->have_falling, (unsigned long long)t->falling, t->startup);
	p += n;
	read_config_save_octet_string(p, (u_char *)t->owner, strlen(t->owner));
}

static int next_number(char **line, uint64_t *out)
{
	char word[32];

	if (*line == NULL)
		return -1;
	*line = copy_nword(*line, word, sizeof(word));
	return num_parse_u64(word, UINT64_MAX, out) == NUM_OK ? 0 : -1;
}

static int restore(struct rt_row *r, char *line)
{
	struct threshold_row *t = (struct threshold_row *)r;
	uint64_t f[7];
	oid *var = t->var;
	size_t len = MAX_OID_LEN;

	line = read_config_read_objid(line, &var, &len);
	t->var_len = len;
	for (int i = 0; i < 7; i++)
		if (next_number(&line, &f[i]) != 0)
			return -1;
	restore_owner(line, t->owner);
	t->sample_type = f[0] == THRESHOLD_DELTA ? THRESHOLD_DELTA : THRESHOLD_ABSOLUTE;
	t->interval_ms = (uint32_t)f[1];
	t->have_rising = f[2] != 0;
	t->rising = f[3];
	t->have_falling = f[4] != 0;
	t->falling = f[5];
	t->startup = f[6] >= STARTUP_RISING && f[6] <= STARTUP_BOTH ? (int)f[6] : STARTUP_BOTH;
	/* A row saved before the floor was 100 ms comes back at the floor. */
	if (t->interval_ms >= RING_INTERVAL_MIN_MS && t->interval_ms < THRESHOLD_INTERVAL_MIN_MS)
		t->interval_ms = THRESHOLD_INTERVAL_MIN_MS;
	if (t->var_len < 2 || t->interval_ms < 10 || t->interval_ms > 3600000 ||
	    (t->have_rising && t->have_falling && t->falling > t->rising))
		return -1;
	return 0;
}

/* ------------------------------------------------------------ sampling */

static void add_column(netsnmp_variable_list **vars, unsigned col, uint32_t index,
		       u_char type, const void *value, size_t len)
{
	mib_add_column(vars, entry_oid, OID_LENGTH(entry_oid), col, index, type, value, len);
}

/* clusterMonThresholdRising/Falling through the master, which turns it
 * into whatever its trap2sink, informsink or trapsess lines ask for. */
static void send_event(const struct threshold_row *t, enum threshold_event ev, uint64_t value)
{
	const bool rose = ev == THRESHOLD_ROSE;
	netsnmp_variable_list *vars = mib_notification(rose ? rising_trap_oid : falling_trap_oid,
						       OID_LENGTH(rising_trap_oid));
	struct counter64 c64 = { .high = (u_long)(value >> 32), .low = (u_long)(value & 0xffffffffu) };
	char level[LEVEL_DIGITS_MAX + 1];

	snprintf(level, sizeof(level), "%llu", (unsigned long long)(rose ? t->rising : t->falling));
	add_column(&vars, COL_VARIABLE, t->hdr.index, ASN_OBJECT_ID, t->var,
		   t->var_len * sizeof(oid));
	add_column(&vars, COL_VALUE, t->hdr.index, ASN_COUNTER64, &c64, sizeof(c64));
	add_column(&vars, rose ? COL_RISING : COL_FALLING, t->hdr.index, ASN_OCTET_STR, level,
		   strlen(level));
	send_v2trap(vars);
	snmp_free_varbind(vars);
}

static uint32_t period_ms(const struct threshold_row *t)
{
	uint32_t p = t->sample_type == THRESHOLD_DELTA ? t->interval_ms / 2 : t->interval_ms;

	return p > 0 ? p : 1;
}

static void sample(struct threshold_row *t, struct threshold_runtime *rt)
{
	enum threshold_event ev;
	uint64_t v;

	if (mib_read_number_every(t->var, t->var_len, &v, t->interval_ms) != MIB_READ_OK)
		return; /* gone for now (a process exited, a CPU went offline) */
	ev = threshold_feed(&rt->machine, v);
	if (ev == THRESHOLD_NONE)
		return;
	rt->state = ev == THRESHOLD_ROSE ? STATE_RISEN : STATE_FALLEN;
	send_event(t, ev, rt->machine.value);
}

static uint64_t tick(uint64_t now)
{
	uint64_t next = WATCH_NEVER;

	for (size_t i = 0; i < table.n; i++) {
		struct threshold_row *t = (struct threshold_row *)table.rows[i];
		struct threshold_runtime *rt = t->hdr.runtime;

		if (rt == NULL)
			continue;
		if (rt->next_due <= now) {
			sample(t, rt);
			rt->next_due = watch_next_due(now, period_ms(t));
		}
		if (rt->next_due < next)
			next = rt->next_due;
	}
	return next;
}

/* ------------------------------------------------------------ config file */

static int conf_word(const char *w, struct threshold_row *t)
{
	const char *v = strchr(w, '=');
	uint64_t n;

	if (strcmp(w, "delta") == 0) {
		t->sample_type = THRESHOLD_DELTA;
		return 0;
	}
	if (strncmp(w, "startup=", 8) == 0) {
		static const char *names[] = { "rising", "falling", "both" };

		for (int i = 0; i < 3; i++)
			if (strcmp(w + 8, names[i]) == 0)
				return t->startup = i + 1, 0;
		return -1;
	}
	if (v == NULL || num_parse_u64(v + 1, UINT64_MAX, &n) != NUM_OK)
		return -1;
	if (strncmp(w, "rising=", 7) == 0)
		return t->rising = n, t->have_rising = true, 0;
	if (strncmp(w, "falling=", 8) == 0)
		return t->falling = n, t->have_falling = true, 0;
	if (strncmp(w, "interval=", 9) == 0 && n >= THRESHOLD_INTERVAL_MIN_MS &&
	    n <= RING_INTERVAL_MAX_MS)
		return t->interval_ms = (uint32_t)n, 0;
	return -1;
}

static const char *conf_fill(struct rt_row *row, char *line)
{
	struct threshold_row *t = (struct threshold_row *)row;
	char *save = NULL, *name = strtok_r(line, " \t", &save);
	char *var = strtok_r(NULL, " \t", &save);
	const char *why;

	if (name == NULL || var == NULL)
		return "expected NAME OBJECT-INSTANCE rising=N falling=N [delta] [interval=MS] "
		       "[startup=rising|falling|both]";
	if (strlen(name) > RT_OWNER_MAX)
		return "NAME is longer than 127 characters";
	strcpy(t->owner, name);
	why = mib_parse_instance(var, t->var, &t->var_len);
	if (why != NULL)
		return why;
	for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (conf_word(w, t) != 0)
			return "a word is not rising=N, falling=N, delta, interval=100..3600000 or "
			       "startup=rising|falling|both";
	if (!t->have_rising || !t->have_falling)
		return "rising=N and falling=N are both required";
	if (t->falling > t->rising)
		return "falling is above rising";
	return NULL;
}

/* ------------------------------------------------------------ the group */

static void changed(void)
{
	watch_reschedule();
}

static const struct rt_ops ops = {
	.name = "clusterMonThresholdTable",
	.row_size = sizeof(struct threshold_row),
	.max_rows = THRESHOLD_MAX_ROWS,
	.min_col = COL_VARIABLE, .max_col = COL_OWNER,
	.status_col = COL_STATUS, .storage_col = COL_STORAGE,
	.defaults = defaults, .check = check, .set = set, .ready = ready,
	.inconsistent = inconsistent, .same = same, .prepare = prepare,
	.free_runtime = free, .get = get, .save = save, .restore = restore,
	.changed = changed,
	.directive = "threshold", .conf_fill = conf_fill,
	.directive_usage = "NAME OBJECT-INSTANCE rising=N falling=N [delta] [interval=MS] "
			   "[startup=rising|falling|both]",
};

static struct rt_table table = {
	.ops = &ops, .arc = CM_ARC_clusterMonThresholdTable, .store_token = "clusterMonThresholdRow",
};

/* The rows alone: nothing of a source's is read. */
static const struct rt_view rows_only = { &table, NULL };

static void *acquire(void)
{
	return (void *)&rows_only;
}

static void set_request(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	rt_set_request(&table, reqinfo, requests, OID_LENGTH(thresholds_oid));
}

static struct mib_object objects[] = {
	{ .arc = CM_ARC_clusterMonThresholdTable, .table = &table.view },
};

static const struct mib_group group = {
	.name = "clusterMonThresholds",
	.base = thresholds_oid,
	.base_len = OID_LENGTH(thresholds_oid),
	.objects = objects,
	.nobjects = 1,
	.acquire = acquire,
	.set_request = set_request,
};

int mib_thresholds_register(void)
{
	rt_init(&table);
	watch_register(tick);
	return mib_group_register(&group);
}

void mib_thresholds_clear(void)
{
	rt_clear(&table);
}
