/*
 * an_comm.h - the communication operators of a worker (AN_PASS_COMM,
 * comm.c), with their device ranges and bytes, which the distributed view
 * (distributed.c) compares across workers.
 */
#ifndef NNS_ANALYSIS_AN_COMM_H
#define NNS_ANALYSIS_AN_COMM_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_comm_node {
	uint32_t ev; /* the nccl:/gloo: op event */
	uint32_t name;
	int step;		       /* index into overview.steps, -1 if none */
	uint32_t first_range, nranges; /* into an_profile.comm_ranges */
	int64_t bytes;		       /* from input dims and types */
};

/* AN_PASS_COMM: fills p->comm_nodes and p->comm_ranges. */
int an_comm_compute(struct an_profile *p, struct nns_err *err);

#endif
