/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_wire.c - the helper's control protocol: request lines split out of
 * a byte stream however it arrives, truncated and oversized requests, every
 * request form and its refusals, and the subagent's parser of the replies.
 */
#include <string.h>

#include "collect/helper.h"
#include "collect/tracelist.h"
#include "tap.h"
#include "common/wire.h"

static void test_lines(void)
{
	char buf[2 * WIRE_MAX_REQUEST + 2], line[WIRE_MAX_REQUEST + 1];
	size_t len;

	strcpy(buf, "hello\r\nlist\nre");
	len = strlen(buf);
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_LINE &&
		   strcmp(line, "hello") == 0, "a CRLF line comes out without its CR");
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_LINE &&
		   strcmp(line, "list") == 0, "the next line follows");
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_NEED_MORE && len == 2,
	   "a truncated request waits for the rest (2 bytes kept)");
	memcpy(buf + len, "ad\n", 3);
	len += 3;
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_LINE &&
		   strcmp(line, "read") == 0 && len == 0, "and completes when it comes");
	memset(buf, 'a', WIRE_MAX_REQUEST);
	buf[WIRE_MAX_REQUEST] = '\n';
	len = WIRE_MAX_REQUEST + 1;
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_LINE,
	   "a line of exactly %d bytes is taken", WIRE_MAX_REQUEST);
	memset(buf, 'a', WIRE_MAX_REQUEST + 1);
	len = WIRE_MAX_REQUEST + 1;
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_TOO_LONG,
	   "%d bytes without a newline are too long", WIRE_MAX_REQUEST + 1);
	buf[WIRE_MAX_REQUEST + 1] = '\n';
	len = WIRE_MAX_REQUEST + 2;
	ok(wire_take_line(buf, &len, WIRE_MAX_REQUEST, line) == WIRE_TOO_LONG,
	   "so is a line of %d bytes with its newline", WIRE_MAX_REQUEST + 1);
}

static void test_requests(void)
{
	static const struct { const char *line, *reason; } bad[] = {
		{ "", "empty request" },
		{ "   ", "empty request" },
		{ "frobnicate", "unknown request" },
		{ "add", "expected a probe id" },
		{ "add 0 tracepoint:a:b", "not in 1..65535" },
		{ "add 65536 tracepoint:a:b", "not in 1..65535" },
		{ "add 12x tracepoint:a:b", "not in 1..65535" },
		{ "add 1", "empty probe spec" },
		{ "add 1 tracepoint:a", "expected CATEGORY:NAME" },
		{ "add 1 tracepoint:a:b pid=0", "pid= takes" },
		{ "add 1 tracepoint:a:b colour=red", "unknown option" },
		{ "del", "expected a probe id" },
		{ "del x", "expected a probe id" },
		{ "list all", "unexpected words" },
		{ "read\x01", "control" },
		{ "trace 1 kprobe:f", "tracepoint: or raw_tracepoint:" },
		{ "trace 1 latency:kprobe:f", "tracepoint: or raw_tracepoint:" },
		{ "trace 1 sched_switch duration=0", "duration= takes" },
		{ "trace 1 sched_switch bytes=100", "bytes= takes" },
		{ "trace 1 sched_switch buffer=5000", "power of two" },
		{ "trace 1 sched_switch buffer=1073741824", "power of two" },
		{ "trace 1 sched_switch duration=", "duration= takes" },
		{ "trace 0 sched_switch", "not in 1..65535" },
		{ "add 4294967297 tracepoint:a:b", "not in 1..65535" },
		{ "add 18446744073709551617 tracepoint:a:b", "not in 1..65535" },
		{ "add 1 tracepoint:a:b every=4294967297", "every= takes" },
		{ "trace 1 sched_switch duration=18446744073709551617", "duration= takes" },
		{ "trace 1 sched_switch duration=4294967297", "duration= takes" },
		{ "trace 1 sched_switch bytes=99999999999999999999", "bytes= takes" },
		{ "trace 1 sched_switch buffer=+8192", "buffer= takes" },
		{ "trace 1 sched_switch duration=10s", "duration= takes" },
		{ "stop", "expected a probe id" },
		{ "traces now", "unexpected words" },
		{ "hello\xc3\xa9", "non-ASCII" },
	};
	struct wire_request r, back;
	char why[256], out[WIRE_MAX_REQUEST + 2], big[WIRE_MAX_REQUEST + 2];

	ok(wire_parse_request("add 7 tracepoint:syscalls:sys_enter_getppid pid=9 every=10", &r,
			      why, sizeof(why)) == 0 && r.verb == WIRE_ADD && r.id == 7 &&
		   r.filter.tgid == 9 && r.filter.every == 10 && r.filter.cpu == -1,
	   "an add with filters parses");
	ok(wire_format_request(&r, out, sizeof(out)) > 0 &&
		   strcmp(out, "add 7 tracepoint:syscalls:sys_enter_getppid pid=9 every=10\n") == 0,
	   "and formats back to the same line");
	out[strlen(out) - 1] = '\0';
	ok(wire_parse_request(out, &back, why, sizeof(why)) == 0 &&
		   memcmp(&back, &r, sizeof(r)) == 0, "which parses to the same request");
	ok(wire_parse_request("del 65535", &r, why, sizeof(why)) == 0 && r.verb == WIRE_DEL &&
		   r.id == 65535, "del 65535 parses");
	ok(wire_parse_request("hello", &r, why, sizeof(why)) == 0 && r.verb == WIRE_HELLO &&
		   wire_parse_request("list", &r, why, sizeof(why)) == 0 && r.verb == WIRE_LIST &&
		   wire_parse_request("read", &r, why, sizeof(why)) == 0 && r.verb == WIRE_READ,
	   "hello, list and read parse");
	ok(wire_parse_request("trace 4 sched_switch cpu=1 duration=2000 buffer=8192", &r, why,
			      sizeof(why)) == 0 && r.verb == WIRE_TRACE && r.id == 4 &&
		   r.spec.kind == SPEC_TRACEPOINT && strcmp(r.spec.name, "sched_switch") == 0 &&
		   r.filter.cpu == 1 && r.limits.duration_ms == 2000 &&
		   r.limits.buffer_bytes == 8192 && r.limits.max_bytes == TRACE_DEFAULT_BYTES,
	   "a trace of the sched_switch sensor with limits parses (defaults for the rest)");
	ok(wire_format_request(&r, out, sizeof(out)) > 0 &&
		   strcmp(out, "trace 4 tracepoint:sched:sched_switch cpu=1 duration=2000 "
			       "bytes=67108864 buffer=8192\n") == 0, "and formats: %s", out);
	out[strlen(out) - 1] = '\0';
	ok(wire_parse_request(out, &back, why, sizeof(why)) == 0 &&
		   memcmp(&back, &r, sizeof(r)) == 0, "which parses to the same request");
	ok(wire_parse_request("stop 4", &r, why, sizeof(why)) == 0 && r.verb == WIRE_STOP &&
		   r.id == 4 && wire_parse_request("traces", &r, why, sizeof(why)) == 0 &&
		   r.verb == WIRE_TRACES, "stop and traces parse");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(wire_parse_request(bad[i].line, &r, why, sizeof(why)) == -1 &&
			   strstr(why, bad[i].reason) != NULL,
		   "request %zu is refused: %s", i, why);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(wire_parse_request(big, &r, why, sizeof(why)) == -1 && strstr(why, "longer than"),
	   "an oversized request is refused: %s", why);
}

/* " SUM S0 ... S63" with counts at two slots. */
static void hist_text(char *buf, size_t len, unsigned a, unsigned na, unsigned b, unsigned nb)
{
	int n = snprintf(buf, len, " 12345");

	for (unsigned i = 0; i < 64; i++)
		n += snprintf(buf + n, len - (size_t)n, " %u", i == a ? na : i == b ? nb : 0);
}

static void test_replies(void)
{
	char reply[4096], hist[400], why[256];
	struct helper_reading r;
	const struct helper_probe *p;

	hist_text(hist, sizeof(hist), 19, 60, 20, 40);
	snprintf(reply, sizeof(reply),
		 "ok clustermon-kprobe 1 77-123\n"
		 "ok 2\nprobe 3 tracepoint:a:b pid=5\nprobe 9 latency:kprobe:f\n"
		 "ok 8\nprobe 3 10000 1000 2 2 4000 6000\nprobe 9 100 100 0 2 50 50\n"
		 "hist 9%s\nbusy 2 111 222\nswitches 2 5 6\nrunqlat%s\nsensors 1 2 3 4\n"
		 "drop 3 20 NO_SOCKET\n",
		 hist, hist);
	ok(helper_parse_poll(reply, &r, why, sizeof(why)) == 0, "a full reply parses");
	ok(strcmp(r.instance, "77-123") == 0 && r.nprobes == 2, "instance and two probes");
	p = helper_find_probe(&r, 3);
	ok(p && p->listed && p->filter.tgid == 5 && strcmp(p->spec.name, "b") == 0 && p->hits == 10000 &&
		   p->sampled == 1000 && p->lost == 2 && p->ncpu == 2 && p->cpu_hits[1] == 6000 &&
		   !p->has_hist, "probe 3: spec, counters, per-CPU hits");
	p = helper_find_probe(&r, 9);
	ok(p && p->has_hist && p->hist.count == 100 && p->hist.bucket[19] == 60 &&
		   p->hist.sum == 12345, "probe 9's latency histogram");
	ok(r.has_sched && r.ncpu == 2 && r.busy_ns[1] == 222 && r.switches[0] == 5 &&
		   r.has_runqlat && r.runqlat.bucket[20] == 40, "scheduler sensors");
	ok(r.has_sensors && r.tcp_retransmits == 1 && r.skb_drops == 2 && r.runqlat_lost == 3 &&
		   r.procs_lost == 4, "TCP and drop counters");
	ok(r.ndrops == 1 && r.drops[0].reason == 3 && r.drops[0].count == 20 &&
		   strcmp(r.drops[0].name, "NO_SOCKET") == 0, "drops by reason, with names");
	helper_reading_free(&r);
	ok(helper_parse_poll("ok clustermon-kprobe 1 7-1\nok 0\nok 2\nbusy 1 5\nswitches 1 6\n", &r,
			     why, sizeof(why)) == 0 && r.has_sched && !r.has_runqlat,
	   "a helper run with -S without runqlat: busy time, no distribution");
	helper_reading_free(&r);

	static const struct { const char *text, *reason; } bad[] = {
		{ "", "cut short" },
		{ "ok clustermon-kprobe 2 1\nok 0\nok 0\n", "protocol 2, not 1" },
		{ "ok clustermon-kprobe 1 x\nok 1\n", "cut short" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nprobe 1 5 5\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nprobe 0 1 1 0 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nprobe 1 1 1 0 0\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nprobe 1 1 1 0 3 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nprobe 1 -1 1 0 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nhist 1 5 1 2\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nbogus 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nerr busy too many clients\n", "refused: busy" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 2\nsensors 1 2 3\n", "cut short" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\ndrop 3 20\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\nsensors 1 2 3 4 5\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 0\nok 1\ndrop 3 20 TWO WORDS\n", "malformed" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(helper_parse_poll(bad[i].text, &r, why, sizeof(why)) == -1 &&
			   strstr(why, bad[i].reason) != NULL && r.probes == NULL,
		   "bad reply %zu is refused: %s", i, why);
	}
}

static void test_traces_reply(void)
{
	static const char *const bad[] = {
		"", "ok\n", "ok 1\n", "ok 1\ntrace 1 running 1 2 3 4 /d\n",
		"ok 1\ntrace 0 running 1 2 3 4 /d -\n", "ok 1\ntrace 1 paused 1 2 3 4 /d -\n",
		"ok 1\ntrace 1 running -1 2 3 4 /d -\n", "ok 1\ntrace 1 running 1 2 3 4 /d -",
		"ok 99999\n",
		/* strtoull clamped these to 2^64 - 1 and took them */
		"ok 1\ntrace 1 running 18446744073709551616 2 3 4 /d -\n",
		"ok 1\ntrace 1 running 1 2 3 99999999999999999999 /d -\n",
		"ok 18446744073709551617\n",
		"ok 1\ntrace 1 running +1 2 3 4 /d -\n",
	};
	struct tracelist_entry *e;
	size_t n;
	char why[128];

	ok(tracelist_parse("ok 2\ntrace 3 running 10 2 4096 150 /var/t/trace-3 -\n"
			   "trace 9 failed 5 0 100 9 /t/x disk full: No space left\n", &e, &n,
			   why, sizeof(why)) == 0 && n == 2,
	   "a traces reply of two sessions parses");
	ok(n == 2 && e[0].id == 3 && e[0].state == TRACELIST_RUNNING && e[0].records == 10 &&
		   e[0].lost == 2 && e[0].bytes == 4096 && strcmp(e[0].dir, "/var/t/trace-3") == 0 &&
		   e[0].reason[0] == '\0' && e[1].state == TRACELIST_FAILED &&
		   strcmp(e[1].reason, "disk full: No space left") == 0,
	   "its fields, a reason of several words included");
	free(e);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(tracelist_parse(bad[i], &e, &n, why, sizeof(why)) == -1 && e == NULL && n == 0,
		   "bad traces reply %zu is refused: %s", i, why);
}

static void test_procs(void)
{
	char why[256];
	struct helper_procs r;

	ok(helper_parse_procs("ok clustermon-kprobe 1 7-1\nok 3\nproc 42 1000 20 1\n"
			      "proc 4194304 18446744073709551615 0 2\nproc 7 0 0 3\n", &r, why,
			      sizeof(why)) == 0 &&
		   r.n == 3 && strcmp(r.instance, "7-1") == 0, "a procs reply parses");
	ok(r.v[0].tgid == 42 && r.v[0].cpu_ns == 1000 && r.v[0].run_delay_ns == 20 &&
		   !r.v[0].exited && r.v[0].mark == HELPER_PROC_RAN && r.v[1].tgid == 4194304 &&
		   r.v[1].exited && r.v[1].mark == HELPER_PROC_EXITED &&
		   r.v[1].cpu_ns == UINT64_MAX, "tgid, CPU time, run delay and the exit mark");
	ok(r.v[2].tgid == 7 && r.v[2].mark == HELPER_PROC_NEW && !r.v[2].exited,
	   "mark 3: a new process or an exec");
	helper_procs_free(&r);
	ok(helper_parse_procs("ok clustermon-kprobe 1 7-1\nok 1\nproc 77 5 6 3\n", &r, why,
			      sizeof(why)) == 0 && r.n == 1 && r.v[0].mark == HELPER_PROC_NEW && !r.v[0].exited &&
		   r.v[0].cpu_ns == 5, "MARK 3: a new or exec'd process");
	helper_procs_free(&r);
	ok(helper_parse_procs("ok clustermon-kprobe 1 7-1\nok 0\n", &r, why, sizeof(why)) == 0 &&
		   r.n == 0 && r.v == NULL, "nothing ran");

	static const struct { const char *text, *reason; } bad[] = {
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 0 1 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 4194305 1 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 1 1 4\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 1 1 03x\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 1 1 0\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 1 1 1 9\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 18446744073709551616 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 1\nproc 5 -1 1 1\n", "malformed" },
		{ "ok clustermon-kprobe 1 x\nok 3\nproc 5 1 1 1\n", "cut short" },
		{ "ok clustermon-kprobe 1 x\nerr invalid unknown request 'procs'\n", "refused: invalid" },
		{ "ok clustermon-kprobe 1 x\nok 99999999999\n", "malformed" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(helper_parse_procs(bad[i].text, &r, why, sizeof(why)) == -1 &&
			   strstr(why, bad[i].reason) != NULL && r.v == NULL,
		   "bad procs reply %zu is refused: %s", i, why);
	}
}

int main(void)
{
	test_lines();
	test_requests();
	test_replies();
	test_traces_reply();
	test_procs();
	return done_testing();
}
