/*
 * live_ranks.h - the slow-rank verdict of a multi-rank job while it runs
 * (docs/LIVE.md): one live state (analysis/live.h) per rank's trace, the
 * per-rank step table of the steps completed so far, and cluster.json's
 * slow_rank rule (cluster_propose.c, cl_slow_share: a rank whose mean
 * step time si, in ms rounded to 4 places, has max(si / mean(si) - 1) >
 * 0.2, CL_STEP_INTERVAL_THRESHOLD) applied to the last `last` steps that
 * every rank has completed, so that a rank slowed midway is flagged within
 * a few steps of the change.
 *
 * The common window: hi = the highest step number every rank has
 * completed (the smallest of the ranks' last completed step numbers), lo =
 * max(hi - last + 1, the highest of the ranks' first step numbers); a
 * rank's window_ms is the mean duration (end - start) of its completed
 * steps numbered lo..hi. The live state has whole step durations, not
 * the step trace's iteration interval that cluster.json reads: for a rank
 * slowed before its step's work (data, host delay) the two move together.
 * No verdict (window 0) with fewer than 2 ranks, or while a rank has no
 * step in the window.
 *
 * Ownership: struct live_ranks is caller storage (zeroed, or after
 * live_ranks_release); live_ranks_compute releases what it held first.
 * Rows point into the live states and worker names given (valid until
 * their next live_feed / while the names live).
 */
#ifndef NNS_ANALYSIS_LIVE_RANKS_H
#define NNS_ANALYSIS_LIVE_RANKS_H

#include "analysis/live.h"

#define LIVE_RANKS_LAST_DEFAULT 20

struct live_rank_row {
	int64_t rank;	    /* META rank, else the position given */
	const char *worker; /* as given ("" when NULL) */
	const char *host;   /* META host, "" unknown */
	size_t steps;	    /* completed steps */
	int64_t last_step;  /* number of its last completed step, -1 none */
	double last_ms;	    /* duration of that step, NAN none */
	double mean_ms;	    /* mean step time of the whole run so far, NAN none */
	double window_ms;   /* mean step time over the common window, rounded
			     * to 4 places as the rule reads it; NAN no window */
	double vs_mean_pct; /* window_ms / mean of all ranks' window_ms - 1, in %
			     * rounded to 2 places; NAN no window */
	int64_t behind;	    /* steps behind the rank furthest ahead (last_step
			     * numbers; a rank without steps counts -1) */
	int ended;	    /* its trace has its END chunk */
};

struct live_ranks {
	struct live_rank_row *rows; /* by rank (then worker) */
	size_t n;
	size_t window;		      /* step numbers in the common window (0: no verdict yet) */
	int64_t window_lo, window_hi; /* step numbers of the window, inclusive; -1 none */
	int slowest;		      /* index in rows of the slowest rank in the window, -1 none */
	double slowest_pct;	      /* its excess over the mean, % (2 places); NAN none */
	int slow;		      /* slowest when slowest_pct > 20 (the rule), else -1 */
	double slow_pct;	      /* = slowest_pct when slow >= 0, else NAN */
	double excess_ms;	      /* slowest's window_ms - the other ranks' mean; NAN none */
	int64_t behind_max;	      /* the largest behind of any rank */
	char verdict[256];	      /* one line, as cluster.json's proposal says it */
};

/* ranks[i] is rank i's live state (not NULL), workers[i] its worker name
 * (workers may be NULL). `last`: steps in the common window (0:
 * LIVE_RANKS_LAST_DEFAULT). NNS_OK or NNS_ENOMEM (out emptied). */
int live_ranks_compute(struct live *const *ranks, const char *const *workers, size_t n, size_t last,
		       struct live_ranks *out, struct nns_err *err);
void live_ranks_release(struct live_ranks *r);

#endif
