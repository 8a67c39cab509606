/*
 * test_comm_advice.c - the overview's communication advice worded per
 * device kind (issue 22 part 2, comm_advice.c):
 *   - comm_advice_text("NPU"): HCCL and MindSpore's settings (all-reduce
 *     fusion, gradient accumulation, overlap in graph / sink mode), never
 *     NCCL, PyTorch or LAMB;
 *   - "GPU", another kind or none: tb_plugin's text, word for word;
 *   - through an_profile_compute on a hand-written trace (one step of
 *     1000 us, an all-reduce of 400 us: 40.0% communication, above the 10%
 *     threshold): the "communication" item is the NPU text when the model's
 *     device_kind is NPU and tb_plugin's otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_advice.h"
#include "analysis/analysis.h"
#include "importers/kineto.h"

static const char *TB_TEXT =
    "This run has high time cost on communication. 36.1% of the step time is in "
    "communication. You could try Gradient Compression or Gradient Accumulation or increase "
    "the batch size. Note: Gradient accumulation will increase global effective batch size, "
    "which may hurt model convergence and accuracy. For such case, you may want to evaluate "
    "LAMB optimizer.";

static void assert_npu_text(const char *t, const char *pct)
{
	char want[96];

	snprintf(want, sizeof(want), "%s of the step time is in HCCL communication", pct);
	assert_non_null(strstr(t, want));
	assert_non_null(strstr(t, "In MindSpore"));
	assert_non_null(strstr(t, "all_reduce_fusion_config"));
	assert_non_null(strstr(t, "comm_fusion"));
	assert_non_null(strstr(t, "gradient accumulation"));
	assert_non_null(strstr(t, "dataset sink mode"));
	assert_null(strstr(t, "NCCL"));
	assert_null(strstr(t, "Nccl"));
	assert_null(strstr(t, "pytorch"));
	assert_null(strstr(t, "LAMB"));
}

static void test_wording_per_kind(void **st)
{
	char *t;

	(void)st;
	t = comm_advice_text("NPU", 36.06);
	assert_non_null(t);
	assert_npu_text(t, "36.1%");
	free(t);
	t = comm_advice_npu(12.34);
	assert_npu_text(t, "12.3%");
	free(t);
	/* GPU, another kind, none: tb_plugin's text */
	t = comm_advice_text("GPU", 36.06);
	assert_string_equal(t, TB_TEXT);
	free(t);
	t = comm_advice_text("MTIA", 36.06);
	assert_string_equal(t, TB_TEXT);
	free(t);
	t = comm_advice_text(NULL, 36.06);
	assert_string_equal(t, TB_TEXT);
	assert_null(strstr(t, "HCCL"));
	free(t);
}

/* One step 0..1000 us; an all-reduce 100..500 us (communication 400 us),
 * a compute kernel 600..700 us. */
static const char *TRACE =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
    "\"tid\":1,\"ts\":0,\"dur\":1000},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"AllReduce-op3\",\"pid\":0,\"tid\":7,"
    "\"ts\":100,\"dur\":400,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"MatMul-op1\",\"pid\":0,\"tid\":5,"
    "\"ts\":600,\"dur\":100,\"args\":{\"device\":0,\"stream\":5}}]}";

/* The text of the "communication" item for a model of device kind kind
 * (NULL: none set); caller frees. */
static char *comm_item(const char *kind)
{
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;
	struct model m;
	struct an_profile p;
	char *text = NULL;

	nns_err_clear(&err);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_buffer(TRACE, strlen(TRACE), "c.json", &m, &o, &err), NNS_OK);
	if (kind)
		assert_int_equal(model_add_meta(&m, "device_kind", kind), 0);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.overview.steps.n, 1);
	for (size_t i = 0; i < p.advice.items.n; i++)
		if (strcmp(p.advice.items.v[i].id, "communication") == 0)
			text = strdup(p.advice.items.v[i].text);
	an_profile_release(&p);
	model_release(&m);
	assert_non_null(text);
	return text;
}

static void test_overview_advice(void **st)
{
	char *t;

	(void)st;
	t = comm_item("NPU");
	assert_npu_text(t, "40.0%");
	free(t);
	t = comm_item(NULL);
	assert_non_null(strstr(t, "40.0% of the step time is in communication. You could try "
				  "Gradient Compression"));
	assert_null(strstr(t, "HCCL"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wording_per_kind),
	    cmocka_unit_test(test_overview_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
