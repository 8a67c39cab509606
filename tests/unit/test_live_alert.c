/*
 * test_live_alert.c - alert rules over a live run (analysis/live_alert.c):
 *   - the grammar: valid rules and what they parse to; each error, with
 *     what is wrong and its column;
 *   - step rules on live states fed hand-made .nnst chunks
 *     (test_live_util.h): a step at 1.6x the median fires once, one at
 *     1.4x does not, a STAT needs 3 earlier steps, steps are checked once
 *     (also across feeds), data_ms / data_pct from DataLoader ranges,
 *     one progress per rank;
 *   - rank rules on a live_ranks: rank_pct fires once while it holds and
 *     again after it stopped holding; behind names the rank behind;
 *   - the ring of kept hits; the JSON (output/live_ranks_json.c).
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

#include "analysis/live_alert.h"
#include "output/live_ranks_json.h"
#include "test_live_util.h"

#define EPS 1e-9

static void test_parse_valid(void **state)
{
	struct live_alerts a;
	struct nns_err err;

	(void)state;
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "step_ms > 1.2*median", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "data_pct >= 30", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "rank_pct > 20", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "  behind<=5 ", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "data_ms < 0.5 * p90", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "step_ms>mean", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "step_ms <= -1e1*min", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "data_ms > 2 * max", &err), NNS_OK);
	assert_int_equal(a.nrules, 8);
	assert_string_equal(a.rules[0].text, "step_ms > 1.2*median");
	assert_int_equal(a.rules[0].metric, LIVE_M_STEP_MS);
	assert_int_equal(a.rules[0].op, LIVE_OP_GT);
	assert_int_equal(a.rules[0].stat, LIVE_S_MEDIAN);
	assert_float_equal(a.rules[0].factor, 1.2, EPS);
	assert_int_equal(a.rules[1].metric, LIVE_M_DATA_PCT);
	assert_int_equal(a.rules[1].op, LIVE_OP_GE);
	assert_int_equal(a.rules[1].stat, LIVE_S_NONE);
	assert_float_equal(a.rules[1].value, 30, EPS);
	assert_int_equal(a.rules[2].metric, LIVE_M_RANK_PCT);
	assert_float_equal(a.rules[2].value, 20, EPS);
	assert_int_equal(a.rules[3].metric, LIVE_M_BEHIND);
	assert_int_equal(a.rules[3].op, LIVE_OP_LE);
	assert_float_equal(a.rules[3].value, 5, EPS);
	assert_int_equal(a.rules[4].metric, LIVE_M_DATA_MS);
	assert_int_equal(a.rules[4].op, LIVE_OP_LT);
	assert_int_equal(a.rules[4].stat, LIVE_S_P90);
	assert_float_equal(a.rules[4].factor, 0.5, EPS);
	assert_int_equal(a.rules[5].stat, LIVE_S_MEAN);
	assert_float_equal(a.rules[5].factor, 1, EPS);
	assert_int_equal(a.rules[6].stat, LIVE_S_MIN);
	assert_float_equal(a.rules[6].factor, -10, EPS);
	assert_int_equal(a.rules[7].stat, LIVE_S_MAX);
	assert_string_equal(live_alert_metric_name(LIVE_M_BEHIND), "behind");
	assert_string_equal(live_alert_op_name(LIVE_OP_GE), ">=");
	assert_string_equal(live_alert_stat_name(LIVE_S_P90), "p90");
	assert_null(live_alert_stat_name(LIVE_S_NONE));
	live_alerts_release(&a);
}

/* rule must be refused with a message that holds each of want[] */
static void refused(const char *rule, const char *want1, const char *want2)
{
	struct live_alerts a;
	struct nns_err err;

	live_alerts_init(&a);
	nns_err_clear(&err);
	assert_int_equal(live_alerts_add(&a, rule, &err), NNS_EINVAL);
	if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2)))
		fail_msg("'%s': message '%s' lacks '%s' / '%s'", rule, err.msg, want1,
			 want2 ? want2 : "");
	assert_int_equal(a.nrules, 0);
	live_alerts_release(&a);
}

static void test_parse_errors(void **state)
{
	char longer[200];

	(void)state;
	refused("", "empty rule", "METRIC OP BOUND");
	refused("   ", "empty rule", NULL);
	refused("foo > 3", "column 1: unknown metric 'foo'", "step_ms, data_ms");
	refused("Step_ms > 3", "column 1: unknown metric", NULL);
	refused("step_ms = 3", "column 9: expected >, >=, < or <=", "not '='");
	refused("step_ms", "column 8: expected >, >=", "the end");
	refused("step_ms >", "column 10: expected a number or a statistic", "the end");
	refused("step_ms > 1.2*avg", "column 15: expected a number or median", "'avg'");
	refused("step_ms > 1.2*", "column 15: expected a number or median", "the end");
	refused("rank_pct > median", "column 12: rank_pct compares with a number", NULL);
	refused("behind > 2*max", "column 12: behind compares with a number", NULL);
	refused("step_ms > 1.2median", "column 14: expected '*' between the number", "'median'");
	refused("step_ms > 5 6", "column 13: unexpected '6' after the bound", NULL);
	refused("step_ms > median x", "column 18: unexpected 'x'", NULL);
	refused("step_ms > @", "column 11: expected a number or a statistic", "'@'");
	refused("step_ms > inf", "column 11: expected a number or median", "'inf'");
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	refused(longer, "rule too long (199 characters, at most 127)", NULL);
}

/* A single trace with steps of ms[i] milliseconds (n <= 16). */
static struct live *steps_ms(const double *ms, size_t n)
{
	int64_t d[16];

	for (size_t i = 0; i < n; i++)
		d[i] = (int64_t)(ms[i] * 1e6);
	return lu_live(-1, 0, d, n, 0);
}

static void test_step_rule(void **state)
{
	const double ms[] = {10, 10, 10, 10, 16, 10, 14};
	struct live_alerts a;
	struct nns_err err;
	struct live *l = steps_ms(ms, 7);
	const struct live_alert_hit *h;

	(void)state;
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "step_ms > 1.5*median", &err), NNS_OK);
	/* step 4: 16 > 1.5 * median(10, 10, 10, 10) = 15; step 6: 14 is not */
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 1);
	assert_int_equal(a.nhits, 1);
	assert_int_equal(a.fired, 1);
	h = live_alerts_hit(&a, 0);
	assert_int_equal(h->rule, 0);
	assert_int_equal(h->rank, -1);
	assert_int_equal(h->step, 4);
	assert_float_equal(h->value, 16, EPS);
	assert_float_equal(h->bound, 15, EPS);
	assert_true(h->wall_ns > LU_RT);
	assert_non_null(strstr(h->message, "step_ms > 1.5*median"));
	assert_non_null(strstr(h->message, "step 4"));
	assert_null(live_alerts_hit(&a, 1));
	/* the same steps again: checked once */
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 0);
	assert_int_equal(a.fired, 1);
	live_free(l);
	live_alerts_release(&a);

	/* a STAT needs 3 earlier steps: step 1 (50 ms after one step) is not
	 * checked; step 3's median(10, 50, 10) = 10 */
	const double early[] = {10, 50, 10, 10};

	live_alerts_init(&a);
	l = steps_ms(early, 4);
	assert_int_equal(live_alerts_add(&a, "step_ms > 1.5*median", &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 0);
	live_free(l);
	live_alerts_release(&a);

	/* a plain bound is checked from the first step; < and <= */
	const double plain[] = {10, 30, 5, 20, 4};

	live_alerts_init(&a);
	l = steps_ms(plain, 5);
	assert_int_equal(live_alerts_add(&a, "step_ms >= 20", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "step_ms < 10", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "step_ms <= 1*min", &err), NNS_OK);
	/* >= 20: steps 1, 3; < 10: steps 2, 4; <= the min of the earlier
	 * steps: step 3 (20 > 5) no, step 4 (4 <= 5) yes; rule by rule */
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 5);
	assert_int_equal(live_alerts_hit(&a, 0)->step, 1);
	assert_int_equal(live_alerts_hit(&a, 1)->step, 3);
	assert_int_equal(live_alerts_hit(&a, 2)->step, 2);
	assert_int_equal(live_alerts_hit(&a, 2)->rule, 1);
	assert_int_equal(live_alerts_hit(&a, 3)->step, 4);
	assert_int_equal(live_alerts_hit(&a, 4)->step, 4);
	assert_int_equal(live_alerts_hit(&a, 4)->rule, 2);
	assert_float_equal(live_alerts_hit(&a, 4)->bound, 5, EPS);
	live_free(l);
	live_alerts_release(&a);
}

/* Steps fed in two parts: the second check sees only the new steps, with
 * the history of the first. */
static void test_incremental(void **state)
{
	struct live_alerts a;
	struct nns_err err;
	struct live *l = live_new();
	struct nb b = {0};
	size_t off = 0;
	int64_t d[4], t;

	(void)state;
	assert_non_null(l);
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "step_ms > 1.5*mean", &err), NNS_OK);
	lu_begin(&b, 3);
	lu_fill(d, 4, 10);
	t = lu_steps(&b, 1, 0, 1000000, d, NULL, 4);
	assert_int_equal(lu_feed_from(l, &b, &off), 0);
	assert_int_equal(l->steps.n, 4);
	assert_int_equal(live_alerts_check(&a, l, 3, NULL), 0);
	d[0] = 20000000; /* step 4: 20 > 1.5 * 10 */
	d[1] = 14000000; /* step 5: 14 < 1.5 * 12 */
	lu_steps(&b, 0, 4, t, d, NULL, 2);
	assert_int_equal(lu_feed_from(l, &b, &off), 0);
	assert_int_equal(l->steps.n, 6);
	assert_int_equal(live_alerts_check(&a, l, 3, NULL), 1);
	assert_int_equal(live_alerts_hit(&a, 0)->step, 4);
	assert_int_equal(live_alerts_hit(&a, 0)->rank, 3);
	assert_non_null(strstr(live_alerts_hit(&a, 0)->message, "rank 3 step 4"));
	assert_int_equal(live_alerts_check(&a, l, 3, NULL), 0);
	/* another rank has its own progress */
	assert_int_equal(live_alerts_check(&a, l, 1, NULL), 1);
	assert_int_equal(live_alerts_hit(&a, 1)->rank, 1);
	nb_free(&b);
	live_free(l);
	live_alerts_release(&a);
}

static void test_data_rules(void **state)
{
	struct live_alerts a;
	struct nns_err err;
	struct live *l = live_new();
	struct nb b = {0};
	size_t off = 0;
	int64_t d[5], data[5] = {2000000, 2000000, 5000000, 2000000, 0};

	(void)state;
	assert_non_null(l);
	lu_fill(d, 5, 10);
	lu_begin(&b, -1);
	lu_steps(&b, 1, 0, 1000000, d, data, 5);
	assert_int_equal(lu_feed_from(l, &b, &off), 0);
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "data_pct >= 30", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "data_ms > 4", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "data_ms < 1", &err), NNS_OK);
	/* step 2 waits ~5 ms of 10 (the range is 2 ns short of it): 50 %;
	 * the others 2 ms (20 %) but step 4, which has no wait */
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 3);
	assert_int_equal(live_alerts_hit(&a, 0)->step, 2);
	assert_float_equal(live_alerts_hit(&a, 0)->value, 50, 1e-3);
	assert_int_equal(live_alerts_hit(&a, 1)->step, 2);
	assert_float_equal(live_alerts_hit(&a, 1)->value, 5, 1e-3);
	assert_int_equal(live_alerts_hit(&a, 2)->step, 4);
	assert_float_equal(live_alerts_hit(&a, 2)->value, 0, EPS);
	nb_free(&b);
	live_free(l);
	live_alerts_release(&a);
}

/* 4 ranks of 10 steps of 10 ms, rank 2's last `slow` steps 13 ms. */
static void four(struct live *l[4], size_t slow)
{
	int64_t d[10];

	for (int r = 0; r < 4; r++) {
		lu_fill(d, 10, 10);
		if (r == 2)
			lu_fill(d + 10 - slow, slow, 13);
		l[r] = lu_live(r, 0, d, 10, 0);
	}
}

static void test_rank_rules(void **state)
{
	struct live *l[4];
	struct live_ranks r;
	struct live_alerts a;
	struct nns_err err;
	const struct live_alert_hit *h;

	(void)state;
	memset(&r, 0, sizeof(r));
	four(l, 5);
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "rank_pct > 20", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "step_ms > 12", &err), NNS_OK);
	/* the last 5 steps: rank 2 at 20.93 % */
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 1);
	h = live_alerts_hit(&a, 0);
	assert_int_equal(h->rule, 0);
	assert_int_equal(h->rank, 2);
	assert_int_equal(h->step, -1);
	assert_float_equal(h->value, 20.93, EPS);
	assert_float_equal(h->bound, 20, EPS);
	assert_non_null(strstr(h->message, "rank 2 over steps 5..9"));
	/* still holding: no new hit, also when checked per rank */
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 0);
	assert_int_equal(live_alerts_check(&a, l[0], 0, &r), 0);
	/* rank 2's 5 slow steps in a row are one episode: one hit, at the first */
	assert_int_equal(live_alerts_check(&a, l[2], 2, &r), 1);
	assert_int_equal(a.fired, 2);
	assert_int_equal(live_alerts_hit(&a, 1)->step, 5);
	/* the whole run: 10.84 %, no longer holding (re-armed) ... */
	assert_int_equal(live_ranks_compute(l, NULL, 4, 10, &r, &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 0);
	/* ... then holding again: a new hit */
	assert_int_equal(live_ranks_compute(l, NULL, 4, 5, &r, &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 1);
	assert_int_equal(a.fired, 3);
	/* no verdict window: not checked */
	assert_int_equal(live_ranks_compute(l, NULL, 1, 5, &r, &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 0);
	/* nothing given: nothing checked */
	assert_int_equal(live_alerts_check(&a, NULL, -1, NULL), 0);
	live_alerts_release(&a);
	for (int i = 0; i < 4; i++)
		live_free(l[i]);

	/* behind: rank 1 completed 3 steps less than the others */
	int64_t d[10];

	lu_fill(d, 10, 10);
	for (int i = 0; i < 4; i++)
		l[i] = lu_live(i, 0, d, i == 1 ? 7 : 10, 0);
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "behind >= 3", &err), NNS_OK);
	assert_int_equal(live_alerts_add(&a, "behind > 3", &err), NNS_OK);
	assert_int_equal(live_ranks_compute(l, NULL, 4, 0, &r, &err), NNS_OK);
	assert_int_equal(r.behind_max, 3);
	assert_int_equal(live_alerts_check(&a, NULL, -1, &r), 1);
	assert_int_equal(live_alerts_hit(&a, 0)->rank, 1);
	assert_float_equal(live_alerts_hit(&a, 0)->value, 3, EPS);
	live_alerts_release(&a);
	live_ranks_release(&r);
	for (int i = 0; i < 4; i++)
		live_free(l[i]);
}

static void test_ring_and_json(void **state)
{
	struct live_alerts a;
	struct nns_err err;
	struct live *l = live_new();
	struct nb b = {0};
	struct jsonw w;
	size_t off = 0;
	int64_t d[600];
	json_t *j, *hits;

	(void)state;
	assert_non_null(l);
	/* 1 ms and 3 ms steps in turn: 'step_ms > 2' holds at every odd step,
	 * each its own episode (the even step before re-arms it) */
	for (size_t i = 0; i < 600; i++)
		d[i] = i % 2 ? 3000000 : 1000000;
	lu_begin(&b, -1);
	lu_steps(&b, 1, 0, 1000000, d, NULL, 600);
	assert_int_equal(lu_feed_from(l, &b, &off), 0);
	assert_int_equal(l->steps.n, 600);
	live_alerts_init(&a);
	assert_int_equal(live_alerts_add(&a, "step_ms > 2", &err), NNS_OK);
	assert_int_equal(live_alerts_check(&a, l, -1, NULL), 300);
	assert_int_equal(a.fired, 300);
	assert_int_equal(a.nhits, LIVE_ALERTS_MAX);
	/* hits at steps 1, 3, .. 599; the oldest kept is the 45th (step 89) */
	assert_int_equal(live_alerts_hit(&a, 0)->step, 2 * (300 - LIVE_ALERTS_MAX) + 1);
	assert_int_equal(live_alerts_hit(&a, LIVE_ALERTS_MAX - 1)->step, 599);

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	live_alerts_json(&w, &a, 3);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	j = json_loadb(w.buf, w.len, 0, NULL);
	assert_non_null(j);
	jsonw_release(&w);
	assert_int_equal(json_integer_value(json_object_get(j, "fired")), 300);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(j, "rules"), 0), "metric")),
			    "step_ms");
	hits = json_object_get(j, "hits");
	assert_int_equal(json_array_size(hits), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "step")), 595);
	assert_true(json_is_null(json_object_get(json_array_get(hits, 0), "rank")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 2), "text")),
			    "step_ms > 2");
	json_decref(j);
	nb_free(&b);
	live_free(l);
	live_alerts_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_valid),	  cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_step_rule),	  cmocka_unit_test(test_incremental),
	    cmocka_unit_test(test_data_rules),	  cmocka_unit_test(test_rank_rules),
	    cmocka_unit_test(test_ring_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
