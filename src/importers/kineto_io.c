/*
 * kineto_io.c - where the Kineto parser's bytes come from: memory, a file
 * descriptor read with pread() from a given offset (so several parsers can
 * read one file at different places), or a gzip stream over either,
 * decompressed in bounded blocks, optionally by a thread that runs ahead
 * of the parser. A gzip stream that is corrupt or cut short first
 * delivers the bytes before the damage, then fails with the compressed
 * byte offset. Every member of a multi-member stream is read; bytes after
 * the last member that do not start another one are ignored. Also the
 * progress line on stderr and the byte counts of messages.
 *
 * The inflater is ISA-L's igzip (libisal), not zlib: inflate was the
 * ceiling of .json.gz ingest (issue 21). Measured on the 1.1 GB replicated
 * ResNet-50 trace (gzip -1, 60 MB), 256 KiB in / 512 KiB out blocks as
 * here, on the 2-core build machine: zlib 734-815 MB/s of JSON, igzip
 * 1682-1778 MB/s, same CRC-32 of the output (a standalone loop over both
 * APIs with these block sizes; the commit message has it).
 * igzip checks the gzip header, the CRC-32 and the length of every member
 * itself (crc_flag ISAL_GZIP).
 *
 * The thread of a threaded gzip source starts at the first read, so that
 * a large input can instead be inflated into a ring (kineto_ring.c) for
 * the parallel parse (kineto_gzpar.c), which calls kgz_fill itself.
 */
#include "kineto_internal.h"
#include "common/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

#define GZ_IN ((size_t)256 << 10)  /* compressed bytes read at once */
#define GZ_BLK ((size_t)512 << 10) /* decompressed block handed to the parser */
#define GZ_NBLK 4		   /* blocks in flight (thread mode) */

struct kgz {
	struct inflate_state z;
	int in_member, done;
	int64_t mstart;	 /* compressed byte where the current member starts */
	int flg_checked; /* its FLG byte was looked at */
	unsigned char *in;
	int in_eof;
	_Atomic int64_t consumed;
	/* thread mode */
	int threaded, started;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *blk[GZ_NBLK];
	size_t blk_len[GZ_NBLK];
	size_t head, count, head_off;
	int stop, finished, err;
	struct nns_err errd;
};

void ksrc_mem(struct ksrc *s, const char *buf, size_t len, int64_t pos, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->type = KSRC_MEM;
	s->mem = buf;
	s->mem_len = len;
	s->fd = -1;
	s->pos = pos;
	s->raw_size = (int64_t)len;
	s->name = name;
}

void ksrc_fd(struct ksrc *s, int fd, int64_t size, int64_t pos, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->type = KSRC_FD;
	s->fd = fd;
	s->pos = pos;
	s->raw_size = size;
	s->name = name;
}

int ksrc_is_gz(const unsigned char *b, size_t n)
{
	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* Raw (possibly compressed) bytes from memory or the file. */
static int raw_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err)
{
	*got = 0;
	if (s->type == KSRC_MEM || s->fd < 0) {
		size_t left = s->pos < (int64_t)s->mem_len ? s->mem_len - (size_t)s->pos : 0;
		size_t n = cap < left ? cap : left;
		if (n)
			memcpy(dst, s->mem + s->pos, n);
		*got = n;
	} else {
		ssize_t n;
		/* a file is read up to the size it had when opened: what was
		 * appended since is not parsed (kineto.c says it grew) */
		if (s->raw_size > 0 && (int64_t)cap > s->raw_size - s->pos)
			cap = s->pos < s->raw_size ? (size_t)(s->raw_size - s->pos) : 0;
		if (!cap)
			return 0;
		do
			n = pread(s->fd, dst, cap, (off_t)s->pos);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return nns_err_set(err, NNS_EIO, "read error at file byte %lld: %s",
					   (long long)s->pos, strerror(errno));
		*got = (size_t)n;
	}
	s->pos += (int64_t)*got;
	return 0;
}

/* ---- gzip ----------------------------------------------------------------- */

/* igzip's return codes, in words (zlib's wording where it had one) */
static const char *isal_why(int r)
{
	switch (r) {
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "incorrect data check";
	case ISAL_NEED_DICT:
		return "needs a preset dictionary";
	default:
		return "inflate failed";
	}
}

/* The compressed byte igzip has reached: what it took from the buffer,
 * less the whole bytes it holds unread in its bit buffer. */
static int64_t gz_at(const struct ksrc *s, const struct kgz *g)
{
	int64_t held = g->z.read_in_length > 0 ? g->z.read_in_length / 8 : 0;
	int64_t at = s->pos - (int64_t)g->z.avail_in - held;

	return at < 0 ? 0 : at;
}

/* Decompresses into dst until it is full or the stream ends. A stream
 * that fails (corrupt data, or the input ends inside a member) returns
 * the error with *got the bytes decoded before it; the next calls return
 * 0 bytes. */
static int gz_fill(struct ksrc *s, struct kgz *g, char *dst, size_t cap, size_t *got,
		   struct nns_err *err)
{
	int rc = 0;

	*got = 0;
	if (g->done)
		return 0;
	g->z.next_out = (uint8_t *)dst;
	g->z.avail_out = (uint32_t)cap;
	while (g->z.avail_out > 0) {
		int zr;
		if (g->z.avail_in == 0 && !g->in_eof) {
			size_t n = 0;
			rc = raw_read(s, (char *)g->in, GZ_IN, &n, err);
			if (rc) {
				g->done = 1;
				break;
			}
			g->z.next_in = g->in;
			g->z.avail_in = (uint32_t)n;
			g->in_eof = n == 0;
		}
		if (!g->in_member) {
			/* after a member: another one, or trailing bytes to ignore */
			uint8_t *next = g->z.next_in;
			uint32_t avail = g->z.avail_in;
			if (avail == 0 || next[0] != 0x1f) {
				g->done = 1;
				break;
			}
			isal_inflate_reset(&g->z);
			g->z.crc_flag = ISAL_GZIP;
			g->z.next_in = next;
			g->z.avail_in = avail;
			g->in_member = 1;
			g->mstart = s->pos - (int64_t)avail;
			g->flg_checked = 0;
		}
		if (!g->flg_checked && g->mstart + 3 < s->pos) {
			/* igzip ignores the reserved FLG bits (zlib refuses them):
			 * look at the byte before igzip takes it */
			int64_t base = s->pos - (int64_t)g->z.avail_in;
			g->flg_checked = 1;
			if (g->mstart + 3 >= base && (g->z.next_in[g->mstart + 3 - base] & 0xe0)) {
				g->done = 1;
				rc = nns_err_set(err, NNS_EFORMAT,
						 "corrupt gzip data at compressed byte %lld "
						 "(unknown header flags set)",
						 (long long)(g->mstart + 3));
				break;
			}
		}
		zr = isal_inflate(&g->z);
		atomic_store(&g->consumed, gz_at(s, g));
		if (zr < 0 || zr == ISAL_NEED_DICT) {
			g->done = 1;
			/* igzip's reason is a code, not the input's text */
			rc = nns_err_set(err, NNS_EFORMAT,
					 "corrupt gzip data at compressed byte %lld (%s)",
					 (long long)gz_at(s, g), isal_why(zr));
			break;
		}
		if (g->z.block_state == ISAL_BLOCK_FINISH) {
			g->in_member = 0;
			continue;
		}
		if (g->z.avail_in == 0 && g->in_eof && g->z.avail_out > 0) {
			/* all input given and the member not finished: the file was cut */
			g->done = 1;
			rc = nns_err_set(err, NNS_EFORMAT,
					 "the gzip stream ends early at compressed byte %lld "
					 "(the .gz file is truncated)",
					 (long long)s->pos);
			break;
		}
	}
	*got = cap - g->z.avail_out;
	return rc;
}

static void *gz_thread(void *arg)
{
	struct ksrc *s = arg;
	struct kgz *g = s->gz;

	for (;;) {
		size_t slot, got = 0;
		int rc;

		pthread_mutex_lock(&g->mu);
		while (g->count == GZ_NBLK && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop) {
			pthread_mutex_unlock(&g->mu);
			break;
		}
		slot = (g->head + g->count) % GZ_NBLK;
		pthread_mutex_unlock(&g->mu);

		rc = gz_fill(s, g, g->blk[slot], GZ_BLK, &got, &g->errd);

		pthread_mutex_lock(&g->mu);
		if (got) {
			g->blk_len[slot] = got;
			g->count++;
		}
		if (rc || got == 0) {
			g->err = rc;
			g->finished = 1;
		}
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (rc || got == 0)
			break;
	}
	return NULL;
}

int ksrc_gz(struct ksrc *s, int threaded, struct nns_err *err)
{
	struct kgz *g = calloc(1, sizeof(*g));
	int i;

	if (!g)
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", s->name);
	s->gz = g;
	g->in = malloc(GZ_IN);
	if (!g->in)
		return nns_err_set(err, NNS_ENOMEM, "%s: cannot start gzip decoder", s->name);
	isal_inflate_init(&g->z);
	g->z.crc_flag = ISAL_GZIP;
	g->in_member = 1;
	s->type = KSRC_GZ;
	if (!threaded)
		return NNS_OK;
	for (i = 0; i < GZ_NBLK; i++)
		if (!(g->blk[i] = malloc(GZ_BLK)))
			return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", s->name);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->threaded = 1;
	return NNS_OK;
}

int kgz_fill(struct ksrc *s, char *dst, size_t cap, size_t *got, int64_t *comp, struct nns_err *err)
{
	int rc = gz_fill(s, s->gz, dst, cap, got, err);

	*comp = atomic_load(&s->gz->consumed);
	return rc;
}

static int gz_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err)
{
	struct kgz *g = s->gz;
	size_t n;
	int rc;

	if (!g->threaded) {
		if (cap > GZ_BLK * 64)
			cap = GZ_BLK * 64;
		rc = gz_fill(s, g, dst, cap, got, err);
		s->consumed = atomic_load(&g->consumed);
		return rc;
	}
	*got = 0;
	if (!g->started && g->threaded) {
		if (pthread_create(&g->th, NULL, gz_thread, s) == 0)
			g->started = 1;
		else
			g->threaded = 0; /* decompress inline instead */
		if (!g->threaded)
			return gz_read(s, dst, cap, got, err);
	}
	pthread_mutex_lock(&g->mu);
	while (g->count == 0 && !g->finished)
		pthread_cond_wait(&g->cv, &g->mu);
	if (g->count == 0) {
		rc = g->err;
		if (rc && err)
			*err = g->errd;
		pthread_mutex_unlock(&g->mu);
		return rc;
	}
	pthread_mutex_unlock(&g->mu);
	/* the head block belongs to the reader until it is released */
	n = g->blk_len[g->head] - g->head_off;
	if (n > cap)
		n = cap;
	memcpy(dst, g->blk[g->head] + g->head_off, n);
	g->head_off += n;
	*got = n;
	s->consumed = atomic_load(&g->consumed);
	if (g->head_off == g->blk_len[g->head]) {
		pthread_mutex_lock(&g->mu);
		g->head = (g->head + 1) % GZ_NBLK;
		g->head_off = 0;
		g->count--;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	return 0;
}

int ksrc_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err)
{
	int rc;

	if (s->type == KSRC_GZ)
		return gz_read(s, dst, cap, got, err);
	if (s->type == KSRC_RING)
		return kring_read(s, dst, cap, got, err);
	rc = raw_read(s, dst, cap, got, err);
	s->consumed += (int64_t)*got;
	return rc;
}

void ksrc_close(struct ksrc *s)
{
	struct kgz *g = s->gz;
	int i;

	if (!g)
		return;
	if (g->started) {
		pthread_mutex_lock(&g->mu);
		g->stop = 1;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->th, NULL);
	}
	if (g->threaded || g->started) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	for (i = 0; i < GZ_NBLK; i++)
		free(g->blk[i]);
	free(g->in);
	free(g);
	s->gz = NULL;
}

void kp_size(char *b, size_t n, int64_t v)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;

	while (u < 4 && v >= ((int64_t)1024 << (10 * u)))
		u++;
	if (u == 0 || v % ((int64_t)1 << (10 * u)) == 0)
		snprintf(b, n, "%lld %s", (long long)(v >> (10 * u)), unit[u]);
	else
		snprintf(b, n, "%.1f %s", (double)v / (double)((int64_t)1 << (10 * u)), unit[u]);
}

/* ---- progress --------------------------------------------------------------- */

void kprog_init(struct kprogress *pg, int on, const char *name, int64_t total)
{
	pg->on = on;
	pg->name = name;
	pg->total = total;
	atomic_store(&pg->done, 0);
	atomic_store(&pg->last_ns, on ? clock_mono_ns() : 0);
	atomic_store(&pg->printed, 0);
	pg->ext = NULL;
	pg->cancel = NULL;
}

static void human(char *b, size_t n, int64_t v)
{
	if (v >= ((int64_t)1 << 30))
		snprintf(b, n, "%.1f GB", (double)v / (double)((int64_t)1 << 30));
	else
		snprintf(b, n, "%lld MB", (long long)(v >> 20));
}

void kprog_add(struct kprogress *pg, int64_t bytes)
{
	int64_t done, last, t;
	char a[32], b[32];
	int len;

	if (pg->ext)
		atomic_fetch_add(pg->ext, bytes);
	if (!pg->on)
		return;
	done = atomic_fetch_add(&pg->done, bytes) + bytes;
	last = atomic_load(&pg->last_ns);
	t = clock_mono_ns();
	if (t - last < 250000000 || !atomic_compare_exchange_strong(&pg->last_ns, &last, t))
		return;
	if (done > pg->total)
		done = pg->total;
	human(a, sizeof(a), done);
	human(b, sizeof(b), pg->total);
	len = fprintf(stderr, "\rparsing %s: %s / %s (%d%%)", pg->name, a, b,
		      pg->total > 0 ? (int)(done * 100 / pg->total) : 0);
	fflush(stderr);
	if (len > atomic_load(&pg->printed))
		atomic_store(&pg->printed, len);
}

void kprog_end(struct kprogress *pg)
{
	int n = atomic_load(&pg->printed);

	if (pg->on && n > 0) {
		fprintf(stderr, "\r%*s\r", n, "");
		fflush(stderr);
	}
}
