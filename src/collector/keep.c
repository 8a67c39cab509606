/*
 * keep.c - which processes leave a trace file. Every process that loads
 * the collector in preload mode (a shell, sed, uname ...) opens a trace;
 * only one that records something keeps it:
 *   - an event the program recorded: anything but the collector's own
 *     START/STOP markers, and but the sampler thread's NVML counters;
 *   - a GPU record (CUPTI activity, NCCL collective);
 *   - a lost-event count (it recorded more than could be kept);
 *   - CPU work: NNS_KEEP_CPU_NS (100 ms) of CPU time used by the process
 *     (every image of its exec chain) outside the collector's writer and
 *     sampler threads, looked at every writer round and at the close.
 * Metadata, clock points, thread names and CPU samples of an idle process
 * are not something recorded: a 2 ms uname, a shell waiting for its child,
 * `sleep 10` leave no file. The rule is the preloaded profiler's (`nnscope
 * run`, its forked children, its exec chain); a profiler the program
 * creates itself (nns_create, the Python module) always leaves its file.
 *
 * How: the file is created nameless (O_TMPFILE in the output directory)
 * and written as usual; the first time the process records something it
 * is linked to its name (linkat through /proc/self/fd), from then on a
 * crash leaves it as before. A file never kept disappears with its last
 * descriptor. Where O_TMPFILE is refused (some file systems) the file is
 * named at open and removed at a clean close when not kept (a crash
 * leaves it). The descriptor is moved to 512 or above, out of the way of
 * shells that redirect low descriptors (`exec 3>file`).
 */
#include "collector/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HIGH_FD 512

static int high_fd(int fd)
{
	int h = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);

	if (h < 0)
		return fd;
	close(fd);
	return h;
}

/* The k-th name of the trace (k = 0: p->path; else <stem>.<k+1>.nnst:
 * the process's trace number k + 1, a span for importers/run.h). */
static int name_k(const struct nns_profiler *p, int k, char *dst, size_t size)
{
	size_t n = strlen(p->path);
	int w;

	if (n < 5)
		return -1;
	if (k == 0)
		w = snprintf(dst, size, "%s", p->path);
	else
		w = snprintf(dst, size, "%.*s.%d.nnst", (int)(n - 5), p->path, k + 1);
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

int nns_keep_name(struct nns_profiler *p, const char *host, struct nns_err *err)
{
	char stem[512];
	int n;

	nns_trace_stem(stem, sizeof(stem), host, &p->role, &p->rank, (long)p->pid);
	n = snprintf(p->path, sizeof(p->path), "%s/%s.nnst", p->o.output_path, stem);
	if (n < 0 || (size_t)n >= sizeof(p->path))
		return nns_err_set(err, NNS_EINVAL, "output path too long: %s", p->o.output_path);
	return NNS_OK;
}

int nns_keep_create(struct nns_profiler *p, struct nns_err *err)
{
	char cand[sizeof(p->path)];
	int fd = -1;

	p->kept = p->named_early = 0;
	if (p->keep_rule && access("/proc/self/fd", X_OK) == 0) {
		fd = open(p->o.output_path, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0)
			return high_fd(fd);
	}
	p->named_early = p->keep_rule; /* else a profiler the program made: kept */
	p->kept = !p->keep_rule;
	for (int k = 0; k < 1000 && fd < 0; k++) {
		if (name_k(p, k, cand, sizeof(cand)))
			return nns_err_set(err, NNS_EINVAL, "output path too long: %s",
					   p->o.output_path);
		fd = open(cand, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return nns_err_set(err, NNS_EIO, "creating %s: %s", cand, strerror(errno));
		if (fd >= 0)
			snprintf(p->path, sizeof(p->path), "%s", cand);
	}
	if (fd < 0)
		return nns_err_set(err, NNS_EIO, "%s: too many traces of pid %ld", p->o.output_path,
				   (long)p->pid);
	return high_fd(fd);
}

int nns_keep_link(struct nns_profiler *p, struct nns_err *err)
{
	char src[64], cand[sizeof(p->path)];

	if (p->kept)
		return NNS_OK;
	if (p->named_early) {
		p->kept = 1;
		return NNS_OK;
	}
	if (p->w.fd < 0)
		return NNS_OK;
	snprintf(src, sizeof(src), "/proc/self/fd/%d", p->w.fd);
	for (int k = 0; k < 1000; k++) {
		if (name_k(p, k, cand, sizeof(cand)))
			break;
		if (linkat(AT_FDCWD, src, AT_FDCWD, cand, AT_SYMLINK_FOLLOW) == 0) {
			snprintf(p->path, sizeof(p->path), "%s", cand);
			p->kept = 1;
			return NNS_OK;
		}
		if (errno != EEXIST)
			return nns_err_set(err, NNS_EIO, "naming the trace %s: %s", cand,
					   strerror(errno));
	}
	return nns_err_set(err, NNS_EIO, "%s: too many traces of pid %ld", p->path, (long)p->pid);
}

int nns_keep_events(const struct nnst_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].type != NNST_EV_START && ev[i].type != NNST_EV_STOP)
			return 1;
	return 0;
}

static int64_t cpu_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t nns_keep_collector_cpu(struct nns_profiler *p)
{
	return p->collector_cpu_ns + cpu_ns(CLOCK_THREAD_CPUTIME_ID) +
	       atomic_load(&p->sampler_cpu_ns);
}

int nns_keep_cpu_due(struct nns_profiler *p)
{
	return !p->kept &&
	       cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - nns_keep_collector_cpu(p) >= NNS_KEEP_CPU_NS;
}

void nns_keep_close(struct nns_profiler *p)
{
	if (!p->kept && p->named_early && p->w.fd >= 0)
		unlink(p->path);
}
