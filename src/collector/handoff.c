/*
 * handoff.c - an exec chain keeps one trace file. A pyenv shim is a shell
 * script that runs a few commands and then execs python; without this,
 * the shell's image and python's each left a file of the same pid.
 *
 * Before exec (exit.c), the preloaded profiler closes as at exit (the last
 * events, counts, END) but records no STOP and keeps the descriptor open;
 * the exec gets, in the new image's environment, NNSCOPE_EXEC_TRACE =
 *   1,<pid>,<fd>,<dev>,<ino>,<end offset>,<end seq>,<flags>,<names>,<threads>,<cpu ns>
 * (flags: 1 kept, 2 named_early; names: the last string id the file
 * defines; threads: the next thread index; cpu: the collector threads' CPU
 * time so far, summed by the writer at its close). The new image's constructor (preload.c) removes
 * the variable from its environment, checks that the descriptor is still that file, of this pid,
 * ending with that END chunk, and writes on: the END chunk is cut (ftruncate) and the next chunk
 * takes its sequence number; string ids and thread indices go on after the old image's, its META
 * (cmdline, exe ...) is written again and read last, and no START is recorded: the process's window
 * runs from the first image's load to the last image's exit. The file is named or not as it was
 * (keep.c): the chain's images share one keep decision and one CPU time.
 *
 * The handoff is only made when the new environment preloads this library
 * (NNSCOPE_PRELOAD=1 and libnnscope in LD_PRELOAD); otherwise, or when the
 * checks fail, the file ends at the exec as before (its END is there) and
 * the new image starts its own. If the exec fails, the same image goes on
 * in the same file (nns_handoff_resume). A static program that receives
 * the descriptor holds it until it exits; an unnamed file then vanishes.
 */
#include "collector/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VAR "NNSCOPE_EXEC_TRACE"
#define END_CHUNK_BYTES 24 /* the END chunk: a header, no payload */

enum { H_KEPT = 1, H_NAMED_EARLY = 2 };

/* The file the previous image handed over, until the preloaded profiler
 * takes it (the constructor, before any other profiler exists). */
static struct {
	int have, fd, flags;
	uint64_t off, seq;
	int64_t cpu_ns;
} waiting;

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int nns_handoff_wanted(char *const envp[])
{
	int preload = 0, lib = 0;

	for (size_t i = 0; envp && envp[i]; i++) {
		if (strcmp(envp[i], "NNSCOPE_PRELOAD=1") == 0)
			preload = 1;
		else if (has_prefix(envp[i], "LD_PRELOAD=") && strstr(envp[i], "libnnscope"))
			lib = 1;
	}
	return preload && lib;
}

char **nns_handoff_env(struct nns_profiler *p, char *const envp[])
{
	struct stat st;
	size_t n = 0, k = 1;
	char **env, *var;
	int fl;

	if (!p->handoff_ready || p->w.fd < 0 || fstat(p->w.fd, &st) || !S_ISREG(st.st_mode))
		return NULL;
	while (envp && envp[n])
		n++;
	env = malloc((n + 2) * sizeof(*env));
	var = malloc(256);
	if (!env || !var) {
		free(env);
		free(var);
		return NULL;
	}
	snprintf(var, 256,
		 VAR "=1,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu32
		     ",%" PRIu32 ",%" PRId64,
		 (long)getpid(), p->w.fd, (uint64_t)st.st_dev, (uint64_t)st.st_ino, p->handoff_off,
		 p->handoff_seq, (p->kept ? H_KEPT : 0) | (p->named_early ? H_NAMED_EARLY : 0),
		 nns_names_count() - 1, nns_g.next_index, p->collector_cpu_ns);
	env[0] = var;
	for (size_t i = 0; i < n; i++)
		if (!has_prefix(envp[i], VAR "="))
			env[k++] = envp[i];
	env[k] = NULL;
	fl = fcntl(p->w.fd, F_GETFD);
	if (fl < 0 || fcntl(p->w.fd, F_SETFD, fl & ~FD_CLOEXEC)) {
		nns_handoff_env_free(p, env);
		return NULL;
	}
	return env;
}

void nns_handoff_env_free(struct nns_profiler *p, char **env)
{
	if (p && p->w.fd >= 0)
		fcntl(p->w.fd, F_SETFD, FD_CLOEXEC);
	if (env)
		free(env[0]);
	free(env);
}

int nns_handoff_receive(void)
{
	const char *v = getenv(VAR);
	long pid;
	int fd, flags, got;
	uint64_t dev, ino, off, seq;
	uint32_t names, threads;
	int64_t cpu;
	struct stat st;

	if (!v)
		return 0;
	got = sscanf(v,
		     "1,%ld,%d,%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%d,%" SCNu32
		     ",%" SCNu32 ",%" SCNd64,
		     &pid, &fd, &dev, &ino, &off, &seq, &flags, &names, &threads, &cpu);
	unsetenv(VAR); /* for this image only: its children start their own files */
	if (got != 10 || pid != (long)getpid() || fd < 0 || fstat(fd, &st) ||
	    (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino)
		return 0; /* not the descriptor that was handed over: not ours to touch */
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != off + END_CHUNK_BYTES || seq == 0) {
		close(fd);
		return 0;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	nns_names_set_base(names);
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.next_index < threads)
		nns_g.next_index = threads;
	pthread_mutex_unlock(&nns_g.reg_mu);
	waiting.have = 1;
	waiting.fd = fd;
	waiting.flags = flags;
	waiting.off = off;
	waiting.seq = seq;
	waiting.cpu_ns = cpu;
	return 1;
}

int nns_handoff_take(struct nns_profiler *p, struct nns_err *err)
{
	int rc;

	if (!waiting.have)
		return 0;
	waiting.have = 0;
	p->kept = (waiting.flags & H_KEPT) != 0;
	p->named_early = (waiting.flags & H_NAMED_EARLY) != 0;
	p->collector_cpu_ns = waiting.cpu_ns;
	if (p->kept || p->named_early) { /* its name, as the directory has it */
		char link[64], path[sizeof(p->path)];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", waiting.fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n > 0) {
			path[n] = '\0';
			snprintf(p->path, sizeof(p->path), "%s", path);
		}
	}
	if ((rc = nns_handoff_resume(p, waiting.fd, waiting.off, waiting.seq, err))) {
		close(waiting.fd);
		return rc;
	}
	return 1;
}

int nns_handoff_resume(struct nns_profiler *p, int fd, uint64_t off, uint64_t seq,
		       struct nns_err *err)
{
	if (ftruncate(fd, (off_t)off) || lseek(fd, (off_t)off, SEEK_SET) != (off_t)off)
		return nns_err_set(err, NNS_EIO, "%s: continuing the trace after exec: %s", p->path,
				   strerror(errno));
	memset(&p->w, 0, sizeof(p->w));
	p->w.fd = fd;
	p->w.seq = seq;
	p->w.offset = off;
	p->ended = 0;
	p->handoff_ready = 0;
	p->continued = 1;
	return NNS_OK;
}
