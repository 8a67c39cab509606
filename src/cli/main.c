/*
 * main.c - the nnscope command: dispatches `nnscope <command> ...` to one
 * file per subcommand (cmd_*.c) and handles --version and help.
 * Exit codes: 0 success, 1 bad input (missing/damaged file, write
 * failure), 2 usage error.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * Big traces make big arrays, and on first touch every 4 KiB page costs a
 * fault: about a fifth of the analysis time of a 1 GB trace. glibc's
 * malloc asks for transparent huge pages on its large chunks only when the
 * glibc.malloc.hugetlb tunable is set at start-up, so the CLI re-executes
 * itself once with it (bench/ingest: 2.7 s -> 2.05 s on 1.1 GB of JSON).
 * An existing GLIBC_TUNABLES, NNSCOPE_NO_THP=1, or a failing exec leave
 * the process as it is; glibc versions without the tunable ignore it.
 */
/* Huge pages pay off for big inputs only: a small trace's arrays would be
 * rounded up to 2 MiB pages. Big = a file argument of 64 MiB or more (4 MiB
 * for .gz), or a directory (a run, analysed file after file). */
static int has_big_input(char **argv)
{
	struct stat st;

	for (int i = 2; argv[i]; i++) {
		if (argv[i][0] == '-' || stat(argv[i], &st) != 0)
			continue;
		size_t n = strlen(argv[i]);
		int gz = n > 3 && strcmp(argv[i] + n - 3, ".gz") == 0; /* ~10-30x smaller */
		if (S_ISDIR(st.st_mode) ||
		    (S_ISREG(st.st_mode) && st.st_size >= ((off_t)(gz ? 4 : 64) << 20)))
			return 1;
	}
	return 0;
}

static void maybe_reexec_with_thp(char **argv)
{
	const char *off = getenv("NNSCOPE_NO_THP");

	if (getenv("GLIBC_TUNABLES") || (off && *off && strcmp(off, "0") != 0) ||
	    !has_big_input(argv))
		return;
	if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0)
		return;
	execv("/proc/self/exe", argv);
	unsetenv("GLIBC_TUNABLES"); /* exec failed: carry on without */
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc >= 2 && (strcmp(argv[1], "analyse") == 0 || strcmp(argv[1], "analyze") == 0 ||
			  strcmp(argv[1], "report") == 0 || strcmp(argv[1], "diff") == 0))
		maybe_reexec_with_thp(argv);

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
