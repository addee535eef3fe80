/* SPDX-License-Identifier: BSD-2-Clause */
/* test_workload.c - workload names from cgroup paths: the table of real
 * paths in tests/fixtures/workload/paths (each with where its shape comes
 * from), then what a text file cannot hold: a missing path, short buffers,
 * bytes no layout has, and depth. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "fixture.h"
#include "core/workload.h"

static int printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

/* One "path<TAB>expected" line of the table; 0 if it is not one. */
static int check_line(char *line)
{
	char out[WORKLOAD_MAX];
	char *tab = strchr(line, '\t');

	if (tab == NULL)
		return 0;
	*tab = '\0';
	workload_name(line, out, sizeof(out));
	ok(strcmp(out, tab + 1) == 0 && printable(out), "'%s' -> '%s' (got '%s')", line,
	   tab + 1, out);
	return 1;
}

static void table(void)
{
	const char *text = fixture_text("workload", "paths");
	static char buf[1 << 16];
	int rows = 0, bad = 0;

	if (text == NULL) {
		ok(0, "the path table can be read");
		return;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (check_line(line))
			rows++;
		else
			bad++;
	}
	ok(rows >= 100 && bad == 0, "the table has %d rows, every line one (%d not)", rows, bad);
}

static void edges(void)
{
	const char *full = "slurm job sEKNKTV3WPV500 step interactive";
	const char *p = "system.slice/slurmstepd.scope/sEKNKTV3WPV500/step_interactive";
	char out[WORKLOAD_MAX], small[8], one[1], deep[40 * 2 + 16] = "";
	int cut_ok = 1;

	for (size_t cap = 1; cap <= strlen(full) + 1; cap++) {
		char b[WORKLOAD_MAX];

		workload_name(p, b, cap);
		cut_ok &= strlen(b) == cap - 1 && strncmp(b, full, cap - 1) == 0;
	}
	ok(cut_ok, "a short buffer gets the name cut, terminated, at every size");
	workload_name("slurm/uid_1000/job_4242/step_batch", small, sizeof(small));
	ok(strcmp(small, "slurm j") == 0, "an 8-byte buffer holds 'slurm j' (got '%s')", small);
	ok(workload_name("system.slice/ssh.service", one, 0) == one, "no room: nothing written");
	ok(workload_name(NULL, out, sizeof(out))[0] == '\0', "no path: no name");
	ok(workload_name("", out, sizeof(out))[0] == '\0', "an empty path: no name");
	ok(workload_name("system.slice/a\nb.service", out, sizeof(out))[0] == '\0',
	   "a newline in a unit's name: not a unit");
	ok(workload_name("slurm/uid_1/job_5/step_\x01", out, sizeof(out)) != NULL &&
		   strcmp(out, "slurm job 5") == 0, "a control byte in a step: the job alone");
	workload_name("system.slice/\xc3\xa9t\xc3\xa9.service", out, sizeof(out));
	ok(out[0] == '\0', "UTF-8 in a unit's name: not a unit (got '%s')", out);
	for (int i = 0; i < 40; i++)
		strcat(deep, "a/");
	strcat(deep, "job_1");
	ok(workload_name(deep, out, sizeof(out))[0] == '\0', "41 levels deep: no name");
	ok(strcmp(workload_name("a/b/c/job_1", out, sizeof(out)), "slurm job 1") == 0,
	   "a few levels deep: named");
}

int main(void)
{
	table();
	edges();
	return done_testing();
}
