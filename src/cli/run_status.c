/*
 * run_status.c - the listening side of the collector's status datagrams
 * for `nnscope run` (run_status.h; the sender and the format are in
 * src/collector/status.c). Each datagram is "key=value" lines; the last
 * one heard for a (pid, path) wins, so a final count replaces the count
 * at the failure.
 */
#include "cli/run_status.h"
#include "common/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SHOWN_MAX 10 /* failed traces named one by one */

int run_status_open(struct run_status *rs)
{
	struct sockaddr_un a;
	unsigned char rnd[12];
	size_t n;
	int big = 1 << 20;

	memset(rs, 0, sizeof(*rs));
	rs->fd = -1;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	n = (size_t)snprintf(rs->name, sizeof(rs->name), "@nnscope-run-");
	for (size_t i = 0; i < sizeof(rnd); i++)
		n += (size_t)snprintf(rs->name + n, sizeof(rs->name) - n, "%02x", rnd[i]);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path + 1, rs->name + 1, n - 1); /* abstract: sun_path[0] = 0 */
	rs->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (rs->fd < 0)
		return -1;
	setsockopt(rs->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big)); /* best effort */
	if (bind(rs->fd, (struct sockaddr *)&a,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n))) {
		close(rs->fd);
		rs->fd = -1;
		return -1;
	}
	return 0;
}

/* The value of "key=" in msg (lines), copied into dst; 0 when found. */
static int field(const char *msg, const char *key, char *dst, size_t size)
{
	size_t k = strlen(key);

	for (const char *l = msg; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, k) == 0 && l[k] == '=') {
			const char *v = l + k + 1, *e = strchr(v, '\n');
			size_t len = e ? (size_t)(e - v) : strlen(v);

			if (len >= size)
				len = size - 1;
			memcpy(dst, v, len);
			dst[len] = '\0';
			return 0;
		}
	}
	return -1;
}

static int parse(const char *msg, struct run_status_trace *t)
{
	char v[32];

	memset(t, 0, sizeof(*t));
	if (field(msg, "nnscope-status", v, sizeof(v)) || strcmp(v, "1") != 0)
		return -1;
	if (field(msg, "pid", v, sizeof(v)))
		return -1;
	t->pid = strtol(v, NULL, 10);
	if (!field(msg, "final", v, sizeof(v)))
		t->final = v[0] == '1';
	if (!field(msg, "failed", v, sizeof(v)))
		t->failed = v[0] == '1';
	if (!field(msg, "lost", v, sizeof(v)))
		t->lost = strtoull(v, NULL, 10);
	if (!field(msg, "gpu_lost", v, sizeof(v)))
		t->gpu_lost = strtoull(v, NULL, 10);
	field(msg, "path", t->path, sizeof(t->path));
	field(msg, "error", t->error, sizeof(t->error));
	return 0;
}

static void keep(struct run_status *rs, const struct run_status_trace *t)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct run_status_trace *o = &rs->v[i];

		if (o->pid == t->pid && strcmp(o->path, t->path) == 0) {
			*o = *t;
			return;
		}
	}
	if (vec_reserve_raw((void **)&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v))) {
		rs->ignored++;
		return;
	}
	rs->v[rs->n++] = *t;
}

void run_status_read(struct run_status *rs)
{
	char msg[4096];
	struct run_status_trace t;

	while (rs->fd >= 0) {
		ssize_t k = recv(rs->fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return;
		msg[k] = '\0';
		if (parse(msg, &t))
			rs->ignored++;
		else
			keep(rs, &t);
	}
}

int run_status_report(const struct run_status *rs)
{
	uint64_t lost = 0, dropped = 0, gpu = 0;
	size_t failed = 0, dropping = 0, shown = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct run_status_trace *t = &rs->v[i];

		gpu += t->gpu_lost;
		if (!t->failed) {
			dropped += t->lost;
			dropping += t->lost > 0;
			continue;
		}
		failed++;
		lost += t->lost;
		if (shown++ >= SHOWN_MAX)
			continue;
		if (t->path[0])
			fprintf(stderr,
				"nnscope: error: %s: %s; %s%llu events not written (pid %ld)\n",
				t->path, t->error, t->final ? "" : "at least ",
				(unsigned long long)t->lost, t->pid);
		else
			fprintf(stderr, "nnscope: error: pid %ld: no trace: %s\n", t->pid,
				t->error);
	}
	if (shown > SHOWN_MAX)
		fprintf(stderr, "nnscope: error: ... and %zu more traces that failed\n",
			shown - SHOWN_MAX);
	if (failed)
		fprintf(stderr,
			"nnscope: error: %zu trace%s incomplete: %llu events were not written "
			"(exit status 74 when the command itself succeeded)\n",
			failed, failed > 1 ? "s are" : " is", (unsigned long long)lost);
	if (dropped)
		fprintf(stderr,
			"nnscope: warning: %llu events were dropped in %zu process%s because "
			"the buffers were full (counted in the traces; raise "
			"buffer_kb_per_thread)\n",
			(unsigned long long)dropped, dropping, dropping > 1 ? "es" : "");
	if (gpu)
		fprintf(stderr, "nnscope: warning: %llu GPU records were not written\n",
			(unsigned long long)gpu);
	return failed > 0;
}

void run_status_close(struct run_status *rs)
{
	if (rs->fd >= 0)
		close(rs->fd);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
	rs->fd = -1;
}
