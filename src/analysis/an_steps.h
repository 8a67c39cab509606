/*
 * an_steps.h - the steps of a worker and their time breakdown by role
 * (AN_PASS_STEPS: steps.c finds the steps; AN_PASS_BREAKDOWN: breakdown.c
 * splits each step's time by role, tb_plugin's priority order). Times in
 * ns.
 */
#ifndef NNS_ANALYSIS_AN_STEPS_H
#define NNS_ANALYSIS_AN_STEPS_H

#include "analysis/an_roles.h"
#include "analysis/intervals.h"
#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_step {
	char name[32];		      /* "5", or "0" when the trace has no steps */
	int64_t host_start, host_end; /* the ProfilerStep range on the CPU */
	int64_t start, end;	      /* after device adjustment */
	int64_t cost[AN_NROLES];
	int64_t device_nodes; /* device events launched inside the host range */
};

struct an_overview {
	VEC(struct an_step) steps;
	double avg[AN_NROLES]; /* ns */
	double avg_total;      /* ns */
	int has_runtime, has_kernel, has_memcpy_or_memset, has_communication;
	int steps_dropped; /* trailing steps removed (tb_plugin tail rule) */
	/* merged role intervals (before priority) of the roles later passes
	 * read: Kernel, Communication, DataLoader and CPU Exec; the others'
	 * are freed (empty) once the breakdown has used them */
	struct iv_set role[AN_NROLES];
};

/* AN_PASS_STEPS: fills p->overview.steps. */
int an_steps_compute(struct an_profile *p, struct nns_err *err);
/* AN_PASS_BREAKDOWN: each step's cost per role, the averages, the role
 * intervals. */
int an_breakdown_compute(struct an_profile *p, struct nns_err *err);

#endif
