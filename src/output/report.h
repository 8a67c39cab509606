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
 * process / thread utilization per step, host_info stage times).
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
	RV_ALL = 255
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

/* Prints step-time and top operator deltas (exp - base). */
void report_diff(FILE *f, const struct an_diff *d, const char *base_label, const char *exp_label,
		 const struct report_opts *o);

#endif
