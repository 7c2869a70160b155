// SPDX-License-Identifier: GPL-2.0
/*
 * perfns run --level LEVEL [--map-root-user | --map-current-user]
 *            [--map-auto] [--] [COMMAND [ARG...]]
 *
 * unshare(CLONE_NEWUSER) as util-linux unshare --user does, with the same
 * id mappings, raise the new namespace to LEVEL and exec COMMAND in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfns.h"

static const char run_usage[] =
	"Usage: perfns run --level LEVEL [--map-root-user | --map-current-user]\n"
	"                  [--map-auto] [--] [COMMAND [ARG...]]\n"
	"\n"
	"Make a new user namespace (as 'unshare --user'), set its\n"
	"perf_event_paranoid level to LEVEL and run COMMAND in it, by default\n"
	"$SHELL. The new namespace is at your namespace's level in force (from\n"
	"the initial one, at the host's floor if that is higher), and LEVEL\n"
	"below it is refused. LEVEL becomes the namespace's own level:\n"
	"nothing in the namespace can lower it, and lowering the levels above\n"
	"it (yours, the host's) no longer takes it below LEVEL.\n"
	"\n"
	"Options:\n"
	"  -l, --level LEVEL       the level: -1, 0, 1, 2 or 3 (3: perf off)\n"
	"  -r, --map-root-user     map your effective uid and gid to 0 inside\n"
	"  -c, --map-current-user  map your effective uid and gid to themselves\n"
	"      --map-auto          map the first block of your subordinate ids\n"
	"                          (/etc/subuid, /etc/subgid) from id 0 up,\n"
	"                          with /usr/bin/newuidmap and newgidmap\n"
	"  -h, --help              show this help\n"
	"\n"
	"Without a map option your ids are unmapped inside (the overflow id).\n"
	"--map-auto combines with the other two as in util-linux.\n"
	"\n"
	"Exit status: COMMAND's; 1 if the namespace could not be made or set\n"
	"up or COMMAND could not be run, 2 usage error.\n";

/*
 * By absolute path: they are set-uid root (or carry CAP_SETUID), and a
 * caller's PATH must not choose which program maps ids.
 */
#define NEWUIDMAP	"/usr/bin/newuidmap"
#define NEWGIDMAP	"/usr/bin/newgidmap"

struct id_map {
	unsigned int inner, outer, count;
};

/* At most: the single id, and the subordinate block split around it. */
#define MAX_MAPS	3

/* The first block of @file ("name:start:count" or "uid:start:count"). */
static int subid_block(const char *file, uid_t uid, const char *user,
		       struct id_map *block)
{
	char line[512], want_uid[16], *name, *start, *count, *save;
	unsigned long s, c;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		msg("cannot read %s: %s", file, strerror(errno));
		return -1;
	}
	snprintf(want_uid, sizeof(want_uid), "%u", (unsigned int)uid);
	while (fgets(line, sizeof(line), f)) {
		name = strtok_r(line, ":", &save);
		start = strtok_r(NULL, ":", &save);
		count = strtok_r(NULL, ":\n", &save);
		if (!name || !start || !count)
			continue;
		if (strcmp(name, want_uid) && (!user || strcmp(name, user)))
			continue;
		s = strtoul(start, NULL, 10);
		c = strtoul(count, NULL, 10);
		if (!c || s > 0xffffffffUL || c > 0xffffffffUL - s)
			continue;
		block->inner = 0;
		block->outer = s;
		block->count = c;
		fclose(f);
		return 0;
	}
	fclose(f);
	msg("no subordinate id block for user %s (uid %u) in %s",
	    user ? user : "?", (unsigned int)uid, file);
	return -1;
}

/*
 * The maps for newuidmap: the single id (if @single) and the block, split
 * around the single id's inner id as util-linux does, so that the block's
 * outer ids stay contiguous.
 */
static int build_maps(const struct id_map *single, const struct id_map *block,
		      struct id_map *maps)
{
	unsigned int in;
	int n = 0;

	if (!single) {
		maps[n++] = *block;
		return n;
	}
	maps[n++] = *single;
	in = single->inner;
	if (in >= block->count) {
		maps[n++] = *block;
		return n;
	}
	if (in > 0)
		maps[n++] = (struct id_map){ 0, block->outer, in };
	if (block->count - in - 1 > 0)
		maps[n++] = (struct id_map){ in + 1, block->outer + in,
					     block->count - in - 1 };
	return n;
}

static int run_mapper(const char *tool, pid_t target,
		      const struct id_map *maps, int n)
{
	char args[2 + 3 * MAX_MAPS][16];
	char *argv[3 + 3 * MAX_MAPS];
	int i, k = 0, status;
	pid_t pid;

	argv[k] = (char *)tool;
	snprintf(args[0], sizeof(args[0]), "%d", (int)target);
	argv[++k] = args[0];
	for (i = 0; i < n; i++) {
		snprintf(args[1 + 3 * i], 16, "%u", maps[i].inner);
		snprintf(args[2 + 3 * i], 16, "%u", maps[i].outer);
		snprintf(args[3 + 3 * i], 16, "%u", maps[i].count);
		argv[++k] = args[1 + 3 * i];
		argv[++k] = args[2 + 3 * i];
		argv[++k] = args[3 + 3 * i];
	}
	argv[++k] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(tool, argv);
		msg("cannot run %s: %s", tool, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		msg("%s failed for pid %d", tool, (int)target);
		return -1;
	}
	return 0;
}

/*
 * A child left in the caller's namespace waits until the caller has made
 * its new one, then maps ids into it with newuidmap and newgidmap. Returns
 * the child's pid and the descriptor that tells it to go.
 */
static pid_t start_mapper(const struct id_map *umaps, int nu,
			  const struct id_map *gmaps, int ng, int *go)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC)) {
		msg("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		if (run_mapper(NEWUIDMAP, parent, umaps, nu) ||
		    run_mapper(NEWGIDMAP, parent, gmaps, ng))
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int finish_mapper(pid_t pid, int go, bool unshared)
{
	int status;

	if (unshared && write(go, "x", 1) != 1)
		unshared = false;
	close(go);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return unshared && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = strlen(text), n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != len) {
		int err = n < 0 ? errno : EIO;

		close(fd);
		return -err;
	}
	close(fd);
	return 0;
}

/* util-linux's --map-root-user and --map-current-user without subids. */
static int map_single(unsigned int uid_in, unsigned int gid_in, uid_t euid,
		      gid_t egid)
{
	char buf[64];
	int ret;

	ret = write_file("/proc/self/setgroups", "deny");
	if (ret && ret != -ENOENT) {
		msg("cannot write /proc/self/setgroups: %s", strerror(-ret));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%u %u 1", uid_in, (unsigned int)euid);
	ret = write_file("/proc/self/uid_map", buf);
	if (ret) {
		msg("cannot write /proc/self/uid_map: %s", strerror(-ret));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%u %u 1", gid_in, (unsigned int)egid);
	ret = write_file("/proc/self/gid_map", buf);
	if (ret) {
		msg("cannot write /proc/self/gid_map: %s", strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * The write of the level was refused in the new namespace, which perfns is
 * in now: @res->level becomes the level in force there as the kernel
 * applies it, which says why (kernel.perf_event_paranoid, read there,
 * counts the host's level as written).
 */
static void new_ns_level_in_force(struct lvl_result *res)
{
	struct userns cur = { .fd = -1 };
	int err;

	if (!res->have_level)
		return;
	err = userns_current(&cur);
	if (err) {
		res->have_level = false;
		res->ask_err = -err;
		return;
	}
	userns_level_in_force(&cur, res);
	userns_close(&cur);
}

enum { MAP_NONE, MAP_ROOT, MAP_CURRENT };

int cmd_run(int argc, char **argv)
{
	enum { OPT_MAP_AUTO = 256 };
	static const struct option opts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "map-root-user", no_argument, NULL, 'r' },
		{ "map-current-user", no_argument, NULL, 'c' },
		{ "map-auto", no_argument, NULL, OPT_MAP_AUTO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct id_map single_u, single_g, ublock, gblock;
	struct id_map umaps[MAX_MAPS], gmaps[MAX_MAPS];
	int c, ret, map = MAP_NONE, go = -1, nu, ng, per_ns, err = 0;
	bool have_level = false, map_auto = false;
	uid_t euid = geteuid();
	gid_t egid = getegid();
	char *shell_argv[2];
	struct lvl_op op = { .write_level = true };
	struct userns ns = { .fd = -1, .name = "new user namespace" };
	struct lvl_result res = { 0 };
	struct passwd *pw;
	pid_t mapper = -1;

	optind = 1;
	while ((c = subcmd_getopt("run", run_usage, "+:l:rch", opts,
				  argc, argv, &ret)) > 0) {
		switch (c) {
		case 'l':
			ret = parse_ns_level_arg("run", optarg, &op.level);
			if (ret)
				return ret;
			have_level = true;
			break;
		case 'r':
		case 'c':
			if (map != MAP_NONE)
				return usage_error("run",
						   "--map-root-user and --map-current-user exclude each other");
			map = c == 'r' ? MAP_ROOT : MAP_CURRENT;
			break;
		case OPT_MAP_AUTO:
			map_auto = true;
			break;
		default:
			return usage_error("run", "unknown option");
		}
	}
	if (!c)
		return ret;
	if (!have_level)
		return usage_error("run", "no --level given");
	if (optind == argc) {
		shell_argv[0] = getenv("SHELL");
		if (!shell_argv[0] || !*shell_argv[0])
			shell_argv[0] = "/bin/sh";
		shell_argv[1] = NULL;
		argv = shell_argv;
		optind = 0;
	}

	/* Without the series the level cannot be set: nothing is made. */
	per_ns = kernel_per_ns(&err);
	if (per_ns <= 0) {
		res.stage = per_ns ? LVL_UNSURE : LVL_GLOBAL;
		res.err = err;
		return report_level_error(&ns, &res, &op);
	}

	single_u.inner = map == MAP_ROOT ? 0 : euid;
	single_g.inner = map == MAP_ROOT ? 0 : egid;
	single_u.outer = euid;
	single_g.outer = egid;
	single_u.count = 1;
	single_g.count = 1;
	if (map_auto) {
		pw = getpwuid(euid);
		if (subid_block("/etc/subuid", euid, pw ? pw->pw_name : NULL,
				&ublock) ||
		    subid_block("/etc/subgid", euid, pw ? pw->pw_name : NULL,
				&gblock))
			return EXIT_FAIL;
		nu = build_maps(map == MAP_NONE ? NULL : &single_u, &ublock,
				umaps);
		ng = build_maps(map == MAP_NONE ? NULL : &single_g, &gblock,
				gmaps);
		mapper = start_mapper(umaps, nu, gmaps, ng, &go);
		if (mapper < 0)
			return EXIT_FAIL;
	}

	if (unshare(CLONE_NEWUSER)) {
		msg("cannot make a user namespace: unshare: %s",
		    strerror(errno));
		if (mapper > 0)
			finish_mapper(mapper, go, false);
		return EXIT_FAIL;
	}
	if (mapper > 0) {
		if (finish_mapper(mapper, go, true)) {
			msg("cannot map subordinate ids into the new user namespace");
			return EXIT_FAIL;
		}
	} else if (map != MAP_NONE) {
		if (map_single(single_u.inner, single_g.inner, euid, egid))
			return EXIT_FAIL;
	}

	level_io_here(&op, false, &res);
	if (res.stage == LVL_WRITE)
		new_ns_level_in_force(&res);
	if (res.stage == LVL_WRITE && res.err == EPERM && res.have_level &&
	    op.level < res.level) {
		msg("the new user namespace is at level %d already; a namespace's level can only be raised",
		    res.level);
		return EXIT_FAIL;
	}
	if (res.stage != LVL_OK)
		return report_level_error(&ns, &res, &op);

	execvp(argv[optind], argv + optind);
	msg("cannot run %s: %s", argv[optind], strerror(errno));
	return EXIT_FAIL;
}
