/*
 * an_ops.h - the operator view of a worker (AN_PASS_OPS, operators.c):
 * operators grouped by name, input shape and call stack.
 */
#ifndef NNS_ANALYSIS_AN_OPS_H
#define NNS_ANALYSIS_AN_OPS_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_op_row {
	uint32_t name;
	uint32_t input_shape; /* string id; 0 in by_name */
	uint32_t call_stack;  /* string id; 0 unless grouped by stack */
	int64_t calls;
	int64_t host_self, host_total, dev_self, dev_total;
	int64_t tc_self, tc_total;
	int tc_eligible;
	int has_call_stack;
};

struct an_ops {
	VEC(struct an_op_row) by_name;
	VEC(struct an_op_row) by_name_shape;
	VEC(struct an_op_row) by_name_stack; /* name + call stack */
	VEC(struct an_op_row) by_name_shape_stack;
	int sort_by_device; /* rows sorted by device self (GPU data) or host self */
};

/* AN_PASS_OPS: fills p->ops. */
int an_ops_compute(struct an_profile *p, struct nns_err *err);

#endif
