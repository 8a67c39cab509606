/*
 * test_model_sort.c - the event order model_finalize gives: by start, the
 * longer first at equal starts, input order on full ties, whether the
 * events come as one unsorted heap (sorted from scratch), as a few sorted
 * runs (merged run by run: parallel parsing sorts each chunk first,
 * model_sort_events, then model_merge joins them), or as more runs than
 * are merged one by one; each event keeps its own fields. Expected orders
 * come from a plain insertion sort written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* ts/dur of event k of a pattern; k is kept in ext_id to check the order */
struct tsd {
	int64_t ts, dur;
};

static void build(struct model *m, const struct tsd *v, size_t n)
{
	uint32_t th;

	assert_int_equal(model_init(m), NNS_OK);
	th = model_thread(m, model_intern(m, "1", 1), model_intern(m, "1", 1));
	for (size_t k = 0; k < n; k++) {
		struct model_event e = {v[k].ts, v[k].dur,    (int64_t)k, MODEL_NONE, 0,
					th,	 MODEL_NOIDX, MK_CPU_OP,  0,	      -1};
		assert_true(model_add_event(m, &e) >= 0);
	}
}

/* the expected order: a stable insertion sort of the indices */
static void expected(const struct tsd *v, size_t n, size_t *ord)
{
	for (size_t k = 0; k < n; k++) {
		size_t j = k;
		while (j > 0 && (v[k].ts < v[ord[j - 1]].ts ||
				 (v[k].ts == v[ord[j - 1]].ts && v[k].dur > v[ord[j - 1]].dur))) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = k;
	}
}

static void check(const struct tsd *v, size_t n, int early)
{
	struct model m;
	struct nns_err err;
	size_t *ord = malloc((n + 1) * sizeof(*ord));

	assert_non_null(ord);
	build(&m, v, n);
	if (early)
		assert_int_equal(model_sort_events(&m), NNS_OK);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	expected(v, n, ord);
	assert_int_equal(m.events.n, n);
	for (size_t k = 0; k < n; k++) {
		const struct model_event *e = &m.events.v[k];
		assert_int_equal(e->ext_id, (int64_t)ord[k]);
		assert_int_equal(e->ts, v[ord[k]].ts);
		assert_int_equal(e->dur, v[ord[k]].dur);
	}
	model_release(&m);
	free(ord);
}

static void test_runs(void **state)
{
	/* two sorted runs with ties across them (same ts and dur: input order) */
	static const struct tsd two[] = {{1, 5}, {2, 9}, {2, 3}, {7, 0}, {9, 1},
					 {0, 4}, {2, 3}, {2, 9}, {7, 0}, {10, 2}};
	/* three runs, the last one wholly before the others */
	static const struct tsd three[] = {{5, 1}, {6, 1}, {3, 2}, {4, 4}, {4, 5}, {0, 0}, {1, 9}};
	(void)state;

	check(two, sizeof(two) / sizeof(two[0]), 0);
	check(two, sizeof(two) / sizeof(two[0]), 1);
	check(three, sizeof(three) / sizeof(three[0]), 0);
	check(three, sizeof(three) / sizeof(three[0]), 1);
}

/* already sorted; a heap of many runs (sorted from scratch); exactly 8 and
 * 9 runs (the most merged run by run, and one more) */
static void test_heaps(void **state)
{
	struct tsd v[400];
	size_t k, runs;
	unsigned seed = 12345;
	(void)state;

	for (k = 0; k < 400; k++)
		v[k] = (struct tsd){(int64_t)k / 3, (int64_t)(k % 4)};
	check(v, 400, 0);
	for (k = 0; k < 400; k++) {
		seed = seed * 1103515245u + 12345u;
		v[k] = (struct tsd){(int64_t)(seed >> 16) % 50, (int64_t)(seed >> 8) % 3};
	}
	check(v, 400, 0);
	check(v, 400, 1);
	for (runs = 7; runs <= 10; runs++) {
		size_t per = 400 / runs;
		for (k = 0; k < 400; k++) /* run r: ts r*7+i (overlapping), one dur */
			v[k] = (struct tsd){(int64_t)((k / per) % runs * 7 + k % per), 1};
		check(v, 400, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs),
	    cmocka_unit_test(test_heaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
