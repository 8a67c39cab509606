/*
 * gen_trace.c - builds a large Kineto trace for bench/ingest by replicating
 * the traceEvents of a real sample N times, shifting timestamps by the
 * sample's span and every id (External id, external id, correlation, flow
 * id, Python ids) by a per-copy offset, so that each copy is a new set of
 * steps, operators, launches and kernels.
 *
 * usage: gen_trace SAMPLE(.json|.json.gz) MIN_BYTES OUT.json
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static char *slurp(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 26, n = 0;
	char *buf = malloc(cap);
	int r;

	if (!f || !buf) {
		if (f)
			gzclose(f);
		free(buf);
		return NULL;
	}
	while ((r = gzread(f, buf + n, (unsigned)(cap - n - 1))) > 0) {
		n += (size_t)r;
		if (n + 1 >= cap) {
			char *grown = realloc(buf, cap * 2);

			if (!grown) {
				free(buf);
				gzclose(f);
				return NULL;
			}
			buf = grown;
			cap *= 2;
		}
	}
	gzclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static const char *const id_keys[] = {"\"External id\": ",
				      "\"external id\": ",
				      "\"correlation\": ",
				      "\"id\": ",
				      "\"Python id\": ",
				      "\"Python parent id\": ",
				      NULL};

/* Writes events[0..n) with ts shifted by dts and ids by did. */
static void emit(FILE *out, const char *p, const char *end, int64_t dts, int64_t did)
{
	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		int k, done = 0;
		if (!q) {
			fwrite(p, 1, (size_t)(end - p), out);
			return;
		}
		fwrite(p, 1, (size_t)(q - p), out);
		p = q;
		if (strncmp(p, "\"ts\": ", 6) == 0) {
			char *e;
			long long v = strtoll(p + 6, &e, 10);
			fprintf(out, "\"ts\": %lld", v + (long long)dts);
			p = e;
			continue;
		}
		for (k = 0; id_keys[k] && !done; k++) {
			size_t kl = strlen(id_keys[k]);
			if (strncmp(p, id_keys[k], kl) == 0) {
				char *e;
				long long v = strtoll(p + kl, &e, 10);
				if (e == p + kl)
					break;
				fprintf(out, "%s%lld", id_keys[k], v ? v + (long long)did : 0);
				p = e;
				done = 1;
			}
		}
		if (!done) {
			fputc('"', out);
			p++;
		}
	}
}

int main(int argc, char **argv)
{
	size_t len;
	char *s, *ev, *evend, *q;
	long long min_bytes;
	FILE *out;
	int64_t t0 = INT64_MAX, t1 = 0;
	int copies = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: gen_trace SAMPLE MIN_BYTES OUT\n");
		return 2;
	}
	s = slurp(argv[1], &len);
	if (!s) {
		fprintf(stderr, "gen_trace: cannot read %s\n", argv[1]);
		return 1;
	}
	min_bytes = atoll(argv[2]);
	ev = strstr(s, "\"traceEvents\": [");
	if (!ev) {
		fprintf(stderr, "gen_trace: no traceEvents\n");
		return 1;
	}
	ev = strchr(ev, '[') + 1;
	evend = strrchr(s, ']');
	while (evend > ev && evend[-1] != '}')
		evend--;
	for (q = ev; (q = strstr(q, "\"ts\": ")) && q < evend; q += 6) {
		long long v = atoll(q + 6);
		if (v > 0 && v < t0)
			t0 = v;
		if (v > t1)
			t1 = v;
	}
	out = fopen(argv[3], "wb");
	if (!out)
		return 1;
	setvbuf(out, NULL, _IOFBF, 1 << 22);
	fwrite(s, 1, (size_t)(ev - s), out);
	while (ftell(out) < min_bytes) {
		if (copies)
			fputs(",", out);
		/* 2 s of extra span per copy, ids shifted by 10M per copy */
		emit(out, ev, evend, (int64_t)copies * (t1 - t0 + 2000000),
		     (int64_t)copies * 10000000);
		copies++;
	}
	fputs("\n]}\n", out);
	fclose(out);
	fprintf(stderr, "gen_trace: %d copies of %s -> %s\n", copies, argv[1], argv[3]);
	free(s);
	return 0;
}
