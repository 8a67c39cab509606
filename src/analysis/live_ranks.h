/*
 * live_ranks.h - the slow-rank verdict of a multi-rank job while it runs
 * (docs/LIVE.md): one live state (analysis/live.h) per rank's trace, the
 * per-rank step table of the steps completed so far, and cluster.json's
 * slow_rank rule (cluster_propose.c: a rank whose average iteration
 * interval si, in ms rounded to 4 places, has max(si / mean(si) - 1) >
 * 0.2) applied to the last `last` steps that every rank has completed, so
 * that a rank slowed midway is flagged within a few steps of the change.
 *
 * Ownership: struct live_ranks is caller storage (zeroed, or after
 * live_ranks_release); rows point into the live states given (valid until
 * their next live_feed).
 */
#ifndef NNS_ANALYSIS_LIVE_RANKS_H
#define NNS_ANALYSIS_LIVE_RANKS_H

#include "analysis/live.h"

struct live_rank_row {
	int64_t rank;	    /* META rank, else the position given */
	const char *worker; /* as given */
	const char *host;   /* META hostname, "" unknown */
	size_t steps;	    /* completed steps */
	int64_t last_step;  /* number of its last completed step, -1 none */
	double last_ms;	    /* duration of that step */
	double mean_ms;	    /* mean step time of the whole run so far */
	double window_ms;   /* mean step time over the common window */
	double vs_mean_pct; /* window_ms / mean of all ranks' window_ms - 1, in % */
	int64_t behind;	    /* steps behind the rank furthest ahead */
};

struct live_ranks {
	struct live_rank_row *rows; /* by rank */
	size_t n;
	size_t window;		      /* steps in the common window (0: no verdict yet) */
	int64_t window_lo, window_hi; /* step numbers of the window, inclusive */
	int slow;		      /* index in rows of the slow rank, -1 none */
	double slow_pct;	      /* its excess over the mean, % (rounded to 2 places) */
	char verdict[256];	      /* one line, as cluster.json's proposal says it */
};

/* ranks[i] is rank i's live state, workers[i] its worker name. `last`:
 * steps in the common window (0: 20). NNS_OK or NNS_ENOMEM. */
int live_ranks_compute(struct live *const *ranks, const char *const *workers, size_t n, size_t last,
		       struct live_ranks *out, struct nns_err *err);
void live_ranks_release(struct live_ranks *r);

#endif
