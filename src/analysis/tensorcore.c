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
#include "an_tensorcore.h"
#include "analysis.h"

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
	for (size_t i = 0; i < m->events.n && !ev->amd; i++) {
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

	if (ev->amd || ev->accel || (ev->launches && !ev->cuda))
		return AN_TC_NONE;
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
