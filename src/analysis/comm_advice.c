/*
 * comm_advice.c - the overview's communication advice (advice.c, id
 * "communication": communication above 10% of the step time), worded for
 * the worker's device kind (an_device_kind):
 *  - GPU (and any other kind): tb_plugin's text (gradient compression /
 *    accumulation, batch size, LAMB), as the conformance data has it;
 *  - NPU (an Ascend device of a MindSpore run): the collectives are HCCL's
 *    and the remedies MindSpore's own settings: all-reduce fusion
 *    (set_auto_parallel_context all_reduce_fusion_config / comm_fusion),
 *    gradient accumulation, and communication overlapped with the backward
 *    pass (graph mode, dataset sink mode). No NCCL, no PyTorch.
 *
 * Contract: each function returns a malloc'ed text the caller frees, NULL
 * when out of memory; pct is the share of the step time in communication,
 * in percent, written with one decimal.
 */
#include "an_advice.h"
#include "common/buf.h"

#include <string.h>

char *comm_advice_gpu(double pct)
{
	return str_printf(
	    "This run has high time cost on communication. %.1f%% of the step time is in "
	    "communication. You could try Gradient Compression or Gradient Accumulation or "
	    "increase the batch size. Note: Gradient accumulation will increase global "
	    "effective batch size, which may hurt model convergence and accuracy. For such "
	    "case, you may want to evaluate LAMB optimizer.",
	    pct);
}

char *comm_advice_npu(double pct)
{
	return str_printf(
	    "This run has high time cost on communication. %.1f%% of the step time is in "
	    "HCCL communication. In MindSpore you could fuse the gradients' all-reduces into "
	    "fewer, larger ones (mindspore.set_auto_parallel_context(all_reduce_fusion_config="
	    "[...]), or comm_fusion), accumulate gradients over several micro-batches before "
	    "each all-reduce (gradient accumulation) or increase the batch size, and let "
	    "communication overlap the backward computation (graph mode with dataset sink "
	    "mode). Note: Gradient accumulation will increase global effective batch size, "
	    "which may hurt model convergence and accuracy "
	    "(https://www.mindspore.cn/tutorials/experts/en/master/parallel/"
	    "comm_fusion.html).",
	    pct);
}

char *comm_advice_text(const char *device_kind, double pct)
{
	if (device_kind && strcmp(device_kind, "NPU") == 0)
		return comm_advice_npu(pct);
	return comm_advice_gpu(pct);
}
