/*
 * ms_minddata_cpu.c - minddata_cpu_utilization_<dev>.json and the worker
 * counts of pipeline_profiling_<dev>.json (ms_minddata.h), read with the
 * MindSpore JSON reader (ms_json.h: bounded, a syntax error names its line).
 */
#include "importers/ms_json.h"
#include "importers/ms_minddata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A semantic error at line (the value being read). */
static int fail(struct nns_err *err, const char *name, uint32_t line, const char *why)
{
	return nns_err_set(err, NNS_EFORMAT, "%s:%u: %s", name, line ? line : 1, why);
}

/* An array of numbers into v (NULL items are an error). */
static int nums(const struct msj *j, const struct msj_node *a, struct ms_md_series *out)
{
	uint32_t c;

	if (a->type != MSJ_ARR)
		return -1;
	for (c = a->first; c; c = j->n.v[c].next) {
		if (j->n.v[c].type != MSJ_NUM || out->v.n >= MS_MD_MAX_LIST)
			return -1;
		if (vec_push(&out->v, j->n.v[c].num))
			return -2;
	}
	return 0;
}

/* Reads an object of metric arrays into g[0..*ng). */
static int read_group(const struct msj *j, const struct msj_node *o, struct ms_md_series *g,
		      size_t *ng, const char **why)
{
	uint32_t c;

	*ng = 0;
	if (!o || o->type != MSJ_OBJ) {
		*why = "an object of metric lists was expected";
		return -1;
	}
	for (c = o->first; c; c = j->n.v[c].next) {
		const struct msj_node *m = &j->n.v[c];
		size_t kl = m->klen < MS_MD_NAME_MAX - 1 ? m->klen : MS_MD_NAME_MAX - 1;
		int rc;

		if (*ng >= MS_MD_MAX_METRICS) {
			*why = "too many metrics";
			return -1;
		}
		memcpy(g[*ng].name, msj_key(j, m), kl);
		g[*ng].name[kl] = '\0';
		rc = nums(j, m, &g[*ng]);
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
	struct msj j;
	const struct msj_node *root, *x = NULL;
	const char *why = NULL;
	struct ms_md_series ts;
	int rc = NNS_OK;

	ms_md_cpu_release(out);
	memset(&ts, 0, sizeof(ts));
	memset(&j, 0, sizeof(j));
	if ((rc = msj_parse(&j, buf, n, name, err)))
		goto out;
	root = msj_root(&j);
	if (root->type != MSJ_OBJ) {
		rc = fail(err, name, 1, "not a JSON object");
		goto out;
	}
	if ((x = msj_get(&j, root, "sampling_interval"))) {
		if (x->type != MSJ_NUM) {
			why = "sampling_interval is not a number";
			goto bad;
		}
		out->has_sampling_interval = 1;
		out->sampling_interval = x->num;
	}
	if ((x = msj_get(&j, root, "cpu_processor_num"))) {
		if (x->type != MSJ_NUM) {
			why = "cpu_processor_num is not a number";
			goto bad;
		}
		out->has_cpu_num = 1;
		out->cpu_processor_num = (int64_t)x->num;
	}
	if ((x = msj_get(&j, root, "time_stamp"))) {
		if (nums(&j, x, &ts)) {
			why = "time_stamp is not a list of numbers";
			goto bad;
		}
		out->time_stamp.v = ts.v.v;
		out->time_stamp.n = ts.v.n;
		out->time_stamp.cap = ts.v.cap;
		memset(&ts, 0, sizeof(ts));
	}
	if ((x = msj_get(&j, root, "device_info")) &&
	    read_group(&j, x, out->device, &out->ndevice, &why))
		goto bad;
	if ((x = msj_get(&j, root, "process_info")) &&
	    read_group(&j, x, out->process, &out->nprocess, &why))
		goto bad;
	if ((x = msj_get(&j, root, "op_info"))) {
		uint32_t c;

		if (x->type != MSJ_ARR) {
			why = "op_info is not a list";
			goto bad;
		}
		for (c = x->first; c; c = j.n.v[c].next) {
			const struct msj_node *o = &j.n.v[c], *id, *m;
			struct ms_md_cpu_op op;

			memset(&op, 0, sizeof(op));
			op.num_workers = -1;
			id = msj_get(&j, o, "op_id");
			m = msj_get(&j, o, "metrics");
			if (!id || id->type != MSJ_NUM || !m) {
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
	/* the line of the member being read (x), else the first */
	rc = fail(err, name, x ? x->line : 1, why);
	ms_md_cpu_release(out);
out:
	vec_free(&ts.v);
	msj_release(&j);
	return rc;
}

int ms_md_parse_pipeline_workers(const char *buf, size_t n, const char *name, struct ms_md_cpu *out,
				 struct nns_err *err)
{
	struct msj j;
	const struct msj_node *ops;
	uint32_t c;
	int rc = NNS_OK;

	memset(&j, 0, sizeof(j));
	if ((rc = msj_parse(&j, buf, n, name, err)))
		goto out;
	ops = msj_get(&j, msj_root(&j), "op_info");
	if (!ops || ops->type != MSJ_ARR) {
		rc = fail(err, name, ops ? ops->line : 1, "no op_info list");
		goto out;
	}
	for (c = ops->first; c; c = j.n.v[c].next) {
		const struct msj_node *id = msj_get(&j, &j.n.v[c], "op_id");
		const struct msj_node *w = msj_get(&j, &j.n.v[c], "num_workers");

		if (!id || id->type != MSJ_NUM) {
			rc = fail(err, name, id ? id->line : j.n.v[c].line,
				  "an op_info item without a numeric op_id");
			goto out;
		}
		for (size_t i = 0; i < out->ops.n; i++)
			if (out->ops.v[i].op_id == (int64_t)id->num && w && w->type == MSJ_NUM)
				out->ops.v[i].num_workers = (int64_t)w->num;
	}
	out->has_workers = 1;
out:
	msj_release(&j);
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
