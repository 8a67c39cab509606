/*
 * gen_bombs.c - hostile Kineto inputs for bench/hostile and the memory
 * budget measurements of bench/ingest: small files that expand into a lot
 * of JSON (issue 20).
 *
 *   gen_bombs tiny OUT[.gz] JSON_BYTES
 *       {"traceEvents": [...]} of ~64-byte complete events ("X", one
 *       thread, increasing ts, no nesting) until JSON_BYTES of JSON: the
 *       "many tiny events" case (2 GB of JSON hold ~31 M events). Gzip'd
 *       when OUT ends in .gz (zlib level 9), else plain.
 *   gen_bombs ws OUT.gz WS_BYTES
 *       a valid two-event trace with WS_BYTES of spaces between the events:
 *       the "whitespace run" case (8 GB of spaces in ~8 MB of gzip). The
 *       spaces are deflated once per 1 MiB block after a full flush and
 *       that block is repeated, so any size is written in seconds.
 *   gen_bombs wsx OUT.gz WS_BYTES
 *       the same run of spaces before the document's first '{'.
 *   gen_bombs fat OUT.gz JSON_BYTES
 *       events that each carry a 16 KiB string the importer skips: little
 *       memory, but ~900x compression (the ratio guard's case).
 *
 * Prints the JSON size and the compressed size on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BLOCK ((size_t)1 << 20)

struct out {
	FILE *f;
	int gz;
	z_stream z;
	uLong crc;
	uint64_t json, raw;
	unsigned char buf[1 << 16];
};

static void die(const char *what)
{
	fprintf(stderr, "gen_bombs: %s\n", what);
	exit(1);
}

static void put_raw(struct out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		die("write failed");
	o->raw += n;
}

/* Deflates n bytes of s with flush mode fl into the file. */
static void deflate_put(struct out *o, const char *s, size_t n, int fl)
{
	o->z.next_in = (Bytef *)s;
	o->z.avail_in = (uInt)n;
	do {
		o->z.next_out = o->buf;
		o->z.avail_out = sizeof(o->buf);
		if (deflate(&o->z, fl) == Z_STREAM_ERROR)
			die("deflate failed");
		put_raw(o, o->buf, sizeof(o->buf) - o->z.avail_out);
	} while (o->z.avail_out == 0 || o->z.avail_in > 0);
}

static void out_open(struct out *o, const char *path)
{
	static const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3};
	size_t n = strlen(path);

	memset(o, 0, sizeof(*o));
	o->gz = n > 3 && strcmp(path + n - 3, ".gz") == 0;
	o->f = fopen(path, "wb");
	if (!o->f)
		die("cannot create the output file");
	o->crc = crc32(0, Z_NULL, 0);
	if (!o->gz)
		return;
	/* a raw deflate stream between our own gzip header and trailer */
	if (deflateInit2(&o->z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2 failed");
	put_raw(o, hdr, sizeof(hdr));
}

static void out_put(struct out *o, const char *s, size_t n)
{
	o->json += n;
	if (!o->gz) {
		put_raw(o, s, n);
		return;
	}
	o->crc = crc32(o->crc, (const Bytef *)s, (uInt)n);
	deflate_put(o, s, n, Z_NO_FLUSH);
}

/* count copies of BLOCK spaces: deflated once after a full flush (which
 * makes the compressed block independent of what precedes it), then the
 * compressed bytes are repeated. */
static void out_spaces(struct out *o, uint64_t count)
{
	static char sp[BLOCK];
	unsigned char *cb = NULL;
	size_t cn = 0, ccap = 0;
	uLong crc_sp;
	z_stream z;

	memset(sp, ' ', sizeof(sp));
	if (!o->gz) {
		for (uint64_t i = 0; i < count; i++)
			out_put(o, sp, sizeof(sp));
		return;
	}
	deflate_put(o, "", 0, Z_FULL_FLUSH);
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2 failed");
	z.next_in = (Bytef *)sp;
	z.avail_in = sizeof(sp);
	do {
		if (cn + 65536 > ccap) {
			unsigned char *nb;

			ccap = ccap ? ccap * 2 : 1 << 17;
			nb = realloc(cb, ccap);
			if (!nb)
				die("out of memory");
			cb = nb;
		}
		z.next_out = cb + cn;
		z.avail_out = 65536;
		deflate(&z, Z_FULL_FLUSH);
		cn += 65536 - z.avail_out;
	} while (z.avail_out == 0);
	deflateEnd(&z);
	crc_sp = crc32(0, (const Bytef *)sp, sizeof(sp));
	for (uint64_t i = 0; i < count; i++) {
		put_raw(o, cb, cn);
		o->crc = crc32_combine(o->crc, crc_sp, (z_off_t)sizeof(sp));
		o->json += sizeof(sp);
	}
	free(cb);
}

static void out_close(struct out *o)
{
	if (o->gz) {
		unsigned char t[8];
		uint32_t isize = (uint32_t)o->json;

		deflate_put(o, "", 0, Z_FINISH);
		deflateEnd(&o->z);
		for (int i = 0; i < 4; i++) {
			t[i] = (unsigned char)(o->crc >> (8 * i));
			t[4 + i] = (unsigned char)(isize >> (8 * i));
		}
		put_raw(o, t, sizeof(t));
	}
	if (fclose(o->f))
		die("write failed");
	printf("json_bytes %llu file_bytes %llu\n", (unsigned long long)o->json,
	       (unsigned long long)o->raw);
}

static const char head[] = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
static const char tail[] = "\n]}\n";

static void tiny(const char *path, uint64_t bytes)
{
	struct out o;
	char ev[160];
	uint64_t i = 0;

	out_open(&o, path);
	out_put(&o, head, sizeof(head) - 1);
	while (o.json < bytes) {
		int n = snprintf(ev, sizeof(ev),
				 "%s{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":%llu,"
				 "\"dur\":1}",
				 i ? ",\n" : "", (unsigned long long)(1000000 + 2 * i));
		out_put(&o, ev, (size_t)n);
		i++;
	}
	out_put(&o, tail, sizeof(tail) - 1);
	out_close(&o);
	printf("events %llu\n", (unsigned long long)i);
}

static void fat(const char *path, uint64_t bytes)
{
	static char pad[16384];
	struct out o;
	char ev[160];
	uint64_t i = 0;

	memset(pad, 'a', sizeof(pad));
	out_open(&o, path);
	out_put(&o, head, sizeof(head) - 1);
	while (o.json < bytes) {
		int n = snprintf(ev, sizeof(ev),
				 "%s{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":%llu,"
				 "\"dur\":1,\"args\":{\"blob\":\"",
				 i ? ",\n" : "", (unsigned long long)(1000000 + 2 * i));
		out_put(&o, ev, (size_t)n);
		out_put(&o, pad, sizeof(pad));
		out_put(&o, "\"}}", 3);
		i++;
	}
	out_put(&o, tail, sizeof(tail) - 1);
	out_close(&o);
	printf("events %llu\n", (unsigned long long)i);
}

static void ws(const char *path, uint64_t bytes, int before)
{
	static const char e1[] =
	    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},";
	static const char e2[] =
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}";
	struct out o;

	out_open(&o, path);
	if (before)
		out_spaces(&o, (bytes + BLOCK - 1) / BLOCK);
	out_put(&o, head, sizeof(head) - 1);
	out_put(&o, e1, sizeof(e1) - 1);
	if (!before)
		out_spaces(&o, (bytes + BLOCK - 1) / BLOCK);
	out_put(&o, e2, sizeof(e2) - 1);
	out_put(&o, tail, sizeof(tail) - 1);
	out_close(&o);
}

int main(int argc, char **argv)
{
	char *end;
	uint64_t n;

	if (argc != 4) {
		fprintf(stderr, "usage: gen_bombs tiny|ws|wsx|fat OUT[.gz] BYTES\n");
		return 2;
	}
	n = strtoull(argv[3], &end, 10);
	if (*end || n == 0)
		die("BYTES must be a positive number");
	if (strcmp(argv[1], "tiny") == 0)
		tiny(argv[2], n);
	else if (strcmp(argv[1], "ws") == 0 || strcmp(argv[1], "wsx") == 0)
		ws(argv[2], n, argv[1][2] == 'x');
	else if (strcmp(argv[1], "fat") == 0)
		fat(argv[2], n);
	else
		die("unknown kind (tiny, ws, wsx or fat)");
	return 0;
}
