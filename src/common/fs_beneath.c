/*
 * fs_beneath.c - opens confined to a root directory (fs.h): openat2 with
 * RESOLVE_BENEATH, else (and for absolute links that name the root) a walk
 * from the root's descriptor, one O_NOFOLLOW component at a time.
 */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h> /* Linux 5.6+ headers: Debian 11 onwards */
#ifndef SYS_openat2
#define SYS_openat2 437 /* one number on every architecture */
#endif

#define FS_LINKS_MAX 40	 /* symbolic links followed in one open, as the kernel */
#define FS_DEPTH_MAX 256 /* directories held open during a walk */

/* ---- the root ---------------------------------------------------------------- */

int fs_root_open(struct fs_root *r, const char *path, struct nns_err *err)
{
	char real[PATH_MAX];
	size_t n = path ? strlen(path) : 0;
	struct stat st, rst;
	int fd, e;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (n == 0 || n >= FS_PATH_MAX)
		return nns_err_set(err, NNS_EINVAL, "%s: bad directory name", path ? path : "");
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = fd < 0 || fstat(fd, &st) != 0 || !realpath(path, real) || stat(real, &rst) != 0 ? errno
											    : 0;
	/* the real path must name the directory opened (it maps absolute links) */
	if (!e && (st.st_dev != rst.st_dev || st.st_ino != rst.st_ino))
		e = EAGAIN;
	if (e) {
		if (fd >= 0)
			close(fd);
		return nns_err_set(err, e == ENOENT || e == ENOTDIR ? NNS_ENOTFOUND : NNS_EIO,
				   "%s: %s", path, strerror(e));
	}
	r->path = strdup(path);
	r->real = strdup(real);
	if (!r->path || !r->real) {
		free(r->path);
		free(r->real);
		close(fd);
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	}
	r->fd = fd;
	while (n > 1 && r->path[n - 1] == '/')
		r->path[--n] = '\0';
	return NNS_OK;
}

void fs_root_close(struct fs_root *r)
{
	if (r->path && r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->real);
	r->fd = -1;
	r->path = r->real = NULL;
}

/* ---- paths ------------------------------------------------------------------- */

/* path with prefix pre ("/" or no trailing slash) removed: what follows it,
 * or NULL when path is not pre or under it. */
static const char *under(const char *path, const char *pre)
{
	size_t n;

	if (!pre)
		return NULL;
	if (strcmp(pre, "/") == 0)
		return path[0] == '/' ? path + 1 : NULL;
	n = strlen(pre);
	if (strncmp(path, pre, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

/* The part of path to resolve from the root's descriptor ("" for the root
 * itself), or NULL (EXDEV) when an absolute path lies elsewhere. */
static const char *rel_of(const struct fs_root *r, const char *path)
{
	const char *p = under(path, r->path);

	if (!p)
		p = under(path, r->real);
	if (!p && path[0] != '/')
		p = path; /* relative to the root */
	if (!p)
		return NULL;
	while (*p == '/')
		p++;
	return p;
}

/* ---- the walk ---------------------------------------------------------------- */

struct walk {
	const struct fs_root *r;
	int dirs[FS_DEPTH_MAX]; /* the directories under the root on the way */
	int depth;
	int links;
	char path[FS_PATH_MAX]; /* what is left to resolve */
};

static int cur_fd(const struct walk *w)
{
	return w->depth ? w->dirs[w->depth - 1] : w->r->fd;
}

static void walk_reset(struct walk *w)
{
	while (w->depth > 0)
		close(w->dirs[--w->depth]);
}

static int fail(struct walk *w, int e)
{
	walk_reset(w);
	errno = e;
	return -1;
}

/* Replaces the path left with target + "/" + rest: a symbolic link met on
 * the way. An absolute target must name the root (its real path or its
 * path as given): the walk restarts at the root. 0, or -1 with errno. */
static int follow(struct walk *w, const char *target, const char *rest)
{
	char next[FS_PATH_MAX];
	const char *t = target;
	int n;

	if (++w->links > FS_LINKS_MAX)
		return fail(w, ELOOP);
	if (target[0] == '/') {
		t = under(target, w->r->real);
		if (!t && w->r->path[0] == '/')
			t = under(target, w->r->path);
		if (!t)
			return fail(w, EXDEV);
		walk_reset(w);
	}
	n = snprintf(next, sizeof(next), "%s%s%s", t, *rest ? "/" : "", rest);
	if (n < 0 || (size_t)n >= sizeof(next))
		return fail(w, ENAMETOOLONG);
	memcpy(w->path, next, (size_t)n + 1);
	return 0;
}

/* Puts name back in front of the path left: the component is looked at
 * again (it changed between the fstatat and the open). 0, or -1 with errno
 * once that happened FS_LINKS_MAX times. */
static int again(struct walk *w, const char *name)
{
	char left[FS_PATH_MAX];

	memcpy(left, w->path, strlen(w->path) + 1);
	return follow(w, name, left);
}

/* Opens the last component, name, in the current directory. */
static int open_last(struct walk *w, const char *name, int flags, mode_t mode, int *retry)
{
	struct stat st;
	int fd = openat(cur_fd(w), name, flags | O_NOFOLLOW | O_CLOEXEC, mode);

	*retry = 0;
	if (fd >= 0 && (flags & O_PATH) && (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode))) {
		close(fd); /* O_PATH | O_NOFOLLOW opened the link itself */
		fd = -1;
		errno = ELOOP;
	}
	if (fd < 0 && errno == ELOOP) {
		*retry = 1; /* became a link since the fstatat: look again */
		return -1;
	}
	return fd;
}

/* Enters the directory name: 0, 1 to look at it again, -1 on error. */
static int enter(struct walk *w, const char *name)
{
	struct stat st;
	int fd;

	if (w->depth >= FS_DEPTH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(cur_fd(w), name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))) {
		close(fd);
		return 1; /* became a link since the fstatat */
	}
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? 1 : -1;
	w->dirs[w->depth++] = fd;
	return 0;
}

/* Takes the next component of w->path into name (NAME_MAX + 1 bytes) and
 * removes it; *last when nothing follows. 0, 1 when the path is used up,
 * -1 (ENAMETOOLONG). */
static int next_name(struct walk *w, char *name, int *last)
{
	const char *p = w->path, *rest;
	size_t k;

	while (*p == '/')
		p++;
	if (!*p)
		return 1;
	for (k = 0; p[k] && p[k] != '/'; k++)
		;
	if (k > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, p, k);
	name[k] = '\0';
	for (rest = p + k; *rest == '/'; rest++)
		;
	*last = *rest == '\0';
	memmove(w->path, rest, strlen(rest) + 1);
	return 0;
}

static int walk_open(const struct fs_root *r, const char *rel, int flags, mode_t mode)
{
	struct walk w;
	size_t n = strlen(rel);

	if (n >= sizeof(w.path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	w.r = r;
	w.depth = 0;
	w.links = 0;
	memcpy(w.path, rel, n + 1);
	for (;;) {
		char name[NAME_MAX + 1], target[FS_PATH_MAX];
		struct stat st;
		ssize_t tl;
		int fd, last = 0, k, retry;

		k = next_name(&w, name, &last);
		if (k < 0)
			return fail(&w, errno);
		if (k > 0) { /* the path named the directory reached */
			fd = openat(cur_fd(&w), ".", flags | O_CLOEXEC, mode);
			k = errno;
			walk_reset(&w);
			errno = k;
			return fd;
		}
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if (w.depth == 0)
				return fail(&w, EXDEV); /* above the root */
			close(w.dirs[--w.depth]);
			continue;
		}
		if (fstatat(cur_fd(&w), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT || !last || !(flags & O_CREAT))
				return fail(&w, errno);
			st.st_mode = S_IFREG; /* to be created, never through a link */
		}
		if (S_ISLNK(st.st_mode)) {
			char left[FS_PATH_MAX];

			tl = readlinkat(cur_fd(&w), name, target, sizeof(target) - 1);
			if (tl < 0)
				return fail(&w, errno);
			target[tl] = '\0';
			memcpy(left, w.path, strlen(w.path) + 1);
			if (follow(&w, target, left))
				return -1;
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode))
				return fail(&w, ENOTDIR);
			k = enter(&w, name);
			if (k < 0)
				return fail(&w, errno);
			if (k > 0 && again(&w, name))
				return -1;
			continue;
		}
		fd = open_last(&w, name, flags, mode, &retry);
		if (fd < 0 && retry) {
			if (again(&w, name))
				return -1;
			continue;
		}
		k = errno;
		walk_reset(&w);
		errno = k;
		return fd;
	}
}

/* ---- the entry points --------------------------------------------------------- */

int fs_open_beneath(const struct fs_root *root, const char *path, int flags, mode_t mode)
{
	struct open_how how;
	const char *rel;
	int fd;

	if (!root)
		return open(path, flags | O_CLOEXEC, mode);
	if (root->fd < 0) {
		errno = EBADF;
		return -1;
	}
	rel = rel_of(root, path);
	if (!rel) {
		errno = EXDEV;
		return -1;
	}
	if (!root->walk_only) {
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
		how.mode = flags & O_CREAT ? mode : 0;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, root->fd, *rel ? rel : ".", &how, sizeof(how));
		/* EXDEV: maybe an absolute link naming the root, which the
		 * walk accepts; ENOSYS, EPERM: no openat2 (old kernel, seccomp);
		 * EAGAIN: a rename raced a ".." */
		if (fd >= 0 ||
		    (errno != EXDEV && errno != ENOSYS && errno != EPERM && errno != EAGAIN))
			return fd;
	}
	return walk_open(root, rel, flags, mode);
}

FILE *fs_fopen_beneath(const struct fs_root *root, const char *path)
{
	int fd = fs_open_beneath(root, path, O_RDONLY | O_NONBLOCK, 0);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

DIR *fs_opendir_beneath(const struct fs_root *root, const char *path)
{
	int fd;
	DIR *d;

	if (!root)
		return opendir(path);
	fd = fs_open_beneath(root, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

int fs_stat_beneath(const struct fs_root *root, const char *path, struct stat *st)
{
	int fd, rc, e;

	if (!root)
		return stat(path, st);
	fd = fs_open_beneath(root, path, O_PATH, 0);
	if (fd < 0)
		return -1;
	rc = fstat(fd, st);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* ---- messages ------------------------------------------------------------------ */

int fs_refused(const struct fs_root *root, int errnum)
{
	return root && (errnum == EXDEV || errnum == ELOOP);
}

void fs_why(char *dst, size_t size, const struct fs_root *root, int errnum)
{
	if (fs_refused(root, errnum))
		snprintf(dst, size, "refused: resolves outside %s%s", root->path,
			 errnum == ELOOP ? " or through too many symbolic links" : "");
	else
		snprintf(dst, size, "%s", strerror(errnum));
}

int fs_open_error(struct nns_err *err, int code, const struct fs_root *root, const char *path,
		  int errnum)
{
	char why[FS_PATH_MAX + 96];

	fs_why(why, sizeof(why), root, errnum);
	if (fs_refused(root, errnum))
		return nns_err_set(err, NNS_EIO, "%s: %s", path, why);
	return nns_err_set(err, code, "%s: cannot open: %s", path, why);
}
