/*
 * test_fs_beneath.c - opens confined to a root directory (common/fs.h) on a
 * real temporary tree, each case twice: through openat2 and through the
 * O_NOFOLLOW walk (walk_only):
 *   - files, links to files and to directories inside the root (relative,
 *     and absolute ones naming the root's real path) open, by a path
 *     prefixed with the root as given, by its real path, or relative;
 *   - a link out (relative ../, absolute), a directory link out, ".." above
 *     the root, an absolute path elsewhere and a link loop are refused with
 *     EXDEV / ELOOP, and O_CREAT through a dangling link out creates
 *     nothing outside;
 *   - a link checked while it points inside and switched to the outside
 *     before the open is refused; a thread flipping a link between inside
 *     and outside while the main thread opens it: every open that succeeds
 *     reads the inside file, never the outside one;
 *   - opendir / stat beneath, the NULL root (plain open), and the message
 *     ("<path>: refused: resolves outside <root>", no file content).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "testutil.h"

static char top[64];	/* the temporary tree: top/root (the root), top/out */
static char rootp[128]; /* top/root */

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkd(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void lnk(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/nns-fsb.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(rootp, sizeof(rootp), "%s/root", top);
	mkd("root");
	mkd("root/a");
	mkd("root/a/b");
	mkd("out");
	put("root/in.txt", "inside");
	put("root/a/b/deep.txt", "deep");
	put("out/secret.txt", "outside");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(top);
	return 0;
}

/* What path holds when opened beneath r: its first bytes into buf, or
 * NULL with errno. */
static const char *read_beneath(const struct fs_root *r, const char *path, char *buf, size_t n)
{
	int fd = fs_open_beneath(r, path, O_RDONLY, 0);
	ssize_t got;

	if (fd < 0)
		return NULL;
	got = read(fd, buf, n - 1);
	close(fd);
	buf[got > 0 ? got : 0] = '\0';
	return buf;
}

static void open_root(struct fs_root *r, int walk_only)
{
	struct nns_err err;

	assert_int_equal(fs_root_open(r, rootp, &err), NNS_OK);
	r->walk_only = walk_only;
}

/* Refused: NULL with EXDEV or ELOOP. */
static void assert_refused(const struct fs_root *r, const char *path)
{
	char buf[64];

	errno = 0;
	if (read_beneath(r, path, buf, sizeof(buf)) != NULL)
		fail_msg("%s opened (read '%s') where it should be refused", path, buf);
	if (!fs_refused(r, errno))
		fail_msg("%s: errno %d (%s), not a refusal", path, errno, strerror(errno));
}

static void assert_reads(const struct fs_root *r, const char *path, const char *want)
{
	char buf[64];
	const char *got = read_beneath(r, path, buf, sizeof(buf));

	if (!got)
		fail_msg("%s: %s", path, strerror(errno));
	assert_string_equal(got, want);
}

static void inside(int walk_only)
{
	struct fs_root r;
	char p[PATH_MAX + 64], real[PATH_MAX];

	open_root(&r, walk_only);
	assert_non_null(realpath(rootp, real));
	lnk("in.txt", "root/l_file");
	lnk("a/b", "root/l_dir");
	lnk("../../in.txt", "root/a/b/l_up");
	snprintf(p, sizeof(p), "%s/a/b/deep.txt", real);
	lnk(p, "root/l_abs");
	lnk("l_file", "root/l_chain");

	snprintf(p, sizeof(p), "%s/in.txt", rootp);
	assert_reads(&r, p, "inside");
	snprintf(p, sizeof(p), "%s/in.txt", real);
	assert_reads(&r, p, "inside");
	assert_reads(&r, "in.txt", "inside");
	assert_reads(&r, "a/b/deep.txt", "deep");
	assert_reads(&r, "./a//b/../b/deep.txt", "deep");
	snprintf(p, sizeof(p), "%s/l_file", rootp);
	assert_reads(&r, p, "inside");
	assert_reads(&r, "l_dir/deep.txt", "deep");
	assert_reads(&r, "a/b/l_up", "inside");
	assert_reads(&r, "l_abs", "deep"); /* absolute, naming the root's real path */
	assert_reads(&r, "l_chain", "inside");
	fs_root_close(&r);
}

static void test_inside(void **state)
{
	(void)state;
	inside(0);
	inside(1);
}

static void outside(int walk_only)
{
	struct fs_root r;
	char p[512], o[512];
	struct stat st;

	open_root(&r, walk_only);
	snprintf(o, sizeof(o), "%s/out/secret.txt", top);
	lnk("../out/secret.txt", "root/l_rel");
	lnk(o, "root/l_abs");
	lnk("/etc/passwd", "root/l_passwd");
	snprintf(p, sizeof(p), "%s/out", top);
	lnk(p, "root/l_dir");
	lnk("../../../out", "root/a/b/l_up3");
	lnk("loop2", "root/loop1");
	lnk("loop1", "root/loop2");

	assert_refused(&r, "l_rel");
	assert_refused(&r, "l_abs");
	assert_refused(&r, "l_passwd");
	assert_refused(&r, "l_dir/secret.txt");
	assert_refused(&r, "a/b/l_up3/secret.txt");
	assert_refused(&r, "../out/secret.txt");
	assert_refused(&r, "a/../../out/secret.txt");
	snprintf(p, sizeof(p), "%s/../out/secret.txt", rootp);
	assert_refused(&r, p);
	assert_refused(&r, o); /* an absolute path elsewhere */
	assert_refused(&r, "/etc/passwd");
	assert_refused(&r, "loop1");
	/* stat and opendir are confined the same way */
	errno = 0;
	assert_int_equal(fs_stat_beneath(&r, "l_passwd", &st), -1);
	assert_true(fs_refused(&r, errno));
	errno = 0;
	assert_null(fs_opendir_beneath(&r, "l_dir"));
	assert_true(fs_refused(&r, errno));
	/* O_CREAT through a dangling link out creates nothing outside */
	snprintf(p, sizeof(p), "%s/out/created.txt", top);
	lnk(p, "root/l_new");
	assert_int_equal(fs_open_beneath(&r, "l_new", O_WRONLY | O_CREAT, 0644), -1);
	assert_true(fs_refused(&r, errno));
	assert_int_not_equal(access(p, F_OK), 0);
	lnk("../out/created.txt", "root/l_new");
	assert_int_equal(fs_open_beneath(&r, "l_new", O_WRONLY | O_CREAT, 0644), -1);
	assert_int_not_equal(access(p, F_OK), 0);
	fs_root_close(&r);
}

static void test_outside(void **state)
{
	(void)state;
	outside(0);
	outside(1);
}

/* A link checked while it points inside, then switched out before the open. */
static void swapped(int walk_only)
{
	struct fs_root r;
	struct stat st;
	char o[512];
	int fd;

	open_root(&r, walk_only);
	lnk("in.txt", "root/l");
	assert_int_equal(fs_stat_beneath(&r, "l", &st), 0); /* the check: inside */
	snprintf(o, sizeof(o), "%s/out/secret.txt", top);
	lnk(o, "root/l");
	assert_refused(&r, "l");
	lnk("/etc/passwd", "root/l");
	assert_refused(&r, "l");
	/* a descriptor opened while inside keeps reading the inside file */
	lnk("in.txt", "root/l");
	fd = fs_open_beneath(&r, "l", O_RDONLY, 0);
	assert_true(fd >= 0);
	lnk(o, "root/l");
	{
		char buf[16] = "";

		assert_int_equal(read(fd, buf, 6), 6);
		assert_memory_equal(buf, "inside", 6);
	}
	close(fd);
	fs_root_close(&r);
}

static void test_swapped(void **state)
{
	(void)state;
	swapped(0);
	swapped(1);
}

struct flipper {
	char a[512], b[512], tmp[512], link[512];
	_Atomic int stop;
	_Atomic long flips;
};

/* Flips root/race between a link inside and a link out, atomically
 * (rename over it), until told to stop. */
static void *flip(void *arg)
{
	struct flipper *f = arg;

	for (long i = 0; !atomic_load(&f->stop); i++) {
		unlink(f->tmp);
		if (symlink(i & 1 ? f->b : f->a, f->tmp) == 0 && rename(f->tmp, f->link) == 0)
			atomic_fetch_add(&f->flips, 1);
	}
	return NULL;
}

static void race(int walk_only)
{
	struct fs_root r;
	struct flipper f;
	pthread_t th;
	long ok = 0, refused = 0;

	open_root(&r, walk_only);
	memset(&f, 0, sizeof(f));
	snprintf(f.a, sizeof(f.a), "a/b/deep.txt");
	snprintf(f.b, sizeof(f.b), "%s/out/secret.txt", top);
	snprintf(f.tmp, sizeof(f.tmp), "%s/root/race.tmp", top);
	snprintf(f.link, sizeof(f.link), "%s/root/race", top);
	unlink(f.link);
	assert_int_equal(symlink(f.a, f.link), 0);
	assert_int_equal(pthread_create(&th, NULL, flip, &f), 0);
	/* 20000 opens, more until both sides were seen (a loaded machine may
	 * not run the flipper at once) */
	for (long i = 0; i < 20000 || ((!ok || !refused) && i < 2000000); i++) {
		char buf[64];

		errno = 0;
		if (read_beneath(&r, "race", buf, sizeof(buf))) {
			assert_string_equal(buf, "deep");
			ok++;
		} else if (fs_refused(&r, errno)) {
			refused++;
		} else {
			assert_int_equal(errno, ENOENT); /* between unlink and rename: none */
		}
	}
	atomic_store(&f.stop, 1);
	pthread_join(th, NULL);
	/* both sides were seen: the race ran */
	print_message("  %s: %ld inside, %ld refused, %ld flips\n", walk_only ? "walk" : "openat2",
		      ok, refused, atomic_load(&f.flips));
	assert_true(ok > 0);
	assert_true(refused > 0);
	fs_root_close(&r);
}

static void test_race(void **state)
{
	(void)state;
	race(0);
	race(1);
}

static void test_misc(void **state)
{
	struct fs_root r;
	struct nns_err err;
	char p[512], msg[64];
	struct stat st;
	DIR *d;
	int fd;

	(void)state;
	open_root(&r, 0);
	/* directories */
	d = fs_opendir_beneath(&r, rootp);
	assert_non_null(d);
	closedir(d);
	d = fs_opendir_beneath(&r, "a/b");
	assert_non_null(d);
	closedir(d);
	assert_int_equal(fs_stat_beneath(&r, "a/b/deep.txt", &st), 0);
	assert_int_equal(st.st_size, 4);
	/* absent: ENOENT, not a refusal */
	errno = 0;
	assert_int_equal(fs_open_beneath(&r, "nope.txt", O_RDONLY, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(fs_refused(&r, errno));
	/* the message names the path and the root, nothing of the file */
	lnk("/etc/passwd", "root/l_passwd");
	snprintf(p, sizeof(p), "%s/l_passwd", rootp);
	errno = 0;
	assert_int_equal(fs_open_beneath(&r, p, O_RDONLY, 0), -1);
	nns_err_clear(&err);
	assert_int_equal(fs_open_error(&err, NNS_ENOTFOUND, &r, p, errno), NNS_EIO);
	snprintf(msg, sizeof(msg), ": refused: resolves outside ");
	assert_non_null(strstr(err.msg, msg));
	assert_non_null(strstr(err.msg, rootp));
	assert_null(strstr(err.msg, "root:"));
	assert_int_equal(strncmp(err.msg, p, strlen(p)), 0);
	fs_root_close(&r);
	fs_root_close(&r); /* twice is harmless */

	/* the NULL root opens as open(2) does, links out included */
	fd = fs_open_beneath(NULL, p, O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fs_stat_beneath(NULL, p, &st), 0);
	/* a root that is not a directory */
	snprintf(p, sizeof(p), "%s/in.txt", rootp);
	assert_int_equal(fs_root_open(&r, p, &err), NNS_ENOTFOUND);
	snprintf(p, sizeof(p), "%s/nope", top);
	assert_int_equal(fs_root_open(&r, p, &err), NNS_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_inside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outside, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_swapped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_race, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_misc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
