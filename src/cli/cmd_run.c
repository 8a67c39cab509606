/*
 * cmd_run.c - `nnscope run [--output DIR] [--options JSON] -- CMD ARGS...`:
 * runs any program under the collector without changing it.
 *
 * It sets LD_PRELOAD=<libnnscope.so>[:<previous LD_PRELOAD>],
 * NNSCOPE_PRELOAD=1, NNSCOPE_OPTIONS (the given options, or the
 * environment's NNSCOPE_OPTIONS / MS_PROFILER_OPTIONS, with output_path
 * made absolute) and, unless already set, NVTX_INJECTION64_PATH and
 * CUDA_INJECTION64_PATH and NCCL_PROFILER_PLUGIN (the same library: NVTX
 * ranges, GPU activity through CUPTI and NCCL collectives are recorded;
 * profile_communication is true unless the options say false, and then
 * NCCL_PROFILER_PLUGIN is not set),
 * and, unless --no-torch, PYTHONPATH=<site hook dir>[:<previous>] (see
 * torch_site() below: Python programs that import torch record
 * torch.profiler's operators and optimizer-derived steps, no code change),
 * then spawns CMD, forwards SIGTERM/SIGHUP to it, waits and
 * exits with its status (128 + N when signal N killed it; 127 when it
 * cannot be run), after telling on stderr where the traces are. The library
 * constructor (src/collector/preload.c) does the profiling in every process
 * of the command that loads it, children included; a process that records
 * nothing leaves no file and an exec chain keeps one (src/collector/keep.c,
 * handoff.c), so the report may say that no trace was written.
 *
 * Lost data is said: the collector in each process prints a line at once
 * when writing its trace fails and sends a status datagram (NNSCOPE_STATUS,
 * run_status.h); at exit this command prints the traces that failed and
 * the events not written, and exits with RUN_EXIT_LOST (74, sysexits'
 * EX_IOERR) when CMD succeeded but a trace could not be written. A failing
 * CMD keeps its own status.
 *
 * The options are checked before anything runs, by loading the library
 * found for the command and calling its nns_options_from_json().
 */
#include "cli/cli.h"
#include "cli/run_status.h"
#include "common/jsonesc.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The exit status when CMD succeeded but its traces lost data to a write
 * failure (EX_IOERR of sysexits.h). */
#define RUN_EXIT_LOST 74

static const char USAGE[] =
    "Usage: nnscope run [options] [--] CMD [ARGS...]\n"
    "\n"
    "Runs CMD with the nnscope collector preloaded (LD_PRELOAD): CPU samplers,\n"
    "process metadata and lifetime, and whatever the program records through\n"
    "libnnscope (nns_push/nns_step, the Python module) or NVTX, on CUDA the GPU\n"
    "activity through CUPTI, and NCCL collectives (NVTX_INJECTION64_PATH,\n"
    "CUDA_INJECTION64_PATH and NCCL_PROFILER_PLUGIN are set to libnnscope.so unless\n"
    "already set). Every process of CMD that records something (an event, GPU\n"
    "activity, or 100 ms of CPU time) writes <DIR>/<host>_<pid>.nnst (_rank<R>_ for a\n"
    "rank, _launcher_ for torchrun/mpirun); an exec chain (a pyenv shim) writes one\n"
    "file. Exits with CMD's status, or 74 when CMD succeeded\n"
    "but a trace could not be written completely (disk full, file size limit):\n"
    "the events not written are printed.\n"
    "\n"
    "A Python process of CMD that imports torch also records what torch.profiler\n"
    "records (operators, DataLoader, optimizer) and a step per optimizer step, with no\n"
    "code change (a sitecustomize put first on PYTHONPATH; NNSCOPE_TORCH=0 turns it off\n"
    "in a process).\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR     trace directory (default: output_path of the options, ./data)\n"
    "      --options JSON   collector options, MindSpore MS_PROFILER_OPTIONS keys and more\n"
    "                       (default: $NNSCOPE_OPTIONS, else $MS_PROFILER_OPTIONS)\n"
    "      --no-torch       do not instrument PyTorch (NNSCOPE_TORCH=0, PYTHONPATH unchanged)\n"
    "  -q, --quiet          do not print where the traces are\n"
    "  -h, --help           show this help\n"
    "\n"
    "Example: nnscope run -o runs/a --options '{\"cpu_sampling_interval_ms\":100}' -- "
    "python train.py\n";

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* libnnscope.so: $NNSCOPE_LIB, beside this program, or ../lib. */
static int find_lib(char *dst, size_t size)
{
	const char *env = getenv("NNSCOPE_LIB");
	char exe[1024];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(dst, size, "%s", env);
		return exists(dst) ? 0 : -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (snprintf(dst, size, "%s/libnnscope.so", exe) < (int)size && exists(dst))
		return 0;
	if (snprintf(dst, size, "%s/../lib/libnnscope.so", exe) >= (int)size)
		return -1;
	return exists(dst) ? 0 : -1;
}

typedef void (*init_fn)(struct nns_options *);
typedef int (*json_fn)(struct nns_options *, const char *, char *, size_t);

/* Checks the options with the library itself and gets output_path and
 * profile_communication (true unless the options say false: with_output). */
static int check_options(const char *lib, const char *json, char *out_path, size_t size, int *comm)
{
	struct nns_options o;
	char err[512];
	void *h;
	init_fn init;
	json_fn from_json;

	unsetenv("NNSCOPE_PRELOAD"); /* loading it here must not profile nnscope */
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		cli_error(lib, dlerror());
		return CLI_EINPUT;
	}
	init = (init_fn)(uintptr_t)dlsym(h, "nns_options_init");
	from_json = (json_fn)(uintptr_t)dlsym(h, "nns_options_from_json");
	if (!init || !from_json) {
		cli_error(lib, "not a libnnscope.so (nns_options_from_json missing)");
		return CLI_EINPUT;
	}
	init(&o);
	o.profile_communication = 1;
	if (from_json(&o, json, err, sizeof(err)))
		return cli_usage_error("run", "%s", err);
	snprintf(out_path, size, "%s", o.output_path);
	*comm = o.profile_communication;
	return CLI_OK;
}

/* json with "output_path":"<abs>" added (it wins: later keys override)
 * and "profile_communication":true put first (the options' own value wins:
 * under `nnscope run` collectives are recorded unless they say false). */
static char *with_output(const char *json, const char *abs)
{
	static const char comm[] = "{\"profile_communication\":true,";
	char esc[4200];
	size_t n = strlen(json), k, open = strcspn(json, "{");
	char *s;
	int empty = 1;

	json_escape_str(esc, sizeof(esc), abs, JSON_ESC_KEEP_BYTES);
	while (n > 0 && json[n - 1] != '}')
		n--;
	if (n == 0 || open >= n)
		return NULL;
	for (k = open + 1; k + 1 < n; k++)
		if (json[k] != ' ' && json[k] != '\t' && json[k] != '\n' && json[k] != '\r')
			empty = 0;
	s = malloc(n + strlen(esc) + sizeof(comm) + 32);
	if (s)
		sprintf(s, "%s%.*s%s\"output_path\":\"%s\"}", comm, (int)(n - open - 2),
			json + open + 1, empty ? "" : ",", esc);
	return s;
}

/* Prints where the traces written since `since` are. */
static void report(const char *dir, time_t since)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char first[512] = "";
	int n = 0;

	if (!d) {
		fprintf(stderr, "nnscope: no trace directory %s\n", dir);
		return;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[4400];
		struct stat st;

		if (len < 6 || strcmp(de->d_name + len - 5, ".nnst") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || st.st_mtime < since)
			continue;
		if (!n++)
			snprintf(first, sizeof(first), "%s", de->d_name);
	}
	closedir(d);
	if (!n)
		fprintf(stderr,
			"nnscope: no trace was written to %s (no process of the command recorded "
			"anything)\n",
			dir);
	else
		fprintf(stderr,
			"nnscope: %d trace file%s in %s (%s%s)\n"
			"nnscope: analyse with: nnscope analyse %s --out %s/analysis\n",
			n, n > 1 ? "s" : "", dir, first, n > 1 ? ", ..." : "", dir, dir);
}

/* What the command line asks for. */
struct run_args {
	const char *output, *json;
	char **cmd; /* CMD ARGS..., NULL-terminated (argv's) */
	int quiet;
	int no_torch;
};

static int run_parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct cli_cmd cmd = {"run", USAGE, 1};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("output", 'o', &a->output),
	    CLI_OPT_STR("options", 'O' | CLI_LONG_ONLY, &a->json),
	    CLI_OPT_QUIET(&a->quiet),
	    CLI_OPT_FLAG("no-torch", 'T' | CLI_LONG_ONLY, &a->no_torch, 1),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(a, 0, sizeof(*a));
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	if (first >= argc)
		return cli_usage_error("run",
				       "missing the command to run (nnscope run -- CMD ...)");
	a->cmd = argv + first;
	return CLI_CONTINUE;
}

/* The collector options (--options, else $NNSCOPE_OPTIONS, else
 * $MS_PROFILER_OPTIONS, else none) checked by the library, and the
 * absolute trace directory they, or --output, name. */
static int trace_dir(const struct run_args *a, const char *lib, const char **json, char *abs,
		     size_t size, int *comm)
{
	char path[1024];
	int rc;

	*json = a->json;
	if (!*json)
		*json = getenv("NNSCOPE_OPTIONS");
	if (!*json || !**json)
		*json = getenv("MS_PROFILER_OPTIONS");
	if (!*json || !**json)
		*json = "{}";
	if ((rc = check_options(lib, *json, path, sizeof(path), comm)))
		return rc;
	if (a->output)
		snprintf(path, sizeof(path), "%s", a->output);
	while (path[0] == '.' && path[1] == '/') /* "./data" -> "data" */
		memmove(path, path + 2, strlen(path + 2) + 1);
	if (!path[0])
		snprintf(path, sizeof(path), ".");
	if (path[0] == '/') {
		snprintf(abs, size, "%s", path);
	} else {
		char cwd[2048];

		if (!getcwd(cwd, sizeof(cwd))) {
			cli_error(NULL, "cannot read the current directory");
			return CLI_EINPUT;
		}
		snprintf(abs, size, "%s/%s", cwd, path);
	}
	return CLI_OK;
}

/* NNSCOPE_OPTIONS (json with output_path abs), NNSCOPE_PRELOAD and
 * LD_PRELOAD=lib[:previous] for CMD. */
static int set_preload(const char *lib, const char *json, const char *abs)
{
	const char *old = getenv("LD_PRELOAD");
	char *opt_json = with_output(json, abs);
	char *preload = malloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
	int rc = CLI_OK;

	if (!opt_json || !preload) {
		cli_error(NULL, "out of memory");
		rc = CLI_EINPUT;
	} else {
		sprintf(preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
		if (setenv("NNSCOPE_OPTIONS", opt_json, 1) || setenv("NNSCOPE_PRELOAD", "1", 1) ||
		    setenv("LD_PRELOAD", preload, 1)) {
			cli_error(NULL, "cannot set the environment");
			rc = CLI_EINPUT;
		}
	}
	free(opt_json);
	free(preload);
	return rc;
}

/* The injection paths that make NVTX, CUDA (CUPTI) and NCCL (when comm:
 * profile_communication) load the library, unless the user set their own,
 * and NNSCOPE_BIN. */
static void set_injection(const char *lib, int comm)
{
	/* NVTX v3 headers dlopen() this and call InitializeInjectionNvtx2
	 * (src/collector/nvtx.c): the program's NVTX ranges are recorded. */
	/* NCCL (2.23+) dlopen()s NCCL_PROFILER_PLUGIN and looks up
	 * ncclProfiler_v5..v1 (src/collector/nccl_prof_abi.c): every
	 * collective is recorded. A user's plugin is kept. */
	char *real = realpath(lib, NULL);

	if (!getenv("NVTX_INJECTION64_PATH"))
		setenv("NVTX_INJECTION64_PATH", real ? real : lib, 1);
	if (comm && !getenv("NCCL_PROFILER_PLUGIN"))
		setenv("NCCL_PROFILER_PLUGIN", real ? real : lib, 1);
	/* libcuda dlopen()s this in cuInit and calls
	 * InitializeInjection (src/collector/cupti.c): kernels, copies
	 * and CUDA API calls are recorded through CUPTI. */
	if (!getenv("CUDA_INJECTION64_PATH"))
		setenv("CUDA_INJECTION64_PATH", real ? real : lib, 1);
	free(real);
	if (!getenv("NNSCOPE_BIN")) {
		char exe[1024];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = '\0';
			setenv("NNSCOPE_BIN", exe, 1);
		}
	}
}

/* Zero-code PyTorch: the directory of the site hook (its sitecustomize.py,
 * python/nnscope_site/) beside this program (build tree: python/) or in
 * ../lib/nnscope/python/, put first on PYTHONPATH; NNSCOPE_TORCH=0 instead
 * with --no-torch. Without the hook (a C-only install) nothing changes. */
/* 1 if the ':'-separated list holds the entry dir. */
static int path_has(const char *list, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *p = list; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
		if (strncmp(p, dir, n) == 0 && (p[n] == ':' || p[n] == '\0'))
			return 1;
	return 0;
}

static void torch_site(int off)
{
	static const char *const rel[] = {"python/nnscope_site",
					  "../lib/nnscope/python/nnscope_site"};
	const char *old = getenv("PYTHONPATH");
	char exe[1024], dir[1200], file[1300];
	ssize_t n;
	char *slash, *path;

	if (off) {
		setenv("NNSCOPE_TORCH", "0", 1);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *real;

		snprintf(dir, sizeof(dir), "%s/%s", exe, rel[i]);
		snprintf(file, sizeof(file), "%s/sitecustomize.py", dir);
		if (!exists(file) || !(real = realpath(dir, NULL)))
			continue;
		if (path_has(old, real)) { /* an outer run put it there */
			free(real);
			return;
		}
		path = malloc(strlen(real) + (old ? strlen(old) : 0) + 2);
		if (path) {
			sprintf(path, "%s%s%s", real, old && *old ? ":" : "",
				old && *old ? old : "");
			setenv("PYTHONPATH", path, 1);
			free(path);
		}
		free(real);
		return;
	}
}

/* A descriptor that polls readable when pid ends, else -1. */
static int pid_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* Waits for pid, reading the collector's status datagrams meanwhile. */
static int wait_hearing(pid_t pid, int *status, struct run_status *st)
{
	int pfd = pid_fd(pid), rc;

	for (;;) {
		struct pollfd fds[2] = {{st->fd, POLLIN, 0}, {pfd, POLLIN, 0}};

		rc = waitpid(pid, status, WNOHANG);
		if (rc == pid || (rc < 0 && errno != EINTR))
			break;
		/* without a pid descriptor (old kernels), look every 50 ms */
		poll(fds, 2, pfd >= 0 ? -1 : 50);
		run_status_read(st);
	}
	if (pfd >= 0)
		close(pfd);
	run_status_read(st);
	return rc;
}

/* Spawns cmd with SIGTERM/SIGHUP forwarded to it and SIGINT/SIGQUIT
 * ignored here (the terminal sends them to CMD too; CMD gets their
 * default), and waits, hearing st. 0 with *status, -1 when the wait
 * failed, or an exit code > 0 after saying why cmd could not be started. */
static int spawn_wait(char **cmd, int *status, struct run_status *st)
{
	struct sigaction sa, old_term, old_hup, old_int, old_quit;
	posix_spawnattr_t at;
	sigset_t none, def;
	pid_t pid;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGQUIT);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawnp(&pid, cmd[0], NULL, &at, cmd, environ);
	posix_spawnattr_destroy(&at);
	if (rc) {
		fprintf(stderr, "nnscope: %s: %s\n", cmd[0],
			rc == ENOENT ? "command not found" : strerror(rc));
		return rc == ENOENT ? 127 : 126;
	}
	child_pid = pid;
	rc = wait_hearing(pid, status, st);
	child_pid = 0;
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return rc < 0 ? -1 : 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	const char *json;
	char lib[1024], abs[4096];
	time_t since = time(NULL);
	struct run_status st;
	int rc, status, code, lost, comm = 1;

	if ((rc = run_parse_args(argc, argv, &a)) != CLI_CONTINUE)
		return rc;
	if (find_lib(lib, sizeof(lib))) {
		cli_error(NULL, "libnnscope.so not found beside the nnscope program or in ../lib; "
				"set NNSCOPE_LIB to its path");
		return CLI_EINPUT;
	}
	if ((rc = trace_dir(&a, lib, &json, abs, sizeof(abs), &comm)) ||
	    (rc = set_preload(lib, json, abs)))
		return rc;
	set_injection(lib, comm);
	torch_site(a.no_torch);
	if (run_status_open(&st) == 0)
		setenv("NNSCOPE_STATUS", st.name, 1);
	else /* unheard: an outer run's socket is not ours to use */
		unsetenv("NNSCOPE_STATUS");
	rc = spawn_wait(a.cmd, &status, &st);
	if (rc > 0) {
		run_status_close(&st);
		return rc;
	}
	if (!a.quiet)
		report(abs, since);
	lost = run_status_report(&st);
	run_status_close(&st);
	if (rc < 0) {
		cli_error(NULL, "lost track of the command");
		return CLI_EINPUT;
	}
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	else
		code = CLI_EINPUT;
	return lost && code == 0 ? RUN_EXIT_LOST : code;
}
