/*
 * cmd_report.c - `nnscope report <path>`: the same analysis as `analyse`,
 * printed as terminal tables (views: overview, operators, kernels, memory,
 * modules, distributed, datapipe, cpu, all).
 */
#include "cli/cli.h"
#include "output/report.h"

#include <getopt.h>
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
    "                     datapipe, cpu or all, comma separated (default: overview)\n"
    "  -r, --run NAME     only this run (a directory under the path)\n"
    "  -w, --worker NAME  only this worker\n"
    "  -s, --span S       only this span (1..n, or the file's numeric suffix)\n"
    "  -n, --top N        rows in top-N tables (default 20)\n"
    "  -j, --threads N    parser threads (0 = one per CPU, the default)\n"
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
	if (!(c->views & ~(unsigned)RV_DISTRIBUTED))
		return CLI_OK;
	cli_item_label(label, sizeof(label), it, c->many_runs);
	snprintf(title, sizeof(title), "%s  (%s)", label, it->span->path);
	report_profile(stdout, &it->p, title, c->views & ~(unsigned)RV_DISTRIBUTED, &c->ro);
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

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"view", required_argument, NULL, 'v'},
	    {"run", required_argument, NULL, 'r'},
	    {"worker", required_argument, NULL, 'w'},
	    {"span", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 'n'},
	    {"threads", required_argument, NULL, 'j'},
	    {"no-color", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *only_run = NULL;
	struct report_ctx ctx;
	struct cli_visit v;
	struct run_set rs;
	struct nns_err err;
	int rc;
	size_t matched = 0;
	int c, status = CLI_OK, color = -1;
	long top = 20, threads = 0;

	memset(&ctx, 0, sizeof(ctx));
	memset(&v, 0, sizeof(v));
	ctx.views = RV_OVERVIEW;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":v:r:w:s:n:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (report_parse_views(optarg, &ctx.views))
				return cli_usage_error("report", "unknown view '%s'", optarg);
			break;
		case 'r':
			only_run = optarg;
			break;
		case 'w':
			v.only_worker = optarg;
			break;
		case 's':
			v.only_span = optarg;
			break;
		case 'n':
			if (cli_parse_int(optarg, 1, 1000000, &top))
				return cli_usage_error(
				    "report", "--top wants a positive number, not '%s'", optarg);
			break;
		case 'j':
			if (cli_parse_int(optarg, 0, 256, &threads))
				return cli_usage_error("report", "--threads wants 0..256, not '%s'",
						       optarg);
			break;
		case 'C':
			color = 0;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("report", c, optopt, argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "missing the trace file or run directory");
	if (optind + 1 < argc)
		return cli_usage_error("report", "one input path expected, got %d", argc - optind);

	nns_err_clear(&err);
	rc = run_discover(&rs, argv[optind], NULL, &err);
	cli_print_skipped(&rs);
	if (rc) {
		cli_error(argv[optind], err.msg);
		run_set_release(&rs);
		return CLI_EINPUT;
	}
	rc = cli_check_selection(&rs, "report", only_run, v.only_worker, v.only_span);
	if (rc) {
		run_set_release(&rs);
		return rc;
	}
	ctx.ro.color = color == 0 ? 0 : cli_stdout_color();
	ctx.ro.width = cli_stdout_width();
	ctx.ro.top = (int)top;
	ctx.many_runs = rs.runs.n > 1;
	v.kopts.threads = (int)threads;
	v.kopts.progress = isatty(STDERR_FILENO);
	v.want_dist = (ctx.views & RV_DISTRIBUTED) != 0;
	v.ctx = &ctx;
	v.on_profile = on_profile;
	v.on_dist = on_dist;
	for (size_t i = 0; i < rs.runs.n; i++) {
		const struct run *r = &rs.runs.v[i];

		if (only_run && strcmp(r->name, only_run) != 0)
			continue;
		if (v.only_worker && !run_find_worker(r, v.only_worker))
			continue;
		matched++;
		if (cli_visit_run(r, &v, NULL))
			status = CLI_EINPUT;
		if (ctx.views == RV_DISTRIBUTED && (r->workers.n < 2 || v.only_worker))
			printf("\n(distributed view of %s: needs a run with several workers)\n",
			       r->name);
	}
	if (matched == 0) {
		cli_error(argv[optind], only_run && v.only_worker ? "no such run or worker"
					: only_run		  ? "no such run"
								  : "no such worker");
		status = CLI_EINPUT;
	} else if (ctx.profiles == 0 && status == CLI_OK) {
		cli_error(argv[optind], v.only_span ? "no such span" : "nothing to report");
		status = CLI_EINPUT;
	}
	run_set_release(&rs);
	return status;
}
