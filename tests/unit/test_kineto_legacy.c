/*
 * test_kineto_legacy.c - unit tests of torch.profiler's legacy
 * export_chrome_trace format (PyTorch without Kineto: a bare array, no
 * "cat"; kineto_note.c): CPU functions are read as operators, CUDA
 * functions as kernels on the device their tid names, the launch arrows as
 * flows, and m->diag.note says the format and what it lacks, the same for a
 * serial and a parallel parse; a bare array of events no analysis can use
 * gets a note too, and a Kineto trace none. The real file torch 1.13 wrote
 * is tests/e2e/partial_input.sh's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "importers/kineto_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(struct model *m, const char *json, size_t n, struct nns_err *err)
{
	struct kineto_opts o = {.threads = 1};

	assert_int_equal(model_init(m), NNS_OK);
	return kineto_load_buffer(json, n, "legacy.json", m, &o, err);
}

static const struct model_event *find(const struct model *m, const char *name, size_t nth)
{
	for (size_t i = 0; i < m->events.n; i++)
		if (strcmp(model_str(m, m->events.v[i].name), name) == 0 && nth-- == 0)
			return &m->events.v[i];
	return NULL;
}

static size_t count_kind(const struct model *m, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < m->events.n; i++)
		n += m->events.v[i].kind == kind;
	return n;
}

/* PyTorch 1.5-1.7 with use_cuda=True, as profiler.py's export_chrome_trace
 * wrote it: the op, then per kernel an "s" (CPU side), an "f" and an "X"
 * on "CUDA functions" whose tid is the device. */
static const char LEGACY_CUDA[] =
    "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 100.5, \"dur\": 40, \"tid\": 7, "
    "\"pid\": \"CPU functions\", \"args\": {}}, "
    "{\"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": 100.5, \"tid\": 7, \"pid\": \"CPU "
    "functions\", \"id\": 0, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
    "{\"name\": \"volta_sgemm_128x64_nn\", \"ph\": \"f\", \"ts\": 130, \"tid\": 1, \"pid\": "
    "\"CUDA functions\", \"id\": 0, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
    "{\"name\": \"volta_sgemm_128x64_nn\", \"ph\": \"X\", \"ts\": 130, \"dur\": 25, \"tid\": 1, "
    "\"pid\": \"CUDA functions\", \"args\": {}}, "
    "{\"name\": \"aten::relu\", \"ph\": \"X\", \"ts\": 150, \"dur\": 8, \"tid\": 7, \"pid\": "
    "\"CPU functions\", \"args\": {}}, "
    "{\"name\": \"aten::relu\", \"ph\": \"s\", \"ts\": 150, \"tid\": 7, \"pid\": \"CPU "
    "functions\", \"id\": 1, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
    "{\"name\": \"relu_kernel\", \"ph\": \"f\", \"ts\": 160, \"tid\": 1, \"pid\": \"CUDA "
    "functions\", \"id\": 1, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
    "{\"name\": \"relu_kernel\", \"ph\": \"X\", \"ts\": 160, \"dur\": 3, \"tid\": 1, \"pid\": "
    "\"CUDA functions\", \"args\": {}}]";

static void test_cpu_ops_and_kernels(void **state)
{
	const struct model_event *mm, *k;
	struct nns_err err;
	struct model m;

	(void)state;
	nns_err_clear(&err);
	assert_int_equal(load(&m, LEGACY_CUDA, sizeof(LEGACY_CUDA) - 1, &err), NNS_OK);
	assert_int_equal(m.events.n, 4);
	assert_int_equal(count_kind(&m, MK_CPU_OP), 2);
	assert_int_equal(count_kind(&m, MK_KERNEL), 2);
	assert_int_equal(count_kind(&m, MK_OTHER), 0);
	mm = find(&m, "aten::mm", 0);
	assert_non_null(mm);
	assert_int_equal(mm->kind, MK_CPU_OP);
	assert_int_equal(mm->ts, 100500);
	assert_int_equal(mm->dur, 40000);
	assert_string_equal(model_str(&m, m.threads.v[mm->thread].pid), "CPU functions");
	assert_string_equal(model_str(&m, m.threads.v[mm->thread].tid), "7");
	k = find(&m, "volta_sgemm_128x64_nn", 0);
	assert_non_null(k);
	assert_int_equal(k->kind, MK_KERNEL);
	assert_int_equal(k->device, 1); /* the tid */
	assert_int_equal(k->ts, 130000);
	assert_int_equal(k->dur, 25000);
	assert_int_equal(m.flows.n, 4);
	assert_int_equal(m.diag.unknown_cats[0].count, 0);
	assert_string_equal(
	    m.diag.note,
	    "legacy.json: the legacy torch.profiler format (export_chrome_trace without Kineto: "
	    "events without \"cat\"): read 2 CPU op(s) as operators and 2 kernel(s); it has no "
	    "steps (the whole trace is one step), no CUDA runtime events (kernels are not tied to "
	    "the operators that launched them), no input shapes or memory events; "
	    "torch.profiler.profile with Kineto writes all of these");
	model_release(&m);
}

/* PyTorch 1.8 .. 1.13 with use_cuda: the launch arrows without kernels */
static void test_launches_without_kernels(void **state)
{
	static const char doc[] =
	    "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1, \"dur\": 4, \"tid\": 3, \"pid\": "
	    "\"CPU functions\", \"args\": {}}, {\"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": 1, "
	    "\"tid\": 3, \"pid\": \"CPU functions\", \"id\": 0, \"cat\": \"cpu_to_cuda\", "
	    "\"args\": {}}, {\"name\": \"aten::add\", \"ph\": \"X\", \"ts\": 6, \"dur\": 2, "
	    "\"tid\": "
	    "\" node_id:0, thread_id:3 \", \"pid\": \"CPU functions\", \"args\": {}}]";
	struct nns_err err;
	struct model m;

	(void)state;
	assert_int_equal(load(&m, doc, sizeof(doc) - 1, &err), NNS_OK);
	assert_int_equal(count_kind(&m, MK_CPU_OP), 2); /* the remote one too */
	assert_non_null(strstr(m.diag.note, "read 2 CPU op(s) as operators and no kernels (the "
					    "file holds 1 launch arrow(s) but not their kernels)"));
	model_release(&m);
}

/* The same document, large enough to be split between threads: the same
 * rows and the same note as a serial parse. */
static void test_parallel_same_note(void **state)
{
	struct kineto_opts o = {.threads = 4};
	struct nns_err err;
	struct model ser, par;
	struct ksrc src;
	struct buf b;
	char want[NNS_ERR_MSG_MAX];

	(void)state;
	memset(&b, 0, sizeof(b));
	assert_int_equal(buf_printf(&b, "["), 0);
	for (int i = 0; i < 4000; i++)
		assert_int_equal(
		    buf_printf(&b,
			       "%s{\"name\": \"aten::op%d\", \"ph\": \"X\", \"ts\": %d, "
			       "\"dur\": 3, \"tid\": %d, \"pid\": \"%s functions\", "
			       "\"args\": {}}",
			       i ? ", " : "", i % 7, i * 5, i % 3 ? 1 : 0, i % 3 ? "CPU" : "CUDA"),
		    0);
	assert_int_equal(buf_printf(&b, "]"), 0);
	assert_int_equal(load(&ser, b.p, b.len, &err), NNS_OK);
	assert_int_equal(model_init(&par), NNS_OK);
	ksrc_mem(&src, b.p, b.len, 0, "legacy.json");
	assert_int_equal(kineto_parse_source(&src, (int64_t)b.len, 1, "legacy.json", &par, &o, 4096,
					     1, NULL, &err),
			 NNS_OK);
	ksrc_close(&src);
	assert_int_equal(par.events.n, 4000);
	assert_int_equal(count_kind(&par, MK_CPU_OP), 2666);
	assert_int_equal(count_kind(&par, MK_KERNEL), 1334);
	snprintf(want, sizeof(want), "%s", ser.diag.note);
	assert_non_null(strstr(want, "read 2666 CPU op(s) as operators and 1334 kernel(s)"));
	assert_string_equal(par.diag.note, want);
	model_release(&ser);
	model_release(&par);
	buf_free(&b);
}

/* A bare array no analysis can use: said, not read as an empty profile. */
static void test_plain_ranges_note(void **state)
{
	static const char doc[] =
	    "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 4, \"tid\": 3, \"pid\": 9}, "
	    "{\"name\": \"b\", \"ph\": \"X\", \"ts\": 6, \"dur\": 2, \"tid\": 3, \"pid\": 9, "
	    "\"cat\": \"overhead\"}]";
	struct nns_err err;
	struct model m;

	(void)state;
	assert_int_equal(load(&m, doc, sizeof(doc) - 1, &err), NNS_OK);
	assert_int_equal(count_kind(&m, MK_OTHER), 2);
	assert_string_equal(m.diag.note,
			    "legacy.json: none of the 2 complete event(s) has a \"cat\" that "
			    "nnscope analyses (cpu_op, kernel, cuda_runtime, ...): they are kept "
			    "as plain ranges on the timeline, and the tables are empty");
	model_release(&m);
}

/* Kineto traces (and unknown categories, which are said elsewhere): no note */
static void test_kineto_no_note(void **state)
{
	static const char kineto[] =
	    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
	    "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}, {\"ph\": \"X\", \"name\": \"x\", "
	    "\"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 2}]}";
	static const char unknown[] = "[{\"ph\": \"X\", \"cat\": \"my_cat\", \"name\": \"a\", "
				      "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]";
	struct nns_err err;
	struct model m;

	(void)state;
	assert_int_equal(load(&m, kineto, sizeof(kineto) - 1, &err), NNS_OK);
	assert_string_equal(m.diag.note, "");
	assert_int_equal(count_kind(&m, MK_CPU_OP), 1);
	model_release(&m);
	assert_int_equal(load(&m, unknown, sizeof(unknown) - 1, &err), NNS_OK);
	assert_string_equal(m.diag.note, "");
	assert_int_equal(m.diag.unknown_cats[0].count, 1);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_ops_and_kernels),
	    cmocka_unit_test(test_launches_without_kernels),
	    cmocka_unit_test(test_parallel_same_note),
	    cmocka_unit_test(test_plain_ranges_note),
	    cmocka_unit_test(test_kineto_no_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
