/*
 * fuzz_nnst.c - libFuzzer target for the .nnst reader and importer, the
 * host_info CSV reader, and what runs on their models (every analysis and
 * the Chrome export).
 *
 * The first input byte picks the mode:
 *   0..3   the rest is a .nnst file as it is (most mutations then hit the
 *          reader's checks: magic, version, lengths, CRC);
 *   4..11  the rest is a list of chunks {u8 type, u16 length, payload}
 *          that the harness wraps in a valid header and chunk headers with
 *          correct CRCs (mode bit 1: TSC timestamps; bit 2: no END), so
 *          the fuzzer reaches the importer's record parsing;
 *   12..   the rest is a host_info CSV.
 * The file is handed to the importer through a memfd. A .nnst file is also
 * followed as it grows (importers/nnst_tail.h into analysis/live.h): written
 * to a second memfd in three pieces cut where the input says, a poll after
 * each, then every live document and query. No crash, hang, leak or
 * sanitizer report is allowed; a status other than OK / ETRUNC / EFORMAT /
 * ENOMEM is a bug.
 */
#include "analysis/analysis.h"
#include "format/nnst.h"
#include "importers/hostinfo.h"
#include "analysis/live.h"
#include "importers/nnst.h"
#include "importers/nnst_tail.h"
#include "output/live_json.h"
#include "output/output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Wraps {type, len, payload} records into a valid file; returns its size. */
static size_t wrap(const uint8_t *in, size_t n, int tsc, int end, uint8_t *out)
{
	size_t o = 64, seq = 0;

	memset(out, 0, 64);
	memcpy(out, NNST_MAGIC, 8);
	out[8] = 1;  /* version */
	out[10] = 1; /* min_version */
	out[12] = 64;
	put64(out + 16, 1234);
	put64(out + 24, 1700000000000000000ULL);
	put64(out + 32, 1000);
	put64(out + 40, 5000);
	put64(out + 48, tsc ? NNST_F_TSC : 0);
	for (size_t i = 0; i + 3 <= n;) {
		uint32_t type = in[i] % 11, len = (uint32_t)in[i + 1] | (uint32_t)in[i + 2] << 8;

		i += 3;
		if (len > n - i)
			len = (uint32_t)(n - i);
		put32(out + o, NNST_CHUNK_MAGIC);
		put32(out + o + 4, type);
		put32(out + o + 8, len);
		put32(out + o + 12, nnst_crc32(0, in + i, len));
		put64(out + o + 16, seq++);
		memcpy(out + o + 24, in + i, len);
		o += 24 + len;
		i += len;
	}
	if (end) {
		put32(out + o, NNST_CHUNK_MAGIC);
		put32(out + o + 4, NNST_CHUNK_END);
		put32(out + o + 8, 0);
		put32(out + o + 12, 0);
		put64(out + o + 16, seq);
		o += 24;
	}
	return o;
}

static void analyse(struct model *m)
{
	struct an_profile p;
	struct nns_err err;
	FILE *f;

	if (an_profile_compute(&p, m, &err) == NNS_OK) {
		f = fopen("/dev/null", "w");
		if (f) {
			struct out_chrome_stats st;
			struct jsonw w;

			out_chrome_write(f, m, 4096, &st, &err);
			jsonw_init_file(&w, f, 0);
			out_json_datapipe(&w, &p);
			jsonw_release(&w);
			fclose(f);
		}
	}
	an_profile_release(&p);
}

static int feed(void *arg, uint32_t type, const uint8_t *payload, uint32_t len)
{
	struct live *l = arg;

	return live_feed(l, type, payload, len);
}

/* Follows file[0..n) written in three pieces; then every document. */
static void follow(const uint8_t *file, size_t n, unsigned cut)
{
	static const char *const views[] = {"summary", "overview", "operators", "kernels",
					    "memory",  "cpu",	   "datapipe"};
	size_t cuts[3] = {n * (cut & 7) / 8, n * (4 + ((cut >> 3) & 3)) / 8, n};
	struct nnst_tail *t;
	struct nns_err err;
	struct live *l = live_new();
	char path[64];
	size_t done = 0;
	int fd = memfd_create("fuzz-live.nnst", 0);

	if (fd < 0 || !l) {
		if (fd >= 0)
			close(fd);
		live_free(l);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (nnst_tail_open(&t, NULL, path, &err) == NNS_OK) {
		for (int i = 0; i < 3; i++) {
			int rc;

			if (cuts[i] > done && write(fd, file + done, cuts[i] - done) < 0)
				break;
			done = cuts[i] > done ? cuts[i] : done;
			if (!l->have_hdr && nnst_tail_header(t))
				live_header(l, nnst_tail_header(t));
			rc = nnst_tail_poll(t, feed, l, &err);
			if (rc != NNS_OK && rc != NNS_ETRUNC && rc != NNS_EFORMAT &&
			    rc != NNS_ENOMEM)
				__builtin_trap();
			if (!l->have_hdr && nnst_tail_header(t))
				live_header(l, nnst_tail_header(t));
		}
		nnst_tail_close(t);
	}
	for (size_t i = 0; i < sizeof(views) / sizeof(*views); i++) {
		struct live_src src = {.file = "fuzz.nnst", .live = 1};
		struct jsonw w;

		if (jsonw_init_mem(&w, 64 << 20, 0))
			break;
		if (live_json_view(&w, l, &src, views[i], 1 + cut % 130) == NNS_EINVAL)
			__builtin_trap();
		jsonw_finish(&w, &err);
		jsonw_release(&w);
	}
	close(fd);
	live_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	struct nns_err err;
	char path[64];
	uint8_t *buf = NULL;
	size_t n;
	int fd, rc, mode;

	if (size < 1 || size > (1u << 20))
		return 0;
	mode = data[0];
	data++;
	size--;
	if (model_init(&m))
		return 0;
	if (mode >= 12) {
		rc = hostinfo_load_buffer((const char *)data, size, "fuzz.csv", &m, -1, &err);
		if (rc == NNS_OK && model_finalize(&m, &err) == NNS_OK)
			analyse(&m);
		model_release(&m);
		return 0;
	}
	fd = memfd_create("fuzz.nnst", 0);
	if (fd < 0) {
		model_release(&m);
		return 0;
	}
	if (mode < 4) {
		n = size;
		if (write(fd, data, n) != (ssize_t)n)
			goto out;
	} else {
		/* worst case: a record per 3 input bytes, 24 bytes of header each */
		buf = malloc(64 + 24 + size / 3 * 24 + size + 24);
		if (!buf)
			goto out;
		n = wrap(data, size, mode & 2, !(mode & 4), buf);
		if (write(fd, buf, n) != (ssize_t)n)
			goto out;
	}
	follow(mode < 4 ? data : buf, n, size ? data[size - 1] : 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = nnst_load_file(path, &m, &err);
	if (rc != NNS_OK && rc != NNS_ETRUNC && rc != NNS_EFORMAT && rc != NNS_ENOMEM)
		__builtin_trap();
	if (rc == NNS_OK || rc == NNS_ETRUNC) {
		if (!m.finalized)
			__builtin_trap();
		analyse(&m);
	}
out:
	free(buf);
	close(fd);
	model_release(&m);
	return 0;
}
