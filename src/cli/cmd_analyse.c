/*
 * cmd_analyse.c - `nnscope analyse <file-or-run-dir> --out <dir>`: loads
 * every worker/span found under the path, runs every analysis and writes
 * the JSON contract (and CSV tables) of SPEC §4, plus distributed.json for
 * runs with several workers, skipped.json listing the files discovery left
 * out (only when there are any), and timeline.json (Chrome trace, capped by
 * --timeline-limit-mb) with --timeline, and with --sqlite F.db every
 * worker's events and results and the distributed view in one SQLite
 * database (output/sqlite_out.h). A run that writes nothing leaves no
 * empty --out directory behind: the directories it created and left empty
 * are removed (never one that was there before).
 */
#include "cli/cli.h"
#include "cli/analyse_mpi.h"
#include "cli/collect.h"
#include "importers/ms_cluster.h"
#include "output/cluster_out.h"
#include "output/outfile.h"
#include "output/output.h"
#include "common/fs.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope analyse <trace-file | run-dir> --out <dir> [options]\n"
    "\n"
    "Analyses nnscope traces (.nnst) and PyTorch profiler (Kineto) traces and writes\n"
    "machine-readable results:\n"
    "  <dir>/<worker>[.<span>]/{overview,operators,kernels,memory,modules}.json\n"
    "  <dir>/<worker>[.<span>]/{datapipe,cpu,hostinfo,steptrace}.json\n"
    "  <dir>/<worker>[.<span>]/{step_trace,op_statistics,kernel_statistics,memory_ops,\n"
    "                           data_pipeline}.csv\n"
    "  <dir>/<worker>[.<span>]/timeline.json (with --timeline)\n"
    "  <dir>/distributed.json                (runs with several workers; .<span>.json\n"
    "                                         per span group when there are several)\n"
    "  <dir>/cluster.{json,csv}              (runs with several ranks, and\n"
    "                                         MindSpore cluster jobs: docs/CLUSTER.md)\n"
    "A directory is searched recursively; traces are recognised by content: *.json[.gz]\n"
    "holding traceEvents or an array of events (tb_plugin's <worker>[.<span>].pt.trace.json[.gz]\n"
    "names give worker and span) and <worker>[.<span>].nnst (with host_info/host_info_<rank>.csv\n"
    "beside them); other *.json / *.nnst files are listed as skipped, with the reason,\n"
    "on stderr and in <dir>/skipped.json (written only when something was skipped);\n"
    "when it holds several runs, each goes to <dir>/<run>/.\n"
    "MindSpore profiler directories (step_trace_raw_<id>_detail_time.csv,\n"
    "*timeline_display_<id>.json, aicore_intermediate_<id>_*.csv ...) are runs too:\n"
    "one worker device_<id> per device, with steptrace.json from MindSpore's step\n"
    "trace, ms_ops.json and the ms_*.csv tables (docs/MINDSPORE.md).\n"
    "\n"
    "Options:\n"
    "  -o, --out DIR      output directory (created if missing; required)\n"
    "  -j, --threads N    parse and analysis threads (0 = one per CPU)\n" CLI_LIMITS_HELP
    "      --no-csv       do not write the CSV tables\n"
    "      --timeline     also write timeline.json (Chrome trace: Perfetto UI,\n"
    "                     chrome://tracing)\n"
    "      --critical-path[=STEP]\n"
    "                     write critical_path.json for STEP (\"5\" or\n"
    "                     \"ProfilerStep#5\"; default the first step) and the path\n"
    "                     over that step's events as a Chrome trace,\n"
    "                     <dir>/<worker>[.<span>].critical.json\n"
    "      --timeline-limit-mb N\n"
    "                     cap timeline.json at N MB (0 = no cap; default: the\n"
    "                     timeline_limit each trace was collected with, else 500);\n"
    "                     the events past the cap are left out and the file says so\n"
    "      --steps A-B    analyse only steps A..B (also A, or A,B,C consecutive):\n"
    "                     the numbers of ProfilerStep#N / nnscope steps; the trace\n"
    "                     is cut to those steps' host time and their kernels\n"
    "      --pretty       indent the JSON files fully\n"
    "      --sqlite FILE  also write every worker's events and results, and the\n"
    "                     distributed view, into the SQLite database FILE (as\n"
    "                     `nnscope export --format sqlite`; docs/SQL.md); not with\n"
    "                     --mpi\n"
    "      --mpi          under mpirun: split the workers across the MPI processes;\n"
    "                     process 0 writes cluster.json (Open MPI, loaded at run\n"
    "                     time; shared file system; no distributed.json)\n"
    "  -q, --quiet        print nothing but warnings and errors\n"
    "  -h, --help         show this help\n";

struct analyse_ctx {
	const char *out; /* output directory of the current run */
	struct out_opts oo;
	int quiet;
	int timeline;		   /* --timeline */
	int64_t limit_bytes;	   /* --timeline-limit-mb, 0 = none, -1 = not given */
	int critpath;		   /* --critical-path */
	struct cli_sql sql;	   /* --sqlite (sql.db NULL without) */
	const struct cli_visit *v; /* v->groups: span groups of the current run */
	struct cli_visit visit;	   /* what v points to */
};

static int write_critpath(struct analyse_ctx *c, const struct cli_item *it, const char *sub)
{
	struct nns_err err;
	char dir[OUT_PATH_MAX], name[600];

	nns_err_clear(&err);
	snprintf(name, sizeof(name), "%s.critical.json", sub);
	if (out_join(dir, sizeof(dir), c->out, sub, &err) ||
	    out_write_critical_path(dir, c->out, name, &it->p, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

static int write_timeline(struct analyse_ctx *c, const struct cli_item *it, const char *sub)
{
	struct out_chrome_stats st;
	struct nns_err err;
	char dir[OUT_PATH_MAX];
	int64_t limit = c->limit_bytes;
	long trace_mb = limit < 0 ? out_chrome_trace_limit_mb(&it->m) : 0;

	if (limit < 0) /* the trace's timeline_limit option, else MindSpore's 500 MB */
		limit = (int64_t)(trace_mb > 0 ? trace_mb : 500) << 20;
	nns_err_clear(&err);
	if (out_join(dir, sizeof(dir), c->out, sub, &err) ||
	    out_chrome_file(dir, "timeline.json", &it->m, limit, &st, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	if (st.events_omitted) {
		char msg[OUT_PATH_MAX + 200];

		snprintf(msg, sizeof(msg),
			 "%s/timeline.json: cut at the %lld MB limit%s, from %.3f s into the "
			 "trace; %lld events left out (--timeline-limit-mb raises it)",
			 sub, (long long)(limit >> 20),
			 trace_mb > 0 ? " (the trace's timeline_limit option)" : "",
			 (double)(st.cut_ts - st.t0) / 1e9, (long long)st.events_omitted);
		cli_warn(NULL, msg);
	}
	return CLI_OK;
}

static int on_profile(void *vctx, const struct cli_item *it)
{
	struct analyse_ctx *c = vctx;
	struct out_source src = {it->worker->name, it->span->name, it->span->path, it->run->name};
	struct nns_err err;
	char sub[512];

	nns_err_clear(&err);
	if (out_write_profile(c->out, &src, &it->p, &c->oo, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	if (cli_sql_add(&c->sql, it))
		return CLI_EINPUT;
	out_profile_dirname(sub, sizeof(sub), it->worker->name, it->span->name);
	if (c->timeline && write_timeline(c, it, sub))
		return CLI_EINPUT;
	if (c->critpath && write_critpath(c, it, sub))
		return CLI_EINPUT;
	if (!c->quiet) {
		printf("%s/%s: %zu steps, %zu operators, %zu kernels%s\n", c->out, sub,
		       it->p.overview.steps.n, it->p.ops.by_name.n, it->p.kernels.by_name.n,
		       it->m.diag.truncated ? " (truncated input)" : "");
		fflush(stdout);
	}
	return CLI_OK;
}

/* --sqlite: a span's rows are written while its profile is computed */
static int on_model(void *vctx, const struct cli_item *it)
{
	return cli_sql_begin(&((struct analyse_ctx *)vctx)->sql, it);
}

static void on_drop(void *vctx, const struct cli_item *it)
{
	cli_sql_drop(&((struct analyse_ctx *)vctx)->sql, it);
}

/* The stem "<prefix>.<span>" of a span group's own file, when the run
 * has several span groups (with one it would copy the run's file, which
 * the caller writes for group 0): 1, else 0. */
static int group_stem(char *dst, size_t size, const struct analyse_ctx *c, const char *prefix,
		      const char *span_name)
{
	char s[OUT_NAME_MAX + 8];

	if (!span_name || c->v->groups <= 1)
		return 0;
	out_sanitize(s, sizeof(s), span_name);
	snprintf(dst, size, "%s.%s", prefix, s);
	return 1;
}

static int on_dist(void *vctx, const struct run *r, const char *span_name, size_t group,
		   const struct an_dist *d)
{
	struct analyse_ctx *c = vctx;
	struct nns_err err;
	char name[256], stem[OUT_NAME_MAX + 24];
	int own;

	(void)r;
	if (cli_sql_add_dist(&c->sql, span_name, d))
		return CLI_EINPUT;
	nns_err_clear(&err);
	if (group == 0 && out_write_dist(c->out, "distributed.json", span_name, d, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	own = group_stem(stem, sizeof(stem), c, "distributed", span_name);
	if (own) {
		snprintf(name, sizeof(name), "%s.json", stem);
		if (out_write_dist(c->out, name, span_name, d, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
	}
	if (!c->quiet && group == 0)
		printf("%s/distributed.json: %zu workers\n", c->out, d->workers.n);
	if (!c->quiet && own)
		printf("%s/%s: %zu workers\n", c->out, name, d->workers.n);
	return CLI_OK;
}

static int on_cluster(void *vctx, const struct run *r, const char *span_name, size_t group,
		      const struct cl_result *cr)
{
	struct analyse_ctx *c = vctx;
	struct nns_err err;
	char stem[OUT_NAME_MAX + 16];

	(void)r;
	nns_err_clear(&err);
	if (group == 0 && out_write_cluster(c->out, "cluster", cr, c->oo.csv, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	if (group_stem(stem, sizeof(stem), c, "cluster", span_name) &&
	    out_write_cluster(c->out, stem, cr, 0, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	if (!c->quiet && group == 0)
		printf("%s/cluster.json: %zu ranks, %zu proposals\n", c->out, cr->ranks.n,
		       cr->proposals.n);
	return CLI_OK;
}

/* MindSpore cluster jobs under the input (ms_cluster.h): cluster.json and
 * cluster.csv into <out>[/<rel>]. */
struct ms_jobs_ctx {
	const char *out;
	struct analyse_ctx *c;
	int threads;
	size_t written;
	int status;
	int root_job; /* the input itself is a job */
};

static int on_ms_job(void *vctx, const char *path, const char *rel)
{
	struct ms_jobs_ctx *x = vctx;
	struct msc_job j;
	struct cl_result cr;
	struct nns_err err;
	char dir[OUT_PATH_MAX], srel[1024];

	nns_err_clear(&err);
	snprintf(dir, sizeof(dir), "%s", x->out);
	if (rel[0]) {
		out_sanitize_rel(srel, sizeof(srel), rel);
		if (out_join(dir, sizeof(dir), x->out, srel, &err)) {
			cli_error(path, err.msg);
			x->status = CLI_EINPUT;
			return 0;
		}
	}
	if (msc_load(&j, path, x->threads, &err)) {
		cli_error(path, err.msg);
		x->status = CLI_EINPUT;
		return 0;
	}
	if (!rel[0])
		x->root_job = 1;
	if (j.problems)
		cli_warn(path, j.note);
	cl_init(&cr);
	if (cl_from_ms(&cr, &j, &err) ||
	    out_write_cluster(dir, "cluster", &cr, x->c->oo.csv, &err)) {
		cli_error(path, err.msg);
		x->status = CLI_EINPUT;
	} else {
		x->written++;
		if (!x->c->quiet)
			printf("%s/cluster.json: %zu ranks (MindSpore %s), %zu proposals\n", dir,
			       cr.ranks.n, cr.mode, cr.proposals.n);
	}
	cl_release(&cr);
	msc_release(&j);
	return 0;
}

/* skipped.json from what discovery left out (out_write_skipped). */
static int write_skipped(const char *out, const struct run_set *rs, int pretty_depth,
			 struct nns_err *err)
{
	struct out_skip *v = NULL;
	int rc;

	if (rs->skipped.n && !(v = malloc(rs->skipped.n * sizeof(*v))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t i = 0; i < rs->skipped.n; i++)
		v[i] = (struct out_skip){rs->skipped.v[i].path, rs->skipped.v[i].reason};
	rc = out_write_skipped(out, v, rs->skipped.n, rs->skipped_more, pretty_depth, err);
	free(v);
	return rc;
}

/* What the command line asks for. */
struct analyse_args {
	const char *in, *out, *sqlite;
	long threads, limit_mb;
	int mpi, no_csv, pretty, quiet, timeline;
	int critpath;	     /* --critical-path */
	const char *cp_step; /* its STEP, NULL = the first */
	struct cli_steps steps;
	struct cli_limits lim; /* --max-input, --max-ratio, --max-memory */
};

static int parse_steps(void *steps, const char *arg)
{
	char msg[200];

	if (cli_parse_steps(arg, steps, msg, sizeof(msg)))
		return cli_usage_error("analyse", "%s", msg);
	return CLI_CONTINUE;
}

static int parse_critpath(void *args, const char *arg)
{
	struct analyse_args *a = args;

	a->critpath = 1;
	a->cp_step = arg;
	return CLI_CONTINUE;
}

static int analyse_parse_args(int argc, char **argv, struct analyse_args *a)
{
	static const struct cli_cmd cmd = {"analyse", USAGE, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("out", 'o', &a->out),
	    CLI_OPT_THREADS(&a->threads),
	    CLI_OPT_LIMITS(&a->lim),
	    CLI_OPT_FLAG("no-csv", 'C' | CLI_LONG_ONLY, &a->no_csv, 1),
	    CLI_OPT_QUIET(&a->quiet),
	    CLI_OPT_FLAG("timeline", 'T' | CLI_LONG_ONLY, &a->timeline, 1),
	    CLI_OPT_LONG("timeline-limit-mb", 'L' | CLI_LONG_ONLY, &a->limit_mb, 0, 1 << 20,
			 "0..1048576 (MB)"),
	    CLI_OPT_CALL("steps", 'S' | CLI_LONG_ONLY, 1, parse_steps, &a->steps),
	    CLI_OPT_FLAG("pretty", 'P' | CLI_LONG_ONLY, &a->pretty, 1),
	    CLI_OPT_CALL("critical-path", 'K' | CLI_LONG_ONLY, 2, parse_critpath, a),
	    CLI_OPT_FLAG("mpi", 'M' | CLI_LONG_ONLY, &a->mpi, 1),
	    CLI_OPT_STR("sqlite", 'Q' | CLI_LONG_ONLY, &a->sqlite),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(a, 0, sizeof(*a));
	a->limit_mb = -1; /* none given: each trace's timeline_limit, else 500 */
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	rc = cli_one_input("analyse", argc, first, "missing the trace file or run directory");
	if (rc != CLI_CONTINUE)
		return rc;
	a->in = argv[first];
	if (!a->out)
		return cli_usage_error("analyse", "missing --out <dir>");
	if (a->sqlite && a->mpi)
		return cli_usage_error("analyse", "--sqlite does not work with --mpi (export the "
						  "run afterwards with `nnscope export --format "
						  "sqlite`)");
	if (a->sqlite && (!*a->sqlite || strcmp(a->sqlite, "-") == 0))
		return cli_usage_error("analyse", "--sqlite wants a file name");
	return CLI_CONTINUE;
}

static int analyse_body(struct analyse_ctx *cx, const struct analyse_args *a, struct mpi_dl *mpi);

/* --mpi: this process's share of the workers (analyse_mpi.h). */
static int analyse_mpi(struct analyse_ctx *cx, const struct analyse_args *a)
{
	struct mpi_dl mpi;
	struct nns_err err;
	int status;

	nns_err_clear(&err);
	if (mpi_dl_open(&mpi, NULL, NULL, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	status = analyse_body(cx, a, &mpi);
	mpi_dl_close(&mpi);
	return status;
}

/* Every worker here, and with --sqlite the database, opened first: an
 * unwritable database fails before any trace is read. */
static int analyse_local(struct analyse_ctx *cx, const struct analyse_args *a)
{
	int status;

	if (a->sqlite && cli_sql_open(&cx->sql, a->sqlite))
		return CLI_EINPUT;
	status = analyse_body(cx, a, NULL);
	if (cx->sql.db) {
		status = cli_sql_finish(&cx->sql, a->sqlite, status, NULL);
		if (status == CLI_OK && !cx->quiet)
			printf("%s: SQLite database\n", a->sqlite);
	}
	return status;
}

/* The topmost directory of path that does not exist yet: what fs_mkdirs
 * will create (into top, size bytes); "" when path exists (or is too long
 * to tell: then nothing is ever removed). */
static void first_missing(const char *path, char *top, size_t size)
{
	size_t n = strlen(path), i;
	struct stat st;

	top[0] = '\0';
	if (n == 0 || n >= size)
		return;
	for (i = 1; i <= n; i++) {
		if (i < n && (path[i] != '/' || path[i - 1] == '/'))
			continue;
		memcpy(top, path, i);
		top[i] = '\0';
		if (lstat(top, &st) == 0)
			continue;
		if (errno != ENOENT)
			break;
		return; /* top is the first prefix that is missing */
	}
	top[0] = '\0';
}

static int rmdir_empty(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path); /* fails, as meant, on a directory with something in it */
	return 0;
}

/* Removes the empty directories under (and with) top, which this run
 * created: nothing it wrote, and nothing else, goes. */
static void remove_empty_dirs(const char *top)
{
	if (top[0])
		nftw(top, rmdir_empty, 16, FTW_DEPTH | FTW_PHYS);
}

int cmd_analyse(int argc, char **argv)
{
	struct analyse_args a;
	struct analyse_ctx ctx;
	char created[OUT_PATH_MAX];
	int rc;

	if ((rc = analyse_parse_args(argc, argv, &a)) != CLI_CONTINUE)
		return rc;
	memset(&ctx, 0, sizeof(ctx));
	ctx.oo.csv = !a.no_csv;
	ctx.oo.pretty_depth = a.pretty ? 64 : 0;
	ctx.quiet = a.quiet;
	ctx.timeline = a.timeline;
	ctx.limit_bytes = a.limit_mb < 0 ? -1 : (int64_t)a.limit_mb << 20;
	ctx.critpath = a.critpath;
	if (a.mpi) /* other processes may still write into it */
		return analyse_mpi(&ctx, &a);
	first_missing(a.out, created, sizeof(created));
	rc = analyse_local(&ctx, &a);
	remove_empty_dirs(created);
	return rc;
}

/* Finds what there is to analyse under a->in: MindSpore cluster jobs
 * first (their cluster.json written at once; in an MPI job process 0's
 * alone; their devices are then analysed as workers like any other run,
 * ms_load.h), then the runs into rs, `nnscope collect` hosts merged into
 * one cluster, the output directory made and skipped.json written.
 * Returns 1 to go on with rs, or 0 to return *status (rs released). */
static int analyse_discover(struct analyse_ctx *cx, const struct analyse_args *a,
			    struct run_set *rs, struct mpi_dl *mpi, int *status)
{
	struct ms_jobs_ctx mj = {a->out, cx, (int)a->threads, 0, CLI_OK, 0};
	struct nns_err err;
	int root = !mpi || mpi->rank == 0;
	int drc, stop = 0;

	nns_err_clear(&err);
	memset(rs, 0, sizeof(*rs));
	if (root)
		msc_find_jobs(a->in, 8, on_ms_job, &mj, NULL);
	if (mj.status)
		*status = mj.status;
	drc = run_discover(rs, a->in, NULL, &err);
	if (root)
		cli_print_skipped(rs);
	if (drc == NNS_ENOTFOUND)
		run_set_release(rs);
	/* `nnscope collect` output: the hosts' runs are one cluster */
	if (drc == NNS_OK && collect_merge_runs(rs, a->in, &err))
		drc = err.code;
	if (drc == NNS_OK && fs_mkdirs(a->out, &err)) {
		cli_error(NULL, err.msg);
		run_set_release(rs);
		*status = CLI_EINPUT;
		stop = 1;
	} else if (drc) {
		stop = 1;
		if (!((mj.written > 0 || !root) && drc == NNS_ENOTFOUND)) {
			cli_error(a->in, err.msg);
			*status = CLI_EINPUT;
		}
	}
	/* what discovery left out, for tools as well as on stderr */
	if (!stop && root) {
		nns_err_clear(&err);
		if (write_skipped(a->out, rs, cx->oo.pretty_depth, &err)) {
			cli_error(NULL, err.msg);
			*status = CLI_EINPUT;
		}
	}
	/* every MPI process must see the same runs, or none goes on */
	if (mpi) {
		int go = cli_mpi_agree(mpi, !stop, rs);

		if (go != 1 && !stop)
			run_set_release(rs);
		if (go < 0)
			*status = CLI_EINPUT;
		else if (go == 0 && !root)
			*status = CLI_OK;
		if (go != 1)
			return 0;
	}
	return !stop;
}

/* The analysis proper; with mpi, this process's share (analyse_mpi.h). */
static int analyse_body(struct analyse_ctx *cx, const struct analyse_args *a, struct mpi_dl *mpi)
{
	struct cli_visit *v = &cx->visit;
	struct run_set rs;
	struct nns_err err;
	size_t visited = 0;
	int status = CLI_OK;
	int root = !mpi || mpi->rank == 0;

	if (!analyse_discover(cx, a, &rs, mpi, &status))
		return status;
	memset(v, 0, sizeof(*v));
	v->steps = a->steps;
	v->aopts.critpath_step = a->cp_step; /* the profiles' critical path */
	v->passes = AN_PASSES_DOCS;	     /* every document is written */
	cli_kineto_opts(&v->kopts, a->threads);
	cli_kineto_limits(&v->kopts, &a->lim);
	v->kopts.progress = root && v->kopts.progress;
	v->want_dist = 1;
	v->ctx = cx;
	v->on_profile = on_profile;
	v->on_dist = on_dist;
	v->on_cluster = on_cluster;
	if (cx->sql.db) {
		v->on_model = on_model;
		v->on_drop = on_drop;
	}
	cx->v = v;
	for (size_t i = 0; i < rs.runs.n; i++) {
		const struct run *r = &rs.runs.v[i];
		char rel[1024], dir[OUT_PATH_MAX];

		if (rs.runs.n > 1) {
			out_sanitize_rel(rel, sizeof(rel), r->name);
			nns_err_clear(&err);
			if (out_join(dir, sizeof(dir), a->out, rel, &err)) {
				cli_error(NULL, err.msg);
				status = CLI_EINPUT;
				continue;
			}
		} else {
			snprintf(dir, sizeof(dir), "%s", a->out);
		}
		cx->out = dir;
		if (mpi ? cli_visit_run_mpi(r, v, mpi, &visited) : cli_visit_run(r, v, &visited))
			status = CLI_EINPUT;
	}
	run_set_release(&rs);
	/* a trace that cannot be read was reported; the exit code says only
	 * whether anything at all could be analysed */
	if (visited == 0 && root)
		status = CLI_EINPUT;
	if (v->load_failed && visited && root && !cx->quiet)
		fprintf(stderr,
			"nnscope: %zu trace(s) analysed, %zu could not be read (see above)\n",
			visited, v->load_failed);
	return status;
}
