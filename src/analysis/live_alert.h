/*
 * live_alert.h - alert rules over a live run (docs/LIVE.md), as given to
 * `nnscope serve --alert RULE` and `nnscope top --alert RULE`:
 *
 *   RULE   := METRIC OP BOUND
 *   METRIC := step_ms   the duration of the last completed step, ms
 *           | data_ms   its time waiting for data (DataLoader ranges), ms
 *           | data_pct  that wait as a share of the step, %
 *           | rank_pct  the slowest rank's excess over the ranks' mean
 *                       step time in the common window, % (live_ranks.h
 *                       slowest_pct)
 *           | behind    steps the rank furthest behind is behind the
 *                       leader (live_ranks.h behind_max)
 *   OP     := > | >= | < | <=
 *   BOUND  := NUMBER | [NUMBER '*'] STAT
 *   STAT   := median | mean | min | max | p90   of METRIC over the
 *             completed steps before the one checked (the last
 *             LIVE_ALERT_HISTORY of them; step metrics only)
 * e.g. 'step_ms > 1.2*median', 'data_pct >= 30', 'rank_pct > 20'. Blanks
 * may surround the tokens; metric and stat names are lower case. median:
 * the middle value (the mean of the two middle ones for an even count);
 * p90: the nearest-rank 90th percentile (the ceil(0.9 n)-th smallest).
 *
 * A step rule is checked once per newly completed step of each rank (its
 * value as it is when first seen: a breakdown that grows later is not
 * re-read) and needs at least LIVE_ALERT_MIN_HISTORY earlier steps for a
 * STAT; it fires at the first step where it holds and again only after a
 * step where it did not (a slowdown of 100 steps is one hit, at its first
 * step). A rank rule is checked at each live_alerts_check given ranks with
 * a verdict window, and fires again only after it stopped holding
 * (checking it twice with the same ranks fires at most once).
 *
 * Ownership: struct live_alerts is caller storage (live_alerts_init ..
 * live_alerts_release); it keeps the rules and the last LIVE_ALERTS_MAX
 * hits.
 */
#ifndef NNS_ANALYSIS_LIVE_ALERT_H
#define NNS_ANALYSIS_LIVE_ALERT_H

#include "analysis/live.h"
#include "analysis/live_ranks.h"

#define LIVE_ALERTS_MAX 256	 /* hits kept, oldest dropped first */
#define LIVE_ALERT_HISTORY 128	 /* earlier steps a STAT reads */
#define LIVE_ALERT_MIN_HISTORY 3 /* earlier steps a STAT needs */
#define LIVE_ALERT_RULES_MAX 64	 /* rules of one set */

enum { LIVE_M_STEP_MS = 1, LIVE_M_DATA_MS, LIVE_M_DATA_PCT, LIVE_M_RANK_PCT, LIVE_M_BEHIND };
enum { LIVE_OP_GT = 1, LIVE_OP_GE, LIVE_OP_LT, LIVE_OP_LE };
enum { LIVE_S_NONE = 0, LIVE_S_MEDIAN, LIVE_S_MEAN, LIVE_S_MIN, LIVE_S_MAX, LIVE_S_P90 };

struct live_alert_rule {
	char text[128];	      /* as given */
	int metric, op, stat; /* LIVE_M_*, LIVE_OP_*, LIVE_S_* */
	double factor, value; /* BOUND = factor * STAT, or value (stat NONE) */
};

struct live_alert_hit {
	size_t rule;  /* index in rules */
	int64_t rank; /* step rules: the rank given (-1 single trace);
		       * rank rules: the rank the metric names */
	int64_t step; /* step number, -1 for rank rules */
	double value, bound;
	int64_t wall_ns; /* CLOCK_REALTIME when it fired */
	char message[256];
};

struct live_alerts {
	struct live_alert_rule *rules;
	size_t nrules;
	struct live_alert_hit hits[LIVE_ALERTS_MAX]; /* a ring */
	size_t nhits;				     /* kept, <= LIVE_ALERTS_MAX */
	uint64_t fired;				     /* all hits so far */
	/* per (rule, rank) progress: internal */
	void *state;
};

void live_alerts_init(struct live_alerts *a);
/* Adds a rule; NNS_EINVAL with a message that says what is wrong where
 * ("column N: ..."), NNS_ENOMEM. */
int live_alerts_add(struct live_alerts *a, const char *rule, struct nns_err *err);
/* Checks the step rules against rank `rank`'s state l (-1: a single trace;
 * l may be NULL: none checked) and, when ranks is not NULL, the rank rules
 * against it. Appends hits; returns how many fired now (>= 0) or
 * NNS_ENOMEM. */
int live_alerts_check(struct live_alerts *a, const struct live *l, int64_t rank,
		      const struct live_ranks *ranks);
/* The i-th kept hit, oldest first (i < nhits). */
const struct live_alert_hit *live_alerts_hit(const struct live_alerts *a, size_t i);
void live_alerts_release(struct live_alerts *a);
/* The names of the grammar: LIVE_M_*, LIVE_OP_*, LIVE_S_* (NULL out of
 * range; LIVE_S_NONE is NULL). */
const char *live_alert_metric_name(int metric);
const char *live_alert_op_name(int op);
const char *live_alert_stat_name(int stat);

#endif
