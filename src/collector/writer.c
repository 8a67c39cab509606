/*
 * writer.c - a profiler's writer thread: opens <output_path>/<host>_<pid>.nnst
 * (named once the process records something, keep.c; <host>_rank<R>_<pid>
 * for a rank, <host>_launcher_<pid> for a launcher, meta.c; or continues
 * the file an exec handed over, handoff.c), writes the header, META and
 * CLOCK, then drains the per-thread blocks into
 * EVENTS chunks (STRINGS and THREAD chunks first, for what they name),
 * SAMPLES from the sampler, LOST counts, a CLOCK point every second, and
 * END at a clean close.
 *
 * Cadence: the writer sleeps on a futex; the thread that fills a block
 * wakes it (one FUTEX_WAKE per block, only when the writer sleeps: the
 * amortised cost is ~0.1 ns per event with 16384-event blocks), and it
 * wakes by itself every 100 ms for the periodic work. Partial blocks are written
 * every 0.5 s, and on nns_stop/nns_step-driven stops, nns_analyse, a
 * signal flush and close; so a SIGKILLed run loses at most ~0.5 s.
 * Every chunk goes out with one writev(): the page cache keeps it when the
 * process dies. A write error stops the writing, not the collection: it
 * sets the profiler's last error (status.c tells `nnscope run`), and from
 * then on every event drained is counted lost (nns_lost_events), as are
 * the events of the chunk that failed, so the count is every event not
 * written; GPU records not written count in gpu_dropped.
 */
#include "collector/collector.h"
#include "collector/tsc.h"
#include "common/vec.h"
#include "common/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <unistd.h>

#define WRITER_BUF (1u << 20)
#define PARTIAL_NS 500000000LL
#define CLOCK_NS 1000000000LL
#define SLEEP_NS 100000000L

struct span {
	struct nns_tbuf *t;
	struct nns_block *b;
	uint32_t from, to;
	int full;
};

/* Writer-thread scratch, allocated at start. */
struct wstate {
	struct nns_tbuf **snap;
	size_t nsnap, capsnap;
	struct span *spans;
	size_t nspans, capspans;
	struct nnst_sample *samples;
};

static int64_t mono(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void io_failed(struct nns_profiler *p, const struct nns_err *e)
{
	pthread_mutex_lock(&p->mu);
	if (!p->io_failed) {
		p->io_failed = 1;
		snprintf(p->io_why, sizeof(p->io_why), "%s", e->msg);
		nns_err_set(&p->err, NNS_EIO,
			    "%s: %s; events from now on are not written (counted as lost)", p->path,
			    e->msg);
	}
	pthread_mutex_unlock(&p->mu);
	if (p->in_writer) /* not while nns_create opens the file: it reports */
		nns_status_failed(p);
}

/* The process recorded something: the file gets its name (keep.c). */
static void keep(struct nns_profiler *p)
{
	struct nns_err e;

	if (p->kept || p->w.failed || p->ended)
		return;
	nns_err_clear(&e);
	if (nns_keep_link(p, &e))
		io_failed(p, &e);
}

static int chunk(struct nns_profiler *p, uint32_t type, const struct iovec *iov, int n)
{
	struct nns_err e;

	if (p->ended || p->w.failed)
		return NNS_EIO;
	if (nnst_writer_chunk(&p->w, type, iov, n, &e)) {
		io_failed(p, &e);
		return NNS_EIO;
	}
	return NNS_OK;
}

static int chunk_buf(struct nns_profiler *p, uint32_t type)
{
	struct iovec iov = {p->buf.p, p->buf.n};
	int rc = p->buf.n ? chunk(p, type, &iov, 1) : NNS_OK;

	p->buf.n = 0;
	return rc;
}

static void write_clock(struct nns_profiler *p)
{
	struct nnst_clock c;
	struct iovec iov = {&c, sizeof(c)};

	nns_clock_point(&c);
	chunk(p, NNST_CHUNK_CLOCK, &iov, 1);
}

static void write_strings(struct nns_profiler *p)
{
	int more;

	do {
		more = nns_names_serialize(&p->strings_written, &p->buf);
		chunk_buf(p, NNST_CHUNK_STRINGS);
	} while (more && !p->w.failed && !p->ended);
}

static void meta(struct nns_profiler *p, const char *k, const char *v)
{
	if (nnst_buf_meta(&p->buf, k, v)) {
		chunk_buf(p, NNST_CHUNK_META);
		nnst_buf_meta(&p->buf, k, v); /* a record larger than the buffer is dropped */
	}
}

static void meta_long(struct nns_profiler *p, const char *k, long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", v);
	meta(p, k, s);
}

static void read_small(const char *path, char *dst, size_t size, int nul_to_space)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, dst, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	dst[n] = '\0';
	while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == '\0'))
		dst[--n] = '\0';
	for (ssize_t i = 0; nul_to_space && i < n; i++)
		if (dst[i] == '\0')
			dst[i] = ' ';
}

/* How far CLOCK_REALTIME can be trusted across hosts (cluster alignment):
 * the kernel's NTP state, read-only adjtimex (no privilege needed). */
static void write_clock_sync(struct nns_profiler *p)
{
	struct timex tx;
	int st;

	memset(&tx, 0, sizeof(tx));
	st = adjtimex(&tx);
	if (st < 0)
		return;
	meta(p, "clock_sync", st == TIME_ERROR || (tx.status & STA_UNSYNC) ? "unsynced" : "ntp");
	meta_long(p, "clock_maxerror_us", tx.maxerror);
	meta_long(p, "clock_esterror_us", tx.esterror);
}

static void write_open_meta(struct nns_profiler *p, const char *host)
{
	char s[4096];
	ssize_t n;

	meta(p, "nnscope_version", NNS_VERSION_STRING);
	meta(p, "host", host);
	meta_long(p, "pid", (long)p->pid);
	meta_long(p, "ppid", (long)getppid());
	if (p->rank.rank >= 0) {
		meta_long(p, "rank", p->rank.rank);
		meta(p, "rank_source", p->rank.source);
	}
	if (p->rank.world_size >= 0)
		meta_long(p, "world_size", p->rank.world_size);
	if (p->rank.local_rank >= 0)
		meta_long(p, "local_rank", p->rank.local_rank);
	if (p->role.role[0])
		meta(p, "role", p->role.role);
	if (p->role.launcher)
		meta(p, "launcher", p->role.launcher);
	if (p->role.parent_rank >= 0)
		meta_long(p, "parent_rank", p->role.parent_rank);
	if (p->continued)
		meta(p, "exec", "continued"); /* an earlier image of this pid wrote above */
	/* the user's step-trace points (MindSpore's PROFILING_FP_START /
	 * PROFILING_BP_END), for the analysis of this trace anywhere */
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(i ? "NNSCOPE_BP_END" : "NNSCOPE_FP_START");

		if (!v || !*v)
			v = getenv(i ? "PROFILING_BP_END" : "PROFILING_FP_START");
		if (v && *v)
			meta(p, i ? "bp_end" : "fp_start", v);
	}
	meta(p, "clock", NNS_CLOCK_FLAGS ? "tsc" : "monotonic");
	write_clock_sync(p);
	meta_long(p, "cpu_count", sysconf(_SC_NPROCESSORS_ONLN));
	meta_long(p, "clk_tck", sysconf(_SC_CLK_TCK));
	read_small("/proc/self/cmdline", s, sizeof(s), 1);
	meta(p, "cmdline", s);
	n = readlink("/proc/self/exe", s, sizeof(s) - 1);
	s[n > 0 ? n : 0] = '\0';
	meta(p, "exe", s);
	nns_options_to_json(&p->o, s, sizeof(s));
	meta(p, "options", s);
	chunk_buf(p, NNST_CHUNK_META);
}

int nns_writer_open(struct nns_profiler *p, struct nns_err *err)
{
	struct nnst_header h;
	struct nnst_clock c;
	char host[256];
	int fd, rc;

	if ((rc = fs_mkdirs(p->o.output_path, err)))
		return rc;
	if (!p->buf.p && nnst_buf_init(&p->buf, WRITER_BUF))
		return nns_err_set(err, NNS_ENOMEM, "no memory for the trace writer");
	nns_hostname(host, sizeof(host));
	p->strings_written = 0;
	p->lost_unreg_written = 0;
	if (p->handoff_ready) { /* the exec failed: the same file goes on */
		rc = nns_handoff_resume(p, p->w.fd, p->handoff_off, p->handoff_seq, err);
		if (rc) {
			nnst_writer_close(&p->w);
			return rc;
		}
	} else if ((rc = nns_keep_name(p, host, err)) ||
		   (rc = nns_handoff_take(p, err)) < 0) { /* an exec handed one over */
		return rc;
	} else if (rc == 0) {
		if ((fd = nns_keep_create(p, err)) < 0)
			return fd;
		nns_clock_point(&c);
		nnst_header_init(&h, p->pid, NNS_CLOCK_FLAGS, c.realtime_ns, c.mono_ns, c.tsc);
		p->ended = 0;
		if ((rc = nnst_writer_init(&p->w, fd, &h, err))) {
			nnst_writer_close(&p->w);
			return rc;
		}
	}
	write_open_meta(p, host);
	nns_clock_point(&c);
	{
		struct iovec iov = {&c, sizeof(c)};

		chunk(p, NNST_CHUNK_CLOCK, &iov, 1);
	}
	if (p->w.failed)
		return nns_err_set(err, NNS_EIO, "%s: %s", p->path, p->err.msg);
	return NNS_OK;
}

/* ---- draining ------------------------------------------------------------------------ */

static struct nns_block *block_with_seq(struct nns_tbuf *t, uint64_t seq, uint32_t *state)
{
	for (int i = 0; i < NNS_TBUF_BLOCKS; i++) {
		struct nns_block *b = &t->blk[i];
		uint32_t st = atomic_load_explicit(&b->state, memory_order_acquire);

		if (st != NNS_BLK_FREE && b->seq == seq) {
			*state = st;
			return b;
		}
	}
	return NULL;
}

static void thread_name(struct nns_tbuf *t, char *dst, size_t size)
{
	char path[64];

	if (nns_nvtx_thread_name(t->tid, dst, size))
		return;
	snprintf(dst, size, "%s", t->name);
	if (atomic_load_explicit(&t->exited, memory_order_acquire))
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", (long)t->tid);
	read_small(path, path, sizeof(path), 0);
	if (path[0])
		snprintf(dst, size, "%s", path);
}

static void announce(struct nns_profiler *p, struct nns_tbuf *t)
{
	char name[64];
	uint32_t ng = nns_nvtx_thread_names_gen();

	if (t->announced_gen == p->gen && t->names_gen == ng)
		return;
	t->names_gen = ng;
	/* announced, but NVTX renamed some thread since: again if this one */
	if (t->announced_gen == p->gen && !nns_nvtx_thread_name(t->tid, name, sizeof(name)))
		return;
	if (t->announced_gen != p->gen)
		thread_name(t, name, sizeof(name));
	nnst_buf_thread(&p->buf, t->index, (int64_t)t->tid, name);
	chunk_buf(p, NNST_CHUNK_THREAD);
	t->announced_gen = p->gen;
}

static void write_span(struct nns_profiler *p, const struct span *s)
{
	uint32_t hdr[2] = {s->t->index, s->to - s->from};
	struct iovec iov[2] = {
	    {hdr, sizeof(hdr)},
	    {s->b->ev + s->from, (size_t)(s->to - s->from) * sizeof(struct nnst_event)}};

	if (p->w.failed || p->ended) {
		atomic_fetch_add_explicit(&p->lost, s->to - s->from, memory_order_relaxed);
		return;
	}
	if (!p->kept && s->t->tid != atomic_load(&p->sampler_tid) &&
	    nns_keep_events(s->b->ev + s->from, s->to - s->from))
		keep(p);
	announce(p, s->t);
	if (chunk(p, NNST_CHUNK_EVENTS, iov, 2))
		atomic_fetch_add_explicit(&p->lost, s->to - s->from, memory_order_relaxed);
}

static void write_lost(struct nns_profiler *p, uint32_t thread, uint64_t lost)
{
	uint8_t rec[12];
	struct iovec iov = {rec, sizeof(rec)};

	memcpy(rec, &thread, 4);
	memcpy(rec + 4, &lost, 8);
	keep(p); /* events were recorded, if not kept */
	chunk(p, NNST_CHUNK_LOST, &iov, 1);
}

/* The registered threads into ws->snap, and the count of events lost by
 * threads that were never registered; -1 when p is no longer current. */
static int snapshot_threads(struct nns_profiler *p, struct wstate *ws, uint64_t *unreg)
{
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current != p) {
		pthread_mutex_unlock(&nns_g.reg_mu);
		return -1;
	}
	ws->nsnap = 0;
	for (struct nns_tbuf *t = nns_g.threads; t; t = t->next) {
		if (vec_reserve_raw((void **)&ws->snap, &ws->capsnap, ws->nsnap + 1,
				    sizeof(*ws->snap)))
			break;
		ws->snap[ws->nsnap++] = t;
	}
	*unreg =
	    atomic_load_explicit(&nns_g.lost_unreg, memory_order_relaxed) - nns_g.lost_unreg_base;
	pthread_mutex_unlock(&nns_g.reg_mu);
	return 0;
}

/* 1. What to write (ws->spans): the full blocks of each thread in order,
 *    and with partial, the unwritten part of the block being filled. Read
 *    before the names so that every name an event uses is in the STRINGS
 *    written next. */
static void collect_spans(struct wstate *ws, int partial)
{
	ws->nspans = 0;
	for (size_t i = 0; i < ws->nsnap; i++) {
		struct nns_tbuf *t = ws->snap[i];
		uint64_t seq = t->wseq;
		uint32_t st;
		struct nns_block *b;

		while ((b = block_with_seq(t, seq, &st))) {
			uint32_t n = atomic_load_explicit(&b->n, memory_order_acquire);
			int full = st == NNS_BLK_FULL;

			if (!full && (!partial || n <= b->done))
				break;
			if (vec_reserve_raw((void **)&ws->spans, &ws->capspans, ws->nspans + 1,
					    sizeof(*ws->spans)))
				break;
			ws->spans[ws->nspans++] = (struct span){t, b, b->done, n, full};
			if (!full)
				break;
			seq++;
		}
	}
}

/* 2. Names, then events; full blocks go back to their thread. Returns how
 *    many blocks were freed. */
static int write_spans(struct nns_profiler *p, struct wstate *ws)
{
	int nfull = 0;

	if (!p->w.failed && !p->ended)
		write_strings(p);
	for (size_t i = 0; i < ws->nspans; i++) {
		struct span *s = &ws->spans[i];

		if (s->to > s->from)
			write_span(p, s);
		if (s->full) {
			s->b->done = 0;
			atomic_store_explicit(&s->b->n, 0, memory_order_relaxed);
			atomic_store_explicit(&s->b->state, NNS_BLK_FREE, memory_order_release);
			s->t->wseq++;
			nfull++;
		} else {
			s->b->done = s->to;
		}
	}
	return nfull;
}

/* 3. Lost counts that changed, per thread and for unregistered threads. */
static void write_lost_counts(struct nns_profiler *p, struct wstate *ws, uint64_t unreg)
{
	for (size_t i = 0; i < ws->nsnap; i++) {
		struct nns_tbuf *t = ws->snap[i];
		uint64_t lost = atomic_load_explicit(&t->lost, memory_order_relaxed) - t->lost_base;

		if (lost != t->lost_written) {
			atomic_fetch_add_explicit(&p->lost, lost - t->lost_written,
						  memory_order_relaxed);
			announce(p, t);
			write_lost(p, t->index, lost);
			t->lost_written = lost;
		}
	}
	if (unreg != p->lost_unreg_written) {
		atomic_fetch_add_explicit(&p->lost, unreg - p->lost_unreg_written,
					  memory_order_relaxed);
		write_lost(p, NNST_THREAD_PROCESS, unreg);
		p->lost_unreg_written = unreg;
	}
}

/* 4. The buffers of threads that ended and have nothing left to write go
 *    back to the pool. */
static void reap_threads(void)
{
	pthread_mutex_lock(&nns_g.reg_mu);
	for (struct nns_tbuf **pp = &nns_g.threads; *pp;) {
		struct nns_tbuf *t = *pp;
		int busy = 0;

		for (int i = 0; i < NNS_TBUF_BLOCKS; i++)
			busy |= atomic_load_explicit(&t->blk[i].state, memory_order_acquire) !=
				NNS_BLK_FREE;
		if (atomic_load_explicit(&t->exited, memory_order_acquire) && !busy) {
			*pp = t->next;
			nns_tb_recycle_locked(t);
		} else {
			pp = &t->next;
		}
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
}

/* Writes what the buffers hold: full blocks always, the published part of
 * current blocks when `partial`. Returns the number of full blocks. */
static int drain(struct nns_profiler *p, struct wstate *ws, int partial)
{
	uint64_t unreg;
	int nfull;

	if (snapshot_threads(p, ws, &unreg))
		return 0;
	collect_spans(ws, partial);
	nfull = write_spans(p, ws);
	write_lost_counts(p, ws, unreg);
	reap_threads();
	return nfull;
}

static int any_full(struct nns_profiler *p)
{
	int full = 0;

	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current == p)
		for (struct nns_tbuf *t = nns_g.threads; t && !full; t = t->next)
			for (int i = 0; i < NNS_TBUF_BLOCKS; i++)
				full |= atomic_load_explicit(&t->blk[i].state,
							     memory_order_seq_cst) == NNS_BLK_FULL;
	pthread_mutex_unlock(&nns_g.reg_mu);
	return full;
}

/* ---- the thread ------------------------------------------------------------------------ */

/* GPU records in chunks of at most 64 k records (5 MiB), after the
 * strings their names use; then the CUPTI clock points. */
static void write_gpu(struct nns_profiler *p, const struct nnst_gpu *g, size_t n,
		      const struct nnst_gpuclock *clk, size_t nclk)
{
	if (n) {
		keep(p);
		write_strings(p);
	}
	for (size_t i = 0; i < n; i += 65536) {
		size_t k = n - i < 65536 ? n - i : 65536;
		struct iovec iov = {(void *)(g + i), k * sizeof(*g)};

		if (chunk(p, NNST_CHUNK_GPU, &iov, 1)) {
			pthread_mutex_lock(&p->mu);
			p->gpu_dropped += k;
			pthread_mutex_unlock(&p->mu);
		}
	}
	if (nclk) {
		struct iovec iov = {(void *)clk, nclk * sizeof(*clk)};

		chunk(p, NNST_CHUNK_GPUCLOCK, &iov, 1);
	}
}

static void write_pending(struct nns_profiler *p, struct wstate *ws, struct nns_kv *kv,
			  size_t nsamples)
{
	while (kv) {
		struct nns_kv *next = kv->next;

		meta(p, kv->key, kv->value);
		free(kv->key);
		free(kv->value);
		free(kv);
		kv = next;
	}
	chunk_buf(p, NNST_CHUNK_META);
	if (nsamples) {
		struct iovec iov = {ws->samples, nsamples * sizeof(*ws->samples)};

		chunk(p, NNST_CHUNK_SAMPLES, &iov, 1);
	}
}

static void write_gpu_dropped(struct nns_profiler *p)
{
	uint64_t d;

	pthread_mutex_lock(&p->mu);
	d = p->gpu_dropped;
	pthread_mutex_unlock(&p->mu);
	if (d) {
		meta_long(p, "gpu_records_dropped", (long)d);
		chunk_buf(p, NNST_CHUNK_META);
	}
}

/* nns_g.current no longer names p (new threads stop seeing it). */
static void forget_current(struct nns_profiler *p)
{
	pthread_mutex_lock(&nns_g.reg_mu);
	if (nns_g.current == p)
		nns_g.current = NULL;
	pthread_mutex_unlock(&nns_g.reg_mu);
}

/* What one round of the writer takes from the profiler under its lock. */
struct wround {
	uint64_t want; /* the flush request the round acknowledges */
	int quit, detach;
	struct nns_kv *kv;    /* metadata to write (the round owns it) */
	size_t ns;	      /* samples copied into ws->samples */
	struct nnst_gpu *gpu; /* GPU records (the round owns them) */
	size_t ngpu, ngclk;
	struct nnst_gpuclock gclk[NNS_GPUCLOCK_MAX];
};

static void take_round(struct nns_profiler *p, struct wstate *ws, struct wround *r)
{
	r->gpu = NULL;
	r->ns = r->ngpu = r->ngclk = 0;
	pthread_mutex_lock(&p->mu);
	r->want = p->flush_req;
	r->quit = p->quit;
	r->detach = p->detach_req && !p->detach_done;
	r->kv = p->meta;
	p->meta = NULL;
	if (ws->samples && p->nsamples) {
		r->ns = p->nsamples;
		memcpy(ws->samples, p->samples, r->ns * sizeof(*ws->samples));
		p->nsamples = 0;
	}
	nns_gpu_take_locked(p, &r->gpu, &r->ngpu, r->gclk, &r->ngclk);
	pthread_mutex_unlock(&p->mu);
}

/* The round is written: the flush (and detach) it took are done. */
static void ack_round(struct nns_profiler *p, const struct wround *r)
{
	if (r->detach)
		forget_current(p);
	pthread_mutex_lock(&p->mu);
	p->flush_done = r->want;
	if (r->detach)
		p->detach_done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* After a signal flush (sigflush.c): the file ends here when the process
 * is ending. The waiting handler is released by the collecting profiler's
 * writer (or any, when none collects), after its round. */
static void ack_signal(struct nns_profiler *p, uint64_t sig)
{
	int mine;

	if (atomic_load(&nns_g.sig_final) && !p->ended) {
		if (nns_keep_cpu_due(p))
			keep(p);
		nns_keep_close(p); /* the process ends: an unkept named file goes */
		if (!p->w.failed)
			nnst_writer_end(&p->w, NULL);
		p->ended = 1;
		nns_status_final(p);
	}
	pthread_mutex_lock(&nns_g.reg_mu);
	mine = nns_g.current == p || !nns_g.current;
	pthread_mutex_unlock(&nns_g.reg_mu);
	if (mine)
		atomic_store(&nns_g.sig_done, sig);
}

/* The writer's last act: everything published, the last counts, END. */
static void writer_close(struct nns_profiler *p, struct wstate *ws)
{
	int ended = p->ended;

	forget_current(p);
	if (nns_keep_cpu_due(p))
		keep(p);
	if (!p->w.failed && !p->ended) {
		struct nns_err e;
		uint64_t off = p->w.offset, seq = p->w.seq;

		if (nnst_writer_end(&p->w, &e) == 0) {
			p->ended = 1;
			if (p->handoff) { /* exec: the next image continues here (handoff.c) */
				p->handoff_ready = 1;
				p->handoff_off = off;
				p->handoff_seq = seq;
			}
		} else {
			io_failed(p, &e);
		}
	}
	if (!ended) /* else a signal flush ended the file and told it */
		nns_status_final(p);
	p->collector_cpu_ns = nns_keep_collector_cpu(p);
	atomic_store(&p->sampler_cpu_ns, 0);
	if (!p->handoff_ready) {
		nns_keep_close(p);
		nnst_writer_close(&p->w);
	}
	p->in_writer = 0;
	free(ws->snap);
	free(ws->spans);
	free(ws->samples);
	atomic_fetch_sub(&nns_g.writers_live, 1);
	pthread_mutex_lock(&p->mu);
	p->writer_done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void *writer_main(void *arg)
{
	struct nns_profiler *p = arg;
	struct wstate ws;
	int64_t now = mono(), last_partial = now, last_clock = now;
	uint64_t sig_seen = p->sig_seen0; /* a signal before this thread ran counts */

	p->in_writer = 1;
	memset(&ws, 0, sizeof(ws));
	ws.samples = malloc(NNS_SAMPLES_MAX * sizeof(*ws.samples));
	for (;;) {
		uint32_t seen = atomic_load_explicit(&nns_g.wake_seq, memory_order_seq_cst);
		uint64_t sig = atomic_load(&nns_g.sig_req);
		struct wround r;
		int partial;

		nns_cupti_tick(); /* queues a CUPTI clock point about every second */
		if (sig !=
		    sig_seen) /* SIGTERM/SIGINT: CUPTI's records first (atexit may not run) */
			nns_cupti_flush();
		take_round(p, &ws, &r);
		now = mono();
		partial = r.want != p->flush_done || r.quit || r.detach || sig != sig_seen ||
			  now - last_partial >= PARTIAL_NS;
		drain(p, &ws, partial);
		if (partial)
			last_partial = now;
		if (nns_keep_cpu_due(p))
			keep(p);
		write_pending(p, &ws, r.kv, r.ns);
		write_gpu(p, r.gpu, r.ngpu, r.gclk, r.ngclk);
		free(r.gpu);
		if (r.quit)
			write_gpu_dropped(p);
		if (now - last_clock >= CLOCK_NS || r.quit) {
			write_clock(p);
			last_clock = now;
		}
		if (sig != sig_seen) {
			ack_signal(p, sig);
			sig_seen = sig;
		}
		ack_round(p, &r);
		if (r.quit)
			break;

		/* Sleep until a block fills (its thread wakes us, once per block
		 * and only while we sleep) or the periodic work is due. */
		atomic_store_explicit(&nns_g.writer_idle, 1, memory_order_seq_cst);
		if (!any_full(p))
			nns_writer_sleep(seen, SLEEP_NS);
		atomic_store_explicit(&nns_g.writer_idle, 0, memory_order_relaxed);
	}
	writer_close(p, &ws);
	return NULL;
}

int nns_writer_start(struct nns_profiler *p, struct nns_err *err)
{
	sigset_t all, old;
	int rc;

	p->quit = 0;
	p->writer_done = 0;
	p->sig_seen0 = atomic_load(&nns_g.sig_req);
	sigfillset(&all);
	atomic_fetch_add(&nns_g.writers_live, 1);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->writer_th, NULL, writer_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		atomic_fetch_sub(&nns_g.writers_live, 1);
		return nns_err_set(err, NNS_ENOMEM, "starting the writer thread: %s", strerror(rc));
	}
	p->writer_up = 1;
	return NNS_OK;
}

void nns_writer_join(struct nns_profiler *p)
{
	if (!p->writer_up)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_mutex_unlock(&p->mu);
	nns_wake_writer();
	pthread_join(p->writer_th, NULL);
	p->writer_up = 0;
}

int nns_writer_join_timed(struct nns_profiler *p, int timeout_ms)
{
	struct timespec until;
	int rc = 0;

	if (!p->writer_up)
		return NNS_OK;
	until = clock_deadline(CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_mutex_unlock(&p->mu);
	nns_wake_writer();
	pthread_mutex_lock(&p->mu);
	while (!p->writer_done && rc == 0)
		rc = pthread_cond_timedwait(&p->cv, &p->mu, &until);
	pthread_mutex_unlock(&p->mu);
	if (rc)
		return NNS_EIO;
	pthread_join(p->writer_th, NULL);
	p->writer_up = 0;
	return NNS_OK;
}

/* Forgets what the buffers hold from before p attached (events that raced
 * with the previous profiler's stop), so p's file starts clean. */
void nns_writer_skip_stale_locked(struct nns_tbuf *t)
{
	uint32_t st;
	struct nns_block *b;

	while ((b = block_with_seq(t, t->wseq, &st))) {
		uint32_t n = atomic_load_explicit(&b->n, memory_order_acquire);

		if (st != NNS_BLK_FULL) {
			b->done = n;
			break;
		}
		b->done = 0;
		atomic_store_explicit(&b->n, 0, memory_order_relaxed);
		atomic_store_explicit(&b->state, NNS_BLK_FREE, memory_order_release);
		t->wseq++;
	}
}

int nns_writer_detach(struct nns_profiler *p, int timeout_ms)
{
	struct timespec until;
	int rc = 0;

	if (!p->writer_up) {
		forget_current(p);
		return NNS_OK;
	}
	until = clock_deadline(CLOCK_REALTIME, timeout_ms);
	pthread_mutex_lock(&p->mu);
	p->detach_req = 1;
	p->detach_done = 0;
	pthread_mutex_unlock(&p->mu);
	nns_wake_writer();
	pthread_mutex_lock(&p->mu);
	while (!p->detach_done && rc == 0)
		rc = pthread_cond_timedwait(&p->cv, &p->mu, &until);
	p->detach_req = 0;
	pthread_mutex_unlock(&p->mu);
	if (rc) /* the writer is stuck in I/O: it keeps the buffers (it may be using them) */
		return NNS_EIO;
	return NNS_OK;
}
