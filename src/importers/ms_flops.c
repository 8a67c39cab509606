/*
 * ms_flops.c - flops_<dev>.txt, flops_summary_<dev>.json and
 * flops_scope_<dev>.json readers (ms_flops.h).
 */
#include "importers/ms_flops.h"
#include "importers/ms_csv.h"
#include "importers/ms_json.h"
#include "importers/ms_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 32

void ms_flops_init(struct ms_flops *f)
{
	memset(f, 0, sizeof(*f));
	f->max_scope_num = -1;
	f->sum.mflops = f->sum.gflops = f->sum.util_pct = NAN;
	f->sum.mflops_cube = f->sum.mflops_vec = f->sum.gflops_cube = f->sum.gflops_vec = NAN;
}

void ms_flops_release(struct ms_flops *f)
{
	vec_free(&f->ops);
	vec_free(&f->by_name);
	vec_free(&f->names);
	vec_free(&f->scope_nodes);
	vec_free(&f->links);
	ms_flops_init(f);
}

const char *ms_flops_str(const struct ms_flops *f, size_t off)
{
	return off < f->names.n ? f->names.v + off : "";
}

/* Appends s[0..n) + NUL to names; *off gets its offset. */
static int add_name(struct ms_flops *f, const char *s, size_t n, size_t *off)
{
	return ms_strs_add(&f->names, s, n, off);
}

/* ---- flops_<dev>.txt ------------------------------------------------- */

enum col { C_SKIP, C_MF, C_GF, C_UT, C_MFC, C_GFC, C_UTC, C_MFV, C_GFV, C_UTV };

static const struct {
	const char *h;
	enum col c;
} col_names[] = {
    {"FLOPs", C_MF},
    {"MFLOPs(10^6)", C_MF},
    {"FLOPS", C_GF},
    {"GFLOPS(10^9)", C_GF},
    {"FLOPS utilization", C_UT},
    {"FLOPS utilization(%)", C_UT},
    {"MFLOPs(10^6 cube)", C_MFC},
    {"GFLOPS(10^9 cube)", C_GFC},
    {"FLOPS utilization(cube)", C_UTC},
    {"MFLOPs(10^6 vector)", C_MFV},
    {"GFLOPS(10^9 vector)", C_GFV},
    {"FLOPS utilization(vec)", C_UTV},
    {"FLOPS utilization(vector)", C_UTV},
};

struct span {
	const char *p;
	size_t n;
};

static struct span trim(const char *p, size_t n)
{
	struct span s;

	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	s.p = p;
	s.n = n;
	return s;
}

/* Splits [p, e) on ',' into at most MAX_COLS + 1 trimmed fields. */
static int split(const char *p, const char *e, struct span *out)
{
	int k = 0;

	for (;;) {
		const char *c = memchr(p, ',', (size_t)(e - p));
		const char *fe = c ? c : e;

		if (k <= MAX_COLS)
			out[k] = trim(p, (size_t)(fe - p));
		k++;
		if (!c)
			break;
		p = c + 1;
	}
	return k;
}

static int span_is(struct span s, const char *w)
{
	return s.n == strlen(w) && !memcmp(s.p, w, s.n);
}

static int span_num(struct span s, double *v)
{
	char tmp[64];

	if (s.n == 1 && s.p[0] == '-') {
		*v = NAN;
		return 0;
	}
	if (s.n == 0 || s.n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = 0;
	return ms_csv_num(tmp, v);
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct ms_flops *f = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(ms_flops_str(f, f->ops.v[x].name), ms_flops_str(f, f->ops.v[y].name));

	return c ? c : (x > y) - (x < y);
}

/* qsort_r is not C11: a small merge sort over indices. */
static void sort_idx(uint32_t *v, uint32_t *tmp, size_t n, const struct ms_flops *f)
{
	size_t m, i, j, k;

	if (n < 2)
		return;
	m = n / 2;
	sort_idx(v, tmp, m, f);
	sort_idx(v + m, tmp, n - m, f);
	for (i = 0, j = m, k = 0; i < m || j < n;)
		tmp[k++] =
		    (j >= n || (i < m && cmp_name(&v[i], &v[j], (void *)f) <= 0)) ? v[i++] : v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static void op_blank(struct ms_flops_op *o)
{
	memset(o, 0, sizeof(*o));
	o->mflops = o->gflops = o->util_pct = NAN;
	o->mflops_cube = o->gflops_cube = o->util_cube_pct = NAN;
	o->mflops_vec = o->gflops_vec = o->util_vec_pct = NAN;
}

static void op_set(struct ms_flops_op *o, enum col c, double v)
{
	switch (c) {
	case C_MF:
		o->mflops = v;
		break;
	case C_GF:
		o->gflops = v;
		break;
	case C_UT:
		o->util_pct = v;
		break;
	case C_MFC:
		o->mflops_cube = v;
		break;
	case C_GFC:
		o->gflops_cube = v;
		break;
	case C_UTC:
		o->util_cube_pct = v;
		break;
	case C_MFV:
		o->mflops_vec = v;
		break;
	case C_GFV:
		o->gflops_vec = v;
		break;
	case C_UTV:
		o->util_vec_pct = v;
		break;
	default:
		break;
	}
}

int ms_flops_parse_ops(struct ms_flops *f, const char *buf, size_t n, const char *name,
		       struct nns_err *err)
{
	const char *p = buf, *end = buf + n;
	struct span fl[MAX_COLS + 1];
	enum col cols[MAX_COLS];
	int ncol = 0, rc = NNS_OK;
	size_t line = 0;

	if (!name)
		name = "flops txt";
	f->ops.n = 0;
	f->by_name.n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		struct ms_flops_op o;
		int k, i;

		line++;
		k = split(p, le, fl);
		p = nl ? nl + 1 : end;
		if (k == 1 && fl[0].n == 0)
			continue; /* blank line */
		if (k > MAX_COLS) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: more than %d columns", name,
					 line, MAX_COLS);
			goto out;
		}
		if (!ncol) {
			if (!span_is(fl[0], "full_kernel_name") &&
			    !span_is(fl[0], "op_full_name")) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "%s:%zu: header does not start with full_kernel_name", name,
				    line);
				goto out;
			}
			for (i = 1; i < k; i++) {
				size_t c;

				cols[i] = C_SKIP;
				for (c = 0; c < sizeof(col_names) / sizeof(col_names[0]); c++)
					if (span_is(fl[i], col_names[c].h))
						cols[i] = col_names[c].c;
			}
			ncol = k;
			continue;
		}
		if (k != ncol) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: %d fields, the header has %d",
					 name, line, k, ncol);
			goto out;
		}
		if (k > 1 && fl[1].n == 0)
			continue; /* upstream skips a line without values */
		if (fl[0].n == 0 || fl[0].n >= MS_FL_NAME_MAX) {
			rc =
			    nns_err_set(err, NNS_EFORMAT, "%s:%zu: op name empty or longer than %d",
					name, line, MS_FL_NAME_MAX - 1);
			goto out;
		}
		op_blank(&o);
		o.line = line;
		for (i = 1; i < k; i++) {
			double v;

			if (cols[i] == C_SKIP)
				continue;
			if (span_num(fl[i], &v)) {
				rc = nns_err_set(err, NNS_EFORMAT,
						 "%s:%zu: field %d is not a number", name, line,
						 i + 1);
				goto out;
			}
			op_set(&o, cols[i], v);
		}
		if (f->ops.n >= MS_FL_MAX_OPS) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s: more than %d op lines", name,
					 MS_FL_MAX_OPS);
			goto out;
		}
		if (add_name(f, fl[0].p, fl[0].n, &o.name) || vec_push(&f->ops, o)) {
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
	}
	if (!ncol) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: empty file, no header", name);
		goto out;
	}
	if (vec_reserve(&f->by_name, f->ops.n)) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
		goto out;
	}
	{
		uint32_t *tmp = malloc((f->ops.n + 1) * sizeof(*tmp));
		size_t i;

		if (!tmp) {
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
		for (i = 0; i < f->ops.n; i++)
			f->by_name.v[i] = (uint32_t)i;
		f->by_name.n = f->ops.n;
		sort_idx(f->by_name.v, tmp, f->by_name.n, f);
		free(tmp);
	}
	f->has_ops = 1;
out:
	if (rc) {
		f->ops.n = 0;
		f->by_name.n = 0;
		f->has_ops = 0;
	}
	return rc;
}

const struct ms_flops_op *ms_flops_find(const struct ms_flops *f, const char *full_name)
{
	size_t lo = 0, hi = f->by_name.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ms_flops_str(f, f->ops.v[f->by_name.v[mid]].name), full_name);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->by_name.n &&
	    !strcmp(ms_flops_str(f, f->ops.v[f->by_name.v[lo]].name), full_name))
		return &f->ops.v[f->by_name.v[lo]];
	return NULL;
}

/* ---- flops_summary_<dev>.json ---------------------------------------- */

int ms_flops_parse_summary(struct ms_flops *f, const char *buf, size_t n, const char *name,
			   struct nns_err *err)
{
	static const char *keys[] = {"FLOPs",	  "FLOPS",	"FLOPS_Utilization", "cube_FLOPs",
				     "vec_FLOPs", "cube_FLOPS", "vec_FLOPS"};
	double *dst[] = {&f->sum.mflops,      &f->sum.gflops,	  &f->sum.util_pct,
			 &f->sum.mflops_cube, &f->sum.mflops_vec, &f->sum.gflops_cube,
			 &f->sum.gflops_vec};
	struct msj j;
	const struct msj_node *root;
	int rc;
	size_t i;

	if (!name)
		name = "flops summary";
	rc = msj_parse(&j, buf, n, name, err);
	if (rc)
		return rc;
	root = msj_root(&j);
	if (root->type != MSJ_OBJ) {
		msj_release(&j);
		return nns_err_set(err, NNS_EFORMAT, "%s:1: not a JSON object", name);
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct msj_node *x = msj_get(&j, root, keys[i]);

		*dst[i] = NAN;
		if (!x)
			continue;
		if (x->type != MSJ_NUM) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: \"%s\" is not a number", name,
					 x->line, keys[i]);
			break;
		}
		*dst[i] = x->num;
	}
	/* MindInsight's cluster view: FLOPs missing -> cube_FLOPs + vec_FLOPs */
	if (!rc && isnan(f->sum.mflops) && !isnan(f->sum.mflops_cube) && !isnan(f->sum.mflops_vec))
		f->sum.mflops = f->sum.mflops_cube + f->sum.mflops_vec;
	if (!rc && isnan(f->sum.gflops) && !isnan(f->sum.gflops_cube) && !isnan(f->sum.gflops_vec))
		f->sum.gflops = f->sum.gflops_cube + f->sum.gflops_vec;
	if (!rc && isnan(f->sum.mflops) && isnan(f->sum.gflops))
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: no FLOPs or FLOPS number", name);
	msj_release(&j);
	if (rc) {
		for (i = 0; i < sizeof(dst) / sizeof(dst[0]); i++)
			*dst[i] = NAN;
		return rc;
	}
	f->has_summary = 1;
	return NNS_OK;
}

/* ---- flops_scope_<dev>.json ------------------------------------------ */

int ms_flops_parse_scope(struct ms_flops *f, const char *buf, size_t n, const char *name,
			 struct nns_err *err)
{
	struct msj j;
	const struct msj_node *root, *data, *nodes, *links, *x, *m;
	int rc;

	if (!name)
		name = "flops scope";
	f->scope_nodes.n = 0;
	f->links.n = 0;
	rc = msj_parse(&j, buf, n, name, err);
	if (rc)
		return rc;
	root = msj_root(&j);
	data = msj_get(&j, root, "data");
	nodes = msj_get(&j, data, "nodes");
	links = msj_get(&j, data, "links");
	if (!data || data->type != MSJ_OBJ || (nodes && nodes->type != MSJ_ARR) ||
	    (links && links->type != MSJ_ARR)) {
		rc = nns_err_set(err, NNS_EFORMAT,
				 "%s:%u: expected {\"data\": {\"nodes\": [...], \"links\": [...]}}",
				 name, data ? data->line : 1);
		goto out;
	}
	m = msj_get(&j, root, "max_scope_num");
	f->max_scope_num = m && m->type == MSJ_NUM ? (long)m->num : -1;
	for (x = msj_first(&j, nodes); x; x = msj_next(&j, x)) {
		const char *nm = msj_str(&j, msj_get(&j, x, "name"));
		size_t off;

		if (!nm) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: node without a \"name\" string",
					 name, x->line);
			goto out;
		}
		if (add_name(f, nm, strlen(nm), &off) || vec_push(&f->scope_nodes, off)) {
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
	}
	for (x = msj_first(&j, links); x; x = msj_next(&j, x)) {
		const char *src = msj_str(&j, msj_get(&j, x, "source"));
		const char *dst = msj_str(&j, msj_get(&j, x, "target"));
		const struct msj_node *v = msj_get(&j, x, "value");
		struct ms_flops_link l;

		if (!src || !dst || !v || v->type != MSJ_NUM) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "%s:%u: link needs \"source\", \"target\" strings and a "
					 "\"value\" number",
					 name, x->line);
			goto out;
		}
		if (f->links.n >= MS_FL_MAX_LINKS) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s: more than %d links", name,
					 MS_FL_MAX_LINKS);
			goto out;
		}
		l.mflops = v->num;
		if (add_name(f, src, strlen(src), &l.source) ||
		    add_name(f, dst, strlen(dst), &l.target) || vec_push(&f->links, l)) {
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
	}
	f->has_scope = 1;
out:
	msj_release(&j);
	if (rc) {
		f->scope_nodes.n = 0;
		f->links.n = 0;
		f->max_scope_num = -1;
	}
	return rc;
}

/* ---- the directory ---------------------------------------------------- */

typedef int (*parse_fn)(struct ms_flops *, const char *, size_t, const char *, struct nns_err *);

static int load_one(struct ms_flops *f, const struct ms_src *s, const char *pre, const char *post,
		    parse_fn fn, struct nns_err *err)
{
	char path[4096];
	char *buf;
	size_t n;
	int rc = ms_read(s, pre, post, path, sizeof(path), &buf, &n, err);

	if (rc || !buf)
		return rc;
	rc = fn(f, buf, n, path, err);
	free(buf);
	return rc;
}

int ms_flops_load(struct ms_flops *f, const struct ms_src *s, struct nns_err *err)
{
	int rc;

	ms_flops_init(f);
	rc = load_one(f, s, "flops_", ".txt", ms_flops_parse_ops, err);
	if (!rc)
		rc = load_one(f, s, "flops_summary_", ".json", ms_flops_parse_summary, err);
	if (!rc)
		rc = load_one(f, s, "flops_scope_", ".json", ms_flops_parse_scope, err);
	return rc;
}
