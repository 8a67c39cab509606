/*
 * cmd_analyse.c - `nnscope analyse <file-or-run-dir> --out <dir>`: loads
 * every worker/span found under the path, runs every analysis and writes
 * the JSON contract (and CSV tables) of SPEC §4, plus distributed.json for
 * runs with several workers, skipped.json listing the files discovery left
 * out (only when there are any), and timeline.json (Chrome trace, capped by
 * --timeline-limit-mb) with --timeline, and with --sqlite F.db every
 * worker's events and results and the distributed view in one SQLite
 * database (output/sqlite_out.h).
 */
#include "cli/cli.h"
#include "cli/analyse_mpi.h"
#include "cli/collect.h"
#include "importers/ms_cluster.h"
#include "output/cluster_out.h"
#include "output/outfile.h"
#include "output/output.h"
#include "output/sqlite_out.h"
#include "common/fs.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
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
    "  -j, --threads N    parser threads (0 = one per CPU, the default)\n"
    "      --no-csv       do not write the CSV tables\n"
    "      --timeline     also write timeline.json (Chrome trace: Perfetto UI,\n"
    "                     chrome://tracing)\n"
    "      --critical-path[=STEP]\n"
    "                     write critical_path.json for STEP (\"5\" or\n"
    "                     \"ProfilerStep#5\"; default the first step) and the path\n"
    "                     over that step's events as a Chrome trace,\n"
    "                     <dir>/<worker>[.<span>].critical.json\n"
    "      --timeline-limit-mb N\n"
    "                     cap timeline.json at N MB (default 500, 0 = no cap); the\n"
    "                     events past the cap are left out and the file says so\n"
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
	int64_t limit_bytes;	   /* --timeline-limit-mb, 0 = none */
	int critpath;		   /* --critical-path */
	const char *cp_step;	   /* its STEP, NULL = the first */
	struct out_sqlite *sql;	   /* --sqlite, NULL without */
	const struct cli_visit *v; /* v->groups: span groups of the current run */
	int sql_failed;
};

/* --sqlite: one worker/span into the database; after a failure the
 * database is only aborted at the end. */
static int sql_add(struct analyse_ctx *c, const struct cli_item *it)
{
	struct out_sqlite_item item = {it->run->name, it->worker->name, it->span->name,
				       it->span->path, &it->p};
	struct nns_err err;

	if (!c->sql || c->sql_failed)
		return CLI_OK;
	nns_err_clear(&err);
	if (out_sqlite_add(c->sql, &item, NULL, &err)) {
		cli_error(NULL, err.msg);
		c->sql_failed = 1;
		return CLI_EINPUT;
	}
	return CLI_OK;
}

static int write_critpath(struct analyse_ctx *c, const struct cli_item *it, const char *sub)
{
	struct nns_err err;
	char dir[OUT_PATH_MAX], name[600];

	nns_err_clear(&err);
	snprintf(name, sizeof(name), "%s.critical.json", sub);
	if (out_join(dir, sizeof(dir), c->out, sub, &err) ||
	    out_write_critical_path(dir, c->out, name, &it->p, c->cp_step, &err)) {
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

	nns_err_clear(&err);
	if (out_join(dir, sizeof(dir), c->out, sub, &err) ||
	    out_chrome_file(dir, "timeline.json", &it->m, c->limit_bytes, &st, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	if (st.events_omitted) {
		char msg[OUT_PATH_MAX + 200];

		snprintf(msg, sizeof(msg),
			 "%s/timeline.json: cut at the %lld MB limit, %lld events left out "
			 "(--timeline-limit-mb raises it)",
			 sub, (long long)(c->limit_bytes >> 20), (long long)st.events_omitted);
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
	if (sql_add(c, it))
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

static int on_dist(void *vctx, const struct run *r, const char *span_name, size_t group,
		   const struct an_dist *d)
{
	struct analyse_ctx *c = vctx;
	struct nns_err err;
	char name[256];

	(void)r;
	nns_err_clear(&err);
	if (c->sql && !c->sql_failed && out_sqlite_add_dist(c->sql, span_name, d, &err)) {
		cli_error(NULL, err.msg);
		c->sql_failed = 1;
		return CLI_EINPUT;
	}
	nns_err_clear(&err);
	if (group == 0 && out_write_dist(c->out, "distributed.json", span_name, d, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	/* distributed.<span>.json only tells span groups apart: with one
	 * group it would be a copy of distributed.json */
	if (span_name && c->v->groups > 1) {
		char s[OUT_NAME_MAX + 8];

		out_sanitize(s, sizeof(s), span_name);
		snprintf(name, sizeof(name), "distributed.%s.json", s);
		if (out_write_dist(c->out, name, span_name, d, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
	}
	if (!c->quiet && group == 0)
		printf("%s/distributed.json: %zu workers\n", c->out, d->workers.n);
	if (!c->quiet && span_name && c->v->groups > 1)
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
	if (span_name && c->v->groups > 1) {
		char s[OUT_NAME_MAX + 8];

		out_sanitize(s, sizeof(s), span_name);
		snprintf(stem, sizeof(stem), "cluster.%s", s);
		if (out_write_cluster(c->out, stem, cr, 0, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
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

static int analyse_body(struct analyse_ctx *cx, struct cli_visit *v, const char *in,
			const char *out, long threads, long limit_mb, struct mpi_dl *mpi);

int cmd_analyse(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"threads", required_argument, NULL, 'j'},
	    {"no-csv", no_argument, NULL, 'C'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"timeline", no_argument, NULL, 'T'},
	    {"timeline-limit-mb", required_argument, NULL, 'L'},
	    {"steps", required_argument, NULL, 'S'},
	    {"pretty", no_argument, NULL, 'P'},
	    {"critical-path", optional_argument, NULL, 'K'},
	    {"mpi", no_argument, NULL, 'M'},
	    {"sqlite", required_argument, NULL, 'Q'},
	    {NULL, 0, NULL, 0},
	};
	struct analyse_ctx ctx;
	struct cli_visit v;
	struct nns_err err;
	const char *out = NULL, *sqlite_path = NULL;
	int c, status, use_mpi = 0;
	long threads = 0, limit_mb = 500;
	struct mpi_dl mpi;

	memset(&ctx, 0, sizeof(ctx));
	memset(&v, 0, sizeof(v));
	ctx.oo.csv = 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			if (cli_parse_int(optarg, 0, 256, &threads))
				return cli_usage_error("analyse",
						       "--threads wants 0..256, not '%s'", optarg);
			break;
		case 'C':
			ctx.oo.csv = 0;
			break;
		case 'q':
			ctx.quiet = 1;
			break;
		case 'T':
			ctx.timeline = 1;
			break;
		case 'L':
			if (cli_parse_int(optarg, 0, 1 << 20, &limit_mb))
				return cli_usage_error("analyse",
						       "--timeline-limit-mb wants 0..1048576 (MB), "
						       "not '%s'",
						       optarg);
			break;
		case 'S': {
			char msg[200];
			if (cli_parse_steps(optarg, &v.steps, msg, sizeof(msg)))
				return cli_usage_error("analyse", "%s", msg);
			break;
		}
		case 'P':
			ctx.oo.pretty_depth = 64;
			break;
		case 'K':
			ctx.critpath = 1;
			ctx.cp_step = optarg;
			break;
		case 'M':
			use_mpi = 1;
			break;
		case 'Q':
			sqlite_path = optarg;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("analyse", c, optopt, argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("analyse", "missing the trace file or run directory");
	if (optind + 1 < argc)
		return cli_usage_error("analyse", "one input path expected, got %d", argc - optind);
	if (!out)
		return cli_usage_error("analyse", "missing --out <dir>");
	if (sqlite_path && use_mpi)
		return cli_usage_error("analyse", "--sqlite does not work with --mpi (export the "
						  "run afterwards with `nnscope export --format "
						  "sqlite`)");
	if (sqlite_path && (!*sqlite_path || strcmp(sqlite_path, "-") == 0))
		return cli_usage_error("analyse", "--sqlite wants a file name");

	nns_err_clear(&err);
	if (use_mpi) {
		if (mpi_dl_open(&mpi, NULL, NULL, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
		status = analyse_body(&ctx, &v, argv[optind], out, threads, limit_mb, &mpi);
		mpi_dl_close(&mpi);
		return status;
	}
	if (sqlite_path) {
		/* opened first: an unwritable database fails before any trace
		 * is read */
		if (out_sqlite_open(&ctx.sql, sqlite_path, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
	}
	status = analyse_body(&ctx, &v, argv[optind], out, threads, limit_mb, NULL);
	if (ctx.sql) {
		nns_err_clear(&err);
		if (status != CLI_OK || ctx.sql_failed) {
			out_sqlite_abort(ctx.sql);
			fprintf(stderr, "nnscope: %s: not written (see the errors above)\n",
				sqlite_path);
			status = CLI_EINPUT;
		} else if (out_sqlite_commit(ctx.sql, &err)) {
			cli_error(NULL, err.msg);
			status = CLI_EINPUT;
		} else if (!ctx.quiet) {
			printf("%s: SQLite database\n", sqlite_path);
		}
	}
	return status;
}

/* The analysis proper; with mpi, this process's share (analyse_mpi.h). */
static int analyse_body(struct analyse_ctx *cx, struct cli_visit *v, const char *in,
			const char *out, long threads, long limit_mb, struct mpi_dl *mpi)
{
	struct run_set rs;
	struct nns_err err;
	size_t visited = 0;
	int status = CLI_OK;
	int root = !mpi || mpi->rank == 0;

	nns_err_clear(&err);
	memset(&rs, 0, sizeof(rs));
	{
		struct ms_jobs_ctx mj = {out, cx, (int)threads, 0, CLI_OK, 0};
		int drc, stop = 0;

		/* MindSpore cluster jobs first (cluster.json); their devices are
		 * then analysed as workers like any other run (ms_load.h). In an
		 * MPI job the jobs are process 0's alone. */
		if (root)
			msc_find_jobs(in, 8, on_ms_job, &mj, NULL);
		if (mj.status)
			status = mj.status;
		drc = run_discover(&rs, in, NULL, &err);
		if (root)
			cli_print_skipped(&rs);
		if (drc == NNS_ENOTFOUND)
			run_set_release(&rs);
		/* `nnscope collect` output: the hosts' runs are one cluster */
		if (drc == NNS_OK && collect_merge_runs(&rs, in, &err))
			drc = err.code;
		if (drc == NNS_OK && fs_mkdirs(out, &err)) {
			cli_error(NULL, err.msg);
			run_set_release(&rs);
			status = CLI_EINPUT;
			stop = 1;
		} else if (drc) {
			stop = 1;
			if (!((mj.written > 0 || !root) && drc == NNS_ENOTFOUND)) {
				cli_error(in, err.msg);
				status = CLI_EINPUT;
			}
		}
		/* what discovery left out, for tools as well as on stderr */
		if (!stop && root) {
			nns_err_clear(&err);
			if (out_write_skipped(out, &rs, cx->oo.pretty_depth, &err)) {
				cli_error(NULL, err.msg);
				status = CLI_EINPUT;
			}
		}
		/* every MPI process must see the same runs, or none goes on */
		if (mpi) {
			int go = cli_mpi_agree(mpi, !stop, &rs);

			if (go != 1 && !stop)
				run_set_release(&rs);
			if (go < 0)
				return CLI_EINPUT;
			if (go == 0)
				return root ? status : CLI_OK;
		}
		if (stop)
			return status;
	}
	cx->limit_bytes = (int64_t)limit_mb << 20;
	v->kopts.threads = (int)threads;
	v->kopts.progress = root && isatty(STDERR_FILENO);
	v->want_dist = 1;
	v->ctx = cx;
	v->on_profile = on_profile;
	v->on_dist = on_dist;
	v->on_cluster = on_cluster;
	cx->v = v;
	for (size_t i = 0; i < rs.runs.n; i++) {
		const struct run *r = &rs.runs.v[i];
		char rel[1024], dir[OUT_PATH_MAX];

		if (rs.runs.n > 1) {
			out_sanitize_rel(rel, sizeof(rel), r->name);
			if (out_join(dir, sizeof(dir), out, rel, &err)) {
				cli_error(NULL, err.msg);
				status = CLI_EINPUT;
				continue;
			}
		} else {
			snprintf(dir, sizeof(dir), "%s", out);
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
