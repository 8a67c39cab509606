/*
 * ms_parallel.c - parallel_strategy_<rank>.json reader (ms_parallel.h):
 * MindInsight's graph.py `Graph` over one rank's file, and the directory
 * scan.
 */
#include "importers/ms_parallel.h"
#include "common/buf.h"
#include "common/fs.h"
#include "common/jsonesc.h"
#include "importers/ms_json.h"
#include "importers/ms_read.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_BYTES_MAX ((size_t)256 << 20)

static void node_free(struct ms_ps_node *x)
{
	for (size_t i = 0; i < x->attrs.n; i++) {
		free(x->attrs.v[i].name);
		free(x->attrs.v[i].value);
	}
	vec_free(&x->attrs);
	for (size_t i = 0; i < x->inputs.n; i++)
		free(x->inputs.v[i]);
	vec_free(&x->inputs);
	free(x->id);
	free(x->name);
	free(x->scope);
	free(x->type);
	free(x->instance_type);
	free(x->shape_attr);
	free(x->shape_json);
	free(x->data_type);
	free(x->group);
	free(x->in_strategy);
	free(x->group_ranks);
	free(x->strategy);
	memset(x, 0, sizeof(*x));
}

void ms_ps_file_release(struct ms_ps_file *f)
{
	for (size_t i = 0; i < f->ops.n; i++)
		node_free(&f->ops.v[i]);
	for (size_t i = 0; i < f->consts.n; i++)
		node_free(&f->consts.v[i]);
	for (size_t i = 0; i < f->stage_devices.n; i++) {
		for (size_t k = 0; k < f->stage_devices.v[i].v.n; k++)
			free(f->stage_devices.v[i].v.v[k]);
		vec_free(&f->stage_devices.v[i].v);
	}
	vec_free(&f->ops);
	vec_free(&f->consts);
	vec_free(&f->stage_devices);
	free(f->path);
	free(f->parallel_type);
	memset(f, 0, sizeof(*f));
}

void ms_ps_set_release(struct ms_ps_set *s)
{
	for (size_t i = 0; i < s->files.n; i++)
		ms_ps_file_release(&s->files.v[i]);
	vec_free(&s->files);
	for (size_t i = 0; i < s->errors.n; i++)
		free(s->errors.v[i]);
	vec_free(&s->errors);
}

struct ctx {
	const struct msj *j;
	const char *name;
	struct nns_err *err;
};

static int nomem(struct ctx *c)
{
	return nns_err_set(c->err, NNS_ENOMEM, "%s: out of memory", c->name);
}

static int bad(struct ctx *c, const struct msj_node *x, const char *why)
{
	return nns_err_set(c->err, NNS_EFORMAT, "%s:%u: %s", c->name, x ? x->line : 0, why);
}

/* The string member key of o, "" when absent or not a string. */
static const char *sget(struct ctx *c, const struct msj_node *o, const char *key)
{
	const char *s = msj_str(c->j, msj_get(c->j, o, key));

	return s ? s : "";
}

/* A number written as a JSON string ("32") or number. */
static double numval(struct ctx *c, const struct msj_node *x)
{
	if (!x)
		return 0;
	if (x->type == MSJ_NUM || x->type == MSJ_BOOL)
		return x->num;
	if (x->type == MSJ_STR)
		return strtod(msj_str(c->j, x), NULL);
	return 0;
}

/* Python's repr() of a float. */
static void py_float(struct buf *b, double v)
{
	char t[40];

	if (isnan(v)) {
		buf_puts(b, "nan");
		return;
	}
	if (isinf(v)) {
		buf_puts(b, v < 0 ? "-inf" : "inf");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(t, sizeof(t), "%.*g", prec, v);
		if (strtod(t, NULL) == v)
			break;
	}
	buf_puts(b, t);
	if (!strpbrk(t, ".en"))
		buf_puts(b, ".0");
}

/* Python's repr() of a str: single quotes unless it holds ' and no ". */
static void py_repr_str(struct buf *b, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';

	buf_putc(b, q);
	for (; *s; s++) {
		if (*s == q || *s == '\\')
			buf_putc(b, '\\');
		if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_putc(b, *s);
	}
	buf_putc(b, q);
}

/* Python's repr() of a JSON value that the value parser leaves as is. */
static void py_repr_json(struct ctx *c, struct buf *b, const struct msj_node *x)
{
	const struct msj_node *k;
	int first = 1;

	switch (x->type) {
	case MSJ_NULL:
		buf_puts(b, "None");
		return;
	case MSJ_BOOL:
		buf_puts(b, x->num ? "True" : "False");
		return;
	case MSJ_NUM:
		if (x->num == trunc(x->num) && fabs(x->num) < 1e15)
			buf_printf(b, "%.0f", x->num);
		else
			py_float(b, x->num);
		return;
	case MSJ_STR:
		py_repr_str(b, msj_str(c->j, x));
		return;
	default:
		break;
	}
	buf_putc(b, x->type == MSJ_ARR ? '[' : '{');
	for (k = msj_first(c->j, x); k; k = msj_next(c->j, k)) {
		if (!first)
			buf_puts(b, ", ");
		first = 0;
		if (x->type == MSJ_OBJ) {
			py_repr_str(b, msj_key(c->j, k));
			buf_puts(b, ": ");
		}
		py_repr_json(c, b, k);
	}
	buf_putc(b, x->type == MSJ_ARR ? ']' : '}');
}

/* MindInsight's _parse_value_proto, printed: top is 1 for the outer value
 * (str() of a str is the text itself), 0 inside lists (repr). */
static void py_value(struct ctx *c, struct buf *b, const struct msj_node *v, int top)
{
	const char *dt = sget(c, v, "dtype");

	if (!strcmp(dt, "DT_STRING") || !strcmp(dt, "DT_NONE")) {
		const char *s = sget(c, v, "strVal");

		if (top)
			buf_puts(b, s);
		else
			py_repr_str(b, s);
	} else if (!strcmp(dt, "DT_INT8") || !strcmp(dt, "DT_INT16") || !strcmp(dt, "DT_INT32") ||
		   !strcmp(dt, "DT_INT64")) {
		buf_printf(b, "%.0f", numval(c, msj_get(c->j, v, "intVal")));
	} else if (!strcmp(dt, "DT_UINT8") || !strcmp(dt, "DT_UINT16") ||
		   !strcmp(dt, "DT_UINT32") || !strcmp(dt, "DT_UINT64")) {
		buf_printf(b, "%.0f", numval(c, msj_get(c->j, v, "uintVal")));
	} else if (!strcmp(dt, "DT_BOOL")) {
		buf_puts(b, numval(c, msj_get(c->j, v, "boolVal")) != 0 ? "True" : "False");
	} else if (!strcmp(dt, "DT_FLOAT16") || !strcmp(dt, "DT_FLOAT32") ||
		   !strcmp(dt, "DT_FLOAT64")) {
		const struct msj_node *f = msj_get(c->j, v, "floatVal");

		py_float(b, numval(c, f) != 0 ? numval(c, f)
					      : numval(c, msj_get(c->j, v, "doubleVal")));
	} else if (!strcmp(dt, "DT_TUPLE") || !strcmp(dt, "DT_LIST")) {
		const struct msj_node *vs = msj_get(c->j, v, "values"), *k;
		int first = 1;

		buf_putc(b, '[');
		for (k = vs && vs->type == MSJ_ARR ? msj_first(c->j, vs) : NULL; k;
		     k = msj_next(c->j, k)) {
			if (!first)
				buf_puts(b, ", ");
			first = 0;
			py_value(c, b, k, 0);
		}
		buf_putc(b, ']');
	} else if (!strcmp(dt, "DT_TYPE")) {
		const char *s = sget(c, msj_get(c->j, v, "typeVal"), "dataType");

		if (top)
			buf_puts(b, s);
		else
			py_repr_str(b, s);
	} else {
		py_repr_json(c, b, v);
	}
}

static char *take(struct buf *b)
{
	char *s = b->len ? buf_take(b) : strdup("");

	buf_free(b);
	return s;
}

/* MindInsight's _get_data_type_by_parse_type_proto. */
static void data_type(struct ctx *c, struct buf *b, const struct msj_node *t)
{
	const char *dt = sget(c, t, "dataType");

	buf_puts(b, dt);
	if (!strcmp(dt, "DT_TENSOR")) {
		buf_printf(b, "[%s]", sget(c, msj_get(c->j, t, "tensorType"), "elemType"));
	} else if (!strcmp(dt, "DT_TUPLE")) {
		const struct msj_node *e =
		    msj_get(c->j, msj_get(c->j, t, "sequenceType"), "elemTypes");
		int first = 1;

		buf_putc(b, '[');
		for (e = e && e->type == MSJ_ARR ? msj_first(c->j, e) : NULL; e;
		     e = msj_next(c->j, e)) {
			struct buf in;
			char *s;

			buf_init(&in, 0);
			data_type(c, &in, e);
			s = take(&in);
			if (!first)
				buf_puts(b, ", ");
			first = 0;
			py_repr_str(b, s ? s : "");
			free(s);
		}
		buf_putc(b, ']');
	}
}

static void put_json(void *ctx, const char *s, size_t n)
{
	buf_append(ctx, s, n);
}

/* MindInsight's _get_shape_by_parse_type_proto, as JSON text; 0 when the
 * shape is empty. */
static int shape(struct ctx *c, struct buf *b, const struct msj_node *t)
{
	const char *dt = sget(c, t, "dataType");
	const struct msj_node *tt = msj_get(c->j, t, "tensorType"), *sq, *x;
	size_t mark = b->len;
	int any = 0;

	if (!t || t->type != MSJ_OBJ)
		return 0;
	if (*dt && strcmp(dt, "DT_TENSOR") && strcmp(dt, "DT_TUPLE"))
		return 0;
	buf_putc(b, '[');
	if (tt && msj_get(c->j, tt, "shape")) {
		const struct msj_node *dims = msj_get(c->j, msj_get(c->j, tt, "shape"), "dim");

		for (x = dims && dims->type == MSJ_ARR ? msj_first(c->j, dims) : NULL; x;
		     x = msj_next(c->j, x)) {
			const struct msj_node *sz = msj_get(c->j, x, "size");

			if (any++)
				buf_puts(b, ", ");
			if (sz && sz->type == MSJ_STR) {
				buf_putc(b, '"');
				json_escape(msj_str(c->j, sz), sz->slen, 0, put_json, b);
				buf_putc(b, '"');
			} else {
				buf_printf(b, "%.0f", numval(c, sz));
			}
		}
	}
	sq = msj_get(c->j, msj_get(c->j, t, "sequenceType"), "elemTypes");
	for (x = sq && sq->type == MSJ_ARR ? msj_first(c->j, sq) : NULL; x; x = msj_next(c->j, x)) {
		size_t at = b->len;

		if (any)
			buf_puts(b, ", ");
		if (shape(c, b, x))
			any++;
		else
			b->len = at;
	}
	buf_putc(b, ']');
	if (!any)
		b->len = mark;
	return any;
}

static const char *attr_get(const struct ms_ps_node *x, const char *name)
{
	for (size_t i = 0; i < x->attrs.n; i++)
		if (!strcmp(x->attrs.v[i].name, name))
			return x->attrs.v[i].value;
	return NULL;
}

static int ends_with_ci(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && strcasecmp(s + n - k, suf) == 0;
}

/* MindInsight's PluginNameEnum: summary nodes' full names end "[:<plugin>]". */
static int summary_node(const char *full)
{
	static const char *const P[] = {"[:image]",	"[:scalar]", "[:graph]",
					"[:histogram]", "[:tensor]", "[:landscape]"};

	for (size_t i = 0; i < sizeof(P) / sizeof(P[0]); i++)
		if (ends_with_ci(full, P[i]))
			return 1;
	return 0;
}

static int op_node(struct ctx *c, struct ms_ps_file *f, const struct msj_node *np, int topo)
{
	struct ms_ps_node x;
	const char *id = sget(c, np, "name"), *full = sget(c, np, "fullName");
	const char *scope = sget(c, np, "scope"), *type = sget(c, np, "opType");
	const char *inst = sget(c, np, "instanceName");
	const struct msj_node *a, *t;
	struct buf b;

	memset(&x, 0, sizeof(x));
	x.topo = topo;
	if (!strcmp(type, "Load") || summary_node(full))
		x.name = str_printf("%s/%s-op%s", scope, type, id);
	else
		x.name = strdup(full);
	x.id = strdup(id);
	x.scope = strdup(scope);
	x.type = strdup(type);
	x.instance_type = strdup(strstr(inst, "grad_mirror")	  ? "GradientAggregation"
				 : strstr(inst, "redistribution") ? "Redistribution"
								  : "");
	if (!x.name || !x.id || !x.scope || !x.type || !x.instance_type)
		goto oom;
	a = msj_get(c->j, np, "attribute");
	for (a = a && a->type == MSJ_ARR ? msj_first(c->j, a) : NULL; a; a = msj_next(c->j, a)) {
		const char *an = sget(c, a, "name");
		const struct msj_node *v = msj_get(c->j, a, "value");
		struct ms_ps_attr at;
		char *val;

		if (!v || v->type != MSJ_OBJ)
			continue;
		buf_init(&b, 0);
		py_value(c, &b, v, 1);
		if (!(val = take(&b)))
			goto oom;
		if (!strcmp(an, "gen_strategy")) {
			/* MindInsight leaves it out of attr (in_strategy is the same) */
			if (!x.strategy)
				x.strategy = val;
			else
				free(val);
			continue;
		}
		if (!strcmp(an, "in_strategy")) {
			free(x.strategy);
			if (!(x.strategy = strdup(val))) {
				free(val);
				goto oom;
			}
		}
		at.name = strdup(an);
		at.value = val;
		/* a repeated attribute replaces the earlier value (dict.update) */
		for (size_t i = 0; i < x.attrs.n && at.name; i++)
			if (!strcmp(x.attrs.v[i].name, an)) {
				free(x.attrs.v[i].value);
				x.attrs.v[i].value = val;
				free(at.name);
				at.name = NULL;
				val = NULL;
				break;
			}
		if (!val)
			continue;
		if (!at.name || vec_push(&x.attrs, at)) {
			free(at.name);
			free(val);
			goto oom;
		}
	}
	a = msj_get(c->j, np, "input");
	for (a = a && a->type == MSJ_ARR ? msj_first(c->j, a) : NULL; a; a = msj_next(c->j, a)) {
		const char *in = sget(c, a, "name");
		char *s;

		if (!*in)
			continue;
		if (!(s = strdup(in)) || vec_push(&x.inputs, s)) {
			free(s);
			goto oom;
		}
	}
	t = msj_get(c->j, np, "outputType");
	if (attr_get(&x, "shapes")) {
		if (!(x.shape_attr = strdup(attr_get(&x, "shapes"))))
			goto oom;
	} else {
		buf_init(&b, 0);
		if (t && shape(c, &b, t) && !(x.shape_json = take(&b)))
			goto oom;
		buf_free(&b);
	}
	buf_init(&b, 0);
	if (t && t->type == MSJ_OBJ && t->count)
		data_type(c, &b, t);
	if (!(x.data_type = take(&b)))
		goto oom;
	if ((attr_get(&x, "group") && !(x.group = strdup(attr_get(&x, "group")))) ||
	    (attr_get(&x, "in_strategy") &&
	     !(x.in_strategy = strdup(attr_get(&x, "in_strategy")))) ||
	    (attr_get(&x, "group_ranks") && !(x.group_ranks = strdup(attr_get(&x, "group_ranks")))))
		goto oom;
	if (vec_push(&f->ops, x))
		goto oom;
	return NNS_OK;
oom:
	node_free(&x);
	return nomem(c);
}

static int const_node(struct ctx *c, struct ms_ps_file *f, const char *name)
{
	struct ms_ps_node x;

	memset(&x, 0, sizeof(x));
	x.id = strdup(name);
	x.name = strdup(name);
	x.scope = strdup("");
	x.type = strdup("Const");
	x.instance_type = strdup("");
	x.data_type = strdup("");
	if (!x.id || !x.name || !x.scope || !x.type || !x.instance_type || !x.data_type ||
	    vec_push(&f->consts, x)) {
		node_free(&x);
		return nomem(c);
	}
	return NNS_OK;
}

static int config(struct ctx *c, struct ms_ps_file *f, const struct msj_node *cfg)
{
	const struct msj_node *sd, *st, *d;

	if (!cfg || cfg->type != MSJ_OBJ)
		return bad(c, cfg ? cfg : msj_root(c->j), "no 'config' object");
	f->rank = (int)numval(c, msj_get(c->j, cfg, "rankId"));
	f->stage_id = (int)numval(c, msj_get(c->j, cfg, "stageId"));
	if (!(f->parallel_type = strdup(sget(c, cfg, "parallelType"))))
		return nomem(c);
	sd = msj_get(c->j, cfg, "stageDevices");
	for (st = sd && sd->type == MSJ_ARR ? msj_first(c->j, sd) : NULL; st;
	     st = msj_next(c->j, st)) {
		struct ms_ps_strs one;

		memset(&one, 0, sizeof(one));
		if (vec_push(&f->stage_devices, one))
			return nomem(c);
		d = msj_get(c->j, st, "dim");
		for (d = d && d->type == MSJ_ARR ? msj_first(c->j, d) : NULL; d;
		     d = msj_next(c->j, d)) {
			const struct msj_node *sz = msj_get(c->j, d, "size");
			char *s = sz && sz->type == MSJ_STR ? strdup(msj_str(c->j, sz))
							    : str_printf("%.0f", numval(c, sz));

			if (!s || vec_push(&f->stage_devices.v[f->stage_devices.n - 1].v, s)) {
				free(s);
				return nomem(c);
			}
		}
	}
	return NNS_OK;
}

int ms_ps_parse(struct ms_ps_file *f, const char *buf, size_t n, const char *name,
		struct nns_err *err)
{
	struct msj j = {0};
	struct ctx c = {&j, name, err};
	const struct msj_node *g, *x;
	int rc, topo = 1;

	memset(f, 0, sizeof(*f));
	if ((rc = msj_parse(&j, buf, n, name, err)))
		return rc;
	if (msj_root(&j)->type != MSJ_OBJ) {
		rc = bad(&c, msj_root(&j), "not a parallel strategy document (expected an object)");
		goto out;
	}
	if ((rc = config(&c, f, msj_get(&j, msj_root(&j), "config"))))
		goto out;
	g = msj_get(&j, msj_root(&j), "graph");
	if (!g || g->type != MSJ_OBJ) {
		rc = bad(&c, g ? g : msj_root(&j), "no 'graph' object");
		goto out;
	}
	/* constVals, then parameters (shown as Const), then the op nodes */
	x = msj_get(&j, g, "constVals");
	for (x = x && x->type == MSJ_ARR ? msj_first(&j, x) : NULL; x && !rc; x = msj_next(&j, x))
		if (*sget(&c, x, "key"))
			rc = const_node(&c, f, sget(&c, x, "key"));
	x = msj_get(&j, g, "parameters");
	for (x = x && x->type == MSJ_ARR ? msj_first(&j, x) : NULL; x && !rc; x = msj_next(&j, x))
		if (*sget(&c, x, "name"))
			rc = const_node(&c, f, sget(&c, x, "name"));
	x = msj_get(&j, g, "node");
	for (x = x && x->type == MSJ_ARR ? msj_first(&j, x) : NULL; x && !rc; x = msj_next(&j, x))
		if (*sget(&c, x, "name") && *sget(&c, x, "fullName"))
			rc = op_node(&c, f, x, topo++);
	if (!rc && !(f->path = strdup(name)))
		rc = nomem(&c);
out:
	msj_release(&j);
	if (rc)
		ms_ps_file_release(f);
	return rc;
}

/* "<pre><digits><post>": 1 and *v. */
static int match_num(const char *name, const char *pre, const char *post, int *v)
{
	size_t n = strlen(name), a = strlen(pre), b = strlen(post);
	long x = 0;

	if (n <= a + b || strncmp(name, pre, a) || strcmp(name + n - b, post))
		return 0;
	for (size_t k = a; k < n - b; k++) {
		if (name[k] < '0' || name[k] > '9' || x > 99999)
			return 0;
		x = x * 10 + (name[k] - '0');
	}
	*v = (int)x;
	return 1;
}

/* The smallest max numbers k of "<pre>k<post>" files in src->dir,
 * ascending (every entry is read: readdir's order is not the numbers'). */
static int list_nums(const struct ms_src *src, const char *pre, const char *post, int *ids, int max)
{
	DIR *d = fs_opendir_beneath(src->root, src->dir);
	struct dirent *e;
	int n = 0, v;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (match_num(e->d_name, pre, post, &v) && (n < max || (n > 0 && v < ids[n - 1]))) {
			int j = n < max ? n++ : n - 1;

			while (j > 0 && ids[j - 1] > v) {
				ids[j] = ids[j - 1];
				j--;
			}
			ids[j] = v;
		}
	closedir(d);
	return n;
}

int ms_ps_read_dir(const struct ms_src *src, struct ms_ps_set *s, struct nns_err *err)
{
	int *ids = malloc(MS_PAR_FILES_MAX * sizeof(int)), n;
	int rc = NNS_OK;

	memset(s, 0, sizeof(*s));
	if (!ids)
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", src->dir);
	n = list_nums(src, "parallel_strategy_", ".json", ids, MS_PAR_FILES_MAX);
	if (n < 0) {
		rc = nns_err_set(err, NNS_EIO, "%s: %s", src->dir, strerror(errno));
		goto out;
	}
	if (n == 0) {
		rc = nns_err_set(err, NNS_ENOTFOUND, "%s: no parallel_strategy_<rank>.json",
				 src->dir);
		goto out;
	}
	for (int i = 0; i < n && rc == NNS_OK; i++) {
		struct ms_src one = *src;
		struct ms_ps_file f;
		struct nns_err e;
		char path[4200], *buf = NULL, *msg;
		size_t len = 0;
		int r;

		one.dev = ids[i];
		nns_err_clear(&e);
		r = ms_read(&one, "parallel_strategy_", ".json", path, sizeof(path), &buf, &len,
			    &e);
		if (r == NNS_OK && buf && len > PS_BYTES_MAX)
			r = nns_err_set(&e, NNS_EFORMAT, "%s: larger than %zu bytes", path,
					PS_BYTES_MAX);
		if (r == NNS_OK && buf)
			r = ms_ps_parse(&f, buf, len, path, &e);
		free(buf);
		if (r == NNS_ENOMEM)
			rc = nns_err_set(err, NNS_ENOMEM, "%s", e.msg);
		else if (r) {
			if (!(msg = strdup(e.msg)) || vec_push(&s->errors, msg)) {
				free(msg);
				rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
			}
		} else if (buf && vec_push(&s->files, f)) {
			ms_ps_file_release(&f);
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
	}
out:
	free(ids);
	if (rc && rc != NNS_ENOTFOUND)
		ms_ps_set_release(s);
	return rc;
}

int ms_mtl_devices(const struct ms_src *src, int *ids, int max)
{
	return list_nums(src, "ascend_timeline_display_", ".json", ids, max);
}

int ms_marey_file_step(const struct ms_src *src, int *step)
{
	int ids[64], n = list_nums(src, "ascend_marey_timeline_", ".json", ids, 64);

	if (n <= 0)
		return 0;
	*step = ids[0];
	return 1;
}

int ms_marey_file_steps(const struct ms_src *src, int *ids, int max)
{
	return list_nums(src, "ascend_marey_timeline_", ".json", ids, max);
}

int ms_par_match_file(const char *base, int *dev, int *prio)
{
	static const struct {
		const char *pre;
		int prio, step;
	} P[] = {
	    {"parallel_strategy_", 2, 0},
	    {"profiler_info_", 3, 0},
	    {"ascend_marey_timeline_", 3, 1},
	    {"scope_map_", 3, 1},
	};
	int v;

	for (size_t i = 0; i < sizeof(P) / sizeof(P[0]); i++)
		if (match_num(base, P[i].pre, ".json", &v)) {
			*dev = P[i].step ? 0 : v;
			*prio = P[i].prio;
			return 1;
		}
	return 0;
}
