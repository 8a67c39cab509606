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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ts/dur of event k of a pattern; k is kept in its external id (ext_of) to
 * check the order */
struct tsd {
	int64_t ts, dur;
};

/* Event k's external id: k, every third one beyond 31 bits (kept in
 * model.wide_ids, which model_merge must renumber) */
static int64_t ext_of(size_t k)
{
	return k % 3 == 1 ? ((int64_t)1 << 40) + (int64_t)k : (int64_t)k;
}

static void build(struct model *m, const struct tsd *v, size_t n)
{
	uint32_t th;

	assert_int_equal(model_init(m), NNS_OK);
	th = model_thread(m, model_intern(m, "1", 1), model_intern(m, "1", 1));
	for (size_t k = 0; k < n; k++) {
		struct model_event e;

		model_event_init(&e);
		e.ts = v[k].ts;
		e.dur = v[k].dur;
		e.thread = th;
		e.kind = MK_CPU_OP;
		assert_int_equal(model_id_enc(m, ext_of(k), &e.ext_id_enc), 0);
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
		assert_int_equal(model_ext_id(&m, e), ext_of(ord[k]));
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

/* Two chunks of a parallel parse, each sorted (model_sort_events), then
 * joined (model_merge): the events of the second are merged in, their
 * string, thread and argument ids remapped, the first chunk's first on
 * ties; the same order as sorting the concatenation. And when a chunk is
 * not sorted, appended and sorted by model_finalize: the same again. */
static void merge_case(int sort_src)
{
	static const struct tsd a[] = {{1, 5}, {4, 1}, {2, 3}, {9, 0}, {4, 1}};
	static const struct tsd b[] = {{4, 1}, {0, 2}, {2, 3}, {10, 1}};
	struct tsd all[9];
	size_t ord[9] = {0}, k;
	struct model m1, m2;
	struct nns_err err;
	struct model_op_args oa = {0};

	for (k = 0; k < 5; k++)
		all[k] = a[k];
	for (k = 0; k < 4; k++)
		all[5 + k] = b[k];
	expected(all, 9, ord);
	build(&m1, a, 5);
	assert_int_equal(model_init(&m2), NNS_OK);
	{
		uint32_t t0 =
		    model_thread(&m2, model_intern(&m2, "7", 1), model_intern(&m2, "8", 1));
		uint32_t t1 =
		    model_thread(&m2, model_intern(&m2, "1", 1), model_intern(&m2, "1", 1));
		for (k = 0; k < 4; k++) {
			char nm[32];
			struct model_event e;

			model_event_init(&e);
			e.ts = b[k].ts;
			e.dur = b[k].dur;
			e.thread = k % 2 ? t1 : t0;
			e.kind = MK_CPU_OP;
			assert_int_equal(model_id_enc(&m2, ext_of(5 + k), &e.ext_id_enc), 0);
			snprintf(nm, sizeof(nm), "b%zu", k);
			e.name = model_intern(&m2, nm, strlen(nm));
			oa.input_dims = model_intern(&m2, "[[1]]", 5);
			e.extra = (uint32_t)model_add_op_args(&m2, &oa);
			assert_true(model_add_event(&m2, &e) >= 0);
		}
	}
	assert_int_equal(model_sort_events(&m1), NNS_OK);
	if (sort_src)
		assert_int_equal(model_sort_events(&m2), NNS_OK);
	assert_int_equal(model_merge(&m1, &m2, &err), NNS_OK);
	assert_int_equal(model_finalize(&m1, &err), NNS_OK);
	assert_int_equal(m1.events.n, 9);
	for (k = 0; k < 9; k++) {
		const struct model_event *e = &m1.events.v[k];
		const struct model_thread *t = &m1.threads.v[e->thread];
		assert_int_equal(model_ext_id(&m1, e), ext_of(ord[k]));
		assert_int_equal(e->ts, all[ord[k]].ts);
		if (ord[k] >= 5) { /* from the second chunk: its own name and thread */
			char nm[32];
			size_t j = ord[k] - 5;
			snprintf(nm, sizeof(nm), "b%zu", j);
			assert_string_equal(model_str(&m1, e->name), nm);
			assert_string_equal(model_str(&m1, t->pid), j % 2 ? "1" : "7");
			assert_string_equal(model_str(&m1, m1.op_args.v[e->extra].input_dims),
					    "[[1]]");
		} else {
			assert_string_equal(model_str(&m1, t->pid), "1");
			assert_int_equal(e->extra, MODEL_NOIDX);
		}
	}
	model_release(&m1);
	model_release(&m2);
}

static void test_merge_chunks(void **state)
{
	(void)state;
	merge_case(1);
	merge_case(0);
}

/* A chunk of 1.5 M events wholly after the first (what a parallel parse of
 * a file in time order gives): copied on two threads, in order, every id
 * renumbered: names, threads, argument rows and wide external ids. */
static void test_merge_big_chunk(void **state)
{
	const size_t n1 = 3, n2 = 1500001;
	struct model m1, m2;
	struct nns_err err;
	struct model_op_args oa;
	uint32_t t0, t1, nm[2];
	size_t k;

	(void)state;
	assert_int_equal(model_init(&m1), NNS_OK);
	assert_int_equal(model_init(&m2), NNS_OK);
	t0 = model_thread(&m1, model_intern(&m1, "1", 1), model_intern(&m1, "1", 1));
	for (k = 0; k < n1; k++) {
		struct model_event e;
		model_event_init(&e);
		e.ts = (int64_t)k;
		e.dur = 1;
		e.thread = t0;
		e.name = model_intern(&m1, "first", 5);
		assert_int_equal(model_id_enc(&m1, ext_of(k), &e.ext_id_enc), 0);
		assert_true(model_add_event(&m1, &e) >= 0);
	}
	/* m2's strings and threads in another order than m1's */
	nm[0] = model_intern(&m2, "odd", 3);
	nm[1] = model_intern(&m2, "even", 4);
	t1 = model_thread(&m2, model_intern(&m2, "9", 1), model_intern(&m2, "9", 1));
	t0 = model_thread(&m2, model_intern(&m2, "1", 1), model_intern(&m2, "1", 1));
	model_op_args_init(&oa);
	oa.input_dims = model_intern(&m2, "[[3]]", 5);
	for (k = 0; k < n2; k++) {
		struct model_event e;
		model_event_init(&e);
		e.ts = (int64_t)(n1 + k);
		e.dur = 1;
		e.kind = MK_CPU_OP;
		e.thread = k % 2 ? t1 : t0;
		e.name = nm[k % 2 ? 0 : 1];
		if (k % 1000 == 0)
			e.extra = (uint32_t)model_add_op_args(&m2, &oa);
		assert_int_equal(model_id_enc(&m2, ext_of(n1 + k), &e.ext_id_enc), 0);
		assert_true(model_add_event(&m2, &e) >= 0);
	}
	assert_int_equal(model_sort_events(&m1), NNS_OK);
	assert_int_equal(model_sort_events(&m2), NNS_OK);
	assert_int_equal(model_merge(&m1, &m2, &err), NNS_OK);
	assert_int_equal(m1.events.n, n1 + n2);
	for (k = 0; k < n1 + n2; k++) {
		const struct model_event *e = &m1.events.v[k];
		assert_int_equal(e->ts, (int64_t)k);
		assert_int_equal(model_ext_id(&m1, e), ext_of(k));
		if (k < n1)
			continue;
		assert_string_equal(model_str(&m1, e->name), (k - n1) % 2 ? "odd" : "even");
		assert_string_equal(model_str(&m1, m1.threads.v[e->thread].pid),
				    (k - n1) % 2 ? "9" : "1");
		if ((k - n1) % 1000 == 0)
			assert_string_equal(model_str(&m1, m1.op_args.v[e->extra].input_dims),
					    "[[3]]");
		else
			assert_int_equal(e->extra, MODEL_NOIDX);
	}
	model_release(&m1);
	model_release(&m2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs),
	    cmocka_unit_test(test_heaps),
	    cmocka_unit_test(test_merge_chunks),
	    cmocka_unit_test(test_merge_big_chunk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
