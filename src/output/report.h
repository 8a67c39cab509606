/*
 * report.h - the analysis as readable terminal tables (`nnscope report`
 * and the summary `nnscope diff` prints).
 *
 * Views: overview (step breakdown per step and average with %, GPU
 * summary, recommendations), operators (top N by device self time when the
 * trace has GPU data, else host self), kernels (top N by total time),
 * memory (peak per device and top ops by allocation size), modules (the
 * hierarchy, indented), distributed (per-worker bars and collectives),
 * datapipe (queues, verdict, per-step data waits, findings), cpu (machine /
 * process / thread utilization per step, host_info stage times); the
 * MindSpore tables (steptrace, ms_ops, ms_op_detail, aicpu, flops, minddata,
 * dynshape, gpu_ops, cpu_ops, cluster, ms_memory; "mindspore" = all of
 * them): the
 * default view of a MindSpore device adds what MindInsight's summary page
 * shows (report_ms.c).
 *
 * The functions only print to the FILE given; the caller decides colour
 * (a tty without NO_COLOR) and width (the terminal's).
 */
#ifndef NNS_OUTPUT_REPORT_H
#define NNS_OUTPUT_REPORT_H

#include "analysis/analysis.h"

#include <stdio.h>

enum report_view {
	RV_OVERVIEW = 1,
	RV_OPERATORS = 2,
	RV_KERNELS = 4,
	RV_MEMORY = 8,
	RV_MODULES = 16,
	RV_DISTRIBUTED = 32,
	RV_DATAPIPE = 64,
	RV_CPU = 128,
	/* MindSpore devices (report_ms*.c) and MindSpore cluster jobs */
	RV_MS_STEPTRACE = 1u << 8,
	RV_MS_OPS = 1u << 9,	    /* AI Core time by type */
	RV_MS_OP_DETAIL = 1u << 10, /* AI Core time by operator */
	RV_MS_AICPU = 1u << 11,
	RV_MS_FLOPS = 1u << 12,
	RV_MS_MINDDATA = 1u << 13,
	RV_MS_DYNSHAPE = 1u << 14,
	RV_MS_GPU = 1u << 15, /* GPU op type / detail / CUDA activity */
	RV_MS_CPU = 1u << 16, /* host CPU op type / detail */
	RV_MS_CLUSTER = 1u << 17,
	RV_MS_MEMORY = 1u << 18, /* device memory (memory_usage_<dev>.pb) */
	RV_MS_ALL = 0x7ff00u,
	RV_ALL = 0x7ffffu
};

struct report_opts {
	int color; /* ANSI bold/colour */
	int top;   /* rows per top-N table, > 0 */
	int width; /* terminal columns, 0 = unlimited */
};

/* Parses "overview", "kernels,memory", "all" ... into RV_* bits.
 * Returns 0, or -1 for an unknown name. */
int report_parse_views(const char *s, unsigned *views);

/* Prints the selected views (except RV_DISTRIBUTED) of one worker/span
 * under a heading `title` (may be NULL). */
void report_profile(FILE *f, const struct an_profile *p, const char *title, unsigned views,
		    const struct report_opts *o);

/* Prints the distributed view of one span. */
void report_dist(FILE *f, const struct an_dist *d, const char *title, const struct report_opts *o);

/* Prints a MindSpore cluster job's per-rank table, links and proposals
 * (report_ms_cluster.c). */
struct cl_result;
void report_ms_cluster(FILE *f, const struct cl_result *c, const char *title,
		       const struct report_opts *o);

/* Prints step-time and top operator deltas (exp - base). */
void report_diff(FILE *f, const struct an_diff *d, const char *base_label, const char *exp_label,
		 const struct report_opts *o);

#endif
