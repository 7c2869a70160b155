// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, the options every subcommand takes alike, strict parsing of
 * numbers given on the command line, escaping what tenants name, and
 * allocation that ends perfns when memory runs out.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfns.h"

const char *prog = "perfns";

/* --timeout: how long one child that enters a namespace may take. */
int op_timeout_s = DEFAULT_TIMEOUT_S;

/* realloc() that ends perfns with a message when memory runs out. */
void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		msg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

/* One line on stderr, prefixed with the program's name. */
void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s --help'.\n", prog, cmd);
	return EXIT_USAGE;
}

/*
 * getopt_long() for subcommand cmd, answering alike for every subcommand
 * -h/--help (cmd's usage on stdout), a missing argument and an unknown option
 * (usage errors). Returns the next of cmd's own options, -1 after the last,
 * or 0 with *status set to the exit status cmd must return. Set optind to 1
 * before the first call.
 */
int subcmd_getopt(const char *cmd, const char *usage, const char *optstring,
		  const struct option *opts, int argc, char **argv, int *status)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, optstring, opts, NULL);
	switch (c) {
	case 'h':
		fputs(usage, stdout);
		*status = EXIT_OK;
		return 0;
	case ':':
		*status = usage_error(cmd, "%s needs an argument",
				      argv[optind - 1]);
		return 0;
	case '?':
		*status = usage_error(cmd, "unknown option '%s'",
				      argv[optind - 1]);
		return 0;
	}
	return c;
}

/* A decimal int: an optional '-', digits, nothing else (no blanks, no '+'). */
int parse_int(const char *s, int *out)
{
	const char *p = s;
	char *end;
	long v;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int parse_pid(const char *s, pid_t *out)
{
	int v;

	if (*s == '-' || parse_int(s, &v) || v <= 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A proc file holding one int (a sysctl): 0, or -errno (-EINVAL: not one). */
int read_proc_int(const char *path, int *out)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return parse_int(buf, out);
}

int parse_level_arg(const char *cmd, const char *s, int *level)
{
	if (parse_int(s, level))
		return usage_error(cmd,
				   "level '%s' is not an integer (-1 to 3, or any int for the host)",
				   s);
	return 0;
}

/*
 * @level for a user namespace other than the initial one (its
 * user.perf_event_paranoid, a grant): -1 to 3, as the kernel takes.
 */
int check_ns_level(const char *cmd, int level)
{
	if (level < LEVEL_MIN || level > LEVEL_MAX)
		return usage_error(cmd,
				   "level %d is out of range: a user namespace's level is -1, 0, 1, 2 or 3 (any int only for the host's own)",
				   level);
	return 0;
}

/* A level for a user namespace other than the initial one. */
int parse_ns_level_arg(const char *cmd, const char *s, int *level)
{
	return parse_level_arg(cmd, s, level) ?: check_ns_level(cmd, *level);
}

/* The host's floor: -1 (no floor) to 3. */
int parse_floor_arg(const char *cmd, const char *s, int *floor)
{
	if (parse_int(s, floor))
		return usage_error(cmd,
				   "floor '%s' is not an integer (-1 for no floor, or 0 to 3)",
				   s);
	if (*floor < NO_FLOOR || *floor > LEVEL_MAX)
		return usage_error(cmd,
				   "floor %d is out of range: -1 (no floor), 0, 1, 2 or 3",
				   *floor);
	return 0;
}

int parse_pid_arg(const char *cmd, const char *s, pid_t *pid)
{
	if (parse_pid(s, pid))
		return usage_error(cmd, "pid '%s' is not a positive integer",
				   s);
	return 0;
}

int parse_timeout_arg(const char *cmd, const char *s)
{
	int v;

	if (*s == '-' || parse_int(s, &v) || v < 1 || v > 3600)
		return usage_error(cmd,
				   "timeout '%s' is not a whole number of seconds from 1 to 3600",
				   s);
	op_timeout_s = v;
	return 0;
}

/*
 * Copy @len bytes of @src to @dst as printable ASCII: every byte outside
 * 0x20..0x7e, and the backslash, becomes \xHH, so that what a tenant names
 * (a process name, a container id) can neither drive a terminal nor be
 * invalid UTF-8. Truncates at a whole character, marking it with "...";
 * @dst is always terminated. Returns the length written.
 */
size_t escape_bytes(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0, need;
	unsigned char c;

	if (!size)
		return 0;
	for (i = 0; i < len; i++) {
		c = (unsigned char)src[i];
		need = c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;
		if (o + need + 4 > size) {	/* room for "..." and NUL */
			if (size >= 4 && o + 4 <= size) {
				memcpy(dst + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (need == 1) {
			dst[o++] = c;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	dst[o] = '\0';
	return o;
}

/* "-1", "-2": a negative level, not an option. */
bool is_level_word(const char *s)
{
	if (s[0] != '-' || !s[1])
		return false;
	for (s++; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}
