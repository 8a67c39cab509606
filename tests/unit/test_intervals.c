/*
 * test_intervals.c - interval algebra (union, intersection, subtraction,
 * totals) on hand-computed cases, including tb_plugin's test_ranges.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/intervals.h"

static void set(struct iv_set *s, const int64_t *v, size_t n)
{
	size_t i;
	s->r.n = 0;
	for (i = 0; i < n; i += 2)
		assert_int_equal(iv_add(s, v[i], v[i + 1]), 0);
}

static void expect(const struct iv_set *s, const int64_t *v, size_t n)
{
	size_t i;
	assert_int_equal(s->r.n, n / 2);
	for (i = 0; i < n; i += 2) {
		assert_int_equal(s->r.v[i / 2].start, v[i]);
		assert_int_equal(s->r.v[i / 2].end, v[i + 1]);
	}
}

static void test_merge(void **st)
{
	/* tb_plugin test_merge_ranges: [(1,3),(2,6),(8,10),(15,18)] -> [(1,6),(8,10),(15,18)] */
	struct iv_set s = {0};
	const int64_t in[] = {15, 18, 2, 6, 1, 3, 8, 10}, out[] = {1, 6, 8, 10, 15, 18};
	(void)st;
	set(&s, in, 8);
	iv_merge(&s);
	expect(&s, out, 6);
	assert_int_equal(iv_total(&s), 5 + 2 + 3);
	/* touching intervals merge, empty ones vanish */
	{
		const int64_t in2[] = {0, 5, 5, 10, 20, 20}, out2[] = {0, 10};
		set(&s, in2, 6);
		iv_merge(&s);
		expect(&s, out2, 2);
	}
	iv_set_release(&s);
}

/* iv_add_union merges as it goes, and iv_merge then gives what iv_add +
 * iv_merge give, in start order or not */
static void test_add_union(void **st)
{
	const int64_t sorted[] = {0, 5, 5, 10, 2, 3, 12, 14, 13, 20, 30, 30, 40, 41};
	const int64_t shuffled[] = {12, 14, 0, 5, 40, 41, 13, 20, 5, 10, 2, 3, 30, 30, 1, 4};
	const int64_t out[] = {0, 10, 12, 20, 40, 41};
	struct iv_set a = {0}, b = {0};
	size_t i;
	(void)st;
	for (i = 0; i < 14; i += 2) {
		if (sorted[i] < 2 || sorted[i] > 3) /* ranges in start order except [2,3) */
			assert_int_equal(iv_add_union(&a, sorted[i], sorted[i + 1]), 0);
	}
	expect(&a, out, 6);			     /* merged without iv_merge */
	assert_int_equal(iv_add_union(&a, 2, 3), 0); /* starts before the last range */
	iv_merge(&a);
	expect(&a, out, 6);
	a.r.n = 0;
	for (i = 0; i < 16; i += 2) {
		assert_int_equal(iv_add_union(&a, shuffled[i], shuffled[i + 1]), 0);
		assert_int_equal(iv_add(&b, shuffled[i], shuffled[i + 1]), 0);
	}
	iv_merge(&a);
	iv_merge(&b);
	expect(&a, out, 6);
	expect(&b, out, 6);
	iv_set_release(&a);
	iv_set_release(&b);
}

static void test_subtract(void **st)
{
	/* tb_plugin test_subtract_ranges_lists */
	struct iv_set a = {0}, b = {0}, o = {0};
	const int64_t av[] = {1, 10, 20, 30, 40, 50}, bv[] = {0, 2, 3, 4, 5, 6, 21, 22, 49, 50};
	const int64_t ov[] = {2, 3, 4, 5, 6, 10, 20, 21, 22, 30, 40, 49};
	(void)st;
	set(&a, av, 6);
	set(&b, bv, 10);
	assert_int_equal(iv_subtract(&a, &b, &o), 0);
	expect(&o, ov, 12);
	iv_set_release(&a);
	iv_set_release(&b);
	iv_set_release(&o);
}

static void test_intersect(void **st)
{
	/* tb_plugin test_intersection_ranges_lists */
	struct iv_set a = {0}, b = {0}, o = {0};
	const int64_t av[] = {1, 10, 20, 30, 40, 50}, bv[] = {0, 2, 3, 4, 5, 6, 21, 22, 49, 51};
	const int64_t ov[] = {1, 2, 3, 4, 5, 6, 21, 22, 49, 50};
	(void)st;
	set(&a, av, 6);
	set(&b, bv, 10);
	assert_int_equal(iv_intersect(&a, &b, &o), 0);
	expect(&o, ov, 10);
	assert_int_equal(iv_total(&o), 1 + 1 + 1 + 1 + 1);
	iv_set_release(&a);
	iv_set_release(&b);
	iv_set_release(&o);
}

static void test_total_in(void **st)
{
	struct iv_set a = {0}, c = {0};
	const int64_t av[] = {0, 10, 20, 30, 40, 50};
	(void)st;
	set(&a, av, 6);
	assert_int_equal(iv_total_in(&a, 5, 45), 5 + 10 + 5);
	assert_int_equal(iv_total_in(&a, 10, 20), 0);
	assert_int_equal(iv_total_in(&a, -100, 100), 30);
	assert_int_equal(iv_clip(&a, 25, 45, &c), 0);
	assert_int_equal(iv_total(&c), 10);
	iv_set_release(&a);
	iv_set_release(&c);
}

/* iv_bound over records with the key in the middle: first >= / first >,
 * runs of equal keys, ends, and an empty array. */
static void test_bound(void **st)
{
	struct rec {
		uint32_t tag;
		int64_t key;
		uint32_t pad;
	} v[] = {{0, 10, 0}, {1, 20, 0}, {2, 20, 0}, {3, 20, 0}, {4, 30, 0}};
	size_t n = sizeof(v) / sizeof(v[0]), off = offsetof(struct rec, key);

	(void)st;
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 5, 0), 0);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 10, 0), 0);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 10, 1), 1);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 20, 0), 1);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 20, 1), 4);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 25, 0), 4);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, 30, 1), n);
	assert_int_equal(iv_bound(v, n, sizeof(*v), off, INT64_MAX, 0), n);
	assert_int_equal(iv_bound(v, 0, sizeof(*v), off, 20, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge),    cmocka_unit_test(test_add_union),
	    cmocka_unit_test(test_subtract), cmocka_unit_test(test_intersect),
	    cmocka_unit_test(test_total_in), cmocka_unit_test(test_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
