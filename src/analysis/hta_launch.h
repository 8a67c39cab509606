/*
 * hta_launch.h - Holistic Trace Analysis's launch-side analyses of one
 * worker (issue 8 part 4), computed on demand from a finished profile:
 *
 *   - kernel launch statistics (hta_launches.c; HTA
 *     cuda_kernel_launch_stats): every launch linked to its device event,
 *     with CPU duration, GPU duration and launch delay, HTA's three outlier
 *     classes and a summary;
 *   - user-annotation breakdown (hta_annotations.c; HTA
 *     get_gpu_user_annotation_breakdown and
 *     get_gpu_kernels_with_user_annotations): CPU and GPU annotations by
 *     name, and the kernels under each GPU annotation;
 *   - frequent CUDA kernel sequences under an operator (hta_sequences.c;
 *     HTA get_frequent_cuda_kernel_sequences);
 *   - communication/computation overlap and straggler candidates across
 *     workers (hta_dist.c; HTA get_comm_comp_overlap and the late-start
 *     straggler metric), used by the distributed view.
 * Definitions and where they differ from HTA: docs/HTA.md.
 *
 * All times are int64 ns (model units). Every result owns its arrays; the
 * matching *_release() frees them and leaves the struct zeroed. String ids
 * refer to the profile's model, which must outlive the result.
 */
#ifndef NNS_ANALYSIS_HTA_LAUNCH_H
#define NNS_ANALYSIS_HTA_LAUNCH_H

#include "analysis/analysis.h"

/* ---- launch statistics (hta_launches.c) --------------------------------- */

#define HTA_RUNTIME_CUTOFF_NS 50000	  /* HTA runtime_cutoff default: 50 us */
#define HTA_LAUNCH_DELAY_CUTOFF_NS 100000 /* HTA launch_delay_cutoff: 100 us */
#define HTA_OUTLIERS_MAX 50		  /* rows kept per outlier list */
#define HTA_DELAY_BINS 40		  /* launch-delay histogram bins */

struct hta_launch_row {
	uint32_t launch; /* runtime/driver event index */
	uint32_t dev;	 /* its kernel/memcpy/memset event index */
	int64_t cpu_dur; /* launch dur */
	int64_t gpu_dur; /* device event dur */
	/* launch delay, HTA's definition: device start - launch end (launch
	 * ts + dur), clipped at 0 (a kernel that starts before its launch call
	 * returns has no delay) */
	int64_t delay;
	/* nnscope's start delay: device start - launch start (< 0 only on
	 * skewed clocks); kept beside HTA's, named start_delay everywhere */
	int64_t start_delay;
};

/* Distribution of one column: sum, mean and linear-interpolated
 * percentiles (numpy/pandas default) over n values. All 0 when n == 0. */
struct hta_dist {
	int64_t n, sum, min, max;
	double mean, p50, p90, p99;
};

struct hta_launch_opts {
	int64_t runtime_cutoff;	     /* ns; <= 0: HTA_RUNTIME_CUTOFF_NS */
	int64_t launch_delay_cutoff; /* ns; <= 0: HTA_LAUNCH_DELAY_CUTOFF_NS */
	size_t outliers_max;	     /* 0: HTA_OUTLIERS_MAX */
};

struct hta_launches {
	/* one per linked pair, device-event order: its device event index
	 * (hta_launch_row_at gives the row: 4 bytes a pair rather than 40,
	 * as a big trace has hundreds of thousands) */
	VEC(uint32_t) rows;
	int64_t runtime_cutoff, launch_delay_cutoff;
	/* short: gpu_dur < cpu_dur and cpu_dur <= runtime_cutoff;
	 * runtime outlier: cpu_dur > runtime_cutoff;
	 * delay outlier: delay > launch_delay_cutoff */
	int64_t n_short, n_runtime_outliers, n_delay_outliers;
	int64_t n_before_return;	/* rows whose device event started before the
					 * launch returned (delay clipped to 0) */
	int64_t graph_launches_skipped; /* device events of cudaGraphLaunch */
	int64_t device_unlinked;	/* device events with no launch */
	struct hta_dist cpu, gpu, delay, start_delay;
	/* indices into rows, worst first, at most outliers_max each:
	 * short by (cpu_dur - gpu_dur), runtime by cpu_dur, delay by delay */
	VEC(uint32_t) top_short, top_runtime, top_delay;
	/* histogram of delay over [hist_lo, hist_lo + HTA_DELAY_BINS * hist_width) */
	int64_t hist_lo, hist_width;
	int64_t hist[HTA_DELAY_BINS];
};

/* opts may be NULL (HTA's defaults). NNS_OK or NNS_ENOMEM (out zeroed). */
int hta_launches_compute(const struct an_profile *p, const struct hta_launch_opts *opts,
			 struct hta_launches *out, struct nns_err *err);
void hta_launches_release(struct hta_launches *l);

/* Row i of l (i < l->rows.n), computed from m's events. */
void hta_launch_row_at(const struct model *m, const struct hta_launches *l, size_t i,
		       struct hta_launch_row *r);

/* The name (string id) of the operator that issued launch event `ev`
 * (optree owner), 0 when it belongs to no operator. */
uint32_t hta_launch_op_name(const struct an_profile *p, uint32_t ev);

/* ---- user annotations (hta_annotations.c) ------------------------------- */

#define HTA_ANNO_ROWS_MAX 200	/* annotation names kept per side */
#define HTA_ANNO_KERNELS_MAX 10 /* kernels kept per GPU annotation */

struct hta_anno_kernel {
	uint32_t name; /* kernel name */
	int64_t count, sum;
};

struct hta_anno_row {
	uint32_t name;
	int64_t count, sum; /* annotation events and their summed dur */
	/* GPU side: device events whose innermost covering annotation has
	 * this name, and their summed dur; kernels[first, first + n) of them
	 * by name, top HTA_ANNO_KERNELS_MAX by sum */
	int64_t kernel_count, kernel_sum;
	uint32_t first_kernel, nkernels;
};

typedef VEC(struct hta_anno_row) hta_anno_vec;

struct hta_annotations {
	hta_anno_vec cpu, gpu;	    /* by sum desc, then name; capped */
	int64_t cpu_more, gpu_more; /* names left off by the cap */
	VEC(struct hta_anno_kernel) kernels;
	int64_t device_events;	/* all device events */
	int64_t device_covered; /* those under some GPU annotation */
};

int hta_annotations_compute(const struct an_profile *p, struct hta_annotations *out,
			    struct nns_err *err);
void hta_annotations_release(struct hta_annotations *a);

/* ---- frequent kernel sequences (hta_sequences.c) ------------------------ */

#define HTA_SEQ_MIN_LEN 3 /* HTA min_pattern_len default */
#define HTA_SEQ_TOP_K 10  /* patterns kept per operator */
#define HTA_SEQ_OPS 5	  /* operators analysed by default */

struct hta_seq_pattern {
	uint32_t op;	     /* the root operator's name */
	uint32_t first, len; /* kernel names: hta_sequences.names[first, first+len) */
	int64_t count;
	int64_t gpu_time; /* summed dur of the pattern's device events */
	int64_t cpu_time; /* summed dur of the root operators */
};

struct hta_seq_op {
	char query[128];	/* the operator name asked for */
	int exact;		/* 1: names equal to query, 0: containing it (HTA) */
	int64_t launches;	/* default pick: launches under top-level query ops */
	int64_t roots;		/* matching nodes at the shallowest depth */
	int64_t patterns_total; /* distinct patterns (before top_k) */
	uint32_t first, n;	/* hta_sequences.patterns[first, first+n) */
};

struct hta_sequences {
	VEC(struct hta_seq_op) ops;
	VEC(struct hta_seq_pattern) patterns;
	VEC(uint32_t) names;
	size_t min_len, top_k;
};

/* Patterns under operator `op` (HTA semantics: nodes whose name contains
 * op; exact: equal to op), appended to out as one hta_seq_op. min_len,
 * top_k 0: defaults. */
int hta_sequences_for(const struct an_profile *p, const char *op, int exact, size_t min_len,
		      size_t top_k, struct hta_sequences *out, struct nns_err *err);
/* The default: the max_ops (0: HTA_SEQ_OPS) operator names with the most
 * launches under their top-level instances (an operator with no operator
 * above it), each analysed with exact matching; names without any pattern
 * are skipped (at most 4 * max_ops names tried). */
int hta_sequences_default(const struct an_profile *p, size_t max_ops, struct hta_sequences *out,
			  struct nns_err *err);
void hta_sequences_release(struct hta_sequences *s);

/* ---- distributed: overlap and stragglers (hta_dist.c) ------------------- */

/* HTA kernel types by name: "nccl*" or containing "gloo:" communication;
 * containing "Memcpy"/"Memset" memory; else computation. */

/* Communication/computation overlap of one worker: comm = merged device
 * events of type COMM, comp = merged of type COMPUTE; *comm_ns = |comm|,
 * *overlap_ns = |comm & comp|. *pct = 100 * overlap / comm, or -1 when the
 * worker has no communication kernels. */
int hta_comm_overlap(const struct an_profile *p, double *pct, int64_t *overlap_ns, int64_t *comm_ns,
		     struct nns_err *err);

#define HTA_STRAGGLER_STEP_PCT 10.0 /* step time above the median by more */
#define HTA_STRAGGLER_LATE 0.05	    /* late start above the median by more (of a step) */
#define HTA_STRAGGLER_MIN_NORM 0.01 /* HTA min_normalized_duration */

struct hta_straggler {
	uint32_t worker; /* index into the workers given */
	char metric[16]; /* "step_time" or "late_start" */
	double value;	 /* step_time: ns; late_start: fraction of a step */
	double median;	 /* the same metric's median over the workers */
	double excess;	 /* step_time: percent above median; late_start: value - median */
};

/* Per worker: mean step time (ns, -1 without steps) and late start (mean
 * over its steps of (start of the last communication kernel of the step
 * whose dur >= HTA_STRAGGLER_MIN_NORM * mean step time - step start) /
 * mean step time; -1 when there is none). */
struct hta_worker_metrics {
	double step_time, late_start;
};

int hta_worker_metrics(const struct an_profile *p, struct hta_worker_metrics *out,
		       struct nns_err *err);

/* Stragglers among n workers' metrics (needs n >= 2): appended to *out. */
int hta_stragglers(const struct hta_worker_metrics *w, size_t n, struct hta_straggler **out,
		   size_t *nout, struct nns_err *err);

#endif
