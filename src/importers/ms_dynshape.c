/*
 * ms_dynshape.c - dynamic_shape_info_<dev>.json reader (ms_dynshape.h).
 */
#include "importers/ms_dynshape.h"
#include "common/hmap.h"
#include "importers/ms_json.h"
#include "importers/ms_read.h"
#include "common/strhash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void series_free(struct ms_ds_series *x)
{
	vec_free(&x->steps);
	vec_free(&x->types);
	vec_free(&x->full_names);
	vec_free(&x->cells);
}

void ms_ds_release(struct ms_ds *d)
{
	vec_free(&d->ops);
	vec_free(&d->kernels);
	series_free(&d->op_types);
	series_free(&d->kernel_types);
	vec_free(&d->shapes);
	vec_free(&d->s);
	d->has = 0;
}

struct ctx {
	struct ms_ds *d;
	const struct msj *j;
	const char *file;
	struct nns_err *err;
};

static int nomem(struct ctx *c)
{
	return nns_err_set(c->err, NNS_ENOMEM, "%s: out of memory", c->file);
}

static int add_str(struct ctx *c, const char *s, size_t *off)
{
	if (ms_strs_add(&c->d->s, s, strlen(s), off))
		return nomem(c);
	return 0;
}

/* A member that must be a string (absent: "" when optional). */
static int get_str(struct ctx *c, const struct msj_node *o, const char *key, int optional,
		   size_t *off)
{
	const struct msj_node *x = msj_get(c->j, o, key);

	if (!x && optional)
		return add_str(c, "", off);
	if (!x || x->type != MSJ_STR)
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: \"%s\" missing or not a string",
				   c->file, o->line, key);
	return add_str(c, msj_str(c->j, x), off);
}

static int get_num(struct ctx *c, const struct msj_node *o, const char *key, double *v)
{
	const struct msj_node *x = msj_get(c->j, o, key);

	if (!x || x->type != MSJ_NUM)
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: \"%s\" missing or not a number",
				   c->file, o->line, key);
	*v = x->num;
	return 0;
}

/* "<step>" keys are integers. */
static int step_key(struct ctx *c, const struct msj_node *x, long *step)
{
	const char *k = msj_key(c->j, x);
	char *e;

	errno = 0;
	*step = strtol(k, &e, 10);
	if (!*k || *e || errno)
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: a step key is not an integer",
				   c->file, x->line);
	return 0;
}

static int row_step(struct ctx *c, const struct msj_node *r, long key_step, long *step)
{
	const struct msj_node *x = msj_get(c->j, r, "step");

	*step = key_step;
	if (!x)
		return 0;
	if (x->type != MSJ_NUM || x->num != floor(x->num))
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: \"step\" is not an integer",
				   c->file, r->line);
	*step = (long)x->num;
	return 0;
}

static int check_rows(struct ctx *c, size_t n, const struct msj_node *at)
{
	if (n >= MS_DS_MAX_ROWS)
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: more than %d rows", c->file,
				   at->line, MS_DS_MAX_ROWS);
	return 0;
}

/* Calls row(c, r, step key) for every row of a section
 * {"<step>": [ {row}, ... ], ...}, after checking the shape. */
static int each_row(struct ctx *c, const struct msj_node *sec,
		    int (*row)(struct ctx *c, const struct msj_node *r, long ks))
{
	const struct msj_node *st, *r;

	for (st = msj_first(c->j, sec); st; st = msj_next(c->j, st)) {
		long ks;

		if (step_key(c, st, &ks))
			return -1;
		if (st->type != MSJ_ARR)
			return nns_err_set(c->err, NNS_EFORMAT,
					   "%s:%u: a step's value is not a list", c->file,
					   st->line);
		for (r = msj_first(c->j, st); r; r = msj_next(c->j, r)) {
			if (r->type != MSJ_OBJ)
				return nns_err_set(c->err, NNS_EFORMAT,
						   "%s:%u: row is not an object", c->file, r->line);
			if (row(c, r, ks))
				return -1;
		}
	}
	return 0;
}

static int operator_row(struct ctx *c, const struct msj_node *r, long ks)
{
	const struct msj_node *sh, *x;
	struct ms_ds_op o;

	memset(&o, 0, sizeof(o));
	if (check_rows(c, c->d->ops.n, r) || row_step(c, r, ks, &o.step) ||
	    get_str(c, r, "op_side", 1, &o.side) || get_str(c, r, "op_type", 0, &o.type) ||
	    get_str(c, r, "op_name", 0, &o.name) || get_num(c, r, "dur", &o.dur_us))
		return -1;
	sh = msj_get(c->j, r, "shape_info");
	o.shape0 = c->d->shapes.n;
	if (sh && sh->type != MSJ_ARR && sh->type != MSJ_NULL)
		return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: \"shape_info\" is not a list",
				   c->file, sh->line);
	for (x = msj_first(c->j, sh); x; x = msj_next(c->j, x)) {
		size_t off;

		if (x->type != MSJ_STR)
			return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: a shape is not a string",
					   c->file, x->line);
		if (add_str(c, msj_str(c->j, x), &off) || vec_push(&c->d->shapes, off))
			return nomem(c);
		o.nshape++;
	}
	if (vec_push(&c->d->ops, o))
		return nomem(c);
	return 0;
}

static int kernel_row(struct ctx *c, const struct msj_node *r, long ks)
{
	struct ms_ds_kernel k;

	memset(&k, 0, sizeof(k));
	if (check_rows(c, c->d->kernels.n, r) || row_step(c, r, ks, &k.step) ||
	    get_str(c, r, "op_type", 0, &k.type) || get_str(c, r, "op_name", 0, &k.name) ||
	    get_str(c, r, "op_full_name", 1, &k.full_name) || get_num(c, r, "dur", &k.dur_us) ||
	    get_str(c, r, "block_dim", 1, &k.block_dim) ||
	    get_str(c, r, "grid_dim", 1, &k.grid_dim))
		return -1;
	if (vec_push(&c->d->kernels, k))
		return nomem(c);
	return 0;
}

/* Index of type name in x->types (added when new). */
static int64_t type_index(struct ctx *c, struct ms_ds_series *x, struct hmap *h, const char *nm,
			  const char *full)
{
	uint64_t hv = strhash(nm);
	uint32_t *slot = hmap_get(h, hv);
	size_t i, off, foff;
	int is_new;

	if (slot && !strcmp(ms_ds_str(c->d, x->types.v[*slot]), nm))
		return *slot;
	if (slot)
		for (i = 0; i < x->types.n; i++)
			if (!strcmp(ms_ds_str(c->d, x->types.v[i]), nm))
				return (int64_t)i;
	if (add_str(c, nm, &off) || add_str(c, full ? full : "", &foff))
		return -1;
	if (vec_push(&x->types, off) || vec_push(&x->full_names, foff))
		return nomem(c), -1;
	if (!slot && !hmap_put(h, hv, (uint32_t)(x->types.n - 1), &is_new))
		return nomem(c), -1;
	return (int64_t)x->types.n - 1;
}

static int read_series(struct ctx *c, const struct msj_node *sec, struct ms_ds_series *x,
		       int kernel)
{
	const struct msj_node *st, *t;
	struct hmap h;
	int rc = 0;

	hmap_init(&h);
	for (st = msj_first(c->j, sec); st && !rc; st = msj_next(c->j, st)) {
		long step;

		if (step_key(c, st, &step)) {
			rc = -1;
			break;
		}
		if (st->type != MSJ_OBJ) {
			rc = nns_err_set(c->err, NNS_EFORMAT,
					 "%s:%u: a step's value is not an object", c->file,
					 st->line);
			break;
		}
		if (vec_push(&x->steps, step)) {
			rc = nomem(c);
			break;
		}
		for (t = msj_first(c->j, st); t; t = msj_next(c->j, t)) {
			const struct msj_node *v0 = msj_first(c->j, t), *v1 = msj_next(c->j, v0),
					      *v2 = msj_next(c->j, v1), *v3 = msj_next(c->j, v2);
			struct ms_ds_cell cell;
			int64_t ti;

			if (t->type != MSJ_ARR || !v2 || v0->type != MSJ_NUM ||
			    v1->type != MSJ_NUM || v2->type != MSJ_NUM ||
			    v1->num != floor(v1->num)) {
				rc = nns_err_set(c->err, NNS_EFORMAT,
						 "%s:%u: \"%s\" is not [total, calls, avg, ...]",
						 c->file, t->line, msj_key(c->j, t));
				break;
			}
			if (x->cells.n >= MS_DS_MAX_CELLS) {
				rc = nns_err_set(c->err, NNS_EFORMAT, "%s:%u: more than %d cells",
						 c->file, t->line, MS_DS_MAX_CELLS);
				break;
			}
			ti = type_index(c, x, &h, msj_key(c->j, t),
					kernel && v3 ? msj_str(c->j, v3) : NULL);
			if (ti < 0) {
				rc = -1;
				break;
			}
			cell.step = (uint32_t)(x->steps.n - 1);
			cell.type = (uint32_t)ti;
			cell.total_us = v0->num;
			cell.calls = (long)v1->num;
			cell.avg_us = v2->num;
			if (vec_push(&x->cells, cell)) {
				rc = nomem(c);
				break;
			}
		}
	}
	hmap_release(&h);
	return rc;
}

int ms_ds_parse(struct ms_ds *d, const char *buf, size_t n, const char *name, struct nns_err *err)
{
	static const char *secs[] = {"operator", "kernel", "operator_type", "kernel_type"};
	struct msj j;
	struct ctx c;
	const struct msj_node *root, *sec[4];
	int rc, i;

	memset(d, 0, sizeof(*d));
	if (!name)
		name = "dynamic shape json";
	rc = msj_parse(&j, buf, n, name, err);
	if (rc)
		return rc;
	c.d = d;
	c.j = &j;
	c.file = name;
	c.err = err;
	root = msj_root(&j);
	if (root->type != MSJ_OBJ) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: not a JSON object", name);
		goto out;
	}
	for (i = 0; i < 4; i++) {
		sec[i] = msj_get(&j, root, secs[i]);
		if (sec[i] && sec[i]->type != MSJ_OBJ) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: \"%s\" is not an object", name,
					 sec[i]->line, secs[i]);
			goto out;
		}
	}
	if (each_row(&c, sec[0], operator_row) || each_row(&c, sec[1], kernel_row) ||
	    read_series(&c, sec[2], &d->op_types, 0) ||
	    read_series(&c, sec[3], &d->kernel_types, 1))
		rc = err ? err->code : NNS_EFORMAT;
	if (!rc)
		d->has = 1;
out:
	msj_release(&j);
	if (rc)
		ms_ds_release(d);
	return rc;
}

int ms_ds_load(struct ms_ds *d, const struct ms_src *s, struct nns_err *err)
{
	char path[4096];
	char *buf;
	size_t n;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = ms_read(s, "dynamic_shape_info_", ".json", path, sizeof(path), &buf, &n, err);
	if (rc || !buf)
		return rc;
	rc = ms_ds_parse(d, buf, n, path, err);
	free(buf);
	return rc;
}
