/*
 * test_live_ranks.c - the live slow-rank verdict (analysis/live_ranks.c)
 * on live states fed hand-made .nnst chunks (test_live_util.h), with
 * hand-computed expectations:
 *   - 4 ranks, one 30 % slower in the last 5 steps: slow at 13 / 10.75 - 1
 *     = 20.93 %, its excess 3 ms; over all 10 steps the same rank is only
 *     10.84 % above (no verdict): the window is what flags a change;
 *   - equal ranks: no slow rank;
 *   - ranks at different step counts and first steps: the common window
 *     (steps every rank completed), slower steps past it ignored, `behind`;
 *   - rows by META rank, not by the order given; position without META;
 *   - no verdict with one rank or while a rank has no step; `ended`;
 *   - cl_slow_share, the rule cluster.json and this share;
 *   - the JSON (output/live_ranks_json.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cluster.h"
#include "analysis/live_ranks.h"
#include "output/live_ranks_json.h"
#include "test_live_util.h"

#define EPS 1e-9

/* 4 ranks 0..3, 10 steps each of 10 ms; rank 2's last 5 steps 13 ms. */
static void slow_last_five(struct live *l[4])
{
	int64_t d[10];

	for (int r = 0; r < 4; r++) {
		lu_fill(d, 10, 10);
		if (r == 2)
			lu_fill(d + 5, 5, 13);
		l[r] = lu_live(r, 0, d, 10, 0);
	}
}

static void free_all(struct live **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		live_free(l[i]);
}

static void test_slow_in_window(void **state)
{
	struct live *l[4];
	struct live_ranks r;
	struct nns_err err;

	(void)state;
	memset(&r, 0, sizeof(r));
	slow_last_five(l);
	assert_int_equal(l[2]->steps.n, 10);
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.window, 5);
	assert_int_equal(r.window_lo, 5);
	assert_int_equal(r.window_hi, 9);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(r.rows[i].rank, i);
		assert_int_equal(r.rows[i].steps, 10);
		assert_int_equal(r.rows[i].last_step, 9);
		assert_int_equal(r.rows[i].behind, 0);
		assert_float_equal(r.rows[i].window_ms, i == 2 ? 13.0 : 10.0, EPS);
	}
	/* mean of the window means: (3 * 10 + 13) / 4 = 10.75 */
	assert_int_equal(r.slow, 2);
	assert_int_equal(r.slowest, 2);
	assert_float_equal(r.slow_pct, 20.93, EPS); /* 13 / 10.75 - 1 = 0.2093.. */
	assert_float_equal(r.rows[2].vs_mean_pct, 20.93, EPS);
	assert_float_equal(r.rows[0].vs_mean_pct, -6.98, EPS); /* 10 / 10.75 - 1 */
	assert_float_equal(r.excess_ms, 3.0, EPS);
	assert_float_equal(r.rows[2].last_ms, 13.0, EPS);
	assert_float_equal(r.rows[2].mean_ms, 11.5, EPS);
	assert_non_null(strstr(r.verdict, "rank 2"));
	assert_non_null(strstr(r.verdict, "20.93%"));
	assert_non_null(strstr(r.verdict, "steps 5..9"));

	/* the whole run (10 steps, and the default 20): 11.5 / 10.375 - 1 */
	assert_int_equal(live_ranks_compute(l, NULL, 4, 10, &r, &err), NNS_OK);
	assert_int_equal(r.window, 10);
	assert_int_equal(r.slow, -1);
	assert_true(isnan(r.slow_pct));
	assert_int_equal(r.slowest, 2);
	assert_float_equal(r.slowest_pct, 10.84, EPS);
	assert_non_null(strstr(r.verdict, "No slow rank"));
	assert_int_equal(live_ranks_compute(l, NULL, 4, 0, &r, &err), NNS_OK);
	assert_int_equal(r.window, 10);
	assert_int_equal(r.window_lo, 0);
	assert_int_equal(r.slow, -1);
	live_ranks_release(&r);
	free_all(l, 4);
}

static void test_equal_ranks(void **state)
{
	struct live *l[4];
	struct live_ranks r;
	struct nns_err err;
	int64_t d[8];

	(void)state;
	memset(&r, 0, sizeof(r));
	lu_fill(d, 8, 10);
	for (int i = 0; i < 4; i++)
		l[i] = lu_live(i, 0, d, 8, 0);
	assert_int_equal(live_ranks_compute(l, NULL, 4, 0, &r, &err), NNS_OK);
	assert_int_equal(r.window, 8);
	assert_int_equal(r.slow, -1);
	assert_true(isnan(r.slow_pct));
	assert_float_equal(r.slowest_pct, 0, EPS);
	assert_int_equal(r.behind_max, 0);
	for (int i = 0; i < 4; i++)
		assert_float_equal(r.rows[i].vs_mean_pct, 0, EPS);
	live_ranks_release(&r);
	free_all(l, 4);
}

static void test_common_window(void **state)
{
	struct live *l[4];
	struct live_ranks r;
	struct nns_err err;
	int64_t d[12];

	(void)state;
	memset(&r, 0, sizeof(r));
	/* rank 0: steps 0..11, 8..11 at 50 ms (past the common window) */
	lu_fill(d, 12, 10);
	lu_fill(d + 8, 4, 50);
	l[0] = lu_live(0, 0, d, 12, 0);
	lu_fill(d, 12, 10);
	l[1] = lu_live(1, 0, d, 10, 0); /* 0..9 */
	l[2] = lu_live(2, 0, d, 8, 0);	/* 0..7 */
	l[3] = lu_live(3, 4, d, 6, 0);	/* 4..9: started late */
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	/* hi = min(11, 9, 7, 9) = 7; lo = max(7 - 5 + 1, first steps 0, 0, 0, 4) = 4 */
	assert_int_equal(r.window_hi, 7);
	assert_int_equal(r.window_lo, 4);
	assert_int_equal(r.window, 4);
	assert_int_equal(r.slow, -1);
	for (int i = 0; i < 4; i++)
		assert_float_equal(r.rows[i].window_ms, 10, EPS);
	assert_int_equal(r.rows[0].steps, 12);
	assert_int_equal(r.rows[3].steps, 6);
	assert_int_equal(r.rows[0].behind, 0);
	assert_int_equal(r.rows[1].behind, 2);
	assert_int_equal(r.rows[2].behind, 4);
	assert_int_equal(r.rows[3].behind, 2);
	assert_int_equal(r.behind_max, 4);
	live_free(l[2]);

	/* rank 2's steps 6 and 7 at 20 ms: (10 + 10 + 20 + 20) / 4 = 15 in the
	 * window against 10 for the others: 15 / 11.25 - 1 = 33.33 % */
	lu_fill(d, 8, 10);
	d[6] = d[7] = 20000000;
	l[2] = lu_live(2, 0, d, 8, 0);
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	assert_int_equal(r.slow, 2);
	assert_float_equal(r.rows[2].window_ms, 15, EPS);
	assert_float_equal(r.slow_pct, 33.33, EPS);
	assert_float_equal(r.excess_ms, 5, EPS);
	live_ranks_release(&r);
	free_all(l, 4);
}

static void test_order_and_names(void **state)
{
	struct live *l[4];
	const char *workers[4] = {"w3", "w2", "w1", "w0"};
	struct live_ranks r;
	struct nns_err err;
	int64_t d[3];
	char want[16];

	(void)state;
	memset(&r, 0, sizeof(r));
	lu_fill(d, 3, 10);
	for (int i = 0; i < 4; i++)
		l[i] = lu_live(3 - i, 0, d, 3, i == 1);
	assert_int_equal(live_ranks_compute(l, workers, 4, 0, &r, &err), NNS_OK);
	for (int i = 0; i < 4; i++) {
		snprintf(want, sizeof(want), "w%d", i);
		assert_int_equal(r.rows[i].rank, i);
		assert_string_equal(r.rows[i].worker, want);
		assert_int_equal(r.rows[i].ended, i == 2); /* rank 2 was given second */
	}
	free_all(l, 4);

	/* without META rank: the position given */
	for (int i = 0; i < 2; i++)
		l[i] = lu_live(-1, 0, d, 3, 0);
	assert_int_equal(live_ranks_compute(l, NULL, 2, 0, &r, &err), NNS_OK);
	assert_int_equal(r.rows[0].rank, 0);
	assert_int_equal(r.rows[1].rank, 1);
	assert_string_equal(r.rows[0].worker, "");
	assert_int_equal(r.window, 3);
	live_ranks_release(&r);
	free_all(l, 2);
}

static void test_no_verdict(void **state)
{
	struct live *l[3];
	struct live_ranks r;
	struct nns_err err;
	int64_t d[4];

	(void)state;
	memset(&r, 0, sizeof(r));
	lu_fill(d, 4, 10);
	l[0] = lu_live(0, 0, d, 4, 0);
	l[1] = lu_live(1, 0, d, 4, 0);
	l[2] = lu_live(2, 0, d, 0, 0); /* no step yet */
	assert_int_equal(live_ranks_compute(l, NULL, 3, 0, &r, &err), NNS_OK);
	assert_int_equal(r.window, 0);
	assert_int_equal(r.slow, -1);
	assert_int_equal(r.slowest, -1);
	assert_true(isnan(r.rows[0].window_ms));
	assert_int_equal(r.rows[2].steps, 0);
	assert_int_equal(r.rows[2].last_step, -1);
	assert_true(isnan(r.rows[2].last_ms));
	assert_int_equal(r.rows[2].behind, 4); /* the leader completed 0..3 */
	assert_int_equal(r.behind_max, 4);
	assert_non_null(strstr(r.verdict, "No slow-rank verdict yet"));

	assert_int_equal(live_ranks_compute(l, NULL, 1, 0, &r, &err), NNS_OK);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.window, 0);
	assert_int_equal(r.slow, -1);
	assert_non_null(strstr(r.verdict, "1 rank"));
	live_ranks_release(&r);
	assert_null(r.rows);
	free_all(l, 3);
}

static void test_slow_share(void **state)
{
	double v[4] = {1, 1, 1, 2}, z[2] = {0, 0};
	size_t w = 99;

	(void)state;
	/* mean 1.25: 2 / 1.25 - 1 = 0.6 */
	assert_float_equal(cl_slow_share(v, 4, &w), 0.6, EPS);
	assert_int_equal(w, 3);
	v[3] = 1;
	assert_float_equal(cl_slow_share(v, 4, &w), 0, EPS);
	assert_int_equal(w, 0); /* the first of equals */
	w = 99;
	assert_true(isinf(cl_slow_share(v, 1, &w)));
	assert_true(isinf(cl_slow_share(z, 2, &w)));
	assert_int_equal(w, 99);
}

static json_t *ranks_json(const struct live_ranks *r)
{
	struct jsonw w;
	json_t *j;
	char *text;

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	live_ranks_json(&w, r);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	text = w.buf;
	j = json_loadb(text, w.len, 0, NULL);
	assert_non_null(j);
	jsonw_release(&w);
	return j;
}

static void test_json(void **state)
{
	struct live *l[4];
	struct live_ranks r;
	struct nns_err err;
	json_t *j, *s;

	(void)state;
	memset(&r, 0, sizeof(r));
	slow_last_five(l);
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	j = ranks_json(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "window")), 5);
	assert_int_equal(json_integer_value(json_object_get(j, "window_lo")), 5);
	s = json_object_get(j, "slow");
	assert_true(json_is_object(s));
	assert_int_equal(json_integer_value(json_object_get(s, "rank")), 2);
	assert_float_equal(json_number_value(json_object_get(s, "pct")), 20.93, EPS);
	assert_float_equal(json_number_value(json_object_get(j, "threshold_pct")), 20, EPS);
	assert_int_equal(json_array_size(json_object_get(j, "ranks")), 4);
	assert_float_equal(json_number_value(json_object_get(
			       json_array_get(json_object_get(j, "ranks"), 2), "window_ms")),
			   13, EPS);
	json_decref(j);

	/* no verdict: nulls */
	assert_int_equal(live_ranks_compute(l, NULL, 1, 5, &r, &err), NNS_OK);
	j = ranks_json(&r);
	assert_true(json_is_null(json_object_get(j, "slow")));
	assert_true(json_is_null(json_object_get(j, "window_lo")));
	assert_true(json_is_null(
	    json_object_get(json_array_get(json_object_get(j, "ranks"), 0), "window_ms")));
	json_decref(j);
	live_ranks_release(&r);
	free_all(l, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slow_in_window), cmocka_unit_test(test_equal_ranks),
	    cmocka_unit_test(test_common_window),  cmocka_unit_test(test_order_and_names),
	    cmocka_unit_test(test_no_verdict),	   cmocka_unit_test(test_slow_share),
	    cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
