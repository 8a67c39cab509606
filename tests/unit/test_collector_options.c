/*
 * test_collector_options.c - collector options and schedules (owner: the
 * collector): nns_options_init defaults, the JSON parser with MindSpore's
 * MS_PROFILER_OPTIONS keys, schedule keys and field names, its error
 * messages (unknown key named, wrong types, ranges, syntax), the
 * NNSCOPE_OPTIONS / MS_PROFILER_OPTIONS environment, validation, and
 * which steps a schedule collects (torch.profiler.schedule semantics and
 * MindSpore's 1-based start_step/stop_step).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"

#include <stdlib.h>
#include <string.h>

static void test_defaults(void **state)
{
	struct nns_options o;

	(void)state;
	nns_options_init(&o);
	assert_int_equal(o.struct_size, sizeof(o));
	assert_int_equal(o.start, 1);
	assert_string_equal(o.output_path, "./data");
	assert_int_equal(o.op_time, 1);
	assert_int_equal(o.profile_memory, 0);
	assert_int_equal(o.profile_communication, 0);
	assert_int_equal(o.data_process, 1);
	assert_int_equal(o.timeline_limit_mb, 500);
	assert_int_equal(o.profile_framework, NNS_FRAMEWORK_NONE);
	assert_int_equal(o.sync_enable, 0);
	assert_int_equal(o.cpu_sampling_interval_ms, 1000);
	assert_int_equal(o.sched_wait + o.sched_warmup + o.sched_active + o.sched_repeat +
			     o.sched_skip_first,
			 0);
	assert_int_equal(o.start_step, -1);
	assert_int_equal(o.stop_step, -1);
	assert_int_equal(o.buffer_kb_per_thread, 1024);
	assert_int_equal(o.max_buffer_mb, 512);
	assert_int_equal(nns_options_check(&o, NULL), 0);
}

static void test_mindspore_keys(void **state)
{
	struct nns_options o;
	char err[256];

	(void)state;
	nns_options_init(&o);
	assert_int_equal(
	    nns_options_from_json(
		&o,
		" { \"start\": false, \"output_path\": \"/tmp/prof\\u00e9\\/x\", \"op_time\": true,"
		" \"profile_memory\": true, \"profile_communication\": true, \"data_process\": "
		"false,"
		" \"timeline_limit\": 100, \"profile_framework\": \"time\", \"sync_enable\": false,"
		" \"cpu_sampling_interval_ms\": 50, \"aicore_metrics\": 0, \"l2_cache\": false,"
		" \"parallel_strategy\": {\"x\": [1, 2]}, \"start_step\": 3, \"stop_step\": 7 }\n",
		err, sizeof(err)),
	    0);
	assert_int_equal(o.start, 0);
	assert_string_equal(o.output_path, "/tmp/prof\xc3\xa9/x");
	assert_int_equal(o.profile_memory, 1);
	assert_int_equal(o.profile_communication, 1);
	assert_int_equal(o.data_process, 0);
	assert_int_equal(o.timeline_limit_mb, 100);
	assert_int_equal(o.profile_framework, NNS_FRAMEWORK_TIME);
	assert_int_equal(o.sync_enable, 0);
	assert_int_equal(o.cpu_sampling_interval_ms, 50);
	assert_int_equal(o.start_step, 3);
	assert_int_equal(o.stop_step, 7);

	assert_int_equal(nns_options_from_json(&o, "{\"profile_framework\": null}", err, 256), 0);
	assert_int_equal(o.profile_framework, NNS_FRAMEWORK_NONE);
	assert_int_equal(nns_options_from_json(&o, "{\"profile_framework\": \"all\"}", err, 256),
			 0);
	assert_int_equal(o.profile_framework, NNS_FRAMEWORK_ALL);
	assert_int_equal(nns_options_from_json(&o, "{\"profile_framework\":\"memory\"}", err, 256),
			 0);
	assert_int_equal(o.profile_framework, NNS_FRAMEWORK_MEMORY);
	/* 0/1 for booleans, later keys win */
	assert_int_equal(
	    nns_options_from_json(&o, "{\"start\":1,\"start\":0,\"op_time\":0}", err, 256), 0);
	assert_int_equal(o.start, 0);
	assert_int_equal(o.op_time, 0);
	assert_int_equal(nns_options_from_json(&o, "{}", err, 256), 0);
}

static void test_schedule_keys(void **state)
{
	struct nns_options o;
	char err[256];

	(void)state;
	nns_options_init(&o);
	assert_int_equal(
	    nns_options_from_json(&o,
				  "{\"skip_first\":1,\"wait\":2,\"warmup\":3,"
				  "\"active\":4,\"repeat\":5,\"buffer_kb_per_thread\":64,"
				  "\"max_buffer_mb\":8,\"timeline_limit_mb\":9}",
				  err, sizeof(err)),
	    0);
	assert_int_equal(o.sched_skip_first, 1);
	assert_int_equal(o.sched_wait, 2);
	assert_int_equal(o.sched_warmup, 3);
	assert_int_equal(o.sched_active, 4);
	assert_int_equal(o.sched_repeat, 5);
	assert_int_equal(o.buffer_kb_per_thread, 64);
	assert_int_equal(o.max_buffer_mb, 8);
	assert_int_equal(o.timeline_limit_mb, 9);
	assert_int_equal(
	    nns_options_from_json(&o, "{\"sched_wait\":0,\"sched_active\":1}", err, 256), 0);
	assert_int_equal(o.sched_wait, 0);
	assert_int_equal(o.sched_active, 1);
}

static void expect_error(const char *json, const char *needle)
{
	struct nns_options o, before;
	char err[256] = "";

	nns_options_init(&o);
	before = o;
	assert_int_equal(nns_options_from_json(&o, json, err, sizeof(err)), NNS_EINVAL);
	if (!strstr(err, needle))
		fail_msg("'%s': message '%s' lacks '%s'", json, err, needle);
	assert_memory_equal(&o, &before, sizeof(o)); /* unchanged on error */
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("{\"op_time\":true,\"bogus_key\":1}", "unknown option 'bogus_key'");
	expect_error("{\"op_time\":\"yes\"}", "option 'op_time' wants true or false, got a string");
	expect_error("{\"timeline_limit\":1.5}", "option 'timeline_limit' wants an integer");
	expect_error("{\"timeline_limit\":true}", "got a boolean");
	expect_error("{\"cpu_sampling_interval_ms\":-5}", "outside 0..");
	expect_error("{\"output_path\":3}", "option 'output_path' wants a string, got a number");
	expect_error("{\"output_path\":\"\"}", "output_path");
	expect_error("{\"profile_framework\":\"gpu\"}", "\"gpu\"");
	expect_error("{\"profile_framework\":[1]}", "got an array");
	expect_error("{\"wait\":{}}", "got an object");
	expect_error("{\"start\":true", "expected ',' or '}'");
	expect_error("[1]", "expected a JSON object");
	expect_error("{\"start\":true} x", "trailing characters");
	expect_error("{\"start\" true}", "expected ':'");
	expect_error("{\"output_path\":\"a\\qb\"}", "bad escape");
	expect_error("{\"output_path\":\"abc", "unterminated string");
	expect_error("", "expected a JSON object");
	expect_error("{\"start\":tru}", "expected a value");
	/* sync_enable true (MindSpore's synchronous GPU operator timing) is
	 * refused with the reason, not accepted and ignored; false is how
	 * nnscope times */
	expect_error("{\"sync_enable\":true}", "option 'sync_enable' true is refused");
	expect_error("{\"sync_enable\":1}", "CUPTI times every kernel on the device exactly");
	expect_error("{\"sync_enable\":\"no\"}", "option 'sync_enable' wants true or false");
}

static void test_sync_enable_false(void **state)
{
	struct nns_options o;
	char err[256];

	(void)state;
	nns_options_init(&o);
	assert_int_equal(nns_options_from_json(&o, "{\"sync_enable\":false}", err, 256), 0);
	assert_int_equal(o.sync_enable, 0);
	assert_int_equal(nns_options_from_json(&o, "{\"sync_enable\":0}", err, 256), 0);
	assert_int_equal(o.sync_enable, 0);
}

static void test_env(void **state)
{
	struct nns_options o;
	char err[256];

	(void)state;
	unsetenv("NNSCOPE_OPTIONS");
	unsetenv("MS_PROFILER_OPTIONS");
	nns_options_init(&o);
	assert_int_equal(nns_options_from_env(&o, err, sizeof(err)), 0);
	assert_string_equal(o.output_path, "./data");

	setenv("MS_PROFILER_OPTIONS", "{\"output_path\":\"/ms\",\"profile_memory\":true}", 1);
	assert_int_equal(nns_options_from_env(&o, err, sizeof(err)), 0);
	assert_string_equal(o.output_path, "/ms");
	assert_int_equal(o.profile_memory, 1);

	nns_options_init(&o);
	setenv("NNSCOPE_OPTIONS", "{\"output_path\":\"/nns\"}", 1);
	assert_int_equal(nns_options_from_env(&o, err, sizeof(err)), 0);
	assert_string_equal(o.output_path, "/nns"); /* NNSCOPE_OPTIONS wins, MS is not read */
	assert_int_equal(o.profile_memory, 0);

	setenv("NNSCOPE_OPTIONS", "{\"nope\":1}", 1);
	assert_int_equal(nns_options_from_env(&o, err, sizeof(err)), NNS_EINVAL);
	assert_non_null(strstr(err, "NNSCOPE_OPTIONS: unknown option 'nope'"));
	unsetenv("NNSCOPE_OPTIONS");
	setenv("MS_PROFILER_OPTIONS", "{\"start\":\"x\"}", 1);
	assert_int_equal(nns_options_from_env(&o, err, sizeof(err)), NNS_EINVAL);
	assert_non_null(strstr(err, "MS_PROFILER_OPTIONS: option 'start'"));
	unsetenv("MS_PROFILER_OPTIONS");
}

static void test_check(void **state)
{
	struct nns_options o;
	struct nns_err e;

	(void)state;
	nns_options_init(&o);
	o.sched_wait = 1; /* a schedule without active steps */
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	assert_non_null(strstr(e.msg, "active >= 1"));
	nns_options_init(&o);
	o.start_step = 5;
	o.stop_step = 4;
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	nns_options_init(&o);
	o.start_step = 0;
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	nns_options_init(&o);
	o.buffer_kb_per_thread = 1;
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	nns_options_init(&o);
	o.profile_framework = 9;
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	nns_options_init(&o);
	o.sync_enable = 1; /* a C caller setting the field: refused there too */
	assert_int_equal(nns_options_check(&o, &e), NNS_EINVAL);
	assert_non_null(strstr(e.msg, "option 'sync_enable' true is refused"));
}

/* Phases of steps 0..n-1 as a string: '.' off, 'w' warmup, 'A' active. */
static void phases(const struct nns_options *o, int n, char *out)
{
	long window;

	for (int i = 0; i < n; i++) {
		int ph = nns_sched_phase(o, i, &window);

		out[i] = ph == NNS_PHASE_ACTIVE ? 'A' : ph == NNS_PHASE_WARMUP ? 'w' : '.';
	}
	out[n] = '\0';
}

static void test_schedule_phases(void **state)
{
	struct nns_options o;
	char s[64];
	long window;

	(void)state;
	nns_options_init(&o);
	phases(&o, 6, s);
	assert_string_equal(s, "AAAAAA"); /* no schedule: everything */

	/* torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1) */
	o.sched_wait = 1;
	o.sched_warmup = 1;
	o.sched_active = 2;
	o.sched_repeat = 1;
	phases(&o, 10, s);
	assert_string_equal(s, ".wAA......");
	/* repeat=2, skip_first=2 */
	o.sched_repeat = 2;
	o.sched_skip_first = 2;
	phases(&o, 14, s);
	assert_string_equal(s, "...wAA.wAA....");
	assert_int_equal(nns_sched_phase(&o, 9, &window), NNS_PHASE_ACTIVE);
	assert_int_equal(window, 1);
	/* repeat=0: forever; wait=0 */
	o.sched_repeat = 0;
	o.sched_skip_first = 0;
	o.sched_wait = 0;
	o.sched_warmup = 2;
	o.sched_active = 1;
	phases(&o, 9, s);
	assert_string_equal(s, "wwAwwAwwA");

	/* MindSpore start_step/stop_step count from 1: steps 3..5 are 2..4 here */
	nns_options_init(&o);
	o.start_step = 3;
	o.stop_step = 5;
	phases(&o, 8, s);
	assert_string_equal(s, "..AAA...");
	o.stop_step = -1;
	phases(&o, 6, s);
	assert_string_equal(s, "..AAAA");
	o.start_step = -1;
	o.stop_step = 2;
	phases(&o, 4, s);
	assert_string_equal(s, "AA..");
	/* both: a step must pass both */
	nns_options_init(&o);
	o.sched_wait = 1;
	o.sched_active = 1;
	o.start_step = 4;
	phases(&o, 8, s);
	assert_string_equal(s, "...A.A.A");
	assert_int_equal(nns_sched_phase(&o, -1, &window), NNS_PHASE_OFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_mindspore_keys),
	    cmocka_unit_test(test_schedule_keys),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_sync_enable_false),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_schedule_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
