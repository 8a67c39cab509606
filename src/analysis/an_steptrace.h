/*
 * an_steptrace.h - MindInsight's step trace of a worker (AN_PASS_STEPTRACE,
 * steptrace.c): iteration interval, FP+BP and tail per step.
 */
#ifndef NNS_ANALYSIS_AN_STEPTRACE_H
#define NNS_ANALYSIS_AN_STEPTRACE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* MindInsight's step trace of one overview step: iteration interval (wait
 * before the first operator that is not data loading), FP+BP (to the end of
 * the last backward operator or its device work) and tail. Each >= 0;
 * iteration_interval + fp_bp + tail == end - start. */
struct an_steptrace_row {
	char name[32];
	int64_t start, end; /* the overview step's range (after device adjustment) */
	int64_t iteration_interval, fp_bp, tail;
};

struct an_steptrace {
	/* one row per overview step */
	VEC(struct an_steptrace_row) steps;
	double avg_interval, avg_fp_bp, avg_tail, avg_total; /* means, ns */
};

/* AN_PASS_STEPTRACE: fills p->steptrace. */
int an_steptrace_compute(struct an_profile *p, struct nns_err *err);
void an_steptrace_release(struct an_steptrace *s);

#endif
