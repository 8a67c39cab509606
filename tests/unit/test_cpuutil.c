/*
 * test_cpuutil.c - the CPU utilization analysis on hand-computed samples:
 * overall, per-step (samples mapped to steps by time; before the first
 * step -> "before"; after the last step's end -> no step), per-thread and
 * per-stage averages, the stage advice and the overview recommendation,
 * and cpu.json read back with jansson.
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

static uint32_t thread(struct model *m, const char *tid, const char *name)
{
	uint32_t t = model_thread(m, S(m, "1"), S(m, tid));

	if (name)
		m->threads.v[t].name = S(m, name);
	return t;
}

static void step(struct model *m, uint32_t t, const char *name, int64_t ts, int64_t dur)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = ts;
	e.dur = dur;
	e.name = S(m, name);
	e.thread = t;
	e.kind = MK_USER_ANNOTATION;
	assert_true(model_add_event(m, &e) >= 0);
}

static void sample(struct model *m, int kind, int64_t ts, float user, float sys, float idle,
		   float iowait, uint32_t thread_idx, int64_t tid)
{
	struct model_sample s;

	memset(&s, 0, sizeof(s));
	s.ts = ts;
	s.kind = (uint8_t)kind;
	s.user = user;
	s.sys = sys;
	s.idle = idle;
	s.iowait = iowait;
	s.thread = thread_idx;
	s.tid = tid;
	s.running = 2;
	s.rss_kb = (uint64_t)ts;
	assert_int_equal(model_add_sample(m, &s), 0);
}

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6)

static void build(struct model *m)
{
	uint32_t main_t, w2, w3, smp;

	model_init(m);
	main_t = thread(m, "1", "main");
	w2 = thread(m, "2", "worker");
	w3 = thread(m, "3", "worker");
	smp = thread(m, "4", "nnscope-sampler"); /* the collector's own: no stage */
	step(m, main_t, "ProfilerStep#1", 1000, 1000);
	step(m, main_t, "ProfilerStep#2", 2000, 1000);
	sample(m, MS_MACHINE, 500, 10, 10, 80, 0, MODEL_NOIDX, 0);
	sample(m, MS_MACHINE, 1500, 20, 10, 70, 0, MODEL_NOIDX, 0);
	sample(m, MS_MACHINE, 1800, 40, 10, 40, 10, MODEL_NOIDX, 0);
	sample(m, MS_MACHINE, 2500, 90, 5, 5, 0, MODEL_NOIDX, 0);
	sample(m, MS_MACHINE, 3500, 0, 0, 100, 0, MODEL_NOIDX, 0);
	sample(m, MS_PROCESS, 1500, 150, 50, 0, 0, MODEL_NOIDX, 0);
	sample(m, MS_PROCESS, 2500, 170, 30, 0, 0, MODEL_NOIDX, 0);
	sample(m, MS_THREAD, 1500, 95, 0, 0, 0, main_t, 1);
	sample(m, MS_THREAD, 2500, 91, 0, 0, 0, main_t, 1);
	sample(m, MS_THREAD, 1500, 10, 0, 0, 0, w2, 2);
	sample(m, MS_THREAD, 1500, 20, 4, 0, 0, w3, 3);
	sample(m, MS_THREAD, 1500, 1, 0, 0, 0, smp, 4);
	sample(m, MS_THREAD, 2500, 99, 0, 0, 0, smp, 4);
	assert_int_equal(model_add_meta(m, "cpu_count", "2"), 0);
}

static void test_averages(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;
	const struct an_cpu *c;

	(void)state;
	build(&m);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	c = &p.cpu;
	assert_int_equal(c->machine.samples, 5);
	NEAR(c->machine.user, 32);
	NEAR(c->machine.sys, 7);
	NEAR(c->machine.idle, 59);
	NEAR(c->machine.iowait, 2);
	NEAR(c->running_avg, 2);
	assert_int_equal(c->process.samples, 2);
	NEAR(c->process.user, 160);
	NEAR(c->process.sys, 40);
	assert_int_equal(c->rss_peak_kb, 2500);

	assert_int_equal(c->steps.n, 2);
	assert_string_equal(c->steps.v[0].name, "1");
	assert_int_equal(c->steps.v[0].machine.samples, 2);
	NEAR(c->steps.v[0].machine.user, 30);
	NEAR(c->steps.v[0].machine.sys, 10);
	NEAR(c->steps.v[0].machine.idle, 55);
	NEAR(c->steps.v[0].machine.iowait, 5);
	NEAR(c->steps.v[0].process.user, 150);
	assert_int_equal(c->steps.v[1].machine.samples, 1);
	NEAR(c->steps.v[1].machine.user, 90);
	NEAR(c->steps.v[1].process.sys, 30);
	assert_int_equal(c->before.machine.samples, 1);
	NEAR(c->before.machine.idle, 80);
	assert_int_equal(c->before.process.samples, 0);
	assert_int_equal(c->machine_series.n, 5);
	assert_int_equal(c->process_series.n, 2);

	/* threads by busy time (the sampler's 50 % kept, as a thread) */
	assert_int_equal(c->threads.n, 4);
	assert_int_equal(c->threads.v[0].tid, 1);
	NEAR(c->threads.v[0].avg.user, 93);
	assert_int_equal(c->threads.v[1].tid, 4);
	assert_int_equal(c->threads.v[2].tid, 3);
	assert_int_equal(c->threads.v[3].tid, 2);
	/* stages: main and worker; nnscope-sampler is none (no advice on it) */
	assert_int_equal(c->stages.n, 2);
	for (size_t i = 0; i < c->stages.n; i++) {
		const struct an_cpu_stage *s = &c->stages.v[i];

		if (strcmp(model_str(&m, s->name), "worker") == 0) {
			assert_int_equal(s->threads, 2);
			NEAR(s->user, 30);
			NEAR(s->sys, 4);
			NEAR(s->per_thread, 17);
			assert_non_null(s->advice);
			assert_non_null(strstr(s->advice, "num_parallel_workers=2"));
		} else {
			assert_string_equal(model_str(&m, s->name), "main");
			assert_null(s->advice); /* the loop's thread */
		}
	}
	/* the recommendation: process at 200% of 2 CPUs, loop thread at 93% */
	assert_non_null(c->recommendation);
	assert_non_null(strstr(c->recommendation, "CPU-bound"));
	assert_non_null(strstr(c->recommendation, "training loop"));
	assert_null(strstr(c->recommendation, "entire system")); /* 41% busy */
	{
		int found = 0;

		for (size_t i = 0; i < p.advice.items.n; i++)
			found |= strcmp(p.advice.items.v[i].id, "cpu") == 0;
		assert_true(found);
	}

	/* cpu.json */
	{
		json_t *j = tu_view_json(out_json_cpu, &p);

		assert_non_null(j);
		assert_true(json_is_true(json_object_get(j, "available")));
		assert_int_equal(json_array_size(json_object_get(j, "steps")), 2);
		assert_int_equal(json_array_size(json_object_get(j, "threads")), 4);
		assert_int_equal(json_array_size(json_object_get(j, "machine_series")), 5);
		assert_true(json_is_object(json_object_get(j, "before_steps")));
		NEAR(json_number_value(json_object_get(json_object_get(j, "machine"), "user")), 32);
		json_decref(j);
	}
	an_profile_release(&p);
	model_release(&m);
}

static void test_busy_machine_and_empty(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;

	(void)state;
	model_init(&m);
	step(&m, thread(&m, "1", NULL), "work", 0, 100);
	sample(&m, MS_MACHINE, 10, 60, 30, 5, 5, MODEL_NOIDX, 0);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_non_null(p.cpu.recommendation);
	assert_non_null(strstr(p.cpu.recommendation, "entire system is 95.0%"));
	/* no steps in the trace: the one step "0" holds the sample */
	assert_int_equal(p.cpu.steps.n, 1);
	assert_int_equal(p.cpu.steps.v[0].machine.samples, 1);
	an_profile_release(&p);
	model_release(&m);

	/* no samples at all */
	model_init(&m);
	step(&m, thread(&m, "1", NULL), "work", 0, 100);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.cpu.machine.samples, 0);
	assert_null(p.cpu.recommendation);
	assert_int_equal(p.cpu.threads.n, 0);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_averages),
	    cmocka_unit_test(test_busy_machine_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
