/*
 * cmd_export.c - `nnscope export <trace> --format chrome --out FILE
 * [--limit-mb N]`: one trace (.nnst or Kineto JSON) as a Chrome trace for
 * Perfetto UI / chrome://tracing, capped like MindSpore's timeline_limit;
 * `--format sqlite --out F.db`: every worker/span of a trace or run
 * directory, events and analysis results, in one SQLite database
 * (output/sqlite_out.h, docs/SQL.md).
 *
 * Owner: reader engineer (chrome), export engineer (sqlite).
 */
#include "cli/cli.h"
#include "output/outfile.h"
#include "output/output.h"
#include "output/schema_sql.h"
#include "output/sqlite_out.h"

#include <getopt.h>
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
    "  -l, --limit-mb N   chrome: stop adding events at N MB (default 500, MindSpore's\n"
    "                     timeline_limit; 0 = no limit); the file says what was cut\n"
    "  -w, --worker NAME  the worker, in a run directory\n"
    "  -s, --span S       the span, in a run directory\n"
    "  -j, --threads N    parser threads for JSON input (0 = one per CPU)\n"
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

struct sql_ctx {
	struct out_sqlite *db;
	int status;
	size_t workers;
};

static int sql_on_profile(void *vctx, const struct cli_item *it)
{
	struct sql_ctx *c = vctx;
	struct out_sqlite_item item = {it->run->name, it->worker->name, it->span->name,
				       it->span->path, &it->p};
	struct nns_err err;

	if (c->status)
		return CLI_EINPUT;
	nns_err_clear(&err);
	if (out_sqlite_add(c->db, &item, NULL, &err)) {
		cli_error(NULL, err.msg);
		c->status = CLI_EINPUT;
		return CLI_EINPUT;
	}
	c->workers++;
	return CLI_OK;
}

static int sql_on_dist(void *vctx, const struct run *r, const char *span_name, size_t group,
		       const struct an_dist *d)
{
	struct sql_ctx *c = vctx;
	struct nns_err err;

	(void)r;
	(void)group;
	if (c->status)
		return CLI_EINPUT;
	nns_err_clear(&err);
	if (out_sqlite_add_dist(c->db, span_name, d, &err)) {
		cli_error(NULL, err.msg);
		c->status = CLI_EINPUT;
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* --format sqlite: every selected worker/span of every run under in. The
 * database is opened first, so an unwritable --out fails before any
 * trace is read; any failure leaves no file. */
static int export_sqlite(const char *in, const char *out, const char *worker, const char *span,
			 int threads, int quiet)
{
	struct sql_ctx c = {NULL, CLI_OK, 0};
	struct cli_visit v;
	struct run_set rs;
	struct nns_err err;
	size_t visited = 0;
	int rc;

	nns_err_clear(&err);
	rc = run_discover(&rs, in, NULL, &err);
	cli_print_skipped(&rs);
	if (rc) {
		cli_error(in, err.msg);
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	if ((rc = cli_check_selection(&rs, "export", NULL, worker, span))) {
		run_set_release(&rs);
		return rc;
	}
	if (out_sqlite_open(&c.db, out, &err)) {
		cli_error(NULL, err.msg);
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	memset(&v, 0, sizeof(v));
	v.kopts.threads = threads;
	v.kopts.progress = isatty(STDERR_FILENO);
	v.only_worker = worker;
	v.only_span = span;
	v.want_dist = 1;
	v.ctx = &c;
	v.on_profile = sql_on_profile;
	v.on_dist = sql_on_dist;
	for (size_t i = 0; i < rs.runs.n; i++)
		if (cli_visit_run(&rs.runs.v[i], &v, &visited))
			c.status = CLI_EINPUT;
	if (v.load_failed) /* a database misses no worker silently */
		c.status = CLI_EINPUT;
	run_set_release(&rs);
	if (c.status == CLI_OK && visited == 0) {
		cli_error(in, worker || span ? "no such worker or span" : "no trace found");
		c.status = CLI_EINPUT;
	}
	if (c.status) {
		out_sqlite_abort(c.db);
		fprintf(stderr, "nnscope: %s: not written (see the errors above)\n", out);
		return c.status;
	}
	{
		int64_t rows = out_sqlite_rows(c.db);

		nns_err_clear(&err);
		if (out_sqlite_commit(c.db, &err)) {
			cli_error(NULL, err.msg);
			return CLI_EINPUT;
		}
		if (!quiet)
			fprintf(stderr, "%s: %zu worker(s), %lld rows\n", out, c.workers,
				(long long)rows);
	}
	return CLI_OK;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},	{"out", required_argument, NULL, 'o'},
	    {"limit-mb", required_argument, NULL, 'l'}, {"worker", required_argument, NULL, 'w'},
	    {"span", required_argument, NULL, 's'},	{"threads", required_argument, NULL, 'j'},
	    {"quiet", no_argument, NULL, 'q'},		{"help", no_argument, NULL, 'h'},
	    {"schema", no_argument, NULL, 'S'},		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *format = "chrome", *worker = NULL, *span = NULL, *trace;
	const struct run *run = NULL;
	struct kineto_opts ko;
	struct out_chrome_stats st;
	struct run_set rs;
	struct nns_err err;
	struct model m;
	long limit_mb = 500, threads = 0;
	int c, quiet = 0, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:l:w:s:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'l':
			if (cli_parse_int(optarg, 0, 1 << 20, &limit_mb))
				return cli_usage_error(
				    "export", "--limit-mb wants 0..1048576, not '%s'", optarg);
			break;
		case 'w':
			worker = optarg;
			break;
		case 's':
			span = optarg;
			break;
		case 'j':
			if (cli_parse_int(optarg, 0, 256, &threads))
				return cli_usage_error("export", "--threads wants 0..256, not '%s'",
						       optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return CLI_OK;
		case 'S':
			sc_sql_describe(stdout);
			return fflush(stdout) == 0 ? CLI_OK : CLI_EINPUT;
		default:
			return cli_bad_option("export", c, optopt, argv[optind - 1]);
		}
	}
	if (strcmp(format, "chrome") != 0 && strcmp(format, "sqlite") != 0)
		return cli_usage_error("export", "unknown format '%s' (supported: chrome, sqlite)",
				       format);
	if (optind >= argc)
		return cli_usage_error("export", "missing the trace file");
	if (optind + 1 < argc)
		return cli_usage_error("export", "one input path expected, got %d", argc - optind);
	if (!out)
		return cli_usage_error("export", "missing --out <file> ('-' for standard output)");

	if (strcmp(format, "sqlite") == 0) {
		if (strcmp(out, "-") == 0)
			return cli_usage_error("export", "--format sqlite writes a file, not '-'");
		return export_sqlite(argv[optind], out, worker, span, (int)threads, quiet);
	}

	nns_err_clear(&err);
	rc = run_discover(&rs, argv[optind], NULL, &err);
	cli_print_skipped(&rs);
	if (rc) {
		cli_error(argv[optind], err.msg);
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	if ((rc = cli_check_selection(&rs, "export", NULL, worker, span))) {
		run_set_release(&rs);
		return rc;
	}
	trace = pick_trace(&rs, argv[optind], worker, span, &run);
	if (!trace) {
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	memset(&ko, 0, sizeof(ko));
	ko.threads = (int)threads;
	ko.progress = isatty(STDERR_FILENO);
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
	rc = write_out(out, &m, (int64_t)limit_mb << 20, &st, &err);
	if (rc) {
		cli_error(NULL, err.msg);
	} else if (st.events_omitted) {
		char msg[OUT_PATH_MAX + 200];

		snprintf(msg, sizeof(msg),
			 "%s: cut at the %ld MB limit; %lld later events left out (--limit-mb "
			 "raises it)",
			 out, limit_mb, (long long)st.events_omitted);
		cli_warn(NULL, msg);
	}
	if (!rc && !quiet && strcmp(out, "-") != 0)
		fprintf(stderr, "%s: %lld events, %lld bytes\n", out, (long long)st.events_written,
			(long long)st.bytes);
	model_release(&m);
	run_set_release(&rs);
	return rc ? CLI_EINPUT : CLI_OK;
}
