/*
 * ms_memory.c - MindInsight's device memory views (usage curve over the
 * execution order, peak, per-node breakdown, tensor lifetimes) from a
 * decoded memory_usage_<dev>.pb; the definitions are in ms_memory.h.
 * The curve is built from a difference array, O(nodes + tensors), so a
 * file of long-lived tensors costs no more than a short one.
 */
#include "analysis/ms_memory.h"
#include "common/hmap.h"
#include "common/strhash.h"
#include "importers/ms_src.h"

#include <stdlib.h>
#include <string.h>

static const char *after_slash(const char *s)
{
	const char *p = strrchr(s, '/');

	return p ? p + 1 : s;
}

/* name -> index map over strings; the last insert of a name wins. */
static int names_put(struct hmap *h, const char *name, uint32_t idx)
{
	int is_new;
	uint32_t *v = hmap_put(h, strhash(name), idx, &is_new);

	if (!v)
		return NNS_ENOMEM;
	*v = idx;
	return NNS_OK;
}

struct gctx {
	const struct ms_mem_file *f;
	const struct ms_mem_graph *g;
	const struct ms_fw *fw;
	const struct hmap *fw_names; /* short op name -> fw op */
	struct hmap ids;	     /* tensor id -> row */
	struct ms_mem_gres *gr;
};

static int64_t fw_find(const struct gctx *c, const char *name)
{
	const uint32_t *v;

	if (!c->fw || !(v = hmap_get(c->fw_names, strhash(name))))
		return -1;
	if (strcmp(after_slash(ms_fw_str(c->fw, c->fw->ops.v[*v].name)), name) != 0)
		return -1; /* two names, one hash */
	return *v;
}

static int row_of(struct gctx *c, uint64_t id, uint32_t nidx, const char *what, struct nns_err *err)
{
	const uint32_t *v = hmap_get(&c->ids, id);

	if (v)
		return (int)*v;
	return nns_err_set(
	    err, NNS_EFORMAT, "graph %lld: node %u (%s): %s tensor %llu is not in tensor_mems",
	    (long long)c->g->graph_id, nidx,
	    ms_mem_str(c->f, c->f->nodes.v[c->g->node0 + nidx].name), what, (unsigned long long)id);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Tensor rows: distinct ids, first place, last value; their live ranges. */
static int tensors(struct gctx *c, struct nns_err *err)
{
	struct ms_mem_gres *gr = c->gr;
	uint64_t nn = c->g->nnode;

	for (uint32_t i = 0; i < c->g->ntensor; i++) {
		const struct ms_mem_tensor *t = &c->f->tensors.v[c->g->tensor0 + i];
		int is_new;
		uint32_t *v = hmap_put(&c->ids, t->tensor_id, (uint32_t)gr->ntensor, &is_new);

		if (!v)
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
		if (is_new)
			gr->ntensor++;
		gr->tensors[*v] = (struct ms_mem_trow){c->g->tensor0 + i, -1, -1, t->life_start,
						       t->life_end,	  -1, -1, -1};
	}
	for (size_t k = 0; k < gr->ntensor; k++) {
		struct ms_mem_trow *r = &gr->tensors[k];
		const struct ms_mem_tensor *t = &c->f->tensors.v[r->t];
		const char *ll = ms_mem_str(c->f, t->life_long);
		uint64_t a = 0, b = 0;
		int live = 0;

		if (strcmp(ll, "LifeLongGraphAll") == 0) {
			r->life_start = 0;
			r->life_end = nn;
			a = 0, b = nn, live = 1;
		} else if (strcmp(ll, "LifeLongGraphStart") == 0) {
			r->life_start = 0;
			a = 0, b = t->life_end < nn ? t->life_end + 1 : nn, live = 1;
		} else if (strcmp(ll, "LifeLongGraphEnd") == 0 && t->life_start <= nn) {
			r->life_end = nn;
			a = t->life_start, b = nn, live = 1;
		} else if (strcmp(ll, "LifeLongNone") == 0 && t->life_start <= t->life_end) {
			a = t->life_start < nn ? t->life_start : nn;
			b = t->life_end < nn ? t->life_end + 1 : nn, live = 1;
		}
		if (live) {
			r->from = (int64_t)a;
			r->to = (int64_t)b;
		}
	}
	return NNS_OK;
}

static int curve(struct gctx *c, struct nns_err *err)
{
	struct ms_mem_gres *gr = c->gr;
	int64_t *d, run = (int64_t)c->g->static_mem;

	if (!gr->nnode) {
		gr->peak = run;
		return NNS_OK;
	}
	if (!(d = calloc(gr->nnode + 1, sizeof(*d))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t k = 0; k < gr->ntensor; k++) {
		const struct ms_mem_trow *r = &gr->tensors[k];
		int64_t sz = (int64_t)c->f->tensors.v[r->t].size;

		if (r->from < 0 || r->from >= r->to)
			continue;
		if (__builtin_add_overflow(d[r->from], sz, &d[r->from]) ||
		    __builtin_sub_overflow(d[r->to], sz, &d[r->to]))
			goto overflow;
	}
	for (size_t i = 0; i < gr->nnode; i++) {
		if (__builtin_add_overflow(run, d[i], &run))
			goto overflow;
		gr->lines[i] = run;
		if (gr->peak_node < 0 || run > gr->peak) {
			gr->peak = run;
			gr->peak_node = (int64_t)i;
		}
	}
	free(d);
	return NNS_OK;
overflow:
	free(d);
	return nns_err_set(err, NNS_EFORMAT, "graph %lld: memory total overflows",
			   (long long)c->g->graph_id);
}

static int nodes(struct gctx *c, struct nns_err *err)
{
	struct ms_mem_gres *gr = c->gr;
	const struct ms_mem_file *f = c->f;
	uint64_t *tmp = NULL;
	size_t cap = 0;
	int rc = NNS_OK;

	for (uint32_t i = 0; i < gr->nnode; i++) {
		const struct ms_mem_node *nd = &f->nodes.v[c->g->node0 + i];
		struct ms_mem_nrow *nr = &gr->nodes[i];
		size_t m = (size_t)nd->nout + nd->nws, u = 0;

		nr->n = c->g->node0 + i;
		nr->fw_op = fw_find(c, ms_mem_str(f, nd->name));
		if (m > cap) {
			free(tmp);
			cap = m;
			if (!(tmp = malloc(cap * sizeof(*tmp))))
				return nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
		if (m) { /* memcpy from/to NULL is undefined even for 0 bytes */
			memcpy(tmp, f->ids.v + nd->out0, nd->nout * sizeof(*tmp));
			memcpy(tmp + nd->nout, f->ids.v + nd->ws0, nd->nws * sizeof(*tmp));
			qsort(tmp, m, sizeof(*tmp), cmp_u64);
		}
		for (size_t k = 0; k < m; k++) {
			int row;

			if (k && tmp[k] == tmp[k - 1])
				continue;
			if ((row = row_of(c, tmp[k], i, "output or workspace", err)) < 0) {
				rc = row;
				goto out;
			}
			u++;
			if (__builtin_add_overflow(nr->size,
						   (int64_t)f->tensors.v[gr->tensors[row].t].size,
						   &nr->size)) {
				rc = nns_err_set(err, NNS_EFORMAT,
						 "graph %lld: memory total overflows",
						 (long long)c->g->graph_id);
				goto out;
			}
		}
		nr->allocations = (uint32_t)u;
		nr->allocated = gr->lines[i] - (i ? gr->lines[i - 1] : (int64_t)c->g->static_mem);
		/* source node: the last node listing the tensor as an output */
		for (uint32_t k = 0; k < nd->nout; k++)
			gr->tensors[*hmap_get(&c->ids, f->ids.v[nd->out0 + k])].source = i;
	}
	/* "<node>:<k>": the last k of the tensor among its source's outputs */
	for (uint32_t i = 0; i < gr->nnode; i++) {
		const struct ms_mem_node *nd = &f->nodes.v[c->g->node0 + i];

		for (uint32_t k = 0; k < nd->nout; k++) {
			struct ms_mem_trow *r =
			    &gr->tensors[*hmap_get(&c->ids, f->ids.v[nd->out0 + k])];

			if (r->source == (int64_t)i)
				r->out_idx = k;
		}
	}
out:
	free(tmp);
	return rc;
}

/* The k-th non-input entry of the source node's op_info. */
static void shapes(struct gctx *c)
{
	const struct ms_fw *fw = c->fw;

	for (size_t k = 0; fw && k < c->gr->ntensor; k++) {
		struct ms_mem_trow *r = &c->gr->tensors[k];
		const struct ms_opinfo *o;
		int64_t op, seen = 0;

		if (r->source < 0 || r->out_idx < 0 || (op = c->gr->nodes[r->source].fw_op) < 0)
			continue;
		o = &fw->ops.v[op];
		for (uint32_t t = o->t0; t < o->t0 + o->nt; t++) {
			if (strstr(ms_fw_str(fw, fw->t.v[t].key), "input"))
				continue;
			if (seen++ == r->out_idx) {
				r->fw_tensor = t;
				break;
			}
		}
	}
}

static int64_t point(struct gctx *c, const char *pt)
{
	const char *want = after_slash(pt ? pt : "");
	int64_t found = -1;

	if (!*want)
		return -1;
	for (size_t i = 0; i < c->gr->nnode; i++) /* the last node of that name */
		if (strcmp(ms_mem_str(c->f, c->f->nodes.v[c->g->node0 + i].name), want) == 0)
			found = (int64_t)c->f->nodes.v[c->g->node0 + i].node_id;
	return found;
}

static void gres_free(struct ms_mem_gres *gr)
{
	free(gr->lines);
	free(gr->nodes);
	free(gr->tensors);
	memset(gr, 0, sizeof(*gr));
}

static int one_graph(struct ms_mem_gres *gr, const struct ms_mem_file *f, uint32_t gi,
		     const struct ms_fw *fw, const struct hmap *fw_names, const char *fp,
		     const char *bp, struct nns_err *err)
{
	struct gctx c = {f, &f->graphs.v[gi], fw, fw_names, {0}, gr};
	int rc;

	memset(gr, 0, sizeof(*gr));
	gr->g = gi;
	gr->nnode = c.g->nnode;
	gr->peak_node = -1;
	hmap_init(&c.ids);
	gr->tensors = calloc(c.g->ntensor ? c.g->ntensor : 1, sizeof(*gr->tensors));
	gr->nodes = calloc(gr->nnode ? gr->nnode : 1, sizeof(*gr->nodes));
	gr->lines = calloc(gr->nnode ? gr->nnode : 1, sizeof(*gr->lines));
	if (!gr->tensors || !gr->nodes || !gr->lines) {
		rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = tensors(&c, err)) || (rc = curve(&c, err)) || (rc = nodes(&c, err)))
		goto out;
	shapes(&c);
	if (fp && *fp) {
		gr->fp_start = point(&c, fp);
		gr->bp_end = point(&c, bp);
	} else {
		gr->fp_start = point(&c, ms_mem_str(f, c.g->fp_start));
		gr->bp_end = point(&c, ms_mem_str(f, c.g->bp_end));
	}
out:
	hmap_release(&c.ids);
	if (rc)
		gres_free(gr);
	return rc;
}

int ms_mem_compute(struct ms_mem_result *r, const struct ms_mem_file *f, const struct ms_fw *fw,
		   const char *fp, const char *bp, struct nns_err *err)
{
	struct hmap fw_names, gids;
	int rc = NNS_OK;

	memset(r, 0, sizeof(*r));
	hmap_init(&fw_names);
	hmap_init(&gids);
	r->capacity = f->total_mem;
	for (size_t i = 0; fw && i < fw->ops.n; i++)
		if (names_put(&fw_names, after_slash(ms_fw_str(fw, fw->ops.v[i].name)),
			      (uint32_t)i)) {
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
			goto out;
		}
	for (uint32_t gi = 0; gi < f->graphs.n; gi++) {
		const struct ms_mem_graph *g = &f->graphs.v[gi];
		struct ms_mem_gres gr;
		uint32_t *slot;
		int is_new;

		if (!g->ntensor) {
			r->skipped++;
			continue;
		}
		if ((rc = one_graph(&gr, f, gi, fw, &fw_names, fp, bp, err)))
			goto out;
		if (!(slot =
			  hmap_put(&gids, (uint64_t)g->graph_id, (uint32_t)r->graphs.n, &is_new)) ||
		    (is_new && vec_push(&r->graphs, gr))) {
			gres_free(&gr);
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
			goto out;
		}
		if (!is_new) { /* upstream's dict: the last value at the first place */
			gres_free(&r->graphs.v[*slot]);
			r->graphs.v[*slot] = gr;
		}
		if (gr.peak > r->peak) /* upstream starts at 0 */
			r->peak = gr.peak;
		if (__builtin_add_overflow(r->static_mem, (int64_t)g->static_mem, &r->static_mem)) {
			rc = nns_err_set(err, NNS_EFORMAT, "static memory total overflows");
			goto out;
		}
		r->allocations += gr.ntensor;
		r->deallocations += gr.ntensor;
	}
out:
	hmap_release(&fw_names);
	hmap_release(&gids);
	if (rc)
		ms_mem_result_release(r);
	return rc;
}

void ms_mem_result_release(struct ms_mem_result *r)
{
	for (size_t i = 0; i < r->graphs.n; i++)
		gres_free(&r->graphs.v[i]);
	vec_free(&r->graphs);
	memset(r, 0, sizeof(*r));
}

size_t ms_mem_breakdown(const struct ms_mem_gres *gr, size_t i, size_t *out, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < gr->ntensor; k++) {
		const struct ms_mem_trow *r = &gr->tensors[k];

		if (r->source < 0 || r->from < 0 || (int64_t)i < r->from || (int64_t)i >= r->to)
			continue;
		if (n < max)
			out[n] = k;
		n++;
	}
	return n;
}

int ms_mem_load_all(struct ms_mem *m, const struct ms_src *s, const struct ms_fw *fw,
		    const char *fp, const char *bp)
{
	memset(m, 0, sizeof(*m));
	m->rc = ms_mem_load(&m->file, s, &m->err);
	if (m->rc == NNS_OK) {
		m->rc = ms_mem_compute(&m->res, &m->file, fw, fp, bp, &m->err);
		if (m->rc) {
			struct nns_err why = m->err;

			ms_mem_file_release(&m->file);
			nns_err_set(&m->err, m->rc, "memory_usage_%d.pb: %s", s->dev, why.msg);
		}
	}
	return m->rc == NNS_ENOMEM ? NNS_ENOMEM : NNS_OK;
}

void ms_mem_release(struct ms_mem *m)
{
	if (m->rc == NNS_OK) {
		ms_mem_result_release(&m->res);
		ms_mem_file_release(&m->file);
	}
	memset(m, 0, sizeof(*m));
}
