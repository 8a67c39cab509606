/*
 * exit.c - nothing collected is lost when the process ends or replaces
 * itself without nns_destroy():
 *   - at exit (return from main, exit()): the library's destructor closes
 *     every profiler of this process as nns_destroy would (STOP, the last
 *     events, samples and counts, END) but does not free them, since other
 *     threads or later destructors may still hold the handles: calls on a
 *     closed profiler do nothing. It runs after the program's atexit
 *     handlers and static destructors (the dynamic loader's finalisation
 *     comes last), so their events are kept;
 *   - before exec (execve, execv, execvp, execvpe, execl, execlp, execle,
 *     fexecve, called through the PLT: the program, or any library that
 *     sees libnnscope.so first, i.e. LD_PRELOAD or linked with
 *     -lnnscope): the same close, except that the preloaded profiler
 *     hands its file to the next image when that image preloads the
 *     library too (handoff.c: one file per exec chain). If exec fails, the
 *     profilers collect again: the preloaded one in the same file, others
 *     with the next file of this pid (<host>_<pid>.2.nnst);
 *   - _exit() and _Exit(), which run no destructor and may be called from
 *     a signal handler: the async-signal-safe flush of sigflush.c (what is
 *     published, then END).
 * Fatal signals are sigflush.c's; the destructor puts the program's
 * previous handlers back (the library may be unloaded by dlclose).
 *
 * Not covered: a process killed by SIGKILL (the trace keeps what the writer
 * wrote, up to ~0.5 s before), exec or _exit through a raw system call, and
 * libc's own internal calls (posix_spawn, system and popen exec in a new
 * process, which profiles itself under LD_PRELOAD).
 *
 * Bounds: the close waits at most 2 s for the lifecycle lock (held by
 * another thread that is in a collector call: then the async flush runs
 * instead) and 10 s for the writer (stuck in I/O: the process goes on
 * without it). A vfork() child, which shares its parent's memory, does
 * nothing: the process ids differ (nns_g.self_pid, kept by a fork
 * handler).
 */
#include "collector/collector.h"
#include "common/clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LOCK_WAIT_MS 2000
#define WRITER_WAIT_MS 10000

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);

/* libc's functions, found once at load (dlsym is not safe in a vfork
 * child or a signal handler). */
static struct {
	execve_fn execve, execvpe;
	execv_fn execv, execvp;
	fexecve_fn fexecve;
	exit_fn exit_, Exit_;
} real;

int nns_is_self(void)
{
	return (int)syscall(SYS_getpid) == atomic_load(&nns_g.self_pid);
}

static void after_fork_child(void)
{
	atomic_store(&nns_g.self_pid, (int)syscall(SYS_getpid));
}

static void *next_fn(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

__attribute__((constructor)) static void exit_init(void)
{
	atomic_store(&nns_g.self_pid, (int)syscall(SYS_getpid));
	pthread_atfork(NULL, NULL, after_fork_child);
	real.execve = (execve_fn)(uintptr_t)next_fn("execve");
	real.execvpe = (execve_fn)(uintptr_t)next_fn("execvpe");
	real.execv = (execv_fn)(uintptr_t)next_fn("execv");
	real.execvp = (execv_fn)(uintptr_t)next_fn("execvp");
	real.fexecve = (fexecve_fn)(uintptr_t)next_fn("fexecve");
	real.exit_ = (exit_fn)(uintptr_t)next_fn("_exit");
	real.Exit_ = (exit_fn)(uintptr_t)next_fn("_Exit");
}

/* Closes the profilers of this process that collected here; 0 when there
 * was nothing to do or it was done, -1 when the lock could not be taken
 * (the async flush ran instead). envp: an exec's environment, whose
 * image the preloaded profiler's file may pass to (*env gets the
 * environment that says so, else stays NULL). */
static int close_all(int why, char *const envp[], char ***env)
{
	struct nns_profiler *pre = nns_preload_profiler();

	struct timespec until;

	if (!nns_is_self() || atomic_load(&nns_g.writers_live) <= 0)
		return 0;
	until = clock_deadline(CLOCK_REALTIME, LOCK_WAIT_MS);
	if (pthread_mutex_timedlock(&nns_g.life_mu, &until)) {
		nns_flush_async(1);
		return -1;
	}
	for (struct nns_profiler *p = nns_all_profilers; p; p = p->next_all) {
		if (p->child_pending || p->closed)
			continue;
		p->handoff = env && p == pre && nns_handoff_wanted(envp);
		nns_close_locked(p, why, WRITER_WAIT_MS);
		if (p->handoff)
			*env = nns_handoff_env(p, envp);
	}
	pthread_mutex_unlock(&nns_g.life_mu);
	return 0;
}

__attribute__((destructor)) static void exit_fini(void)
{
	close_all(NNS_CLOSED_EXIT, NULL, NULL);
	if (nns_is_self())
		nns_uninstall_signal_flush();
}

/* ---- exec ----------------------------------------------------------------------- */

/* Closes for exec; returns the environment to exec with: envp, or a
 * copy that hands the preloaded profiler's file over (free it with
 * exec_failed when the exec returns). */
static char **before_exec(char *const envp[], char ***mine)
{
	*mine = NULL;
	close_all(NNS_CLOSED_EXEC, envp, mine);
	return *mine ? *mine : (char **)envp;
}

/* exec failed: what was closed for it collects again. */
static void exec_failed(char **mine)
{
	int saved = errno;

	if (nns_is_self()) {
		pthread_mutex_lock(&nns_g.life_mu);
		for (struct nns_profiler *p = nns_all_profilers; p; p = p->next_all) {
			if (p->handoff && mine)
				nns_handoff_env_free(p, mine), mine = NULL;
			p->handoff = 0;
			if (p->closed == NNS_CLOSED_EXEC)
				nns_reopen_locked(p);
		}
		pthread_mutex_unlock(&nns_g.life_mu);
	}
	if (mine)
		nns_handoff_env_free(NULL, mine);
	errno = saved;
}

static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

NNS_API int execve(const char *path, char *const argv[], char *const envp[])
{
	char **env, **mine;
	int rc;

	if (!real.execve) /* called before our constructor ran */
		real.execve = (execve_fn)(uintptr_t)next_fn("execve");
	if (!real.execve)
		return missing();
	env = before_exec(envp, &mine);
	rc = real.execve(path, argv, env);
	exec_failed(mine);
	return rc;
}

NNS_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	char **env, **mine;
	int rc;

	if (!real.execvpe) /* called before our constructor ran */
		real.execvpe = (execve_fn)(uintptr_t)next_fn("execvpe");
	if (!real.execvpe)
		return missing();
	env = before_exec(envp, &mine);
	rc = real.execvpe(file, argv, env);
	exec_failed(mine);
	return rc;
}

NNS_API int execv(const char *path, char *const argv[])
{
	char **env, **mine;
	int rc;

	if (!real.execv) /* called before our constructor ran */
		real.execv = (execv_fn)(uintptr_t)next_fn("execv");
	if (!real.execv)
		return missing();
	env = before_exec(environ, &mine);
	rc = mine ? real.execve(path, argv, env) : real.execv(path, argv);
	exec_failed(mine);
	return rc;
}

NNS_API int execvp(const char *file, char *const argv[])
{
	char **env, **mine;
	int rc;

	if (!real.execvp) /* called before our constructor ran */
		real.execvp = (execv_fn)(uintptr_t)next_fn("execvp");
	if (!real.execvp)
		return missing();
	env = before_exec(environ, &mine);
	rc = mine && real.execvpe ? real.execvpe(file, argv, env) : real.execvp(file, argv);
	exec_failed(mine);
	return rc;
}

NNS_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	char **env, **mine;
	int rc;

	if (!real.fexecve) /* called before our constructor ran */
		real.fexecve = (fexecve_fn)(uintptr_t)next_fn("fexecve");
	if (!real.fexecve)
		return missing();
	env = before_exec(envp, &mine);
	rc = real.fexecve(fd, argv, env);
	exec_failed(mine);
	return rc;
}

/* execl, execlp, execle: the arguments as an array (as libc does, on the
 * stack), then the v form above. */
static size_t count_args(va_list ap)
{
	size_t n = 1;

	while (va_arg(ap, const char *))
		n++;
	return n;
}

static void fill_args(const char **argv, const char *arg, size_t n, va_list ap)
{
	argv[0] = arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, const char *);
	argv[n] = NULL;
}

NNS_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(ap);
	va_end(ap);
	{
		const char *argv[n + 1];

		va_start(ap, arg);
		fill_args(argv, arg, n, ap);
		va_end(ap);
		return execv(path, (char *const *)argv);
	}
}

NNS_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(ap);
	va_end(ap);
	{
		const char *argv[n + 1];

		va_start(ap, arg);
		fill_args(argv, arg, n, ap);
		va_end(ap);
		return execvp(file, (char *const *)argv);
	}
}

NNS_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(ap);
	va_end(ap);
	{
		const char *argv[n + 1];
		char *const *envp;

		va_start(ap, arg);
		fill_args(argv, arg, n, ap);
		(void)va_arg(ap, const char *); /* the NULL that ends the arguments */
		envp = va_arg(ap, char *const *);
		va_end(ap);
		return execve(path, (char *const *)argv, envp);
	}
}

/* ---- _exit ------------------------------------------------------------------------ */

static __attribute__((noreturn)) void leave(exit_fn fn, int status)
{
	nns_flush_async(1);
	if (fn)
		fn(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

NNS_API __attribute__((noreturn)) void _exit(int status)
{
	leave(real.exit_, status);
}

NNS_API __attribute__((noreturn)) void _Exit(int status)
{
	leave(real.Exit_, status);
}
