/*
 * test_datapipe.c - the data-pipeline analysis on hand-computed queues:
 * MindInsight's verdict (empty > 30% of samples -> data_process warning,
 * exactly 30% is not), per-queue statistics, the consumer choice, the
 * BottleneckAnalyzer-style findings, per-step waits (DataLoader ranges and
 * empty-queue time), the series cap, the overview recommendation, and the
 * JSON document read back with jansson.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "output/output.h"
#include "testutil.h"

static uint32_t S(struct model *m, const char *s)
{
	return model_intern(m, s, strlen(s));
}

static uint32_t thread(struct model *m, const char *tid)
{
	return model_thread(m, S(m, "1"), S(m, tid));
}

static void range(struct model *m, uint32_t t, const char *name, int kind, int64_t ts, int64_t dur)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = ts;
	e.dur = dur;
	e.name = S(m, name);
	e.thread = t;
	e.kind = (uint8_t)kind;
	assert_true(model_add_event(m, &e) >= 0);
}

static void queue(struct model *m, uint32_t t, const char *name, int64_t ts, int64_t size,
		  int64_t cap)
{
	struct model_queue q = {ts, size, cap, S(m, name), t};

	assert_int_equal(model_add_queue(m, &q), 0);
}

static void compute(struct model *m, struct an_profile *p)
{
	struct nns_err err;

	assert_int_equal(model_finalize(m, &err), NNS_OK);
	assert_int_equal(an_profile_compute(p, m, &err), NNS_OK);
}

static const struct an_queue *find_queue(const struct an_profile *p, const char *name)
{
	for (size_t i = 0; i < p->datapipe.queues.n; i++)
		if (strcmp(model_str(p->m, p->datapipe.queues.v[i].name), name) == 0)
			return &p->datapipe.queues.v[i];
	return NULL;
}

static int has_advice(const struct an_profile *p, const char *id)
{
	for (size_t i = 0; i < p->advice.items.n; i++)
		if (strcmp(p->advice.items.v[i].id, id) == 0)
			return 1;
	return 0;
}

/* 10 samples of one queue (capacity 4), `empty` of them 0, the others 2. */
static void one_queue(struct model *m, int empty)
{
	uint32_t t = thread(m, "1");

	range(m, t, "work", MK_CPU_OP, 0, 10000);
	for (int i = 0; i < 10; i++)
		queue(m, t, "batch_queue", 1000 * i, i < empty ? 0 : 2, 4);
}

static void test_verdict_warning(void **state)
{
	struct model m;
	struct an_profile p;
	const struct an_queue *q;

	(void)state;
	model_init(&m);
	one_queue(&m, 4); /* 40% empty */
	compute(&m, &p);
	q = find_queue(&p, "batch_queue");
	assert_non_null(q);
	assert_true(q->consumer);
	assert_int_equal(q->samples, 10);
	assert_int_equal(q->empty_count, 4);
	assert_true(fabs(q->empty_ratio - 0.4) < 1e-12);
	assert_true(fabs(q->avg_size - 1.2) < 1e-12);	 /* 6 x 2 / 10 */
	assert_true(fabs(q->utilization - 0.3) < 1e-12); /* 1.2 / 4 */
	assert_int_equal(q->full_count, 0);
	assert_int_equal(q->max_size, 2);
	assert_int_equal(q->capacity, 4);
	assert_string_equal(p.datapipe.verdict, "data_process");
	assert_true(p.datapipe.warning);
	assert_int_equal(p.datapipe.total_count, 10);
	assert_int_equal(p.datapipe.empty_count, 4);
	assert_non_null(p.datapipe.recommendation);
	assert_non_null(strstr(p.datapipe.recommendation, "40%"));
	assert_non_null(strstr(p.datapipe.recommendation, "4 of 10"));
	assert_true(has_advice(&p, "data_pipeline"));
	an_profile_release(&p);
	model_release(&m);
}

static void test_verdict_normal(void **state)
{
	struct model m;
	struct an_profile p;

	(void)state;
	for (int empty = 0; empty <= 3; empty++) { /* 30% is not over the threshold */
		model_init(&m);
		one_queue(&m, empty);
		compute(&m, &p);
		assert_string_equal(p.datapipe.verdict, "normal");
		assert_false(p.datapipe.warning);
		assert_null(p.datapipe.recommendation);
		assert_false(has_advice(&p, "data_pipeline"));
		an_profile_release(&p);
		model_release(&m);
	}
	/* no queue at all */
	model_init(&m);
	range(&m, thread(&m, "1"), "work", MK_CPU_OP, 0, 100);
	compute(&m, &p);
	assert_string_equal(p.datapipe.verdict, "no_data");
	assert_int_equal(p.datapipe.consumer, -1);
	assert_int_equal(p.datapipe.queues.n, 0);
	an_profile_release(&p);
	model_release(&m);
}

/* Two queues: the consumer by name ("device"), a producer queue at 25%
 * utilization (low), the consumer empty 70% of the time. */
static void test_findings_and_consumer(void **state)
{
	struct model m;
	struct an_profile p;
	const struct an_queue *dev, *src;
	int low = 0, empty = 0, gap = 0;

	(void)state;
	model_init(&m);
	range(&m, thread(&m, "1"), "work", MK_CPU_OP, 0, 100000);
	for (int i = 0; i < 10; i++) {
		queue(&m, thread(&m, "2"), "source_queue", 100 * i, 2, 8); /* 25% */
		queue(&m, thread(&m, "3"), "device_queue", 100 * i + 50, i < 7 ? 0 : 4, 4);
	}
	compute(&m, &p);
	dev = find_queue(&p, "device_queue");
	src = find_queue(&p, "source_queue");
	assert_non_null(dev);
	assert_non_null(src);
	assert_true(dev->consumer);
	assert_false(src->consumer);
	assert_true(fabs(dev->empty_ratio - 0.7) < 1e-12);
	assert_true(fabs(dev->full_ratio - 0.3) < 1e-12);
	assert_true(fabs(src->utilization - 0.25) < 1e-12);
	for (size_t i = 0; i < p.datapipe.findings.n; i++) {
		const struct an_dp_finding *f = &p.datapipe.findings.v[i];

		low += strcmp(f->kind, "low_utilization") == 0;
		empty += strcmp(f->kind, "empty") == 0;
		gap += strcmp(f->kind, "in_out_gap") == 0;
		assert_non_null(f->text);
	}
	assert_int_equal(low, 1);
	assert_int_equal(empty, 1);
	assert_int_equal(gap, 0); /* 25% - 30% is not a gap */
	assert_string_equal(p.datapipe.verdict, "data_process");
	an_profile_release(&p);
	model_release(&m);

	/* without a "device" queue: the one sampled on the loop's thread */
	model_init(&m);
	range(&m, thread(&m, "1"), "ProfilerStep#1", MK_USER_ANNOTATION, 0, 1000);
	for (int i = 0; i < 4; i++) {
		queue(&m, thread(&m, "2"), "a_queue", 100 * i, 1, 2);
		queue(&m, thread(&m, "2"), "a_queue", 100 * i + 1, 1, 2);
		queue(&m, thread(&m, "1"), "b_queue", 100 * i + 50, 1, 2);
	}
	compute(&m, &p);
	assert_true(find_queue(&p, "b_queue")->consumer);
	assert_false(find_queue(&p, "a_queue")->consumer);
	an_profile_release(&p);
	model_release(&m);
}

/* Two steps [0,1000) and [1000,2000); DataLoader ranges 100 and 300 long;
 * the queue is empty during [200,500) and [1500,1600). */
static void test_steps(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;
	const struct an_dp_step *s;

	(void)state;
	model_init(&m);
	t = thread(&m, "1");
	range(&m, t, "ProfilerStep#1", MK_USER_ANNOTATION, 0, 1000);
	range(&m, t, "ProfilerStep#2", MK_USER_ANNOTATION, 1000, 1000);
	range(&m, t, "enumerate(DataLoader)#_Iter.__next__", MK_CPU_OP, 0, 100);
	range(&m, t, "enumerate(DataLoader)#_Iter.__next__", MK_CPU_OP, 1000, 300);
	queue(&m, t, "q", 100, 3, 4);
	queue(&m, t, "q", 200, 0, 4);
	queue(&m, t, "q", 500, 1, 4);
	queue(&m, t, "q", 1500, 0, 4);
	queue(&m, t, "q", 1600, 2, 4);
	compute(&m, &p);
	assert_int_equal(p.datapipe.steps.n, 2);
	assert_true(p.datapipe.has_dataloader);
	s = &p.datapipe.steps.v[0];
	assert_string_equal(s->name, "1");
	assert_int_equal(s->dataloader, 100);
	assert_int_equal(s->queue_empty, 300);
	assert_int_equal(s->samples, 3);
	assert_int_equal(s->empty_samples, 1);
	assert_int_equal(s->wait, 100);
	s = &p.datapipe.steps.v[1];
	assert_int_equal(s->dataloader, 300);
	assert_int_equal(s->queue_empty, 100);
	assert_int_equal(s->samples, 2);
	assert_int_equal(s->wait, 300);
	assert_true(fabs(p.datapipe.wait_ratio - 400.0 / 2000.0) < 1e-12);
	/* 2 of 5 empty: 40% */
	assert_true(p.datapipe.warning);
	assert_non_null(strstr(p.datapipe.recommendation, "20.0% of the step time"));

	/* the JSON document */
	{
		json_t *j = tu_view_json(out_json_datapipe, &p), *q;

		assert_non_null(j);
		assert_string_equal(json_string_value(json_object_get(j, "verdict")),
				    "data_process");
		assert_string_equal(json_string_value(json_object_get(
					json_object_get(j, "data_process"), "status")),
				    "warning");
		assert_string_equal(json_string_value(json_object_get(j, "consumer_queue")), "q");
		q = json_array_get(json_object_get(j, "queues"), 0);
		assert_int_equal(json_integer_value(json_object_get(q, "samples")), 5);
		assert_int_equal(json_array_size(json_object_get(q, "series")), 5);
		assert_true(json_number_value(json_object_get(
				json_array_get(json_object_get(j, "steps"), 1), "dataloader_us")) ==
			    0.3);
		json_decref(j);
	}
	an_profile_release(&p);
	model_release(&m);
}

static void test_series_cap(void **state)
{
	struct model m;
	struct an_profile p;
	const struct an_queue *q;
	uint32_t t;
	double sum = 0;

	(void)state;
	model_init(&m);
	t = thread(&m, "1");
	range(&m, t, "work", MK_CPU_OP, 0, 10);
	for (int i = 0; i < 2500; i++)
		queue(&m, t, "q", i, i % 5, 0); /* capacity unknown */
	compute(&m, &p);
	q = find_queue(&p, "q");
	assert_true(q->series.n <= AN_DP_SERIES_MAX);
	assert_int_equal(q->series.n, 834); /* buckets of 3 */
	assert_true(q->utilization < 0);
	assert_int_equal(q->full_count, 0);
	for (size_t i = 0; i < q->series.n; i++) {
		assert_true(q->series.v[i].min <= q->series.v[i].avg + 1e-9);
		assert_true(q->series.v[i].avg <= q->series.v[i].max + 1e-9);
		sum += q->series.v[i].avg * (i + 1 < q->series.n ? 3 : 1);
	}
	assert_true(fabs(sum / 2500.0 - q->avg_size) < 1e-9);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_warning),
	    cmocka_unit_test(test_verdict_normal),
	    cmocka_unit_test(test_findings_and_consumer),
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_series_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
