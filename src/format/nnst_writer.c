/*
 * nnst_writer.c - writes .nnst files: header, CRC-protected chunks and the
 * payload records of nnst.h (see nnst_writer.h, docs/FORMAT.md).
 * Owned by the collector; the analyzer links it but never calls it.
 *
 * CRC32 is zlib's crc32() (the polynomial nnst_crc32 implements), called
 * directly so that the writer does not depend on the reader's objects.
 */
#include "format/nnst_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

_Static_assert(sizeof(struct nnst_header) == 64, "nnst_header is 64 bytes");
_Static_assert(sizeof(struct nnst_chunk_header) == 24, "nnst_chunk_header is 24 bytes");
_Static_assert(sizeof(struct nnst_event) == 32, "nnst_event is 32 bytes");
_Static_assert(sizeof(struct nnst_clock) == 24, "nnst_clock is 24 bytes");
_Static_assert(sizeof(struct nnst_sample) == 64, "nnst_sample is 64 bytes");
_Static_assert(sizeof(struct nnst_gpu) == 80, "nnst_gpu is 80 bytes");
_Static_assert(sizeof(struct nnst_gpuclock) == 16, "nnst_gpuclock is 16 bytes");

#define NNST_MAX_IOV 16

void nnst_header_init(struct nnst_header *h, int64_t pid, uint64_t flags, int64_t realtime_ns,
		      int64_t mono_ns, uint64_t tsc)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, NNST_MAGIC, 8);
	h->version = NNST_VERSION;
	h->min_version = NNST_MIN_VERSION;
	h->header_size = sizeof(*h);
	h->pid = pid;
	h->start_realtime_ns = realtime_ns;
	h->start_mono_ns = mono_ns;
	h->start_tsc = tsc;
	h->flags = flags;
}

static int fail(struct nnst_writer *w, int e, struct nns_err *err)
{
	if (!w->failed)
		w->failed = e ? e : EIO;
	return nns_err_set(err, NNS_EIO, "writing the trace at byte %llu: %s",
			   (unsigned long long)w->offset, strerror(w->failed));
}

/* writev() until everything is written (short writes, EINTR). iov is
 * consumed. */
static int write_all(struct nnst_writer *w, struct iovec *iov, int niov, struct nns_err *err)
{
	while (niov > 0) {
		ssize_t k = writev(w->fd, iov, niov);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return fail(w, errno, err);
		}
		if (k == 0)
			return fail(w, EIO, err);
		w->offset += (uint64_t)k;
		while (niov > 0 && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			niov--;
		}
		if (niov > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return NNS_OK;
}

int nnst_writer_init(struct nnst_writer *w, int fd, const struct nnst_header *h,
		     struct nns_err *err)
{
	struct iovec iov = {(void *)h, sizeof(*h)};

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	return write_all(w, &iov, 1, err);
}

int nnst_writer_chunk(struct nnst_writer *w, uint32_t type, const struct iovec *iov, int niov,
		      struct nns_err *err)
{
	struct iovec v[NNST_MAX_IOV + 1];
	struct nnst_chunk_header ch;
	uint64_t len = 0;
	uLong crc = crc32(0L, Z_NULL, 0);

	if (w->failed)
		return nns_err_set(err, NNS_EIO, "the trace file failed earlier: %s",
				   strerror(w->failed));
	if (niov < 0 || niov > NNST_MAX_IOV)
		return nns_err_set(err, NNS_EINVAL, "too many payload parts (%d)", niov);
	for (int i = 0; i < niov; i++)
		len += iov[i].iov_len;
	if (len > NNST_MAX_CHUNK)
		return nns_err_set(err, NNS_EINVAL, "chunk payload of %llu bytes is over the limit",
				   (unsigned long long)len);
	for (int i = 0; i < niov; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t n = iov[i].iov_len;

		while (n > 0) { /* zlib takes uInt lengths */
			uInt part = n > (1u << 30) ? (1u << 30) : (uInt)n;

			crc = crc32(crc, p, part);
			p += part;
			n -= part;
		}
		v[i + 1] = iov[i];
	}
	ch.magic = NNST_CHUNK_MAGIC;
	ch.type = type;
	ch.length = (uint32_t)len;
	ch.crc32 = (uint32_t)crc;
	ch.seq = w->seq;
	v[0].iov_base = &ch;
	v[0].iov_len = sizeof(ch);
	if (write_all(w, v, niov + 1, err))
		return NNS_EIO;
	w->seq++;
	return NNS_OK;
}

int nnst_writer_chunk1(struct nnst_writer *w, uint32_t type, const void *payload, size_t len,
		       struct nns_err *err)
{
	struct iovec iov = {(void *)payload, len};

	return nnst_writer_chunk(w, type, &iov, len ? 1 : 0, err);
}

int nnst_writer_end(struct nnst_writer *w, struct nns_err *err)
{
	return nnst_writer_chunk(w, NNST_CHUNK_END, NULL, 0, err);
}

void nnst_writer_close(struct nnst_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

int nnst_buf_init(struct nnst_buf *b, size_t cap)
{
	b->p = malloc(cap);
	b->n = 0;
	b->cap = b->p ? cap : 0;
	return b->p ? NNS_OK : NNS_ENOMEM;
}

void nnst_buf_release(struct nnst_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int nnst_buf_put(struct nnst_buf *b, const void *p, size_t n)
{
	if (n > b->cap - b->n)
		return -1;
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

int nnst_buf_u32(struct nnst_buf *b, uint32_t v)
{
	return nnst_buf_put(b, &v, sizeof(v));
}

int nnst_buf_i64(struct nnst_buf *b, int64_t v)
{
	return nnst_buf_put(b, &v, sizeof(v));
}

int nnst_buf_u64(struct nnst_buf *b, uint64_t v)
{
	return nnst_buf_put(b, &v, sizeof(v));
}

int nnst_buf_lstr(struct nnst_buf *b, const char *s, size_t len)
{
	if (len > UINT32_MAX || 4 + len > nnst_buf_room(b))
		return -1;
	nnst_buf_u32(b, (uint32_t)len);
	return nnst_buf_put(b, s, len);
}

int nnst_buf_string(struct nnst_buf *b, uint32_t id, const char *s, size_t len)
{
	if (len > UINT32_MAX || 8 + len > nnst_buf_room(b))
		return -1;
	nnst_buf_u32(b, id);
	return nnst_buf_lstr(b, s, len);
}

int nnst_buf_thread(struct nnst_buf *b, uint32_t thread, int64_t tid, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (16 + len > nnst_buf_room(b))
		return -1;
	nnst_buf_u32(b, thread);
	nnst_buf_i64(b, tid);
	return nnst_buf_lstr(b, name ? name : "", len);
}

int nnst_buf_meta(struct nnst_buf *b, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = value ? strlen(value) : 0;

	if (8 + kl + vl > nnst_buf_room(b))
		return -1;
	nnst_buf_lstr(b, key, kl);
	return nnst_buf_lstr(b, value ? value : "", vl);
}
