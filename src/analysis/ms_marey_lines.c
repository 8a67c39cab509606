/*
 * ms_marey_lines.c - the FLOPs / memory lines and the stage / device blocks
 * of the Marey view (ms_marey_lines.h): per device, its flops_<id>.txt rows
 * and memory_usage_<id>.pb graph-1 nodes placed at the middle of the same
 * operator in the stage timeline, and the FLOPs / peak memory summaries per
 * device and per stage.
 */
#include "analysis/ms_marey_lines.h"
#include "analysis/ms_parallel.h"
#include "common/hmap.h"
#include "common/strhash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ERRORS 64

void ms_marey_lines_init(struct ms_marey_lines *l)
{
	memset(l, 0, sizeof(*l));
	l->flops_min = l->flops_max = l->mem_min = l->mem_max = NAN;
}

static void lines_free(struct ms_marey_lines *l, int mem)
{
	for (size_t i = 0; mem ? i < l->mem.n : i < l->flops.n; i++)
		vec_free(mem ? &l->mem.v[i].pts : &l->flops.v[i].pts);
	if (mem)
		vec_free(&l->mem);
	else
		vec_free(&l->flops);
}

void ms_marey_lines_release(struct ms_marey_lines *l)
{
	lines_free(l, 0);
	lines_free(l, 1);
	vec_free(&l->blocks);
	for (size_t i = 0; i < l->errors.n; i++)
		free(l->errors.v[i]);
	vec_free(&l->errors);
	ms_marey_lines_init(l);
}

static int nomem(struct nns_err *err)
{
	return nns_err_set(err, NNS_ENOMEM, "marey lines: out of memory");
}

/* The operator name after the last '/'. */
static const char *base(const char *s)
{
	const char *p = strrchr(s, '/');

	return p ? p + 1 : s;
}

static int skipped(const char *op)
{
	return !strncmp(op, "Stream", 6) || !strncmp(op, "AtomicAddrClean", 15);
}

/* A device map's op index by name. */
struct opix {
	struct hmap h;
	const struct ms_marey_dev *d;
};

static int opix_init(struct opix *x, const struct ms_marey_dev *d)
{
	hmap_init(&x->h);
	x->d = d;
	for (size_t i = 0; i < d->ops.n; i++) {
		int is_new;

		/* on a collision the first keeps the slot; opix_find scans */
		if (!hmap_put(&x->h, strhash(d->ops.v[i].name), (uint32_t)i, &is_new))
			return -1;
	}
	return 0;
}

static const struct ms_marey_op *opix_find(const struct opix *x, const char *name)
{
	uint32_t *v = hmap_get(&x->h, strhash(name));

	if (!v)
		return NULL;
	if (!strcmp(x->d->ops.v[*v].name, name))
		return &x->d->ops.v[*v];
	for (size_t i = 0; i < x->d->ops.n; i++)
		if (!strcmp(x->d->ops.v[i].name, name))
			return &x->d->ops.v[i];
	return NULL;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct ms_marey_pt *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->seq > q->seq) - (p->seq < q->seq);
}

static int add_pt(struct ms_marey_line *ln, const struct opix *x, const char *name, double y,
		  size_t seq)
{
	const char *op = base(name);
	const struct ms_marey_op *o;
	struct ms_marey_pt pt;

	if (isnan(y) || skipped(op) || !(o = opix_find(x, op)))
		return 0;
	pt.x = (o->st + o->ed) / 2;
	pt.y = y;
	pt.op = o->name;
	pt.seq = seq;
	return vec_push(&ln->pts, pt) ? -1 : 0;
}

static double op_mflops(const struct ms_flops_op *o)
{
	if (!isnan(o->mflops))
		return o->mflops;
	if (isnan(o->mflops_cube) && isnan(o->mflops_vec))
		return NAN;
	return (isnan(o->mflops_cube) ? 0 : o->mflops_cube) +
	       (isnan(o->mflops_vec) ? 0 : o->mflops_vec);
}

/* Keeps ln (sorted) when it has points; frees it otherwise. */
static int keep(void *vec, struct ms_marey_line *ln)
{
	VEC(struct ms_marey_line) *v = vec;

	if (!ln->pts.n) {
		vec_free(&ln->pts);
		return 0;
	}
	qsort(ln->pts.v, ln->pts.n, sizeof(ln->pts.v[0]), cmp_pt);
	if (vec_push(v, *ln)) {
		vec_free(&ln->pts);
		return -1;
	}
	return 0;
}

static const struct ms_mem_gres *graph1(const struct ms_mem_result *mr,
					const struct ms_mem_file *mf)
{
	for (size_t i = 0; i < mr->graphs.n; i++)
		if (mr->graphs.v[i].g < mf->graphs.n &&
		    mf->graphs.v[mr->graphs.v[i].g].graph_id == 1)
			return &mr->graphs.v[i];
	return NULL;
}

/* The per-device values live in l->blocks (one per m->maps entry, in map
 * order) until finish reorders them. */
int ms_marey_lines_add(struct ms_marey_lines *l, const struct ms_marey *m, size_t dev,
		       const struct ms_flops *fl, const struct ms_mem_result *mr,
		       const struct ms_mem_file *mf, struct nns_err *err)
{
	const struct ms_marey_dev *d = &m->maps.v[dev];
	struct ms_marey_line ln;
	struct ms_marey_block *b;
	struct opix x;
	int bad = 0;

	while (l->blocks.n <= dev) {
		struct ms_marey_block e = {NULL, NULL, 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN};

		if (vec_push(&l->blocks, e))
			return nomem(err);
	}
	b = &l->blocks.v[dev];
	b->name = d->name;
	if (opix_init(&x, d)) {
		hmap_release(&x.h);
		return nomem(err);
	}
	if (fl && fl->has_ops) {
		memset(&ln, 0, sizeof(ln));
		ln.device = d->name;
		for (size_t i = 0; i < fl->ops.n && !bad; i++)
			bad = add_pt(&ln, &x, ms_flops_str(fl, fl->ops.v[i].name),
				     op_mflops(&fl->ops.v[i]), i);
		bad = bad || keep(&l->flops, &ln);
	}
	if (fl && fl->has_summary) {
		b->flops = fl->sum.mflops;
		b->flops_s = fl->sum.gflops;
	}
	if (!bad && mr && mf) {
		const struct ms_mem_gres *g = graph1(mr, mf);

		memset(&ln, 0, sizeof(ln));
		ln.device = d->name;
		for (size_t i = 0; g && i < g->nnode && !bad; i++) {
			uint32_t n = g->nodes[i].n;
			const char *name = n < mf->nodes.n && mf->nodes.v[n].name < mf->s.n
					       ? mf->s.v + mf->nodes.v[n].name
					       : "";

			bad = add_pt(&ln, &x, name, (double)g->lines[i], i);
		}
		bad = bad || keep(&l->mem, &ln);
		b->peak = (double)mr->peak;
		b->capacity = (double)mr->capacity;
		b->mem_ratio = mr->capacity ? (double)mr->peak / (double)mr->capacity : NAN;
	}
	hmap_release(&x.h);
	return bad ? nomem(err) : NNS_OK;
}

static void range(const void *vec, double *lo, double *hi)
{
	const VEC(struct ms_marey_line) *v = vec;

	*lo = *hi = NAN;
	for (size_t i = 0; i < v->n; i++)
		for (size_t k = 0; k < v->v[i].pts.n; k++) {
			double y = v->v[i].pts.v[k].y;

			*lo = isnan(*lo) ? y : fmin(*lo, y);
			*hi = isnan(*hi) ? y : fmax(*hi, y);
		}
}

static long devnum(const char *s)
{
	while (*s && (*s < '0' || *s > '9'))
		s++;
	return atol(s);
}

static double ratio(double v, double max)
{
	return isnan(v) || isnan(max) || max == 0 ? NAN : v / max;
}

/* Mean of the non-NAN values (NAN when none). */
struct mean {
	double sum;
	int n;
};

static void mean_add(struct mean *a, double v)
{
	if (!isnan(v)) {
		a->sum += v;
		a->n++;
	}
}

static double mean_of(const struct mean *a)
{
	return a->n ? a->sum / a->n : NAN;
}

int ms_marey_lines_finish(struct ms_marey_lines *l, const struct ms_marey *m, struct nns_err *err)
{
	VEC(struct ms_marey_block) out = {0};
	double max_f = NAN, max_fs = NAN;
	size_t *order = NULL;

	range(&l->flops, &l->flops_min, &l->flops_max);
	range(&l->mem, &l->mem_min, &l->mem_max);
	for (size_t i = 0; i < l->blocks.n; i++) {
		const struct ms_marey_block *b = &l->blocks.v[i];

		if (!isnan(b->flops))
			max_f = isnan(max_f) ? b->flops : fmax(max_f, b->flops);
		if (!isnan(b->flops_s))
			max_fs = isnan(max_fs) ? b->flops_s : fmax(max_fs, b->flops_s);
	}
	for (size_t si = 0; si < m->stages.n; si++) {
		const struct ms_marey_stage *s = &m->stages.v[si];
		struct mean f = {0, 0}, fs = {0, 0}, pk = {0, 0}, cap = {0, 0}, r = {0, 0};
		struct ms_marey_block sb = {s->name, s->name, 1, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
		size_t n = 0;

		free(order);
		if (!(order = malloc((s->devices.n + 1) * sizeof(size_t))))
			goto oom;
		/* the stage's devices with a block, by the number in their name */
		for (size_t k = 0; k < s->devices.n; k++)
			for (size_t i = 0; i < l->blocks.n; i++)
				if (l->blocks.v[i].name &&
				    !strcmp(l->blocks.v[i].name, s->devices.v[k])) {
					size_t j = n++;

					while (j > 0 && devnum(l->blocks.v[order[j - 1]].name) >
							    devnum(l->blocks.v[i].name)) {
						order[j] = order[j - 1];
						j--;
					}
					order[j] = i;
					break;
				}
		for (size_t k = 0; k < n; k++) {
			struct ms_marey_block b = l->blocks.v[order[k]];

			b.stage = s->name;
			b.flops_ratio = ratio(b.flops, max_f);
			b.flops_s_ratio = ratio(b.flops_s, max_fs);
			mean_add(&f, b.flops);
			mean_add(&fs, b.flops_s);
			mean_add(&pk, b.peak);
			mean_add(&cap, b.capacity);
			mean_add(&r, b.mem_ratio);
			if (vec_push(&out, b))
				goto oom;
		}
		sb.flops = mean_of(&f);
		sb.flops_s = mean_of(&fs);
		sb.flops_ratio = ratio(sb.flops, max_f);
		sb.flops_s_ratio = ratio(sb.flops_s, max_fs);
		sb.peak = mean_of(&pk);
		sb.capacity = mean_of(&cap);
		sb.mem_ratio = mean_of(&r);
		if (vec_push(&out, sb))
			goto oom;
	}
	free(order);
	vec_free(&l->blocks);
	l->blocks.v = out.v;
	l->blocks.n = out.n;
	l->blocks.cap = out.cap;
	return NNS_OK;
oom:
	free(order);
	vec_free(&out);
	return nomem(err);
}

static int note(struct ms_marey_lines *l, const char *msg)
{
	char *s;

	if (l->errors.n >= MAX_ERRORS)
		return 0;
	if (vec_reserve(&l->errors, l->errors.n + 1) || !(s = strdup(msg)))
		return -1;
	l->errors.v[l->errors.n++] = s;
	return 0;
}

int ms_marey_lines_load(struct ms_marey_lines *l, const struct ms_marey *m,
			const struct ms_src *src, struct nns_err *err)
{
	int rc = NNS_OK;

	ms_marey_lines_init(l);
	for (size_t i = 0; i < m->maps.n && rc == NNS_OK; i++) {
		struct ms_src one = *src;
		struct ms_flops fl;
		struct ms_mem mem;
		struct nns_err e;
		int frc;

		one.dev = (int)devnum(m->maps.v[i].name);
		nns_err_clear(&e);
		frc = ms_flops_load(&fl, &one, &e);
		if (frc == NNS_ENOMEM || (frc && note(l, e.msg)) ||
		    ms_mem_load_all(&mem, &one, NULL, NULL, NULL)) {
			ms_flops_release(&fl);
			rc = nomem(err);
			break;
		}
		if (mem.rc && mem.rc != NNS_ENOTFOUND && note(l, mem.err.msg))
			rc = nomem(err);
		if (rc == NNS_OK)
			rc = ms_marey_lines_add(l, m, i, frc ? NULL : &fl, mem.rc ? NULL : &mem.res,
						mem.rc ? NULL : &mem.file, err);
		ms_flops_release(&fl);
		ms_mem_release(&mem);
	}
	if (rc == NNS_OK)
		rc = ms_marey_lines_finish(l, m, err);
	if (rc != NNS_OK)
		ms_marey_lines_release(l);
	return rc;
}

int ms_marey_doc_load(struct ms_marey_doc *d, const struct ms_src *src, const char *step)
{
	memset(d, 0, sizeof(*d));
	ms_marey_lines_init(&d->l);
	d->rc = ms_marey_load(src, step, &d->m, &d->err);
	if (d->rc == NNS_OK && (d->rc = ms_marey_lines_load(&d->l, &d->m, src, &d->err)))
		ms_marey_release(&d->m);
	return d->rc;
}

void ms_marey_doc_release(struct ms_marey_doc *d)
{
	if (d->rc == NNS_OK) {
		ms_marey_lines_release(&d->l);
		ms_marey_release(&d->m);
	}
	memset(d, 0, sizeof(*d));
}
