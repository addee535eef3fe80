/* test_ctxsw.c - per-CPU context switches from the software perf counter. */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

int main(void)
{
	struct ctxsw c = { 0 };
	uint64_t before = 0, after = 0, dummy;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int opened = ctxsw_open(&c, (unsigned)ncpu);

	ok(ctxsw_read(&(struct ctxsw){ 0 }, 0, &dummy) == -1, "a never-opened set reads as absent");
	if (opened < 0) {
		skip("perf events unavailable here (no CAP_PERFMON or perf_event_paranoid)");
		skip("perf events unavailable here");
		ctxsw_close(&c);
		return done_testing();
	}
	ok(opened == ncpu, "one counter per configured CPU (%d of %ld)", opened, ncpu);
	for (unsigned cpu = 0; cpu < c.cap; cpu++) {
		uint64_t v;

		if (ctxsw_read(&c, cpu, &v) == 0)
			before += v;
	}
	for (int i = 0; i < 50; i++)
		usleep(1000); /* each sleep is at least two switches */
	for (unsigned cpu = 0; cpu < c.cap; cpu++) {
		uint64_t v;

		if (ctxsw_read(&c, cpu, &v) == 0)
			after += v;
	}
	ok(after >= before + 50, "50 sleeps add at least 50 switches (%llu -> %llu)",
	   (unsigned long long)before, (unsigned long long)after);
	ok(ctxsw_read(&c, (unsigned)ncpu, &dummy) == -1, "a CPU past the set is absent");
	ctxsw_close(&c);
	ok(c.cap == 0 && c.fds == NULL, "close releases everything");
	return done_testing();
}
