/*
 * kineto_ring.c - the inflated bytes of one gzip input, shared by several
 * parsers that read it at different offsets (kineto_gzpar.c).
 *
 * A thread inflates the gzip source (kgz_fill) into blocks of KRING_BLK
 * bytes, block k holding inflated bytes [k*KRING_BLK, (k+1)*KRING_BLK).
 * Each reader (a ksrc of type KSRC_RING) has a slot holding the lowest
 * offset it may still read (its parser's window start, ksrc.hold); a block
 * below every slot is recycled. The thread stays at most `keep` bytes
 * ahead of the lowest slot, unless a reader waits for bytes: then it
 * inflates on, so that a reader far ahead never waits for one behind it.
 * Memory is thus what the readers are apart (bounded by the caller: a
 * speculative reader has a horizon it may not read past) plus `keep`.
 *
 * The stream's end and its failure (corrupt or cut gzip, with the bytes
 * before the damage delivered first) reach a reader at the offset where
 * they happened, as ksrc_read on the gzip source itself would deliver
 * them. A read past the reader's horizon, below the bytes kept, or after
 * kring_stop fails with NNS_EINVAL (a speculative chunk then gives up).
 */
#include "kineto_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KRING_BLK ((int64_t)1 << 20)
#define KRING_FREE 16 /* recycled blocks kept for reuse */

struct kring {
	struct ksrc *gz;
	int64_t keep;
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **blk;	 /* blk[k]: block k, NULL once recycled */
	int64_t *comp;	 /* comp[k]: compressed bytes consumed after block k */
	size_t nblk_cap; /* room in blk and comp */
	int64_t k0;	 /* first block not yet recycled */
	int64_t end;	 /* inflated bytes so far */
	int fin, err, stop, waiting;
	struct nns_err errd;
	int64_t floor[KRING_SLOTS]; /* INT64_MAX: idle */
	char *freev[KRING_FREE];
	int nfree;
};

static int64_t low_floor(const struct kring *r)
{
	int64_t lo = INT64_MAX;
	int i;

	for (i = 0; i < KRING_SLOTS; i++)
		if (r->floor[i] < lo)
			lo = r->floor[i];
	return lo;
}

/* Recycles the blocks below every reader (mutex held). */
static void recycle(struct kring *r)
{
	int64_t lo = low_floor(r), kend = r->end / KRING_BLK;

	while (r->k0 < kend && (r->k0 + 1) * KRING_BLK <= lo) {
		char *b = r->blk[r->k0];
		r->blk[r->k0++] = NULL;
		if (r->nfree < KRING_FREE)
			r->freev[r->nfree++] = b;
		else
			free(b);
	}
}

/* Room for block k in the index (mutex held). */
static int grow(struct kring *r, int64_t k)
{
	size_t n = r->nblk_cap ? r->nblk_cap : 64;
	char **b;
	int64_t *c;

	if ((size_t)k < r->nblk_cap)
		return 0;
	while (n <= (size_t)k)
		n *= 2;
	b = realloc(r->blk, n * sizeof(*b));
	if (!b)
		return -1;
	r->blk = b;
	c = realloc(r->comp, n * sizeof(*c));
	if (!c)
		return -1;
	r->comp = c;
	memset(r->blk + r->nblk_cap, 0, (n - r->nblk_cap) * sizeof(*b));
	r->nblk_cap = n;
	return 0;
}

static void finish(struct kring *r, int rc, const struct nns_err *e)
{
	r->fin = 1;
	r->err = rc;
	if (rc)
		r->errd = *e;
}

static void *inflater(void *arg)
{
	struct kring *r = arg;
	struct nns_err e;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		int64_t k = r->end / KRING_BLK, comp = 0;
		size_t got = 0;
		char *b;
		int rc;

		recycle(r);
		while (!r->stop && r->end - r->k0 * KRING_BLK >= r->keep && !r->waiting) {
			pthread_cond_wait(&r->cv, &r->mu);
			recycle(r);
		}
		if (r->stop)
			break;
		b = r->nfree ? r->freev[--r->nfree] : malloc((size_t)KRING_BLK);
		if (!b || grow(r, k)) {
			free(b);
			nns_err_set(&e, NNS_ENOMEM, "out of memory inflating the gzip stream");
			finish(r, NNS_ENOMEM, &e);
			break;
		}
		pthread_mutex_unlock(&r->mu);
		nns_err_clear(&e);
		rc = kgz_fill(r->gz, b, (size_t)KRING_BLK, &got, &comp, &e);
		pthread_mutex_lock(&r->mu);
		if (got) {
			r->blk[k] = b;
			r->comp[k] = comp;
			r->end += (int64_t)got;
		} else if (r->nfree < KRING_FREE) {
			r->freev[r->nfree++] = b;
		} else {
			free(b);
		}
		if (rc || got < (size_t)KRING_BLK)
			finish(r, rc, &e); /* a short block: the stream ended */
		pthread_cond_broadcast(&r->cv);
		if (r->fin)
			break;
	}
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int kring_open(struct kring **out, struct ksrc *gz, int64_t keep)
{
	struct kring *r = calloc(1, sizeof(*r));
	int i;

	*out = NULL;
	if (!r)
		return NNS_ENOMEM;
	r->gz = gz;
	r->keep = keep > KRING_BLK ? keep : KRING_BLK;
	for (i = 0; i < KRING_SLOTS; i++)
		r->floor[i] = INT64_MAX;
	r->floor[0] = 0; /* the first reader's, from the start */
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&r->th, NULL, inflater, r)) {
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		free(r);
		return NNS_ENOMEM;
	}
	r->started = 1;
	*out = r;
	return NNS_OK;
}

void kring_reader(struct kring *r, struct ksrc *s, int slot, int64_t pos, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->type = KSRC_RING;
	s->fd = -1;
	s->ring = r;
	s->slot = slot;
	s->pos = s->hold = pos;
	s->horizon = INT64_MAX;
	s->raw_size = r->gz->raw_size;
	s->name = name;
	pthread_mutex_lock(&r->mu);
	r->floor[slot] = pos;
	pthread_mutex_unlock(&r->mu);
}

void kring_idle(struct kring *r, int slot)
{
	pthread_mutex_lock(&r->mu);
	r->floor[slot] = INT64_MAX;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

int kring_ended_before(struct kring *r, int64_t off)
{
	int ended;

	pthread_mutex_lock(&r->mu);
	while (off >= r->end && !r->fin && !r->stop) {
		r->waiting++;
		pthread_cond_broadcast(&r->cv);
		pthread_cond_wait(&r->cv, &r->mu);
		r->waiting--;
	}
	ended = r->fin && off >= r->end;
	pthread_mutex_unlock(&r->mu);
	return ended;
}

static int refuse(struct ksrc *s, struct nns_err *err, const char *why)
{
	return nns_err_set(err, NNS_EINVAL, "%s at inflated byte %lld", why, (long long)s->pos);
}

int kring_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err)
{
	struct kring *r = s->ring;
	size_t n = 0;
	int rc = 0;

	*got = 0;
	if (s->pos >= s->horizon)
		return refuse(s, err, "a speculative chunk read past its horizon");
	pthread_mutex_lock(&r->mu);
	r->floor[s->slot] = s->hold < s->pos ? s->hold : s->pos;
	while (n < cap) {
		int64_t k, in, m;
		const char *b;

		while (s->pos >= r->end && !r->fin && !r->stop) {
			r->waiting++;
			pthread_cond_broadcast(&r->cv);
			pthread_cond_wait(&r->cv, &r->mu);
			r->waiting--;
		}
		if (r->stop) {
			rc = refuse(s, err, "the parse was stopped");
			break;
		}
		if (s->pos >= r->end) { /* the stream ended here, or failed */
			if ((rc = r->err) && err)
				*err = r->errd;
			break;
		}
		k = s->pos / KRING_BLK;
		if (k < r->k0) {
			rc = refuse(s, err, "bytes already released read");
			break;
		}
		b = r->blk[k];
		in = s->pos - k * KRING_BLK;
		m = (k + 1) * KRING_BLK < r->end ? KRING_BLK - in : r->end - s->pos;
		if (m > (int64_t)(cap - n))
			m = (int64_t)(cap - n);
		if (m > s->horizon - s->pos)
			m = s->horizon - s->pos;
		if (s->counts && r->comp[k] > s->consumed)
			s->consumed = r->comp[k];
		/* block k stays: this slot's floor is at or below pos */
		pthread_mutex_unlock(&r->mu);
		memcpy(dst + n, b + in, (size_t)m);
		n += (size_t)m;
		s->pos += m;
		pthread_mutex_lock(&r->mu);
		if (s->pos >= s->horizon || s->pos >= r->end)
			break; /* what there is now; the next call waits */
	}
	pthread_mutex_unlock(&r->mu);
	*got = n;
	return n ? 0 : rc;
}

void kring_stop(struct kring *r)
{
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void kring_close(struct kring *r)
{
	int64_t k;
	int i;

	if (!r)
		return;
	kring_stop(r);
	if (r->started)
		pthread_join(r->th, NULL);
	for (k = r->k0; k < (int64_t)r->nblk_cap; k++)
		free(r->blk[k]);
	for (i = 0; i < r->nfree; i++)
		free(r->freev[i]);
	free(r->blk);
	free(r->comp);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}
