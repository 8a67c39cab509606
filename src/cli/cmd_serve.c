/*
 * cmd_serve.c - `nnscope serve --logdir DIR`: the web UI and its JSON API
 * (docs/SERVER.md) until SIGINT/SIGTERM.
 */
#include "cli/cli.h"
#include "analysis/live_alert.h"
#include "server/server.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char USAGE[] =
    "Usage: nnscope serve [--logdir] DIR [options]\n"
    "\n"
    "Serves the nnscope web UI for every run found under DIR (recursively:\n"
    "<worker>[.<span>].pt.trace.json[.gz] and nnscope's .nnst traces; new runs\n"
    "appear while serving). Open the printed address in a browser. Results are\n"
    "cached beside each run in .nnscope-cache/ (or $XDG_CACHE_HOME/nnscope when\n"
    "the run directory is read-only), so a second open needs no parsing.\n"
    "\n"
    "Options:\n"
    "      --logdir DIR   the folder to serve (or give it as the argument)\n"
    "  -p, --port N       TCP port (default 8080; 0 picks a free one)\n"
    "      --host ADDR    numeric address to listen on (default 127.0.0.1)\n"
    "      --bind-all     listen on every interface (0.0.0.0): anyone who can\n"
    "                     reach this machine can read the traces; no login\n"
    "      --cache-dir D  keep the analysis caches under D instead\n"
    "      --no-snapshots  neither write nor use a snapshot of each trace read\n"
    "                     (its model and timeline index, about a fifth of its\n"
    "                     JSON size, kept beside its cache): a restarted server\n"
    "                     parses the trace again\n"
    "      --threads N    HTTP worker threads (default 4)\n"
    "      --max-loaded N keep at most N traces in memory (default 8; also at most\n"
    "                     half the RAM); others are reloaded when opened again\n"
    "      --load-timeout S  stop loading a trace after S seconds (default 300;\n"
    "                     0: never); the page says which file is slow and why\n"
    "      --load-abandon S  stop loading a trace nobody asked for in S seconds\n"
    "                     (default 30; 0: never); the next request starts it again\n"
    "      --request-timeout S  close a connection whose request has not arrived\n"
    "                     in full S seconds after it opened (default 10; 0: "
    "never)\n"
    "      --live-idle S  a .nnst trace without its END chunk that grew in the\n"
    "                     last S seconds is live: the page follows it as it is\n"
    "                     written (default 10; 0: never live)\n"
    "  -a, --alert RULE   an alert rule checked on every live run each second,\n"
    "                     e.g. 'step_ms > 1.5*median', 'rank_pct > 20' (repeat\n"
    "                     for more; grammar: docs/CLI.md \"top\"); a hit is printed\n"
    "                     and flagged in the page\n" CLI_LIMITS_HELP
    "  -q, --quiet        print only the address and errors\n"
    "  -h, --help         show this help\n";

static int is_loopback(const char *host)
{
	return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0;
}

/* The --alert rules as given (the argv strings). */
struct alert_args {
	const char *v[LIVE_ALERT_RULES_MAX];
	size_t n;
};

static int parse_alert(void *dst, const char *arg)
{
	struct alert_args *a = dst;
	struct live_alerts check;
	struct nns_err err;
	int rc;

	if (a->n >= LIVE_ALERT_RULES_MAX)
		return cli_usage_error("serve", "more than %d --alert rules", LIVE_ALERT_RULES_MAX);
	live_alerts_init(&check);
	nns_err_clear(&err);
	rc = live_alerts_add(&check, arg, &err);
	live_alerts_release(&check);
	if (rc)
		return cli_usage_error("serve", "bad --alert '%s': %s", arg, err.msg);
	a->v[a->n++] = arg;
	return CLI_CONTINUE;
}

/* The server's options from the command line: CLI_CONTINUE, or the exit
 * code after --help or a usage error. */
static int serve_parse_args(int argc, char **argv, struct srv_opts *o, int *bind_all,
			    struct alert_args *alerts)
{
	static const struct cli_cmd cmd = {"serve", USAGE, 0};
	long port = 8080, threads = 4, max_loaded = 8, load_timeout = 300, request_timeout = 10,
	     load_abandon = 30, live_idle = 10;
	struct cli_limits lim = {0, 0, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("logdir", 'l' | CLI_LONG_ONLY, &o->logdir),
	    CLI_OPT_LONG("port", 'p', &port, 0, 65535, "0..65535"),
	    CLI_OPT_STR("host", 'H' | CLI_LONG_ONLY, &o->host),
	    CLI_OPT_FLAG("bind-all", 'A' | CLI_LONG_ONLY, bind_all, 1),
	    CLI_OPT_LONG("threads", 't' | CLI_LONG_ONLY, &threads, 1, 64, "1..64"),
	    CLI_OPT_QUIET(&o->quiet),
	    CLI_OPT_STR("cache-dir", 'C' | CLI_LONG_ONLY, &o->cache_dir),
	    CLI_OPT_FLAG("no-snapshots", 'N' | CLI_LONG_ONLY, &o->no_snapshots, 1),
	    CLI_OPT_LONG("max-loaded", 'M' | CLI_LONG_ONLY, &max_loaded, 1, 1024, "1..1024"),
	    CLI_OPT_LONG("load-timeout", 'T' | CLI_LONG_ONLY, &load_timeout, 0, 86400, "0..86400"),
	    CLI_OPT_LONG("load-abandon", 'B' | CLI_LONG_ONLY, &load_abandon, 0, 86400, "0..86400"),
	    CLI_OPT_LONG("request-timeout", 'R' | CLI_LONG_ONLY, &request_timeout, 0, 3600,
			 "0..3600"),
	    CLI_OPT_LONG("live-idle", 'L' | CLI_LONG_ONLY, &live_idle, 0, 86400, "0..86400"),
	    CLI_OPT_CALL("alert", 'a', 1, parse_alert, alerts),
	    CLI_OPT_LIMITS(&lim),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	*bind_all = 0;
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	if (first < argc && !o->logdir)
		o->logdir = argv[first++];
	if (first < argc)
		return cli_usage_error("serve", "unexpected argument '%s'", argv[first]);
	if (!o->logdir)
		return cli_usage_error("serve", "missing --logdir <dir>");
	if (*bind_all)
		o->host = "0.0.0.0";
	o->port = (int)port;
	o->threads = (int)threads;
	o->max_loaded = (int)max_loaded;
	o->load_timeout = load_timeout ? (double)load_timeout : -1;	     /* 0: never */
	o->request_timeout = request_timeout ? (double)request_timeout : -1; /* 0: never */
	o->load_abandon = load_abandon ? (double)load_abandon : -1;	     /* 0: never */
	o->live_idle = live_idle ? (double)live_idle : -1;		     /* 0: never live */
	cli_kineto_limits(&o->limits, &lim);
	o->loopback = is_loopback(o->host);
	o->alerts = alerts->v;
	o->nalerts = alerts->n;
	return CLI_CONTINUE;
}

/* Blocks SIGINT and SIGTERM into set (the server's threads inherit the
 * blocked set; the main thread waits for them) and ignores SIGPIPE. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The address line (the bound port), and how to stop. */
static void print_address(const struct srv_opts *o, const struct server *s, int bind_all)
{
	if (!o->loopback)
		cli_warn(NULL, "serving on a non-loopback address: anyone who can reach this "
			       "machine can read every trace under the logdir (there is no login)");
	if (strchr(o->host, ':'))
		printf("nnscope serve: %s at http://[%s]:%d/\n", o->logdir, o->host, s->port);
	else
		printf("nnscope serve: %s at http://%s:%d/\n", o->logdir,
		       bind_all ? "127.0.0.1" : o->host, s->port);
	if (!o->quiet)
		printf("press Ctrl-C to stop\n");
	fflush(stdout);
}

int cmd_serve(int argc, char **argv)
{
	struct alert_args alerts = {{0}, 0};
	struct srv_opts o;
	struct server s;
	struct nns_err err;
	int rc, bind_all, sig = 0;
	sigset_t set;

	if ((rc = serve_parse_args(argc, argv, &o, &bind_all, &alerts)) != CLI_CONTINUE)
		return rc;
	block_signals(&set);
	nns_err_clear(&err);
	if (srv_start(&s, &o, &err) != NNS_OK) {
		cli_error(o.logdir, err.msg);
		return CLI_EINPUT;
	}
	print_address(&o, &s, bind_all);
	sigwait(&set, &sig);
	if (!o.quiet)
		fprintf(stderr, "nnscope serve: stopping (signal %d)\n", sig);
	srv_stop(&s);
	return CLI_OK;
}
