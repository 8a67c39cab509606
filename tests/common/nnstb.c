/* nnstb.c - building .nnst files in tests (nnstb.h). */
#include "nnstb.h"
#include "format/nnst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

void nb_free(struct nb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void nb_bytes(struct nb *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;

		while (ncap < b->n + n)
			ncap *= 2;
		b->p = realloc(b->p, ncap);
		if (!b->p)
			abort();
		b->cap = ncap;
	}
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
}

void nb_u16(struct nb *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	nb_bytes(b, x, 2);
}

void nb_u32(struct nb *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	nb_bytes(b, x, 4);
}

void nb_u64(struct nb *b, uint64_t v)
{
	nb_u32(b, (uint32_t)v);
	nb_u32(b, (uint32_t)(v >> 32));
}

void nb_f32(struct nb *b, float v)
{
	uint32_t u;

	memcpy(&u, &v, sizeof(u));
	nb_u32(b, u);
}

void nb_header_ex(struct nb *b, uint16_t version, uint16_t min_version, uint32_t header_size,
		  int64_t pid, uint64_t flags, int64_t realtime_ns, int64_t mono_ns, uint64_t tsc)
{
	nb_bytes(b, NNST_MAGIC, 8);
	nb_u16(b, version);
	nb_u16(b, min_version);
	nb_u32(b, header_size);
	nb_u64(b, (uint64_t)pid);
	nb_u64(b, (uint64_t)realtime_ns);
	nb_u64(b, (uint64_t)mono_ns);
	nb_u64(b, tsc);
	nb_u64(b, flags);
	nb_u64(b, 0);
	for (uint32_t i = 64; i < header_size; i++)
		nb_bytes(b, "", 1);
}

void nb_header(struct nb *b, int64_t pid, uint64_t flags, int64_t realtime_ns, int64_t mono_ns,
	       uint64_t tsc)
{
	nb_header_ex(b, 1, 1, 64, pid, flags, realtime_ns, mono_ns, tsc);
}

void nb_chunk(struct nb *b, uint32_t type, const void *payload, size_t len)
{
	nb_u32(b, NNST_CHUNK_MAGIC);
	nb_u32(b, type);
	nb_u32(b, (uint32_t)len);
	nb_u32(b, (uint32_t)crc32(0, payload, (uInt)len));
	nb_u64(b, b->seq++);
	nb_bytes(b, payload, len);
}

void nb_string(struct nb *b, uint32_t id, const char *s)
{
	struct nb p = {0};

	nb_u32(&p, id);
	nb_u32(&p, (uint32_t)strlen(s));
	nb_bytes(&p, s, strlen(s));
	nb_chunk(b, NNST_CHUNK_STRINGS, p.p, p.n);
	nb_free(&p);
}

void nb_thread(struct nb *b, uint32_t thread, int64_t tid, const char *name)
{
	struct nb p = {0};

	nb_u32(&p, thread);
	nb_u64(&p, (uint64_t)tid);
	nb_u32(&p, (uint32_t)strlen(name));
	nb_bytes(&p, name, strlen(name));
	nb_chunk(b, NNST_CHUNK_THREAD, p.p, p.n);
	nb_free(&p);
}

void nb_clock(struct nb *b, uint64_t tsc, int64_t mono_ns, int64_t realtime_ns)
{
	struct nb p = {0};

	nb_u64(&p, tsc);
	nb_u64(&p, (uint64_t)mono_ns);
	nb_u64(&p, (uint64_t)realtime_ns);
	nb_chunk(b, NNST_CHUNK_CLOCK, p.p, p.n);
	nb_free(&p);
}

void nb_meta(struct nb *b, const char *key, const char *value)
{
	struct nb p = {0};

	nb_u32(&p, (uint32_t)strlen(key));
	nb_bytes(&p, key, strlen(key));
	nb_u32(&p, (uint32_t)strlen(value));
	nb_bytes(&p, value, strlen(value));
	nb_chunk(b, NNST_CHUNK_META, p.p, p.n);
	nb_free(&p);
}

void nb_lost(struct nb *b, uint32_t thread, uint64_t lost)
{
	struct nb p = {0};

	nb_u32(&p, thread);
	nb_u64(&p, lost);
	nb_chunk(b, NNST_CHUNK_LOST, p.p, p.n);
	nb_free(&p);
}

void nb_end(struct nb *b)
{
	nb_chunk(b, NNST_CHUNK_END, "", 0);
}

void nb_ev(struct nb *payload, uint64_t ts, uint8_t type, uint8_t flags, uint32_t name,
	   int16_t device, uint64_t a, uint64_t bb)
{
	nb_u64(payload, ts);
	nb_u32(payload, name);
	nb_bytes(payload, &type, 1);
	nb_bytes(payload, &flags, 1);
	nb_u16(payload, (uint16_t)device);
	nb_u64(payload, a);
	nb_u64(payload, bb);
}

void nb_events(struct nb *b, uint32_t thread, const struct nb *payload)
{
	struct nb p = {0};

	nb_u32(&p, thread);
	nb_u32(&p, (uint32_t)(payload->n / 32));
	nb_bytes(&p, payload->p, payload->n);
	nb_chunk(b, NNST_CHUNK_EVENTS, p.p, p.n);
	nb_free(&p);
}

void nb_sample(struct nb *payload, int64_t mono_ns, int64_t tid, uint32_t kind, float user,
	       float sys, float idle, float iowait, uint32_t running, uint64_t ctx, uint64_t rss)
{
	nb_u64(payload, (uint64_t)mono_ns);
	nb_u64(payload, (uint64_t)tid);
	nb_u32(payload, kind);
	nb_f32(payload, user);
	nb_f32(payload, sys);
	nb_f32(payload, idle);
	nb_f32(payload, iowait);
	nb_u32(payload, running);
	nb_u64(payload, ctx);
	nb_u64(payload, rss);
	nb_u64(payload, 0);
}

int nb_write(const struct nb *b, const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f)
		return -1;
	if (n && fwrite(b->p, 1, n, f) != n)
		rc = -1;
	if (fclose(f))
		rc = -1;
	return rc;
}

void nb_tmpname(char *buf, size_t size)
{
	int fd;

	snprintf(buf, size, "/tmp/nnst-test.XXXXXX");
	fd = mkstemp(buf);
	if (fd < 0)
		abort();
	close(fd);
}
