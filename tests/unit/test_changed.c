/*
 * test_changed.c - a file that changes while it is read is said
 * (importers/changed.h): the messages and statuses of changed_check on
 * real stamps (appended, shrunk, rewritten in place, untouched; after a
 * complete, a truncated and a failed load), then the importers end to end
 * with a hook that appends to the file while it is being read: this test
 * defines pread (the Kineto importer's reads) and fdopen (the .nnst
 * reader's stream over the descriptor the importer opened), which the
 * importers' calls resolve to, so the append lands
 * exactly between the importer's first stamp and its last.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "format/nnst.h"
#include "importers/changed.h"
#include "importers/kineto.h"
#include "importers/nnst.h"
#include "nnstb.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the hook ------------------------------------------------------------------ */

static const char *grow_path; /* the file to append to, NULL: no hook */
static const char *grow_bytes;
static int grow_fd = -1; /* the importer's descriptor of it (pread) */
static int grown;

static void grow(void)
{
	int fd = open(grow_path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, grow_bytes, strlen(grow_bytes)), (ssize_t)strlen(grow_bytes));
	close(fd);
	grown++;
}

/* The Kineto importer reads with pread: the first read past the magic
 * bytes of the hooked file appends to it. */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (grow_path && !grown && fd == grow_fd && n > 2)
		grow();
	return syscall(SYS_pread64, fd, buf, n, off);
}

/* The .nnst reader makes a stream of the importer's descriptor once per
 * pass: the first one appends (nothing else fdopens while the hook is set). */
FILE *fdopen(int fd, const char *mode)
{
	static FILE *(*real)(int, const char *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fdopen");
	if (grow_path && !grown)
		grow();
	return real(fd, mode);
}

/* ---- helpers --------------------------------------------------------------------- */

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static void tmp_name(char *buf, size_t size, const char *suffix)
{
	int fd;

	snprintf(buf, size, "/tmp/nns_changed_XXXXXX%s", suffix);
	fd = mkstemps(buf, (int)strlen(suffix));
	assert_true(fd >= 0);
	close(fd);
}

static const char TRACE[] =
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
    "\"tid\": 1, \"ts\": 10, \"dur\": 5}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
    "\"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 5}]}";

/* ---- changed_check on real stamps ---------------------------------------------- */

static void test_check_messages(void **state)
{
	struct changed_stamp a, b;
	struct nns_err err;
	struct model m;
	char path[64];
	int rc;

	(void)state;
	tmp_name(path, sizeof(path), ".json");
	write_file(path, "0123456789");
	changed_stamp_path(&a, path);
	assert_true(a.ok);
	assert_int_equal(a.size, 10);

	/* untouched: the status and message stay */
	changed_stamp_path(&b, path);
	nns_err_clear(&err);
	assert_int_equal(changed_check(path, &a, &b, 10, NNS_OK, NULL, &err), NNS_OK);
	assert_string_equal(err.msg, "");

	/* appended to after a complete load: NNS_ETRUNC, truncated, said */
	grow_path = path;
	grow_bytes = "abcdefg";
	grown = 0;
	grow();
	grow_path = NULL;
	changed_stamp_path(&b, path);
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	rc = changed_check(path, &a, &b, 10, NNS_OK, &m, &err);
	assert_int_equal(rc, NNS_ETRUNC);
	{
		char want[200];

		snprintf(want, sizeof(want),
			 "%s: grew by 7 bytes while read; the analysis covers the first 10 bytes",
			 path);
		assert_string_equal(err.msg, want);
		assert_true(m.diag.truncated);
		assert_string_equal(m.diag.first_problem, want);
	}
	model_release(&m);

	/* after a truncated load: its own message follows, without the path */
	nns_err_set(&err, NNS_ETRUNC, "%s: byte 10: unexpected end; kept the 1 events", path);
	assert_int_equal(changed_check(path, &a, &b, 10, NNS_ETRUNC, NULL, &err), NNS_ETRUNC);
	assert_non_null(strstr(err.msg, "grew by 7 bytes while read; the analysis covers the "
					"first 10 bytes (byte 10: unexpected end; kept the 1 "
					"events)"));

	/* a failed load keeps its status; the growth is the likely cause */
	nns_err_set(&err, NNS_EFORMAT, "%s: byte 0: empty input", path);
	assert_int_equal(changed_check(path, &a, &b, 10, NNS_EFORMAT, NULL, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, ": byte 0: empty input (the file grew by 7 bytes while "
					"read: is it still being written?)"));

	/* shrunk */
	write_file(path, "0123");
	changed_stamp_path(&b, path);
	nns_err_clear(&err);
	assert_int_equal(changed_check(path, &a, &b, 4, NNS_OK, NULL, &err), NNS_ETRUNC);
	assert_non_null(strstr(err.msg, ": shrank by 6 bytes while read (from 10 to 4 bytes); "
					"the analysis covers the first 4 bytes"));

	/* rewritten in place: same size, another modification time */
	b = a;
	b.mtime_ns += 1000000;
	nns_err_clear(&err);
	assert_int_equal(changed_check(path, &a, &b, 10, NNS_OK, NULL, &err), NNS_ETRUNC);
	assert_non_null(strstr(err.msg, ": was rewritten while read (same size, new "
					"modification time)"));

	/* no stamp (not a regular file): nothing to say */
	changed_stamp_path(&b, "/dev/null");
	assert_false(b.ok);
	nns_err_clear(&err);
	assert_int_equal(changed_check(path, &a, &b, 10, NNS_OK, NULL, &err), NNS_OK);
	unlink(path);
}

/* ---- the importers, appended to while they read ---------------------------------- */

static void test_kineto_grows(void **state)
{
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;
	struct model m;
	char path[64], want[200];
	int rc;

	(void)state;
	tmp_name(path, sizeof(path), ".json");
	write_file(path, TRACE);
	/* bytes that would break the document if they were parsed */
	grow_path = path;
	grow_bytes = "garbage appended while read";
	grown = 0;
	grow_fd = -1;
	{
		/* the importer's descriptor will be the lowest free one */
		int probe = open("/dev/null", O_RDONLY);

		grow_fd = probe;
		close(probe);
	}
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	rc = kineto_load_file(path, &m, &o, &err);
	grow_path = NULL;
	assert_int_equal(grown, 1);
	assert_int_equal(rc, NNS_ETRUNC);
	snprintf(want, sizeof(want),
		 "%s: grew by 27 bytes while read; the analysis covers the first %zu bytes", path,
		 strlen(TRACE));
	assert_string_equal(err.msg, want);
	/* the document as it was when opened: both events, nothing else */
	assert_int_equal(m.events.n, 2);
	assert_true(m.diag.truncated);
	model_release(&m);

	/* read again, unchanged: the garbage is now read, and is a problem
	 * of its own (data after the document: a note, as nothing is lost), the growth
	 * is not */
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	rc = kineto_load_file(path, &m, &o, &err);
	assert_int_equal(rc, NNS_OK);
	snprintf(want, sizeof(want),
		 "%s: byte %zu: data after the end of the JSON document ignored", path,
		 strlen(TRACE));
	assert_string_equal(m.diag.first_note, want);
	model_release(&m);
	unlink(path);
}

static void test_nnst_grows(void **state)
{
	struct nb b = {0}, ev = {0};
	struct nns_err err;
	struct model m;
	char path[64], want[300];
	int rc;

	(void)state;
	tmp_name(path, sizeof(path), ".nnst");
	nb_header(&b, 4242, 0, 1700000000000000000LL, 1000000, 0);
	nb_string(&b, 1, "work");
	nb_thread(&b, 0, 4243, "main");
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, 1, -1, 0, 0);
	nb_ev(&ev, 2000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(nb_write(&b, path, b.n), 0);
	grow_path = path;
	grow_bytes = "0123456789abcdef";
	grown = 0;
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	rc = nnst_load_file(path, &m, &err);
	grow_path = NULL;
	assert_int_equal(grown, 1);
	assert_int_equal(rc, NNS_ETRUNC);
	/* the passes read what they found, the appended bytes included: 16
	 * bytes that are no chunk, where the reader stops */
	snprintf(want, sizeof(want),
		 "%s: grew by 16 bytes while read; the analysis covers the first %zu bytes (byte "
		 "%zu: ",
		 path, b.n, b.n);
	assert_memory_equal(err.msg, want, strlen(want));
	assert_int_equal(m.events.n, 1);
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_messages),
	    cmocka_unit_test(test_kineto_grows),
	    cmocka_unit_test(test_nnst_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
