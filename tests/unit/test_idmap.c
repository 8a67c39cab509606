/*
 * test_idmap.c - common/idmap: the first value put for an id wins, absent
 * ids answer IDMAP_NONE, on both representations (a dense array for ids
 * counted up from a small number, the hash map for scattered ids), and
 * ids outside the range given at init still land.
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
	assert_int_not_equal(m.span, 0); /* 1000 ids over 1000 slots: the array */
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
	assert_int_equal(m.span, 0); /* 6 ids over 2^64 slots: the hash map */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dense),
	    cmocka_unit_test(test_sparse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
