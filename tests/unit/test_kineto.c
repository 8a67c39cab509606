/*
 * test_kineto.c - unit tests of the Kineto importer's mapping: categories
 * (old and modern spellings), exact microsecond -> nanosecond conversion,
 * thread identity, canonical shape/grid text, device and host args,
 * memory/flow/counter/metadata events, top-level keys, the bare-array
 * form, lenient quirks of old traces, and the real resnet50 sample when
 * ../shared is present (tests/unit/test_kineto_robust.c covers errors,
 * gzip and parallel parsing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "importers/kineto.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int load(struct model *m, const char *json, struct nns_err *err)
{
	struct kineto_opts o = {.threads = 1};

	assert_int_equal(model_init(m), NNS_OK);
	return kineto_load_buffer(json, strlen(json), "test.json", m, &o, err);
}

static const struct model_event *find_event(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->events.n; i++)
		if (strcmp(model_str(m, m->events.v[i].name), name) == 0)
			return &m->events.v[i];
	return NULL;
}

static const struct model_event *must_find(const struct model *m, const char *name)
{
	const struct model_event *e = find_event(m, name);

	if (!e)
		fail_msg("event %s not found", name);
	return e;
}

#define X(cat, name)                                                                               \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name                                       \
	"\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}"

static void test_categories(void **state)
{
	static const struct {
		const char *name;
		int kind;
	} want[] = {
	    {"a1", MK_CPU_OP},	       {"a2", MK_CPU_OP},   {"a3", MK_USER_ANNOTATION},
	    {"a4", MK_GPU_ANNOTATION}, {"a5", MK_PYTHON},   {"a6", MK_PYTHON_FUNCTION},
	    {"a7", MK_RUNTIME},	       {"a8", MK_RUNTIME},  {"a9", MK_RUNTIME},
	    {"a10", MK_RUNTIME},       {"a11", MK_RUNTIME}, {"a12", MK_RUNTIME},
	    {"a13", MK_DRIVER},	       {"a14", MK_KERNEL},  {"a15", MK_KERNEL},
	    {"a16", MK_MEMCPY},	       {"a17", MK_MEMCPY},  {"a18", MK_MEMSET},
	    {"a19", MK_MEMSET},	       {"a20", MK_TRACE},   {"a21", MK_SYNC},
	    {"a22", MK_OTHER},	       {"a23", MK_OTHER},   {"a24", MK_RUNTIME},
	};
	const char *json =
	    "{\"traceEvents\":[" X("cpu_op", "a1") "," X(
		"Operator",
		"a2") "," X("user_annotation",
			    "a3") "," X("gpu_user_annotation",
					"a4") "," X("python", "a5") "," X("python_function", "a6") "," X("Runtime", "a7") "," X("cuda_runtime", "a8") "," X("mtia_runtime", "a9") "," X("glow_runtime", "a10") "," X("xpu_runtime", "a11") "," X("privateuse1_runtime", "a12") "," X("cuda_driver",
																																		     "a13") "," X("Kernel",
																																				  "a14") "," X("kernel", "a15") "," X("Memcpy", "a16") "," X("gpu_memcpy", "a17") "," X("Memset", "a18") "," X("gpu_memset",
																																																	       "a19") "," X("Trace",
																																																			    "a20") "," X("cuda_sync",
																																																					 "a21") "," X("overhead", "a22") ","
																																																									 "{\"ph\":\"X\",\"name\":\"a23\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}," X("CUDA_RUNTIME",
																																																																		     "a24") "]}";
	struct model m;
	struct nns_err err;
	size_t i;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.events.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct model_event *e = must_find(&m, want[i].name);
		if (e->kind != want[i].kind)
			fail_msg("%s: kind %d, want %d", want[i].name, e->kind, want[i].kind);
		assert_int_equal(e->dur, 5000);
		if (model_kind_is_device(e->kind))
			assert_int_not_equal(e->extra, MODEL_NOIDX);
	}
	assert_true(m.finalized);
	model_release(&m);
}

/* Integers of every length from 1 to 20 digits, as "ts", "dur" (up to 15
 * digits) and "External id", each followed by one of four delimiters: the
 * value the digits spell (ids of 11 digits and more do not fit 31 bits and
 * are kept in the model's wide ids; 20 digits pass INT64_MAX, which they
 * saturate to). */
static void test_numbers_every_length(void **state)
{
	static const char digits[] = "12345678901234567890";
	static const char *after[] = {"}", " }", "\n}", ",\"x\":0}"};
	struct buf b = {0};
	struct nns_err err;
	struct model m;
	int k;

	(void)state;
	assert_int_equal(buf_printf(&b, "{\"traceEvents\": ["), 0);
	for (k = 1; k <= 20; k++)
		assert_int_equal(
		    buf_printf(
			&b,
			"%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n%d\",\"pid\":1,"
			"\"tid\":1,\"ts\":%.*s,\"dur\":%.*s,\"args\":{\"External id\":%.*s%s}",
			k > 1 ? "," : "", k, k < 16 ? k : 15, digits, k < 16 ? k : 15, digits, k,
			digits, after[k % 4]),
		    0);
	assert_int_equal(buf_printf(&b, "]}"), 0);
	assert_int_equal(load(&m, b.p, &err), NNS_OK);
	for (k = 1; k <= 20; k++) {
		char name[16];
		const struct model_event *e;
		int64_t v = 0;
		int j;

		snprintf(name, sizeof(name), "n%d", k);
		e = must_find(&m, name);
		for (j = 0; j < (k < 16 ? k : 15); j++)
			v = v * 10 + (digits[j] - '0');
		assert_int_equal(e->ts, v * 1000);
		assert_int_equal(e->dur, v * 1000);
		for (v = 0, j = 0; j < k && k < 20; j++)
			v = v * 10 + (digits[j] - '0');
		assert_int_equal(model_ext_id(&m, e), k < 20 ? v : INT64_MAX);
	}
	model_release(&m);
	buf_free(&b);
}

static void test_timestamps(void **state)
{
	const char *json =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"name\":\"f\",\"ts\":88437691101.719,\"dur\":0.040,\"pid\":0,\"tid\":0}"
	    ","
	    "{\"ph\":\"X\",\"name\":\"i\",\"ts\":1623142623460111,\"dur\":25,\"pid\":0,\"tid\":0},"
	    "{\"ph\":\"X\",\"name\":\"e\",\"ts\":1.5e3,\"dur\":2E-3,\"pid\":0,\"tid\":0},"
	    "{\"ph\":\"X\",\"name\":\"r\",\"ts\":1.00051,\"dur\":1.00049,\"pid\":0,\"tid\":0},"
	    "{\"ph\":\"X\",\"name\":\"n\",\"ts\":-2.5,\"dur\":3,\"pid\":0,\"tid\":0},"
	    "{\"ph\":\"X\",\"name\":\"s\",\"ts\":\"77\",\"pid\":0,\"tid\":0},"
	    "{\"ph\":\"X\",\"name\":\"big\",\"ts\":3007199254740993.001,\"pid\":0,\"tid\":0}"
	    "]}";
	struct model m;
	struct nns_err err;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(must_find(&m, "f")->ts, 88437691101719LL);
	assert_int_equal(must_find(&m, "f")->dur, 40);
	assert_int_equal(must_find(&m, "i")->ts, 1623142623460111000LL);
	assert_int_equal(must_find(&m, "i")->dur, 25000);
	assert_int_equal(must_find(&m, "e")->ts, 1500000);
	assert_int_equal(must_find(&m, "e")->dur, 2);
	assert_int_equal(must_find(&m, "r")->ts, 1001);
	assert_int_equal(must_find(&m, "r")->dur, 1000);
	assert_int_equal(must_find(&m, "n")->ts, -2500);
	assert_int_equal(must_find(&m, "n")->dur, 3000);
	assert_int_equal(must_find(&m, "s")->ts, 77000);
	assert_int_equal(must_find(&m, "s")->dur, 0);
	/* above 2^53: exact only through the integer path (and inside the model's time clamp) */
	assert_int_equal(must_find(&m, "big")->ts, 3007199254740993001LL);
	model_release(&m);
}

static void test_threads(void **state)
{
	const char *json =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"pid\":25738,\"tid\":25738},"
	    "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"pid\":\"25738\",\"tid\":\"25738\"},"
	    "{\"ph\":\"X\",\"name\":\"c\",\"ts\":3,\"pid\":0,\"tid\":\"stream 7\"},"
	    "{\"ph\":\"X\",\"name\":\"d\",\"ts\":4,\"pid\":\"Traces\",\"tid\":\"PyTorch "
	    "Profiler\"},"
	    "{\"ph\":\"X\",\"name\":\"e\",\"ts\":5},"
	    "{\"ph\":\"X\",\"name\":\"f\",\"ts\":6,\"pid\":-3,\"tid\":\"x\\\"y\"},"
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":25738,\"tid\":\"25738\","
	    "\"args\":{\"name\":\"thread 25738 (python)\"}}"
	    "]}";
	struct model m;
	struct nns_err err;
	const struct model_thread *t;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.threads.n, 5);
	assert_int_equal(must_find(&m, "a")->thread, must_find(&m, "b")->thread);
	t = &m.threads.v[must_find(&m, "a")->thread];
	assert_string_equal(model_str(&m, t->pid), "25738");
	assert_string_equal(model_str(&m, t->tid), "25738");
	assert_string_equal(model_str(&m, t->name), "thread 25738 (python)");
	t = &m.threads.v[must_find(&m, "c")->thread];
	assert_string_equal(model_str(&m, t->pid), "0");
	assert_string_equal(model_str(&m, t->tid), "stream 7");
	t = &m.threads.v[must_find(&m, "e")->thread];
	assert_string_equal(model_str(&m, t->pid), "");
	t = &m.threads.v[must_find(&m, "f")->thread];
	assert_string_equal(model_str(&m, t->pid), "-3");
	assert_string_equal(model_str(&m, t->tid), "x\"y");
	model_release(&m);
}

static void test_host_args(void **state)
{
	const char *json =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::to\",\"pid\":1,\"tid\":\"1\","
	    "\"ts\":200,\"dur\":60,\"args\":{\"Input Dims\":[[2,8,5],[],[ ] ,[[1, 2],[3]]],"
	    "\"Input type\":[\"float\",\"Int\",\"\",\"it's\"],\"External id\":3,"
	    "\"Call stack\":\"a.py(1): f;b.py(2): g\",\"Sequence number\":7,"
	    "\"Fwd thread id\":1,\"Trace iteration\": 0 ,\"Device\": 25738}},"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"mod\",\"pid\":1,\"tid\":1,\"ts\":1,"
	    "\"args\":{\"Python id\":4,\"Python parent id\":2,\"Python module id\":9,"
	    "\"Input dims\":[]}},"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"plain\",\"pid\":1,\"tid\":1,\"ts\":2,"
	    "\"args\":{\"External id\":5,\"Record function id\":0}},"
	    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ua\",\"pid\":1,\"tid\":1,\"ts\":"
	    "3,"
	    "\"args\":{\"Input Dims\":[[1.5, -0, true, null, NaN]]}}"
	    "]}";
	struct model m;
	struct nns_err err;
	const struct model_event *e;
	const struct model_op_args *a;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	e = must_find(&m, "aten::to");
	assert_int_equal(e->kind, MK_CPU_OP);
	assert_int_equal(model_ext_id(&m, e), 3);
	assert_int_equal(model_corr(&m, e), MODEL_NONE);
	assert_int_equal(e->device, -1);
	assert_int_not_equal(e->extra, MODEL_NOIDX);
	a = &m.op_args.v[e->extra];
	assert_string_equal(model_str(&m, a->input_dims), "[[2, 8, 5], [], [], [[1, 2], [3]]]");
	assert_string_equal(model_str(&m, a->input_type), "['float', 'Int', '', \"it's\"]");
	assert_string_equal(model_str(&m, a->call_stack), "a.py(1): f;b.py(2): g");
	assert_int_equal(model_id_dec(&m, a->seq_enc), 7);
	assert_int_equal(model_id_dec(&m, a->fwd_tid_enc), 1);
	assert_int_equal(model_id_dec(&m, a->py_id_enc), MODEL_NONE);

	e = must_find(&m, "mod");
	a = &m.op_args.v[e->extra];
	assert_int_equal(model_id_dec(&m, a->py_id_enc), 4);
	assert_int_equal(model_id_dec(&m, a->py_parent_id_enc), 2);
	assert_int_equal(model_id_dec(&m, a->py_module_id_enc), 9);
	assert_string_equal(model_str(&m, a->input_dims), "[]");
	assert_int_equal(a->input_type, 0);
	assert_int_equal(a->call_stack, 0);

	e = must_find(&m, "plain");
	assert_int_equal(model_ext_id(&m, e), 5);
	assert_int_equal(e->extra, MODEL_NOIDX);

	e = must_find(&m, "ua");
	a = &m.op_args.v[e->extra];
	assert_string_equal(model_str(&m, a->input_dims), "[[1.5, 0, True, None, nan]]");
	model_release(&m);
}

/* The canonical text of "Input Dims" / "Input type" values already written
 * the way repr() prints them (taken as they are), and of values that only
 * look so up to some byte (spacing, -0, exponents, quotes, escapes,
 * literals, nesting): each must come out as Python's repr of the parsed
 * value, whichever way the importer gets there. */
static void test_repr_forms(void **state)
{
	static const struct {
		const char *json, *repr;
	} cases[] = {
	    {"[[2, 8, 5], [], []]", "[[2, 8, 5], [], []]"},
	    {"[[64, 3, 224, 224], [-1, 0]]", "[[64, 3, 224, 224], [-1, 0]]"},
	    {"[]", "[]"},
	    {"[[[]]]", "[[[]]]"},
	    {"[1.5, 10.25]", "[1.5, 10.25]"},
	    {"[[2,8],[3]]", "[[2, 8], [3]]"},
	    {"[[2, 8],  [3]]", "[[2, 8], [3]]"},
	    {"[ [2, 8]]", "[[2, 8]]"},
	    {"[[2, 8] ]", "[[2, 8]]"},
	    {"[[2, 8],\n [3]]", "[[2, 8], [3]]"},
	    {"[-0, 1]", "[0, 1]"},
	    {"[1, -0]", "[1, 0]"},
	    {"[-01, 007]", "[-01, 007]"},
	    {"[1e5, 2E-3]", "[1e5, 2E-3]"},
	    {"[\"float\", \"Int\", \"\"]", "['float', 'Int', '']"},
	    {"[\"it's\", \"x\"]", "[\"it's\", 'x']"},
	    {"[\"a\\\"b\"]", "['a\"b']"},
	    {"[\"tab\\there\"]", "['tab\\there']"},
	    {"[\"caf\\u00e9\", \"\xc3\xa9t\xc3\xa9\"]", "['caf\xc3\xa9', '\xc3\xa9t\xc3\xa9']"},
	    {"[true, false, null]", "[True, False, None]"},
	    {"[[1, 2], {\"k\": 1}]", "[[1, 2], {'k': 1}]"},
	    {"[[1, 2], \"s\", 3]", "[[1, 2], 's', 3]"},
	};
	char json[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model m;
		struct nns_err err;
		const struct model_event *e;

		snprintf(json, sizeof(json),
			 "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\","
			 "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"Input Dims\":%s,"
			 "\"Input type\":%s}}]}",
			 cases[i].json, cases[i].json);
		assert_int_equal(load(&m, json, &err), NNS_OK);
		e = must_find(&m, "op");
		assert_int_not_equal(e->extra, MODEL_NOIDX);
		assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_dims), cases[i].repr);
		assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_type), cases[i].repr);
		model_release(&m);
	}
}

static void test_device_args(void **state)
{
	const char *json =
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\","
	    "\"ts\":1623142623531625,\"dur\":2,\"args\":{\"queued\":0,\"device\":0,\"context\":1,"
	    "\"stream\":7,\"correlation\":34441,\"external id\":544,\"registers per thread\":38,"
	    "\"shared memory\":16384,\"blocks per SM\":0.625,\"warps per SM\":5.0,"
	    "\"grid\":[50,1,1],\"block\":[256, 1, 1],\"est. achieved occupancy %\":8}},"
	    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,"
	    "\"ts\":5,\"dur\":1,\"args\":{\"device\":1,\"stream\":7,\"correlation\":9,"
	    "\"bytes\":19267584,\"memory bandwidth (GB/s)\":9.9}},"
	    "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"ms\",\"pid\":0,\"tid\":7,\"ts\":6},"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	    "\"tid\":1,\"ts\":1623142623531600,\"dur\":10,\"args\":{\"correlation\":34441,"
	    "\"External id\":544,\"device\":3}}"
	    "]}";
	struct model m;
	struct nns_err err;
	const struct model_event *e;
	const struct model_dev_args *d;
	size_t i;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	e = must_find(&m, "k");
	assert_int_equal(e->kind, MK_KERNEL);
	assert_int_equal(e->device, 0);
	assert_int_equal(model_corr(&m, e), 34441);
	assert_int_equal(model_ext_id(&m, e), 544);
	d = &m.dev_args.v[e->extra];
	assert_int_equal(d->stream, 7);
	assert_int_equal(d->regs, 38);
	assert_int_equal(d->shared_mem, 16384);
	assert_true(d->blocks_per_sm > 0.6249f && d->blocks_per_sm < 0.6251f);
	assert_true(d->occupancy > 7.99f && d->occupancy < 8.01f);
	assert_string_equal(model_str(&m, d->grid), "[50, 1, 1]");
	assert_string_equal(model_str(&m, d->block), "[256, 1, 1]");
	assert_int_equal(d->bytes, -1);

	e = must_find(&m, "Memcpy HtoD");
	assert_int_equal(e->kind, MK_MEMCPY);
	assert_int_equal(e->device, 1);
	d = &m.dev_args.v[e->extra];
	assert_int_equal(d->bytes, 19267584);
	assert_int_equal(d->grid, 0);
	assert_int_equal(d->regs, -1);

	e = must_find(&m, "ms");
	d = &m.dev_args.v[e->extra];
	assert_int_equal(d->stream, -1);
	assert_int_equal(e->device, -1);

	/* runtime: device is not stored on host events; launch_of links */
	e = must_find(&m, "cudaLaunchKernel");
	assert_int_equal(e->device, -1);
	assert_int_equal(e->extra, MODEL_NOIDX);
	for (i = 0; i < m.events.n; i++)
		if (m.events.v[i].kind == MK_KERNEL)
			assert_int_equal(model_launch_of(&m, i), (uint32_t)(e - m.events.v));
	model_release(&m);
}

static void test_memory_flow_counter(void **state)
{
	const char *json =
	    "{\"traceEvents\":["
	    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":5,"
	    "\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Bytes\":4}},"
	    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":6,"
	    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":94192371204096,\"Bytes\":-512,"
	    "\"Total Allocated\":1024,\"Total Reserved\":2097152}},"
	    "{\"ph\":\"i\",\"name\":\"Record Window End\",\"s\":\"g\",\"pid\":\"\",\"tid\":\"\","
	    "\"ts\":999999999999},"
	    "{\"ph\":\"s\",\"id\":34417,\"pid\":1,\"tid\":1,\"ts\":7,\"cat\":\"async\",\"name\":"
	    "\"launch\"},"
	    "{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":1,\"ts\":8.5,\"cat\":\"ac2g\",\"bp\":\"e\"},"
	    "{\"ph\":\"s\",\"bind_id\":3,\"pid\":1,\"tid\":1,\"ts\":9,\"cat\":\"fwdbwd\"},"
	    "{\"ph\":\"t\",\"id\":\"0x10\",\"pid\":1,\"tid\":1,\"ts\":9,\"cat\":\"fwdbwd\"},"
	    /* string ids (Chrome's format allows them; MindSpore's step trace) */
	    "{\"ph\":\"s\",\"id\":\"Data_aug Bound 1\",\"pid\":1,\"tid\":1,\"ts\":9.5},"
	    "{\"ph\":\"t\",\"id\":\"Data_aug Bound 1\",\"pid\":1,\"tid\":1,\"ts\":9.5},"
	    "{\"ph\":\"s\",\"bind_id\":\"Data_aug Bound 2\",\"pid\":1,\"tid\":1,\"ts\":9.6},"
	    "{\"ph\":\"C\",\"name\":\"GPU 0 Util\",\"pid\":0,\"ts\":10,\"args\":{\"util\":0.5}},"
	    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":0,\"ts\":11,\"args\":{\"a\":1,\"b\":2,\"s\":"
	    "\"x\"}},"
	    "{\"name\":\"ctr\",\"args\":{\"v\":3},\"ph\":\"C\",\"ts\":12}"
	    "]}";
	struct model m;
	struct nns_err err;
	const struct model_mem *r;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.events.n, 0);
	assert_int_equal(m.mems.n, 2);
	r = &m.mems.v[0];
	assert_int_equal(r->ts, 5000);
	assert_int_equal(r->bytes, 4);
	assert_int_equal(r->device_type, 0);
	assert_int_equal(r->device_id, -1);
	assert_int_equal(r->flags, 0);
	r = &m.mems.v[1];
	assert_int_equal(r->addr, 94192371204096LL);
	assert_int_equal(r->bytes, -512);
	assert_int_equal(r->total_allocated, 1024);
	assert_int_equal(r->total_reserved, 2097152);
	assert_int_equal(r->device_type, 1);
	assert_int_equal(r->flags, MODEL_MEM_HAS_ADDR | MODEL_MEM_HAS_TOTAL_ALLOC |
				       MODEL_MEM_HAS_TOTAL_RESERVED);

	assert_int_equal(m.flows.n, 7);
	assert_int_equal(m.flows.v[0].kind, MF_OTHER);
	assert_int_equal(m.flows.v[0].id, 34417);
	assert_int_equal(m.flows.v[0].ph, 's');
	assert_int_equal(m.flows.v[1].kind, MF_AC2G);
	assert_int_equal(m.flows.v[1].ts, 8500);
	assert_int_equal(m.flows.v[2].kind, MF_FWDBWD);
	assert_int_equal(m.flows.v[2].id, 3);
	assert_int_equal(m.flows.v[3].id, 16);
	assert_int_equal(m.flows.v[3].ph, 't');
	/* one string id, one id: the pair matches; another string, another id;
	 * none collides with a numeric one */
	assert_int_equal(m.flows.v[4].ph, 's');
	assert_int_equal(m.flows.v[5].ph, 't');
	assert_true(m.flows.v[4].id == m.flows.v[5].id);
	assert_true(m.flows.v[6].id != m.flows.v[4].id);
	assert_true(m.flows.v[4].id >= (int64_t)1 << 62 && m.flows.v[6].id >= (int64_t)1 << 62);
	assert_int_equal(m.diag.events_skipped, 0);

	assert_int_equal(m.counters.n, 4);
	assert_string_equal(model_str(&m, m.counters.v[0].name), "GPU 0 Util");
	assert_true(m.counters.v[0].value == 0.5);
	assert_string_equal(model_str(&m, m.counters.v[1].name), "mem.a");
	assert_string_equal(model_str(&m, m.counters.v[2].name), "mem.b");
	assert_true(m.counters.v[2].value == 2.0);
	assert_string_equal(model_str(&m, m.counters.v[3].name), "ctr");
	assert_int_equal(m.counters.v[3].ts, 12000);
	model_release(&m);
}

static void test_top_level(void **state)
{
	const char *json =
	    "{\"schemaVersion\": 1, \"Framework\": \"pytorch-lightning\","
	    "\"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": 1775078550000000000,"
	    "\"weird\": {\"a\": [1, {\"b\": \"]}\"}]},"
	    "\"deviceProperties\": [{\"id\": 0, \"name\": \"Tesla V100-DGXS-32GB\","
	    "\"totalGlobalMem\": 34084028416, \"computeMajor\": 7, \"computeMinor\": 0,"
	    "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,"
	    "\"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,"
	    "\"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 98304,"
	    "\"numSms\": 80}, {\"id\": 3, \"name\": \"H100\", \"numSms\": 132\n,"
	    "\"computeMajor\": 9}],"
	    "\"traceEvents\": [" X(
		"cpu_op",
		"op") "],"
		      "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 4,"
		      "\"pg_config\": [{\"x\": 1}]},"
		      "\"traceName\": \"/tmp/x.json\"}";
	struct model m;
	struct nns_err err;
	const struct model_device *d;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.schema_version, 1);
	assert_int_equal(m.base_time_ns, 1775078550000000000LL);
	assert_int_equal(m.is_lightning, 1);
	assert_int_equal(m.dist_rank, 1);
	assert_int_equal(m.dist_world_size, 4);
	assert_string_equal(model_str(&m, m.dist_backend), "nccl");
	assert_int_equal(m.devices.n, 2);
	d = model_device_by_id(&m, 0);
	assert_non_null(d);
	assert_string_equal(model_str(&m, d->name), "Tesla V100-DGXS-32GB");
	assert_int_equal(d->total_mem, 34084028416LL);
	assert_int_equal(d->major, 7);
	assert_int_equal(d->minor, 0);
	assert_int_equal(d->num_sms, 80);
	assert_int_equal(d->max_threads_per_sm, 2048);
	assert_int_equal(d->max_threads_per_block, 1024);
	assert_int_equal(d->regs_per_sm, 65536);
	assert_int_equal(d->shared_mem_per_sm, 98304);
	assert_int_equal(d->warp_size, 32);
	d = model_device_by_id(&m, 3);
	assert_non_null(d);
	assert_int_equal(d->num_sms, 132);
	assert_int_equal(d->major, 9);
	assert_int_equal(m.events.n, 1);
	model_release(&m);
}

static void test_bare_array_and_quirks(void **state)
{
	const char *json = "\xEF\xBB\xBF[" X(
	    "Kernel",
	    "k") ",\n"
		 "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"q\",\"pid\":1,\"tid\":1,\"ts\":3,"
		 "\"args\":{\"Trace iteration\": 0 , \"x\": N/A, \"y\": NaN, \"z\": -Infinity,"
		 "\"w\": Infinity,},},\n"
		 "{\"ph\":\"B\",\"name\":\"outer\",\"cat\":\"user_annotation\",\"pid\":2,\"tid\":2,"
		 "\"ts\":1},"
		 "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":2,\"tid\":2,\"ts\":2},"
		 "{\"ph\":\"E\",\"pid\":2,\"tid\":2,\"ts\":4},"
		 "{\"ph\":\"E\",\"pid\":2,\"tid\":2,\"ts\":9},"
		 "{\"ph\":\"E\",\"pid\":2,\"tid\":2,\"ts\":10},"
		 "{\"ph\":\"X\",\"name\":\"nots\",\"pid\":1,\"tid\":1},"
		 "{\"name\":\"noph\"}, 42,"
		 "]  \n";
	struct model m;
	struct nns_err err;
	const struct model_event *e;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.schema_version, -1);
	assert_int_equal(must_find(&m, "k")->kind, MK_KERNEL);
	assert_int_equal(must_find(&m, "q")->kind, MK_CPU_OP);
	e = must_find(&m, "outer");
	assert_int_equal(e->kind, MK_USER_ANNOTATION);
	assert_int_equal(e->ts, 1000);
	assert_int_equal(e->dur, 8000);
	e = must_find(&m, "inner");
	assert_int_equal(e->kind, MK_OTHER);
	assert_int_equal(e->dur, 2000);
	assert_null(find_event(&m, "nots"));
	/* nots, noph, 42 and the unmatched E */
	assert_int_equal(m.diag.events_skipped, 4);
	assert_non_null(strstr(m.diag.first_problem, "test.json: byte "));
	model_release(&m);
}

static void test_escapes(void **state)
{
	const char *json =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00\","
	    "\"ts\":1,\"pid\":1,\"tid\":1,\"args\":{\"Input type\":[\"a'b\\\"c\", \"\\t\\u0001\"],"
	    "\"Call stack\":\"x\\u0000y\"}}]}";
	struct model m;
	struct nns_err err;
	const struct model_op_args *a;

	(void)state;
	assert_int_equal(load(&m, json, &err), NNS_OK);
	assert_int_equal(m.events.n, 1);
	assert_string_equal(model_str(&m, m.events.v[0].name),
			    "a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80");
	a = &m.op_args.v[m.events.v[0].extra];
	assert_string_equal(model_str(&m, a->input_type), "['a\\'b\"c', '\\t\\x01']");
	assert_int_equal(strpool_len(&m.strings, a->call_stack), 3);
	model_release(&m);
}

static void test_real_sample(void **state)
{
	const char *shared = getenv("NNS_SHARED");
	char path[1024];
	struct kineto_opts o = {.threads = 0};
	struct model m;
	struct nns_err err;
	size_t cnt[MK__COUNT] = {0}, i;

	(void)state;
	snprintf(path, sizeof(path),
		 "%s/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
		 shared && *shared ? shared : "../shared");
	if (access(path, R_OK) != 0) {
		print_message("skipped: sample %s not present\n", path);
		skip();
	}
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_file(path, &m, &o, &err), NNS_OK);
	for (i = 0; i < m.events.n; i++)
		cnt[m.events.v[i].kind]++;
	assert_int_equal(cnt[MK_KERNEL], 8772);
	assert_int_equal(cnt[MK_MEMCPY], 12);
	assert_int_equal(cnt[MK_MEMSET], 312);
	assert_int_equal(cnt[MK_CPU_OP], 23646);
	assert_int_equal(cnt[MK_RUNTIME], 11923);
	assert_int_equal(cnt[MK_TRACE], 1);
	assert_int_equal(m.mems.n, 12838);
	assert_int_equal(m.devices.n, 4);
	assert_int_equal(m.schema_version, 1);
	assert_int_equal(m.diag.events_skipped, 0);
	assert_int_equal(m.diag.bytes_read, 35154637);
	assert_non_null(find_event(&m, "PyTorch Profiler (0)"));
	assert_int_equal(must_find(&m, "PyTorch Profiler (0)")->kind, MK_TRACE);
	assert_int_equal(m.dev_args.n, 8772 + 12 + 312);
	model_release(&m);
}

/* The server's progress counter and cancel flag: done_bytes counts what
 * was parsed; a raised flag stops the parse with "loading cancelled". */
static void test_progress_and_cancel(void **state)
{
	const char *json = "{\"traceEvents\": [" X("cpu_op", "aten::mm") "]}";
	_Atomic int64_t done = 0;
	_Atomic int cancel = 0;
	struct kineto_opts o = {.threads = 1, .done_bytes = &done, .cancel = &cancel};
	struct nns_err err;
	struct model m;

	(void)state;
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_buffer(json, strlen(json), "p.json", &m, &o, &err), NNS_OK);
	assert_int_equal(atomic_load(&done), (int64_t)strlen(json));
	assert_int_equal(m.events.n, 1);
	model_release(&m);

	atomic_store(&cancel, 1);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_not_equal(kineto_load_buffer(json, strlen(json), "c.json", &m, &o, &err),
			     NNS_OK);
	assert_non_null(strstr(err.msg, "cancelled"));
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_categories),
	    cmocka_unit_test(test_timestamps),
	    cmocka_unit_test(test_numbers_every_length),
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_host_args),
	    cmocka_unit_test(test_repr_forms),
	    cmocka_unit_test(test_device_args),
	    cmocka_unit_test(test_memory_flow_counter),
	    cmocka_unit_test(test_top_level),
	    cmocka_unit_test(test_bare_array_and_quirks),
	    cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_real_sample),
	    cmocka_unit_test(test_progress_and_cancel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
