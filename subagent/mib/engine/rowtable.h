/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rowtable.h - read-create tables (RowStatus, StorageType) on the SNMP
 * thread: the history, threshold, probe, trace and distribution tables
 * share this engine.
 *
 * A SET request is staged whole in RESERVE1: every varbind for the table is
 * applied to a copy of its row, each copy goes through the RowStatus rules
 * and the table's own consistency check, and any failure leaves the live
 * rows untouched. ACTION swaps the copies in, UNDO swaps them back, COMMIT
 * frees what was replaced and saves nonVolatile rows through net-snmp's
 * persistent storage.
 *
 * Each row may own a "runtime" (a ring, a threshold state machine) that the
 * table's prepare() either shares with the row it replaces (nothing that
 * matters changed: sampling goes on) or makes afresh.
 */
#ifndef CLUSTERMON_MIB_ROWTABLE_H
#define CLUSTERMON_MIB_ROWTABLE_H

#include "group.h"
#include "core/rowstatus.h"

#define RT_INDEX_MAX 65535u
#define RT_MAX_COLS 16

/* Embedded first in every table's row struct. */
struct rt_row {
	uint32_t index;
	enum row_status status;    /* active, notInService or notReady */
	int storage;               /* enum storage_type */
	void *runtime;             /* owned by the table's ops; may be shared */
};

struct rt_ops {
	const char *name;          /* for log messages */
	size_t row_size;
	unsigned min_col, max_col; /* columns after the index column */
	unsigned status_col, storage_col;
	int default_storage;       /* of a row made by SNMP; 0: nonVolatile */
	/* Rows the table holds at most, config lines included (0: no cap): a
	 * SET creating one more is resourceUnavailable, a config line past it
	 * an error at its file:line. */
	size_t max_rows;
	void (*defaults)(struct rt_row *row);
	/* Type, length and range of a value for a column: an SNMP_ERR_* status
	 * (notWritable for read-only columns). */
	int (*check)(unsigned col, const netsnmp_variable_list *var);
	void (*set)(struct rt_row *row, unsigned col, const netsnmp_variable_list *var);
	bool (*ready)(const struct rt_row *row);
	/* The column that makes a staged row inconsistent, or 0; old is the
	 * live row it replaces (NULL for a new row). */
	unsigned (*inconsistent)(const struct rt_row *row, const struct rt_row *old);
	/* Same configuration (every read-create column but the RowStatus and
	 * StorageType): a row that stays the same keeps its runtime. */
	bool (*same)(const struct rt_row *a, const struct rt_row *b);
	/* Gives a staged row its runtime: old's (may be NULL) or a new one;
	 * -1 when out of memory. */
	int (*prepare)(struct rt_row *row, const struct rt_row *old);
	void (*free_runtime)(void *runtime);
	/* src: the source's view the group's request took (struct rt_view). */
	int (*get)(const struct rt_row *row, unsigned col, const void *src, struct mib_value *v);
	/* Persistent storage: one line per nonVolatile row, without the token. */
	void (*save)(const struct rt_row *row, char *buf, size_t len);
	int (*restore)(struct rt_row *row, char *line); /* 0 or -1 */
	void (*changed)(void);     /* rows were added, removed or changed */
	/* The clustermond.conf directive making readOnly rows, and a parser
	 * of one line into a fresh row: NULL, or why the line is wrong. */
	const char *directive, *directive_usage;
	const char *(*conf_fill)(struct rt_row *row, char *line);
};

struct rt_pending;

struct rt_table {
	const struct rt_ops *ops;
	unsigned arc;              /* the table's arc in its group */
	const char *store_token;   /* persistent storage line token */
	struct rt_row **rows;      /* ascending index */
	size_t n, cap;
	struct rt_pending *pending;
	struct rt_row **restored;  /* read from persistent storage, not yet in */
	size_t nrestored;
	struct rt_row **conf_rows; /* read from the config files, not yet in */
	size_t nconf;
	struct mib_table view;     /* for group.c's GET and GETNEXT */
};

/* What a read-create group's request reads, as its acquire returns it (or
 * as the first member of what it returns): the rows, and the view of the
 * source their readings come from (NULL: none), handed to rt_ops.get and
 * read by the group's other objects. Taken per request, so the SNMP thread
 * and the publisher never share one. */
struct rt_view {
	const struct rt_table *t;
	const void *src;
};

/* Sets up t->view, the directive, and the persistent-storage hooks (before
 * init_snmp). */
void rt_init(struct rt_table *t);
/* Around each read of the config files (reload.c): at the end the
 * directive's rows replace the readOnly ones and the restored rows go in,
 * unless a line was wrong (ok false): then everything running is kept.
 * report takes a bad line's message (fmt has one %s) and counts it, so the
 * read is refused. */
typedef void (*rt_report_fn)(const char *fmt, const char *arg);
void rt_read_begin(rt_report_fn report);
void rt_read_end(bool ok);
/* The SET phases for the varbinds of this table in a request (the group's
 * set_request hook passes them on); varbinds for other arcs are left alone. */
void rt_set_request(struct rt_table *t, netsnmp_agent_request_info *reqinfo,
		    netsnmp_request_info *requests, size_t base_len);

struct rt_row *rt_find(const struct rt_table *t, uint32_t index);
/* Adds a row made outside SNMP (config file, persistent storage): the row
 * must be prepared already; -1 if the index is taken or out of memory. */
int rt_insert(struct rt_table *t, struct rt_row *row);
/* The saved owner string at line (may be NULL) into owner[RT_OWNER_MAX + 1]. */
#define RT_OWNER_MAX 127
void restore_owner(const char *line, char *owner);
/* Checks and stores for the columns both tables have: the Variable (an
 * OBJECT IDENTIFIER of at least two sub-identifiers), an Unsigned32 in
 * lo..hi, and the Owner (a DisplayString of at most RT_OWNER_MAX). */
int rt_check_variable(const netsnmp_variable_list *var);
void rt_set_variable(oid *dst, size_t *len, const netsnmp_variable_list *var);
int rt_check_unsigned(const netsnmp_variable_list *var, unsigned long lo, unsigned long hi);
int rt_check_owner(const netsnmp_variable_list *var);
void rt_set_owner(char *owner, const netsnmp_variable_list *var);
/* An OBJECT IDENTIFIER column's value (0.0 when empty). */
int rt_get_oid(struct mib_value *v, const oid *name, size_t len);
/* Whether a row's variable may stand: it must read as a number when it was
 * just set or the row is going active (one that vanishes later just goes
 * unsampled). */
bool rt_variable_ok(const oid *var, size_t len, const oid *old_var, size_t old_len,
		    bool activating);
/* Frees every row (at exit). */
void rt_clear(struct rt_table *t);

/* Queues every row of t for the thread that owns `source`, as one command of
 * `kind` (sources/source_cmd.h) whose rows `fill` makes, so the SNMP thread never waits
 * for the source; `what` names the rows in a log line when they cannot go. */
union source_cmd_row;
void rt_post_rows(const struct rt_table *t, unsigned source, int kind,
		  void (*fill)(const struct rt_row *row, union source_cmd_row *out),
		  const char *what);
/* A row with defaults, or NULL. */
struct rt_row *rt_new_row(const struct rt_table *t, uint32_t index);
void rt_free_row(const struct rt_table *t, struct rt_row *row);

#endif
