/*
 * operators.c - the operator view: operator nodes of the call trees grouped
 * by name, name + input shape, name + call stack and all three
 * (tb_plugin ModuleAggregator.aggregate / aggregate_ops). Only operator
 * nodes count: not ProfilerStep, DataLoader, Optimizer, Module, python or
 * user-annotation nodes, nor DataParallel/DistributedDataParallel.forward.
 */
#include "an_ops.h"
#include "analysis.h"
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

typedef VEC(struct an_op_row) op_rows;

struct sort_ctx {
	const struct model *m;
	int by_device;
};

static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct an_op_row *a = x, *b = y;
	const struct sort_ctx *c = arg;
	const struct model *sort_model = c->m;
	int sort_by_device = c->by_device;
	int64_t ka = sort_by_device ? a->dev_self : a->host_self;
	int64_t kb = sort_by_device ? b->dev_self : b->host_self;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->name != b->name)
		return strcmp(model_str(sort_model, a->name), model_str(sort_model, b->name));
	if (a->input_shape != b->input_shape)
		return strcmp(model_str(sort_model, a->input_shape),
			      model_str(sort_model, b->input_shape));
	return strcmp(model_str(sort_model, a->call_stack), model_str(sort_model, b->call_stack));
}

static int add_to(const struct model *m, const struct an_optree *t, op_rows *rows, struct hmap *idx,
		  uint64_t key, const struct an_node *n, uint32_t shape, uint32_t stack,
		  int has_stack)
{
	uint32_t id = (uint32_t)(n - t->nodes.v);
	int is_new;
	uint32_t *slot = hmap_put(idx, key, (uint32_t)rows->n, &is_new);
	struct an_op_row *r;

	if (!slot)
		return NNS_ENOMEM;
	if (is_new) {
		struct an_op_row z;
		memset(&z, 0, sizeof(z));
		z.name = n->name;
		z.input_shape = shape;
		z.call_stack = stack;
		if (vec_push(rows, z))
			return NNS_ENOMEM;
	}
	r = &rows->v[*slot];
	r->calls++;
	r->host_self += n->host_self;
	r->host_total += an_node_host_total(m, n);
	r->dev_self += n->dev_self;
	r->dev_total += n->dev_total;
	r->tc_self += an_node_tc_self(t, id);
	r->tc_total += an_node_tc_total(t, id);
	r->tc_eligible |= n->tc_eligible;
	r->has_call_stack |= has_stack;
	return 0;
}

int an_ops_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct an_ops *o = &p->ops;
	struct hmap by_name, by_shape, by_stack, by_both, pair;
	size_t i;
	int rc = NNS_ENOMEM;

	hmap_init(&by_name);
	hmap_init(&by_shape);
	hmap_init(&by_stack);
	hmap_init(&by_both);
	hmap_init(&pair);
	for (i = 0; i < p->tree.nodes.n; i++) {
		const struct an_node *n = &p->tree.nodes.v[i];
		const struct model_op_args *a = NULL;
		uint32_t shape = 0, stack = 0, *pid;
		int is_new;
		if (n->type != AN_NODE_OP || n->ev == MODEL_NOIDX)
			continue;
		if (m->events.v[n->ev].extra != MODEL_NOIDX)
			a = &m->op_args.v[m->events.v[n->ev].extra];
		if (a) {
			shape = a->input_dims;
			stack = a->call_stack;
		}
		pid = hmap_put(&pair, hmap_pair(shape, stack), (uint32_t)pair.n, &is_new);
		if (!pid)
			goto out;
		if (add_to(m, &p->tree, (op_rows *)&o->by_name, &by_name, n->name, n, 0, 0,
			   stack != 0) ||
		    add_to(m, &p->tree, (op_rows *)&o->by_name_shape, &by_shape,
			   hmap_pair(n->name, shape), n, shape, 0, stack != 0) ||
		    add_to(m, &p->tree, (op_rows *)&o->by_name_stack, &by_stack,
			   hmap_pair(n->name, stack), n, 0, stack, stack != 0) ||
		    add_to(m, &p->tree, (op_rows *)&o->by_name_shape_stack, &by_both,
			   hmap_pair(n->name, *pid), n, shape, stack, stack != 0))
			goto out;
	}
	/* by device self time only when operators hold device time: with
	 * every device event unattributed the rows would all be 0 */
	o->sort_by_device = 0;
	for (i = 0; i < o->by_name.n && !o->sort_by_device; i++)
		o->sort_by_device = o->by_name.v[i].dev_self > 0;
	{
		struct sort_ctx c = {m, o->sort_by_device};
		if (o->by_name.n > 1)
			qsort_r(o->by_name.v, o->by_name.n, sizeof(struct an_op_row), row_cmp, &c);
		if (o->by_name_shape.n > 1)
			qsort_r(o->by_name_shape.v, o->by_name_shape.n, sizeof(struct an_op_row),
				row_cmp, &c);
		if (o->by_name_stack.n > 1)
			qsort_r(o->by_name_stack.v, o->by_name_stack.n, sizeof(struct an_op_row),
				row_cmp, &c);
		if (o->by_name_shape_stack.n > 1)
			qsort_r(o->by_name_shape_stack.v, o->by_name_shape_stack.n,
				sizeof(struct an_op_row), row_cmp, &c);
	}
	rc = NNS_OK;
out:
	hmap_release(&by_name);
	hmap_release(&by_shape);
	hmap_release(&by_stack);
	hmap_release(&by_both);
	hmap_release(&pair);
	if (rc)
		nns_err_set(err, rc, "out of memory in the operator view");
	return rc;
}
