/*
 * an_advice.h - the performance recommendations of a worker
 * (AN_PASS_ADVICE, advice.c), read from the other passes' results.
 */
#ifndef NNS_ANALYSIS_AN_ADVICE_H
#define NNS_ANALYSIS_AN_ADVICE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_advice_item {
	char id[32]; /* "dataloader", "ddp", "nccl", "comm", "gpu_util", "amp", "memory" */
	char *text;  /* owned */
};

struct an_advice {
	VEC(struct an_advice_item) items;
};

/* AN_PASS_ADVICE: fills p->advice and the usage flags (use_dp ...). */
int an_advice_compute(struct an_profile *p, struct nns_err *err);

#endif
