/*
 * memory.c - the memory view (tb_plugin memory_parser.py and
 * run.py get_memory_stats / get_memory_curve / get_memory_events).
 *
 * From the `[memory]` records of the model (sorted by time):
 *   - devices: Device Type 0 -> "CPU", 1 -> "GPU<id>", others ignored;
 *   - attribution: each record belongs to the innermost op-tree node of its
 *     own thread with start <= ts < end, found by one forward walk per
 *     thread (records and children are both in time order); it counts only
 *     if that node is an operator (AN_NODE_OP);
 *   - per operator node and device: self size increase (sum of bytes), self
 *     allocation size (sum of positive bytes) and count; the totals add all
 *     descendants; rows are aggregated by operator name, with Calls = the
 *     number of operator nodes of that name, and all-zero rows dropped;
 *   - the curve (ts, Total Allocated, Total Reserved) of the records with an
 *     address and both totals, down-sampled with LTTB to at most
 *     AN_MEM_CURVE_MAX points, always keeping the allocated (and reserved)
 *     peak; peak_allocated = max Total Allocated;
 *   - allocation/free pairs matched by address in time order, per device,
 *     with a hash map of open allocations.
 *
 * Deliberate differences from tb_plugin, all on inputs it mishandles:
 *   - pairing is per device (tb_plugin shares one address map between CPU
 *     and GPUs); an allocation at an address that is still open is reported
 *     as unpaired (tb_plugin silently lost it); zero-byte records are not
 *     treated as frees;
 *   - event rows are in allocation (or unpaired free) time order rather
 *     than paired-first;
 *   - a thread without an op tree falls back to the tree of a thread with
 *     the same tid (tb_plugin keys trees by tid only);
 *   - devices are ordered CPU, GPU0, GPU1, ... GPU10 (numeric, not string);
 *   - Calls counts every operator node of the name; tb_plugin counted only
 *     the nodes its traversal reached (it skips subtrees under nodes no
 *     record fell into), which undercounts nested ops;
 *   - an aten::empty* directly under the thread root is labelled alone
 *     (tb_plugin wrote "CallTreeRoot (aten::empty)").
 */
#include "an_memory.h"
#include "analysis.h"
#include "common/satmath.h"
#include "common/hmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AN_MEM_CURVE_MAX 10240
#define AN_MEM_DEVICES_MAX 1024

struct mem_ctx {
	const struct model *m;
	const struct an_optree *t;
	uint32_t *dev_of;  /* per record: device index or MODEL_NOIDX */
	uint32_t *node_of; /* per record: operator node or MODEL_NOIDX */
};

/* ---- devices --------------------------------------------------------------- */

static void device_name(struct an_mem_device *d)
{
	if (d->device_type == 0)
		snprintf(d->name, sizeof(d->name), "CPU");
	else
		snprintf(d->name, sizeof(d->name), "GPU%d", d->device_id);
}

struct dev_key {
	int type, id;
	uint32_t old;
};

static int dev_key_cmp(const void *x, const void *y)
{
	const struct dev_key *a = x, *b = y;
	if (a->type != b->type)
		return a->type - b->type;
	return (a->id > b->id) - (a->id < b->id);
}

/* Finds the devices and sets ctx->dev_of; devices end up sorted CPU, GPU0,
 * GPU1, ... (at most AN_MEM_DEVICES_MAX; records of others are ignored). */
static int find_devices(struct an_profile *p, struct mem_ctx *c)
{
	const struct model *m = c->m;
	struct an_memory *mem = &p->memory;
	struct dev_key *keys;
	uint32_t *remap;
	uint32_t last = MODEL_NOIDX;
	size_t i, k, n;

	for (i = 0; i < m->mems.n; i++) {
		const struct model_mem *r = &m->mems.v[i];
		int type = r->device_type, id = type == 0 ? -1 : r->device_id;
		c->dev_of[i] = MODEL_NOIDX;
		if (type != 0 && type != 1)
			continue;
		if (last != MODEL_NOIDX && mem->devices.v[last].device_type == type &&
		    mem->devices.v[last].device_id == id) {
			c->dev_of[i] = last;
			continue;
		}
		for (k = 0; k < mem->devices.n; k++)
			if (mem->devices.v[k].device_type == type &&
			    mem->devices.v[k].device_id == id)
				break;
		if (k == mem->devices.n) {
			struct an_mem_device d;
			if (k >= AN_MEM_DEVICES_MAX)
				continue;
			memset(&d, 0, sizeof(d));
			d.device_type = type;
			d.device_id = id;
			d.peak_allocated = -1;
			device_name(&d);
			if (vec_push(&mem->devices, d))
				return NNS_ENOMEM;
		}
		c->dev_of[i] = last = (uint32_t)k;
	}
	n = mem->devices.n;
	if (n < 2)
		return 0;
	keys = malloc(n * sizeof(*keys));
	remap = malloc(n * sizeof(*remap));
	if (!keys || !remap) {
		free(keys);
		free(remap);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		keys[i].type = mem->devices.v[i].device_type;
		keys[i].id = mem->devices.v[i].device_id;
		keys[i].old = (uint32_t)i;
	}
	qsort(keys, n, sizeof(*keys), dev_key_cmp);
	for (i = 0; i < n; i++) {
		remap[keys[i].old] = (uint32_t)i;
		/* the vectors are still empty: only the header fields move */
		mem->devices.v[i].device_type = keys[i].type;
		mem->devices.v[i].device_id = keys[i].id;
		device_name(&mem->devices.v[i]);
	}
	for (i = 0; i < m->mems.n; i++)
		if (c->dev_of[i] != MODEL_NOIDX)
			c->dev_of[i] = remap[c->dev_of[i]];
	free(keys);
	free(remap);
	return 0;
}

/* ---- attribution ----------------------------------------------------------- */

/* The op-tree root of every thread (MODEL_NOIDX if none); a thread without
 * a tree borrows the tree of a thread with the same tid text. */
static uint32_t *thread_roots(const struct model *m, const struct an_optree *t)
{
	size_t nthr = m->threads.n, i, j;
	uint32_t *root = malloc((nthr + 1) * sizeof(*root));

	if (!root)
		return NULL;
	for (i = 0; i < nthr; i++)
		root[i] = MODEL_NOIDX;
	for (i = 0; i < t->roots.n; i++) {
		uint32_t th = t->root_threads.v[i];
		if (th < nthr)
			root[th] = t->roots.v[i];
	}
	for (i = 0; i < nthr; i++) {
		if (root[i] != MODEL_NOIDX)
			continue;
		for (j = 0; j < t->roots.n; j++) {
			uint32_t th = t->root_threads.v[j];
			if (th < nthr && m->threads.v[th].tid == m->threads.v[i].tid) {
				root[i] = t->roots.v[j];
				break;
			}
		}
	}
	return root;
}

/* One forward walk over the time-ordered records `idx` of one thread. The
 * current node only moves forward through siblings or down into children,
 * and back up through parents, so the walk is linear in records + nodes. */
static void walk_thread(struct mem_ctx *c, uint32_t root, const uint32_t *idx, size_t n)
{
	const struct an_node *nd = c->t->nodes.v;
	uint32_t cur = root, child = nd[root].first_child;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t ts = c->m->mems.v[idx[i]].ts;
		while (cur != root && ts >= an_node_end(c->m, &nd[cur])) {
			child = nd[cur].next_sibling;
			cur = nd[cur].parent;
		}
		while (child != MODEL_NOIDX) {
			if (ts < an_node_start(c->m, &nd[child]))
				break;
			if (ts >= an_node_end(c->m, &nd[child])) {
				child = nd[child].next_sibling;
				continue;
			}
			cur = child;
			child = nd[cur].first_child;
		}
		c->node_of[idx[i]] = cur != root && nd[cur].type == AN_NODE_OP ? cur : MODEL_NOIDX;
	}
}

static int attribute(struct mem_ctx *c)
{
	const struct model *m = c->m;
	size_t nthr = m->threads.n, n = m->mems.n, i;
	uint32_t *root = NULL, *count = NULL, *start = NULL, *order = NULL;
	int rc = NNS_ENOMEM;

	for (i = 0; i < n; i++)
		c->node_of[i] = MODEL_NOIDX;
	if (!c->t->nodes.n)
		return 0;
	root = thread_roots(m, c->t);
	count = calloc(nthr + 1, sizeof(*count));
	start = calloc(nthr + 1, sizeof(*start));
	order = malloc((n + 1) * sizeof(*order));
	if (!root || !count || !start || !order)
		goto out;
	/* counting sort of record indices by thread, stable (time order kept) */
	for (i = 0; i < n; i++)
		if (c->dev_of[i] != MODEL_NOIDX && m->mems.v[i].thread < nthr)
			count[m->mems.v[i].thread]++;
	for (i = 1; i < nthr; i++)
		start[i] = start[i - 1] + count[i - 1];
	memset(count, 0, (nthr + 1) * sizeof(*count));
	for (i = 0; i < n; i++) {
		uint32_t th = m->mems.v[i].thread;
		if (c->dev_of[i] != MODEL_NOIDX && th < nthr)
			order[start[th] + count[th]++] = (uint32_t)i;
	}
	for (i = 0; i < nthr; i++)
		if (count[i] && root[i] != MODEL_NOIDX)
			walk_thread(c, root[i], order + start[i], count[i]);
	rc = 0;
out:
	free(root);
	free(count);
	free(start);
	free(order);
	return rc;
}

/* ---- per-operator statistics ------------------------------------------------ */

enum { S_INC, S_ASIZE, S_ACOUNT, S_N };

/* Rows are sorted by operator name (sorting keys that carry the text). */
struct row_key {
	const char *name;
	uint32_t row;
};

static int row_key_cmp(const void *x, const void *y)
{
	const struct row_key *a = x, *b = y;
	return strcmp(a->name, b->name);
}

static int sort_rows(const struct model *m, struct an_mem_device *d)
{
	struct row_key *k;
	struct an_mem_op_row *tmp;
	size_t i, n = d->ops.n;

	if (n < 2)
		return 0;
	k = malloc(n * sizeof(*k));
	tmp = malloc(n * sizeof(*tmp));
	if (!k || !tmp) {
		free(k);
		free(tmp);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		k[i].name = model_str(m, d->ops.v[i].name);
		k[i].row = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), row_key_cmp);
	for (i = 0; i < n; i++)
		tmp[i] = d->ops.v[k[i].row];
	memcpy(d->ops.v, tmp, n * sizeof(*tmp));
	free(k);
	free(tmp);
	return 0;
}

/* Self and total metrics of every node for device `dev`, then rows. Self
 * metrics are kept only for the nodes that own a record of dev (slot[node]
 * indexes them, MODEL_NOIDX for the others): most nodes own none, and a
 * second per-node array beside tot was tens of MB on a big trace. */
static int device_stats(struct mem_ctx *c, struct an_mem_device *d, uint32_t dev, uint32_t *slot,
			int64_t *tot, uint32_t *row_of_name, const int64_t *calls_of_name)
{
	static const int64_t none[S_N];
	const struct model *m = c->m;
	const struct an_optree *t = c->t;
	size_t nn = t->nodes.n, i, s, k = 0;
	int64_t *self;

	for (i = 0; i < nn; i++)
		slot[i] = MODEL_NOIDX;
	for (i = 0; i < m->mems.n; i++) {
		uint32_t node = c->node_of[i];
		if (c->dev_of[i] == dev && node != MODEL_NOIDX && slot[node] == MODEL_NOIDX)
			slot[node] = (uint32_t)k++;
	}
	if (!k)
		return 0;
	if (!(self = calloc(k * S_N, sizeof(*self))))
		return NNS_ENOMEM;
	for (i = 0; i < m->mems.n; i++) {
		uint32_t node = c->node_of[i];
		int64_t b = m->mems.v[i].bytes, *x;
		if (c->dev_of[i] != dev || node == MODEL_NOIDX)
			continue;
		x = self + (size_t)slot[node] * S_N;
		x[S_INC] = sat_add64(x[S_INC], b);
		if (b > 0) {
			x[S_ASIZE] = sat_add64(x[S_ASIZE], b);
			x[S_ACOUNT]++;
		}
	}
	for (i = 0; i < nn; i++)
		memcpy(tot + i * S_N, slot[i] == MODEL_NOIDX ? none : self + (size_t)slot[i] * S_N,
		       sizeof(none));
	/* parents have smaller indices than their children */
	for (i = nn; i-- > 0;) {
		uint32_t par = t->nodes.v[i].parent;
		if (par == MODEL_NOIDX)
			continue;
		for (s = 0; s < S_N; s++)
			tot[par * S_N + s] = sat_add64(tot[par * S_N + s], tot[i * S_N + s]);
	}
	for (i = 0; i < nn; i++) {
		const struct an_node *x = &t->nodes.v[i];
		const int64_t *a = slot[i] == MODEL_NOIDX ? none : self + (size_t)slot[i] * S_N,
			      *b = tot + i * S_N;
		struct an_mem_op_row *r;
		if (x->type != AN_NODE_OP)
			continue;
		if (!a[0] && !a[1] && !a[2] && !b[0] && !b[1] && !b[2])
			continue;
		if (row_of_name[x->name] == MODEL_NOIDX) {
			struct an_mem_op_row z;
			memset(&z, 0, sizeof(z));
			z.name = x->name;
			z.calls = calls_of_name[x->name];
			if (vec_push(&d->ops, z)) {
				free(self);
				return NNS_ENOMEM;
			}
			row_of_name[x->name] = (uint32_t)(d->ops.n - 1);
		}
		r = &d->ops.v[row_of_name[x->name]];
		r->self_size_increase = sat_add64(r->self_size_increase, a[S_INC]);
		r->self_alloc_size = sat_add64(r->self_alloc_size, a[S_ASIZE]);
		r->self_alloc_count = sat_add64(r->self_alloc_count, a[S_ACOUNT]);
		r->size_increase = sat_add64(r->size_increase, b[S_INC]);
		r->alloc_size = sat_add64(r->alloc_size, b[S_ASIZE]);
		r->alloc_count = sat_add64(r->alloc_count, b[S_ACOUNT]);
	}
	free(self);
	for (i = 0; i < d->ops.n; i++)
		row_of_name[d->ops.v[i].name] = MODEL_NOIDX;
	return sort_rows(m, d);
}

static int op_stats(struct an_profile *p, struct mem_ctx *c)
{
	const struct model *m = c->m;
	const struct an_optree *t = c->t;
	size_t nn = t->nodes.n, ns = m->strings.count, i;
	int64_t *tot = NULL, *calls = NULL;
	uint32_t *slot = NULL, *row_of_name = NULL;
	int rc = NNS_ENOMEM;

	if (!nn)
		return 0;
	slot = malloc(nn * sizeof(*slot));
	tot = malloc(nn * S_N * sizeof(*tot));
	calls = calloc(ns + 1, sizeof(*calls));
	row_of_name = malloc((ns + 1) * sizeof(*row_of_name));
	if (!slot || !tot || !calls || !row_of_name)
		goto out;
	for (i = 0; i < ns; i++)
		row_of_name[i] = MODEL_NOIDX;
	for (i = 0; i < nn; i++)
		if (t->nodes.v[i].type == AN_NODE_OP && t->nodes.v[i].name < ns)
			calls[t->nodes.v[i].name]++;
	for (i = 0; i < p->memory.devices.n; i++)
		if (device_stats(c, &p->memory.devices.v[i], (uint32_t)i, slot, tot, row_of_name,
				 calls))
			goto out;
	rc = 0;
out:
	free(slot);
	free(tot);
	free(calls);
	free(row_of_name);
	return rc;
}

/* ---- curve ------------------------------------------------------------------ */

static double tri_area(const struct an_mem_point *a, const struct an_mem_point *b, double cx,
		       double cy)
{
	double ax = (double)a->ts, ay = (double)a->allocated;
	double v = (ax - cx) * ((double)b->allocated - ay) - (ax - (double)b->ts) * (cy - ay);
	return v < 0 ? -v : v;
}

/* Largest-Triangle-Three-Buckets down-sampling to `max` points, except that
 * the bucket holding the allocated peak (or else the reserved peak) keeps
 * that point, so the plotted maximum is the true one. */
static int downsample(struct an_mem_device *d, size_t max)
{
	size_t n = d->curve.n, i, pa = 0, pr = 0, o = 0, a = 0;
	struct an_mem_point *src = d->curve.v, *dst;
	size_t nb, span;

	if (n <= max || max < 3)
		return 0;
	nb = max - 2;
	span = n - 2;
	for (i = 1; i < n; i++) {
		if (src[i].allocated > src[pa].allocated)
			pa = i;
		if (src[i].reserved > src[pr].reserved)
			pr = i;
	}
	dst = malloc(max * sizeof(*dst));
	if (!dst)
		return NNS_ENOMEM;
	dst[o++] = src[0];
	for (i = 0; i < max - 2; i++) {
		/* bucket i is [1 + i*span/nb, 1 + (i+1)*span/nb): the buckets tile
		 * [1, n-1) exactly, so the peak always falls in one of them */
		size_t lo = 1 + i * span / nb, hi = 1 + (i + 1) * span / nb;
		size_t nlo = hi, nhi = 1 + (i + 2) * span / nb, j, best = lo;
		double cx = 0, cy = 0, best_area = -1;
		if (hi > n - 1)
			hi = n - 1;
		if (nhi > n)
			nhi = n;
		if (nlo >= nhi) { /* the last bucket: aim at the final point */
			nlo = n - 1;
			nhi = n;
		}
		for (j = nlo; j < nhi; j++) {
			cx += (double)src[j].ts;
			cy += (double)src[j].allocated;
		}
		cx /= (double)(nhi - nlo);
		cy /= (double)(nhi - nlo);
		if (pa >= lo && pa < hi) {
			best = pa;
		} else if (pr >= lo && pr < hi) {
			best = pr;
		} else {
			for (j = lo; j < hi; j++) {
				double ar = tri_area(&src[a], &src[j], cx, cy);
				if (ar > best_area) {
					best_area = ar;
					best = j;
				}
			}
		}
		dst[o++] = src[best];
		a = best;
	}
	dst[o++] = src[n - 1];
	free(d->curve.v);
	d->curve.v = dst;
	d->curve.n = o;
	d->curve.cap = max;
	return 0;
}

static int curves(struct an_profile *p, struct mem_ctx *c)
{
	const struct model *m = c->m;
	const int need =
	    MODEL_MEM_HAS_ADDR | MODEL_MEM_HAS_TOTAL_ALLOC | MODEL_MEM_HAS_TOTAL_RESERVED;
	size_t i;

	for (i = 0; i < m->mems.n; i++) {
		const struct model_mem *r = &m->mems.v[i];
		struct an_mem_device *d;
		if (c->dev_of[i] == MODEL_NOIDX)
			continue;
		d = &p->memory.devices.v[c->dev_of[i]];
		if ((r->flags & MODEL_MEM_HAS_TOTAL_ALLOC) &&
		    r->total_allocated > d->peak_allocated)
			d->peak_allocated = r->total_allocated;
		if ((r->flags & need) == need) {
			struct an_mem_point pt = {r->ts, r->total_allocated, r->total_reserved};
			if (vec_push(&d->curve, pt))
				return NNS_ENOMEM;
		}
	}
	for (i = 0; i < p->memory.devices.n; i++)
		if (downsample(&p->memory.devices.v[i], AN_MEM_CURVE_MAX))
			return NNS_ENOMEM;
	return 0;
}

/* ---- allocation / free pairs --------------------------------------------------- */

static void label_alloc(struct mem_ctx *c, uint32_t node, struct an_mem_event *e)
{
	const struct an_node *nd = c->t->nodes.v;
	uint32_t par;

	if (node == MODEL_NOIDX)
		return;
	e->op = nd[node].name;
	par = nd[node].parent;
	/* aten::empty* is PyTorch's malloc: name the op that called it */
	if (par != MODEL_NOIDX && nd[par].type != AN_NODE_ROOT &&
	    strncmp(model_str(c->m, e->op), "aten::empty", 11) == 0)
		e->parent_op = nd[par].name;
}

static int pair_events(struct an_profile *p, struct mem_ctx *c)
{
	const struct model *m = c->m;
	size_t nd = p->memory.devices.n, i;
	struct hmap *open = calloc(nd + 1, sizeof(*open));
	int rc = NNS_ENOMEM;

	if (!open)
		return NNS_ENOMEM;
	for (i = 0; i < m->mems.n; i++) {
		const struct model_mem *r = &m->mems.v[i];
		struct an_mem_device *d;
		struct an_mem_event e;
		uint32_t *slot;
		uint32_t dev = c->dev_of[i];
		if (dev != MODEL_NOIDX)
			p->memory.devices.v[dev].records++;
		if (dev == MODEL_NOIDX || !(r->flags & MODEL_MEM_HAS_ADDR) || r->bytes == 0)
			continue;
		d = &p->memory.devices.v[dev];
		memset(&e, 0, sizeof(e));
		e.addr = r->addr;
		if (r->bytes > 0) {
			int is_new;
			e.size = r->bytes;
			e.alloc_ts = r->ts;
			e.free_ts = MODEL_NONE;
			label_alloc(c, c->node_of[i], &e);
			if (vec_push(&d->events, e))
				goto out;
			slot = hmap_put(&open[dev], (uint64_t)r->addr, MODEL_NOIDX, &is_new);
			if (!slot)
				goto out;
			/* an address still open: its earlier allocation stays unpaired */
			*slot = (uint32_t)(d->events.n - 1);
		} else {
			slot = hmap_get(&open[dev], (uint64_t)r->addr);
			if (slot && *slot != MODEL_NOIDX) {
				d->events.v[*slot].free_ts = r->ts;
				*slot = MODEL_NOIDX;
				continue;
			}
			e.size = -r->bytes;
			e.alloc_ts = MODEL_NONE;
			e.free_ts = r->ts;
			if (vec_push(&d->events, e))
				goto out;
		}
	}
	rc = 0;
out:
	for (i = 0; i < nd; i++)
		hmap_release(&open[i]);
	free(open);
	return rc;
}

int an_mem_event_label(const struct model *m, const struct an_mem_event *e, char *buf, size_t n)
{
	if (!e->op)
		return snprintf(buf, n, "<unknown>");
	if (e->parent_op)
		return snprintf(buf, n, "%s (%s)", model_str(m, e->parent_op), model_str(m, e->op));
	return snprintf(buf, n, "%s", model_str(m, e->op));
}

int an_memory_compute(struct an_profile *p, struct nns_err *err)
{
	struct mem_ctx c;
	size_t n = p->m->mems.n;
	int rc = NNS_ENOMEM;

	memset(&c, 0, sizeof(c));
	c.m = p->m;
	c.t = &p->tree;
	if (!n)
		return NNS_OK;
	c.dev_of = malloc(n * sizeof(*c.dev_of));
	c.node_of = malloc(n * sizeof(*c.node_of));
	if (!c.dev_of || !c.node_of)
		goto out;
	if (find_devices(p, &c) || attribute(&c) || op_stats(p, &c) || curves(p, &c) ||
	    pair_events(p, &c))
		goto out;
	rc = NNS_OK;
out:
	free(c.dev_of);
	free(c.node_of);
	if (rc)
		nns_err_set(err, rc, "out of memory in the memory view (%zu records)", n);
	return rc;
}
