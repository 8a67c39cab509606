/*
 * cluster.h - the cluster view: one step-trace row per rank (iteration
 * interval, FP+BP, tail, total; per step and average), communication links,
 * pipeline stages, and MindInsight's cluster proposer (parallel_proposer.py)
 * plus nnscope's straggler rules. Built either from a MindSpore cluster job
 * (importers/ms_cluster.h) or from the per-worker profiles of an nnscope /
 * Kineto run with several ranks. Pure: no I/O (docs/CLUSTER.md).
 *
 * Units: microseconds (double) for times; "val" of a proposal keeps
 * MindInsight's unit (ms, KB/s, MFLOPs, GFLOPS, percent) and names it.
 *
 * Ownership: struct cl_result owns every array and string reachable from
 * it; cl_release() frees them. Nothing keeps a pointer to the inputs.
 */
#ifndef NNS_ANALYSIS_CLUSTER_H
#define NNS_ANALYSIS_CLUSTER_H

#include "analysis/analysis.h"
#include "importers/ms_cluster.h"

#include <math.h>

/* MindInsight ParallelProposer thresholds. */
#define CL_STEP_INTERVAL_THRESHOLD 0.2
#define CL_FLOPS_PER_SECOND_THRESHOLD 0.2
#define CL_RANK_LINK_THRESHOLD 0.2
#define CL_DATA_PARALLEL_COMM_THRESHOLD 0.1
#define CL_MODEL_PARALLEL_COMM_THRESHOLD 0.1
#define CL_BETWEEN_STAGE_THRESHOLD 0.1
#define CL_WITHIN_STAGE_THRESHOLD 0.1
#define CL_FLOPS_THRESHOLD 0.2
/* nnscope: a rank whose FP+BP (compute) is this much above the mean. */
#define CL_FP_BP_THRESHOLD 0.2
#define CL_FP_BP_MIN_EXCESS_US 1000.0
#define CL_MAX_STEPS_PER_RANK 100000
#define CL_MAX_STEPS_TOTAL 2000000 /* over all ranks; the rest are dropped (counted) */

/* Names of the cluster csv columns by position (MindInsight's order). */
#define CL_BOTTLENECK_NAMES 5
extern const char *const cl_bottleneck_names[CL_BOTTLENECK_NAMES];

struct cl_step {
	char name[32];
	double interval_us, fp_bp_us, tail_us, total_us;
	double start_us; /* wall-clock start relative to the earliest step of any
			  * rank when clocks are aligned, else NAN */
	int has_bottleneck;
	double bottleneck[MSC_MAX_COLS]; /* cluster csv row of this step, us */
};

struct cl_rank {
	int rank;
	char host[64];
	char worker[128]; /* nnscope worker name; "" for MindSpore jobs */
	double interval_us, fp_bp_us, tail_us, total_us; /* the average step */
	int has_steptrace;
	int stage; /* 1-based pipeline stage, 1 when not pipelined */
	/* MindSpore model/pipeline parallel, the cluster csv's average row (us) */
	int has_bottleneck;
	double bottleneck[MSC_MAX_COLS]; /* csv columns in file order, us */
	int bottleneck_cols;
	double flops, flops_per_s; /* MFLOPs, GFLOPS (flops_summary) */
	int has_flops;
	double comm_cost_us, wait_cost_us; /* hccl_raw average row; nnscope: the
					    * mean communication time per step */
	int has_comm;
	char clock_sync[12];   /* nnscope META clock_sync: "ntp", "unsynced", "" unknown */
	double clock_error_us; /* META clock_maxerror_us, NAN if unknown */
	size_t comm_ops;
	VEC(struct cl_step) steps;
};

struct cl_link {
	int reporter; /* the rank whose hccl_raw file holds the link */
	int src, dst;
	char type[8];
	double time_us, size_kb, bw_kbps;
};

struct cl_stage {
	int stage;
	int ranks;
	double flops_avg;	 /* mean FLOPs of its ranks (MindInsight: sum / stage rank size) */
	double within_comm_rate; /* Σcollective_alone / Σ(comp + comm), NAN if not pipelined */
	double interval_avg_us;	 /* mean iteration interval of its ranks */
};

enum {
	CL_HAS_RANK = 1,
	CL_HAS_PERCENT = 2,
	CL_HAS_THRESHOLD = 4,
	CL_HAS_STAGE = 8,
	CL_HAS_LINK = 16,
	CL_HAS_EXCESS = 32
};

struct cl_proposal {
	char id[40];
	char *text; /* owned */
	unsigned has;
	int rank, stage;
	int src, dst, reporter;
	char link_type[8];
	double val;			   /* in unit */
	char unit[8];			   /* "ms", "KB/s", "MFLOPs", "GFLOPS", "%" */
	double percent;			   /* percent above/below the average, 2 decimals */
	double threshold;		   /* percent */
	double val_us, mean_us, excess_us; /* slow_rank / slow_rank_fp_bp: the rank's value,
					    * the mean of all ranks, and its excess
					    * over the mean of the OTHER ranks */
};

struct cl_result {
	char source[16]; /* "mindspore" or "nnscope" */
	char mode[24];	 /* parallel mode ("data-parallel" for nnscope runs) */
	int stage_num, rank_size;
	int clock_aligned;     /* nnscope: every rank has wall-clock calibration */
	double clock_error_us; /* bound on the misalignment of step starts across
				* ranks: 0 on one host (one clock), else the largest
				* NTP max error of a rank; NAN if unknown */
	int analyse_steps, analyse_flops, analyse_hccl; /* MindInsight file gating */
	double comm_rate;	   /* Σcomm / (Σcomp + Σcomm), rounded to 4 places, NAN if n/a */
	double between_stage_rate; /* pipeline: Σreceive / (Σcomp + Σcomm), NAN if n/a */
	char note[256];
	size_t steps_total, steps_dropped; /* steps kept / left out by the caps */
	VEC(struct cl_rank) ranks;	   /* by rank */
	VEC(struct cl_link) links;	   /* reporter order, then file order */
	VEC(struct cl_stage) stages;
	VEC(struct cl_proposal) proposals;
};

void cl_init(struct cl_result *c);
void cl_release(struct cl_result *c);

/* From a loaded MindSpore job; runs cl_finish(). NNS_OK or NNS_ENOMEM. */
int cl_from_ms(struct cl_result *c, const struct msc_job *j, struct nns_err *err);

/* nnscope runs: adds one worker's rank (rank from the trace's rank
 * metadata, else the order of addition; host from its "host" metadata;
 * steps from p->steptrace); a worker whose "role" metadata is "launcher"
 * or "helper" is no rank and adds nothing. Then cl_finish(). */
int cl_add_profile(struct cl_result *c, const char *worker, const struct an_profile *p,
		   struct nns_err *err);
/* "launcher" or "helper" when the trace's "role" metadata says m is no
 * rank of the job (the collector's launcher, a forked helper), else NULL. */
const char *cl_not_a_rank(const struct model *m);
/* Sorts ranks, aligns step starts, computes stages and proposals. */
int cl_finish(struct cl_result *c, struct nns_err *err);

/* The proposers (cluster_propose.c); called by cl_finish. */
int cl_propose(struct cl_result *c, struct nns_err *err);
/* The slow-rank rule's measure (slow_rank, slow_rank_fp_bp, and the live
 * verdict of analysis/live_ranks.h) on per-rank values ms[0..n), each
 * already cl_round(.., 4): the largest ms[i] / mean(ms) - 1, its index in
 * *worst (the first of equals). -INFINITY, *worst untouched, when n < 2 or
 * the mean is not > 0. A rank is slow when it exceeds the threshold
 * (CL_STEP_INTERVAL_THRESHOLD); its percent is cl_round(share * 100, 2). */
double cl_slow_share(const double *ms, size_t n, size_t *worst);

/* Sorts the rank table by "rank", "host", "iteration_interval", "fp_bp",
 * "tail" or "total" (NNS_EINVAL for another key). */
int cl_sort_ranks(struct cl_result *c, const char *key, int descending);

/* The proposal with this id, or NULL. */
const struct cl_proposal *cl_find_proposal(const struct cl_result *c, const char *id);
/* The row of rank, or NULL. */
const struct cl_rank *cl_find_rank(const struct cl_result *c, int rank);

/* x rounded to digits decimals as Python's round() does (the exact binary
 * value, ties to even), which MindInsight applies before comparing. */
double cl_round(double x, int digits);
/* us -> ms as MindInsight computes it from 10 ns counts (count / 1e5), so
 * that cl_round(cl_ms(us), 4) reproduces its values bit for bit. */
double cl_ms(double us);

#endif
