/*
 * cmd_export.c - `nnscope export <trace> --format chrome --out FILE
 * [--limit-mb N]`: one trace (.nnst or Kineto JSON) as a Chrome trace for
 * Perfetto UI / chrome://tracing, capped like MindSpore's timeline_limit
 * (--limit-mb, else the trace's own timeline_limit option, else 500 MB);
 * `--format sqlite --out F.db`: every worker/span of a trace or run
 * directory, events and analysis results, in one SQLite database
 * (output/sqlite_out.h, docs/SQL.md).
 */
#include "cli/cli.h"
#include "cli/export_mstl.h"
#include "output/outfile.h"
#include "output/output.h"
#include "output/schema_sql.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope export <trace-file | run-dir> --format chrome --out FILE [options]\n"
    "       nnscope export <trace-file | run-dir> --format sqlite --out FILE.db [options]\n"
    "       nnscope export --schema\n"
    "\n"
    "chrome: writes one trace (nnscope .nnst or PyTorch/Kineto JSON) as Chrome-trace\n"
    "JSON that Perfetto UI (ui.perfetto.dev) and chrome://tracing open, with the\n"
    "MindSpore host_info CSV rows beside it as a host timeline. A run directory must\n"
    "hold a single trace file (or choose one with --worker / --span).\n"
    "\n"
    "sqlite: writes every worker/span of the trace or run directory (or those chosen\n"
    "with --worker / --span) into one SQLite database: all events, threads, counters,\n"
    "memory records, flows, one table per analysis result (steps, operators,\n"
    "kernels, ...) led by worker_id, and views for common questions (docs/SQL.md).\n"
    "An existing FILE.db is replaced; a failed export leaves none behind.\n"
    "\n"
    "Options:\n"
    "  -f, --format FMT   chrome (the default) or sqlite\n"
    "  -o, --out FILE     output file, '-' for standard output (chrome only; required)\n"
    "  -l, --limit-mb N   chrome: stop adding events at N MB (0 = no limit; default:\n"
    "                     the timeline_limit the trace was collected with, else 500,\n"
    "                     as MindSpore); the file says what was cut and from when\n"
    "  -w, --worker NAME  the worker, in a run directory\n"
    "  -s, --span S       the span, in a run directory\n"
    "  -j, --threads N    parser threads for JSON input (0 = one per CPU)\n"
    "An msprof (MindSpore cluster) timeline run writes MindInsight's merged timeline\n"
    "of its ranks (Step Trace, Overlap Analysis, Ascend Hardware, HCCL):\n"
    "      --rank LIST    only these ranks (\"0,1\"; --worker rank_<r> is one)\n"
    "      --subgraph LIST  only these sub-graphs (model ids, \"0,2\")\n"
    "      --detail       all four planes (the default; names the timeline where the\n"
    "                     directory holds other traces too)\n"
    "      --summary      Step Trace and Overlap Analysis only (MindInsight's summary)\n"
    "      --subgraphs-apart  one Step Trace thread per sub-graph (default: "
    "merged)\n" CLI_LIMITS_HELP
    "      --schema       print the SQLite result tables and their columns (Markdown,\n"
    "                     the result-table part of docs/SQL.md) and exit\n"
    "  -q, --quiet        print nothing but warnings and errors\n"
    "  -h, --help         show this help\n";

/* The one trace file a path designates; NULL after printing why not. */
static const char *pick_trace(const struct run_set *rs, const char *path, const char *worker,
			      const char *span, const struct run **run)
{
	const char *found = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rs->runs.n; i++)
		for (size_t w = 0; w < rs->runs.v[i].workers.n; w++) {
			const struct run_worker *wk = &rs->runs.v[i].workers.v[w];

			if (worker && strcmp(wk->name, worker) != 0)
				continue;
			for (size_t k = 0; k < wk->spans.n; k++) {
				const struct run_span *s = &wk->spans.v[k];

				if (span && !((s->name && strcmp(s->name, span) == 0) ||
					      (s->suffix && strcmp(s->suffix, span) == 0)))
					continue;
				found = s->path;
				*run = &rs->runs.v[i];
				n++;
			}
		}
	if (n == 1)
		return found;
	cli_error(path, n == 0 ? "no such worker or span"
			       : "holds several traces; choose one with --worker / --span, or "
				 "give the file");
	return NULL;
}

static int write_out(const char *out, const struct model *m, int64_t limit,
		     struct out_chrome_stats *st, struct nns_err *err)
{
	const char *slash;
	char dir[OUT_PATH_MAX];
	int n;

	if (strcmp(out, "-") == 0) {
		int rc = out_chrome_write(stdout, m, limit, st, err);

		if (!rc && fflush(stdout) != 0)
			rc = nns_err_set(err, NNS_EIO, "writing to standard output failed");
		return rc;
	}
	slash = strrchr(out, '/');
	if (!slash)
		return out_chrome_file(".", out, m, limit, st, err);
	n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out), out);
	if (n < 0 || (size_t)n >= sizeof(dir) || !slash[1])
		return nns_err_set(err, NNS_EINVAL, "%s: not a file name", out);
	if (n == 0)
		strcpy(dir, "/");
	return out_chrome_file(dir, slash + 1, m, limit, st, err);
}

static int sql_on_profile(void *ctx, const struct cli_item *it)
{
	return cli_sql_add(ctx, it);
}

/* a span's rows are written while its profile is computed */
static int sql_on_model(void *ctx, const struct cli_item *it)
{
	return cli_sql_begin(ctx, it);
}

static void sql_on_drop(void *ctx, const struct cli_item *it)
{
	cli_sql_drop(ctx, it);
}

static int sql_on_dist(void *ctx, const struct run *r, const char *span_name, size_t group,
		       const struct an_dist *d)
{
	(void)r;
	(void)group;
	return cli_sql_add_dist(ctx, span_name, d);
}

/* What the command line asks for. */
struct export_args {
	const char *in, *out, *format, *worker, *span;
	long limit_mb, threads;
	int quiet;
	struct cli_limits lim;
	struct mstl_args tl; /* an msprof timeline run's options */
};

/* --format sqlite: every selected worker/span of every run under the
 * input. The database is opened first, so an unwritable --out fails
 * before any trace is read; any failure leaves no file. */
static int export_sqlite(const struct export_args *a)
{
	struct cli_sql sql;
	struct cli_visit v;
	struct run_set rs;
	size_t visited = 0;
	int64_t rows = 0;
	int status = CLI_OK;

	if ((status = cli_open_runs(&rs, "export", a->in, NULL, a->worker, a->span)))
		return status;
	if (cli_sql_open(&sql, a->out)) {
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	memset(&v, 0, sizeof(v));
	cli_kineto_opts(&v.kopts, a->threads);
	cli_kineto_limits(&v.kopts, &a->lim);
	v.only_worker = a->worker;
	v.only_span = a->span;
	v.want_dist = 1;
	v.ctx = &sql;
	v.on_profile = sql_on_profile;
	v.on_model = sql_on_model;
	v.on_drop = sql_on_drop;
	v.on_dist = sql_on_dist;
	for (size_t i = 0; i < rs.runs.n; i++)
		if (cli_visit_run(&rs.runs.v[i], &v, &visited))
			status = CLI_EINPUT;
	if (v.load_failed) /* a database misses no worker silently */
		status = CLI_EINPUT;
	run_set_release(&rs);
	if (status == CLI_OK && !sql.failed && visited == 0) {
		cli_error(a->in,
			  a->worker || a->span ? "no such worker or span" : "no trace found");
		status = CLI_EINPUT;
	}
	if ((status = cli_sql_finish(&sql, a->out, status, &rows)))
		return status;
	if (!a->quiet)
		fprintf(stderr, "%s: %zu worker(s), %lld rows\n", a->out, sql.workers,
			(long long)rows);
	return CLI_OK;
}

/* --format chrome: the one trace the input designates. */
static int export_chrome(const struct export_args *a)
{
	const struct run *run = NULL;
	struct kineto_opts ko;
	struct out_chrome_stats st;
	struct run_set rs;
	struct nns_err err;
	struct model m;
	const char *trace;
	long limit_mb;
	int rc, from_trace;

	if ((rc = cli_open_runs(&rs, "export", a->in, NULL, a->worker, a->span)))
		return rc;
	if ((run = export_mstl_run(&rs, &a->tl, a->worker)) !=
	    NULL) { /* MindInsight's cluster timeline */
		rc = export_mstl(run, &a->tl, a->worker, a->out, a->quiet);
		run_set_release(&rs);
		return rc;
	}
	trace = pick_trace(&rs, a->in, a->worker, a->span, &run);
	if (!trace) {
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	cli_kineto_opts(&ko, a->threads);
	cli_kineto_limits(&ko, &a->lim);
	nns_err_clear(&err);
	rc = cli_load_model(&m, trace, &ko, &err);
	if (rc == NNS_ETRUNC) {
		cli_warn(trace, err.msg);
	} else if (rc) {
		cli_error(trace, err.msg[0] ? err.msg : nns_strerror(rc));
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	cli_load_host_info(&m, run); /* MindSpore's host timeline beside the trace */
	nns_err_clear(&err);
	limit_mb = a->limit_mb >= 0 ? a->limit_mb : out_chrome_trace_limit_mb(&m);
	from_trace = a->limit_mb < 0 && limit_mb > 0;
	if (limit_mb <= 0 && a->limit_mb < 0)
		limit_mb = 500;
	rc = write_out(a->out, &m, (int64_t)limit_mb << 20, &st, &err);
	if (rc) {
		cli_error(NULL, err.msg);
	} else if (st.events_omitted) {
		char msg[OUT_PATH_MAX + 300];

		snprintf(msg, sizeof(msg),
			 "%s: cut at the %ld MB limit%s, from %.3f s into the trace; %lld later "
			 "events left out (--limit-mb raises it)",
			 a->out, limit_mb, from_trace ? " (the trace's timeline_limit option)" : "",
			 (double)(st.cut_ts - st.t0) / 1e9, (long long)st.events_omitted);
		cli_warn(NULL, msg);
	}
	if (!rc && !a->quiet && strcmp(a->out, "-") != 0)
		fprintf(stderr, "%s: %lld events, %lld bytes\n", a->out,
			(long long)st.events_written, (long long)st.bytes);
	model_release(&m);
	run_set_release(&rs);
	return rc ? CLI_EINPUT : CLI_OK;
}

static int print_schema(void *unused, const char *arg)
{
	(void)unused;
	(void)arg;
	sc_sql_describe(stdout);
	return fflush(stdout) == 0 ? CLI_OK : CLI_EINPUT;
}

static int export_parse_args(int argc, char **argv, struct export_args *a)
{
	static const struct cli_cmd cmd = {"export", USAGE, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("format", 'f', &a->format),
	    CLI_OPT_STR("out", 'o', &a->out),
	    CLI_OPT_LONG("limit-mb", 'l', &a->limit_mb, 0, 1 << 20, "0..1048576"),
	    CLI_OPT_WORKER(&a->worker),
	    CLI_OPT_SPAN(&a->span),
	    CLI_OPT_THREADS(&a->threads),
	    CLI_OPT_LIMITS(&a->lim),
	    CLI_OPT_QUIET(&a->quiet),
	    CLI_OPT_STR("rank", 'R' | CLI_LONG_ONLY, &a->tl.ranks),
	    CLI_OPT_STR("subgraph", 'G' | CLI_LONG_ONLY, &a->tl.subgraphs),
	    CLI_OPT_FLAG("summary", 'U' | CLI_LONG_ONLY, &a->tl.summary, 1),
	    CLI_OPT_FLAG("subgraphs-apart", 'A' | CLI_LONG_ONLY, &a->tl.apart, 1),
	    CLI_OPT_FLAG("detail", 'D' | CLI_LONG_ONLY, &a->tl.detail, 1),
	    CLI_OPT_CALL("schema", 'S' | CLI_LONG_ONLY, 0, print_schema, NULL),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(a, 0, sizeof(*a));
	a->format = "chrome";
	a->limit_mb = -1; /* none given: the trace's timeline_limit, else 500 */
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	if (strcmp(a->format, "chrome") != 0 && strcmp(a->format, "sqlite") != 0)
		return cli_usage_error("export", "unknown format '%s' (supported: chrome, sqlite)",
				       a->format);
	if ((rc = cli_one_input("export", argc, first, "missing the trace file")) != CLI_CONTINUE)
		return rc;
	a->in = argv[first];
	if (!a->out)
		return cli_usage_error("export", "missing --out <file> ('-' for standard output)");
	if (strcmp(a->format, "sqlite") == 0 && strcmp(a->out, "-") == 0)
		return cli_usage_error("export", "--format sqlite writes a file, not '-'");
	return CLI_CONTINUE;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a;
	int rc;

	if ((rc = export_parse_args(argc, argv, &a)) != CLI_CONTINUE)
		return rc;
	return strcmp(a.format, "sqlite") == 0 ? export_sqlite(&a) : export_chrome(&a);
}
