/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_registry.c - the table of sources (sources/registry.c): every source
 * once, each with its own index, name and slot, every index of sampler.h
 * taken, and names that resolve both ways; clusterMonSourceName and
 * sampleInterval rely on both.
 */
#include <stdbool.h>
#include <string.h>

#include "runtime/sampler.h"
#include "runtime/snapshot.h"
#include "sources/registry.h"
#include "tap.h"

static size_t table_size(void)
{
	size_t n = 0;

	while (source_registry[n] != NULL)
		n++;
	return n;
}

static void unique(size_t n)
{
	bool dup_index = false, dup_name = false, dup_slot = false;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct source_ops *a = source_registry[i], *b = source_registry[j];

			dup_index |= a->index == b->index;
			dup_name |= strcmp(a->name, b->name) == 0;
			dup_slot |= a->slot != NULL && a->slot == b->slot;
		}
	ok(!dup_index, "no two sources share an index");
	ok(!dup_name, "no two sources share a name");
	ok(!dup_slot, "no two sources share a slot");
}

static void resolves(size_t n)
{
	bool both_ways = true, complete = true, whole = true;

	for (size_t i = 0; i < n; i++) {
		const struct source_ops *s = source_registry[i];

		both_ways &= source_index_by_name(s->name) == s->index &&
			     source_by_index(s->index) == s;
		whole &= s->init != NULL && s->sample != NULL && s->fini != NULL &&
			 s->default_interval_ms >= SOURCE_INTERVAL_MIN_MS;
	}
	for (unsigned idx = 1; idx <= SOURCE_LAST; idx++)
		complete &= source_by_index(idx) != NULL;
	ok(both_ways, "every name resolves to its index and every index to its source");
	ok(complete, "every index of sampler.h has a source");
	ok(whole, "every source has init, sample, fini and a default interval");
	ok(source_index_by_name("nosuch") == 0 && source_by_index(0) == NULL &&
	   source_by_index(SOURCE_LAST + 1) == NULL, "unknown names and indexes resolve to none");
	ok(strcmp(source_by_index(SOURCE_PROC)->name, "proc") == 0 &&
	   source_index_by_name("cgroup") == SOURCE_CGROUP, "indexes keep their meaning");
}

static void slots(void)
{
	unsigned with_slot = 0;

	for (size_t i = 0; source_registry[i] != NULL; i++)
		with_slot += source_registry[i]->slot != NULL;
	ok(with_slot == SOURCE_LAST, "every source names the slot it publishes in");
	ok(strcmp(source_method(SOURCE_CPU), "periodic") == 0,
	   "a source without a method, or without a snapshot yet, is periodic");
}

int main(void)
{
	size_t n = table_size();

	ok(n == SOURCE_LAST, "the table has %u sources", (unsigned)SOURCE_LAST);
	unique(n);
	resolves(n);
	slots();
	return done_testing();
}
