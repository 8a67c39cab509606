/*
 * ms_minddata_cpu.c - minddata_cpu_utilization_<dev>.json and the worker
 * counts of pipeline_profiling_<dev>.json (ms_minddata.h), with a small
 * JSON reader into a flat node array (these files are small: one value per
 * sample). Nesting is capped at JP_DEPTH, nodes at JP_NODES_MAX; a syntax
 * error names the line it is on.
 */
#include "importers/ms_minddata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small JSON reader --------------------------------------------- */

#define JP_DEPTH 32
#define JP_NODES_MAX 8000000

enum { JP_NULL, JP_BOOL, JP_NUM, JP_STR, JP_ARR, JP_OBJ };

struct jp_node {
	int type;
	double num;
	const char *key; /* member key (raw, escapes kept), NULL in arrays */
	size_t klen;
	uint32_t first, next; /* first child, next sibling; 0 = none */
};

struct jp {
	const char *buf, *p, *end;
	const char *why; /* the first error */
	const char *at;	 /* where */
	VEC(struct jp_node) n;
};

static int jp_fail(struct jp *j, const char *why)
{
	if (!j->why) {
		j->why = why;
		j->at = j->p;
	}
	return -1;
}

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int jp_string(struct jp *j, const char **s, size_t *len)
{
	const char *q;

	if (j->p >= j->end || *j->p != '"')
		return jp_fail(j, "a string was expected");
	q = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20)
			return jp_fail(j, "a control character in a string");
		if (*j->p == '\\')
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return jp_fail(j, "an unterminated string");
	*s = q;
	*len = (size_t)(j->p - q);
	j->p++;
	return 0;
}

static int64_t jp_new(struct jp *j, int type)
{
	struct jp_node z;

	if (j->n.n >= JP_NODES_MAX)
		return jp_fail(j, "too many values");
	memset(&z, 0, sizeof(z));
	z.type = type;
	if (vec_push(&j->n, z))
		return jp_fail(j, "out of memory");
	return (int64_t)j->n.n - 1;
}

static int64_t jp_value(struct jp *j, int depth);

static int64_t jp_container(struct jp *j, int depth, int obj)
{
	int64_t me, prev = -1;
	char close = obj ? '}' : ']';

	if (depth >= JP_DEPTH)
		return jp_fail(j, "nested too deeply");
	if ((me = jp_new(j, obj ? JP_OBJ : JP_ARR)) < 0)
		return -1;
	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return me;
	}
	for (;;) {
		const char *k = NULL;
		size_t kl = 0;
		int64_t child;

		jp_ws(j);
		if (obj) {
			if (jp_string(j, &k, &kl))
				return -1;
			jp_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return jp_fail(j, "':' was expected");
			j->p++;
		}
		if ((child = jp_value(j, depth + 1)) < 0)
			return -1;
		j->n.v[child].key = k;
		j->n.v[child].klen = kl;
		if (prev < 0)
			j->n.v[me].first = (uint32_t)child;
		else
			j->n.v[prev].next = (uint32_t)child;
		prev = child;
		jp_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return me;
		}
		return jp_fail(j, obj ? "',' or '}' was expected" : "',' or ']' was expected");
	}
}

static int64_t jp_value(struct jp *j, int depth)
{
	static const char *const words[] = {"true", "false", "null"};
	int64_t me;

	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "the document ends early");
	if (*j->p == '{' || *j->p == '[')
		return jp_container(j, depth, *j->p == '{');
	if (*j->p == '"') {
		const char *s;
		size_t l;

		if ((me = jp_new(j, JP_STR)) < 0 || jp_string(j, &s, &l))
			return -1;
		return me;
	}
	for (int i = 0; i < 3; i++) {
		size_t l = strlen(words[i]);

		if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[i], l) == 0) {
			if ((me = jp_new(j, i == 2 ? JP_NULL : JP_BOOL)) < 0)
				return -1;
			j->p += l;
			j->n.v[me].num = i == 0;
			return me;
		}
	}
	{
		char tmp[64], *e;
		size_t l = 0;

		while (j->p + l < j->end && l < sizeof(tmp) - 1 &&
		       strchr("+-0123456789.eE", j->p[l]) && j->p[l])
			l++;
		if (l == 0)
			return jp_fail(j, "a value was expected");
		memcpy(tmp, j->p, l);
		tmp[l] = '\0';
		if ((me = jp_new(j, JP_NUM)) < 0)
			return -1;
		j->n.v[me].num = strtod(tmp, &e);
		if (*e || !isfinite(j->n.v[me].num))
			return jp_fail(j, "a malformed number");
		j->p += l;
		return me;
	}
}

/* Parses buf[0..n) as one JSON value (node 0); 0, or -1 with why/at set. */
static int jp_parse(struct jp *j, const char *buf, size_t n)
{
	memset(j, 0, sizeof(*j));
	j->buf = j->p = buf;
	j->end = buf + n;
	if (jp_value(j, 0) != 0)
		return -1;
	jp_ws(j);
	return j->p == j->end ? 0 : jp_fail(j, "text after the JSON value");
}

static int jp_key_is(const struct jp_node *x, const char *k)
{
	return x->key && x->klen == strlen(k) && memcmp(x->key, k, x->klen) == 0;
}

/* The member k of object node o, or NULL. */
static const struct jp_node *jp_get(const struct jp *j, const struct jp_node *o, const char *k)
{
	uint32_t c;

	if (!o || o->type != JP_OBJ)
		return NULL;
	for (c = o->first; c; c = j->n.v[c].next)
		if (jp_key_is(&j->n.v[c], k))
			return &j->n.v[c];
	return NULL;
}

static int fail(struct nns_err *err, const char *name, const char *buf, size_t n, const char *at,
		const char *why)
{
	/* the parser may point one past the text at its end */
	if (!at || at < buf || at > buf + n)
		at = buf + n;
	return nns_err_set(err, NNS_EFORMAT, "%s:%zu: %s", name, ms_md_line_of(buf, at), why);
}

/* An array of numbers into v (NULL items are an error). */
static int jp_nums(const struct jp *j, const struct jp_node *a, struct ms_md_series *out)
{
	uint32_t c;

	if (a->type != JP_ARR)
		return -1;
	for (c = a->first; c; c = j->n.v[c].next) {
		if (j->n.v[c].type != JP_NUM || out->v.n >= MS_MD_MAX_LIST)
			return -1;
		if (vec_push(&out->v, j->n.v[c].num))
			return -2;
	}
	return 0;
}

/* Reads an object of metric arrays into g[0..*ng). */
static int read_group(const struct jp *j, const struct jp_node *o, struct ms_md_series *g,
		      size_t *ng, const char **why)
{
	uint32_t c;

	*ng = 0;
	if (!o || o->type != JP_OBJ) {
		*why = "an object of metric lists was expected";
		return -1;
	}
	for (c = o->first; c; c = j->n.v[c].next) {
		const struct jp_node *m = &j->n.v[c];
		size_t kl = m->klen < MS_MD_NAME_MAX - 1 ? m->klen : MS_MD_NAME_MAX - 1;
		int rc;

		if (*ng >= MS_MD_MAX_METRICS) {
			*why = "too many metrics";
			return -1;
		}
		memcpy(g[*ng].name, m->key, kl);
		g[*ng].name[kl] = '\0';
		rc = jp_nums(j, m, &g[*ng]);
		(*ng)++;
		if (rc) {
			*why = rc == -2 ? "out of memory" : "a metric is not a list of numbers";
			return -1;
		}
	}
	return 0;
}

static void free_group(struct ms_md_series *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vec_free(&g[i].v);
}

void ms_md_cpu_release(struct ms_md_cpu *c)
{
	free_group(c->device, MS_MD_MAX_METRICS);
	free_group(c->process, MS_MD_MAX_METRICS);
	for (size_t i = 0; i < c->ops.n; i++)
		free_group(c->ops.v[i].metrics, MS_MD_MAX_METRICS);
	vec_free(&c->ops);
	vec_free(&c->time_stamp);
	memset(c, 0, sizeof(*c));
}

const struct ms_md_series *ms_md_series_find(const struct ms_md_series *g, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return &g[i];
	return NULL;
}

int ms_md_parse_cpu(const char *buf, size_t n, const char *name, struct ms_md_cpu *out,
		    struct nns_err *err)
{
	struct jp j;
	const struct jp_node *root, *x;
	const char *why = NULL, *at = buf;
	struct ms_md_series ts;
	int rc = NNS_OK;

	ms_md_cpu_release(out);
	memset(&ts, 0, sizeof(ts));
	if (jp_parse(&j, buf, n)) {
		rc = fail(err, name, buf, n, j.at, j.why);
		goto out;
	}
	root = &j.n.v[0];
	if (root->type != JP_OBJ) {
		rc = fail(err, name, buf, n, buf, "not a JSON object");
		goto out;
	}
	if ((x = jp_get(&j, root, "sampling_interval"))) {
		if (x->type != JP_NUM) {
			why = "sampling_interval is not a number";
			goto bad;
		}
		out->has_sampling_interval = 1;
		out->sampling_interval = x->num;
	}
	if ((x = jp_get(&j, root, "cpu_processor_num"))) {
		if (x->type != JP_NUM) {
			why = "cpu_processor_num is not a number";
			goto bad;
		}
		out->has_cpu_num = 1;
		out->cpu_processor_num = (int64_t)x->num;
	}
	if ((x = jp_get(&j, root, "time_stamp"))) {
		if (jp_nums(&j, x, &ts)) {
			why = "time_stamp is not a list of numbers";
			goto bad;
		}
		out->time_stamp.v = ts.v.v;
		out->time_stamp.n = ts.v.n;
		out->time_stamp.cap = ts.v.cap;
		memset(&ts, 0, sizeof(ts));
	}
	if ((x = jp_get(&j, root, "device_info")) &&
	    read_group(&j, x, out->device, &out->ndevice, &why))
		goto bad;
	if ((x = jp_get(&j, root, "process_info")) &&
	    read_group(&j, x, out->process, &out->nprocess, &why))
		goto bad;
	if ((x = jp_get(&j, root, "op_info"))) {
		uint32_t c;

		if (x->type != JP_ARR) {
			why = "op_info is not a list";
			goto bad;
		}
		for (c = x->first; c; c = j.n.v[c].next) {
			const struct jp_node *o = &j.n.v[c], *id, *m;
			struct ms_md_cpu_op op;

			memset(&op, 0, sizeof(op));
			op.num_workers = -1;
			id = jp_get(&j, o, "op_id");
			m = jp_get(&j, o, "metrics");
			if (!id || id->type != JP_NUM || !m) {
				why = "an op_info item without a numeric op_id or metrics";
				goto bad;
			}
			op.op_id = (int64_t)id->num;
			if (out->ops.n >= MS_MD_MAX_OPS || vec_push(&out->ops, op)) {
				why = "too many ops";
				goto bad;
			}
			if (read_group(&j, m, out->ops.v[out->ops.n - 1].metrics,
				       &out->ops.v[out->ops.n - 1].nmetrics, &why))
				goto bad;
		}
	}
	out->present = 1;
	goto out;
bad:
	/* the error's line: the value being read when it failed is not kept;
	 * name the key's line (x), else the start */
	if (x && x->key)
		at = x->key;
	rc = fail(err, name, buf, n, at, why);
	ms_md_cpu_release(out);
out:
	vec_free(&ts.v);
	vec_free(&j.n);
	return rc;
}

int ms_md_parse_pipeline_workers(const char *buf, size_t n, const char *name, struct ms_md_cpu *out,
				 struct nns_err *err)
{
	struct jp j;
	const struct jp_node *ops;
	uint32_t c;
	int rc = NNS_OK;

	if (jp_parse(&j, buf, n)) {
		rc = fail(err, name, buf, n, j.at, j.why);
		goto out;
	}
	ops = jp_get(&j, &j.n.v[0], "op_info");
	if (!ops || ops->type != JP_ARR) {
		rc = fail(err, name, buf, n, ops && ops->key ? ops->key : buf, "no op_info list");
		goto out;
	}
	for (c = ops->first; c; c = j.n.v[c].next) {
		const struct jp_node *id = jp_get(&j, &j.n.v[c], "op_id");
		const struct jp_node *w = jp_get(&j, &j.n.v[c], "num_workers");

		if (!id || id->type != JP_NUM) {
			rc = fail(err, name, buf, n, id && id->key ? id->key : buf,
				  "an op_info item without a numeric op_id");
			goto out;
		}
		for (size_t i = 0; i < out->ops.n; i++)
			if (out->ops.v[i].op_id == (int64_t)id->num && w && w->type == JP_NUM)
				out->ops.v[i].num_workers = (int64_t)w->num;
	}
	out->has_workers = 1;
out:
	vec_free(&j.n);
	return rc;
}

int ms_md_read_cpu(const struct ms_src *s, struct ms_md_cpu *out, struct nns_err *err)
{
	char path[MS_MD_PATH_MAX];
	char *buf;
	size_t n;
	int rc;

	ms_md_cpu_release(out);
	rc = ms_md_slurp(s, "minddata_cpu_utilization_", ".json", path, &buf, &n, err);
	if (rc == 1)
		return NNS_OK;
	if (rc < 0)
		return rc;
	rc = ms_md_parse_cpu(buf, n, path, out, err);
	free(buf);
	if (rc != NNS_OK)
		return rc;
	memcpy(out->path, path, sizeof(out->path));
	rc = ms_md_slurp(s, "pipeline_profiling_", ".json", path, &buf, &n, err);
	if (rc == 1)
		return NNS_OK;
	if (rc == 0) {
		rc = ms_md_parse_pipeline_workers(buf, n, path, out, err);
		free(buf);
	}
	if (rc != NNS_OK)
		ms_md_cpu_release(out);
	return rc;
}
