/*
 * test_idmap.c - common/idmap: the first value put for an id wins, absent
 * ids answer IDMAP_NONE, on both representations (pages for ids counted
 * up from a small number, in one or several stretches; the hash map for
 * scattered ids), ids outside the range given at init still land, and so
 * do ids put once the pages reached their budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/idmap.h"
#include "nnscope.h"

static void test_dense(void **state)
{
	struct idmap m;
	(void)state;

	assert_int_equal(idmap_init(&m, 1, 1000, 1000), NNS_OK);
	assert_int_not_equal(m.ndir, 0); /* 1000 ids over 1000 slots: the pages */
	assert_int_equal(idmap_put_first(&m, 7, 70), NNS_OK);
	assert_int_equal(idmap_put_first(&m, 7, 71), NNS_OK);
	assert_int_equal(idmap_put_first(&m, 1000, 5), NNS_OK);
	assert_int_equal(idmap_put_first(&m, -3, 9), NNS_OK);	     /* below the range */
	assert_int_equal(idmap_put_first(&m, INT64_MAX, 8), NNS_OK); /* above it */
	assert_int_equal(idmap_get(&m, 7), 70);
	assert_int_equal(idmap_get(&m, 1000), 5);
	assert_int_equal(idmap_get(&m, -3), 9);
	assert_int_equal(idmap_get(&m, INT64_MAX), 8);
	assert_int_equal(idmap_get(&m, 8), IDMAP_NONE);
	assert_int_equal(idmap_get(&m, 1001), IDMAP_NONE);
	assert_int_equal(idmap_get(&m, INT64_MIN), IDMAP_NONE);
	idmap_release(&m);
}

static void test_sparse(void **state)
{
	struct idmap m;
	int64_t ids[] = {INT64_MIN + 1, -5, 0, 1, (int64_t)1 << 40, INT64_MAX};
	size_t i;
	(void)state;

	assert_int_equal(idmap_init(&m, INT64_MIN + 1, INT64_MAX, 6), NNS_OK);
	assert_int_equal(m.ndir, 0); /* 6 ids over 2^64 slots: the hash map */
	for (i = 0; i < 6; i++)
		assert_int_equal(idmap_put_first(&m, ids[i], (uint32_t)i), NNS_OK);
	for (i = 0; i < 6; i++)
		assert_int_equal(idmap_put_first(&m, ids[i], 99), NNS_OK);
	for (i = 0; i < 6; i++)
		assert_int_equal(idmap_get(&m, ids[i]), (uint32_t)i);
	assert_int_equal(idmap_get(&m, 2), IDMAP_NONE);
	idmap_release(&m);

	/* no ids announced: everything goes to the hash map */
	assert_int_equal(idmap_init(&m, INT64_MAX, INT64_MIN, 0), NNS_OK);
	assert_int_equal(idmap_get(&m, 1), IDMAP_NONE);
	assert_int_equal(idmap_put_first(&m, 1, 3), NNS_OK);
	assert_int_equal(idmap_get(&m, 1), 3);
	idmap_release(&m);
}

/* stretches of ids 10 M apart (one per process or profiling window), and
 * more pages wanted than the budget allows: the rest go to the hmap */
static void test_stretches(void **state)
{
	struct idmap m;
	int64_t base;
	uint32_t k;
	(void)state;

	assert_int_equal(idmap_init(&m, 10000000, 32 * 10000000 + 50000, 32 * 40000), NNS_OK);
	assert_int_not_equal(m.ndir, 0);
	for (base = 10000000; base <= 32 * 10000000; base += 10000000)
		for (k = 0; k < 40000; k++)
			assert_int_equal(
			    idmap_put_first(&m, base + k, (uint32_t)(base / 10000000) * 100000 + k),
			    NNS_OK);
	for (base = 10000000; base <= 32 * 10000000; base += 10000000) {
		for (k = 0; k < 40000; k += 997)
			assert_int_equal(idmap_get(&m, base + k),
					 (uint32_t)(base / 10000000) * 100000 + k);
		assert_int_equal(idmap_get(&m, base + 45000), IDMAP_NONE);
		assert_int_equal(idmap_get(&m, base - 1), IDMAP_NONE);
	}
	idmap_release(&m);

	/* 10 ids announced: a budget of 64 pages; 200 ids on 200 pages */
	assert_int_equal(idmap_init(&m, 0, 200 * 4096, 10), NNS_OK);
	assert_int_not_equal(m.ndir, 0);
	for (k = 0; k < 200; k++)
		assert_int_equal(idmap_put_first(&m, (int64_t)k * 4096 + 5, k), NNS_OK);
	assert_int_equal(m.pages_left, 0);
	assert_true(m.h.n > 0);
	for (k = 0; k < 200; k++) {
		assert_int_equal(idmap_put_first(&m, (int64_t)k * 4096 + 5, 7777), NNS_OK);
		assert_int_equal(idmap_get(&m, (int64_t)k * 4096 + 5), k);
		assert_int_equal(idmap_get(&m, (int64_t)k * 4096 + 6), IDMAP_NONE);
	}
	idmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dense),
	    cmocka_unit_test(test_sparse),
	    cmocka_unit_test(test_stretches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
