/*
 * kernels.c - the GPU kernel view (tb_plugin KernelParser and
 * aggregate_kernels): all kernels grouped by name, and kernels launched by
 * operators grouped by (name, op, grid, block, registers, shared memory).
 * Means of blocks/SM and occupancy are weighted by duration, absent values
 * counting as 0 (numpy.average with None -> 0); a group in which no call
 * reports the property (AMD, MTIA, CPU-side records, devices without SM
 * counts) gets -1, unknown, which the outputs write as null / "-" instead
 * of a 0 that reads as measured. The tensor-core share is unknown (-1) too
 * where the devices cannot have NVIDIA tensor cores (an_tc_support).
 */
#include "an_kernels.h"
#include "an_tensorcore.h"
#include "analysis.h"
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

struct acc {
	double bps_w, occ_w, w; /* duration-weighted sums */
	double bps, occ;	/* plain sums (all-zero-duration fallback) */
	int has_bps, has_occ;	/* some call reported it */
};

typedef VEC(struct an_kernel_row) kernel_rows;
typedef VEC(struct acc) acc_vec;

int an_tc_kernel_id(struct an_profile *p, uint32_t name)
{
	const struct model *m = p->m;

	if (!p->tc_cache) {
		p->tc_cache = calloc(m->strings.count + 1, 1);
		if (!p->tc_cache)
			return an_tc_kernel(model_str(m, name));
	}
	if (name >= m->strings.count)
		return 0;
	if (!p->tc_cache[name])
		p->tc_cache[name] = an_tc_kernel(model_str(m, name)) ? 2 : 1;
	return p->tc_cache[name] == 2;
}

static int add_kernel(kernel_rows *rows, acc_vec *accs, struct hmap *idx, uint64_t key,
		      const struct model_event *e, const struct model_dev_args *a,
		      const struct an_kernel_row *proto)
{
	int is_new;
	uint32_t *slot = hmap_put(idx, key, (uint32_t)rows->n, &is_new);
	struct an_kernel_row *r;
	struct acc *c;
	double bps = a && a->blocks_per_sm > 0 ? a->blocks_per_sm : 0;
	double occ = a && a->occupancy > 0 ? a->occupancy : 0;

	if (!slot)
		return NNS_ENOMEM;
	if (is_new) {
		struct acc z = {0};
		if (vec_push(rows, *proto) || vec_push(accs, z))
			return NNS_ENOMEM;
		rows->v[rows->n - 1].min = e->dur;
		rows->v[rows->n - 1].max = e->dur;
	}
	r = &rows->v[*slot];
	c = &accs->v[*slot];
	r->calls++;
	r->total += e->dur;
	if (e->dur < r->min)
		r->min = e->dur;
	if (e->dur > r->max)
		r->max = e->dur;
	c->bps_w += bps * (double)e->dur;
	c->occ_w += occ * (double)e->dur;
	c->w += (double)e->dur;
	c->bps += bps;
	c->occ += occ;
	c->has_bps |= a && a->blocks_per_sm >= 0;
	c->has_occ |= a && a->occupancy >= 0;
	return 0;
}

static void finish(kernel_rows *rows, const acc_vec *accs)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		struct an_kernel_row *r = &rows->v[i];
		const struct acc *c = &accs->v[i];
		if (c->w > 0) {
			r->mean_blocks_per_sm = c->bps_w / c->w;
			r->mean_occupancy = c->occ_w / c->w;
		} else if (r->calls) {
			r->mean_blocks_per_sm = c->bps / (double)r->calls;
			r->mean_occupancy = c->occ / (double)r->calls;
		}
		if (!c->has_bps)
			r->mean_blocks_per_sm = -1;
		if (!c->has_occ)
			r->mean_occupancy = -1;
	}
}

static int total_cmp(const void *x, const void *y, void *arg)
{
	const struct an_kernel_row *a = x, *b = y;
	const struct model *m = arg;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(model_str(m, a->name), model_str(m, b->name));
}

static int prop_cmp(const void *x, const void *y, void *arg)
{
	const struct an_kernel_row *a = x, *b = y;
	const struct model *m = arg;
	int c;

	if ((c = strcmp(model_str(m, a->name), model_str(m, b->name))))
		return c;
	if ((c = strcmp(model_str(m, a->op_name), model_str(m, b->op_name))))
		return c;
	if ((c = strcmp(model_str(m, a->grid), model_str(m, b->grid))))
		return c;
	if ((c = strcmp(model_str(m, a->block), model_str(m, b->block))))
		return c;
	if (a->regs != b->regs)
		return a->regs < b->regs ? -1 : 1;
	return (a->shared_mem > b->shared_mem) - (a->shared_mem < b->shared_mem);
}

static uint32_t pair_id(struct hmap *h, uint32_t a, uint32_t b)
{
	uint32_t *v = hmap_put(h, hmap_pair(a, b), (uint32_t)h->n, NULL);
	return v ? *v : MODEL_NOIDX;
}

/* The key of kernel e's row in the by-properties view (name, operator,
 * grid, block, registers, shared memory, all interned as pairs) into *key,
 * and those properties into proto. */
static int prop_key(struct hmap *pairs, const struct model_event *e, const struct model_dev_args *a,
		    uint32_t op_name, struct an_kernel_row *proto, uint64_t *key)
{
	uint32_t grid = a ? a->grid : 0, block = a ? a->block : 0;
	int32_t regs = a && a->regs > 0 ? a->regs : 0;
	int64_t smem = a && a->shared_mem > 0 ? a->shared_mem : 0;
	uint32_t k1 = pair_id(pairs, e->name, op_name);
	uint32_t k2 = pair_id(pairs, grid, block);
	uint32_t k3 = pair_id(pairs, (uint32_t)regs, (uint32_t)smem);
	uint32_t k4 = pair_id(pairs, (uint32_t)(smem >> 32) | 0x80000000u, k3);
	uint32_t k5 = pair_id(pairs, k2 | 0x40000000u, k4);

	if (k1 == MODEL_NOIDX || k2 == MODEL_NOIDX || k3 == MODEL_NOIDX || k4 == MODEL_NOIDX ||
	    k5 == MODEL_NOIDX)
		return NNS_ENOMEM;
	proto->op_name = op_name;
	proto->grid = grid;
	proto->block = block;
	proto->regs = regs;
	proto->shared_mem = smem;
	*key = hmap_pair(k1, k5);
	return 0;
}

int an_kernels_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct an_kernels *k = &p->kernels;
	struct hmap by_name, by_prop, pairs;
	acc_vec acc_name = {0}, acc_prop = {0};
	size_t i;
	int rc = NNS_ENOMEM;

	hmap_init(&by_name);
	hmap_init(&by_prop);
	hmap_init(&pairs);
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		const struct model_event *e = &m->events.v[i];
		const struct model_dev_args *a = NULL;
		struct an_kernel_row proto;
		uint64_t key;
		uint32_t node;
		int tc;
		if (e->kind != MK_KERNEL)
			continue;
		if (e->extra != MODEL_NOIDX)
			a = &m->dev_args.v[e->extra];
		tc = an_tc_kernel_id(p, e->name);
		memset(&proto, 0, sizeof(proto));
		proto.name = e->name;
		proto.tensor_core = tc;
		k->total_time += e->dur;
		if (add_kernel((kernel_rows *)&k->by_name, &acc_name, &by_name, e->name, e, a,
			       &proto))
			goto out;
		node = p->tree.owner ? an_owner(&p->tree, i) : MODEL_NOIDX;
		if (node == MODEL_NOIDX || p->tree.nodes.v[node].type != AN_NODE_OP)
			continue;
		if (prop_key(&pairs, e, a, p->tree.nodes.v[node].name, &proto, &key) ||
		    add_kernel((kernel_rows *)&k->by_properties, &acc_prop, &by_prop, key, e, a,
			       &proto))
			goto out;
	}
	finish((kernel_rows *)&k->by_name, &acc_name);
	finish((kernel_rows *)&k->by_properties, &acc_prop);
	if (k->by_name.n > 1)
		qsort_r(k->by_name.v, k->by_name.n, sizeof(struct an_kernel_row), total_cmp,
			(void *)m);
	if (k->by_properties.n > 1)
		qsort_r(k->by_properties.v, k->by_properties.n, sizeof(struct an_kernel_row),
			prop_cmp, (void *)m);
	k->tc_used_ratio = p->tc.used_ratio; /* -1 on AMD, MTIA, pre-Volta: unknown */
	rc = NNS_OK;
out:
	hmap_release(&by_name);
	hmap_release(&by_prop);
	hmap_release(&pairs);
	vec_free(&acc_name);
	vec_free(&acc_prop);
	if (rc)
		nns_err_set(err, rc, "out of memory in the kernel view");
	return rc;
}
