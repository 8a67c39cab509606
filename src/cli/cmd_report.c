/*
 * cmd_report.c - `nnscope report <path>`: the same analysis as `analyse`,
 * printed as terminal tables (views: overview, operators, kernels, memory,
 * modules, distributed, datapipe, cpu, all).
 */
#include "analysis/cluster.h"
#include "cli/cli.h"
#include "importers/ms_cluster.h"
#include "output/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope report <trace-file | run-dir> [options]\n"
    "\n"
    "Analyses nnscope (.nnst) and PyTorch profiler (Kineto) traces and prints the\n"
    "results as tables.\n"
    "\n"
    "Options:\n"
    "  -v, --view LIST    overview, operators, kernels, memory, modules, distributed,\n"
    "                     datapipe, cpu, or MindSpore's steptrace, ms_ops,\n"
    "                     ms_op_detail, aicpu, flops, minddata, dynshape, gpu_ops,\n"
    "                     cpu_ops, cluster, ms_memory, mindspore (all of them), or\n"
    "                     all; comma\n"
    "                     separated (default: overview)\n"
    "  -r, --run NAME     only this run (a directory under the path)\n"
    "  -w, --worker NAME  only this worker\n"
    "  -s, --span S       only this span (1..n, or the file's numeric suffix)\n"
    "  -n, --top N        rows in top-N tables (default 20)\n"
    "  -j, --threads N    parse and analysis threads (0 = one per CPU)\n" CLI_LIMITS_HELP
    "      --no-color     no ANSI colours (also when NO_COLOR is set or not a tty)\n"
    "  -h, --help         show this help\n";

struct report_ctx {
	unsigned views;
	struct report_opts ro;
	int many_runs;
	size_t profiles;
};

static int on_profile(void *vctx, const struct cli_item *it)
{
	struct report_ctx *c = vctx;
	char label[1024], title[1400];

	c->profiles++;
	if (!(c->views & ~(unsigned)(RV_DISTRIBUTED | RV_MS_CLUSTER)))
		return CLI_OK;
	cli_item_label(label, sizeof(label), it, c->many_runs);
	snprintf(title, sizeof(title), "%s  (%s)", label, it->span->path);
	report_profile(stdout, &it->p, title,
		       c->views & ~(unsigned)(RV_DISTRIBUTED | RV_MS_CLUSTER), &c->ro);
	fflush(stdout);
	return CLI_OK;
}

static int on_dist(void *vctx, const struct run *r, const char *span_name, size_t group,
		   const struct an_dist *d)
{
	struct report_ctx *c = vctx;
	char title[1200];

	(void)group;
	snprintf(title, sizeof(title), "Distributed: %s%s%s", r->name, span_name ? " span " : "",
		 span_name ? span_name : "");
	report_dist(stdout, d, title, &c->ro);
	fflush(stdout);
	return CLI_OK;
}

/* What the command line asks for. */
struct report_args {
	const char *in, *only_run, *worker, *span;
	unsigned views;
	long top, threads;
	int no_color;
	struct cli_limits lim;
};

static int parse_views(void *views, const char *arg)
{
	if (report_parse_views(arg, views))
		return cli_usage_error("report", "unknown view '%s'", arg);
	return CLI_CONTINUE;
}

static int report_parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct cli_cmd cmd = {"report", USAGE, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_CALL("view", 'v', 1, parse_views, &a->views),
	    CLI_OPT_STR("run", 'r', &a->only_run),
	    CLI_OPT_WORKER(&a->worker),
	    CLI_OPT_SPAN(&a->span),
	    CLI_OPT_TOP(&a->top),
	    CLI_OPT_THREADS(&a->threads),
	    CLI_OPT_LIMITS(&a->lim),
	    CLI_OPT_NO_COLOR(&a->no_color),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(a, 0, sizeof(*a));
	a->views = RV_OVERVIEW;
	a->top = 20;
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	rc = cli_one_input("report", argc, first, "missing the trace file or run directory");
	a->in = argv[first];
	return rc;
}

/* MindSpore cluster jobs under the input (ms_cluster.h): their per-rank
 * table (report_ms_cluster), for --view cluster and the default view. */
struct ms_jobs_ctx {
	const struct report_ctx *c;
	int threads;
	size_t printed;
};

static int on_ms_job(void *vctx, const char *path, const char *rel)
{
	struct ms_jobs_ctx *x = vctx;
	struct msc_job j;
	struct cl_result cr;
	struct nns_err err;
	char title[1200];

	nns_err_clear(&err);
	if (msc_load(&j, path, x->threads, &err)) {
		cli_warn(path, err.msg);
		return 0;
	}
	cl_init(&cr);
	if (cl_from_ms(&cr, &j, &err)) {
		cli_warn(path, err.msg);
	} else {
		snprintf(title, sizeof(title), "Cluster: %s  (%s)", rel[0] ? rel : ".", path);
		report_ms_cluster(stdout, &cr, title, &x->c->ro);
		fflush(stdout);
		x->printed++;
	}
	cl_release(&cr);
	msc_release(&j);
	return 0;
}

/* Prints every selected span of every selected run; CLI_OK or
 * CLI_EINPUT. */
static int report_runs(const struct run_set *rs, const struct report_args *a)
{
	struct report_ctx ctx;
	struct cli_visit v;
	size_t matched = 0;
	int status = CLI_OK;

	memset(&ctx, 0, sizeof(ctx));
	memset(&v, 0, sizeof(v));
	ctx.views = a->views;
	cli_report_opts(&ctx.ro, a->no_color, a->top);
	ctx.many_runs = rs->runs.n > 1;
	cli_kineto_opts(&v.kopts, a->threads);
	cli_kineto_limits(&v.kopts, &a->lim);
	v.only_worker = a->worker;
	v.only_span = a->span;
	v.want_dist = (ctx.views & RV_DISTRIBUTED) != 0;
	v.ctx = &ctx;
	v.on_profile = on_profile;
	v.on_dist = on_dist;
	for (size_t i = 0; i < rs->runs.n; i++) {
		const struct run *r = &rs->runs.v[i];

		if (a->only_run && strcmp(r->name, a->only_run) != 0)
			continue;
		if (a->worker && !run_find_worker(r, a->worker))
			continue;
		matched++;
		if (cli_visit_run(r, &v, NULL))
			status = CLI_EINPUT;
		if (ctx.views == RV_DISTRIBUTED && (r->workers.n < 2 || a->worker))
			printf("\n(distributed view of %s: needs a run with several workers)\n",
			       r->name);
	}
	if ((ctx.views & (RV_MS_CLUSTER | RV_OVERVIEW)) && !a->worker && !a->span) {
		struct ms_jobs_ctx mj = {&ctx, (int)a->threads, 0};

		msc_find_jobs(a->in, 8, on_ms_job, &mj, NULL);
		if (mj.printed && ctx.views == RV_MS_CLUSTER)
			return CLI_OK; /* a cluster job alone is something to report */
		if (!mj.printed && ctx.views == RV_MS_CLUSTER)
			printf("\n(cluster view: no MindSpore cluster job under %s)\n", a->in);
	}
	if (matched == 0) {
		cli_error(a->in, a->only_run && a->worker ? "no such run or worker"
				 : a->only_run		  ? "no such run"
							  : "no such worker");
		status = CLI_EINPUT;
	} else if (ctx.profiles == 0 && status == CLI_OK) {
		cli_error(a->in, a->span ? "no such span" : "nothing to report");
		status = CLI_EINPUT;
	}
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a;
	struct run_set rs;
	int rc;

	if ((rc = report_parse_args(argc, argv, &a)) != CLI_CONTINUE)
		return rc;
	rc = cli_open_runs(&rs, "report", a.in, a.only_run, a.worker, a.span);
	if (rc)
		return rc;
	rc = report_runs(&rs, &a);
	run_set_release(&rs);
	return rc;
}
