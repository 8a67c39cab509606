/*
 * test_chrome.c - Chrome-trace export (src/output/chrome.c) parsed back
 * with jansson: every kind of model row becomes the right trace event,
 * pid/tid are numbers with names in metadata, events come in time order,
 * and with a size limit the output stays valid JSON, stays under the
 * limit, and says what was cut (top-level key and an instant); the limit a
 * trace's collector options asked for (META "options" timeline_limit).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "testutil.h"

static uint32_t S(struct model *m, const char *s)
{
	return model_intern(m, s, strlen(s));
}

/* A model with every kind of row: 2 threads (one non-numeric tid), events
 * (an op with input dims, a kernel), counters, instants, flows, memory,
 * queues and samples. Rows are spread over time so a limit cuts inside. */
static void build_rows(struct model *m, int nevents)
{
	uint32_t t0, t1;

	model_init(m);
	t0 = model_thread(m, S(m, "100"), S(m, "101"));
	t1 = model_thread(m, S(m, "0"), S(m, "stream 7"));
	m->threads.v[t0].name = S(m, "main \"thread\"");
	for (int i = 0; i < nevents; i++) {
		struct model_event e;
		struct model_op_args a;
		struct model_dev_args d;

		model_event_init(&e);
		e.ts = 1000000 + 1000 * i;
		e.dur = 500;
		e.name = S(m, "aten::mm");
		e.thread = t0;
		e.kind = MK_CPU_OP;
		assert_int_equal(model_id_enc(m, i, &e.ext_id_enc), 0);
		model_op_args_init(&a);
		a.input_dims = S(m, "[[2, 3]]");
		e.extra = (uint32_t)model_add_op_args(m, &a);
		assert_true(model_add_event(m, &e) >= 0);

		model_event_init(&e);
		e.ts = 1000000 + 1000 * i + 100;
		e.dur = 300;
		e.name = S(m, "volta_sgemm");
		e.thread = t1;
		e.kind = MK_KERNEL;
		e.device = 0;
		assert_int_equal(model_id_enc(m, i, &e.corr_enc), 0);
		model_dev_args_init(&d);
		d.stream = 7;
		d.grid = S(m, "[1, 2, 3]");
		e.extra = (uint32_t)model_add_dev_args(m, &d);
		assert_true(model_add_event(m, &e) >= 0);
	}
	{
		struct model_counter c = {1000050, 0.5, S(m, "GPU Utilization"), t1};
		struct model_instant in = {1000060, S(m, "epoch"), t0};
		struct model_flow fs = {1000010, 42, t0, MF_AC2G, 's'};
		struct model_flow ff = {1000100, 42, t1, MF_AC2G, 'f'};
		struct model_mem mem;
		struct model_queue q = {1000070, 3, 8, S(m, "batch_queue"), t0};
		struct model_sample s;

		/* a counter out of time order: the export sorts it */
		struct model_counter c2 = {999000, 0.25, S(m, "GPU Utilization"), t1};

		assert_int_equal(model_add_counter(m, &c), 0);
		assert_int_equal(model_add_counter(m, &c2), 0);
		assert_int_equal(model_add_instant(m, &in), 0);
		assert_int_equal(model_add_flow(m, &fs), 0);
		assert_int_equal(model_add_flow(m, &ff), 0);
		memset(&mem, 0, sizeof(mem));
		mem.ts = 1000080;
		mem.bytes = 4096;
		mem.addr = 77;
		mem.total_allocated = 8192;
		mem.thread = t0;
		mem.device_type = 1;
		mem.device_id = 0;
		mem.flags = MODEL_MEM_HAS_ADDR | MODEL_MEM_HAS_TOTAL_ALLOC;
		assert_int_equal(model_add_mem(m, &mem), 0);
		assert_int_equal(model_add_queue(m, &q), 0);
		memset(&s, 0, sizeof(s));
		s.ts = 1000090;
		s.kind = MS_MACHINE;
		s.user = 10;
		s.thread = MODEL_NOIDX;
		assert_int_equal(model_add_sample(m, &s), 0);
	}
}

static void build(struct model *m, int nevents)
{
	struct nns_err err;

	build_rows(m, nevents);
	assert_int_equal(model_finalize(m, &err), NNS_OK);
}

/* Exports m with the limit; returns the parsed document (caller decrefs). */
static json_t *export(const struct model *m, int64_t limit, struct out_chrome_stats *st,
		      size_t *size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct nns_err err;
	json_error_t je;
	json_t *j;

	assert_non_null(f);
	assert_int_equal(out_chrome_write(f, m, limit, st, &err), NNS_OK);
	fclose(f);
	assert_int_equal((int64_t)len, st->bytes);
	j = json_loadb(buf, len, 0, &je);
	if (!j)
		fprintf(stderr, "bad JSON at %d: %s\n", je.position, je.text);
	assert_non_null(j);
	if (size)
		*size = len;
	free(buf);
	return j;
}

static json_t *find(json_t *evs, const char *ph, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(evs, i, e)
	{
		const char *p = json_string_value(json_object_get(e, "ph"));
		const char *n = json_string_value(json_object_get(e, "name"));

		if (p && n && strcmp(p, ph) == 0 && strcmp(n, name) == 0)
			return e;
	}
	return NULL;
}

static void test_all_rows(void **state)
{
	struct model m;
	struct out_chrome_stats st;
	json_t *j, *evs, *e;
	size_t i, nx = 0;
	double last = -1;

	(void)state;
	build(&m, 3);
	j = export(&m, 0, &st, NULL);
	assert_null(json_object_get(j, "nnscopeCut"));
	assert_int_equal(json_integer_value(json_object_get(j, "baseTimeNanoseconds")), 999000);
	evs = json_object_get(j, "traceEvents");
	assert_true(json_is_array(evs));
	assert_int_equal(st.events_omitted, 0);
	assert_int_equal(st.events_written, 6 + 2 + 1 + 2 + 1 + 1 + 1);

	json_array_foreach(evs, i, e)
	{
		const char *ph = json_string_value(json_object_get(e, "ph"));

		assert_non_null(ph);
		assert_true(json_is_integer(json_object_get(e, "pid")));
		assert_true(json_is_integer(json_object_get(e, "tid")));
		if (strcmp(ph, "M") == 0)
			continue;
		/* time order */
		assert_true(json_number_value(json_object_get(e, "ts")) >= last);
		last = json_number_value(json_object_get(e, "ts"));
		nx += strcmp(ph, "X") == 0;
	}
	assert_int_equal(nx, 6);

	/* metadata: numeric tid kept, the other one named */
	e = NULL;
	json_array_foreach(evs, i, e)
	{
		json_t *name = json_object_get(json_object_get(e, "args"), "name");

		if (strcmp(json_string_value(json_object_get(e, "name")), "thread_name") != 0)
			continue;
		if (json_integer_value(json_object_get(e, "tid")) == 101)
			assert_string_equal(json_string_value(name), "main \"thread\"");
		else
			assert_string_equal(json_string_value(name), "stream 7");
	}

	e = find(evs, "X", "aten::mm");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "cat")), "cpu_op");
	assert_int_equal(json_integer_value(json_object_get(e, "pid")), 100);
	assert_int_equal(json_integer_value(json_object_get(e, "tid")), 101);
	assert_true(json_number_value(json_object_get(e, "ts")) == 1.0); /* (1000000-999000)/1000 */
	assert_true(json_number_value(json_object_get(e, "dur")) == 0.5);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(e, "args"), "Input Dims")),
	    "[[2, 3]]");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(e, "args"), "External id")), 0);
	e = find(evs, "X", "volta_sgemm");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "cat")), "kernel");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "args"), "stream")),
			 7);
	e = find(evs, "C", "GPU Utilization");
	assert_non_null(e);
	assert_true(json_number_value(json_object_get(json_object_get(e, "args"), "value")) ==
		    0.25);
	assert_non_null(find(evs, "i", "epoch"));
	e = find(evs, "s", "ac2g");
	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(e, "id")), 42);
	e = find(evs, "f", "ac2g");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "bp")), "e");
	e = find(evs, "i", "[memory]");
	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "args"), "Bytes")),
			 4096);
	e = find(evs, "C", "Memory GPU0");
	assert_non_null(e);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(e, "args"), "allocated")), 8192);
	e = find(evs, "C", "queue batch_queue");
	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "args"), "size")),
			 3);
	assert_non_null(find(evs, "C", "CPU machine %"));
	json_decref(j);
	model_release(&m);
}

static void test_limit(void **state)
{
	struct model m;
	struct out_chrome_stats st;
	size_t full, size;
	json_t *j, *evs, *cut, *last;
	int64_t total;

	(void)state;
	build(&m, 400);
	j = export(&m, 0, &st, &full);
	total = st.events_written;
	json_decref(j);

	/* a tiny limit: header and metadata, then the cut */
	j = export(&m, 1, &st, &size);
	cut = json_object_get(j, "nnscopeCut");
	assert_non_null(cut);
	assert_int_equal(st.events_written, 0);
	assert_int_equal(json_integer_value(json_object_get(cut, "omitted_events")), total);
	evs = json_object_get(j, "traceEvents");
	last = json_array_get(evs, json_array_size(evs) - 1);
	assert_string_equal(json_string_value(json_object_get(last, "name")),
			    "nnscope: timeline cut");
	json_decref(j);

	/* limits across the whole range: valid JSON, never over the limit,
	 * written + omitted = all rows, the cut time is the first omitted row */
	for (int64_t limit = 2000; limit < (int64_t)full + 2000; limit += 3001) {
		j = export(&m, limit, &st, &size);
		assert_int_equal(st.events_written + st.events_omitted, total);
		cut = json_object_get(j, "nnscopeCut");
		if (st.events_omitted) {
			assert_true((int64_t)size <= limit);
			assert_non_null(cut);
			assert_int_equal(json_integer_value(json_object_get(cut, "limit_bytes")),
					 limit);
			assert_true(json_number_value(json_object_get(cut, "from_ts_us")) >= 0);
		} else {
			assert_null(cut);
		}
		json_decref(j);
	}
	/* a limit just over the size: nothing cut */
	j = export(&m, (int64_t)full + 2000, &st, &size);
	assert_int_equal(st.events_omitted, 0);
	assert_int_equal(size, full);
	json_decref(j);
	model_release(&m);
}

/* host_info rows: B/E/i on their pid/tid when the trace's clock is known. */
static void test_host_rows(void **state)
{
	struct model m;
	struct out_chrome_stats st;
	json_t *j, *evs, *e;
	struct model_host h;
	struct nns_err err;

	(void)state;
	build_rows(&m, 1);
	memset(&h, 0, sizeof(h));
	h.pid = 100;
	h.tid = 102;
	h.module = S(&m, "Dataset");
	h.event = S(&m, "GetNext");
	h.stage = S(&m, "Batch");
	h.ts_us = 1000; /* + offset 0 -> model time 1,000,000 ns */
	h.memory_kb = 64;
	assert_int_equal(model_add_host(&m, &h), 0);
	h.start_end = 1;
	h.ts_us = 1002;
	h.memory_kb = 0;
	assert_int_equal(model_add_host(&m, &h), 0);
	h.ts_us = 0; /* no time: not placed */
	h.memory_kb = 10;
	assert_int_equal(model_add_host(&m, &h), 0);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);

	/* clock unknown (the Kineto case): no host rows */
	j = export(&m, 0, &st, NULL);
	assert_null(find(json_object_get(j, "traceEvents"), "B", "GetNext::Batch"));
	json_decref(j);

	m.mono_offset_ns = 0;
	j = export(&m, 0, &st, NULL);
	evs = json_object_get(j, "traceEvents");
	e = find(evs, "B", "GetNext::Batch");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "cat")), "Dataset");
	assert_int_equal(json_integer_value(json_object_get(e, "tid")), 102);
	assert_true(json_number_value(json_object_get(e, "ts")) == 1.0);
	e = find(evs, "E", "GetNext::Batch");
	assert_non_null(e);
	assert_true(json_number_value(json_object_get(e, "ts")) == 3.0);
	e = find(evs, "C", "host_info VmRSS kB");
	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "args"), "kB")), 64);
	json_decref(j);
	model_release(&m);
}

/* A Kineto trace through the real importer exports and parses back. */
static void test_kineto_model(void **state)
{
	struct model m;
	struct out_chrome_stats st;
	json_error_t je;
	json_t *evs = json_loads(
	    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":7,\"tid\":7,"
	    "\"ts\":100,\"dur\":5,\"args\":{\"External id\":3}},"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\","
	    "\"ts\":102,\"dur\":2,\"args\":{\"correlation\":9,\"device\":0,\"stream\":7}},"
	    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":7,\"args\":{\"name\":\"py\"}}"
	    "]",
	    0, &je);
	json_t *j, *arr, *e;
	size_t i, nx = 0;

	(void)state;
	assert_non_null(evs);
	assert_int_equal(tu_model_from_events(evs, &m), 0);
	json_decref(evs);
	j = export(&m, 0, &st, NULL);
	arr = json_object_get(j, "traceEvents");
	json_array_foreach(arr, i, e) nx +=
	    strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0;
	assert_int_equal(nx, 2);
	assert_non_null(find(arr, "X", "aten::add"));
	json_decref(j);
	model_release(&m);
}

/* Exports keep the source's categories (issue 18: mtia_runtime came out as
 * cuda_runtime, every mtia_ccp_events record as kernel; hip_runtime too),
 * while the analyses read them as launches and device work. */
static void test_source_categories(void **state)
{
	struct model m;
	struct out_chrome_stats st;
	json_error_t je;
	json_t *evs = json_loads(
	    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":7,\"tid\":7,"
	    "\"ts\":100,\"dur\":10,\"args\":{}},"
	    "{\"ph\":\"X\",\"cat\":\"mtia_runtime\",\"name\":\"launch\",\"pid\":7,\"tid\":7,"
	    "\"ts\":101,\"dur\":2,\"args\":{\"correlation\":9}},"
	    "{\"ph\":\"X\",\"cat\":\"MTIA_CCP_EVENTS\",\"name\":\"dma_request\",\"pid\":2,"
	    "\"tid\":5,\"ts\":104,\"dur\":2,\"args\":{\"correlation\":9}},"
	    "{\"ph\":\"X\",\"cat\":\"hip_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":7,"
	    "\"tid\":7,\"ts\":106,\"dur\":1,\"args\":{}}"
	    "]",
	    0, &je);
	json_t *j, *arr;

	(void)state;
	assert_non_null(evs);
	assert_int_equal(tu_model_from_events(evs, &m), 0);
	json_decref(evs);
	/* read as a launch and a device event (memory: the copy engine) */
	assert_int_equal(m.events.v[1].kind, MK_RUNTIME);
	assert_int_equal(model_launch_of(&m, 2), 1);
	assert_int_equal(model_event_class(&m, 2), MC_MEMORY);
	assert_int_equal(model_op_of(&m, 2), 0);
	j = export(&m, 0, &st, NULL);
	arr = json_object_get(j, "traceEvents");
	assert_string_equal(json_string_value(json_object_get(find(arr, "X", "launch"), "cat")),
			    "mtia_runtime");
	assert_string_equal(
	    json_string_value(json_object_get(find(arr, "X", "dma_request"), "cat")),
	    "mtia_ccp_events");
	assert_string_equal(
	    json_string_value(json_object_get(find(arr, "X", "hipLaunchKernel"), "cat")),
	    "hip_runtime");
	assert_string_equal(json_string_value(json_object_get(find(arr, "X", "aten::add"), "cat")),
			    "cpu_op");
	json_decref(j);
	model_release(&m);
}

/* timeline_limit from the META "options" object the collector writes; a
 * key-like text inside a string value does not count. */
static long trace_limit(const char *options)
{
	struct model m;
	long v;

	model_init(&m);
	if (options)
		assert_int_equal(model_add_meta(&m, "options", options), 0);
	v = out_chrome_trace_limit_mb(&m);
	model_release(&m);
	return v;
}

static void test_trace_limit(void **state)
{
	(void)state;
	assert_int_equal(trace_limit(NULL), 0);
	assert_int_equal(trace_limit("{\"start\":true,\"timeline_limit\":7,\"op_time\":true}"), 7);
	assert_int_equal(trace_limit("{ \"timeline_limit\" : 1 }"), 1);
	assert_int_equal(
	    trace_limit(
		"{\"output_path\":\"/a\\\"timeline_limit\\\":3\\\\\",\"timeline_limit\":500}"),
	    500);
	assert_int_equal(trace_limit("{\"output_path\":\"\\\"timeline_limit\\\":3\"}"), 0);
	assert_int_equal(trace_limit("{\"timeline_limit\":0}"), 0);
	assert_int_equal(trace_limit("{\"timeline_limit\":2000000}"), 0);
	assert_int_equal(trace_limit("{\"timeline_limit\":\"9\"}"), 0);
	assert_int_equal(trace_limit("{\"timeline_limit_mb\":9}"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_rows),	      cmocka_unit_test(test_limit),
	    cmocka_unit_test(test_host_rows),	      cmocka_unit_test(test_kineto_model),
	    cmocka_unit_test(test_source_categories), cmocka_unit_test(test_trace_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
