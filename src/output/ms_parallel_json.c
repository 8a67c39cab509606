/*
 * ms_parallel_json.c - the ms_parallel and ms_marey documents
 * (ms_parallel_json.h) and their views for a MindSpore device (views.c).
 */
#include "output/ms_parallel_json.h"
#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "output/output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The output type's shape, JSON text of nested arrays of strings and
 * numbers as the reader builds it (importers/ms_parallel.c), written as a
 * value. */
static const char *shape_val(struct jsonw *w, const char *t, int depth)
{
	char b[256];
	size_t n = 0;

	while (*t == ' ' || *t == ',')
		t++;
	if (*t == '[' && depth < 32) {
		jsonw_arr_begin(w);
		t++;
		for (;;) {
			while (*t == ' ' || *t == ',')
				t++;
			if (!*t || *t == ']')
				break;
			t = shape_val(w, t, depth + 1);
		}
		jsonw_arr_end(w);
		return *t ? t + 1 : t;
	}
	if (*t == '"') {
		for (t++; *t && *t != '"'; t++) {
			if (*t == '\\' && t[1])
				t++;
			if (n + 1 < sizeof(b))
				b[n++] = *t;
		}
		b[n] = 0;
		jsonw_str(w, b);
		return *t ? t + 1 : t;
	}
	while (*t && *t != ',' && *t != ']' && n + 1 < sizeof(b))
		b[n++] = *t++;
	b[n] = 0;
	jsonw_double(w, strtod(b, NULL));
	return t;
}

static void shape_json(struct jsonw *w, const char *text)
{
	if (!text || *text != '[') {
		jsonw_arr_begin(w);
		jsonw_arr_end(w);
		return;
	}
	shape_val(w, text, 0);
}

static void strs(struct jsonw *w, const char *key, char *const *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_str(w, v[i]);
	jsonw_arr_end(w);
}

/* Node.to_dict; x NULL for a const node (no merged inputs / groups). */
static void node(struct jsonw *w, const struct ms_ps_node *n, const struct ms_par_node *x)
{
	char b[16];

	jsonw_obj_begin(w);
	snprintf(b, sizeof(b), "%d", n->topo);
	jsonw_kstr(w, "node_id", x ? b : n->id);
	jsonw_kstr(w, "name", n->name);
	jsonw_kstr(w, "scope", n->scope);
	jsonw_kstr(w, "type", n->type);
	jsonw_kstr(w, "instance_type", n->instance_type);
	jsonw_key(w, "attr");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < n->attrs.n; i++)
		jsonw_kstr(w, n->attrs.v[i].name, n->attrs.v[i].value);
	jsonw_obj_end(w);
	if (x)
		strs(w, "input", x->inputs.v, x->inputs.n);
	else
		strs(w, "input", NULL, 0);
	jsonw_key(w, "output_shape");
	if (n->shape_attr)
		jsonw_str(w, n->shape_attr);
	else
		shape_json(w, n->shape_json);
	jsonw_kstr(w, "output_data_type", n->data_type ? n->data_type : "");
	if (x)
		strs(w, "parallel_group", x->groups.v, x->groups.n);
	else
		strs(w, "parallel_group", NULL, 0);
	jsonw_key(w, "parallel_shard");
	if (n->in_strategy) {
		jsonw_str(w, n->in_strategy);
	} else {
		jsonw_arr_begin(w);
		jsonw_arr_end(w);
	}
	jsonw_kstr(w, "parallel_group_rank", n->group_ranks ? n->group_ranks : "");
	jsonw_kstr(w, "strategy", n->strategy);
	jsonw_obj_end(w);
}

void out_json_ms_par(struct jsonw *w, const struct ms_par *p)
{
	char b[16];

	jsonw_obj_begin(w);
	jsonw_kstr(w, "status", "finish");
	jsonw_key(w, "metadata");
	jsonw_obj_begin(w);
	if (p->set.files.n)
		jsonw_kstr(w, "parallel_type", p->parallel_type);
	jsonw_obj_end(w);
	jsonw_key(w, "graphs");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < p->stages.n; i++) {
		const struct ms_par_stage *s = &p->stages.v[i];

		snprintf(b, sizeof(b), "%d", s->stage);
		jsonw_key(w, b);
		jsonw_obj_begin(w);
		jsonw_key(w, "rank_ids");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < s->rank_ids.n; k++)
			jsonw_int(w, s->rank_ids.v[k]);
		jsonw_arr_end(w);
		jsonw_key(w, "op_nodes");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < s->ops.n; k++)
			node(w, s->ops.v[k].n, &s->ops.v[k]);
		jsonw_arr_end(w);
		jsonw_key(w, "const_nodes");
		jsonw_arr_begin(w);
		for (size_t k = 0; s->first && k < s->first->consts.n; k++)
			node(w, &s->first->consts.v[k], NULL);
		jsonw_arr_end(w);
		jsonw_key(w, "parameter_nodes");
		jsonw_arr_begin(w);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->set.files.n; i++)
		jsonw_int(w, p->set.files.v[i].rank);
	jsonw_arr_end(w);
	strs(w, "errors", p->set.errors.v, p->set.errors.n);
	jsonw_kstr(w, "error", p->rc ? p->err.msg : NULL);
	jsonw_obj_end(w);
}

static void lines(struct jsonw *w, const char *key, const void *vec)
{
	const VEC(struct ms_marey_line) *v = vec;

	jsonw_key(w, key);
	jsonw_obj_begin(w);
	for (size_t i = 0; v && i < v->n; i++) {
		jsonw_key(w, v->v[i].device);
		jsonw_arr_begin(w);
		for (size_t k = 0; k < v->v[i].pts.n; k++) {
			jsonw_arr_begin(w);
			jsonw_double(w, v->v[i].pts.v[k].x);
			jsonw_double(w, v->v[i].pts.v[k].y);
			jsonw_str(w, v->v[i].pts.v[k].op);
			jsonw_arr_end(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_obj_end(w);
}

static void range(struct jsonw *w, const char *key, double lo, double hi)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	jsonw_double(w, lo);
	jsonw_double(w, hi);
	jsonw_arr_end(w);
}

/* nnscope's part of the document: steps, lines, blocks. */
static void extras(struct jsonw *w, const struct ms_marey *m, const struct ms_marey_lines *l)
{
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; m && i < m->steps.n; i++)
		jsonw_int(w, m->steps.v[i]);
	jsonw_arr_end(w);
	lines(w, "flops_lines", l ? &l->flops : NULL);
	lines(w, "memory_lines", l ? &l->mem : NULL);
	range(w, "flops_range", l ? l->flops_min : NAN, l ? l->flops_max : NAN);
	range(w, "memory_range", l ? l->mem_min : NAN, l ? l->mem_max : NAN);
	jsonw_key(w, "blocks");
	jsonw_arr_begin(w);
	for (size_t i = 0; l && i < l->blocks.n; i++) {
		const struct ms_marey_block *b = &l->blocks.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", b->name);
		jsonw_kstr(w, "kind", b->is_stage ? "stage" : "device");
		jsonw_kstr(w, "stage", b->stage);
		jsonw_kdouble(w, "flops", b->flops);
		jsonw_kdouble(w, "flops_ratio", b->flops_ratio);
		jsonw_kdouble(w, "flops_per_s", b->flops_s);
		jsonw_kdouble(w, "flops_per_s_ratio", b->flops_s_ratio);
		jsonw_kdouble(w, "peak_mem", b->peak);
		jsonw_kdouble(w, "capacity", b->capacity);
		jsonw_kdouble(w, "mem_ratio", b->mem_ratio);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	strs(w, "lines_errors", l ? l->errors.v : NULL, l ? l->errors.n : 0);
}

void out_json_ms_marey(struct jsonw *w, const struct ms_marey *m, const struct ms_marey_lines *l,
		       int rc, const char *why)
{
	jsonw_obj_begin(w);
	if (rc == NNS_OK) {
		jsonw_kint(w, "step", m->step);
		jsonw_kstr(w, "source", m->source);
	}
	extras(w, rc ? NULL : m, rc ? NULL : l);
	jsonw_key(w, "maps");
	jsonw_obj_begin(w);
	for (size_t i = 0; !rc && i < m->maps.n; i++) {
		jsonw_key(w, m->maps.v[i].name);
		jsonw_obj_begin(w);
		for (size_t k = 0; k < m->maps.v[i].ops.n; k++) {
			const struct ms_marey_op *o = &m->maps.v[i].ops.v[k];

			jsonw_key(w, o->name);
			jsonw_obj_begin(w);
			jsonw_kdouble(w, "st", o->st);
			jsonw_kdouble(w, "ed", o->ed);
			jsonw_kdouble(w, "dur", o->dur);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	if (!rc && m->has_min) {
		jsonw_kdouble(w, "minT", m->min_t);
		jsonw_kdouble(w, "maxT", m->max_t);
	} else {
		jsonw_knull(w, "minT");
		jsonw_knull(w, "maxT");
	}
	jsonw_key(w, "stage_data");
	jsonw_obj_begin(w);
	for (size_t i = 0; !rc && i < m->stages.n; i++) {
		const struct ms_marey_stage *s = &m->stages.v[i];

		jsonw_key(w, s->name);
		jsonw_obj_begin(w);
		jsonw_key(w, "data");
		jsonw_obj_begin(w);
		for (size_t k = 0; k < s->data.n; k++) {
			const struct ms_marey_agg *a = &s->data.v[k];

			jsonw_key(w, a->name);
			jsonw_obj_begin(w);
			jsonw_kdouble(w, "st_max", a->st_max);
			jsonw_kdouble(w, "st_min", a->st_min);
			jsonw_kdouble(w, "st_avg", a->st_avg);
			jsonw_kdouble(w, "ed_max", a->ed_max);
			jsonw_kdouble(w, "ed_min", a->ed_min);
			jsonw_kdouble(w, "ed_avg", a->ed_avg);
			jsonw_kint(w, "n", a->n);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
		strs(w, "devices", s->devices.v, s->devices.n);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "scope_map");
	if (!rc && m->scopes.n) {
		jsonw_obj_begin(w);
		for (size_t i = 0; i < m->scopes.n; i++)
			jsonw_kstr(w, m->scopes.v[i].op, m->scopes.v[i].scope);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_kstr(w, "error", rc ? why : NULL);
	jsonw_obj_end(w);
}

static int not_ms(struct jsonw *w, const struct an_profile *p)
{
	if (p->ms)
		return 0;
	jsonw_obj_begin(w);
	jsonw_kstr(w, "error", "not a MindSpore device");
	jsonw_obj_end(w);
	return 1;
}

void out_json_ms_parallel_view(struct jsonw *w, const struct an_profile *p)
{
	struct ms_par par;

	if (not_ms(w, p))
		return;
	ms_par_load(&par, &p->ms->src);
	out_json_ms_par(w, &par);
	ms_par_release(&par);
}

void out_json_ms_marey_doc(struct jsonw *w, const struct ms_marey_doc *d)
{
	out_json_ms_marey(w, &d->m, &d->l, d->rc, d->err.msg);
}

void out_json_ms_marey_view(struct jsonw *w, const struct an_profile *p)
{
	struct ms_marey_doc d;

	if (not_ms(w, p))
		return;
	ms_marey_doc_load(&d, &p->ms->src, NULL);
	out_json_ms_marey_doc(w, &d);
	ms_marey_doc_release(&d);
}

int out_ms_marey_applies(const struct an_profile *p)
{
	return p->ms && ms_marey_owner(&p->ms->src);
}
