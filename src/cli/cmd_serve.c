/*
 * cmd_serve.c - `nnscope serve --logdir DIR`: the web UI and its JSON API
 * (docs/SERVER.md) until SIGINT/SIGTERM.
 */
#include "cli/cli.h"
#include "server/server.h"

#include <getopt.h>
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
    "      --threads N    HTTP worker threads (default 4)\n"
    "      --max-loaded N keep at most N traces in memory (default 8; also at most\n"
    "                     half the RAM); others are reloaded when opened again\n"
    "  -q, --quiet        print only the address and errors\n"
    "  -h, --help         show this help\n";

static int is_loopback(const char *host)
{
	return strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"logdir", required_argument, NULL, 'l'},
	    {"port", required_argument, NULL, 'p'},
	    {"host", required_argument, NULL, 'H'},
	    {"bind-all", no_argument, NULL, 'A'},
	    {"threads", required_argument, NULL, 't'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"cache-dir", required_argument, NULL, 'C'},
	    {"max-loaded", required_argument, NULL, 'M'},
	    {NULL, 0, NULL, 0},
	};
	struct srv_opts o;
	struct server s;
	struct nns_err err;
	const char *logdir = NULL;
	long port = 8080, threads = 4, max_loaded = 8;
	int c, bind_all = 0, sig = 0;
	sigset_t set;

	memset(&o, 0, sizeof(o));
	o.host = "127.0.0.1";
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			logdir = optarg;
			break;
		case 'p':
			if (cli_parse_int(optarg, 0, 65535, &port))
				return cli_usage_error("serve", "--port wants 0..65535, not '%s'",
						       optarg);
			break;
		case 'H':
			o.host = optarg;
			break;
		case 'C':
			o.cache_dir = optarg;
			break;
		case 'M':
			if (cli_parse_int(optarg, 1, 1024, &max_loaded))
				return cli_usage_error(
				    "serve", "--max-loaded wants 1..1024, not '%s'", optarg);
			break;
		case 'A':
			bind_all = 1;
			break;
		case 't':
			if (cli_parse_int(optarg, 1, 64, &threads))
				return cli_usage_error("serve", "--threads wants 1..64, not '%s'",
						       optarg);
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("serve", c, optopt, argv[optind - 1]);
		}
	}
	if (optind < argc && !logdir)
		logdir = argv[optind++];
	if (optind < argc)
		return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	if (!logdir)
		return cli_usage_error("serve", "missing --logdir <dir>");
	if (bind_all)
		o.host = "0.0.0.0";
	o.port = (int)port;
	o.threads = (int)threads;
	o.max_loaded = (int)max_loaded;
	o.logdir = logdir;
	o.loopback = is_loopback(o.host);

	/* the server's threads inherit the blocked set; this thread waits */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	nns_err_clear(&err);
	if (srv_start(&s, &o, &err) != NNS_OK) {
		cli_error(logdir, err.msg);
		return CLI_EINPUT;
	}
	if (!o.loopback)
		cli_warn(NULL, "serving on a non-loopback address: anyone who can reach this "
			       "machine can read every trace under the logdir (there is no login)");
	if (strchr(o.host, ':'))
		printf("nnscope serve: %s at http://[%s]:%d/\n", logdir, o.host, s.port);
	else
		printf("nnscope serve: %s at http://%s:%d/\n", logdir,
		       bind_all ? "127.0.0.1" : o.host, s.port);
	if (!o.quiet)
		printf("press Ctrl-C to stop\n");
	fflush(stdout);
	sigwait(&set, &sig);
	if (!o.quiet)
		fprintf(stderr, "nnscope serve: stopping (signal %d)\n", sig);
	srv_stop(&s);
	return CLI_OK;
}
