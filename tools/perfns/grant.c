// SPDX-License-Identifier: GPL-2.0
/*
 * perfns grant (--pid PID | --userns-fd FD) LEVEL - let one user namespace
 * profile below the host's level; perfns revoke (--pid PID | --userns-fd FD)
 * takes it back.
 *
 * A grant anchors the namespace at LEVEL: the host's level and floor no
 * longer apply to it and what is below it, the grant and
 * kernel.perf_event_paranoid_grant_min do (NS_PERF_PARANOID_GRANT, an ioctl
 * on its nsfs descriptor). The kernel wants CAP_SYS_ADMIN in the initial
 * user namespace from the caller and from whoever opened the descriptor,
 * and a level no lower than grant_min; it logs every grant and revoke.
 *
 * The namespace is named by a descriptor, never by a pid number alone:
 * --pid goes through a pidfd, so a pid that exits and is reused between
 * the lookup and the ioctl names nothing rather than another process's
 * namespace. As with set --pid, that is the container PID is in (the user
 * namespace directly below perfns's own), however deep its process nested
 * itself since, or with --exact PID's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perfns.h"

/* The options of both commands, which name the namespace the same way */
#define TARGET_OPTIONS \
	"Options:\n" \
	"  -p, --pid PID        the container of this process (from a pidfd)\n" \
	"  -x, --exact          PID's own user namespace, even nested deeper\n" \
	"  -u, --userns-fd FD   the user namespace descriptor FD (inherited)\n" \
	"  -h, --help           show this help\n" \
	"\n" \
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n"

static const char grant_usage[] =
	"Usage: perfns grant (--pid PID [--exact] | --userns-fd FD) LEVEL\n"
	"\n"
	"Grant the container of PID (the user namespace directly below yours\n"
	"that PID's own is in or nested under; with --exact PID's own), or the\n"
	"user namespace FD refers to, the perf_event_paranoid LEVEL and anchor\n"
	"it there: the host's level and floor no longer apply to it or to the\n"
	"namespaces below it (kernel.perf_event_paranoid_grant_min does), so\n"
	"that one container can profile itself while the host and every other\n"
	"tenant stay locked. The namespaces below it that never set their own\n"
	"level follow it; one that set a higher level keeps it. Its own level\n"
	"from before the grant is put aside until the revoke. Inside, the level\n"
	"can still only be raised. A namespace inside a granted one can be\n"
	"granted too; each grant is revoked on its own. Granting a granted\n"
	"namespace again sets its level anew. The namespace's owner (for a\n"
	"rootless container, its user) can enter it and profile what it runs\n"
	"there: a note says so. The kernel logs each grant and revoke.\n"
	"\n"
	"Prints what was granted, then the namespace's level in force, own\n"
	"level and granted level, as perfns get --verbose does.\n"
	"\n"
	"Takes CAP_SYS_ADMIN in the initial user namespace (CAP_PERFMON is not\n"
	"enough), held by perfns and, with --userns-fd, by whoever opened FD.\n"
	"LEVEL is at most 3 and at least kernel.perf_event_paranoid_grant_min\n"
	"(1, 2 or 3; 2 by default).\n"
	"\n" TARGET_OPTIONS;

static const char revoke_usage[] =
	"Usage: perfns revoke (--pid PID [--exact] | --userns-fd FD)\n"
	"\n"
	"Take back the grant of the container of PID (or of FD): the host's\n"
	"level and floor (or the grant of a granted namespace above it) apply\n"
	"to it and everything below it again, at once. Its own level from\n"
	"before the grant comes back, raised to any level set in it during the\n"
	"grant; a namespace that set none follows its parent again. Events\n"
	"already open stay open, as they do when a level is raised. Revoking a\n"
	"namespace that has no grant changes nothing. The kernel logs each\n"
	"revoke. Prints what was revoked, then the namespace's levels as\n"
	"perfns get --verbose does. Takes what grant takes.\n"
	"\n" TARGET_OPTIONS;

/*
 * The namespace a grant or revoke acts on, from --pid (as set --pid) or
 * --userns-fd; @what describes it for the line printed.
 */
static int grant_target(const char *cmd, pid_t pid, bool exact, int fd,
			struct userns *ns, char *what, size_t len)
{
	bool by_pid = pid != 0, by_fd = fd >= 0;
	const struct userns *self;
	int ret, dup;

	if (by_pid == by_fd)
		return usage_error(cmd, "give one of --pid and --userns-fd");
	if (exact && !pid)
		return usage_error(cmd, "--exact goes with --pid");
	if (pid) {
		self = userns_self();
		if (!self)
			return EXIT_FAIL;
		return userns_container_of(cmd, pid, exact, self, ns, what,
					   len);
	}

	snprintf(ns->name, sizeof(ns->name), "user namespace on descriptor %d",
		 fd);
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0) {
		msg("%s: %s", ns->name, strerror(errno));
		return EXIT_FAIL;
	}
	ret = userns_from_fd(dup, ns);
	if (ret) {
		msg("%s: %s", ns->name, ret == -EINVAL ?
		    "not a user namespace" : strerror(-ret));
		return EXIT_FAIL;
	}
	snprintf(what, len, "user namespace %lu (descriptor %d)",
		 (unsigned long)ns->ino, fd);
	return EXIT_OK;
}

/*
 * Why the kernel refused a grant (of @level) or a revoke (@level INT_MIN),
 * for @ns.
 */
static int report_grant_error(const char *what, const struct userns *ns,
			      int err, int level)
{
	const struct userns *self;
	int min;

	switch (err) {
	case ENOTTY:
		msg("%s %s: this kernel has no grants (%s does not exist)",
		    what, ns->name, GRANT_MIN_PATH);
		break;
	case E2BIG:
		msg("%s %s: %s", what, ns->name, perf_ioctl_error(err));
		break;
	case EINVAL:
		if (userns_is_initial(ns))
			msg("%s %s: it is the initial user namespace, whose level is the host's own (perfns set)",
			    what, ns->name);
		else
			msg("%s %s: refused (EINVAL)", what, ns->name);
		break;
	case EPERM:
		self = userns_self();
		if (self && !userns_is_initial(self))
			msg("%s %s: refused: grants take CAP_SYS_ADMIN in the initial user namespace, and perfns runs in user namespace %lu",
			    what, ns->name, (unsigned long)self->ino);
		else if (!have_cap_sys_admin())
			msg("%s %s: refused: grants take CAP_SYS_ADMIN in the initial user namespace",
			    what, ns->name);
		else if (read_proc_int(GRANT_MIN_PATH, &min) == 0 &&
			 level != INT_MIN && level < min)
			msg("%s %s: refused: level %d is below kernel.perf_event_paranoid_grant_min (%d)",
			    what, ns->name, level, min);
		else
			msg("%s %s: refused: the descriptor was opened without CAP_SYS_ADMIN in the initial user namespace",
			    what, ns->name);
		break;
	default:
		msg("%s %s: %s", what, ns->name, strerror(err));
	}
	return EXIT_FAIL;
}

/*
 * Whoever owns a granted namespace can enter it and profile their own
 * processes at the granted level: say so when that is not root.
 */
void grant_owner_note(const struct userns *ns)
{
	uid_t owner;

	fflush(stdout);
	if (!ioctl(ns->fd, NS_GET_OWNER_UID, &owner) && owner != 0)
		msg("note: user namespace %lu is owned by uid %u, who can enter it: what that user runs in it can be profiled too",
		    (unsigned long)ns->ino, (unsigned int)owner);
}

/*
 * Grant @ns @level: EXIT_OK, or a message and EXIT_FAIL. The caller says
 * so, then grant_owner_note().
 */
int grant_ns(const struct userns *ns, int level)
{
	struct ns_perf_paranoid req = { .level = level };

	if (ioctl(ns->fd, NS_PERF_PARANOID_GRANT, &req))
		return report_grant_error("grant", ns, errno, level);
	return EXIT_OK;
}

static int grant_or_revoke(int argc, char **argv, bool grant)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "exact", no_argument, NULL, 'x' },
		{ "userns-fd", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = grant ? "grant" : "revoke";
	struct userns ns = { .fd = -1 };
	struct ns_perf_paranoid before, now;
	int c, ret, fd = -1, level = 0;
	bool exact = false, have_now;
	char what[512];
	pid_t pid = 0;

	optind = 1;
	while ((c = subcmd_getopt(cmd, grant ? grant_usage : revoke_usage,
				  ":p:xu:h", opts, argc, argv, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'p':
			ret = parse_pid_arg(cmd, optarg, &pid);
			break;
		case 'x':
			exact = true;
			break;
		case 'u':
			if (parse_int(optarg, &fd) || fd < 0)
				ret = usage_error(cmd,
						  "--userns-fd wants a descriptor number, not '%s'",
						  optarg);
			break;
		default:
			ret = usage_error(cmd, "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (grant) {
		if (optind >= argc)
			return usage_error(cmd, "missing LEVEL");
		ret = parse_ns_level_arg(cmd, argv[optind++], &level);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);

	ret = grant_target(cmd, pid, exact, fd, &ns, what, sizeof(what));
	if (ret)
		return ret;
	ret = userns_perf_get(&ns, &before);
	if (ret) {
		ret = report_grant_error(cmd, &ns, -ret, INT_MIN);
		userns_close(&ns);
		return ret;
	}
	if (grant)
		ret = grant_ns(&ns, level);
	else if (ioctl(ns.fd, NS_PERF_PARANOID_REVOKE))
		ret = report_grant_error(cmd, &ns, errno, INT_MIN);
	if (ret) {
		userns_close(&ns);
		return ret;
	}

	have_now = !userns_perf_get(&ns, &now);
	if (grant)
		printf("level %d granted to %s (was %d)\n", level, what,
		       before.level);
	else if (have_now)
		printf("grant revoked on %s: level %d (was %d)\n", what,
		       now.level, before.level);
	else
		printf("grant revoked on %s (was %d)\n", what, before.level);
	if (have_now)
		print_perf_state(&now, &before);
	if (grant)
		grant_owner_note(&ns);
	userns_close(&ns);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

int cmd_grant(int argc, char **argv)
{
	return grant_or_revoke(argc, argv, true);
}

int cmd_revoke(int argc, char **argv)
{
	return grant_or_revoke(argc, argv, false);
}
