/*
 * main.c - the nnscope command: dispatches `nnscope <command> ...` to one
 * file per subcommand (cmd_*.c) and handles --version and help. Sets the
 * process's malloc policy (the library leaves its host's alone).
 * Exit codes: 0 success, 1 bad input (missing/damaged file, write
 * failure), 2 usage error.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"analyse", cmd_analyse, "analyse traces and write JSON/CSV results (--out DIR)"},
    {"report", cmd_report, "analyse traces and print the results as tables"},
    {"diff", cmd_diff, "compare two traces (or two spans of a run)"},
    {"run", cmd_run, "run a program under the collector (LD_PRELOAD): nnscope run -- CMD"},
    {"export", cmd_export, "write traces as Chrome-trace JSON (Perfetto) or a SQLite database"},
    {"serve", cmd_serve, "web UI for every run under a folder (http://127.0.0.1:8080)"},
    {"top", cmd_top, "watch a run while it trains: steps, slow rank, top ops, alerts"},
    {"collect", cmd_collect, "gather the hosts' rank directories over ssh/rsync (--hosts FILE)"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: nnscope <command> [options]\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-9s %s\n", "help", "show help for a command (nnscope help <command>)");
	fprintf(f,
		"\nOptions:\n  -V, --version  print the version\n  -h, --help     show this help\n"
		"\nRun 'nnscope <command> --help' for the options of a command.\n");
}

static const struct command *find(const char *name)
{
	if (strcmp(name, "analyze") == 0)
		name = "analyse";
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

#ifdef __GLIBC__
	/* One malloc arena for all threads: with one per thread (glibc's
	 * default) what a parser or pass thread frees stays in its arena,
	 * out of reach of the others, and the peak RSS of `analyse` on the
	 * 1.1 GB trace of bench/ingest was 275-290 MB where it is 266-268 MB
	 * now, at the same speed (1.13-1.18 s; the .gz 1.30 -> 1.37 s). */
	(void)mallopt(M_ARENA_MAX, 1);
#endif
	if (argc < 2) {
		usage(stderr);
		return CLI_EUSAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("nnscope %s\n", NNS_VERSION_STRING);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char help[] = "--help";
			char *args[] = {argv[2], help, NULL};

			if (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ||
			    strcmp(argv[2], "help") == 0) {
				usage(stdout);
				return CLI_OK;
			}
			cmd = find(argv[2]);
			if (!cmd)
				return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
			return cmd->fn(2, args);
		}
		usage(stdout);
		return CLI_OK;
	}
	cmd = find(argv[1]);
	if (!cmd) {
		if (argv[1][0] == '-')
			return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	}
	return cmd->fn(argc - 1, argv + 1);
}
