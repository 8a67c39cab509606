/*
 * an_tensorcore.h - which kernels run on tensor cores and which devices
 * can have them (tensorcore.c): the evidence the kernel, GPU and advice
 * passes read.
 */
#ifndef NNS_ANALYSIS_AN_TENSORCORE_H
#define NNS_ANALYSIS_AN_TENSORCORE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* Returns 1 if the kernel name looks like a tensor-core kernel. */
int an_tc_kernel(const char *name);

/* Whether the devices of a trace can have NVIDIA tensor cores
 * (tensorcore.c), which decides the tensor-core ratios and the AMP advice:
 *   AN_TC_NONE    AMD (device names with "AMD"/"Instinct"/"Radeon", HIP
 *                 launches hip*), other accelerators (launches but none
 *                 from CUDA: MTIA, XPU ...), deviceProperties without a
 *                 CUDA compute capability, or NVIDIA before Volta (< 7.0):
 *                 ratios unknown (-1, written as null), no TC/AMP advice;
 *   AN_TC_NVIDIA  a device of compute capability >= 7.0 named by NVIDIA, or
 *                 unnamed / named otherwise in a trace with CUDA launches;
 *   AN_TC_UNKNOWN neither (no deviceProperties: old Kineto, hand-written
 *                 traces): ratios from kernel names, no advice. */
enum an_tc_support { AN_TC_UNKNOWN = 0, AN_TC_NONE, AN_TC_NVIDIA };
/* What the trace's devices and launches say (an_tc_scan: one pass). */
struct an_tc_evidence {
	int amd;      /* an AMD device name or a HIP launch */
	int accel;    /* a launch of another accelerator's category (mtia_runtime...) */
	int launches; /* runtime/driver events */
	int cuda;     /* ... of which one is a CUDA call */
};
void an_tc_scan(const struct model *m, struct an_tc_evidence *ev);
/* The trace as a whole (device < 0), or the device with that id: NONE when
 * the trace is, else from that device's properties when it has any. */
int an_tc_support(const struct model *m, const struct an_tc_evidence *ev, int device);
/* Returns 1 if the operator name is tensor-core eligible (allow-list). */
int an_tc_op_eligible(const char *name);

/* an_tc_kernel() on a kernel name id, memoised in p->tc_cache. */
int an_tc_kernel_id(struct an_profile *p, uint32_t name);

#endif
