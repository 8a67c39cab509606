/*
 * routes_cluster.c - the cluster endpoints of `nnscope serve`
 * (docs/CLUSTER.md, docs/SERVER.md):
 *   /api/cluster?run=R[&span=S]  cluster.json of run R: the span group of
 *                                an nnscope/Kineto run (one rank per
 *                                worker), else the MindSpore cluster job at
 *                                <logdir>/R (R as listed by /api/cluster_jobs)
 *   /api/cluster_jobs            {"jobs":[{"name","ranks"}]}: the MindSpore
 *                                cluster jobs under the logdir
 * A job's directories and files are opened beneath the logdir's descriptor
 * (common/fs.h): a job path or a rank's file that resolves outside the
 * logdir is not read (the file is then the rank's problem, "refused").
 */
#include "analysis/cluster.h"
#include "importers/ms_cluster.h"
#include "output/cluster_out.h"
#include "server/live_watch.h"
#include "server/server.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CLUSTER_GROUP_MAX 4096
#define CLUSTER_NAME_MAX 4096

static void answer(struct srv_req *q, const struct cl_result *c)
{
	struct jsonw w;

	if (jsonw_init_mem(&w, 0, 0))
		return srv_error(q, 503, "out of memory");
	out_json_cluster(&w, c);
	srv_reply_json(q, &w);
}

/* 1 when logdir/rel is a MindSpore cluster job beneath the logdir; that
 * path in path (PATH_MAX + 8 bytes). */
static int ms_job_path(const struct server *s, const char *rel, char *path)
{
	return snprintf(path, PATH_MAX + 8, "%s/%s", s->reg.root.path, rel) < PATH_MAX + 8 &&
	       msc_is_cluster_in(&s->reg.root, path);
}

/* The MindSpore job at logdir/rel, or 404. */
static void ms_job(struct server *s, struct srv_req *q, const char *rel)
{
	char path[PATH_MAX + 8];
	struct msc_job j;
	struct cl_result c;
	struct nns_err err;

	if (!ms_job_path(s, rel, path))
		return srv_error(q, 404, "no run or MindSpore cluster job '%.200s'", rel);
	nns_err_clear(&err);
	if (msc_load_in(&j, &s->reg.root, path, 0, &err))
		return srv_error(q, 422, "%s", err.msg);
	cl_init(&c);
	if (cl_from_ms(&c, &j, &err)) {
		cl_release(&c);
		msc_release(&j);
		return srv_error(q, 500, "%s", err.msg);
	}
	msc_release(&j);
	answer(q, &c);
	cl_release(&c);
}

void api_cluster(struct server *s, struct srv_req *q)
{
	const char *run = srv_arg(q, "run"), *span = srv_arg(q, "span");
	struct reg_entry **es;
	struct cl_result c;
	struct nns_err err;
	size_t n;
	int rc = NNS_OK;

	if (!run)
		return srv_error(q, 400, "missing parameter 'run'");
	if (strlen(run) > CLUSTER_NAME_MAX || (span && strlen(span) > CLUSTER_NAME_MAX))
		return srv_error(q, 400, "parameter too long");
	/* a MindSpore job first: its devices are also a run, but the job's
	 * own files (step trace, hccl, flops per rank) are its cluster */
	{
		char path[PATH_MAX + 8];

		if (!span && ms_job_path(s, run, path))
			return ms_job(s, q, run);
	}
	if (!(es = calloc(CLUSTER_GROUP_MAX, sizeof(*es))))
		return srv_error(q, 503, "out of memory");
	n = reg_find_group(&s->reg, run, span, es, CLUSTER_GROUP_MAX);
	if (n == 0 && reg_rescan_if_stale(&s->reg)) /* a run that appeared since */
		n = reg_find_group(&s->reg, run, span, es, CLUSTER_GROUP_MAX);
	if (n == 0) {
		free(es);
		return ms_job(s, q, run);
	}
	/* a rank still being written: the live verdict (live_watch.h) */
	if (live_watch_cluster(s, q, run, span)) {
		free(es);
		return;
	}
	/* every worker of the group must be loaded; else 202 or the error */
	if (!srv_acquire_all(s, q, es, n)) {
		free(es);
		return;
	}
	cl_init(&c);
	nns_err_clear(&err);
	for (size_t i = 0; i < n && rc == NNS_OK; i++)
		rc = cl_add_profile(&c, es[i]->worker, es[i]->p, &err);
	if (rc == NNS_OK)
		rc = cl_finish(&c, &err);
	for (size_t i = 0; i < n; i++)
		reg_put(&s->reg, es[i]);
	free(es);
	if (rc)
		srv_error(q, 500, "%s", err.msg);
	else
		answer(q, &c);
	cl_release(&c);
}

struct jobs_ctx {
	struct jsonw *w;
};

static int list_job(void *vctx, const char *path, const char *rel)
{
	struct jobs_ctx *x = vctx;

	(void)path;
	jsonw_obj_begin(x->w);
	jsonw_kstr(x->w, "name", rel[0] ? rel : ".");
	jsonw_obj_end(x->w);
	return 0;
}

void api_cluster_jobs(struct server *s, struct srv_req *q)
{
	struct jobs_ctx x;
	struct jsonw w;

	if (jsonw_init_mem(&w, 0, 0))
		return srv_error(q, 503, "out of memory");
	x.w = &w;
	jsonw_obj_begin(&w);
	jsonw_key(&w, "jobs");
	jsonw_arr_begin(&w);
	msc_find_jobs_in(&s->reg.root, s->reg.root.path, 8, list_job, &x, NULL);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	srv_reply_json(q, &w);
}
