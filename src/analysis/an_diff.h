/*
 * an_diff.h - the comparison of two profiles (diff.c): operators by name,
 * the step breakdown, and HTA's trace_diff of the first steps.
 */
#ifndef NNS_ANALYSIS_AN_DIFF_H
#define NNS_ANALYSIS_AN_DIFF_H

#include "analysis/an_roles.h"
#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_diff_row {
	char name[256];
	int64_t base_calls, exp_calls;
	int64_t base_host, exp_host; /* host total */
	int64_t base_dev, exp_dev;   /* device total */
	int64_t base_host_self, exp_host_self;
	int64_t base_dev_self, exp_dev_self;
};

struct hcp_tdiff; /* analysis/hta_critpath.h */

struct an_diff {
	VEC(struct an_diff_row) ops; /* union of operator names, sorted by |delta| */
	double base_step[AN_NROLES + 1], exp_step[AN_NROLES + 1]; /* avg roles + total, ns */
	size_t base_steps, exp_steps;
	struct hcp_tdiff *hta; /* HTA trace_diff of the first steps, owned */
};

int an_diff_compute(struct an_diff *d, const struct an_profile *base, const struct an_profile *exp,
		    struct nns_err *err);
void an_diff_release(struct an_diff *d);

#endif
