/*
 * nnst_reader.c - reading .nnst traces chunk by chunk (nnst.h).
 *
 * The reader trusts no length in the file: the header must carry the
 * magic, a version this reader understands (min_version <= NNST_VERSION)
 * and a sane header_size; every chunk must carry the chunk magic, a length
 * within NNST_MAX_CHUNK and within what is left of the file, and a payload
 * whose CRC32 matches. The first chunk that fails any of this (or a file
 * that stops inside a chunk) ends the reading with NNS_ETRUNC and a message
 * naming the byte offset of that chunk; everything before it has been
 * returned already. The error is sticky: later calls return it again.
 * Unknown chunk types are returned as they are (the importer skips them),
 * so that newer writers can add chunk types older readers pass over.
 *
 * Integers are decoded as little-endian whatever the host. One payload
 * buffer is reused (grown up to NNST_MAX_CHUNK), so memory stays bounded
 * by the largest chunk.
 *
 * Linked into libnnscope.so too:
 * libc only, no analyzer dependencies.
 */
#include "format/nnst.h"
#include "nnscope.h"
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

struct nnst_reader {
	FILE *f;
	struct nnst_header hdr;
	uint64_t off; /* offset of the next chunk header */
	int64_t size; /* file size, -1 if unknown (not a regular file) */
	uint8_t *buf; /* payload buffer */
	size_t cap;
	int state;     /* 0 reading, 1 clean end, < 0 sticky error */
	char msg[256]; /* the sticky error's message */
};

static void put_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Reads up to n bytes; returns how many were read (short at end of file). */
static size_t read_full(FILE *f, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		size_t k = fread((char *)buf + got, 1, n - got, f);

		if (k == 0)
			break;
		got += k;
	}
	return got;
}

int nnst_header_parse(struct nnst_header *h, const uint8_t *b, size_t got, char *err, size_t errlen)
{

	if (got < 8 || memcmp(b, NNST_MAGIC, 8) != 0) {
		put_err(err, errlen, "not an nnscope trace (no \"%s\" magic at byte 0)",
			NNST_MAGIC);
		return NNS_EFORMAT;
	}
	if (got < NNST_HEADER_SIZE) {
		put_err(err, errlen,
			"byte %zu: the %d-byte file header is cut short: the trace was never "
			"written past its start",
			got, NNST_HEADER_SIZE);
		return NNS_EFORMAT;
	}
	memcpy(h->magic, b, 8);
	h->version = le16(b + 8);
	h->min_version = le16(b + 10);
	h->header_size = le32(b + 12);
	h->pid = (int64_t)le64(b + 16);
	h->start_realtime_ns = (int64_t)le64(b + 24);
	h->start_mono_ns = (int64_t)le64(b + 32);
	h->start_tsc = le64(b + 40);
	h->flags = le64(b + 48);
	h->reserved = le64(b + 56);
	if (h->min_version > NNST_VERSION) {
		put_err(err, errlen,
			"written by a newer nnscope: its format needs a newer reader than this "
			"nnscope (which reads format version %d); upgrade nnscope to read it",
			NNST_VERSION);
		return NNS_EFORMAT;
	}
	if (h->version == 0 || h->min_version > h->version) {
		put_err(err, errlen,
			"bad format version at byte 8 (a version >= 1 and >= min_version "
			"expected)");
		return NNS_EFORMAT;
	}
	if (h->header_size < NNST_HEADER_SIZE || h->header_size > NNST_HEADER_MAX) {
		put_err(err, errlen, "bad header_size at byte 12 (%d .. %u expected)",
			NNST_HEADER_SIZE, NNST_HEADER_MAX);
		return NNS_EFORMAT;
	}
	return NNS_OK;
}

int nnst_reader_open(struct nnst_reader **out, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0) {
		int e = errno;

		put_err(err, errlen, "cannot open: %s", strerror(e));
		return e == ENOENT ? NNS_ENOTFOUND : NNS_EIO;
	}
	return nnst_reader_fdopen(out, fd, err, errlen);
}

int nnst_reader_fdopen(struct nnst_reader **out, int fd, char *err, size_t errlen)
{
	struct nnst_reader *r;
	uint8_t b[NNST_HEADER_SIZE];
	struct stat st;
	size_t got;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->f = fdopen(fd, "rb"))) {
		put_err(err, errlen, "out of memory");
		free(r);
		close(fd);
		return NNS_ENOMEM;
	}
	r->size = fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
	got = read_full(r->f, b, sizeof(b));
	if (ferror(r->f)) {
		put_err(err, errlen, "read error: %s", strerror(errno));
		rc = NNS_EIO;
		goto fail;
	}
	rc = nnst_header_parse(&r->hdr, b, got, err, errlen);
	if (rc)
		goto fail;
	/* a longer header (a newer writer): skip what we do not know */
	if (r->hdr.header_size > NNST_HEADER_SIZE &&
	    fseeko(r->f, (off_t)r->hdr.header_size, SEEK_SET) != 0) {
		put_err(err, errlen, "cannot seek past the %" PRIu32 "-byte header: %s",
			r->hdr.header_size, strerror(errno));
		rc = NNS_EIO;
		goto fail;
	}
	r->off = r->hdr.header_size;
	*out = r;
	return NNS_OK;
fail:
	fclose(r->f);
	free(r);
	return rc;
}

const struct nnst_header *nnst_reader_header(const struct nnst_reader *r)
{
	return &r->hdr;
}

/* Records the sticky truncation error at the current chunk. */
static int damaged(struct nnst_reader *r, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int damaged(struct nnst_reader *r, char *err, size_t errlen, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->msg, sizeof(r->msg), "byte %" PRIu64 ": %s", r->off, what);
	r->state = NNS_ETRUNC;
	put_err(err, errlen, "%s", r->msg);
	return NNS_ETRUNC;
}

int nnst_reader_next(struct nnst_reader *r, uint32_t *type, const uint8_t **payload, uint32_t *len,
		     char *err, size_t errlen)
{
	uint8_t h[NNST_CHUNK_HEADER_SIZE];
	uint32_t magic, length, crc;
	size_t got;

	if (r->state == 1)
		return 0;
	if (r->state < 0) {
		put_err(err, errlen, "%s", r->msg);
		return r->state;
	}
	got = read_full(r->f, h, sizeof(h));
	if (ferror(r->f)) {
		snprintf(r->msg, sizeof(r->msg), "byte %" PRIu64 ": read error: %s", r->off,
			 strerror(errno));
		r->state = NNS_EIO;
		put_err(err, errlen, "%s", r->msg);
		return NNS_EIO;
	}
	if (got == 0) {
		r->state = 1;
		return 0;
	}
	if (got < sizeof(h))
		return damaged(r, err, errlen,
			       "the file ends inside a chunk header (%zu of %d bytes)", got,
			       NNST_CHUNK_HEADER_SIZE);
	magic = le32(h);
	length = le32(h + 8);
	crc = le32(h + 12);
	if (magic != NNST_CHUNK_MAGIC)
		return damaged(r, err, errlen, "no chunk magic (damaged data)");
	if (length > NNST_MAX_CHUNK)
		return damaged(r, err, errlen,
			       "chunk length %" PRIu32 " is over the %u-byte limit (damaged data)",
			       length, NNST_MAX_CHUNK);
	/* a regular file that cannot hold the payload: no need to allocate */
	if (r->size >= 0 && (uint64_t)r->size >= r->off + NNST_CHUNK_HEADER_SIZE &&
	    (uint64_t)r->size - r->off - NNST_CHUNK_HEADER_SIZE < length)
		return damaged(r, err, errlen,
			       "the file ends inside a chunk (%" PRIu64 " of %" PRIu32
			       " payload bytes)",
			       (uint64_t)r->size - r->off - NNST_CHUNK_HEADER_SIZE, length);
	if (vec_reserve_raw((void **)&r->buf, &r->cap, length, 1)) {
		snprintf(r->msg, sizeof(r->msg), "byte %" PRIu64 ": out of memory", r->off);
		r->state = NNS_ENOMEM;
		put_err(err, errlen, "%s", r->msg);
		return NNS_ENOMEM;
	}
	got = read_full(r->f, r->buf, length);
	if (got < length)
		return damaged(r, err, errlen,
			       "the file ends inside a chunk (%zu of %" PRIu32 " payload bytes)",
			       got, length);
	if (nnst_crc32(0, r->buf, length) != crc)
		return damaged(r, err, errlen, "chunk CRC mismatch (damaged data)");
	r->off += NNST_CHUNK_HEADER_SIZE + (uint64_t)length;
	*type = le32(h + 4);
	*payload = r->buf;
	*len = length;
	return 1;
}

void nnst_reader_close(struct nnst_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->buf);
	free(r);
}
