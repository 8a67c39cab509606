/*
 * sqlite_tmp.c - the SQLite export's temporary database file (sqlite_int.h).
 *
 * The database is written into "<target>.nnscope-tmp.<host>.<pid>.<salt>"
 * beside the target and renamed over it when complete. A failed export
 * removes it; a killed one cannot, so each export first sweeps its
 * directory: a file of that shape whose host is this host and whose pid
 * is no longer running is the leftover of a killed export, and goes.
 * Files of other hosts (a shared file system), of live processes or of
 * any other shape are never touched.
 */
#include "output/sqlite_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* This host's name as it goes into a file name ('/' and '.' made '_',
 * so that the pid after it is found from the end). */
static void host_tag(char *h, size_t size)
{
	size_t i;

	if (gethostname(h, size) != 0 || !h[0])
		snprintf(h, size, "localhost");
	h[size - 1] = '\0';
	for (i = 0; h[i]; i++)
		if (h[i] == '/' || h[i] == '.')
			h[i] = '_';
}

int sq_tmp_create(char *tmp, size_t size, const char *path, struct nns_err *err)
{
	char host[128];
	struct timespec ts;
	int fd = -1;

	host_tag(host, sizeof(host));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		unsigned long salt = ((unsigned long)ts.tv_nsec + i * 7919u) & 0xffffffUL;
		int n = snprintf(tmp, size, "%s" SQ_TMP_TAG "%s.%ld.%lx", path, host,
				 (long)getpid(), salt);

		if (n < 0 || (size_t)n >= size) {
			tmp[0] = '\0';
			return nns_err_set(err, NNS_EINVAL, "%s: path too long", path);
		}
		/* closed empty: an empty file is a valid new SQLite database */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;

		tmp[0] = '\0';
		return nns_err_set(err, NNS_EIO, "%s: cannot create: %s", path, strerror(e));
	}
	close(fd);
	return NNS_OK;
}

/* The pid of a temporary of this host named `name`, or 0. */
static long stale_pid(const char *name, const char *host)
{
	const char *tag = strstr(name, SQ_TMP_TAG), *h, *dot;
	size_t hn = strlen(host);
	char *end;
	long pid;

	if (!tag || tag == name)
		return 0;
	h = tag + strlen(SQ_TMP_TAG);
	if (strncmp(h, host, hn) != 0 || h[hn] != '.')
		return 0;
	pid = strtol(h + hn + 1, &end, 10);
	if (end == h + hn + 1 || *end != '.' || pid <= 0)
		return 0;
	for (dot = end + 1; *dot; dot++)
		if (!((*dot >= '0' && *dot <= '9') || (*dot >= 'a' && *dot <= 'f')))
			return 0;
	return dot > end + 1 ? pid : 0;
}

int sq_tmp_sweep(const char *dir)
{
	char host[128], path[OUT_PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (!(d = opendir(dir)))
		return 0;
	host_tag(host, sizeof(host));
	while ((de = readdir(d)) != NULL) {
		long pid = stale_pid(de->d_name, host);
		struct stat st;
		int n;

		/* a live process (EPERM: someone else's) keeps its file */
		if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		n = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path) || lstat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		removed += unlink(path) == 0;
	}
	closedir(d);
	return removed;
}
