/*
 * test_format_write.c - the .nnst writer (src/format/nnst_writer.c; owner:
 * the collector) against the format reader: header fields, chunk headers
 * (magic, length, CRC32, sequence), payload records; a file cut at every
 * byte offset reads back exactly its complete chunks; a flipped payload
 * byte stops the reader at that chunk; payload limits; a failing device
 * makes the error sticky; the fixed-capacity payload buffer never
 * overflows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "format/nnst.h"
#include "format/nnst_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/nnscope-fmt-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Writes header + 5 chunks; returns the offsets where each chunk ends. */
static void write_sample(size_t ends[5])
{
	struct nnst_writer w;
	struct nnst_header h;
	struct nnst_buf b;
	struct nnst_event ev[3];
	struct nnst_clock c = {123456789, 1000, 2000};
	uint32_t hdr[2] = {7, 3};
	struct iovec iov[2] = {{hdr, sizeof(hdr)}, {ev, sizeof(ev)}};
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	nnst_header_init(&h, 4242, NNST_F_TSC, 11, 22, 33);
	assert_int_equal(nnst_writer_init(&w, fd, &h, NULL), 0);
	assert_int_equal(w.offset, 64);
	assert_int_equal(nnst_buf_init(&b, 4096), 0);

	assert_int_equal(nnst_buf_string(&b, 1, "conv2d", 6), 0);
	assert_int_equal(nnst_buf_string(&b, 2, "", 0), 0);
	assert_int_equal(nnst_writer_chunk1(&w, NNST_CHUNK_STRINGS, b.p, b.n, NULL), 0);
	ends[0] = w.offset;
	b.n = 0;
	assert_int_equal(nnst_buf_thread(&b, 7, 98765, "worker"), 0);
	assert_int_equal(nnst_writer_chunk1(&w, NNST_CHUNK_THREAD, b.p, b.n, NULL), 0);
	ends[1] = w.offset;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 3; i++) {
		ev[i].ts = 1000 + (uint64_t)i;
		ev[i].name = 1;
		ev[i].type = NNST_EV_PUSH;
		ev[i].device = -1;
		ev[i].a = (uint64_t)i * 3;
	}
	assert_int_equal(nnst_writer_chunk(&w, NNST_CHUNK_EVENTS, iov, 2, NULL), 0);
	ends[2] = w.offset;
	assert_int_equal(nnst_writer_chunk1(&w, NNST_CHUNK_CLOCK, &c, sizeof(c), NULL), 0);
	ends[3] = w.offset;
	assert_int_equal(nnst_writer_end(&w, NULL), 0);
	ends[4] = w.offset;
	assert_int_equal(w.seq, 5);
	nnst_writer_close(&w);
	nnst_writer_close(&w); /* idempotent */
	nnst_buf_release(&b);
}

static void test_layout(void **state)
{
	size_t ends[5];
	uint8_t buf[4096];
	FILE *f;
	size_t n;
	struct nnst_header h;
	struct nnst_chunk_header ch;

	(void)state;
	write_sample(ends);
	f = fopen(path, "rb");
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, ends[4]);
	memcpy(&h, buf, 64);
	assert_memory_equal(h.magic, "NNSTRACE", 8);
	assert_int_equal(h.version, 1);
	assert_int_equal(h.min_version, 1);
	assert_int_equal(h.header_size, 64);
	assert_int_equal(h.pid, 4242);
	assert_int_equal(h.start_realtime_ns, 11);
	assert_int_equal(h.start_mono_ns, 22);
	assert_int_equal(h.start_tsc, 33);
	assert_int_equal(h.flags, NNST_F_TSC);
	/* first chunk: bytes 4e 4e 43 4b, STRINGS, two records */
	assert_memory_equal(buf + 64, "NNCK", 4);
	memcpy(&ch, buf + 64, 24);
	assert_int_equal(ch.type, NNST_CHUNK_STRINGS);
	assert_int_equal(ch.length, 8 + 6 + 8);
	assert_int_equal(ch.seq, 0);
	assert_int_equal(ch.crc32, (uint32_t)crc32(0, buf + 88, ch.length));
	assert_memory_equal(buf + 88 + 8, "conv2d", 6);
	/* EVENTS chunk: {7, 3} then 3 x 32 bytes */
	memcpy(&ch, buf + ends[1], 24);
	assert_int_equal(ch.type, NNST_CHUNK_EVENTS);
	assert_int_equal(ch.length, 8 + 96);
	assert_int_equal(ch.seq, 2);
	assert_int_equal(ch.crc32, (uint32_t)crc32(0, buf + ends[1] + 24, ch.length));
	/* END: empty */
	memcpy(&ch, buf + ends[3], 24);
	assert_int_equal(ch.type, NNST_CHUNK_END);
	assert_int_equal(ch.length, 0);
	assert_int_equal(ch.crc32, 0);
}

/* Reads path; returns the chunk count and the final status. */
static int read_all(uint32_t types[8], int *status)
{
	struct nnst_reader *r;
	char err[256];
	uint32_t type, len;
	const uint8_t *p;
	int n = 0, rc;

	if (nnst_reader_open(&r, path, err, sizeof(err)))
		return -1;
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1) {
		if (n < 8)
			types[n] = type;
		n++;
	}
	*status = rc;
	nnst_reader_close(r);
	return n;
}

static void test_reader_roundtrip(void **state)
{
	size_t ends[5];
	uint32_t types[8];
	int status;
	struct nnst_reader *r;
	char err[256];
	uint32_t type, len;
	const uint8_t *p;

	(void)state;
	write_sample(ends);
	assert_int_equal(read_all(types, &status), 5);
	assert_int_equal(status, 0);
	assert_int_equal(types[0], NNST_CHUNK_STRINGS);
	assert_int_equal(types[1], NNST_CHUNK_THREAD);
	assert_int_equal(types[2], NNST_CHUNK_EVENTS);
	assert_int_equal(types[3], NNST_CHUNK_CLOCK);
	assert_int_equal(types[4], NNST_CHUNK_END);

	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(nnst_reader_header(r)->pid, 4242);
	assert_int_equal(nnst_reader_next(r, &type, &p, &len, err, sizeof(err)), 1);
	assert_int_equal(nnst_reader_next(r, &type, &p, &len, err, sizeof(err)), 1);
	/* THREAD record: u32 thread, i64 tid, u32 len, name */
	assert_int_equal(len, 16 + 6);
	{
		uint32_t idx, nl;
		int64_t tid;

		memcpy(&idx, p, 4);
		memcpy(&tid, p + 4, 8);
		memcpy(&nl, p + 12, 4);
		assert_int_equal(idx, 7);
		assert_int_equal(tid, 98765);
		assert_int_equal(nl, 6);
		assert_memory_equal(p + 16, "worker", 6);
	}
	assert_int_equal(nnst_reader_next(r, &type, &p, &len, err, sizeof(err)), 1);
	{
		struct nnst_event ev;

		memcpy(&ev, p + 8 + 64, 32);
		assert_int_equal(ev.ts, 1002);
		assert_int_equal(ev.a, 6);
		assert_int_equal(ev.device, -1);
	}
	nnst_reader_close(r);
}

static void test_cut_everywhere(void **state)
{
	size_t ends[5];
	uint32_t types[8];
	int status;

	(void)state;
	write_sample(ends);
	for (size_t cut = ends[4]; cut >= 64; cut--) {
		int complete = 0;

		assert_int_equal(truncate(path, (off_t)cut), 0);
		for (int i = 0; i < 5; i++)
			complete += ends[i] <= cut;
		assert_int_equal(read_all(types, &status), complete);
		if (cut == 64 || cut == ends[0] || cut == ends[1] || cut == ends[2] ||
		    cut == ends[3] || cut == ends[4])
			assert_int_equal(status, 0); /* a clean chunk boundary */
		else
			assert_int_equal(status, NNS_ETRUNC);
	}
}

static void test_damaged_payload(void **state)
{
	size_t ends[5];
	uint32_t types[8];
	int status, fd;
	uint8_t byte;

	(void)state;
	write_sample(ends);
	fd = open(path, O_RDWR);
	assert_int_equal(pread(fd, &byte, 1, (off_t)ends[1] + 24 + 40), 1);
	byte ^= 0x10;
	assert_int_equal(pwrite(fd, &byte, 1, (off_t)ends[1] + 24 + 40), 1);
	close(fd);
	assert_int_equal(read_all(types, &status), 2); /* STRINGS, THREAD; EVENTS fails its CRC */
	assert_int_equal(status, NNS_ETRUNC);
}

static void test_limits_and_errors(void **state)
{
	struct nnst_writer w;
	struct nnst_header h;
	struct nns_err err;
	struct iovec many[17];
	char one = 'x';
	int fd;

	(void)state;
	nnst_header_init(&h, 1, 0, 0, 0, 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(nnst_writer_init(&w, fd, &h, &err), 0);
	for (int i = 0; i < 17; i++)
		many[i] = (struct iovec){&one, 1};
	assert_int_equal(nnst_writer_chunk(&w, NNST_CHUNK_META, many, 17, &err), NNS_EINVAL);
	{
		struct iovec big = {&one, (size_t)NNST_MAX_CHUNK + 1}; /* never read */

		assert_int_equal(nnst_writer_chunk(&w, NNST_CHUNK_META, &big, 1, &err), NNS_EINVAL);
	}
	assert_int_equal(w.offset, 64);
	assert_int_equal(w.seq, 0);
	nnst_writer_close(&w);

	/* a device that is always full */
	fd = open("/dev/full", O_WRONLY);
	if (fd < 0)
		skip();
	assert_int_equal(nnst_writer_init(&w, fd, &h, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, "No space left"));
	assert_int_equal(nnst_writer_chunk1(&w, NNST_CHUNK_END, NULL, 0, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, "failed earlier"));
	nnst_writer_close(&w);
}

static void test_buf(void **state)
{
	struct nnst_buf b;

	(void)state;
	assert_int_equal(nnst_buf_init(&b, 20), 0);
	assert_int_equal(nnst_buf_u64(&b, 1), 0);
	assert_int_equal(nnst_buf_u32(&b, 2), 0);
	assert_int_equal(nnst_buf_room(&b), 8);
	assert_int_equal(nnst_buf_lstr(&b, "12345", 5), -1); /* 9 > 8: nothing written */
	assert_int_equal(b.n, 12);
	assert_int_equal(nnst_buf_meta(&b, "k", "v"), -1); /* 10 > 8 */
	assert_int_equal(nnst_buf_lstr(&b, "1234", 4), 0);
	assert_int_equal(b.n, 20);
	assert_int_equal(nnst_buf_u32(&b, 1), -1);
	assert_int_equal(nnst_buf_string(&b, 1, "", 0), -1);
	assert_int_equal(nnst_buf_thread(&b, 1, 1, NULL), -1);
	b.n = 0;
	assert_int_equal(nnst_buf_thread(&b, 1, 1, NULL), 0); /* 16 bytes, empty name */
	assert_int_equal(b.n, 16);
	nnst_buf_release(&b);
	assert_null(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reader_roundtrip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut_everywhere, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_payload, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_limits_and_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buf, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
