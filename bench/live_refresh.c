/*
 * bench/live_refresh.c - the cost of a live refresh (docs/LIVE.md): a
 * .nnst run written by the real writer (format/nnst_writer.h) grows to
 * each size asked (default 10, 100 and 1000 MB); a follower
 * (server/live_follow.h) catches up with it once, then 1 MB of new steps
 * is appended and refreshed, 20 times: the median and worst time of the
 * refresh (read + feed) and of the summary document a page asks for after
 * it, against the target of <= 50 ms per 1 MB, independent of the run's
 * size. Prints a table.
 *
 *   build/bench/live_refresh [--sizes-mb 10,100,1000] [--dir DIR] [--rounds N]
 *   build/bench/live_refresh --grow PATH [--size-mb N] [--rounds N] [--pause-ms MS]
 *
 * --grow writes a run of N MB (default 1000) at PATH, prints "ready", then
 * every MS ms (default 1500) appends 1 MB of steps and prints "appended
 * <bytes>", N rounds (default 10), and exits without closing the trace:
 * bench/serve times `nnscope serve`'s /api/live against it (the server
 * refreshes a follow at most once a second).
 *
 * Each step: a step mark, a DataLoader range, 2 outer operators holding 60
 * nested ones each (240 ranges), and 100 kernels on the host clock: about
 * 24 KB, so 1 MB is ~43 steps.
 */
#include "common/clock.h"
#include "format/nnst_writer.h"
#include "output/jsonw.h"
#include "output/live_json.h"
#include "server/live_follow.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EV_BLOCK 16384 /* events per EVENTS chunk, as the collector's blocks */

struct gen {
	struct nnst_writer w;
	struct nnst_event ev[EV_BLOCK];
	size_t nev;
	struct nnst_gpu gpu[1024];
	size_t ngpu;
	uint64_t ts; /* mono ns */
	int64_t step;
	uint64_t bytes; /* written so far */
};

static void die(const char *what, const struct nns_err *err)
{
	fprintf(stderr, "live_refresh: %s: %s\n", what, err ? err->msg : "");
	exit(1);
}

static void flush_events(struct gen *g)
{
	struct nns_err err;
	uint32_t head[2] = {0, (uint32_t)g->nev};
	struct iovec iov[2] = {{head, sizeof(head)}, {g->ev, g->nev * sizeof(*g->ev)}};

	if (g->nev && nnst_writer_chunk(&g->w, NNST_CHUNK_EVENTS, iov, 2, &err))
		die("write", &err);
	g->bytes += g->nev ? 24 + 8 + g->nev * sizeof(*g->ev) : 0;
	g->nev = 0;
	if (g->ngpu &&
	    nnst_writer_chunk1(&g->w, NNST_CHUNK_GPU, g->gpu, g->ngpu * sizeof(*g->gpu), &err))
		die("write", &err);
	g->bytes += g->ngpu ? 24 + g->ngpu * sizeof(*g->gpu) : 0;
	g->ngpu = 0;
}

static void ev(struct gen *g, uint8_t type, uint32_t name, uint64_t a)
{
	struct nnst_event *e = &g->ev[g->nev++];

	memset(e, 0, sizeof(*e));
	e->ts = g->ts;
	e->name = name;
	e->type = type;
	e->device = -1;
	e->a = a;
	g->ts += 100;
	if (g->nev == EV_BLOCK)
		flush_events(g);
}

static void kernel(struct gen *g, uint32_t name)
{
	struct nnst_gpu *k = &g->gpu[g->ngpu++];

	memset(k, 0, sizeof(*k));
	k->start = g->ts;
	k->end = g->ts + 50;
	k->name = name;
	k->type = NNST_GPU_KERNEL;
	k->flags = NNST_GPUF_HOSTCLOCK;
	if (g->ngpu == sizeof(g->gpu) / sizeof(*g->gpu))
		flush_events(g);
}

/* Writes steps until `bytes` more bytes are written. */
static void steps(struct gen *g, uint64_t bytes)
{
	uint64_t until = g->bytes + bytes;

	while (g->bytes < until) {
		ev(g, NNST_EV_STEP, 0, (uint64_t)g->step++);
		ev(g, NNST_EV_PUSH, 3, 0);
		ev(g, NNST_EV_POP, 0, 0);
		for (int outer = 0; outer < 2; outer++) {
			ev(g, NNST_EV_PUSH, 1, 0);
			for (int i = 0; i < 60; i++) {
				ev(g, NNST_EV_PUSH, 4 + (uint32_t)(i % 8), 0);
				if (i % 2 == 0)
					kernel(g, 20 + (uint32_t)(i % 16));
				ev(g, NNST_EV_POP, 0, 0);
			}
			ev(g, NNST_EV_POP, 0, 0);
		}
		flush_events(g); /* the collector drains blocks often: a step a chunk */
	}
}

static void start(struct gen *g, const char *path)
{
	struct nnst_header h;
	struct nns_err err;
	char buf[64 << 10];
	size_t n = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die(path, NULL);
	memset(g, 0, sizeof(*g));
	g->ts = 1000000;
	nnst_header_init(&h, 1234, 0, clock_real_ns(), (int64_t)g->ts, 0);
	if (nnst_writer_init(&g->w, fd, &h, &err))
		die("header", &err);
	{ /* strings: 1 outer, 3 DataLoader, 4.. operators, 20.. kernels */
		const char *s[] = {"model::block", "", "enumerate(DataLoader)#_Iter.__next__"};
		uint8_t *p = (uint8_t *)buf;

		for (uint32_t id = 1; id < 36; id++) {
			char name[64];
			uint32_t len;

			if (id <= 3)
				snprintf(name, sizeof(name), "%s", s[id - 1]);
			else if (id < 20)
				snprintf(name, sizeof(name), "aten::op%u", id);
			else
				snprintf(name, sizeof(name), "sm90_gemm_kernel_%u", id);
			len = (uint32_t)strlen(name);
			memcpy(p + n, &id, 4);
			memcpy(p + n + 4, &len, 4);
			memcpy(p + n + 8, name, len);
			n += 8 + len;
		}
		if (nnst_writer_chunk1(&g->w, NNST_CHUNK_STRINGS, buf, n, &err))
			die("strings", &err);
	}
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --grow: a run that grows by 1 MB every pause_ms, for an HTTP client. */
static int grow(const char *path, uint64_t mb, int rounds, int pause_ms)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct timespec nap = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};

	if (!g)
		die("out of memory", NULL);
	start(g, path);
	steps(g, mb << 20);
	printf("ready %llu\n", (unsigned long long)g->bytes);
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		nanosleep(&nap, NULL);
		steps(g, 1 << 20);
		printf("appended %llu\n", (unsigned long long)g->bytes);
		fflush(stdout);
	}
	nnst_writer_close(&g->w); /* no END: the run stays open */
	free(g);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", *grow_path = NULL;
	char sizes[256] = "10,100,1000", path[4096];
	int rounds = 20, pause_ms = 1500;
	uint64_t size_mb = 1000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--grow") && i + 1 < argc)
			grow_path = argv[++i];
		else if (!strcmp(argv[i], "--size-mb") && i + 1 < argc)
			size_mb = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--pause-ms") && i + 1 < argc)
			pause_ms = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1500;
		else if (!strcmp(argv[i], "--sizes-mb") && i + 1 < argc)
			snprintf(sizes, sizeof(sizes), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 20;
		else {
			fprintf(stderr,
				"usage: live_refresh [--sizes-mb A,B,..] [--dir DIR] "
				"[--rounds N]\n"
				"       live_refresh --grow PATH [--size-mb N] [--rounds N] "
				"[--pause-ms MS]\n");
			return 2;
		}
	}
	if (grow_path)
		return grow(grow_path, size_mb ? size_mb : 1000, rounds, pause_ms);
	snprintf(path, sizeof(path), "%s/nnscope-live-bench-%d.nnst", dir, (int)getpid());
	printf("live refresh: 1 MB appended, then refresh (read + feed) and the summary "
	       "document; target <= 50 ms per refresh of 1 MB, independent of the run's size\n");
	printf("%10s %12s %12s %14s %14s %12s %12s %8s\n", "run MB", "catch-up s", "catch-up MB/s",
	       "refresh med ms", "refresh max ms", "summary ms", "total med ms", "steps");
	for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
		uint64_t mb = strtoull(tok, NULL, 10);
		struct gen *g = calloc(1, sizeof(*g));
		struct live_follow *f;
		struct nns_err err;
		double *rt = calloc((size_t)rounds, sizeof(double));
		double *dt = calloc((size_t)rounds, sizeof(double));
		double *tt = calloc((size_t)rounds, sizeof(double));
		int64_t t0;
		double catchup;

		if (!g || !rt || !dt || !tt || !mb)
			die("out of memory or a bad size", NULL);
		start(g, path);
		steps(g, mb << 20);
		if (live_follow_open(&f, NULL, path, &err))
			die("open", &err);
		t0 = clock_mono_ns();
		if (live_follow_refresh(f, &err))
			die("refresh", &err);
		catchup = (double)(clock_mono_ns() - t0) / 1e9;
		for (int r = 0; r < rounds; r++) {
			struct jsonw w;
			struct live_src src;
			int64_t a, b, c;

			steps(g, 1 << 20);
			a = clock_mono_ns();
			if (live_follow_refresh(f, &err))
				die("refresh", &err);
			b = clock_mono_ns();
			if (jsonw_init_mem(&w, 64 << 20, 0))
				die("jsonw", NULL);
			live_follow_src(f, (int64_t)10e9, &src);
			if (live_json_view(&w, f->live, &src, "summary", 20) ||
			    jsonw_finish(&w, &err))
				die("summary", &err);
			jsonw_release(&w);
			c = clock_mono_ns();
			rt[r] = (double)(b - a) / 1e6;
			dt[r] = (double)(c - b) / 1e6;
			tt[r] = (double)(c - a) / 1e6;
		}
		{
			double rmax = 0;

			for (int r = 0; r < rounds; r++)
				rmax = rt[r] > rmax ? rt[r] : rmax;
			qsort(rt, (size_t)rounds, sizeof(double), dbl_cmp);
			qsort(dt, (size_t)rounds, sizeof(double), dbl_cmp);
			qsort(tt, (size_t)rounds, sizeof(double), dbl_cmp);
			printf("%10llu %12.2f %12.0f %14.2f %14.2f %12.2f %12.2f %8zu\n",
			       (unsigned long long)mb, catchup,
			       (double)nnst_tail_stats(f->tail)->bytes_read / 1048576.0 / catchup,
			       rt[rounds / 2], rmax, dt[rounds / 2], tt[rounds / 2],
			       f->live->steps.n);
		}
		fflush(stdout);
		live_follow_close(f);
		nnst_writer_close(&g->w);
		unlink(path);
		free(g);
		free(rt);
		free(dt);
		free(tt);
	}
	return 0;
}
