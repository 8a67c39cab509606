/*
 * test_nnst_reader.c - the .nnst reader, clock map and CRC on hand-built
 * files (tests/common/nnstb.h): chunk iteration, a cut at every byte
 * offset of a small file (never a crash, complete chunks kept), a bad CRC,
 * lengths over the cap or past the end, a newer min_version, a longer
 * header, and the clock map's interpolation rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/nnst.h"
#include "importers/nnst.h"
#include "nnscope.h"
#include "nnstb.h"

/* A small valid file; chunk_end[i] = offset after chunk i. */
static void small_file(struct nb *b, size_t *chunk_end, size_t *nchunks)
{
	struct nb ev = {0};
	size_t k = 0;

	nb_header(b, 4242, 0, 1700000000000000000LL, 1000, 0);
	nb_string(b, 1, "outer");
	chunk_end[k++] = b->n;
	nb_string(b, 2, "aten::mm");
	chunk_end[k++] = b->n;
	nb_thread(b, 0, 4243, "main");
	chunk_end[k++] = b->n;
	nb_ev(&ev, 2000, NNST_EV_PUSH, 0, 1, -1, 0, 0);
	nb_ev(&ev, 2100, NNST_EV_PUSH, 0, 2, -1, 0, 0);
	nb_ev(&ev, 2600, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 3000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(b, 0, &ev);
	chunk_end[k++] = b->n;
	nb_end(b);
	chunk_end[k++] = b->n;
	*nchunks = k;
	nb_free(&ev);
}

static void test_crc(void **state)
{
	(void)state;
	assert_int_equal(nnst_crc32(0, "123456789", 9), 0xCBF43926u);
	/* incremental = one shot */
	assert_int_equal(nnst_crc32(nnst_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

static void test_iterate(void **state)
{
	struct nb b = {0};
	size_t ends[8], n, count = 0;
	char path[64], err[256];
	struct nnst_reader *r;
	const uint8_t *p;
	uint32_t type, len;
	int rc;

	(void)state;
	small_file(&b, ends, &n);
	nb_tmpname(path, sizeof(path));
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), NNS_OK);
	assert_int_equal(nnst_reader_header(r)->pid, 4242);
	assert_int_equal(nnst_reader_header(r)->start_mono_ns, 1000);
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1) {
		if (count == 3) {
			assert_int_equal(type, NNST_CHUNK_EVENTS);
			assert_int_equal(len, 8 + 4 * 32);
		}
		count++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(count, n);
	/* after the end: still the end */
	assert_int_equal(nnst_reader_next(r, &type, &p, &len, err, sizeof(err)), 0);
	nnst_reader_close(r);
	unlink(path);
	nb_free(&b);
}

/* Every prefix of the file: the reader returns exactly the complete
 * chunks, then 0 (cut on a boundary) or NNS_ETRUNC naming the offset; the
 * importer never fails on a prefix that holds the header. */
static void test_truncate_everywhere(void **state)
{
	struct nb b = {0};
	size_t ends[8], n;
	char path[64], err[256];
	size_t prev_events = 0;

	(void)state;
	small_file(&b, ends, &n);
	nb_tmpname(path, sizeof(path));
	for (size_t cut = 0; cut <= b.n; cut++) {
		struct nnst_reader *r = NULL;
		size_t complete = 0, got = 0;
		const uint8_t *p;
		uint32_t type, len;
		int rc;

		assert_int_equal(nb_write(&b, path, cut), 0);
		rc = nnst_reader_open(&r, path, err, sizeof(err));
		if (cut < 64) {
			assert_int_equal(rc, NNS_EFORMAT);
			assert_null(r);
			continue;
		}
		assert_int_equal(rc, NNS_OK);
		for (size_t k = 0; k < n; k++)
			complete += ends[k] <= cut;
		while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1)
			got++;
		assert_int_equal(got, complete);
		if (cut == 64 || (complete && ends[complete - 1] == cut)) {
			assert_int_equal(rc, 0);
		} else {
			char want[64];

			assert_int_equal(rc, NNS_ETRUNC);
			snprintf(want, sizeof(want),
				 "byte %zu:", complete ? ends[complete - 1] : (size_t)64);
			assert_non_null(strstr(err, want));
			/* sticky */
			assert_int_equal(nnst_reader_next(r, &type, &p, &len, err, sizeof(err)),
					 NNS_ETRUNC);
		}
		nnst_reader_close(r);

		/* the importer keeps what is complete */
		{
			struct model m;
			struct nns_err e;

			assert_int_equal(model_init(&m), 0);
			nns_err_clear(&e);
			rc = nnst_load_file(path, &m, &e);
			assert_true(rc == NNS_OK || rc == NNS_ETRUNC);
			assert_true(m.finalized);
			if (rc == NNS_ETRUNC)
				assert_true(m.diag.truncated);
			else
				assert_int_equal(cut, b.n);
			assert_true(m.events.n >= prev_events);
			prev_events = m.events.n;
			if (cut >= ends[3]) {
				assert_int_equal(m.events.n, 2);
			} else if (cut >= ends[2]) {
				assert_int_equal(m.events.n, 0);
			}
			model_release(&m);
		}
	}
	assert_int_equal(prev_events, 2);
	unlink(path);
	nb_free(&b);
}

static int read_all(const char *path, char *err, size_t errlen, size_t *chunks)
{
	struct nnst_reader *r;
	const uint8_t *p;
	uint32_t type, len;
	int rc = nnst_reader_open(&r, path, err, errlen);

	*chunks = 0;
	if (rc)
		return rc;
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, errlen)) == 1)
		(*chunks)++;
	nnst_reader_close(r);
	return rc;
}

static void test_bad_crc(void **state)
{
	struct nb b = {0};
	size_t ends[8], n, chunks;
	char path[64], err[256];

	(void)state;
	small_file(&b, ends, &n);
	b.p[ends[2] + 24 + 9] ^= 0x40; /* a byte of the EVENTS payload */
	nb_tmpname(path, sizeof(path));
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(read_all(path, err, sizeof(err), &chunks), NNS_ETRUNC);
	assert_int_equal(chunks, 3);
	assert_non_null(strstr(err, "CRC"));
	unlink(path);
	nb_free(&b);
}

static void test_bad_lengths(void **state)
{
	struct nb b = {0};
	size_t chunks;
	char path[64], err[256];

	(void)state;
	/* over the cap */
	nb_header(&b, 1, 0, 0, 0, 0);
	nb_string(&b, 1, "x");
	nb_u32(&b, NNST_CHUNK_MAGIC);
	nb_u32(&b, NNST_CHUNK_EVENTS);
	nb_u32(&b, 0xfffffff0u);
	nb_u32(&b, 0);
	nb_u64(&b, 1);
	nb_bytes(&b, "abcdefgh", 8);
	nb_tmpname(path, sizeof(path));
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(read_all(path, err, sizeof(err), &chunks), NNS_ETRUNC);
	assert_int_equal(chunks, 1);
	assert_non_null(strstr(err, "limit"));
	nb_free(&b);

	/* within the cap, past the end of the file */
	nb_header(&b, 1, 0, 0, 0, 0);
	nb_u32(&b, NNST_CHUNK_MAGIC);
	nb_u32(&b, NNST_CHUNK_STRINGS);
	nb_u32(&b, 1u << 20);
	nb_u32(&b, 0);
	nb_u64(&b, 0);
	nb_bytes(&b, "abcdefgh", 8);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(read_all(path, err, sizeof(err), &chunks), NNS_ETRUNC);
	assert_int_equal(chunks, 0);
	assert_non_null(strstr(err, "byte 64:"));
	nb_free(&b);

	/* garbage where a chunk should start */
	nb_header(&b, 1, 0, 0, 0, 0);
	nb_bytes(&b, "this is not a chunk header at all", 33);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(read_all(path, err, sizeof(err), &chunks), NNS_ETRUNC);
	assert_non_null(strstr(err, "magic"));
	nb_free(&b);

	/* lengths inside payloads that lie: records past their chunk */
	{
		struct nb p = {0};
		struct model m;
		struct nns_err e;

		nb_header(&b, 1, 0, 0, 0, 0);
		nb_u32(&p, 7);
		nb_u32(&p, 0x7fffffff); /* string length past the chunk */
		nb_bytes(&p, "abc", 3);
		nb_chunk(&b, NNST_CHUNK_STRINGS, p.p, p.n);
		nb_free(&p);
		nb_u32(&p, 0);
		nb_u32(&p, 1000000); /* says 1M events, holds one */
		nb_ev(&p, 5, NNST_EV_MARK, 0, 7, -1, 0, 0);
		nb_chunk(&b, NNST_CHUNK_EVENTS, p.p, p.n);
		nb_free(&p);
		nb_end(&b);
		assert_int_equal(nb_write(&b, path, b.n), 0);
		model_init(&m);
		assert_int_equal(nnst_load_file(path, &m, &e), NNS_OK);
		assert_int_equal(m.instants.n, 1);
		assert_true(m.diag.events_skipped >= 1000000 - 1);
		assert_string_equal(model_str(&m, m.instants.v[0].name), "<string 7>");
		model_release(&m);
		nb_free(&b);
	}
	unlink(path);
}

static void test_versions(void **state)
{
	struct nb b = {0};
	size_t chunks;
	char path[64], err[256];
	struct nnst_reader *r;

	(void)state;
	nb_tmpname(path, sizeof(path));
	/* a newer writer that an old reader cannot read */
	nb_header_ex(&b, 3, NNST_VERSION + 1, 64, 1, 0, 0, 0, 0);
	nb_end(&b);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), NNS_EFORMAT);
	assert_non_null(strstr(err, "written by a newer nnscope"));
	nb_free(&b);

	/* a newer writer readable by this reader, with a longer header */
	nb_header_ex(&b, 2, 1, 96, 77, 0, 0, 0, 0);
	nb_string(&b, 1, "x");
	nb_end(&b);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(read_all(path, err, sizeof(err), &chunks), 0);
	assert_int_equal(chunks, 2);
	nb_free(&b);

	/* not a trace */
	nb_bytes(&b, "{\"traceEvents\": []}", 19);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), NNS_EFORMAT);
	assert_non_null(strstr(err, "not an nnscope trace"));
	assert_int_equal(nnst_is_trace_file(path), 0);
	nb_free(&b);

	/* bad header_size */
	nb_header_ex(&b, 1, 1, 12, 1, 0, 0, 0, 0);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), NNS_EFORMAT);
	nb_free(&b);
	unlink(path);

	assert_int_equal(nnst_reader_open(&r, "/nonexistent/x.nnst", err, sizeof(err)),
			 NNS_ENOTFOUND);
}

static void test_clockmap(void **state)
{
	struct nnst_clockmap c = {0};
	struct nnst_clock a = {1000, 5000, 0}, b = {3000, 6000, 0}, d = {5000, 8000, 0};
	struct nnst_clock bad = {4000, 5500, 0};

	(void)state;
	/* not TSC: raw values are ns */
	assert_int_equal(nnst_clockmap_ns(&c, 123), 123);
	c.tsc = 1;
	assert_int_equal(nnst_clockmap_ns(&c, 123), 123); /* no points */
	assert_int_equal(nnst_clockmap_add(&c, &b), NNS_OK);
	/* one point: one tick = one ns */
	assert_int_equal(nnst_clockmap_ns(&c, 3500), 6500);
	assert_int_equal(nnst_clockmap_ns(&c, 2500), 5500);
	/* out-of-order insertion keeps the points sorted */
	assert_int_equal(nnst_clockmap_add(&c, &d), NNS_OK);
	assert_int_equal(nnst_clockmap_add(&c, &a), NNS_OK);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.pts[0].tsc, 1000);
	assert_int_equal(c.pts[2].tsc, 5000);
	/* interpolation: 2 ticks per ns between a and b, 1 ns per tick after */
	assert_int_equal(nnst_clockmap_ns(&c, 1000), 5000);
	assert_int_equal(nnst_clockmap_ns(&c, 2000), 5500);
	assert_int_equal(nnst_clockmap_ns(&c, 3000), 6000);
	assert_int_equal(nnst_clockmap_ns(&c, 4000), 7000);
	/* extrapolation with the first / last segment */
	assert_int_equal(nnst_clockmap_ns(&c, 0), 4500);
	assert_int_equal(nnst_clockmap_ns(&c, 7000), 10000);
	/* a point that would run backwards is refused */
	assert_int_equal(nnst_clockmap_add(&c, &bad), NNS_EINVAL);
	assert_int_equal(c.n, 3);
	/* huge values do not overflow */
	(void)nnst_clockmap_ns(&c, UINT64_MAX);
	nnst_clockmap_release(&c);
	assert_int_equal(c.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc),
	    cmocka_unit_test(test_iterate),
	    cmocka_unit_test(test_truncate_everywhere),
	    cmocka_unit_test(test_bad_crc),
	    cmocka_unit_test(test_bad_lengths),
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_clockmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
