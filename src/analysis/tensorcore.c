/*
 * tensorcore.c - which kernels use Tensor Cores and which operators could.
 *
 * Kernel names: tb_plugin's PyProf-derived substrings (Volta/Turing), kept
 * current for Ampere, Hopper and Blackwell library kernels: cuBLAS/cuDNN
 * "xmma"/"s16816"/"tf32" families, CUTLASS "tensorop", Hopper warpgroup MMA
 * ("wgmma", "gmma"), Blackwell "tcgen05"/"umma", cuBLAS "nvjet" kernels,
 * FlashAttention and fused MHA.
 *
 * CUDA-core kernels never count, whatever else their name holds: CUTLASS
 * "simt" kernels, cuBLAS/xmma kernels whose math is "ffma"/"dfma"/"hfma2"
 * (fp32 FMA on CUDA cores), and plain "sgemm"/"dgemm"/"gemv" kernels unless
 * a tensor-core marker ("tensorop", "hmma", "xmma", "wgmma", "1688",
 * "16816", "tf32", "dmma", ...) says otherwise (ampere_sgemm_128x64_nn,
 * volta_sgemm, cutlass_80_simt_sgemm ... are CUDA-core kernels).
 * Operators: tb_plugin's allow-list (autocast_mode.cpp), plus the PyTorch 2.x
 * spellings of the same ops and the attention/scaled-mm ops.
 *
 * Which devices can have NVIDIA tensor cores at all (an_tc_support): the
 * patterns above are NVIDIA's library names, so on AMD (HIP/ROCm: matrix
 * cores under other names), MTIA and other accelerators, and NVIDIA before
 * Volta, a ratio of 0 would read as measured and AMP advice as founded;
 * there the ratios are unknown and the advice is left out.
 */
#include "an_gpu.h"
#include "an_tensorcore.h"
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

static const char *const tc_kernel_patterns[] = {
    /* tb_plugin / PyProf */
    "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
    "c1688",
    /* Ampere and later */
    "xmma_", "tensorop", "s1616", "h1616", "16832", "i16832", "imma", "_tf32", "tf32_", "bf16_s",
    "wgmma", "gmma_", "nvjet", "flash_fwd", "flash_bwd", "fmha", "sm90_gemm", "sm80_gemm",
    "sm100_gemm", "hgemm_tensor", "gemm_f16_tc", "dmma", "tcgen05", "umma_", NULL};

/* CUDA-core math: never a tensor-core kernel. */
static const char *const cuda_core_markers[] = {"simt",	 "_ffma", "ffma_", "_dfma",
						"dfma_", "hfma2", NULL};

/* Names of CUDA-core GEMMs, unless a tensor-core marker is present too. */
static const char *const cuda_core_gemms[] = {"sgemm", "dgemm", "gemv", "gemmSN", "gemmk1", NULL};
static const char *const strong_tc_markers[] = {"tensorop", "hmma",  "xmma",	"wgmma", "gmma",
						"1688",	    "16816", "h884",	"s884",	 "tf32",
						"dmma",	    "imma",  "tcgen05", NULL};

static int has_any(const char *name, const char *const *pats)
{
	size_t i;

	for (i = 0; pats[i]; i++)
		if (strstr(name, pats[i]))
			return 1;
	return 0;
}

static const char *const tc_ops[] = {
    /* tb_plugin TC_OP_Allowlist */
    "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
    "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm",
    "aten::mv", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm", "aten::chain_matmul",
    "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell",
    "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
    "CudnnConvolutionBackward", "BmmBackward0", "aten::cudnn_convolution_transpose_backward",
    "CudnnConvolutionTransposeBackward", "MmBackward", "aten::cudnn_convolution_backward_weight",
    "aten::addmm_", "AddmvBackward", "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
    "aten::cudnn_convolution_backward_input", "AddbmmBackward", "aten::cudnn_convolution_backward",
    /* PyTorch 2.x */
    "aten::convolution_backward", "ConvolutionBackward0", "CudnnConvolutionBackward0",
    "AddmmBackward0", "MmBackward0", "AddmvBackward0", "MvBackward0", "AddbmmBackward0",
    "BaddbmmBackward0", "LinearBackward0", "aten::_scaled_mm", "aten::_addmm_activation",
    "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
    "aten::_flash_attention_forward", "aten::_flash_attention_backward",
    "aten::_efficient_attention_forward", "aten::_efficient_attention_backward",
    "ScaledDotProductFlashAttentionBackward0", "ScaledDotProductEfficientAttentionBackward0", NULL};

int an_tc_kernel(const char *name)
{
	if (has_any(name, cuda_core_markers))
		return 0;
	if (has_any(name, cuda_core_gemms) && !has_any(name, strong_tc_markers))
		return 0;
	return has_any(name, tc_kernel_patterns);
}

int an_tc_op_eligible(const char *name)
{
	size_t i;

	for (i = 0; tc_ops[i]; i++)
		if (strcmp(name, tc_ops[i]) == 0)
			return 1;
	return 0;
}

/* ---- which devices can have tensor cores ----------------------------------- */

static int amd_device_name(const char *n)
{
	return strstr(n, "AMD") || strstr(n, "Instinct") || strstr(n, "Radeon");
}

static int nvidia_device_name(const char *n)
{
	static const char *const pats[] = {"NVIDIA", "Tesla", "GeForce", "Quadro", "TITAN", NULL};

	return has_any(n, pats);
}

/* cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, cuModuleLoad ... */
static int cuda_launch_name(const char *n)
{
	return strncmp(n, "cuda", 4) == 0 ||
	       (n[0] == 'c' && n[1] == 'u' && n[2] >= 'A' && n[2] <= 'Z');
}

void an_tc_scan(const struct model *m, struct an_tc_evidence *ev)
{
	uint32_t last = MODEL_NOIDX;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].name && amd_device_name(model_str(m, m->devices.v[i].name)))
			ev->amd = 1;
	for (size_t i = 0; i < m->events.n && !ev->amd && (m->kinds & MODEL_KB_LAUNCH); i++) {
		const struct model_event *e = &m->events.v[i];
		const char *n;

		if (e->kind != MK_RUNTIME && e->kind != MK_DRIVER)
			continue;
		ev->launches = 1;
		/* the source's own category (model_event_cat): hip_runtime,
		 * mtia_runtime, xpu_runtime... name the accelerator whatever
		 * the call is named */
		if (e->flags & MODEL_EF_SRCCAT) {
			if (strncmp(model_event_cat(m, (uint32_t)i), "hip_", 4) == 0)
				ev->amd = 1;
			else
				ev->accel = 1;
		}
		if (e->name == last) /* the same call as before: nothing new */
			continue;
		last = e->name;
		n = model_str(m, e->name);
		if (strncmp(n, "hip", 3) == 0)
			ev->amd = 1;
		else if (!ev->cuda && cuda_launch_name(n))
			ev->cuda = 1;
	}
}

/* One device's verdict from its properties (cc 0.0: none given). */
static int device_support(const struct model *m, const struct model_device *d,
			  const struct an_tc_evidence *ev)
{
	const char *name = d->name ? model_str(m, d->name) : "";

	if (d->major < 7 || amd_device_name(name))
		return AN_TC_NONE;
	if (nvidia_device_name(name) || ev->cuda)
		return AN_TC_NVIDIA;
	return AN_TC_UNKNOWN;
}

int an_tc_support(const struct model *m, const struct an_tc_evidence *ev, int device)
{
	int verdict = AN_TC_NONE;

	if (ev->amd || ev->accel || (ev->launches && !ev->cuda) || an_device_is_npu(m))
		return AN_TC_NONE; /* an Ascend NPU has no tensor cores either */
	if (device >= 0) {
		const struct model_device *d = model_device_by_id(m, device);

		if (d)
			return device_support(m, d, ev);
	}
	if (m->devices.n == 0)
		return AN_TC_UNKNOWN;
	/* the trace: NVIDIA when one of its devices is */
	for (size_t i = 0; i < m->devices.n; i++) {
		int v = device_support(m, &m->devices.v[i], ev);

		if (v == AN_TC_NVIDIA)
			return v;
		if (v == AN_TC_UNKNOWN)
			verdict = v;
	}
	return verdict;
}

/* ---- AN_PASS_TENSORCORE: the shares of kernel time on tensor cores ---------- */

/* Self kernel time of the "bottom" tensor-core-eligible operators (no
 * eligible descendant) over the self kernel time of all operators. */
static int eligible_ratio(struct an_profile *p, double *out)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	int64_t *kself = calloc(t->nodes.n + 1, sizeof(int64_t));
	uint8_t *desc = calloc(t->nodes.n + 1, 1);
	int64_t all = 0, elig = 0;
	size_t i;

	if (!kself || !desc) {
		free(kself);
		free(desc);
		return NNS_ENOMEM;
	}
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		uint32_t node = an_owner(t, i);
		if (m->events.v[i].kind == MK_KERNEL && node != MODEL_NOIDX &&
		    model_launch_of(m, i) != MODEL_NOIDX)
			kself[node] += m->events.v[i].dur;
	}
	for (i = t->nodes.n; i-- > 0;) {
		const struct an_node *n = &t->nodes.v[i];
		if (n->parent != MODEL_NOIDX && (n->tc_eligible || desc[i]))
			desc[n->parent] = 1;
	}
	for (i = 0; i < t->nodes.n; i++) {
		const struct an_node *n = &t->nodes.v[i];
		if (n->type != AN_NODE_OP)
			continue;
		all += kself[i];
		if (n->tc_eligible && !desc[i])
			elig += kself[i];
	}
	free(kself);
	free(desc);
	*out = all > 0 ? (double)elig / (double)all : 0;
	return NNS_OK;
}

/* The row of device in t->devices, t->devices.n if none. */
static size_t find_device(const struct an_tc *t, int device)
{
	size_t i;

	for (i = 0; i < t->devices.n && t->devices.v[i].device != device; i++)
		;
	return i;
}

int an_tensorcore_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct an_tc *t = &p->tc;
	size_t i, k;

	an_tc_scan(m, &p->tc_ev);
	p->tc_support = an_tc_support(m, &p->tc_ev, -1);
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		const struct model_event *e = &m->events.v[i];
		struct an_tc_device *d;
		uint32_t node;
		int tc, dev;

		if (e->kind != MK_KERNEL)
			continue;
		tc = an_tc_kernel_id(p, e->name);
		t->kernel_time += e->dur;
		if (tc)
			t->tc_time += e->dur;
		node = p->tree.owner ? an_owner(&p->tree, i) : MODEL_NOIDX;
		if (node == MODEL_NOIDX || p->tree.nodes.v[node].type != AN_NODE_OP)
			continue;
		dev = model_event_device(m, (uint32_t)i);
		dev = dev >= 0 ? dev : 0; /* the GPU view's device */
		k = find_device(t, dev);
		if (k == t->devices.n) {
			struct an_tc_device z = {dev, 0, 0};

			if (vec_push(&t->devices, z))
				return nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
		d = &t->devices.v[k];
		d->kernel_time += e->dur;
		if (tc)
			d->tc_time += e->dur;
	}
	/* AMD, MTIA, pre-Volta: unknown, not a measured 0 */
	if (p->tc_support == AN_TC_NONE)
		t->used_ratio = -1;
	else
		t->used_ratio =
		    t->kernel_time > 0 ? (double)t->tc_time / (double)t->kernel_time : 0;
	if (eligible_ratio(p, &t->eligible_ops_kernel_ratio))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	p->tc_eligible_ops_kernel_ratio = t->eligible_ops_kernel_ratio;
	return NNS_OK;
}

double an_tc_device_ratio(const struct an_profile *p, int device)
{
	size_t k = find_device(&p->tc, device);
	const struct an_tc_device *d = k < p->tc.devices.n ? &p->tc.devices.v[k] : NULL;

	if (p->tc_support == AN_TC_NONE || an_tc_support(p->m, &p->tc_ev, device) == AN_TC_NONE)
		return -1;
	return d && d->kernel_time > 0 ? (double)d->tc_time / (double)d->kernel_time : 0;
}
