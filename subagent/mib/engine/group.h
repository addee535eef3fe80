/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * group.h - one handler per MIB group, serving its scalars and tables.
 *
 * Each group is registered once at its subtree, so the master routes the
 * whole group to one small table-driven handler: GET, GETNEXT (GETBULK is
 * turned into GETNEXT by the agent library) and simple SETs. Group files only
 * describe objects and read values out of a snapshot ("view").
 */
#ifndef CLUSTERMON_MIB_GROUP_H
#define CLUSTERMON_MIB_GROUP_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <stdbool.h>
#include <stdint.h>

/* A value about to be encoded. Strings point into the view or into buf. */
struct mib_value {
	u_char type;           /* ASN_INTEGER, ASN_COUNTER64, ASN_OCTET_STR, ... */
	uint64_t num;          /* every numeric type */
	const void *ptr;       /* ASN_OCTET_STR bytes, ASN_OBJECT_ID oids */
	size_t len;            /* bytes (strings) or sub-identifiers (oids) */
	char buf[256];
};

/* Return values of get callbacks. */
#define MIB_PRESENT 0
#define MIB_ABSENT (-1)

static inline int mib_u64(struct mib_value *v, u_char type, uint64_t n)
{
	v->type = type;
	v->num = n;
	return MIB_PRESENT;
}

int mib_string(struct mib_value *v, const char *s);

struct log2hist;
/* A log2 bucket row's Low, High and Count columns (which 0, 1, 2), for
 * every table of buckets: shape gives the bounds, count the bucket's. */
int mib_log2_bucket(struct mib_value *v, unsigned which, const struct log2hist *shape,
		    unsigned b, uint64_t count);

/* Notifications: a varbind list starting with snmpTrapOID.0 = trap, then
 * columns of a table row (entry is the table's entry OID, the instance a
 * one-number index). The caller sends it with send_v2trap and frees it. */
netsnmp_variable_list *mib_notification(const oid *trap, size_t trap_len);
void mib_add_column(netsnmp_variable_list **vars, const oid *entry, size_t entry_len,
		    unsigned col, uint32_t index, u_char type, const void *value, size_t len);

/* What a setter's apply saves for its undo: kept with the varbind, so
 * every varbind of a request has its own, however many name one object. */
struct mib_undo {
	uint64_t num;
	char text[64];
};

/* A writable column or scalar. check returns an SNMP_ERR_* status; apply
 * remembers what undo needs in *undo. Both run on the SNMP thread. */
struct mib_setter {
	int (*check)(const oid *idx, size_t idx_len, const netsnmp_variable_list *var);
	int (*apply)(const oid *idx, size_t idx_len, const netsnmp_variable_list *var,
		     struct mib_undo *undo);
	void (*undo)(const oid *idx, size_t idx_len, const struct mib_undo *undo);
};

struct mib_table {
	unsigned min_col, max_col;
	unsigned index_len;  /* sub-identifiers in every row index */
	size_t (*rows)(void *view);
	/* Row indexes must ascend in OID order. */
	void (*row_index)(void *view, size_t row, oid *out);
	int (*get)(void *view, size_t row, unsigned col, struct mib_value *v);
	/* May be NULL. Nonzero: the row's values change only when this does
	 * (the published image encodes a row again only then). */
	uint64_t (*row_gen)(void *view, size_t row);
	/* May be NULL. The view's generation, and how many rows from row on
	 * are unchanged since the view of generation since (0: none known):
	 * the image keeps such a run without visiting its rows. */
	uint64_t (*view_gen)(void *view);
	size_t (*same_since)(void *view, size_t row, uint64_t since);
	unsigned writable_col;          /* 0: none */
	const struct mib_setter *setter;
	/* Rows created, changed and destroyed by the group's set_request:
	 * the published image leaves the table out (AgentX answers it), so
	 * a read after a SET never sees a row from before it. */
	bool read_create;
};

/* A group's or object's demand (sampler.h) that wakes no source: it is
 * served from what the sampler keeps up on its own. */
#define MIB_DEMAND_NONE (1u << 31)

struct mib_object {
	unsigned arc;
	unsigned demand;  /* sources a read of it wakes; 0: the group's */
	int (*get)(void *view, struct mib_value *v);  /* a scalar ... */
	const struct mib_table *table;                /* ... or a table */
	const struct mib_setter *setter;              /* writable scalar */
};

struct mib_group {
	const char *name;
	const oid *base;
	size_t base_len;
	const struct mib_object *objects; /* ascending arcs */
	size_t nobjects;
	/* Where its data comes from, declared once: the source (enum
	 * source_index) whose snapshot the engine acquires around each
	 * request and publication and releases after, or, for a group that
	 * reads more than one thing, acquire/release making one typed view
	 * of them all. Neither: the group reads state it owns (view NULL). */
	unsigned source;
	void *(*acquire)(void);
	void (*release)(void *view);
	/* Read-create tables take a SET request whole (every varbind of the
	 * group in each phase) instead of varbind by varbind. */
	void (*set_request)(netsnmp_agent_request_info *reqinfo,
			    netsnmp_request_info *requests);
	/* For the published image (publish.c): the sources whose samples
	 * change what this group serves besides .source, a bit per enum
	 * source_index (none at all: it is encoded again at every tick,
	 * unless it has .generation; mib_group_sources), and the least time
	 * between two encodings (0: as often as its sources sample). */
	unsigned sources;
	uint32_t publish_min_ms;
	/* The sources a read wakes when they are idle (sampler.h's demand);
	 * 0: .sources. A read that wakes one waits (delegated, the SNMP
	 * thread goes on) for its next sample, so nobody is served rows
	 * older than one interval. */
	unsigned demand;
	/* May be NULL. The demand as things stand now, in place of .demand,
	 * for a group whose needs change while clustermond runs. */
	unsigned (*demand_now)(void);
	/* May be NULL. For a group published apart from its sources'
	 * samples (.sources 0): its own count of changes, which the image
	 * follows instead of encoding it again at every tick. */
	uint64_t (*generation)(void);
};

/* The view one request or publication reads (mib_group.source's snapshot
 * or acquire()'s), and its end. */
void *mib_group_view(const struct mib_group *g);
void mib_group_unview(const struct mib_group *g, void *view);
/* Whether g reads a view: then a NULL view means no sample yet. */
bool mib_group_has_view(const struct mib_group *g);
/* The sources whose samples change what g serves (.source and .sources). */
unsigned mib_group_sources(const struct mib_group *g);

/* The sources a read of instance (or, for a GETNEXT, what follows) name
 * needs; 0 when none. */
unsigned mib_demand_of(const struct mib_group *g, const oid *name, size_t len);
/* Every source any object of g needs. */
unsigned mib_group_demand(const struct mib_group *g);


int mib_group_register(const struct mib_group *g);
/* The registered groups in registration order; NULL past the last. */
const struct mib_group *mib_group_nth(size_t i);

/* What reading one instance served by this agent gave. */
enum mib_read_rc { MIB_READ_OK = 0, MIB_READ_ABSENT = -1, MIB_READ_NOT_NUMERIC = -2 };

/*
 * The value of one instance of any registered group as an unsigned number
 * (INTEGER, Counter32/64, Gauge32, Unsigned32, TimeTicks), as a GET would
 * answer it now: thresholds and histories sample their variables with it.
 */
enum mib_read_rc mib_read_number(const oid *name, size_t len, uint64_t *out);
/* The same, by a reader that comes back every every_ms: the sources behind
 * the instance keep sampling for at least twice that. */
enum mib_read_rc mib_read_number_every(const oid *name, size_t len, uint64_t *out,
				       uint32_t every_ms);
/* True when name has the shape of an instance of a registered object
 * (scalar.0, or a table column with an index of the right length), whether
 * or not that instance exists right now. */
bool mib_instance_shape_ok(const oid *name, size_t len);
/* Undoes the sign extension net-snmp's AgentX parser gives sub-identifiers
 * of 2^31 and up (group.c). */
void mib_oid_unsign(oid *name, size_t len);
/* A config file's OBJECT-INSTANCE (numeric, or a name from a loaded MIB)
 * into name/len; NULL on success, else why not. */
const char *mib_parse_instance(const char *text, oid *name, size_t *len);

#endif
