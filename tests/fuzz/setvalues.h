/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * setvalues.h - fuzz_set's input bytes turned into what a SET carries:
 * numbers at the columns' boundaries, strings (spec texts, lengths around
 * each limit), OIDs for the threshold and history rows' variables, and
 * any type a column may be sent instead of its own. Included by
 * fuzz_set.c only (run-fuzzers.sh builds that one file).
 */
#ifndef CLUSTERMON_FUZZ_SETVALUES_H
#define CLUSTERMON_FUZZ_SETVALUES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const oid objects[] = { CM_OID_clusterMonObjects };
#define OBJ_LEN OID_LENGTH(objects)

/* ------------------------------------------------------------ input */

struct input {
	const uint8_t *p;
	size_t n;
};

/* The next byte; zeros once the input is used up, so every input is valid. */
static unsigned take(struct input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

/* ------------------------------------------------------------ values */

static const long int_values[16] = {
	0, 1, 2, 3, 4, 5, 6, 7, -1, -2, 8191, 8192, 65535, 100000, 2147483647L, -2147483647L - 1,
};
static const long unsigned_values[16] = {
	0, 1, 9, 10, 60, 100, 1000, 3600000, 3600001, 65535, 65536, 100000, 100001, 1000000,
	1000001, 4294967295L,
};

/* Bytes 0..0xEF pick a boundary from the table, 0xF0..0xFF four raw bytes. */
static long pick_number(struct input *in, const long *table, bool is_signed)
{
	unsigned b = take(in);
	uint32_t raw = 0;

	if (b < 0xF0)
		return table[b % 16];
	for (int i = 0; i < 4; i++)
		raw = raw << 8 | take(in);
	return is_signed ? (long)(int32_t)raw : (long)raw;
}

static char long_text[2048];

struct blob {
	const char *s;
	size_t len;
};

#define B(s) { s, sizeof(s) - 1 }
static const struct blob strings[] = {
	B(""), B("0"), B("1"), B("100"), B("007"), B("18446744073709551615"),
	B("18446744073709551616"), B("99999999999999999999"), B("123456789012345678901"),
	B("-1"), B("1a"), B("a\0b"), B("kprobe:tcp_sendmsg"), B("kretprobe:vfs_read"),
	B("tracepoint:sched:sched_switch"), B("raw_tracepoint:sched_switch"),
	B("latency:kprobe:vfs_read"),
	B("latency:tracepoint:syscalls:sys_enter_read,syscalls:sys_exit_read"),
	B("kprobe:"), B("tracepoint:a b:c"), B("bash*"), B("["), B("owner"),
	{ long_text, 63 }, { long_text, 64 }, { long_text, 127 }, { long_text, 128 },
	{ long_text, 200 }, { long_text, 201 }, { long_text, 255 }, { long_text, 256 },
	B("latency tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_read"),
	B("value tracepoint:syscalls:sys_exit_read ret"),
	B("latency tracepoint:block:block_rq_issue tracepoint:block:block_rq_complete key dev+sector"),
	B("value tracepoint:syscalls:sys_exit_read"), B("/system.slice"), B("/a/../b"),
};
#undef B

/* 0..0xDF: a string from the table; 0xE0..0xFE: LEN and LEN raw bytes;
 * 0xFF: N, and N * 8 bytes of long_text. */
static size_t pick_string(struct input *in, u_char *buf)
{
	unsigned b = take(in), len;

	if (b < 0xE0) {
		const struct blob *s = &strings[b % (sizeof(strings) / sizeof(strings[0]))];

		memcpy(buf, s->s, s->len);
		return s->len;
	}
	len = b == 0xFF ? take(in) * 8 : take(in);
	for (unsigned i = 0; i < len; i++)
		buf[i] = b == 0xFF ? (u_char)long_text[i] : (u_char)take(in);
	return len;
}

/* Variables for the threshold and history rows, under clusterMonObjects
 * (rel) or not: numeric, absent, not numeric, not an instance, the tables'
 * own columns, and a few from elsewhere. */
static const struct {
	bool rel;
	unsigned len;
	oid arcs[9];
} variables[] = {
	{ true, 5, { 2, 1, 1, 3, 1 } }, { true, 5, { 2, 1, 1, 3, 4 } },
	{ true, 5, { 2, 1, 1, 5, 1 } }, { true, 5, { 2, 1, 1, 2, 1 } },
	{ true, 3, { 5, 3, 0 } }, { true, 3, { 5, 4, 0 } }, { true, 3, { 5, 5, 0 } },
	{ true, 5, { 5, 1, 1, 4, 1 } }, { true, 3, { 3, 1, 0 } }, { true, 3, { 4, 1, 0 } },
	{ true, 5, { 11, 1, 1, 8, 1 } }, { true, 5, { 11, 1, 1, 4, 1 } },
	{ true, 5, { 10, 1, 1, 5, 1 } }, { true, 6, { 10, 2, 1, 3, 1, 1 } },
	{ true, 5, { 8, 1, 1, 6, 1 } }, { true, 5, { 8, 1, 1, 9, 1 } }, { true, 1, { 2 } },
	{ false, 2, { 0, 0 } }, { false, 2, { 1, 3 } },
	{ false, 9, { 1, 3, 6, 1, 2, 1, 1, 3, 0 } },
};
#define NVARIABLES (sizeof(variables) / sizeof(variables[0]))

/* 0..0xDF: from the table; 0xE0..0xFF: N, and 2..MAX_OID_LEN arcs that
 * BER can carry (first 0..2, second below 40 under 0 and 1): what a
 * manager can send, and the agent must echo back. */
static size_t pick_oid(struct input *in, oid *out)
{
	unsigned b = take(in);
	size_t n = 0;

	if (b < 0xE0) {
		unsigned k = b % NVARIABLES;

		if (variables[k].rel) {
			memcpy(out, objects, sizeof(objects));
			n = OBJ_LEN;
		}
		memcpy(out + n, variables[k].arcs, variables[k].len * sizeof(oid));
		return n + variables[k].len;
	}
	n = 2 + take(in) % (MAX_OID_LEN - 1);
	out[0] = take(in) % 3;
	out[1] = take(in) % (out[0] < 2 ? 40 : 256);
	for (size_t i = 2; i < n; i++) {
		unsigned a = take(in);

		out[i] = a == 0xFF ? 4294967295u : a;
	}
	return n;
}

/* Types a column can be sent instead of its own. */
static const u_char any_types[] = {
	ASN_INTEGER, ASN_UNSIGNED, ASN_COUNTER, ASN_TIMETICKS, ASN_OCTET_STR, ASN_OBJECT_ID,
	ASN_NULL, ASN_IPADDRESS, ASN_OPAQUE, ASN_COUNTER64,
};

/* TYPE VALUE...: TYPE 0..0xBF sends the column's own type, else one of
 * any_types; the value bytes depend on the type. */
static void add_value(netsnmp_pdu *pdu, const oid *name, size_t len, u_char own,
		      struct input *in)
{
	static u_char buf[2048];
	static oid arcs[MAX_OID_LEN];
	unsigned t = take(in);
	u_char type = t < 0xC0 ? own : any_types[t % sizeof(any_types)];
	struct counter64 c64;
	long v;
	size_t n;

	switch (type) {
	case ASN_INTEGER:
	case ASN_UNSIGNED: case ASN_COUNTER: case ASN_TIMETICKS:
		v = pick_number(in, type == ASN_INTEGER ? int_values : unsigned_values,
				type == ASN_INTEGER);
		snmp_pdu_add_variable(pdu, name, len, type, &v, sizeof(v));
		break;
	case ASN_COUNTER64:
		c64.high = take(in);
		c64.low = take(in);
		snmp_pdu_add_variable(pdu, name, len, type, &c64, sizeof(c64));
		break;
	case ASN_OBJECT_ID:
		n = pick_oid(in, arcs);
		snmp_pdu_add_variable(pdu, name, len, type, arcs, n * sizeof(oid));
		break;
	case ASN_NULL:
		snmp_pdu_add_variable(pdu, name, len, type, NULL, 0);
		break;
	case ASN_IPADDRESS:
		for (int i = 0; i < 4; i++)
			buf[i] = (u_char)take(in);
		snmp_pdu_add_variable(pdu, name, len, type, buf, 4);
		break;
	default: /* OCTET STRING, Opaque */
		n = pick_string(in, buf);
		snmp_pdu_add_variable(pdu, name, len, type, buf, n);
		break;
	}
}

static void values_init(void)
{
	memcpy(long_text, "kprobe:", 7);
	memset(long_text + 7, 'a', sizeof(long_text) - 7);
}

#endif
