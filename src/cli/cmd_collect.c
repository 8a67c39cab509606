/*
 * cmd_collect.c - `nnscope collect --hosts FILE --remote-path PATH --out RUN`:
 * gathers each host's profiler directory (nnscope's .nnst traces and
 * host_info, or MindSpore profiler output) over ssh + rsync into
 * RUN/host<N>/, and writes RUN/host_ips_mapping.txt with the aliases and a
 * salted hash of each address, never the address itself (collect.h).
 *
 * Authentication is by key only: ssh always runs with -o BatchMode=yes, so
 * it never asks for a password. ssh and rsync are started with fork +
 * execvp, their arguments as argv (no shell on this side); the remote
 * path is quoted for the remote shell. A host that fails (unreachable,
 * refused, no such path, rsync error) is reported in one line and the
 * others are still gathered; the exit code is 1 if any failed.
 */
#include "cli/cli.h"
#include "cli/collect.h"
#include "output/outfile.h"
#include "common/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope collect --hosts FILE --remote-path PATH --out RUN [options]\n"
    "\n"
    "Copies PATH of every host in FILE into RUN/host0, RUN/host1, ... (ssh + rsync,\n"
    "key authentication only) and writes RUN/host_ips_mapping.txt with the aliases\n"
    "and a salted hash of each address (the addresses themselves are not stored).\n"
    "Then `nnscope analyse RUN --out DIR` analyses the ranks of all hosts as one\n"
    "cluster (docs/CLUSTER.md).\n"
    "\n"
    "Hosts file: one host per line, `[user@]host[:port] [PATH]` (PATH overrides\n"
    "--remote-path for that host; [v6addr]:port for IPv6); '#' starts a comment.\n"
    "\n"
    "Options:\n"
    "      --hosts FILE        the hosts file (required)\n"
    "      --remote-path PATH  the directory to gather on each host (relative: to\n"
    "                          the remote home); required unless every line has one\n"
    "  -o, --out RUN           where to gather (created if missing; required)\n"
    "  -i, --identity KEY      ssh private key file (ssh -i KEY -o IdentitiesOnly=yes)\n"
    "  -p, --port N            ssh port for hosts without :port (default: ssh's)\n"
    "      --ssh-opt OPT       an ssh -o option, e.g. StrictHostKeyChecking=accept-new\n"
    "                          (repeatable)\n"
    "      --connect-timeout S ssh ConnectTimeout in seconds (default 10)\n"
    "  -q, --quiet             print nothing but errors\n"
    "  -h, --help              show this help\n"
    "Environment: NNSCOPE_SSH, NNSCOPE_RSYNC name other ssh / rsync programs.\n";

#define COLLECT_MAX_HOSTS 4096
#define COLLECT_MAX_SSH_OPTS 32

struct host {
	char dest[512]; /* [user@]host, for ssh */
	char key[600];	/* [user@]host:port as written (hashed) */
	long port;	/* 0 = ssh's default */
	char path[2048];
	int line;
};

struct collect {
	const char *hosts_file, *remote_path, *out, *identity;
	const char *ssh, *rsync;
	long port, timeout;
	const char *ssh_opts[COLLECT_MAX_SSH_OPTS];
	int nssh_opts;
	int quiet;
};

/* ---- SHA-256 (FIPS 180-4), for the salted address hashes ---------------- */

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t nbuf;
};

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(a, s->h, sizeof(a));
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ROR(a[4], 6) ^ ROR(a[4], 11) ^ ROR(a[4], 25);
		uint32_t ch = (a[4] & a[5]) ^ (~a[4] & a[6]);
		uint32_t t1 = a[7] + S1 + ch + K256[i] + w[i];
		uint32_t S0 = ROR(a[0], 2) ^ ROR(a[0], 13) ^ ROR(a[0], 22);
		uint32_t mj = (a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]);

		memmove(a + 1, a, 7 * sizeof(a[0]));
		a[4] += t1;
		a[0] = t1 + S0 + mj;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += a[i];
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->nbuf = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;

	s->len += n;
	while (n > 0) {
		size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;

		memcpy(s->buf + s->nbuf, p, k);
		s->nbuf += k;
		p += k;
		n -= k;
		if (s->nbuf == 64) {
			sha256_block(s, s->buf);
			s->nbuf = 0;
		}
	}
}

static void sha256_final(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, lenb[8];

	sha256_update(s, &pad, 1);
	while (s->nbuf != 56)
		sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, lenb, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

/* ---- hosts file ----------------------------------------------------------- */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Characters ssh would take as an option or a remote shell would expand:
 * refused in a host field. */
static int bad_host_char(const char *s)
{
	if (*s == '-')
		return 1;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-@:[]%", *s)))
			return 1;
	return 0;
}

/* "[user@]host[:port] [PATH]" -> h. 0, or -1 with msg. */
static int parse_host(char *line, struct host *h, char *msg, size_t size)
{
	char *field = line, *path, *hp, *colon;
	long port = 0;

	path = field + strcspn(field, " \t");
	if (*path) {
		*path++ = '\0';
		path = trim(path);
	}
	if (bad_host_char(field)) {
		snprintf(msg, size, "'%s' is not [user@]host[:port]", field);
		return -1;
	}
	snprintf(h->key, sizeof(h->key), "%s", field);
	hp = strrchr(field, '@');
	hp = hp ? hp + 1 : field;
	if (*hp == '[') { /* [v6]:port */
		char *close = strchr(hp, ']');

		if (!close) {
			snprintf(msg, size, "'%s': missing ']'", field);
			return -1;
		}
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon) {
			snprintf(msg, size, "'%s': junk after ']'", field);
			return -1;
		}
		*close = '\0';
		memmove(hp, hp + 1, strlen(hp + 1) + 1);
	} else {
		colon = strchr(hp, ':');
		if (colon && strchr(colon + 1, ':')) {
			snprintf(msg, size, "'%s': an IPv6 address needs [addr]:port", field);
			return -1;
		}
	}
	if (colon) {
		*colon = '\0';
		if (cli_parse_int(colon + 1, 1, 65535, &port)) {
			snprintf(msg, size, "'%s': the port must be 1..65535", h->key);
			return -1;
		}
	}
	if (!*hp || (hp == field + 1 && *field == '@')) {
		snprintf(msg, size, "'%s': no host name", h->key);
		return -1;
	}
	if (strlen(field) >= sizeof(h->dest) || strlen(path) >= sizeof(h->path)) {
		snprintf(msg, size, "'%s': too long", h->key);
		return -1;
	}
	snprintf(h->dest, sizeof(h->dest), "%s", field);
	snprintf(h->path, sizeof(h->path), "%s", path);
	h->port = port;
	return 0;
}

static int read_hosts(const struct collect *c, struct host **hv, size_t *n)
{
	FILE *f = fopen(c->hosts_file, "r");
	char line[4096], msg[1600], pmsg[1400];
	int lineno = 0;

	*hv = NULL;
	*n = 0;
	if (!f) {
		snprintf(msg, sizeof(msg), "%s: %s", c->hosts_file, strerror(errno));
		cli_error(NULL, msg);
		return CLI_EINPUT;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *hash;
		struct host h, *nv;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(msg, sizeof(msg), "%s:%d: line too long", c->hosts_file, lineno);
			goto bad;
		}
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		memset(&h, 0, sizeof(h));
		h.line = lineno;
		if (parse_host(s, &h, pmsg, sizeof(pmsg))) {
			snprintf(msg, sizeof(msg), "%s:%d: %s", c->hosts_file, lineno, pmsg);
			goto bad;
		}
		if (!h.path[0]) {
			if (!c->remote_path) {
				snprintf(msg, sizeof(msg),
					 "%s:%d: no path on the line and no --remote-path",
					 c->hosts_file, lineno);
				goto bad;
			}
			snprintf(h.path, sizeof(h.path), "%s", c->remote_path);
		}
		if (!h.port)
			h.port = c->port;
		if (*n >= COLLECT_MAX_HOSTS) {
			snprintf(msg, sizeof(msg), "%s: more than %d hosts", c->hosts_file,
				 COLLECT_MAX_HOSTS);
			goto bad;
		}
		if (!(nv = realloc(*hv, (*n + 1) * sizeof(*nv)))) {
			snprintf(msg, sizeof(msg), "out of memory");
			goto bad;
		}
		*hv = nv;
		(*hv)[(*n)++] = h;
	}
	fclose(f);
	if (*n == 0) {
		snprintf(msg, sizeof(msg), "%s: no hosts in the file", c->hosts_file);
		cli_error(NULL, msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
bad:
	fclose(f);
	free(*hv);
	*hv = NULL;
	cli_error(NULL, msg);
	return CLI_EINPUT;
}

/* ---- running ssh / rsync -------------------------------------------------- */

/* Runs argv with stdin and stdout on /dev/null and stderr captured (the
 * last size-1 bytes into tail). Returns the exit status, 127 when the
 * program could not be started, 128+N for a signal, -1 if fork failed. */
static int run_child(char *const argv[], char *tail, size_t size)
{
	int fd[2], st, null;
	pid_t pid;
	size_t n = 0;
	char buf[1024];
	ssize_t k;

	tail[0] = '\0';
	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	while ((k = read(fd[0], buf, sizeof(buf))) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < k; i++) {
			if (n + 1 >= size) { /* keep the end */
				memmove(tail, tail + size / 2, n - size / 2);
				n -= size / 2;
			}
			tail[n++] = buf[i];
		}
	}
	tail[n] = '\0';
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The last non-empty line of s, without control characters. */
static const char *last_line(char *s)
{
	char *e = s + strlen(s), *b;

	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
		*--e = '\0';
	b = e;
	while (b > s && b[-1] != '\n')
		b--;
	return *b ? b : "no message";
}

struct argv_buf {
	char *v[64 + 2 * COLLECT_MAX_SSH_OPTS];
	int n;
	char port[16];
};

static void add(struct argv_buf *a, const char *s)
{
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

/* ssh and its options (no destination). */
static void ssh_args(const struct collect *c, const struct host *h, struct argv_buf *a,
		     char *timeout, size_t tsize)
{
	a->n = 0;
	add(a, c->ssh);
	add(a, "-o");
	add(a, "BatchMode=yes"); /* never a password prompt */
	snprintf(timeout, tsize, "ConnectTimeout=%ld", c->timeout);
	add(a, "-o");
	add(a, timeout);
	if (h->port) {
		snprintf(a->port, sizeof(a->port), "%ld", h->port);
		add(a, "-p");
		add(a, a->port);
	}
	if (c->identity) {
		add(a, "-i");
		add(a, c->identity);
		add(a, "-o");
		add(a, "IdentitiesOnly=yes");
	}
	for (int i = 0; i < c->nssh_opts; i++) {
		add(a, "-o");
		add(a, c->ssh_opts[i]);
	}
}

/* Appends s to dst quoted for a POSIX shell ('...' with '\'' for '). */
static int shell_quote(char *dst, size_t size, const char *s)
{
	size_t n = strlen(dst);

	if (n + 1 >= size)
		return -1;
	dst[n++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			if (n + 4 >= size)
				return -1;
			memcpy(dst + n, "'\\''", 4);
			n += 4;
		} else {
			if (n + 1 >= size)
				return -1;
			dst[n++] = *s;
		}
	}
	if (n + 2 > size)
		return -1;
	dst[n++] = '\'';
	dst[n] = '\0';
	return 0;
}

/* The rsync -e command: rsync splits it at spaces and honours quotes. */
static int rsh_string(char *dst, size_t size, char *const *argv)
{
	dst[0] = '\0';
	for (int i = 0; argv[i]; i++) {
		size_t n = strlen(dst);

		if (strchr(argv[i], '\'') && strchr(argv[i], '"'))
			return -1;
		if (snprintf(dst + n, size - n, "%s%s%s%s", i ? " " : "",
			     strchr(argv[i], '\'') ? "\"" : "'", argv[i],
			     strchr(argv[i], '\'') ? "\"" : "'") >= (int)(size - n))
			return -1;
	}
	return 0;
}

/* Path on the remote side: "~/x" -> "x" (ssh and rsync start in the home
 * directory), trailing slashes dropped. */
static void remote_path(char *dst, size_t size, const char *p)
{
	size_t n;

	if (p[0] == '~' && p[1] == '/')
		p += 2;
	else if (p[0] == '~' && !p[1])
		p = ".";
	snprintf(dst, size, "%s", *p ? p : ".");
	n = strlen(dst);
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
}

static void host_error(const char *alias, const struct host *h, const char *what,
		       const char *detail)
{
	char msg[3000];

	snprintf(msg, sizeof(msg), "%s (line %d, %s): %s%s%s", alias, h->line, h->key, what,
		 detail ? ": " : "", detail ? detail : "");
	cli_error(NULL, msg);
}

/* Gathers one host into RUN/<alias>. CLI_OK or CLI_EINPUT (reported). */
static int collect_host(const struct collect *c, const struct host *h, const char *alias)
{
	struct argv_buf a;
	char timeout[48], cmd[4200], rsh[8192], path[2048], src[2700], dst[OUT_PATH_MAX],
	    tail[2048];
	struct nns_err err;
	int rc;

	remote_path(path, sizeof(path), h->path);
	/* 1. reachable, and does the path exist? (a remote shell command) */
	ssh_args(c, h, &a, timeout, sizeof(timeout));
	snprintf(cmd, sizeof(cmd), "test -d ");
	if (shell_quote(cmd, sizeof(cmd), path)) {
		host_error(alias, h, "remote path too long", NULL);
		return CLI_EINPUT;
	}
	add(&a, "--");
	add(&a, h->dest);
	add(&a, cmd);
	rc = run_child(a.v, tail, sizeof(tail));
	if (rc == 127 && strstr(tail, "cannot run")) {
		host_error(alias, h, "ssh is not installed", last_line(tail));
		return CLI_EINPUT;
	}
	if (rc == 255 || rc < 0) {
		host_error(alias, h, "unreachable or key refused (ssh, BatchMode)",
			   last_line(tail));
		return CLI_EINPUT;
	}
	if (rc != 0) {
		char what[2200];

		snprintf(what, sizeof(what), "no such directory %s", path);
		host_error(alias, h, what, tail[0] ? last_line(tail) : NULL);
		return CLI_EINPUT;
	}
	/* 2. rsync PATH/ into RUN/<alias>/ */
	ssh_args(c, h, &a, timeout, sizeof(timeout));
	if (rsh_string(rsh, sizeof(rsh), a.v)) {
		host_error(alias, h, "an ssh option has both kinds of quotes", NULL);
		return CLI_EINPUT;
	}
	nns_err_clear(&err);
	snprintf(src, sizeof(src), "%s:%s/", h->dest, path);
	if (out_join(dst, sizeof(dst), c->out, alias, &err) || fs_mkdirs(dst, &err)) {
		host_error(alias, h, "cannot create the output directory", err.msg);
		return CLI_EINPUT;
	}
	if (strlen(dst) + 2 > sizeof(dst))
		return CLI_EINPUT;
	strcat(dst, "/");
	a.n = 0;
	add(&a, c->rsync);
	add(&a, "-a");
	add(&a, "--protect-args"); /* the path is not seen by the remote shell */
	add(&a, "-e");
	add(&a, rsh);
	add(&a, "--");
	add(&a, src);
	add(&a, dst);
	rc = run_child(a.v, tail, sizeof(tail));
	if (rc == 127 && strstr(tail, "cannot run")) {
		host_error(alias, h, "rsync is not installed", last_line(tail));
		return CLI_EINPUT;
	}
	if (rc != 0) {
		char what[64];

		snprintf(what, sizeof(what), "rsync failed (exit %d)", rc);
		host_error(alias, h, what, last_line(tail));
		return CLI_EINPUT;
	}
	if (!c->quiet) {
		printf("%s/%s: gathered (line %d)\n", c->out, alias, h->line);
		fflush(stdout);
	}
	return CLI_OK;
}

/* RUN/host_ips_mapping.txt: alias -> salted SHA-256 of the address. */
static int write_mapping(const struct collect *c, const struct host *hv, size_t n, const int *ok)
{
	unsigned char salt[16], md[32];
	struct out_file of;
	struct nns_err err;
	size_t got = 0;

	while (got < sizeof(salt)) {
		ssize_t k = getrandom(salt + got, sizeof(salt) - got, 0);

		if (k < 0 && errno != EINTR) {
			cli_error(NULL, "getrandom failed: no salt for the host hashes");
			return CLI_EINPUT;
		}
		if (k > 0)
			got += (size_t)k;
	}
	nns_err_clear(&err);
	if (out_file_open(&of, c->out, COLLECT_MAPPING_FILE, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	fprintf(of.f,
		"%s: host aliases of this run. The addresses are not stored: each is\n"
		"# sha256(salt + \"[user@]host:port\"), the salt random and not kept,\n"
		"# so equal hashes mean the same address. alias hash status\n",
		COLLECT_MAPPING_MAGIC);
	for (size_t i = 0; i < n; i++) {
		struct sha256 s;
		char key[700];

		snprintf(key, sizeof(key), "%s:%ld", hv[i].dest, hv[i].port);
		sha256_init(&s);
		sha256_update(&s, salt, sizeof(salt));
		sha256_update(&s, key, strlen(key));
		sha256_final(&s, md);
		fprintf(of.f, "host%zu sha256:", i);
		for (int k = 0; k < 8; k++)
			fprintf(of.f, "%02x", md[k]);
		fprintf(of.f, " %s\n", ok[i] ? "ok" : "failed");
	}
	explicit_bzero(salt, sizeof(salt));
	if (out_file_commit(&of, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static int add_ssh_opt(void *collect, const char *arg)
{
	struct collect *c = collect;

	if (c->nssh_opts >= COLLECT_MAX_SSH_OPTS)
		return cli_usage_error("collect", "more than %d --ssh-opt", COLLECT_MAX_SSH_OPTS);
	if (strncasecmp(arg, "BatchMode", 9) == 0)
		return cli_usage_error("collect",
				       "--ssh-opt %s: BatchMode stays yes (keys only, never a "
				       "password)",
				       arg);
	c->ssh_opts[c->nssh_opts++] = arg;
	return CLI_CONTINUE;
}

static int collect_parse_args(int argc, char **argv, struct collect *c)
{
	static const struct cli_cmd cmd = {"collect", USAGE, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("hosts", 'H' | CLI_LONG_ONLY, &c->hosts_file),
	    CLI_OPT_STR("remote-path", 'R' | CLI_LONG_ONLY, &c->remote_path),
	    CLI_OPT_STR("out", 'o', &c->out),
	    CLI_OPT_STR("identity", 'i', &c->identity),
	    CLI_OPT_LONG("port", 'p', &c->port, 1, 65535, "1..65535"),
	    CLI_OPT_CALL("ssh-opt", 'O' | CLI_LONG_ONLY, 1, add_ssh_opt, c),
	    CLI_OPT_LONG("connect-timeout", 'T' | CLI_LONG_ONLY, &c->timeout, 1, 3600, "1..3600 s"),
	    CLI_OPT_QUIET(&c->quiet),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(c, 0, sizeof(*c));
	c->timeout = 10;
	c->ssh = env_or("NNSCOPE_SSH", "ssh");
	c->rsync = env_or("NNSCOPE_RSYNC", "rsync");
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	if (first < argc)
		return cli_usage_error("collect", "unexpected argument '%s'", argv[first]);
	if (!c->hosts_file)
		return cli_usage_error("collect", "missing --hosts FILE");
	if (!c->out)
		return cli_usage_error("collect", "missing --out RUN");
	if (c->identity && access(c->identity, R_OK) != 0) {
		char msg[700];

		snprintf(msg, sizeof(msg), "--identity %s: %s", c->identity, strerror(errno));
		cli_error(NULL, msg);
		return CLI_EINPUT;
	}
	return CLI_CONTINUE;
}

/* Gathers every host (a failure is reported and the others go on) and
 * writes the mapping file; CLI_OK, or CLI_EINPUT if anything failed. */
static int collect_hosts(const struct collect *c, const struct host *hv, size_t n)
{
	size_t failed = 0;
	int status = CLI_OK, *ok;

	if (!(ok = calloc(n, sizeof(*ok)))) {
		cli_error(NULL, "out of memory");
		return CLI_EINPUT;
	}
	for (size_t i = 0; i < n; i++) {
		char alias[32];

		snprintf(alias, sizeof(alias), "host%zu", i);
		ok[i] = collect_host(c, &hv[i], alias) == CLI_OK;
		failed += !ok[i];
	}
	if (write_mapping(c, hv, n, ok))
		status = CLI_EINPUT;
	free(ok);
	if (failed) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%zu of %zu hosts failed; the others were gathered",
			 failed, n);
		cli_error(NULL, msg);
		status = CLI_EINPUT;
	} else if (!c->quiet) {
		printf("%s: %zu hosts gathered; nnscope analyse %s --out DIR\n", c->out, n, c->out);
	}
	return status;
}

int cmd_collect(int argc, char **argv)
{
	struct collect c;
	struct host *hv = NULL;
	struct nns_err err;
	size_t n = 0;
	int rc;

	if ((rc = collect_parse_args(argc, argv, &c)) != CLI_CONTINUE)
		return rc;
	if (read_hosts(&c, &hv, &n))
		return CLI_EINPUT;
	nns_err_clear(&err);
	if (fs_mkdirs(c.out, &err)) {
		cli_error(NULL, err.msg);
		free(hv);
		return CLI_EINPUT;
	}
	rc = collect_hosts(&c, hv, n);
	free(hv);
	return rc;
}
