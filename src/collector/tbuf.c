/*
 * tbuf.c - per-thread event buffers (collector.h): the process-wide state
 * word, thread registration on a thread's first event, the block switch on
 * the slow path, the pool of pre-faulted block memory capped at
 * max_buffer_mb, thread exit (a pthread key destructor hands the partial
 * block to the writer), the writer's futex wake-up, and the reset of the
 * buffers in a forked child.
 */
#include "collector/collector.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

NNS_API uint32_t nns_hot_state[16] __attribute__((aligned(64)));
struct nns_state_line nns_state;
__thread struct nns_tbuf *nns_tls __attribute__((tls_model("initial-exec")));

struct nns_global nns_g = {
    .life_mu = PTHREAD_MUTEX_INITIALIZER,
    .reg_mu = PTHREAD_MUTEX_INITIALIZER,
    .max_mapped = (size_t)512 << 20,
    .blk_bytes = (size_t)512 << 10,
};

static pthread_once_t key_once = PTHREAD_ONCE_INIT;

pid_t nns_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

void nns_wake_writer(void)
{
	atomic_fetch_add_explicit(&nns_g.wake_seq, 1, memory_order_seq_cst);
	atomic_store_explicit(&nns_g.writer_idle, 0, memory_order_relaxed);
	syscall(SYS_futex, &nns_g.wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void nns_writer_sleep(uint32_t seen, long timeout_ns)
{
	struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};

	syscall(SYS_futex, &nns_g.wake_seq, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

/* ---- block memory ------------------------------------------------------------ */

/* A free region keeps its list link in its own first bytes. */
static void region_give_locked(void *mem, size_t bytes)
{
	struct nns_region *r = mem;

	r->mem = mem;
	r->bytes = bytes;
	r->next = nns_g.pool;
	nns_g.pool = r;
}

/* Unmaps pooled regions of other sizes until `bytes` more fit under the cap. */
static void pool_trim_locked(size_t bytes)
{
	struct nns_region **pp = &nns_g.pool;

	while (*pp && nns_g.mapped + bytes > nns_g.max_mapped) {
		struct nns_region *r = *pp;

		if (r->bytes == bytes) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		nns_g.mapped -= r->bytes;
		munmap(r->mem, r->bytes);
	}
}

/* A block of `bytes`, pre-faulted, or NULL when over the cap. */
static void *region_take(size_t bytes)
{
	struct nns_region **pp;
	void *mem = NULL;

	pthread_mutex_lock(&nns_g.reg_mu);
	for (pp = &nns_g.pool; *pp; pp = &(*pp)->next) {
		if ((*pp)->bytes == bytes) {
			mem = (*pp)->mem;
			*pp = (*pp)->next;
			break;
		}
	}
	if (!mem) {
		pool_trim_locked(bytes);
		if (nns_g.mapped + bytes > nns_g.max_mapped) {
			pthread_mutex_unlock(&nns_g.reg_mu);
			return NULL;
		}
		nns_g.mapped += bytes;
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
	if (!mem) {
		mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (mem == MAP_FAILED) {
			pthread_mutex_lock(&nns_g.reg_mu);
			nns_g.mapped -= bytes;
			pthread_mutex_unlock(&nns_g.reg_mu);
			return NULL;
		}
	}
	/* Touch every page: free when resident, and in a forked child it
	 * takes the copy-on-write faults here rather than on the hot path. */
	for (size_t off = 0; off < bytes; off += 4096)
		((volatile char *)mem)[off] = 0;
	return mem;
}

/* ---- registration and thread exit -------------------------------------------------- */

static void tb_thread_exit(void *arg);

static void make_key(void)
{
	nns_g.key_ok = pthread_key_create(&nns_g.key, tb_thread_exit) == 0;
}

static struct nns_tbuf *tb_register(void)
{
	struct nns_tbuf *t;
	void *mem[NNS_TBUF_BLOCKS];
	size_t bytes;
	int i, got = 0;

	pthread_once(&key_once, make_key);
	if (posix_memalign((void **)&t, 64, sizeof(*t)))
		return NULL;
	memset(t, 0, sizeof(*t));
	t->tid = nns_gettid();
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->name[sizeof(t->name) - 1] = '\0';
	pthread_mutex_lock(&nns_g.reg_mu);
	t->index = nns_g.next_index++;
	bytes = nns_g.blk_bytes;
	pthread_mutex_unlock(&nns_g.reg_mu);

	for (got = 0; got < NNS_TBUF_BLOCKS; got++)
		if (!(mem[got] = region_take(bytes)))
			break;
	if (got < NNS_TBUF_BLOCKS) { /* all or nothing: this thread's events are lost */
		pthread_mutex_lock(&nns_g.reg_mu);
		for (i = 0; i < got; i++)
			region_give_locked(mem[i], bytes);
		pthread_mutex_unlock(&nns_g.reg_mu);
		got = 0;
	} else {
		t->blk_bytes = bytes;
		for (i = 0; i < NNS_TBUF_BLOCKS; i++) {
			t->blk[i].ev = mem[i];
			t->blk[i].cap = (uint32_t)(bytes / sizeof(struct nnst_event));
		}
	}
	pthread_mutex_lock(&nns_g.reg_mu);
	t->next = nns_g.threads;
	nns_g.threads = t;
	pthread_mutex_unlock(&nns_g.reg_mu);
	if (nns_g.key_ok)
		pthread_setspecific(nns_g.key, t);
	nns_tls = t;
	return t;
}

void nns_tb_recycle_locked(struct nns_tbuf *t)
{
	for (int i = 0; i < NNS_TBUF_BLOCKS; i++)
		if (t->blk[i].ev)
			region_give_locked(t->blk[i].ev, t->blk_bytes);
	free(t);
}

static void unlink_locked(struct nns_tbuf *t)
{
	struct nns_tbuf **pp;

	for (pp = &nns_g.threads; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			return;
		}
	}
}

/* Thread exit: hand the partial block to the writer, which reaps the
 * buffer once it has written it; with no writer, reap now. */
static void tb_thread_exit(void *arg)
{
	struct nns_tbuf *t = arg;

	if (!t)
		return;
	if (nns_tls == t)
		nns_tls = NULL;
	pthread_mutex_lock(&nns_g.reg_mu);
	if (t->cur) {
		atomic_store_explicit(&t->cur->state, NNS_BLK_FULL, memory_order_seq_cst);
		t->cur = NULL;
	}
	t->ev = NULL;
	t->pos = t->cap = 0;
	if (!nns_g.current) {
		unlink_locked(t);
		nns_tb_recycle_locked(t);
	} else {
		atomic_store_explicit(&t->exited, 1, memory_order_release);
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
}

/* ---- the slow path ------------------------------------------------------------------ */

static void count_lost(struct nns_tbuf *t, uint32_t k)
{
	uint64_t v = atomic_load_explicit(&t->lost, memory_order_relaxed);

	atomic_store_explicit(&t->lost, v + k, memory_order_relaxed);
}

struct nns_tbuf *nns_tb_slow(uint32_t k)
{
	struct nns_tbuf *t;
	struct nns_block *b;

	if (NNS_UNLIKELY(atomic_load_explicit(&nns_g.fork_pending, memory_order_acquire)))
		nns_fork_resume();
	t = nns_tls;
	if (!t) {
		t = tb_register();
		if (!t) {
			atomic_fetch_add_explicit(&nns_g.lost_unreg, k, memory_order_relaxed);
			return NULL;
		}
	}
	if (t->ev && t->pos + k <= t->cap)
		return t;
	if (t->cur) { /* the current block is full: hand it to the writer */
		atomic_store_explicit(&t->cur->state, NNS_BLK_FULL, memory_order_seq_cst);
		t->cur = NULL;
		t->ev = NULL;
		t->pos = t->cap = 0;
		if (atomic_load_explicit(&nns_g.writer_idle, memory_order_seq_cst) &&
		    atomic_exchange_explicit(&nns_g.writer_idle, 0, memory_order_seq_cst))
			nns_wake_writer();
	}
	b = &t->blk[t->next_blk];
	if (b->cap >= k && atomic_load_explicit(&b->state, memory_order_acquire) == NNS_BLK_FREE) {
		atomic_store_explicit(&b->n, 0, memory_order_relaxed);
		b->seq = t->next_seq++;
		atomic_store_explicit(&b->state, NNS_BLK_CUR, memory_order_release);
		t->cur = b;
		t->ev = b->ev;
		t->pos = 0;
		t->cap = b->cap;
		t->pub = &b->n;
		t->next_blk = (t->next_blk + 1) % NNS_TBUF_BLOCKS;
		return t;
	}
	count_lost(t, k);
	return NULL;
}

/* ---- fork ------------------------------------------------------------------------------ */

void nns_tb_prefault(struct nns_tbuf *t)
{
	for (int i = 0; i < NNS_TBUF_BLOCKS; i++)
		for (size_t off = 0; t->blk[i].ev && off < t->blk_bytes; off += 4096)
			((volatile char *)t->blk[i].ev)[off] = 0;
}

void nns_tb_after_fork_child(void)
{
	struct nns_tbuf **pp, *self = nns_tls;

	pthread_mutex_lock(&nns_g.reg_mu);
	pp = &nns_g.threads;
	while (*pp) {
		struct nns_tbuf *t = *pp;

		if (t != self) { /* its thread does not exist here */
			*pp = t->next;
			nns_tb_recycle_locked(t);
			continue;
		}
		/* The parent writes what these blocks held; start empty. */
		for (int i = 0; i < NNS_TBUF_BLOCKS; i++) {
			atomic_store_explicit(&t->blk[i].n, 0, memory_order_relaxed);
			atomic_store_explicit(&t->blk[i].state, NNS_BLK_FREE, memory_order_relaxed);
			t->blk[i].done = 0;
		}
		t->cur = NULL;
		t->ev = NULL;
		t->pos = t->cap = 0;
		t->wseq = t->next_seq;
		t->tid = nns_gettid();
		t->announced_gen = 0;
		atomic_store_explicit(&t->lost, 0, memory_order_relaxed);
		t->lost_base = t->lost_written = 0;
		pp = &t->next;
	}
	pthread_mutex_unlock(&nns_g.reg_mu);
}
