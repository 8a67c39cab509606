/*
 * nnst_tail.c - following a growing .nnst file (nnst_tail.h).
 *
 * Each poll fstat()s the descriptor and pread()s from the offset of the
 * first chunk not yet handed over to the end of the file as it is now, in
 * pieces of at most TAIL_READ bytes, into one buffer: complete chunks are
 * checked (magic, length, CRC: the rules of nnst_reader.c) and handed
 * over; an incomplete one at the end stays in the buffer (its bytes are
 * not read again: the next poll reads on from where this one stopped).
 */
#include "importers/nnst_tail.h"

#include "common/fs.h"
#include "common/le.h"
#include "common/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAIL_READ (4u << 20) /* bytes per read() */

struct nnst_tail {
	int fd;
	char *path;
	struct nnst_header hdr;
	int have_hdr;
	int state; /* 0 following, 1 ended, < 0 sticky error */
	struct nns_err sticky;
	uint8_t *buf; /* buf[head..have): bytes from `offset` on, read but
			 not handed over yet */
	size_t head, have, cap;
	struct nnst_tail_stats st;
};

int nnst_tail_open(struct nnst_tail **out, const struct fs_root *root, const char *path,
		   struct nns_err *err)
{
	struct nnst_tail *t;
	int fd;

	*out = NULL;
	fd = root ? fs_open_beneath(root, path, O_RDONLY | O_NONBLOCK, 0)
		  : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fs_open_error(err, errno == ENOENT ? NNS_ENOTFOUND : NNS_EIO, root, path,
				     errno);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		close(fd);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	}
	t->fd = fd;
	*out = t;
	return NNS_OK;
}

static int fail(struct nnst_tail *t, struct nns_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct nnst_tail *t, struct nns_err *err, int code, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	t->state = code;
	nns_err_set(&t->sticky, code, "%s: %s", t->path, what);
	return nns_err_set(err, code, "%s", t->sticky.msg);
}

/* Bytes read and not handed over. */
static size_t pending(const struct nnst_tail *t)
{
	return t->have - t->head;
}

/* Reads up to `want` more bytes into the buffer: how many (0 at the end),
 * -1 with errno, -2 out of memory. */
static ssize_t read_more(struct nnst_tail *t, size_t want)
{
	ssize_t k;

	if (t->head) { /* what was handed over goes: once per read */
		memmove(t->buf, t->buf + t->head, pending(t));
		t->have -= t->head;
		t->head = 0;
	}
	if (vec_reserve_raw((void **)&t->buf, &t->cap, t->have + want, 1))
		return -2;
	do
		k = pread(t->fd, t->buf + t->have, want, (off_t)(t->st.offset + t->have));
	while (k < 0 && errno == EINTR);
	if (k > 0) {
		t->have += (size_t)k;
		t->st.bytes_read += (uint64_t)k;
		t->st.last_bytes += (uint64_t)k;
	}
	return k;
}

/* The first n pending bytes were handed over. */
static void consume(struct nnst_tail *t, size_t n)
{
	t->head += n;
	t->st.offset += n;
}

static int header(struct nnst_tail *t, struct nns_err *err)
{
	char msg[256];
	int rc;

	if (pending(t) < NNST_HEADER_SIZE)
		return NNS_OK; /* not written yet */
	rc = nnst_header_parse(&t->hdr, t->buf + t->head, pending(t), msg, sizeof(msg));
	if (rc)
		return fail(t, err, rc, "%s", msg);
	if (pending(t) < t->hdr.header_size)
		return NNS_OK;
	t->have_hdr = 1;
	consume(t, t->hdr.header_size);
	return NNS_OK;
}

/* Hands over the complete chunks at the head of the buffer. */
static int chunks(struct nnst_tail *t, nnst_tail_fn fn, void *arg, struct nns_err *err)
{
	while (t->state == 0 && pending(t) >= NNST_CHUNK_HEADER_SIZE) {
		const uint8_t *h = t->buf + t->head;
		uint32_t type = le32(h + 4), len = le32(h + 8), crc = le32(h + 12);
		int rc;

		if (le32(h) != NNST_CHUNK_MAGIC)
			return fail(t, err, NNS_ETRUNC,
				    "byte %" PRIu64 ": no chunk magic (damaged data)",
				    t->st.offset);
		if (len > NNST_MAX_CHUNK)
			return fail(t, err, NNS_ETRUNC,
				    "byte %" PRIu64 ": chunk length %" PRIu32
				    " is over the %u-byte limit (damaged data)",
				    t->st.offset, len, NNST_MAX_CHUNK);
		if (pending(t) - NNST_CHUNK_HEADER_SIZE < len)
			return NNS_OK; /* still being written */
		if (nnst_crc32(0, h + NNST_CHUNK_HEADER_SIZE, len) != crc)
			return fail(t, err, NNS_ETRUNC,
				    "byte %" PRIu64 ": chunk CRC mismatch (damaged data)",
				    t->st.offset);
		rc = fn ? fn(arg, type, h + NNST_CHUNK_HEADER_SIZE, len) : NNS_OK;
		t->st.chunks++;
		consume(t, NNST_CHUNK_HEADER_SIZE + (size_t)len);
		if (type == NNST_CHUNK_END)
			t->state = 1;
		if (rc)
			return nns_err_set(
			    err, rc, "%s: byte %" PRIu64 ": the chunk's records were not all kept",
			    t->path, t->st.offset);
	}
	return NNS_OK;
}

int nnst_tail_poll(struct nnst_tail *t, nnst_tail_fn fn, void *arg, struct nns_err *err)
{
	struct stat st;
	int rc;

	t->st.polls++;
	t->st.last_bytes = 0;
	if (t->state < 0)
		return nns_err_set(err, t->state, "%s", t->sticky.msg);
	if (fstat(t->fd, &st) != 0)
		return fail(t, err, NNS_EIO, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(t, err, NNS_EFORMAT, "not a regular file");
	t->st.size = (int64_t)st.st_size;
	t->st.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if ((uint64_t)st.st_size < t->st.offset + pending(t))
		return fail(t, err, NNS_EFORMAT,
			    "the file shrank to %lld bytes after %" PRIu64
			    " were read (replaced or truncated)",
			    (long long)st.st_size, t->st.offset + pending(t));
	while (t->state == 0) {
		uint64_t left = (uint64_t)st.st_size - t->st.offset - pending(t);
		ssize_t k;

		if (left == 0)
			break;
		k = read_more(t, left < TAIL_READ ? (size_t)left : TAIL_READ);
		if (k == -2)
			return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", t->path);
		if (k < 0)
			return fail(t, err, NNS_EIO, "read error: %s", strerror(errno));
		if (k == 0)
			break;
		if (!t->have_hdr && (rc = header(t, err)))
			return rc;
		if (t->have_hdr && (rc = chunks(t, fn, arg, err)))
			return rc;
	}
	t->st.ended = t->state == 1;
	return NNS_OK;
}

const struct nnst_tail_stats *nnst_tail_stats(const struct nnst_tail *t)
{
	return &t->st;
}

const struct nnst_header *nnst_tail_header(const struct nnst_tail *t)
{
	return t->have_hdr ? &t->hdr : NULL;
}

void nnst_tail_close(struct nnst_tail *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->buf);
	free(t->path);
	free(t);
}
