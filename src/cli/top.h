/*
 * top.h - what `nnscope top` (cmd_top.c) keeps between refreshes and
 * hands to its views (top_view.c): the traces of the run followed while
 * they are written (server/live_follow.h), the slow-rank verdict, the alert
 * rules and their hits, and the options.
 *
 * Ownership: struct top owns its traces (names, paths, followers), the
 * verdict and the alerts; top_release() frees them.
 */
#ifndef NNS_CLI_TOP_H
#define NNS_CLI_TOP_H

#include "analysis/live_alert.h"
#include "analysis/live_ranks.h"
#include "analysis/live_run.h"
#include "server/live_follow.h"

#include <stdio.h>

#define TOP_IDLE_NS 5000000000LL /* no growth for this long: "idle" */
#define TOP_ROWS 5		 /* operators and kernels shown */
#define TOP_HITS_SHOWN 5	 /* alert hits in the text view */
#define TOP_HITS_JSON 20	 /* alert hits in each JSON line */

struct top_trace {
	char *worker; /* the run's worker name (owned) */
	char *path;   /* the .nnst followed (owned) */
	struct live_follow *f;
	int is_rank; /* one of the ranks the verdict compares */
};

struct top {
	/* options */
	const char *dir;
	double interval_s;
	long last, max_refreshes;
	int once, json;
	int tty, color, width;
	/* state */
	VEC(struct top_trace) traces;
	struct live_alerts alerts;
	struct live_ranks ranks; /* of the traces with is_rank */
	size_t refresh;		 /* refreshes done (1 for the first view) */
	int new_hits;		 /* alert hits of the last refresh */
	int64_t wall_ns;	 /* CLOCK_REALTIME of the last refresh */
	int all_ended;		 /* every trace has ended (or failed) */
	int failed;		 /* a trace has a sticky error */
};

void top_release(struct top *t);

/* "ended", "error", "live" or "idle" (open, no new bytes for TOP_IDLE_NS). */
const char *top_trace_state(const struct top_trace *tr);
/* The trace the operator, kernel, CPU and memory lines are about: the
 * slowest rank of the verdict ("slowest"), else the first trace by rank
 * ("first"); NULL without traces. */
const struct top_trace *top_focus(const struct top *t, const char **why);
/* The trace's rank: its META rank, else its position among the traces. */
int64_t top_trace_rank(const struct top *t, size_t i);

/* One refresh as text (a block; the caller clears the screen) or as one
 * JSON line (docs/CLI.md "top"). 0, or -1 when writing failed. */
int top_print_text(FILE *f, const struct top *t);
int top_print_json(FILE *f, const struct top *t);

#endif
