/*
 * live_run.h - one refresh's verdict of a whole run while it is written
 * (docs/LIVE.md): the traces of one run (one per process), which of them
 * are ranks (with rank metadata, a process without it, such as a
 * launcher, is none; when no trace has it, every trace is one), the
 * slow-rank verdict over the ranks (live_ranks.h) and the alert rules
 * (live_alert.h) checked against each trace and against the verdict.
 * `nnscope top` and `nnscope serve` both decide this way.
 *
 * Ownership: the caller's arrays and structs; nothing is kept.
 */
#ifndef NNS_ANALYSIS_LIVE_RUN_H
#define NNS_ANALYSIS_LIVE_RUN_H

#include "analysis/live_alert.h"
#include "analysis/live_ranks.h"

struct live_run_trace {
	struct live *l;	    /* in: the trace's state */
	const char *worker; /* in: its name */
	int is_rank;	    /* out: one of the ranks the verdict compares */
	int64_t rank;	    /* out: its rank in alert hits (META rank, else its position;
			       -1 for the only trace of a run) */
};

/* Fills is_rank and rank of t[0..n), computes the verdict into ranks
 * (as live_ranks_compute, which releases what it held; `last` as there)
 * and, when alerts is not
 * NULL, checks its rules: the step rules against each trace, the rank
 * rules against the verdict (two ranks or more). Returns the hits fired
 * now (>= 0) or NNS_ENOMEM (err says it). */
int live_run_check(struct live_run_trace *t, size_t n, size_t last, struct live_ranks *ranks,
		   struct live_alerts *alerts, struct nns_err *err);

#endif
