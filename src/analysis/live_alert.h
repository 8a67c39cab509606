/*
 * live_alert.h - alert rules over a live run (docs/LIVE.md), as given to
 * `nnscope serve --alert RULE` and `nnscope top --alert RULE`:
 *
 *   RULE   := METRIC OP BOUND
 *   METRIC := step_ms   the duration of the last completed step, ms
 *           | data_ms   its time waiting for data (DataLoader ranges), ms
 *           | data_pct  that wait as a share of the step, %
 *           | rank_pct  the slowest rank's excess over the ranks' mean
 *                       step time in the common window, % (live_ranks.h)
 *           | behind    steps the slowest rank is behind the leader
 *   OP     := > | >= | < | <=
 *   BOUND  := NUMBER | [NUMBER '*'] STAT
 *   STAT   := median | mean | min | max | p90   of METRIC over the
 *             completed steps before the last one (step metrics only)
 * e.g. 'step_ms > 1.2*median', 'data_pct >= 30', 'rank_pct > 20'.
 * A step rule is checked once per newly completed step of each rank and
 * needs at least 3 earlier steps for a STAT; a rank rule once per refresh,
 * and fires again only after it stopped holding.
 *
 * Ownership: struct live_alerts is caller storage (live_alerts_init ..
 * live_alerts_release); it keeps the rules and the last LIVE_ALERTS_MAX
 * hits.
 */
#ifndef NNS_ANALYSIS_LIVE_ALERT_H
#define NNS_ANALYSIS_LIVE_ALERT_H

#include "analysis/live.h"
#include "analysis/live_ranks.h"

#define LIVE_ALERTS_MAX 256 /* hits kept, oldest dropped first */

struct live_alert_rule {
	char text[128];	      /* as given */
	int metric, op, stat; /* parsed */
	double factor, value;
};

struct live_alert_hit {
	size_t rule;  /* index in rules */
	int64_t rank; /* -1 for a single trace */
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
/* Adds a rule; NNS_EINVAL with a message that says what is wrong where. */
int live_alerts_add(struct live_alerts *a, const char *rule, struct nns_err *err);
/* Checks the rules against rank `rank`'s state (-1: a single trace) and,
 * when ranks is not NULL, the rank rules against it. Appends hits; returns
 * how many fired now (>= 0) or NNS_ENOMEM. */
int live_alerts_check(struct live_alerts *a, const struct live *l, int64_t rank,
		      const struct live_ranks *ranks);
/* The i-th kept hit, oldest first (i < nhits). */
const struct live_alert_hit *live_alerts_hit(const struct live_alerts *a, size_t i);
void live_alerts_release(struct live_alerts *a);

#endif
