/*
 * snapfile.c - writing and mapping section files (snapfile.h).
 */
#include "common/snapfile.h"
#include "common/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAP_MAGIC "NNSSNAP1"
#define SNAP_END "NNSSNEND"
#define SNAP_VERSION 1u
#define SNAP_ALIGN 64u
#define SNAP_HEAD 64u

struct snap_head {
	char magic[8];
	uint32_t version, order; /* order: 0x01020304 as written */
	uint64_t sig, key[2];
	char pad[SNAP_HEAD - 40];
};

struct snap_tail {
	char magic[8];
	uint64_t nsecs, table, total, sig, key[2];
	char pad[SNAP_HEAD - 56];
};

void snap_map_release(struct snap_map *mp)
{
	if (mp->base)
		munmap(mp->base, mp->len);
	mp->base = NULL;
	mp->len = 0;
}

/* ---- writing ------------------------------------------------------------ */

static void put(struct snapw *w, const void *p, size_t n, uint64_t at)
{
	const char *s = p;

	while (w->rc == NNS_OK && n > 0) {
		ssize_t k;

		if (w->cancel && atomic_load(w->cancel)) {
			w->rc = nns_err_set(w->err, NNS_EINVAL, "writing the snapshot: cancelled");
			return;
		}
		/* 64 MiB at a time, so that a cancel is seen soon */
		k = pwrite(w->fd, s, n > ((size_t)64 << 20) ? (size_t)64 << 20 : n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->rc = nns_err_set(w->err, NNS_EIO, "writing the snapshot: %s",
					    k < 0 ? strerror(errno) : "no space");
			return;
		}
		s += k;
		n -= (size_t)k;
		at += (uint64_t)k;
	}
}

void snapw_begin(struct snapw *w, int fd, uint64_t sig, const uint64_t key[2], struct nns_err *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->sig = sig;
	w->key[0] = key[0];
	w->key[1] = key[1];
	w->err = err;
	w->off = SNAP_HEAD;
	w->rc = NNS_OK;
}

void snapw_add(struct snapw *w, uint32_t tag, const void *p, size_t bytes)
{
	struct snap_sec *s;

	if (w->rc != NNS_OK)
		return;
	if (vec_reserve_raw((void **)&w->secs, &w->cap, w->nsecs + 1, sizeof(*w->secs))) {
		w->rc = nns_err_set(w->err, NNS_ENOMEM, "writing the snapshot: out of memory");
		return;
	}
	s = &w->secs[w->nsecs++];
	memset(s, 0, sizeof(*s));
	s->tag = tag;
	s->off = (w->off + SNAP_ALIGN - 1) / SNAP_ALIGN * SNAP_ALIGN;
	s->bytes = bytes;
	if (bytes)
		put(w, p, bytes, s->off);
	w->off = s->off + bytes;
}

int snapw_end(struct snapw *w)
{
	struct snap_head h;
	struct snap_tail t;
	uint64_t table = (w->off + SNAP_ALIGN - 1) / SNAP_ALIGN * SNAP_ALIGN;
	int rc;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SNAP_MAGIC, 8);
	h.version = SNAP_VERSION;
	h.order = 0x01020304u;
	h.sig = w->sig;
	h.key[0] = w->key[0];
	h.key[1] = w->key[1];
	memset(&t, 0, sizeof(t));
	memcpy(t.magic, SNAP_END, 8);
	t.nsecs = w->nsecs;
	t.table = table;
	t.total = table + w->nsecs * sizeof(struct snap_sec) + sizeof(t);
	t.sig = w->sig;
	t.key[0] = w->key[0];
	t.key[1] = w->key[1];
	put(w, w->secs, w->nsecs * sizeof(struct snap_sec), table);
	put(w, &t, sizeof(t), table + w->nsecs * sizeof(struct snap_sec));
	/* the header last: a file cut before it is no snapshot at all */
	put(w, &h, sizeof(h), 0);
	rc = w->rc;
	free(w->secs);
	w->secs = NULL;
	w->nsecs = w->cap = 0;
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

static int refuse(struct snapr *r, struct nns_err *err, const char *why)
{
	snap_map_release(&r->map);
	return nns_err_set(err, NNS_EFORMAT, "snapshot: %s", why);
}

int snapr_open(struct snapr *r, int fd, uint64_t sig, const uint64_t key[2], struct nns_err *err)
{
	struct snap_head h;
	struct snap_tail t;
	struct stat st;
	void *base;

	memset(r, 0, sizeof(*r));
	if (fstat(fd, &st) != 0)
		return nns_err_set(err, NNS_EIO, "snapshot: %s", strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)(2 * SNAP_HEAD))
		return nns_err_set(err, NNS_EFORMAT, "snapshot: too short");
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2)
		return nns_err_set(err, NNS_EFORMAT, "snapshot: too large");
	/* writable but private: nothing writes a finalized model, and should
	 * something ever do, it changes its own copy of a page, never the file,
	 * and never faults */
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		return nns_err_set(err, NNS_EIO, "snapshot: cannot map it: %s", strerror(errno));
	r->map.base = base;
	r->map.len = (size_t)st.st_size;
	r->base = base;
	/* copied out: a file cut short leaves the trailer unaligned */
	memcpy(&h, base, sizeof(h));
	memcpy(&t, (const char *)base + r->map.len - sizeof(t), sizeof(t));
	if (memcmp(h.magic, SNAP_MAGIC, 8) || h.version != SNAP_VERSION || h.order != 0x01020304u)
		return refuse(r, err, "not a snapshot of this format");
	if (memcmp(t.magic, SNAP_END, 8) || t.total != r->map.len)
		return refuse(r, err, "cut short");
	if (h.sig != sig || t.sig != sig)
		return refuse(r, err, "written by another build");
	if (h.key[0] != key[0] || h.key[1] != key[1] || t.key[0] != key[0] || t.key[1] != key[1])
		return refuse(r, err, "made from another version of the source");
	if (t.table % 8 || t.table < SNAP_HEAD || t.nsecs > (1u << 20) ||
	    t.table + t.nsecs * sizeof(struct snap_sec) + sizeof(t) != r->map.len)
		return refuse(r, err, "its section table is damaged");
	r->tab = (const struct snap_sec *)((const char *)base + t.table);
	r->nsecs = (uint32_t)t.nsecs;
	for (uint32_t i = 0; i < r->nsecs; i++)
		if (r->tab[i].off < SNAP_HEAD || r->tab[i].off % SNAP_ALIGN ||
		    r->tab[i].bytes > t.table - r->tab[i].off)
			return refuse(r, err, "a section lies outside the file");
	return NNS_OK;
}

const void *snapr_next(struct snapr *r, uint32_t tag, size_t elem, size_t *count,
		       struct nns_err *err)
{
	const struct snap_sec *s;

	if (r->next >= r->nsecs) {
		nns_err_set(err, NNS_EFORMAT, "snapshot: section %u missing", (unsigned)tag);
		return NULL;
	}
	s = &r->tab[r->next];
	if (s->tag != tag || (elem && s->bytes % elem)) {
		nns_err_set(err, NNS_EFORMAT, "snapshot: section %u is not %u of %zu-byte rows",
			    (unsigned)r->next, (unsigned)tag, elem);
		return NULL;
	}
	r->next++;
	if (count)
		*count = elem ? (size_t)(s->bytes / elem) : (size_t)s->bytes;
	return r->base + s->off;
}
