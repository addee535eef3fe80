/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_policy.c - the helper's hook policy (kprobe-helper/policy.h): the
 * built-in rules' verdicts, first match wins, every hook of a request
 * judged, FILE:LINE for a bad line; and the file refused when it is a
 * symbolic link or group-writable (as root only: a file of the test's own
 * is refused for not being root's).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "tap.h"

static struct policy pol;
static char why[512];

static bool allows(const char *hook)
{
	return policy_allows(&pol, hook, why, sizeof(why));
}

static void test_builtin(void)
{
	policy_builtin(&pol);
	ok(pol.nrules > 20, "the built-in policy parses (%zu rules)", pol.nrules);
	ok(allows("tracepoint:kmem:kmalloc") && allows("raw_tracepoint:sched_switch"),
	   "it allows tracepoints and raw tracepoints");
	ok(allows("kprobe:tcp_sendmsg") && allows("kretprobe:vfs_read"),
	   "and kprobes off the hot paths");
	ok(!allows("kprobe:schedule") && strstr(why, "built-in:") &&
		   strstr(why, "deny k*probe:schedule*"),
	   "it denies kprobe:schedule, naming the rule: %s", why);
	ok(!allows("kretprobe:__kmalloc_node") && !allows("kprobe:kmem_cache_alloc") &&
		   !allows("kprobe:try_to_wake_up") && !allows("kprobe:__alloc_pages_noprof") &&
		   !allows("kprobe:pick_next_task_fair"),
	   "and the scheduler's and allocator's hot paths");
}

static void test_rules(void)
{
	struct probe_spec lat = { .kind = SPEC_LATENCY_KPROBE, .name = "schedule" };
	struct wire_request r = { .verb = WIRE_DIST };

	ok(policy_parse("# comment\n\n  deny tracepoint:syscalls:sys_enter_getpid  # no\n"
			"allow tracepoint:*\n", "/p", &pol, why, sizeof(why)) == 0,
	   "comments, blank lines and blanks around words");
	ok(!allows("tracepoint:syscalls:sys_enter_getpid") &&
		   strcmp(why, "tracepoint:syscalls:sys_enter_getpid is denied by /p:3 "
			  "(deny tracepoint:syscalls:sys_enter_getpid)") == 0,
	   "the first match wins, the reason names FILE:LINE: %s", why);
	ok(allows("tracepoint:syscalls:sys_enter_getppid"), "a later allow for the rest");
	ok(!allows("kprobe:vfs_read") && strstr(why, "no rule of /p allows it"),
	   "a hook no rule matches is denied: %s", why);
	ok(!policy_allows_spec(&pol, &lat, why, sizeof(why)), "a latency kprobe is judged");
	r.dist.kind = DIST_LATENCY;
	r.dist.start = (struct probe_spec){ .kind = SPEC_TRACEPOINT, .category = "block",
					    .name = "block_rq_issue" };
	r.dist.end = (struct probe_spec){ .kind = SPEC_TRACEPOINT, .category = "syscalls",
					  .name = "sys_enter_getpid" };
	ok(!policy_allows_request(&pol, &r, why, sizeof(why)) && strstr(why, "getpid"),
	   "a latency dist's END event is judged too");
}

static void bad(const char *text, const char *want, const char *what)
{
	ok(policy_parse(text, "/etc/x", &pol, why, sizeof(why)) == -1 && strstr(why, want) &&
		   pol.nrules == 0, "%s: %s", what, why);
}

static void test_bad_lines(void)
{
	bad("allow tracepoint:*\npermit kprobe:*\n", "/etc/x:2: 'permit' is neither", "a verb");
	bad("allow\n", "/etc/x:1: allow takes one pattern", "no pattern");
	bad("\n\ndeny kprobe:a kprobe:b\n", "/etc/x:3: deny takes one pattern", "two patterns");
	bad("deny kporbe:schedule\n", "/etc/x:1: pattern 'kporbe:schedule' names no kind",
	    "a misspelt kind");
	ok(policy_parse("deny k*probe:x\nallow *\n", "/p", &pol, why, sizeof(why)) == 0,
	   "globs on the kind and a bare * are patterns");
}

/* write_file NAME TEXT MODE: in dir, 0 or -1. */
static int write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(path, mode);
}

static void test_files(void)
{
	char dir[] = "/tmp/test_policy.XXXXXX", path[64], link[64], cmd[96];

	if (geteuid() != 0) {
		for (int i = 0; i < 6; i++)
			skip("not root: the policy's directory and file must be root's");
		return;
	}
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/policy", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	ok(policy_load(path, true, &pol, why, sizeof(why)) == 1 &&
		   strcmp(pol.source, POLICY_BUILTIN) == 0,
	   "an absent file at the default path: the built-in policy");
	ok(policy_load(path, false, &pol, why, sizeof(why)) == -1 && strstr(why, "No such file"),
	   "an absent file named with -P is an error: %s", why);
	write_file(path, "allow tracepoint:*\nbogus\n", 0644);
	ok(policy_load(path, false, &pol, why, sizeof(why)) == -1 && strstr(why, "/policy:2: "),
	   "a bad line: %s", why);
	write_file(path, "deny kprobe:*\nallow *\n", 0644);
	ok(policy_load(path, false, &pol, why, sizeof(why)) == 0 && pol.nrules == 2,
	   "a root-owned 0644 file is read");
	if (symlink(path, link) == 0)
		ok(policy_load(link, false, &pol, why, sizeof(why)) == -1 &&
			   strstr(why, "is a symbolic link"), "a symbolic link is refused: %s", why);
	else
		ok(0, "symlink");
	chmod(path, 0664);
	ok(policy_load(path, false, &pol, why, sizeof(why)) == -1 &&
		   strstr(why, "writable by its group"),
	   "a group-writable file is refused: %s", why);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

int main(void)
{
	test_builtin();
	test_rules();
	test_bad_lines();
	test_files();
	return done_testing();
}
