/*
 * advice.c - recommendations with their evidence numbers: tb_plugin's seven
 * rules (reference §1.13), in its emission order, then the data-pipeline
 * and CPU recommendations that datapipe.c and cpuutil.c prepared. Texts are plain text
 * (tb_plugin embedded HTML links; the links are given in parentheses).
 * Tensor-core / AMP advice only where the devices can have NVIDIA tensor
 * cores (an_tc_support): never on AMD, MTIA or pre-Volta traces.
 * On an NPU (an Ascend device of a MindSpore run: an_device_is_npu) no GPU
 * advice (utilization / batch size, AMP, GPU memory, NCCL, DataParallel);
 * an_advice_add_ms adds MindInsight's proposers' advice instead once the
 * MindSpore files are read (an_ms_attach). The communication advice is
 * worded per device kind (comm_advice.c: HCCL and MindSpore on an NPU).
 */
#include "an_advice.h"
#include "an_gpu.h"
#include "an_ms.h"
#include "an_tensorcore.h"
#include "analysis.h"
#include "names.h"
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct an_profile *p, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends text (malloc'ed, NULL: out of memory), which it takes. */
static int add_text(struct an_profile *p, const char *id, char *text)
{
	struct an_advice_item it;

	memset(&it, 0, sizeof(it));
	snprintf(it.id, sizeof(it.id), "%s", id);
	it.text = text;
	if (!it.text || vec_push(&p->advice.items, it)) {
		free(text);
		return NNS_ENOMEM;
	}
	return 0;
}

static int add(struct an_profile *p, const char *id, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	return add_text(p, id, text);
}

static void scan_usage(struct an_profile *p)
{
	const struct model *m = p->m;
	uint32_t pids[64];
	int npids = 0;
	size_t i;

	for (i = 0;
	     i < m->events.n &&
	     (m->kinds & (MODEL_KB_DEVICE | MODEL_KB(MK_CPU_OP) | MODEL_KB(MK_USER_ANNOTATION)));
	     i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_device(e->kind)) {
			/* a device, not a pid: a MindSpore device's AI Core and
			 * communication rows are one device under two pids */
			int dev = model_event_device(m, (uint32_t)i);
			uint32_t pid =
			    dev >= 0 ? (uint32_t)dev : 0x80000000u | m->threads.v[e->thread].pid;
			int k, found = 0;
			for (k = 0; k < npids && !found; k++)
				found = pids[k] == pid;
			if (!found && npids < 64)
				pids[npids++] = pid;
		} else if (e->kind == MK_CPU_OP || e->kind == MK_USER_ANNOTATION) {
			unsigned f = an_name_flags(p, e->name);
			if (f & AN_NAME_DP)
				p->use_dp = 1;
			else if (f & AN_NAME_DDP)
				p->use_ddp = 1;
			else if ((f & AN_NAME_COMM) &&
				 strncmp(model_str(m, e->name), "nccl:", 5) == 0)
				p->use_nccl = 1;
		}
	}
	p->devices_used = npids;
}

/* DDP without NCCL: NCCL advised where a device can run it (compute
 * capability >= 3.5). */
static int nccl_advice(struct an_profile *p)
{
	const struct model *m = p->m;
	int cc35 = 0;

	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].major * 10 + m->devices.v[i].minor >= 35)
			cc35 = 1;
	if (!cc35)
		return 0;
	return add(p, "nccl",
		   "Nccl backend is currently the fastest and highly recommended backend "
		   "when using DDP for training "
		   "(https://pytorch.org/docs/stable/"
		   "distributed.html#which-backend-to-use).");
}

/* The first GPU whose allocated memory peaked above 90% of its capacity. */
static int memory_advice(struct an_profile *p)
{
	for (size_t i = 0; i < p->memory.devices.n; i++) {
		const struct an_mem_device *d = &p->memory.devices.v[i];
		const struct model_device *dev;
		if (d->device_type != 1 || d->peak_allocated < 0)
			continue;
		dev = model_device_by_id(p->m, d->device_id);
		if (!dev || dev->total_mem <= 0 ||
		    (double)d->peak_allocated <= 0.9 * (double)dev->total_mem)
			continue;
		return add(
		    p, "memory",
		    "Device memory usage is at the limit of device memory capacity (%.1f%% of "
		    "%.1f GB on GPU%d). To get better value of huge batch size, you could try "
		    "gradient checkpointing%s to save memory.",
		    100.0 * (double)d->peak_allocated / (double)dev->total_mem,
		    (double)dev->total_mem / (1024.0 * 1024 * 1024), d->device_id,
		    p->tc_support == AN_TC_NONE ? "" : " or automatic mixed precision");
	}
	return 0;
}

int an_advice_compute(struct an_profile *p, struct nns_err *err)
{
	const struct an_overview *o = &p->overview;
	double total = o->avg_total;
	size_t i;
	int rc = 0;

	int npu = an_device_is_npu(p->m);

	scan_usage(p);
	if (total > 0 && o->avg[AN_DATALOADER] / total > 0.05)
		rc |= add(
		    p, "dataloader",
		    "This run has high time cost on input data loading. %.1f%% of the step time "
		    "is in DataLoader. You could try to set num_workers on DataLoader's "
		    "construction and enable multi-processes on data loading "
		    "(https://pytorch.org/docs/stable/"
		    "data.html#single-and-multi-process-data-loading).",
		    100.0 * o->avg[AN_DATALOADER] / total);
	if (p->use_dp && p->devices_used > 1 && !npu)
		rc |= add(
		    p, "ddp",
		    "It is recommended to use DistributedDataParallel instead of DataParallel to "
		    "do multi-GPU training (%d devices used). "
		    "(https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead)",
		    p->devices_used);
	if (p->use_ddp && !p->use_nccl && !npu)
		rc |= nccl_advice(p);
	if (total > 0 && o->avg[AN_COMM] / total > 0.1)
		rc |= add_text(
		    p, "communication",
		    comm_advice_text(an_device_kind(p->m), 100.0 * o->avg[AN_COMM] / total));
	for (i = 0; i < p->gpus.n && !npu; i++)
		if (p->gpus.v[i].utilization < 0.5)
			rc |= add(
			    p, "gpu_utilization",
			    "GPU %d has low utilization (%.1f%%). You could try to increase batch "
			    "size to improve. Note: Increasing batch size may affect the speed and "
			    "stability of model convergence.",
			    p->gpus.v[i].id, 100.0 * p->gpus.v[i].utilization);
	/* tensor cores only where they can exist: an NVIDIA device of
	 * compute capability >= 7.0 (not AMD, MTIA, pre-Volta: an_tc_support) */
	if (!npu && p->tc_support == AN_TC_NVIDIA && p->kernels.tc_used_ratio == 0.0 &&
	    p->tc_eligible_ops_kernel_ratio > 0)
		rc |= add(
		    p, "amp",
		    "Kernels with %.0f%% time are launched by Tensor Cores eligible operators. You "
		    "could enable Automatic Mixed Precision to speedup by using FP16 "
		    "(https://pytorch.org/docs/stable/amp.html).",
		    100.0 * p->tc_eligible_ops_kernel_ratio);
	if (!npu)
		rc |= memory_advice(p);
	/* data pipeline and CPU (datapipe.c, cpuutil.c: texts with evidence) */
	if (p->datapipe.recommendation)
		rc |= add(p, "data_pipeline", "%s", p->datapipe.recommendation);
	if (p->cpu.recommendation)
		rc |= add(p, "cpu", "%s", p->cpu.recommendation);
	if (rc)
		return nns_err_set(err, NNS_ENOMEM, "out of memory while writing advice");
	return NNS_OK;
}

/* MindInsight's proposers on a MindSpore device (docs/MINDSPORE.md
 * "Proposals"): the step_trace proposer (average iteration interval above
 * 0.5 ms) and the MindData proposers, with their ids, after the generic
 * advice. */
int an_advice_add_ms(struct an_profile *p, const struct ms_profile *mp, struct nns_err *err)
{
	int rc = 0;

	if (!mp)
		return NNS_OK;
	if (mp->sum_rc == NNS_OK && mp->sum.interval_ms > 0.5)
		rc |= add(p, "step_trace-iter_interval",
			  "The average iteration interval is %.4f ms (%.2f%% of the step), above "
			  "0.5 ms: the path from data processing to the computational graph can be "
			  "optimized (graph mode and dataset sink mode; see the data pipeline).",
			  mp->sum.interval_ms, mp->sum.interval_pct);
	if (mp->md_result.prop_rc == NNS_OK)
		for (size_t i = 0; i < mp->md_result.props.v.n; i++) {
			const struct ms_md_proposal *x = &mp->md_result.props.v.v[i];

			rc |= add(p, x->id, "%s", x->text);
		}
	if (rc)
		return nns_err_set(err, NNS_ENOMEM, "out of memory while writing advice");
	return NNS_OK;
}
