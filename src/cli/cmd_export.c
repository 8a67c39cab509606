/*
 * cmd_export.c - `nnscope export <trace> --format chrome --out FILE
 * [--limit-mb N]`: one trace (.nnst or Kineto JSON) as a Chrome trace for
 * Perfetto UI / chrome://tracing, capped like MindSpore's timeline_limit.
 *
 * Owner: reader engineer.
 */
#include "cli/cli.h"
#include "output/outfile.h"
#include "output/output.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope export <trace-file | run-dir> --format chrome --out FILE [options]\n"
    "\n"
    "Writes one trace (nnscope .nnst or PyTorch/Kineto JSON) as Chrome-trace JSON that\n"
    "Perfetto UI (ui.perfetto.dev) and chrome://tracing open, with the MindSpore\n"
    "host_info CSV rows beside it as a host timeline. A run directory must hold a\n"
    "single trace file (or choose one with --worker / --span).\n"
    "\n"
    "Options:\n"
    "  -f, --format FMT   chrome (the only format for now; the default)\n"
    "  -o, --out FILE     output file, '-' for standard output (required)\n"
    "  -l, --limit-mb N   stop adding events at N MB (default 500, MindSpore's\n"
    "                     timeline_limit; 0 = no limit); the file says what was cut\n"
    "  -w, --worker NAME  the worker, in a run directory\n"
    "  -s, --span S       the span, in a run directory\n"
    "  -j, --threads N    parser threads for JSON input (0 = one per CPU)\n"
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

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"out", required_argument, NULL, 'o'},
	    {"limit-mb", required_argument, NULL, 'l'},
	    {"worker", required_argument, NULL, 'w'},
	    {"span", required_argument, NULL, 's'},
	    {"threads", required_argument, NULL, 'j'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
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
		default:
			return cli_bad_option("export", c, optopt, argv[optind - 1]);
		}
	}
	if (strcmp(format, "chrome") != 0)
		return cli_usage_error("export", "unknown format '%s' (supported: chrome)", format);
	if (optind >= argc)
		return cli_usage_error("export", "missing the trace file");
	if (optind + 1 < argc)
		return cli_usage_error("export", "one input path expected, got %d", argc - optind);
	if (!out)
		return cli_usage_error("export", "missing --out <file> ('-' for standard output)");

	nns_err_clear(&err);
	if (run_discover(&rs, argv[optind], NULL, &err)) {
		cli_error(argv[optind], err.msg);
		return CLI_EINPUT;
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
