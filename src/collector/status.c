/*
 * status.c - under `nnscope run` (LD_PRELOAD mode), events that do not
 * reach the trace are said, since no program code reads
 * nns_last_error() there:
 *   - at the first write failure of a trace (disk full, file size limit,
 *     any I/O error), one line on stderr at once, from the writer thread
 *     with one write(2):
 *       nnscope: pid <pid>: <trace>: writing the trace at byte <n>: <why>;
 *       events from now on are not written (counted as lost)
 *   - a status datagram to the socket `nnscope run` listens on (its name
 *     in NNSCOPE_STATUS, "@<abstract name>", read at load): at that
 *     failure (final=0) and when the trace ends (final=1, by the writer's
 *     close or a signal/_exit flush) if anything was lost. `nnscope run`
 *     prints the totals at exit and sets its exit status from them
 *     (src/cli/run_status.c reads this format, docs/CLI.md).
 * A process whose trace cannot be created (nns_create in the constructor, a
 * forked child's restart) says so the same way (failed=1, no path).
 * Datagram: lines "key=value", in this order, newlines in values replaced
 * by spaces:
 *     nnscope-status=1
 *     pid=<pid>  final=<0|1>  failed=<0|1>  lost=<events not written>
 *     gpu_lost=<GPU records not written>  path=<trace>
 *     error=<the failed write: "writing the trace at byte N: <strerror>">
 * The send never blocks (a full socket buffer drops the datagram) and
 * nothing is sent or printed outside LD_PRELOAD mode, where the API
 * reports through nns_last_error() and nns_lost_events().
 */
#include "collector/collector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The listener named by NNSCOPE_STATUS (process-wide: the environment's). */
static struct {
	struct sockaddr_un addr;
	socklen_t len; /* 0: none */
} listener;

void nns_status_init(void)
{
	const char *s = getenv("NNSCOPE_STATUS");
	size_t n;

	listener.len = 0;
	if (!s || s[0] != '@')
		return;
	n = strlen(s);
	if (n < 2 || n > sizeof(listener.addr.sun_path))
		return;
	memset(&listener.addr, 0, sizeof(listener.addr));
	listener.addr.sun_family = AF_UNIX;
	memcpy(listener.addr.sun_path + 1, s + 1, n - 1); /* abstract: sun_path[0] = 0 */
	listener.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

/* Appends "key=value\n" to dst (size), newlines in value as spaces. */
static void line(char *dst, size_t size, const char *key, const char *value)
{
	size_t n = strlen(dst);

	snprintf(dst + n, size - n, "%s=%s\n", key, value);
	for (char *c = dst + n + strlen(key) + 1; *c; c++)
		if (*c == '\n' && c[1])
			*c = ' ';
}

/* What one datagram says. */
struct record {
	int final, failed;
	uint64_t lost, gpu_lost;
	const char *path, *error;
};

static void send_record(const struct record *r)
{
	char msg[3072], v[32];
	int fd;

	if (!listener.len)
		return;
	msg[0] = '\0';
	line(msg, sizeof(msg), "nnscope-status", "1");
	snprintf(v, sizeof(v), "%ld", (long)getpid());
	line(msg, sizeof(msg), "pid", v);
	line(msg, sizeof(msg), "final", r->final ? "1" : "0");
	line(msg, sizeof(msg), "failed", r->failed ? "1" : "0");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)r->lost);
	line(msg, sizeof(msg), "lost", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)r->gpu_lost);
	line(msg, sizeof(msg), "gpu_lost", v);
	line(msg, sizeof(msg), "path", r->path);
	line(msg, sizeof(msg), "error", r->error);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&listener.addr, listener.len) < 0) {
		/* nobody listens, or the buffer is full: the line on stderr stays */
	}
	close(fd);
}

static void send_status(struct nns_profiler *p, int final)
{
	char err[NNS_ERR_MSG_MAX];
	struct record r = {final, 0, 0, 0, p->path, err};

	pthread_mutex_lock(&p->mu);
	r.failed = p->io_failed;
	r.gpu_lost = p->gpu_dropped;
	snprintf(err, sizeof(err), "%s", r.failed ? p->io_why : "");
	pthread_mutex_unlock(&p->mu);
	r.lost = nns_lost_events(p);
	send_record(&r);
}

/* One line on stderr, with one write(2). */
static void say(const char *fmt, ...)
{
	char msg[NNS_ERR_MSG_MAX + 128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > 0 &&
	    write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0) {
		/* stderr is closed: the datagram still tells `nnscope run` */
	}
}

void nns_status_failed(struct nns_profiler *p)
{
	char err[NNS_ERR_MSG_MAX];

	if (p->io_told || !nns_preload_mode())
		return;
	p->io_told = 1;
	pthread_mutex_lock(&p->mu);
	snprintf(err, sizeof(err), "%s", p->err.msg);
	pthread_mutex_unlock(&p->mu);
	say("nnscope: pid %ld: %s\n", (long)getpid(), err);
	send_status(p, 0);
}

void nns_status_open_failed(const char *why)
{
	struct record r = {1, 1, 0, 0, "", why};

	if (!nns_preload_mode())
		return;
	say("nnscope: pid %ld: %s; not profiling this process\n", (long)getpid(), why);
	send_record(&r);
}

void nns_status_final(struct nns_profiler *p)
{
	int failed, dropped;

	if (!nns_preload_mode())
		return;
	pthread_mutex_lock(&p->mu);
	failed = p->io_failed;
	dropped = p->gpu_dropped > 0;
	pthread_mutex_unlock(&p->mu);
	if (failed || dropped || nns_lost_events(p) > 0)
		send_status(p, 1);
}
