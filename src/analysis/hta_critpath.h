/*
 * hta_critpath.h - Holistic Trace Analysis's lightweight critical path of
 * one training step (HTA critical_path_analysis, docs/HTA.md).
 *
 * The step's events become a DAG whose nodes are the start and end of each
 * host operator / runtime call and each device event; edges are
 *   - operator/kernel spans and the steps between nested host ops on a
 *     thread (weight = time),
 *   - dependencies between consecutive top-level ops on a thread (0),
 *   - kernel launch delays runtime start -> kernel start (time),
 *   - kernel-kernel delays on a stream (time),
 *   - synchronisation: kernel end -> end of the CPU call that waited for it,
 *     and kernel end -> start of a kernel on another stream that waited on a
 *     CUDA event (0).
 * The critical path is the longest (heaviest) path of that DAG.
 *
 * Pure: model/profile -> struct hcp_result; no I/O. Times are ns.
 * Ownership: the result owns its arrays; hcp_release() frees them.
 */
#ifndef NNS_ANALYSIS_HTA_CRITPATH_H
#define NNS_ANALYSIS_HTA_CRITPATH_H

#include "analysis/analysis.h"

/* Edge types, HTA's CPEdgeType. */
enum hcp_edge {
	HCP_E_OP = 0, /* critical_path_operator: a span of one op/kernel */
	HCP_E_DEP,    /* critical_path_dependency: top-level op -> next op */
	HCP_E_LAUNCH, /* critical_path_kernel_launch_delay */
	HCP_E_KK,     /* critical_path_kernel_kernel_delay */
	HCP_E_SYNC,   /* critical_path_sync_dependency */
	HCP_E__N
};
extern const char *const hcp_edge_names[HCP_E__N]; /* HTA's spellings */

/* Where a path edge's time goes in the breakdown. Weighted classes sum to
 * hcp_result.total; the last two hold the time zero-weight edges span. */
enum hcp_class {
	HCP_C_CPU = 0, /* host op / runtime call time (HTA cpu_bound) */
	HCP_C_KERNEL,  /* device event time (gpu_compute_bound) */
	HCP_C_COMM,    /* collective kernels (gpu_communication_bound) */
	HCP_C_LAUNCH,  /* kernel launch delay (gpu_kernel_launch_overhead) */
	HCP_C_KK,      /* kernel-kernel delay (gpu_kernel_kernel_overhead) */
	HCP_C_SYNC,    /* waits: sync edges and blocking sync calls (weight 0) */
	HCP_C_IDLE,    /* gaps between top-level ops on a thread (weight 0) */
	HCP_C__N
};
extern const char *const hcp_class_keys[HCP_C__N]; /* "cpu_op_us" ... */

/* One edge of the path, in path order. */
struct hcp_seg {
	uint32_t ev; /* event the edge is attributed to (HTA's
		      * edge_to_event_map), else the source event */
	uint32_t src_ev, dst_ev;
	int64_t from, to; /* source / destination node times */
	int64_t weight;	  /* HTA's weight (0 for dependency edges) */
	uint8_t type;	  /* enum hcp_edge */
	uint8_t cls;	  /* enum hcp_class */
	uint8_t src_is_start, dst_is_start;
};

#define HCP_PATH_CAP 200000 /* path edges kept; the rest counted */

struct hcp_opts {
	const char *step; /* step name to analyse ("5" or "ProfilerStep#5");
			   * NULL = the first step of the overview */
};

struct hcp_result {
	int ok;		  /* 1 when a path was found */
	char reason[160]; /* why not, when !ok */
	char step[32];	  /* the step's name ("5") */
	size_t step_index, nsteps;
	int64_t step_start, step_end; /* host range of the step */
	int64_t nodes, edges;	      /* graph size */
	int64_t edges_by_type[HCP_E__N];
	int64_t clamped;	/* edges with negative time clamped to 0 */
	int64_t sync_events;	/* cuda_sync records used */
	int64_t sync_fallbacks; /* blocking calls linked without a cuda_sync record */
	int64_t total;		/* sum of path weights (HTA's path length) */
	int64_t span;		/* total + sync + idle: first to last node */
	int64_t by_class[HCP_C__N];
	int64_t path_start, path_end; /* times of the first and last node */
	VEC(struct hcp_seg) path;
	int64_t path_dropped; /* edges beyond HCP_PATH_CAP */
};

/* Computes the critical path of one step of p (whose model must be
 * finalized). A step that has no events, an unknown step name or a cyclic
 * graph gives NNS_OK with r->ok = 0 and r->reason set. NNS_ENOMEM on
 * allocation failure (r is then released). */
int hcp_compute(struct hcp_result *r, const struct an_profile *p, const struct hcp_opts *o,
		struct nns_err *err);
void hcp_release(struct hcp_result *r);

/* 1 for the runtime calls HTA treats as blocking (their own span has no
 * weight on the path: the wait is what the GPU work explains). */
int hcp_is_blocking_call(const char *name);

#endif

/* ---- HTA trace_diff (hta_critpath_diff.c) ----------------------------------
 * Operators (cpu_op) and device events (kernel, memcpy, memset) of the first
 * step of each trace, by name: count and total duration in the base
 * (HTA's control) and the experiment (test) trace, and the change. A host
 * op is in the step when it starts inside the step's host range, a device
 * event when its launch does (its own start when it has no launch). */
enum hcp_change {
	HCP_ADDED = 0, /* absent in base, present in exp */
	HCP_REMOVED,   /* HTA's "deleted" */
	HCP_INCREASED, /* more calls in exp */
	HCP_DECREASED,
	HCP_UNCHANGED, /* same count (durations may differ) */
	HCP_CH__N
};
extern const char *const hcp_change_names[HCP_CH__N];

struct hcp_tdiff_row {
	char *name; /* owned */
	int64_t base_count, exp_count;
	int64_t base_dur, exp_dur; /* ns */
	uint8_t change;		   /* enum hcp_change */
};

struct hcp_tdiff_table {
	VEC(struct hcp_tdiff_row) rows; /* sorted by |exp_dur - base_dur| desc, name */
	int64_t changes[HCP_CH__N];	/* rows per change */
};

struct hcp_tdiff {
	char base_step[32], exp_step[32];
	struct hcp_tdiff_table ops, kernels;
};

/* Fills d from the first step of base and of exp. NNS_OK or NNS_ENOMEM
 * (d released). */
int hcp_tdiff_compute(struct hcp_tdiff *d, const struct an_profile *base,
		      const struct an_profile *exp, struct nns_err *err);
void hcp_tdiff_release(struct hcp_tdiff *d);
