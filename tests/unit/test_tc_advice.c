/*
 * test_tc_advice.c - tensor-core ratios and AMP advice only where the
 * devices can have NVIDIA tensor cores (issue 18, an_tc_support): hand-written
 * Kineto traces of one fp32 GEMM under aten::mm (a tensor-core eligible
 * operator whose kernel is no tensor-core kernel, the case tb_plugin advises
 * AMP on), run on
 *   - AMD: "AMD Instinct MI250X" (HIP reports gfx90a as compute capability
 *     9.0) with hipLaunchKernel; a HIP trace whose device name says nothing;
 *     deviceProperties without a compute capability and MTIA launches;
 *     NVIDIA before Volta (P100, 6.0): no "amp" advice, no mention of mixed
 *     precision or tensor cores in any advice, and the ratios unknown (-1,
 *     null in overview.json and kernels.json) rather than 0;
 *   - NVIDIA A100 (8.0), named by NVIDIA or not (older drivers write
 *     "A100-SXM4-40GB") with CUDA launches: the "amp" advice and a measured
 *     0 ratio;
 *   - no deviceProperties (old Kineto, tb_plugin's conformance traces): the
 *     ratio measured from kernel names, no advice (no compute capability).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "output/output.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* One step, aten::mm launching one fp32 GEMM kernel (800 us) on device 0;
 * a [memory] record allocating 950 of the device's 1000 bytes (the memory
 * advice fires; it names AMP only where tensor cores can exist). DEVPROPS is
 * the deviceProperties member (with its trailing comma) or "". */
#define TRACE(DEVPROPS, RT_CAT, LAUNCH, KERNEL)                                                    \
	"{" DEVPROPS "\"traceEvents\":["                                                           \
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"         \
	"\"tid\":1,\"ts\":0,\"dur\":1000},"                                                        \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"              \
	"\"ts\":10,\"dur\":100,\"args\":{\"External id\":3}},"                                     \
	"{\"ph\":\"X\",\"cat\":\"" RT_CAT "\",\"name\":\"" LAUNCH "\",\"pid\":1,"                  \
	"\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"External id\":3,\"correlation\":3}},"           \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" KERNEL "\",\"pid\":0,\"tid\":7,"            \
	"\"ts\":100,\"dur\":800,\"args\":{\"correlation\":3,\"device\":0,\"stream\":7}},"          \
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":15,"           \
	"\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":4096,\"Bytes\":950,"                 \
	"\"Total Allocated\":950,\"Total Reserved\":1000}}"                                        \
	"]}"

#define DEV(NAME, CC)                                                                              \
	"\"deviceProperties\":[{\"id\":0,\"name\":\"" NAME "\"," CC "\"totalGlobalMem\":1000}],"
#define CC(MAJ, MIN) "\"computeMajor\":" #MAJ ",\"computeMinor\":" #MIN ","

static const char *const AMD_MI250X =
    TRACE(DEV("AMD Instinct MI250X", CC(9, 0)), "cuda_runtime", "hipLaunchKernel",
	  "Cijk_Ailk_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_1LDSB0_GRVW4");
static const char *const AMD_HIP_ONLY =
    TRACE(DEV("Device 740c", CC(9, 0)), "hip_runtime", "hipExtModuleLaunchKernel",
	  "Cijk_Ailk_Bljk_SB_MT64x64x8_SN");
static const char *const NO_CC_MTIA =
    TRACE(DEV("MTIA", ""), "mtia_runtime", "mtiaLaunchKernel", "fused_linear_fp32");
/* MTIA's category with a CUDA-like call name and no deviceProperties: the
 * category decides (model_event_cat), not the name. */
static const char *const MTIA_CAT_ONLY =
    TRACE("", "mtia_runtime", "cudaLaunchKernel", "fused_linear_fp32");
static const char *const P100 = TRACE(DEV("Tesla P100-PCIE-16GB", CC(6, 0)), "cuda_runtime",
				      "cudaLaunchKernel", "maxwell_sgemm_128x64_nn");
static const char *const A100 = TRACE(DEV("NVIDIA A100-SXM4-80GB", CC(8, 0)), "cuda_runtime",
				      "cudaLaunchKernel", "ampere_sgemm_128x64_nn");
static const char *const A100_OLD_NAME = TRACE(DEV("A100-SXM4-40GB", CC(8, 0)), "cuda_runtime",
					       "cudaLaunchKernel", "ampere_sgemm_128x64_nn");
static const char *const NO_DEVPROPS =
    TRACE("", "cuda_runtime", "cudaLaunchKernel", "ampere_sgemm_128x64_nn");

static struct tu_fx *load(const char *json)
{
	struct tu_fx *f = tu_fx_load(json);

	assert_non_null(f);
	return f;
}

/* The advice item with this id, or NULL. */
static const struct an_advice_item *advice(const struct an_profile *p, const char *id)
{
	for (size_t i = 0; i < p->advice.items.n; i++)
		if (strcmp(p->advice.items.v[i].id, id) == 0)
			return &p->advice.items.v[i];
	return NULL;
}

/* 1 when some advice text mentions tensor cores or mixed precision. */
static int any_tc_words(const struct an_profile *p)
{
	for (size_t i = 0; i < p->advice.items.n; i++) {
		const char *t = p->advice.items.v[i].text;

		if (strstr(t, "Tensor Core") || strstr(t, "tensor core") ||
		    strstr(t, "ixed Precision") || strstr(t, "ixed precision"))
			return 1;
	}
	return 0;
}

static void overview_doc(struct jsonw *w, const struct an_profile *p)
{
	out_json_overview(w, p, NULL);
}

/* A device that cannot have NVIDIA tensor cores: no TC/AMP advice, the
 * ratios unknown in the analysis and null in the JSON documents. */
static void check_no_tc(const char *json)
{
	struct tu_fx *f = load(json);
	json_t *ov, *kn, *g;

	assert_int_equal(f->p.tc_support, AN_TC_NONE);
	assert_true(f->p.tc_eligible_ops_kernel_ratio > 0); /* AMP would be advised on CUDA */
	assert_null(advice(&f->p, "amp"));
	assert_non_null(advice(&f->p, "memory")); /* memory advice still given ... */
	assert_false(any_tc_words(&f->p));	  /* ... without AMP */
	assert_true(f->p.kernels.tc_used_ratio < 0);
	assert_int_equal(f->p.gpus.n, 1);
	assert_true(f->p.gpus.v[0].tensor_core_ratio < 0);

	ov = tu_view_json(overview_doc, &f->p);
	assert_non_null(ov);
	g = json_array_get(json_object_get(ov, "gpus"), 0);
	assert_non_null(g);
	assert_true(json_is_null(json_object_get(g, "tensor_core_ratio")));
	json_decref(ov);
	kn = tu_view_json(out_json_kernels, &f->p);
	assert_non_null(kn);
	assert_true(json_is_null(json_object_get(kn, "tc_used_ratio")));
	json_decref(kn);
	tu_fx_free(f);
}

static void test_amd_instinct(void **st)
{
	(void)st;
	check_no_tc(AMD_MI250X);
}

static void test_amd_hip_launches(void **st)
{
	(void)st;
	check_no_tc(AMD_HIP_ONLY);
}

static void test_no_compute_capability_mtia(void **st)
{
	(void)st;
	check_no_tc(NO_CC_MTIA);
}

static void test_mtia_category(void **st)
{
	struct tu_fx *f = load(MTIA_CAT_ONLY);
	(void)st;

	assert_int_equal(f->p.tc_support, AN_TC_NONE);
	assert_null(advice(&f->p, "amp"));
	assert_false(any_tc_words(&f->p));
	tu_fx_free(f);
}

static void test_pre_volta(void **st)
{
	(void)st;
	check_no_tc(P100);
}

/* NVIDIA Volta+: the AMP advice, with the eligible share, and ratio 0. */
static void check_nvidia(const char *json)
{
	struct tu_fx *f = load(json);
	const struct an_advice_item *a;
	json_t *kn;

	assert_int_equal(f->p.tc_support, AN_TC_NVIDIA);
	a = advice(&f->p, "amp");
	assert_non_null(a);
	assert_non_null(strstr(a->text, "100% time are launched by Tensor Cores eligible"));
	assert_non_null(strstr(advice(&f->p, "memory")->text, "automatic mixed precision"));
	assert_true(f->p.kernels.tc_used_ratio == 0.0);
	assert_int_equal(f->p.gpus.n, 1);
	assert_true(f->p.gpus.v[0].tensor_core_ratio == 0.0);
	kn = tu_view_json(out_json_kernels, &f->p);
	assert_non_null(kn);
	assert_true(json_is_number(json_object_get(kn, "tc_used_ratio")));
	json_decref(kn);
	tu_fx_free(f);
}

static void test_nvidia_a100(void **st)
{
	(void)st;
	check_nvidia(A100);
}

static void test_nvidia_unbranded_name_cuda(void **st)
{
	(void)st;
	check_nvidia(A100_OLD_NAME);
}

/* No deviceProperties: the ratio is measured from the kernel names (0 here,
 * a number), no advice without a compute capability. */
static void test_no_device_properties(void **st)
{
	struct tu_fx *f = load(NO_DEVPROPS);
	(void)st;

	assert_int_equal(f->p.tc_support, AN_TC_UNKNOWN);
	assert_null(advice(&f->p, "amp"));
	assert_true(f->p.kernels.tc_used_ratio == 0.0);
	assert_true(f->p.gpus.v[0].tensor_core_ratio == 0.0);
	tu_fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_amd_instinct),
	    cmocka_unit_test(test_amd_hip_launches),
	    cmocka_unit_test(test_no_compute_capability_mtia),
	    cmocka_unit_test(test_mtia_category),
	    cmocka_unit_test(test_pre_volta),
	    cmocka_unit_test(test_nvidia_a100),
	    cmocka_unit_test(test_nvidia_unbranded_name_cuda),
	    cmocka_unit_test(test_no_device_properties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
